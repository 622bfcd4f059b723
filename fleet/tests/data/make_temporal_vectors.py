"""Prints where a Temporal server starts each action of a schedule, jitter
included, using Temporal's own cron and duration parsers.

Run from the repository root, with Go 1.19 (the standard library only; no
module proxy), PyPI pyfarmhash 0.5.1 and a clone of temporalio/temporal:

    git clone https://github.com/temporalio/temporal /tmp/temporal
    pip install pyfarmhash==0.5.1
    python3 fleet/tests/data/make_temporal_vectors.py /tmp/temporal/.git core/tests/data

It writes temporal_starts.tsv and temporal_durations.tsv there.

How: the script builds a throwaway Go module out of three files taken from
the clone as they are (`service/worker/scheduler/calendar.go` and
`common/primitives/timestamp/parse_duration.go` at commit 91893f1064, whose
calendar.go differs from v1.31.2's only in how it splits strings, not in
what it accepts, and still builds with Go 1.19), plus stand-ins for the
protobuf messages they fill (plain structs with the same fields) and a
driver that does what `GetNextTime` in `spec.go` (v1.31.2) does:
`nextIntervalTime`'s formula for intervals, `compiledCalendar.next` for
calendars, the jitter bound min(Jitter, following − nominal) and
`MarshalBinary` of each nominal time with `<namespace id>-<schedule id>`
appended. Python then hashes those bytes with pyfarmhash's fingerprint32
(FarmHash Fingerprint32, the function go-farm ports) and adds
((fp · ms) >> 32) milliseconds, as `addJitter` does.

temporal_starts.tsv: namespace id, schedule id, spec, jitter (empty: none),
window from and end (Unix seconds), then the starts in [from, end) as
comma-separated Unix microseconds, or "refused" with the field at fault.
temporal_durations.tsv: a duration as written, then Temporal's reading in
nanoseconds, or "refused".
"""

import os
import pathlib
import platform
import subprocess
import sys
import tempfile

import importlib.metadata

import farmhash

TEMPORAL_COMMIT = "91893f1064"
FOLLOWED = "v1.31.2 (19a774302c613da9adc4436ab14278ccdca8e0a5)"

GO_MOD = "module temporalvectors\n\ngo 1.19\n"

# Stand-ins for the generated protobuf types calendar.go reads and writes.
SCHEDULEPB = """package schedulepb

import "temporalvectors/durationpb"

type Range struct{ Start, End, Step int32 }

func (r *Range) GetStart() int32 { return r.Start }
func (r *Range) GetEnd() int32   { return r.End }
func (r *Range) GetStep() int32  { return r.Step }

type CalendarSpec struct {
	Second, Minute, Hour, DayOfMonth, Month, Year, DayOfWeek, Comment string
}

type StructuredCalendarSpec struct {
	Second, Minute, Hour, DayOfMonth, Month, Year, DayOfWeek []*Range
	Comment                                                  string
}

type IntervalSpec struct{ Interval, Phase *durationpb.Duration }
"""

DURATIONPB = """package durationpb

import "time"

type Duration struct{ D time.Duration }

func New(d time.Duration) *Duration { return &Duration{d} }
func (d *Duration) AsDuration() time.Duration {
	if d == nil {
		return 0
	}
	return d.D
}
"""

# The driver: reads cases on stdin, prints each nominal time with its
# jitter bound and the bytes to hash, or why the case is refused.
DRIVER = r"""package scheduler

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"temporalvectors/schedulepb"
	"temporalvectors/timestamp"
)

// The year GetNextTime stops after (maxCalendarYear in calendar.go).
const lastYear = maxCalendarYear

func Run() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		cols := strings.Split(in.Text(), "\t")
		if cols[0] == "duration" {
			d, err := timestamp.ParseDuration(cols[1])
			if err != nil {
				fmt.Fprintln(out, "refused")
			} else {
				fmt.Fprintln(out, int64(d))
			}
			continue
		}
		runCase(out, cols[1], cols[2], cols[3], cols[4], cols[5], cols[6])
		fmt.Fprintln(out, "done")
	}
}

// nextFunc returns the first nominal time after t, or the zero time.
type nextFunc func(t time.Time) time.Time

func runCase(out *bufio.Writer, ns, id, spec, jitterText, fromText, endText string) {
	next, field, err := compile(spec)
	if err != nil {
		fmt.Fprintln(out, "refused", field)
		return
	}
	var jitter time.Duration
	if jitterText != "" {
		if jitter, err = timestamp.ParseDuration(jitterText); err != nil {
			fmt.Fprintln(out, "refused Jitter")
			return
		}
	}
	from, _ := strconv.ParseInt(fromText, 10, 64)
	end, _ := strconv.ParseInt(endText, 10, 64)
	// Start early enough that no delayed start in the window is missed:
	// a delay is under min(Jitter, 2^32 - 1 ms).
	reach := int64(jitter / time.Second)
	if reach < 0 {
		reach = 0
	}
	if reach > math.MaxUint32/1000 {
		reach = math.MaxUint32 / 1000
	}
	t := time.Unix(from-reach-2, 0).UTC()
	// A schedule without a start time starts at the epoch (GetNextTime).
	if epoch := time.Unix(0, 0).UTC().Add(-time.Second); t.Before(epoch) {
		t = epoch
	}
	seed := []byte(ns + "-" + id)
	for {
		nominal := next(t)
		if nominal.IsZero() || nominal.Year() > lastYear || nominal.Unix() >= end {
			return
		}
		maxJitter := jitter
		if following := next(nominal); !following.IsZero() {
			if gap := following.Sub(nominal); gap < maxJitter {
				maxJitter = gap
			}
		}
		if maxJitter < 0 {
			maxJitter = 0
		}
		ms := uint64(maxJitter.Milliseconds())
		if ms > math.MaxUint32 {
			ms = math.MaxUint32
		}
		bin, _ := nominal.MarshalBinary()
		fmt.Fprintln(out, nominal.Unix(), ms, hex.EncodeToString(append(bin, seed...)))
		t = nominal
	}
}

// compile reads a spec as the fleet file writes it: "every I [offset P]"
// for an interval spec, anything else as a Temporal cron string.
func compile(spec string) (nextFunc, string, error) {
	var iv *schedulepb.IntervalSpec
	words := strings.Fields(spec)
	if len(words) > 0 && words[0] == "every" {
		if len(words) != 2 && !(len(words) == 4 && words[2] == "offset") {
			return nil, "spec", fmt.Errorf("bad interval spec")
		}
		interval, err := timestamp.ParseDuration(words[1])
		if err != nil {
			return nil, "spec", err
		}
		iv = &schedulepb.IntervalSpec{Interval: durationNew(interval)}
		if len(words) == 4 {
			phase, err := timestamp.ParseDuration(words[3])
			if err != nil {
				return nil, "spec", err
			}
			iv.Phase = durationNew(phase)
		}
	} else {
		structured, interval, tz, err := parseCronString(spec)
		if err != nil {
			return nil, "spec", err
		}
		if tz != "" && tz != "UTC" && tz != "Etc/UTC" {
			panic("only UTC cases belong in the vectors: " + spec)
		}
		if structured != nil {
			// validateStructuredCalendar: the parse checked every range.
			if len(structured.Comment) > maxCommentLen {
				return nil, "spec", fmt.Errorf("comment is too long")
			}
			cal := newCompiledCalendar(structured, time.UTC)
			return func(t time.Time) time.Time {
				if n := cal.next(t); !n.IsZero() {
					return time.Unix(n.Unix(), 0).UTC()
				}
				return time.Time{}
			}, "", nil
		}
		iv = interval
	}
	// validateInterval
	every, phase := iv.Interval.AsDuration(), iv.Phase.AsDuration()
	if every < time.Second || phase < 0 || phase >= every {
		return nil, "spec", fmt.Errorf("bad interval")
	}
	// nextIntervalTime
	return func(t time.Time) time.Time {
		interval := int64(every / time.Second)
		if interval < 1 {
			interval = 1
		}
		ph := int64(phase / time.Second)
		ts := t.Unix()
		return time.Unix((((ts-ph)/interval)+1)*interval+ph, 0).UTC()
	}, "", nil
}
"""

DURATION_NEW = """package scheduler

import (
	"time"

	"temporalvectors/durationpb"
)

func durationNew(d time.Duration) *durationpb.Duration { return durationpb.New(d) }
"""

MAIN = """package main

import "temporalvectors/scheduler"

func main() { scheduler.Run() }
"""

# 2024-02-26T00:00:00Z, a Monday.
FROM = 1_708_905_600
HOUR, DAY = 3600, 86_400
# 1969-12-31T22:00:00Z and 2100-12-31T22:00:00Z: the ends of Temporal's time.
NEAR_EPOCH = -2 * HOUR
NEAR_2100 = 4_133_980_800 - 2 * HOUR

IDS = [
    "nightly-report",
    "billing/invoices/monthly",
    "café ☕ rapport",
    "日本語のスケジュール",
    "  spaced  id  ",
    "a",
    "order sync 42",
    "Ünïcödé/😀/job",
    "x" * 40,
]
NAMESPACES = [
    "3a1f6d2e-8c4b-4f7a-9b1e-2d5c6e7f8a90",
    "default",
    "e1b2c3d4-0000-4000-8000-000000000001",
    "ñamespace-ü",
]

# (spec, window start, window length, jitters tried)
CASES = [
    ("every 1m", FROM, 2 * HOUR, ["", "30s", "90s", "2h"]),
    ("every 5m", FROM, 6 * HOUR, ["", "5m", "1m", "-5m"]),
    ("every 90s", FROM, 2 * HOUR, ["", "45s", "1.5m"]),
    ("every 1h30m", FROM, 2 * DAY, ["", "1h", "24h"]),
    ("every 1.5h", FROM, 2 * DAY, ["30m"]),
    ("every 15m offset 7m", FROM, 6 * HOUR, ["", "10m"]),
    ("every 1h offset 59m59s", FROM, 2 * DAY, ["", "1h", "999ms"]),
    ("every 2d offset 3h", FROM, 31 * DAY, ["", "12h", "3d"]),
    ("every 1.5s offset 1.2s", FROM, 120, ["", "800ms"]),
    ("every 7s offset 6s", NEAR_EPOCH, 3 * HOUR, ["", "3s"]),
    ("every 10s", NEAR_EPOCH, 3 * HOUR, ["", "9s"]),
    ("every 1h offset 30m", NEAR_EPOCH, 6 * HOUR, ["", "20m"]),
    ("every 1h", NEAR_2100, 6 * HOUR, ["", "2h"]),
    ("every 1s", FROM, 300, ["", "1s", "500ms"]),
    ("every 0.5d", FROM, 31 * DAY, ["", "6h"]),
    ("every 36h", FROM, 31 * DAY, ["", "1.5d"]),
    ("every 1h1h", FROM, 2 * DAY, ["", "15m"]),
    ("every 3m offset 0s", FROM, 6 * HOUR, ["", "1m"]),
    ("every 1d offset 1.5h", FROM, 31 * DAY, ["", "1d"]),
    ("every 60d", 1_710_720_000, 31 * DAY, ["100d", "20d", ""]),
    ("every 7d offset 1d", FROM, 31 * DAY, ["2000h", "1ms"]),
    ("every 2h", FROM, 3 * DAY, ["1h0.5m0.25s", "3599999999ns", "1e3s"]),
    ("@every 5m", FROM, 6 * HOUR, ["", "2m"]),
    ("@every 14h/3h", FROM, 31 * DAY, ["", "1h"]),
    ("@every 1d/30m", FROM, 31 * DAY, ["", "45m"]),
    ("TZ=America/New_York @every 1h", FROM, 2 * DAY, ["", "10m"]),
    ("@every 90m # a comment", FROM, 2 * DAY, ["", "5m"]),
    ("0 * * * *", FROM, 2 * DAY, ["", "30m", "2h"]),
    ("*/15 * * * *", FROM, 12 * HOUR, ["", "10m"]),
    ("30 2 * * *", FROM, 31 * DAY, ["", "1h", "2d"]),
    ("0 9 * * mon-fri", FROM, 31 * DAY, ["", "15m"]),
    ("0 9 * * MON-FRI", FROM, 14 * DAY, ["1h"]),
    ("0 0 1 * *", FROM, 31 * DAY, ["", "3d"]),
    ("0 0 1,15 * mon", FROM - 68 * DAY, 31 * DAY, ["", "1h"]),
    ("0 12 * * 1-7", FROM, 14 * DAY, ["", "1h"]),
    ("0 12 * * 3-7", FROM, 14 * DAY, [""]),
    ("0 12 * * 7", FROM, 31 * DAY, ["", "7d"]),
    ("0 12 * * 1/2", FROM, 14 * DAY, [""]),
    ("0 12 * * 0-7/2", FROM, 14 * DAY, [""]),
    ("0 12 * * 1-7/3", FROM, 14 * DAY, [""]),
    ("0 12 * * sun", FROM, 31 * DAY, [""]),
    ("0 12 * * su,TUES", FROM, 14 * DAY, ["", "2h"]),
    ("0 12 * janu,feb *", FROM, 31 * DAY, ["", "1d"]),
    ("0 12 1 feb-apr *", FROM - 40 * DAY, 31 * DAY, [""]),
    ("0 0 29 2 *", FROM - 10 * DAY, 31 * DAY, ["", "1d"]),
    ("@hourly", FROM, 2 * DAY, ["", "20m"]),
    ("@daily", FROM, 31 * DAY, ["", "1d", "36h"]),
    ("@midnight", FROM, 14 * DAY, [""]),
    ("@weekly", FROM, 31 * DAY, ["", "3d"]),
    ("@monthly", FROM, 31 * DAY, ["", "10d"]),
    ("@yearly", FROM - 60 * DAY, 62 * DAY, ["", "30d"]),
    ("@annually", FROM - 60 * DAY, 62 * DAY, ["100d"]),
    ("30 */10 * * * * *", FROM, 6 * HOUR, ["", "5m"]),
    ("*/20 * * * * * *", FROM, 600, ["", "15s"]),
    ("0 0 * * * 2024", FROM, 31 * DAY, [""]),
    ("0 0 * * * 2025", FROM, 31 * DAY, [""]),
    ("15 3 * * * * 2024-2030/2", FROM, 7 * DAY, ["", "1h"]),
    ("0 +5 * * *", FROM, 7 * DAY, [""]),
    ("00 05 * * *", FROM, 7 * DAY, ["3m"]),
    ("TZ=UTC 0 6 * * *", FROM, 7 * DAY, ["", "1h"]),
    ("CRON_TZ=Etc/UTC 0 6 * * *", FROM, 7 * DAY, [""]),
    ("0 6 * * * # daily report", FROM, 7 * DAY, [""]),
    ("5/20 * * * *", FROM, 6 * HOUR, ["", "1m"]),
    ("*/5 * * * *", NEAR_EPOCH, 3 * HOUR, ["", "4m"]),
    ("0 * * * *", NEAR_2100, 6 * HOUR, ["", "2h"]),
    ("59 23 31 12 *", NEAR_2100, 6 * HOUR, [""]),
    ("59 23 31 12 *", NEAR_2100 - 20 * DAY, 60 * DAY, ["30d", "1d"]),
    ("0 0 30 2 *", FROM, 31 * DAY, [""]),
    ("0 9-17/2 * * 1-5", FROM, 14 * DAY, ["", "20m"]),
    ("0 0 * * * * *", FROM, 2 * HOUR, [""]),
    # Refused by Temporal.
    ("every 500ms", FROM, HOUR, [""]),
    ("every 10m offset 10m", FROM, HOUR, [""]),
    ("every 10m offset -1m", FROM, HOUR, [""]),
    ("every 5x", FROM, HOUR, [""]),
    ("every 5m offset", FROM, HOUR, [""]),
    ("every", FROM, HOUR, [""]),
    ("every 1d2", FROM, HOUR, [""]),
    ("every 5m", FROM, HOUR, ["5 m"]),
    ("every 5m", FROM, HOUR, ["1y"]),
    ("@every 500ms", FROM, HOUR, [""]),
    ("@every 1h/2h", FROM, HOUR, [""]),
    ("@every", FROM, HOUR, [""]),
    ("60 * * * *", FROM, HOUR, [""]),
    ("* * * *", FROM, HOUR, [""]),
    ("0 0 * * 8", FROM, HOUR, [""]),
    ("0 0 * 13 *", FROM, HOUR, [""]),
    ("0 0 0 * *", FROM, HOUR, [""]),
    ("1-5-7 * * * *", FROM, HOUR, [""]),
    ("*/0 * * * *", FROM, HOUR, [""]),
    ("1/2/3 * * * *", FROM, HOUR, [""]),
    ("5/ * * * *", FROM, HOUR, [""]),
    ("0 0 * * * 1999", FROM, HOUR, [""]),
    ("mon * * * *", FROM, HOUR, [""]),
    ("0 0 * ja *", FROM, HOUR, [""]),
    ("0 0 * * s", FROM, HOUR, [""]),
    ("0 0 * * fri-mon", FROM, HOUR, [""]),
    ("TZ=UTC", FROM, HOUR, [""]),
    ("@reboot", FROM, HOUR, [""]),
    ("0 0 L * *", FROM, HOUR, [""]),
    ("0 0 ? * *", FROM, HOUR, [""]),
    ("-5 * * * *", FROM, HOUR, [""]),
    ("1,,2 * * * *", FROM, HOUR, [""]),
    ("0 0 * * * * * *", FROM, HOUR, [""]),
    ("0 0 * * * # " + "c" * 201, FROM, HOUR, [""]),
]

DURATIONS = [
    "0", "-0", "+0", "00", "1", "1s", "90s", "5m", "1h30m", "1.5h", ".5s", "5.s",
    "500ms", "250us", "250µs", "250μs", "42ns", "1h1h", "2d", "1.5d", "0.5d",
    ".25d", "1d12h", "1h.5d", "5.d", "1.2.3d", "d", "1x", "-5m", "+5m", "1e3s",
    "9223372036854775807ns", "9223372036854775808ns", "-9223372036854775808ns",
    "2562047h", "2562048h", "106751d", "106752d", "0.0003255208333333333d",
    "99999999999999999999d", "1h 30m", " 1h", "", ".s", "-", "1.h", "1..5h",
    "3.000000000000000000001h", "9223372036854775808ns9223372036854775808ns", "0.1234567891234h", "12345678901234567890ns",
]


def extract(git_dir, path):
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{TEMPORAL_COMMIT}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


def build(git_dir, root):
    calendar = extract(git_dir, "service/worker/scheduler/calendar.go")
    for real, local in [
        ('"go.temporal.io/api/schedule/v1"', '"temporalvectors/schedulepb"'),
        ('"go.temporal.io/server/common/primitives/timestamp"', '"temporalvectors/timestamp"'),
        ('"google.golang.org/protobuf/types/known/durationpb"', '"temporalvectors/durationpb"'),
    ]:
        assert real in calendar, real
        calendar = calendar.replace(real, local)
    files = {
        "go.mod": GO_MOD,
        "schedulepb/schedulepb.go": SCHEDULEPB,
        "durationpb/durationpb.go": DURATIONPB,
        "timestamp/parse_duration.go": extract(
            git_dir, "common/primitives/timestamp/parse_duration.go"),
        "scheduler/calendar.go": calendar,
        "scheduler/driver.go": DRIVER,
        "scheduler/duration_new.go": DURATION_NEW,
        "main.go": MAIN,
    }
    for name, text in files.items():
        path = pathlib.Path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_driver(root, lines):
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GO111MODULE="on")
    return subprocess.run(
        ["go", "run", "."], cwd=root, env=env, check=True, capture_output=True,
        text=True, input="".join(line + "\n" for line in lines),
    ).stdout.splitlines()


def rows():
    at = 0
    for spec, start, length, jitters in CASES:
        for jitter in jitters:
            yield NAMESPACES[at % len(NAMESPACES)], IDS[at % len(IDS)], spec, jitter, start, start + length
            at += 1


def main():
    git_dir, out_dir = sys.argv[1], sys.argv[2]
    go = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    header = [
        f"# Temporal {FOLLOWED}: calendar.go and parse_duration.go at {TEMPORAL_COMMIT},"
        f" run by {go}; pyfarmhash {importlib.metadata.version('pyfarmhash')},"
        f" Python {platform.python_version()}",
        "# made with: python3 fleet/tests/data/make_temporal_vectors.py TEMPORAL_GIT_DIR core/tests/data",
    ]
    with tempfile.TemporaryDirectory() as root:
        build(git_dir, root)
        cases = list(rows())
        lines = [f"case\t{ns}\t{id}\t{spec}\t{jitter}\t{start}\t{end}"
                 for ns, id, spec, jitter, start, end in cases]
        output = iter(run_driver(root, lines))
        durations = run_driver(root, [f"duration\t{text}" for text in DURATIONS])

    starts_tsv = header + ["# columns: namespace id, schedule id, spec, jitter,"
                           " from, end (Unix s), starts (Unix µs) or refused FIELD"]
    for ns, id, spec, jitter, start, end in cases:
        assert not any(c in "\t\n" for c in ns + id + spec + jitter)
        starts = []
        result = None
        for line in output:
            if line == "done":
                break
            words = line.split()
            if words[0] == "refused":
                result = f"refused {words[1]}"
                continue
            nominal, ms, data = int(words[0]), int(words[1]), bytes.fromhex(words[2])
            at = nominal * 1_000_000 + ((farmhash.fingerprint32(data) * ms) >> 32) * 1000
            if start * 1_000_000 <= at < end * 1_000_000:
                starts.append(at)
        if result is None:
            result = ",".join(map(str, starts))
        starts_tsv.append(f"{ns}\t{id}\t{spec}\t{jitter}\t{start}\t{end}\t{result}")
    durations_tsv = header + ["# columns: duration as written, nanoseconds or refused"]
    durations_tsv += [f"{text}\t{nanos}" for text, nanos in zip(DURATIONS, durations)]
    pathlib.Path(out_dir, "temporal_starts.tsv").write_text("\n".join(starts_tsv) + "\n")
    pathlib.Path(out_dir, "temporal_durations.tsv").write_text("\n".join(durations_tsv) + "\n")
    print(f"{len(cases)} schedules, {len(DURATIONS)} durations", file=sys.stderr)


if __name__ == "__main__":
    main()
