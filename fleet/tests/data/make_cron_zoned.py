"""Writes cron_zoned.tsv: the starts of cron lines in a time zone, on both clocks.

Run from this directory:  python3 make_cron_zoned.py > cron_zoned.tsv
(CPython 3.11 with zoneinfo over Debian's tzdata 2025b, croniter 7.0.0.)

TZ= (the machine's clock): each case simulates cronie's main loop (cronie
1.7.2, src/cron.c) minute by minute on a machine whose local time is the zone: at every real minute the
daemon reads its clock in local minutes, compares it with the minute it last
ran ("virtual time") and runs the jobs of one or more local minutes, wildcard
jobs (`*` leading the minute or hour field) and fixed-time jobs apart, by the
four cases cron.c names. Whether a local minute matches a spec is croniter's
`match`. A start is the real instant the daemon runs the job.

CRON_TZ= (the job's own zone, on a machine in UTC): every real minute whose
wall-clock time in the zone croniter matches is a start, as cronie matches a
CRON_TZ job and robfig/cron, the Kubernetes controller's reader, steps through
absolute time in the zone.

The simulation warms up one day before the window and records the window's
starts only. Columns: option (TZ or CRON_TZ), spec, zone, from (Unix
seconds), hours, starts (Unix seconds, comma-separated, in order; the same
instant may repeat).
"""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from croniter import croniter

MINUTE = 60


def local_minute(at, zone):
    """cron's clockTime: (time + GMT offset) / 60, for Unix seconds `at`."""
    moment = datetime.fromtimestamp(at, timezone.utc).astimezone(zone)
    return (at + int(moment.utcoffset().total_seconds())) // MINUTE


def matches(spec, minute):
    wall = datetime(1970, 1, 1) + timedelta(minutes=minute)
    return croniter.match(spec, wall)


def wildcard(spec):
    fields = {"@hourly": "0 * * * *", "@daily": "0 0 * * *"}.get(spec, spec).split()
    return fields[0].startswith("*") or fields[1].startswith("*")


def starts(spec, zone_name, start, hours):
    zone = ZoneInfo(zone_name)
    wild = wildcard(spec)
    end = start + hours * 3600
    runs = []

    def find_jobs(minute, at, do_wild, do_fixed):
        if (do_wild if wild else do_fixed) and matches(spec, minute):
            if start <= at < end:
                runs.append(at)

    at = start - 86_400
    virtual = local_minute(at, zone)
    find_jobs(virtual, at, True, True)
    while at + MINUTE < end:
        at += MINUTE
        running = local_minute(at, zone)
        diff = running - virtual
        if diff == 1:
            virtual = running
            find_jobs(virtual, at, True, True)
        elif diff > 3 * 60 or diff < -3 * 60:
            virtual = running
            find_jobs(running, at, True, True)
        elif diff > 5:
            find_jobs(running, at, True, False)
            while virtual < running:
                virtual += 1
                find_jobs(virtual, at, False, True)
        elif diff > 0:
            while virtual < running:
                virtual += 1
                find_jobs(virtual, at, True, True)
        else:
            find_jobs(running, at, True, False)
    return runs


SPECS = [
    "30 2 * * *", "0 2 * * *", "59 1 * * *", "0 3 * * *", "*/15 * * * *",
    "15 * * * *", "0 1-3 * * *", "@hourly", "@daily", "30 1 * * *",
    "45 0 * * *", "0 0,12 * * *",
]

# (zone, the day before a clock change, in UTC)
CHANGES = [
    ("Europe/Berlin", "2025-03-29"),       # 02:00 -> 03:00
    ("Europe/Berlin", "2025-10-25"),       # 03:00 -> 02:00
    ("America/New_York", "2025-03-08"),
    ("America/New_York", "2025-11-01"),
    ("Australia/Lord_Howe", "2025-04-05"),  # back 30 min
    ("Australia/Lord_Howe", "2025-10-04"),  # forward 30 min
    ("America/Sao_Paulo", "2018-11-03"),   # 00:00 -> 01:00
    ("Pacific/Apia", "2011-12-28"),        # skips 30 December (+24 h)
    ("Antarctica/Troll", "2025-03-29"),    # +00 -> +02
    ("Asia/Kolkata", "2025-03-29"),        # no change
]


def wall_clock_starts(spec, zone_name, start, hours):
    zone = ZoneInfo(zone_name)
    return [
        at
        for at in range(start, start + hours * 3600, MINUTE)
        if matches(spec, local_minute(at, zone))
    ]


def main():
    print("# option\tspec\tzone\tfrom\thours\tstarts")
    for option, place in [("TZ", starts), ("CRON_TZ", wall_clock_starts)]:
        for zone, day in CHANGES:
            start = int(datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp())
            for spec in SPECS:
                found = place(spec, zone, start, 72)
                print(f"{option}\t{spec}\t{zone}\t{start}\t72\t{','.join(map(str, found))}")


main()
