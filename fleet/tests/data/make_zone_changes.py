"""Writes zone_changes.tsv: each change of a zone's UTC offset, and the local minutes it skips or repeats.

Run from this directory:  python3 make_zone_changes.py > zone_changes.tsv
(CPython 3.11's zoneinfo over Debian's tzdata 2025b.)

The changes are CPython's zoneinfo, an implementation of the IANA database
independent of the one stampede bundles (jiff's); what cron then does with
a skipped or repeated minute is not here: no cron daemon runs to say it.
Each change is found by stepping the offset hour by hour from 2011 through
2025 and bisecting to the second.

Columns: zone, at (the change, Unix seconds), kind (gap when clocks go
forward, fold when they go back), date (the local date of the first
affected minute), first and last (the first and last affected local
minutes, HH:MM), minutes (how many).
"""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Antarctica/Troll",
    "Pacific/Chatham",
    "Pacific/Apia",
    "Europe/Moscow",
    "America/Sao_Paulo",
]
FIRST = int(datetime(2011, 1, 1, tzinfo=timezone.utc).timestamp())
END = int(datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp())
HOUR = 3600


def offset(zone, at):
    """The zone's UTC offset in seconds at Unix second `at`."""
    moment = datetime.fromtimestamp(at, timezone.utc).astimezone(zone)
    return int(moment.utcoffset().total_seconds())


def changes(zone):
    """(at, before, after) for each change of offset in [FIRST, END)."""
    at = FIRST
    while at < END:
        if offset(zone, at) != offset(zone, at + HOUR):
            low, high = at, at + HOUR
            # The offset at `low` is the old one, at `high` the new one.
            while high - low > 1:
                middle = (low + high) // 2
                if offset(zone, middle) == offset(zone, low):
                    low = middle
                else:
                    high = middle
            yield high, offset(zone, low), offset(zone, high)
        at += HOUR


def main():
    print("# zone\tat\tkind\tdate\tfirst\tlast\tminutes")
    epoch = datetime(1970, 1, 1)
    for name in ZONES:
        zone = ZoneInfo(name)
        for at, before, after in changes(zone):
            first = at + min(before, after)
            end = at + max(before, after)
            minutes = (end - first) // 60
            start = epoch + timedelta(seconds=first)
            last = epoch + timedelta(seconds=end - 60)
            kind = "gap" if after > before else "fold"
            print(
                f"{name}\t{at}\t{kind}\t{start:%Y-%m-%d}\t{start:%H:%M}\t{last:%H:%M}\t{minutes}"
            )


main()
