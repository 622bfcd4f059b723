"""Times `stampede check` on a repository of 10,000 schedules in 500
files, for scripts/bench-report: 100 crontabs, 100 files of CronJobs, 100
GitHub workflows, 100 systemd timers (with RandomizedDelaySec=, so the
budget is judged across draws) and 100 Jenkinsfiles, 20 schedules each, at
the minutes and hours people pick (mostly minute 0, some spread), so the
check has thousands of findings to report.

Usage: python3 bench/check_repo.py --json STAMPEDE_BINARY  (the timings as JSON)
       python3 bench/check_repo.py DIR                     (only writes the repository)
"""

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 5

PER_FILE = 20
FILES_PER_FORMAT = 100


def spec(i):
    """A five-field spec: most at minute 0, one in five at a hashed minute."""
    minute = (i * 37) % 60 if i % 5 == 0 else 0
    hour = i % 24
    return f"{minute} {hour} * * *" if i % 3 else f"{minute} * * * *"


def main(root):
    root = pathlib.Path(root)
    n = 0
    for f in range(FILES_PER_FORMAT):
        lines = ["# m h dom mon dow command"]
        for _ in range(PER_FILE):
            lines.append(f"{spec(n)} /opt/jobs/job-{n:05d}.sh")
            n += 1
        write(root / f"hosts/host-{f:03d}/crontab", lines)
    for f in range(FILES_PER_FORMAT):
        docs = []
        for _ in range(PER_FILE):
            docs.append(
                f"apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{n:05d}\n"
                f'spec:\n  schedule: "{spec(n)}"\n  jobTemplate:\n    spec:\n      template:\n'
                f"        spec:\n          containers:\n            - name: job\n              image: job:1\n"
            )
            n += 1
        write(root / f"k8s/team-{f:03d}/cronjobs.yaml", ["---\n".join(docs).rstrip("\n")])
    for f in range(FILES_PER_FORMAT):
        crons = []
        for _ in range(PER_FILE):
            crons.append(f"    - cron: '{spec(n)}'")
            n += 1
        write(root / f".github/workflows/wf-{f:03d}.yml",
              ["name: scheduled", "on:", "  schedule:", *crons, "jobs:", "  run:",
               "    runs-on: ubuntu-latest", "    steps:", "      - run: make"])
    for f in range(FILES_PER_FORMAT):
        calendars = []
        for _ in range(PER_FILE):
            calendars.append(f"OnCalendar=*-*-* {n % 24:02d}:{(n * 7) % 60:02d}:00")
            n += 1
        write(root / f"systemd/sync-{f:03d}.timer",
              ["[Unit]", "Description=sync", "", "[Timer]", *calendars, "RandomizedDelaySec=5m",
               "", "[Install]", "WantedBy=timers.target"])
    for f in range(FILES_PER_FORMAT):
        specs = []
        for _ in range(PER_FILE):
            specs.append(spec(n) if n % 2 else f"H {n % 24} * * *")
            n += 1
        body = "\\n".join(specs)
        write(root / f"jenkins/job-{f:03d}/Jenkinsfile",
              ["pipeline {", "  agent any", f"  triggers {{ cron('{body}') }}",
               "  stages { stage('run') { steps { sh 'make' } } }", "}"])
    assert n == 10_000, n


def write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def timings(binary):
    """The check's wall time over RUNS runs, a JSON report to a file each."""
    binary = str(pathlib.Path(binary).resolve())
    with tempfile.TemporaryDirectory() as root:
        main(root)
        samples = []
        for _ in range(RUNS):
            began = time.perf_counter()
            done = subprocess.run(
                [binary, "check", "--from", "2026-11-23T00:00:00Z", "--max-starts-per-minute", "20",
                 "--output", f"json={root}/report.json"],
                cwd=root, capture_output=True, check=False,
            )
            samples.append((time.perf_counter() - began) * 1000)
            if done.returncode not in (0, 1):
                sys.exit(f"check_repo: stampede check failed: {done.stderr.decode()}")
        report = json.loads(pathlib.Path(root, "report.json").read_text())
    return {
        "files": len(report["files"]),
        "schedules": report["schedules"],
        "findings": len(report["findings"]),
        "median_ms": statistics.median(samples),
        "samples_ms": samples,
    }


if __name__ == "__main__":
    if sys.argv[1] == "--json":
        print(json.dumps(timings(sys.argv[2])))
    else:
        main(sys.argv[1])
