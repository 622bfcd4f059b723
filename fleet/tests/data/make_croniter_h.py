"""Prints croniter's own starts for hashed (H) specs, one row per (id, spec).

Run from the repository root:
    pip install croniter==7.0.0
    python3 fleet/tests/data/make_croniter_h.py > fleet/tests/data/croniter_h.tsv

Each row: id, spec, then the starts croniter gives in [FROM, FROM + 1 week)
as comma-separated Unix seconds, or "refused" when croniter raises. Ids
hold no tab or newline, so the columns need no escaping.
"""

import datetime
import importlib.metadata
import platform
import sys

from croniter import croniter

FROM = datetime.datetime(2024, 2, 26, tzinfo=datetime.timezone.utc)  # a Monday
WEEK = datetime.timedelta(days=7)

IDS = [
    "",
    "job",
    "nightly backup/db",
    "team a/service b/deploy",
    "café ☕ rapport",
    "日本語のジョブ",
    "  spaced  id  ",
    "a/b/c/d/e/f",
    "x",
    "Job-42",
]

# Every H form in every field, mixed with plain fields, lists, names and steps.
SPECS = [
    "H * * * *",
    "H H * * *",
    "H H H * *",
    "H H * * H",
    "H H H H *",
    "H H H H H",
    "H/15 * * * *",
    "H/7 H/5 * * *",
    "H(0-29) H(9-17) * * *",
    "H(30-59)/10 H(1-23)/6 * * *",
    "H(10-20)/40 2 * * *",
    "H(0-5)/1 H * * mon-fri",
    "0 H(0-2) * * *",
    "H 9 H * *",
    "H 9 H(1-7) * *",
    "H 12 H(20-28)/3 * *",
    "H H * * H(1-5)",
    "H H * * H(0-7)",
    "H H * * H(5-7)",
    "H H * * H/2",
    "H H * * H(0-7)/2",
    "H H * * H(1-7)/3",
    "H H */2 * H",
    "H H H * 1",
    "H H 1,15 * H",
    "H H * H(1-12) *",
    "H H * H/3 *",
    "H H * jan-dec H",
    "H 0-23/4 * * *",
    "H 8,12,18 * * 1-5",
    "5,H * * * *",
    "H H ? * *",
    "H H * * ?",
    "@hourly",
    "@daily",
    "@midnight",
    "@weekly",
    "@monthly",
    "@yearly",
    "@annually",
    "H(59-0) * * * *",
    "H(0-60) * * * *",
    "H/0 * * * *",
    "H H(5-5) * * *",
    "H H * * H(0-8)",
    "R * * * *",
]


def starts(spec, hash_id):
    it = croniter(spec, FROM - datetime.timedelta(seconds=1), hash_id=hash_id)
    out = []
    while True:
        t = it.get_next(datetime.datetime)
        if t >= FROM + WEEK:
            return out
        out.append(int(t.timestamp()))


def main():
    version = importlib.metadata.version("croniter")
    print(f"# croniter {version}, Python {platform.python_version()}")
    print("# made with: python3 fleet/tests/data/make_croniter_h.py"
          " > fleet/tests/data/croniter_h.tsv")
    print(f"# starts in [{FROM.isoformat()}, +7 days), Unix seconds; columns: id spec starts")
    rows = 0
    for spec in SPECS:
        for hash_id in IDS:
            assert "\t" not in hash_id and "\n" not in hash_id
            # R is random: croniter accepts it but no vector could pin it.
            if spec.startswith("R"):
                result = "refused"
            else:
                try:
                    result = ",".join(map(str, starts(spec, hash_id)))
                except Exception:  # croniter's refusals are several classes
                    result = "refused"
            print(f"{hash_id}\t{spec}\t{result}")
            rows += 1
    print(f"{rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
