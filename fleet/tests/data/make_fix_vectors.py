"""Prints the fix of cron and croniter lines, and the starts of each fixed
line as croniter itself places them, one row per (system, id, spec).

Run from the repository root:
    pip install pyfarmhash==0.5.1 croniter==7.0.0
    python3 fleet/tests/data/make_fix_vectors.py > fleet/tests/data/fix_vectors.tsv

The fix's rule (see fleet/src/fix/mod.rs) is restated here; the
numbers come from the real libraries: the hash is pyfarmhash's
fingerprint32 (FarmHash 1.1), the minute and hour sets are croniter's own
reading of the spec, and the starts are croniter's, with hash_id for H.

Each row: system, id, spec, the fixed spec (or "kept"), then the starts of
the fixed line in [FROM, FROM + 2 days) as comma-separated Unix seconds
("-" for a kept line). Ids hold no tab or newline.
"""

import datetime
import importlib.metadata
import platform
import sys

import farmhash
from croniter import croniter

FROM = datetime.datetime(2024, 3, 31, tzinfo=datetime.timezone.utc)  # a Sunday; then Monday the 1st
SPAN = datetime.timedelta(days=2)

IDS = [
    "job",
    "nightly backup/db",
    "team a/service b/deploy",
    "café ☕ rapport",
    "日本語のジョブ",
    "spaced  id",
    "a/b/c/d/e/f",
    "x",
    "Job-42",
    "root: /usr/local/bin/backup.sh --full",
    "ü",
    "etl/λ-pipeline",
]

CRON_SPECS = [
    "0 0 * * *",
    "@daily",
    "@midnight",
    "@hourly",
    "@weekly",
    "@monthly",
    "0 * * * *",
    "*/15 * * * *",
    "0,30 * * * *",
    "*/10 * * * *",
    "0 3 * * *",
    "30 2 * * 1-5",
    "0 */2 * * *",
    "0 0 * * 0",
    "15 4 1 * *",
    "0 0,12 * * *",
    "* * * * *",
    "5,17 * * * *",
    "*/7 * * * *",
    "0 9-17 * * mon-fri",
]

CRONITER_SPECS = [
    "0 0 * * *",
    "0 * * * *",
    "*/15 * * * *",
    "0 3 * * *",
    "0 0 * * 0",
    "0,20,40 * * * *",
    "H H * * *",
    "* * * * *",
    "10,15 * * * *",
]

# Vixie cron's macros, as fleet/src/cron.rs reads them.
MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}


def minutes_and_hours(fields):
    expanded = croniter(" ".join(fields)).expanded
    full = lambda values, n: set(range(n)) if values == ["*"] else set(values)
    return full(expanded[0], 60), full(expanded[1], 24)


def window(minutes):
    """The spread window: ("hour", 60) or ("step", n), or None. A midnight
    line keeps its hour, as every other line does (no night is set)."""
    if len(minutes) == 60:
        return None
    if len(minutes) == 1:
        return ("hour", 60)
    for step in range(2, 60):
        if 60 % step == 0 and minutes == set(range(0, 60, step)):
            return ("step", step)
    return None


def fix_cron(hash_id, spec):
    fields = MACROS.get(spec, spec).split()
    minutes, _ = minutes_and_hours(fields)
    found = window(minutes)
    if found is None:
        return None
    kind, width = found
    # The id's words joined by one space, so blanks in a command do not move it.
    identity = " ".join(hash_id.split())
    position = (farmhash.fingerprint32(identity.encode("utf-8")) * width) >> 32
    changed = False
    if kind == "hour":
        if {position} != minutes:
            fields[0], changed = str(position), True
    elif set(range(position, 60, width)) != minutes:
        fields[0], changed = f"{position}-59/{width}", True
    return " ".join(fields) if changed else None


def fix_croniter(spec):
    fields = spec.split()
    if any(field[0] in "HhRr" for field in fields):
        return None
    found = window(minutes_and_hours(fields)[0])
    if found is None:
        return None
    kind, width = found
    if kind == "hour":
        fields[0] = "H"
    else:
        fields[0] = f"H/{width}"
    return " ".join(fields)


def starts(spec, hash_id):
    it = croniter(spec, FROM - datetime.timedelta(seconds=1), hash_id=hash_id)
    out = []
    while True:
        t = it.get_next(datetime.datetime)
        if t >= FROM + SPAN:
            return out
        out.append(int(t.timestamp()))


def main():
    versions = ", ".join(
        f"{name} {importlib.metadata.version(name)}" for name in ("pyfarmhash", "croniter")
    )
    print(f"# {versions}, Python {platform.python_version()}")
    print("# made with: python3 fleet/tests/data/make_fix_vectors.py"
          " > fleet/tests/data/fix_vectors.tsv")
    print(f"# starts in [{FROM.isoformat()}, +2 days), Unix seconds;"
          " columns: system id spec fixed starts")
    rows = 0
    for system, specs in (("cron", CRON_SPECS), ("croniter", CRONITER_SPECS)):
        for spec in specs:
            for hash_id in IDS:
                assert "\t" not in hash_id and "\n" not in hash_id
                fixed = fix_cron(hash_id, spec) if system == "cron" else fix_croniter(spec)
                # A kept line's starts are its own, which other vectors cover.
                placed = ",".join(map(str, starts(fixed, hash_id))) if fixed else "-"
                print(f"{system}\t{hash_id}\t{spec}\t{fixed or 'kept'}\t{placed}")
                rows += 1
    print(f"{rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
