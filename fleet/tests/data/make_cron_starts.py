"""Writes cron_starts.tsv: every start of each spec below in one week, by croniter.

Run from this directory:  python3 make_cron_starts.py > cron_starts.tsv

The week is [2024-02-26T00:00:00Z, 2024-03-04T00:00:00Z): it crosses the leap
day and a month boundary. croniter's get_next is strictly after its base, so
the walk starts one second before the week.

Only specs on which croniter and Vixie cron agree are listed. They differ
when a day field is written so that Vixie's first-character test and
croniter's reading disagree on whether it is restricted (`*/2` in one day
field with the other restricted, or `10,*`); fleet/tests/fleet/expand.rs checks
those cases by hand instead.
"""

from datetime import datetime, timedelta, timezone

import croniter as croniter_module
from croniter import croniter

FROM = datetime(2024, 2, 26, tzinfo=timezone.utc)
UNTIL = FROM + timedelta(days=7)

SPECS = [
    # Plain values and stars.
    "0 0 * * *", "30 12 * * *", "59 23 * * *", "0 * * * *", "15 * * * *",
    "* 3 * * *", "* 23 * * *", "0 0 26 * *", "0 0 29 * *", "0 0 1 * *",
    "0 0 31 * *", "0 0 30 * *", "0 0 * 2 *", "0 0 * 3 *", "0 0 * 4 *",
    "0 0 * * 0", "0 0 * * 1", "0 0 * * 6", "0 0 * * 7", "45 6 * * 4",
    # Lists.
    "0,30 * * * *", "0 8,12,18 * * *", "5,10,15 0 * * *", "0 0 1,15,29 * *",
    "0 0 * * 1,3,5", "0 9 * 2,3 *", "0 0 27,28 * *", "0 0 * 1,4,7,10 *",
    "0,59 0,23 * * *", "1,2,3 4,5 * * *",
    # Ranges.
    "0 9-17 * * *", "0-5 0 * * *", "0 0 * * 1-5", "0 0 * * 0-6",
    "0 0 * * 5-7", "0 0 25-31 * *", "0 0 1-3 * *", "30 22-23 * * *",
    "0 0 * 2-3 *", "0 12 * 3-12 *", "10-12 10-12 * * *", "0 0 * * 6-7",
    # Steps.
    "*/15 * * * *", "*/7 2 * * *", "*/20 */6 * * *", "0 */2 * * *",
    "0 */5 * * *", "0 0 */2 * *", "0 0 */10 * *", "0 0 * */2 *",
    "10-40/10 * * * *", "0 8-20/3 * * *", "5/20 1 * * *", "50/3 4 * * *",
    "0 20/2 * * *", "0 0 2/3 * *", "0 0 * * */2", "0 0 * * 1-5/2",
    "0-30/15 0-12/6 * * *", "*/30 9-10 * * 1-5", "0 0 1-31/7 * *", "0 0 * 1-12/3 *",
    # Names.
    "0 0 * feb *", "0 0 * mar *", "0 0 * FEB *", "0 0 * Mar *",
    "0 0 * * mon", "0 0 * * sun", "0 0 * * SAT", "0 0 * * Thu",
    "0 0 * * mon-fri", "0 0 * * sat,sun", "0 0 * jan-mar *", "0 0 * feb-apr/2 *",
    "0 6 * * tue,thu", "0 0 * * mon-sat/2", "30 5 * jan,feb,mar mon", "0 0 * * fri-sat",
    # Macros.
    "@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually",
    # Both day fields restricted: a day matches either.
    "0 0 1 * 1", "0 0 29 * 0", "0 0 1,15 * 3", "0 12 26-28 * 5",
    "0 0 2 * mon-fri", "0 0 31 * 6", "0 0 1-7 * 1", "0 0 13 * 5",
    "0 0 1 3 0", "0 0 29 2 3", "0 0 1 1 1", "0 0 28 * 7",
    "0 9 1-31/2 * 1", "0 0 2-31/5 * sun", "0 0 29,1 * sat", "0 0 3 * 1-5/2",
    # One day field restricted, the other a bare star.
    "0 0 29 * *", "0 0 * * 3", "0 0 1 * *", "0 0 * * 0,6",
    # Mixed.
    "7 7 * * *", "0 0,12 1 * *", "*/10 0 29 2 *", "13 13 13 * 5",
    "0 4 * * 2-4", "59 23 29 feb *", "0 0 4 3 *", "1 1 1 1 *",
]


def starts(spec):
    walk = croniter(spec, FROM - timedelta(seconds=1))
    found = []
    while True:
        at = walk.get_next(datetime)
        if at >= UNTIL:
            return found
        found.append(int(at.timestamp()))


def main():
    version = getattr(croniter_module, "__version__", None)
    if version is None:
        from importlib.metadata import version as installed

        version = installed("croniter")
    print(f"# Starts of cron specs in one week, made by croniter {version}.")
    print("# Command: cd core/tests/data && python3 make_cron_starts.py > cron_starts.tsv")
    print(f"# from={int(FROM.timestamp())} horizon_minutes={7 * 24 * 60}")
    print("# spec<TAB>count<TAB>starts as Unix seconds, comma-separated")
    for spec in SPECS:
        found = starts(spec)
        print(f"{spec}\t{len(found)}\t{','.join(map(str, found))}")


if __name__ == "__main__":
    main()
