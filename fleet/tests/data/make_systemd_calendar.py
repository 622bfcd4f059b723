"""Prints systemd's own next elapses for OnCalendar= expressions.

Run from the repository root on Debian 12 (systemd 252.39-1~deb12u2):
    TZ=UTC python3 fleet/tests/data/make_systemd_calendar.py > fleet/tests/data/systemd_calendar.tsv

The elapses come from libsystemd-shared-252.so itself, called through
ctypes: calendar_spec_from_string() reads the expression and
calendar_spec_next_usec() gives each next elapse after the one before, to
the microsecond, exactly as `systemd-analyze calendar --base-time=...
--iterations=N` walks them. Every row is also checked against that
command's printed output (which shows whole seconds), and a refusal against
its exit code, so the library and the command agree.

Each row: spec, base (Unix microseconds), then up to ITERATIONS elapses as
comma-separated Unix microseconds ("" when it never elapses), or "refused"
when systemd does not read the spec. TZ=UTC makes the local zone UTC.
"""

import ctypes
import datetime
import os
import re
import subprocess
import sys

LIBRARY = "/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
ITERATIONS = 12
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def micros(year, month, day, hour=0, minute=0, second=0, micro=0):
    at = datetime.datetime(year, month, day, hour, minute, second, micro, tzinfo=datetime.timezone.utc)
    return (at - EPOCH) // datetime.timedelta(microseconds=1)


MONDAY = micros(2024, 2, 26)  # the base most rows start from
BASES = [
    MONDAY,
    MONDAY - 1,
    micros(2024, 2, 28, 23, 59, 59, 500_000),
    micros(2023, 12, 31, 23, 30),
    micros(2025, 6, 15, 12, 34, 56, 789_012),
    micros(2199, 12, 31, 23, 59),
]

SPECS = [
    # shorthands
    "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually",
    "anually", "quarterly", "semiannually", "semi-annually", "biannually",
    "bi-annually", "DAILY", "Weekly", "midnight",
    # weekdays
    "Mon", "mon", "Monday", "Mon,Wed", "Mon..Fri", "Mon-Fri", "Sat,Sun",
    "Fri..Mon", "Mon..Wed,Fri", "Mon,", "Tue..Thu 12:00", "Sun *-*-* 03:30",
    "Monday..Sunday", "Mon..Sun", "Mon.", "Mon..", "Mond", "Mon Tue",
    "Thu,Fri 2024-*-* 08:00", "Mon..Wed..Fri", "sat,SUN 00:00:30",
    # times
    "*-*-* 10:00:00", "10:00", "10:00:00", "*:00", "*:0/15", "*:*:0/10",
    "*:*", "*:*:*", "0/2:00", "8..17:00", "8..17/3:30", "9,12,18:00",
    "*:0,30", "*:5/20:7", "22:*:00", "23:59:59", "00:00:00", "4:3:2",
    "*:*:0/7.25", "*:*:1.5", "*:*:59.999999", "*:*:0.0000005", "*:*:0/0.5",
    "12:00:00.250", "*:*:*.5", "*:*:0..1/0.25", "*:*:0..0.5", "*:*:10..20",
    "*:*:10..20/3", "1..5/10:00", "3/4:00", "*:59/1", "0:0:0/30",
    "24:00", "*:60", "*:*:60", "12", "12:", ":30", "1:2:3:4",
    # dates
    "*-*-01", "*-*-1 00:00", "*-02-29", "*-2-30", "2-30", "*-*-31",
    "*-04-31", "*-01,04,07,10-01", "*-1..6-15 12:00", "*-*/2-01", "*-1/3-1",
    "2024-*-* 06:00", "2024-03-01", "2025-01-01..07 00:00", "24-12-25",
    "99-12-31", "1969-01-01", "2200-01-01", "2024..2026/2-06-01",
    "*-*-1..7 09:00", "Mon *-*-1..7 09:00", "Fri *-*-13 13:13",
    "*-*~01", "*-*~1 23:00", "*-02~01", "*-*~03", "*-*~7/2", "*-*~1..3",
    "*-*~01..07/2", "*-*~29", "2024-02~1", "*-*-*~1",
    "*-*-01/7", "*-*-5/10 08:15", "*-12-24..26", "*-*-1,15 00:00",
    # time zones and timestamps
    "daily UTC", "daily utc", "Mon 10:00 UTC", "daily Etc/UTC", "*:0/5 UTC",
    "@1709000000", "@1709000000 UTC", "@0", "@99999999999",
    # odd and hostile
    "", " ", "*", "-", "**", "*-*", "*-*-*", "*-*-* *:*:*", "1-1-1-1",
    "*-*-* 10:00 extra", "10:00:00.", "10:00:00.x", "*:*/0", "*:0/0",
    "*:70/1", "0..70:00", "5..1:00", "*:*:*/1", "4294967296:00",
    "Mon..Fri 8..18/2:00/20", "2024-02-30", "2023-02-29",
    "*-*-* 00/6:00", "*-*-* 0/6:00:00", "Wed..Mon",
    "Mon *-02-29", "Fri *-02-29 12:00", "Sun *-*~01 23:59:59.5",
    "Mon..Fri *-*-* 10:00", "*-*-* 8,12..14:00", "*:0..59/7", "Sat *-*-1..7 2/3:15",
]


def library():
    lib = ctypes.CDLL(LIBRARY)
    lib.calendar_spec_from_string.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.calendar_spec_from_string.restype = ctypes.c_int
    lib.calendar_spec_next_usec.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64)]
    lib.calendar_spec_next_usec.restype = ctypes.c_int
    lib.calendar_spec_free.argtypes = [ctypes.c_void_p]
    lib.calendar_spec_free.restype = ctypes.c_void_p
    return lib


def elapses(lib, spec, base):
    """The next elapses from the library, or None when the spec is refused."""
    parsed = ctypes.c_void_p()
    if lib.calendar_spec_from_string(spec.encode(), ctypes.byref(parsed)) < 0:
        return None
    found = []
    at = base
    for _ in range(ITERATIONS):
        following = ctypes.c_uint64()
        if lib.calendar_spec_next_usec(parsed, at, ctypes.byref(following)) < 0:
            break
        at = following.value
        found.append(at)
    lib.calendar_spec_free(parsed)
    return found


STAMP = re.compile(r"(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC")


def check_with_analyze(spec, base, found):
    """systemd-analyze prints whole seconds; they must agree with `found`."""
    seconds, fraction = divmod(base, 1_000_000)
    stamp = f"@{seconds}.{fraction:06d}"
    run = subprocess.run(
        ["systemd-analyze", "calendar", f"--iterations={ITERATIONS}", f"--base-time={stamp}", spec],
        capture_output=True, text=True, env={**os.environ, "TZ": "UTC", "SYSTEMD_COLORS": "0"},
    )
    if found is None:
        assert run.returncode != 0, (spec, run.stdout)
        return
    assert run.returncode == 0, (spec, run.stderr)
    printed = STAMP.findall(run.stdout)
    want = [
        (EPOCH + datetime.timedelta(seconds=at // 1_000_000)).strftime("%Y-%m-%d %H:%M:%S")
        for at in found
    ]
    assert printed == want, (spec, printed, want)


def main():
    assert os.environ.get("TZ") == "UTC", "run with TZ=UTC"
    lib = library()
    version = subprocess.run(["systemd-analyze", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"# {version}, libsystemd-shared-252.so through ctypes, Python {sys.version.split()[0]}")
    print("# made with: TZ=UTC python3 fleet/tests/data/make_systemd_calendar.py > fleet/tests/data/systemd_calendar.tsv")
    print(f"# columns: spec base_micros elapses (up to {ITERATIONS}, comma-separated, or refused)")
    rows = 0
    for spec in SPECS:
        bases = BASES if spec in ("daily", "*:*:0/7.25", "*-*~01", "Mon..Fri", "*-02-29") else BASES[:1]
        for base in bases:
            found = elapses(lib, spec, base)
            check_with_analyze(spec, base, found)
            shown = "refused" if found is None else ",".join(str(at) for at in found)
            assert "\t" not in spec and "\n" not in spec
            print(f"{spec}\t{base}\t{shown}")
            rows += 1
    print(f"# {rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
