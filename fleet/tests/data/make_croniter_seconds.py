"""Prints croniter's own starts for six-field specs (the sixth field the
second), one row per (id, spec).

Run from the repository root:
    pip install croniter==7.0.0
    python3 fleet/tests/data/make_croniter_seconds.py > fleet/tests/data/croniter_seconds.tsv

Each row: id, spec, then croniter's first starts (at most MOST) in
[FROM, FROM + 31 days) as comma-separated Unix seconds, or "refused" when
croniter raises. A spec without H is run for one id only; its starts do
not depend on the id. Ids hold no tab or newline, so the columns need no
escaping.
"""

import datetime
import importlib.metadata
import platform
import sys

from croniter import croniter

# Ten seconds before a minute, an hour, a day and a month turn over (2024
# is a leap year).
FROM = datetime.datetime(2024, 2, 29, 23, 59, 50, tzinfo=datetime.timezone.utc)
HORIZON = datetime.timedelta(days=31)
MOST = 30

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

# Seconds lists, ranges, steps and croniter's quirks (an equal range is the
# whole field, `59/15` is second 59 alone, a backwards range wraps).
PLAIN = [
    "* * * * * *",
    "* * * * * 0",
    "* * * * * 30",
    "* * * * * 59",
    "* * * * * 0,15,30,45",
    "* * * * * 45,5,5,20",
    "* * * * * 5-10",
    "* * * * * */7",
    "* * * * * */60",
    "* * * * * 10/20",
    "* * * * * 59/15",
    "* * * * * 58/1",
    "* * * * * 50-10",
    "* * * * * 50-10/7",
    "* * * * * 5-5",
    "* * * * * 5-5/2",
    "* * * * * 0-59",
    "* * * * * 0-59/59",
    "* * * * * 00,07",
    "*/5 * * * * */10",
    "0 * * * * 1-3,58",
    "30 2 * * * 45",
    "59 23 * * * 59",
    "0 0 * * mon 0-59/30",
    "0 0 1,15 * 1 30",
    "0 12 1-31 * */2 10",
    "0 0 29 2 * 0",
    "* * ? * * 1",
    "*  * * * *   3",
    "* * * * * 1/0",
    "* * * * * */0",
    "* * * * * 60",
    "* * * * * 0-60",
    "* * * * * -5",
    "* * * * * 5-",
    "* * * * * ?",
    "* * * * * L",
    "* * * * * 15w",
    "* * * * * 1#2",
    "* * * * * mon",
    "* * * * * jan",
    "* * * * * 1,,2",
    "* * * * * * * *",
]

# H in the seconds field in every form, and with H elsewhere.
HASHED = [
    "* * * * * H",
    "* * * * * h",
    "* * * * * H/15",
    "* * * * * H/7",
    "* * * * * H/60",
    "* * * * * H/61",
    "* * * * * H(0-29)",
    "* * * * * H(30-59)",
    "* * * * * H(0-59)",
    "* * * * * H(10-20)/5",
    "* * * * * H(50-59)/20",
    "* * * * * H(58-59)/1",
    "0 * * * * H",
    "H * * * * H",
    "H H * * * H",
    "H H H * * H",
    "H H * * H H",
    "H H H H H H",
    "H/15 * * * * H/20",
    "H(0-29) H(9-17) * * * H(0-9)",
    "H H(0-2) * * * H/30",
    "*/10 * * * * H(0-4)/2",
    "* * * * * H(0-60)",
    "* * * * * H(5-5)",
    "* * * * * H(59-0)",
    "* * * * * H/0",
    "* * * * * H(0-9)/0",
    "* * * * * 5,H",
    "* * * * * H,5",
    "* * * * * H-5",
    "* * * * * R",
]


def starts(spec, hash_id):
    it = croniter(spec, FROM - datetime.timedelta(seconds=1), hash_id=hash_id)
    out = []
    while len(out) < MOST:
        t = it.get_next(datetime.datetime)
        if t >= FROM + HORIZON:
            break
        out.append(int(t.timestamp()))
    return out


def main():
    version = importlib.metadata.version("croniter")
    print(f"# croniter {version}, Python {platform.python_version()}")
    print("# made with: python3 fleet/tests/data/make_croniter_seconds.py"
          " > fleet/tests/data/croniter_seconds.tsv")
    print(f"# first {MOST} starts in [{FROM.isoformat()}, +31 days), Unix seconds;"
          " columns: id spec starts")
    rows = 0
    for specs, ids in ((PLAIN, ["job"]), (HASHED, IDS)):
        for spec in specs:
            for hash_id in ids:
                assert "\t" not in hash_id and "\n" not in hash_id
                # R is random: croniter accepts it but no vector could pin it.
                if spec.endswith("R"):
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
