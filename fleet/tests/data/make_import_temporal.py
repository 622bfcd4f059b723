"""Prints calendars as a Temporal server describes them, and their times.

Run from the repository root, with Go 1.19 (no module proxy), Python 3 and
a clone of temporalio/temporal (the same as make_temporal_vectors.py, whose
module of Temporal's own calendar.go it builds, with another driver):

    python3 fleet/tests/data/make_import_temporal.py /tmp/temporal/.git \
        > fleet/tests/data/import_temporal.tsv

A server compiles every cron string and text calendar it is given into a
structured calendar, which `temporal schedule describe --output json`
prints. For each case the driver does what the server does on input
(`parseCronString`, or `parseCalendarToStructured` for a text calendar),
writes the structured calendar as protojson writes it (camelCase names,
fields and range bounds that are zero left out), and lists the first 40
times after 2024-02-26T00:00:00Z that `compiledCalendar.next` gives in
UTC. Rows: kind (`cron`, or `calendar` for a text calendar), the input as
JSON (the cron string, or the text calendar object), the structured
calendar as JSON, then the times as comma-separated Unix seconds.
"""

import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import make_temporal_vectors as temporal  # noqa: E402

DRIVER = r"""package scheduler

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"temporalvectors/schedulepb"
)

type jsonRange struct {
	Start int32 `json:"start,omitempty"`
	End   int32 `json:"end,omitempty"`
	Step  int32 `json:"step,omitempty"`
}

type jsonStructured struct {
	Second     []jsonRange `json:"second,omitempty"`
	Minute     []jsonRange `json:"minute,omitempty"`
	Hour       []jsonRange `json:"hour,omitempty"`
	DayOfMonth []jsonRange `json:"dayOfMonth,omitempty"`
	Month      []jsonRange `json:"month,omitempty"`
	Year       []jsonRange `json:"year,omitempty"`
	DayOfWeek  []jsonRange `json:"dayOfWeek,omitempty"`
	Comment    string      `json:"comment,omitempty"`
}

type jsonCalendar struct {
	Second     string `json:"second,omitempty"`
	Minute     string `json:"minute,omitempty"`
	Hour       string `json:"hour,omitempty"`
	DayOfMonth string `json:"dayOfMonth,omitempty"`
	Month      string `json:"month,omitempty"`
	Year       string `json:"year,omitempty"`
	DayOfWeek  string `json:"dayOfWeek,omitempty"`
}

func ranges(in []*schedulepb.Range) []jsonRange {
	out := []jsonRange{}
	for _, r := range in {
		out = append(out, jsonRange{r.Start, r.End, r.Step})
	}
	return out
}

func encode(v interface{}) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func Run() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		cols := strings.Split(in.Text(), "\t")
		var structured *schedulepb.StructuredCalendarSpec
		var input string
		var err error
		if cols[0] == "cron" {
			input = encode(cols[1])
			structured, _, _, err = parseCronString(cols[1])
		} else {
			cal := schedulepb.CalendarSpec{
				Second: cols[1], Minute: cols[2], Hour: cols[3], DayOfMonth: cols[4],
				Month: cols[5], Year: cols[6], DayOfWeek: cols[7],
			}
			input = encode(jsonCalendar{cal.Second, cal.Minute, cal.Hour, cal.DayOfMonth, cal.Month, cal.Year, cal.DayOfWeek})
			structured, err = parseCalendarToStructured(&cal)
		}
		if err != nil || structured == nil {
			panic(fmt.Sprint("not a calendar: ", cols, err))
		}
		described := jsonStructured{
			ranges(structured.Second), ranges(structured.Minute), ranges(structured.Hour),
			ranges(structured.DayOfMonth), ranges(structured.Month), ranges(structured.Year),
			ranges(structured.DayOfWeek), structured.Comment,
		}
		cal := newCompiledCalendar(structured, time.UTC)
		t := time.Unix(1708905600-1, 0).UTC()
		times := []string{}
		for len(times) < 40 {
			t = cal.next(t)
			if t.IsZero() {
				break
			}
			times = append(times, fmt.Sprint(t.Unix()))
		}
		fmt.Fprintf(out, "%s\t%s\t%s\t%s\n", cols[0], input, encode(described), strings.Join(times, ","))
	}
}
"""

CRON_STRINGS = [
    "0 * * * *", "*/15 * * * *", "30 2 * * *", "0 9 * * mon-fri", "0 9 * * MON-FRI",
    "0 0 1 * *", "0 0 1,15 * mon", "0 12 * * 1-7", "0 12 * * 3-7", "0 12 * * 7",
    "0 12 * * 1/2", "0 12 * * 0-7/2", "0 12 * * 1-7/3", "0 12 * * sun",
    "0 12 * * su,TUES", "0 12 * janu,feb *", "0 12 1 feb-apr *", "0 0 29 2 *",
    "@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually",
    "30 */10 * * * * *", "*/20 * * * * * *", "0 0 * * * 2024", "15 3 * * * * 2024-2030/2",
    "0 +5 * * *", "00 05 * * *", "0 6 * * * # daily report", "5/20 * * * *",
    "0 9-17/2 * * 1-5", "0 0 * * * * *", "45 23 * * 6", "0 0,12 1-7 * 1",
    "10-50/20 8-18/5 * * *", "0 0 28-31 * *",
    "5 4 * * sun", "0 22 * * 1-5", "23 0-20/2 * * *", "0 0 1 1 *", "*/7 * * * *",
    "0 3 */2 * *", "59 23 31 12 *", "0 0 * * 0", "1,2,3,5,8,13 * * * *",
    "0 */3 * jan-mar,oct-dec *", "30 6 1-7,15-21 * *", "0 18 * * fri",
    "0 0 1 */3 *", "12 */6 * * 2-4", "0 7 10-20/3 * *", "0 0 * * 1-5 2024-2025",
    "20 4 8 8 *", "0 1-23/4 * * 6,0", "3-59/15 * * * *", "0 0 15 * 5",
]

# Text calendars: second, minute, hour, day of month, month, year, day of
# week; empty for the default.
TEXT_CALENDARS = [
    ("", "", "9", "", "", "", "Mon-Fri"),
    ("", "30", "2", "", "", "", ""),
    ("0", "0", "0", "1", "", "", ""),
    ("", "*/15", "*", "", "", "", ""),
    ("30", "*/10", "*", "", "", "", ""),
    ("", "0", "12", "*", "*", "*", "sun"),
    ("", "0", "8-18/2", "", "", "", "1-5"),
    ("", "5", "4", "", "", "", "0"),
    ("", "0", "0", "29", "2", "", ""),
    ("", "0", "6", "1,15", "", "", ""),
    ("15", "45", "23", "", "dec", "", ""),
    ("", "0", "0", "", "jan,jul", "", ""),
    ("", "0", "0", "", "", "2024-2026", ""),
    ("*/20", "*", "*", "", "", "", ""),
    ("", "10-50/20", "*/5", "", "", "", ""),
    ("", "0", "9", "", "", "", "TUES,thu"),
    ("", "0", "12", "1-7", "", "", "1"),
    ("", "*", "3", "", "", "", "6"),
    ("", "0", "*/2", "", "", "", ""),
    ("", "30", "6", "1-7,15-21", "", "", ""),
    ("", "0", "18", "", "", "", "fri"),
    ("", "0", "0", "1", "*/3", "", ""),
    ("", "12", "*/6", "", "", "", "2-4"),
    ("", "0", "7", "10-20/3", "", "", ""),
    ("", "20", "4", "8", "8", "", ""),
    ("", "0", "1-23/4", "", "", "", "6,0"),
    ("", "3-59/15", "", "", "", "", ""),
    ("", "0", "0", "15", "", "", "5"),
    ("5", "5", "5", "5", "5", "", ""),
    ("", "1,2,3,5,8,13", "*", "", "", "", ""),
    ("0", "0", "0", "", "feb-apr", "", "mon"),
    ("", "59", "23", "31", "12", "", ""),
    ("", "0", "0", "", "", "", "0-6/2"),
    ("", "0", "12", "", "", "", "1-7"),
    ("", "0", "12", "", "", "", "7"),
    ("", "00", "+5", "", "", "", ""),
    ("", "0", "0", "", "", "2024", ""),
    ("", "0", "10", "", "", "", "mo"),
    ("", "0", "0", "28-31", "", "", ""),
    ("", "*/7", "*", "", "", "", ""),
    ("", "0", "3", "*/2", "", "", ""),
    ("", "0", "*/3", "", "jan-mar,oct-dec", "", ""),
]


def main():
    git_dir = sys.argv[1]
    temporal.DRIVER = DRIVER
    go = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    print(f"# Temporal {temporal.FOLLOWED}: calendar.go at {temporal.TEMPORAL_COMMIT}, run by {go}")
    print("# columns: kind, input (JSON), structured calendar (JSON), first 40 times after"
          " 2024-02-26T00:00:00Z (Unix s)")
    lines = [f"cron\t{spec}" for spec in CRON_STRINGS]
    lines += ["calendar\t" + "\t".join(fields) for fields in TEXT_CALENDARS]
    with tempfile.TemporaryDirectory() as root:
        temporal.build(git_dir, root)
        for row in temporal.run_driver(root, lines):
            print(row)


if __name__ == "__main__":
    main()
