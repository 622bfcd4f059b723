"""Writes apscheduler_starts.tsv: fire times as the real APScheduler 3.x
places them, for fleet/tests/fleet/apscheduler.rs.

    pip install 'APScheduler==3.11.*'
    python3 fleet/tests/data/make_apscheduler_vectors.py

Rows (tab-separated):

    next     spec  zone  start_date  now  t1 t2 ... (UTC, RFC 3339)
    refused  spec  message

A `next` row chains the trigger as the scheduler does: the first fire time
from `now`, then each next from the one before (`get_next_fire_time(prev,
prev)`), with no jitter. `spec` is the fleet line's spec; `start_date` is
`-` when the trigger gets none, and then an interval trigger is given the
scheduler's default, `now` plus one interval.
"""

import os
from datetime import datetime, timedelta, timezone

import apscheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from zoneinfo import ZoneInfo

UTC = timezone.utc
COUNT = 12
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "apscheduler_starts.tsv")

CRON = [
    {"hour": "3", "minute": "0"},
    {"minute": "*/15"},
    {"minute": "5"},
    {"second": "*/20"},
    {"hour": "*/5", "minute": "7-9"},
    {"day_of_week": "mon-fri", "hour": "17"},
    {"day_of_week": "sat,sun", "hour": "9", "minute": "30"},
    {"day_of_week": "fri-sun"},
    {"day_of_week": "2-4", "hour": "1"},
    {"day_of_week": "mon/2", "hour": "6"},
    {"day": "last"},
    {"day": "last", "hour": "23", "minute": "59"},
    {"day": "last fri", "hour": "4"},
    {"day": "1st mon,3rd wed", "hour": "8"},
    {"day": "5th sun"},
    {"day": "2nd sat", "month": "jan-jun"},
    {"day": "29", "month": "2"},
    {"day": "31"},
    {"day": "*/10", "hour": "12"},
    {"day": "10-20/3"},
    {"month": "feb,aug", "day": "15"},
    {"month": "nov-dec/1", "day": "1", "hour": "0"},
    {"week": "1", "day_of_week": "mon"},
    {"week": "*/2", "hour": "2"},
    {"week": "52-53"},
    {"week": "53", "day_of_week": "thu"},
    {"year": "2027"},
    {"year": "2026-2030/2", "month": "3"},
    {"year": "2029", "month": "2", "day": "29"},
    {"year": "*/3", "day": "1", "month": "1"},
    {"hour": "1,13", "minute": "0,30"},
    {"hour": "2", "minute": "30"},
    {"hour": "1", "minute": "30"},
    {"hour": "0-3", "minute": "0"},
    {"hour": "2", "minute": "*/20"},
    {"minute": "0", "second": "15,45"},
    {"hour": "12", "minute": "0", "day_of_week": "sun"},
    {"day": "1-7", "day_of_week": "mon", "hour": "9"},
    {"day": " 1 , 15 ", "hour": "6"},
    {"day_of_week": "MON-Fri", "hour": "8", "minute": "45"},
    {"month": "JAN", "day": "LAST"},
    {},
    # Searches that run far: a match 900 years on, and none before 9999.
    {"year": "2026,2904", "month": "2", "day": "29"},
    {"day": "5th mon", "week": "53"},
]
CRONTAB = [
    "0 3 * * *",
    "*/5 * * * *",
    "0 9 * * 0",
    "30 17 * * 1-5",
    "0 0 1 * *",
    "15 2 * * sun",
    "0 12 1-7 * mon",
    "0 4 * jan,jul *",
]
INTERVAL = [
    ({"minutes": "15"}, None),
    ({"hours": "1"}, "2026-03-01T00:07:00Z"),
    ({"seconds": "90"}, "2026-03-28T23:59:00Z"),
    ({"days": "1", "hours": "6"}, "2026-01-01T12:00:00Z"),
    ({"weeks": "1"}, "2025-12-31T08:00:00Z"),
    ({"seconds": "0"}, None),
    ({"minutes": "7", "seconds": "30"}, "2026-11-01T05:00:00Z"),
    ({"hours": "2"}, "2026-11-01T05:00:00Z"),
]
NOWS = [
    "2026-01-01T00:00:00Z",
    "2026-03-28T22:00:30Z",
    "2026-10-24T23:59:59Z",
    "2026-10-31T21:00:00Z",
    "2027-12-25T10:00:00Z",
    "2028-02-28T12:00:00Z",
]
ZONES = ["UTC", "Europe/Paris", "America/New_York"]
REFUSED = [
    {"minute": "60"},
    {"hour": "24"},
    {"hour": "-1"},
    {"minute": "*/0"},
    {"minute": "*/60"},
    {"minute": "5-3"},
    {"minute": "10-20/11"},
    {"minute": "x"},
    {"minute": "1-"},
    {"minute": ""},
    {"minute": "1,,2"},
    {"second": "0/70"},
    {"day": "0"},
    {"day": "32"},
    {"day": "last x"},
    {"day": "6th mon"},
    {"day": "last 5"},
    {"week": "54"},
    {"week": "0"},
    {"day_of_week": "7"},
    {"day_of_week": "fri-mon"},
    {"day_of_week": "funday"},
    {"day_of_week": "mon-xyz"},
    {"month": "13"},
    {"month": "dec-jan"},
    {"month": "foo"},
    {"year": "1969"},
    {"year": "10000"},
    {"year": "*/9000"},
    {"hour": "1 - 5"},
]
CRONTAB_REFUSED = ["0 3 * *", "0 3 * * * *", "0 3 * * 7", "61 * * * *", "0 0 * * 1-7"]


def fmt(at):
    text = at.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")


def parse(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def written(value):
    if any(c.isspace() for c in value) or value == "":
        return "'" + value + "'" if "'" not in value else '"' + value + '"'
    return value


def cron_spec(fields):
    return " ".join(["cron"] + [f"{key}={written(value)}" for key, value in fields.items()])


def chain(trigger, now):
    times = []
    prev = trigger.get_next_fire_time(None, now)
    while prev is not None and len(times) < COUNT:
        times.append(prev)
        prev = trigger.get_next_fire_time(prev, prev)
    return times


def main():
    rows = []
    for zone in ZONES:
        for now_text in NOWS:
            now = parse(now_text)
            for fields in CRON:
                trigger = CronTrigger(timezone=zone, **fields)
                times = chain(trigger, now)
                rows.append(["next", cron_spec(fields), zone, "-", now_text]
                             + [fmt(t) for t in times])
            for expr in CRONTAB:
                trigger = CronTrigger.from_crontab(expr, timezone=zone)
                times = chain(trigger, now)
                rows.append(["next", "crontab " + expr, zone, "-", now_text]
                            + [fmt(t) for t in times])
    # A start_date after the scheduler's start holds the first fire back.
    for fields in [{"hour": "3", "minute": "0"}, {"minute": "*/15"}]:
        trigger = CronTrigger(timezone="UTC", start_date=parse("2026-02-10T03:00:01Z"), **fields)
        times = chain(trigger, parse(NOWS[0]))
        rows.append(["next", cron_spec(fields), "UTC", "2026-02-10T03:00:01Z", NOWS[0]]
                    + [fmt(t) for t in times])
    for kwargs, start in INTERVAL:
        for now_text in NOWS[:4]:
            now = parse(now_text)
            numbers = {key: float(value) for key, value in kwargs.items()}
            interval = timedelta(**numbers)
            if interval == timedelta(0):
                interval = timedelta(seconds=1)
            start_date = parse(start) if start else now + interval
            trigger = IntervalTrigger(timezone="UTC", start_date=start_date, **numbers)
            times = chain(trigger, now)
            spec = " ".join(["interval"] + [f"{key}={value}" for key, value in kwargs.items()])
            rows.append(["next", spec, "UTC", start or "-", now_text] + [fmt(t) for t in times])
    for fields in REFUSED:
        try:
            CronTrigger(timezone="UTC", **fields)
        except ValueError as error:
            rows.append(["refused", cron_spec(fields), str(error)])
        else:
            raise SystemExit(f"APScheduler reads {fields}")
    for expr in CRONTAB_REFUSED:
        try:
            CronTrigger.from_crontab(expr, timezone="UTC")
        except ValueError as error:
            rows.append(["refused", "crontab " + expr, str(error)])
        else:
            raise SystemExit(f"APScheduler reads {expr}")
    with open(OUT, "w", encoding="utf-8") as out:
        out.write(f"# APScheduler {apscheduler.__version__}: fire times from the real triggers; "
                  "written by make_apscheduler_vectors.py\n")
        for row in rows:
            out.write("\t".join(row) + "\n")


main()
