#!/usr/bin/env python3
"""Gathers scripts/bench-report's measurements into one report and checks budgets.

Reads the JSON files scripts/bench-report left in its work folder
(browser.json from tests/e2e/bench.mjs, sizes.json, simpy.json and
hashes.json from the bench/ scripts), criterion's estimates of the
benchmarks run since the stamp file was touched, and the machine's
description; writes report.json (every figure) and report.md (a Markdown
table for the book's Performance chapter) into the output folder; prints
PASS or FAIL for each budget and exits 1 if any fails.

Usage: python3 bench/report.py WORK_DIR OUT_DIR CRITERION_DIR STAMP
"""

import datetime
import json
import os
import platform
import sys
from pathlib import Path

KB = 1024
# Budgets: gzipped bytes of the downloads, and milliseconds in Chromium.
APP_WASM_GZ_BUDGET = 320 * KB
JS_MODULE_GZ_BUDGET = 160 * KB
# The <stampede-figure> element's one script, loaded by other sites' pages.
ELEMENT_JS_GZ_BUDGET = 3 * KB
# Input to drawn, the worst p95 of the drags bench.mjs makes per panel:
# within a 16.7 ms frame with room to spare.
DRAG_P95_BUDGET_MS = 10.0
# The Queue panel recomputes a day of 96,000 jobs on every move.
QUEUE_DRAG_P95_BUDGET_MS = 12.0
# Navigation to the first chart of a panel, the median of fresh loads on a
# local server: the shell, the panel's own code and its first run.
FIRST_CHART_BUDGET_MS = 250.0
# index.html's skeleton, before the wasm arrives.
FIRST_PAINT_BUDGET_MS = 100.0
# The first chart with 4× CPU slowdown on a 1.6 Mbit/s link.
SLOW_FIRST_CHART_BUDGET_MS = 4000.0
# A 10,000-line fleet pasted into the Fleet panel, read in its worker and
# drawn: a crontab, and a paste mixing a crontab, Jenkinsfiles, timers and
# CronJobs.
FLEET_PASTE_BUDGET_MS = 200.0
# A sample picked while the Fleet's worker is busy: a fresh worker answers.
FLEET_BUSY_SAMPLE_BUDGET_MS = 1000.0
# 100,000 garbage lines pasted into the Fleet: the tab never stalls for
# more than a quarter second, and answers at once when the paste is read.
GARBAGE_FRAME_BUDGET_MS = 250.0
GARBAGE_ANSWER_BUDGET_MS = 100.0
# The Queue's defaults run under 20 seeds in its worker (1.9M jobs).
REPLICATE_BUDGET_MS = 1500.0
# A million arrivals read in the Queue's worker.
ARRIVALS_READ_BUDGET_MS = 1000.0
# `stampede check` of a repository of 10,000 schedules in 500 files, natively.
CHECK_BUDGET_MS = 1000.0


def load(path):
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() and path.stat().st_size else None


def machine():
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor() or "unknown",
    )
    mem_kb = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal:")
    )
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
    }


def criterion_estimates(root, stamp):
    """Each benchmark run after `stamp`: its id and estimates in ns."""
    newer_than = Path(stamp).stat().st_mtime
    found = {}
    for benchmark in Path(root).glob("**/new/benchmark.json"):
        estimates = benchmark.with_name("estimates.json")
        if not estimates.exists() or estimates.stat().st_mtime < newer_than:
            continue
        full_id = json.loads(benchmark.read_text())["full_id"].strip()
        numbers = json.loads(estimates.read_text())
        found[full_id] = {
            "mean_ns": numbers["mean"]["point_estimate"],
            "median_ns": numbers["median"]["point_estimate"],
            "std_dev_ns": numbers["std_dev"]["point_estimate"],
        }
    return dict(sorted(found.items()))


def duration(ns):
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:.3g} {unit}"
    return f"{ns:.3g} ns"


def kb(size):
    return f"{size / KB:.1f} KB"


def budgets(report):
    """(name, measured text, limit text, passed) for every budget."""
    checks = []
    sizes = report.get("sizes") or {}
    for key, what, limit in (
        ("app_wasm", "app main wasm, gzipped", APP_WASM_GZ_BUDGET),
        ("js_module_wasm", "JS module wasm, gzipped", JS_MODULE_GZ_BUDGET),
        ("element_js", "element script, gzipped", ELEMENT_JS_GZ_BUDGET),
    ):
        size = sizes.get(key, {}).get("gzip_bytes")
        checks.append((what, kb(size) if size else "missing", f"≤ {kb(limit)}", bool(size) and size <= limit))
    browser = report.get("browser") or {}
    for panel, drag in (browser.get("drag") or {}).items():
        limit = QUEUE_DRAG_P95_BUDGET_MS if panel == "queue" else DRAG_P95_BUDGET_MS
        p95 = drag.get("p95_ms")
        runs = drag.get("runs", 1)
        worst = f", worst of {runs} drags" if runs > 1 else ""
        measured = f"p95 {p95:.1f} ms (p50 {drag['p50_ms']:.1f} ms, {drag['updates']} updates{worst})" if p95 else "no updates"
        checks.append((f"input to drawn, {panel}", measured, f"p95 ≤ {limit:g} ms", p95 is not None and p95 <= limit))
    for panel, first in (browser.get("first_chart_ms") or {}).items():
        checks.append((
            f"first chart after navigation, {panel}",
            f"{first['median']:.0f} ms",
            f"≤ {FIRST_CHART_BUDGET_MS:g} ms",
            first["median"] <= FIRST_CHART_BUDGET_MS,
        ))
    for key, what, limit in (
        ("first_paint_ms", "first paint (the skeleton)", FIRST_PAINT_BUDGET_MS),
        ("slow_first_chart_ms", "first chart, 4× slower CPU at 1.6 Mbit/s", SLOW_FIRST_CHART_BUDGET_MS),
    ):
        figure = browser.get(key)
        if figure:
            checks.append((what, f"{figure['median']:.0f} ms", f"≤ {limit:g} ms", figure["median"] <= limit))
    for key, what, limit in (
        ("fleet_paste", lambda f: f"fleet paste of {f['lines']:,} lines to drawn", FLEET_PASTE_BUDGET_MS),
        (
            "fleet_mixed_paste",
            lambda f: f"mixed fleet paste of {f['lines']:,} lines to drawn",
            FLEET_PASTE_BUDGET_MS,
        ),
        ("fleet_busy_sample", lambda f: "fleet sample picked while its worker is busy", FLEET_BUSY_SAMPLE_BUDGET_MS),
        ("replicate", lambda f: f"Queue replicate ×{f['runs']} to done", REPLICATE_BUDGET_MS),
        ("arrivals_read", lambda f: f"{f['rows']:,} arrivals read in the worker", ARRIVALS_READ_BUDGET_MS),
    ):
        figure = browser.get(key)
        if figure:
            median = figure["median_ms"]
            checks.append((what(figure), f"{median:.0f} ms", f"≤ {limit:g} ms", median <= limit))
    garbage = browser.get("fleet_garbage_paste")
    if garbage:
        for key, what, limit in (
            ("longest_frame_ms", "longest frame", GARBAGE_FRAME_BUDGET_MS),
            ("answer_ms", "page's answer after it", GARBAGE_ANSWER_BUDGET_MS),
            ("paging_longest_frame_ms", "longest frame listing more skipped lines", GARBAGE_FRAME_BUDGET_MS),
        ):
            checks.append((
                f"fleet paste of {garbage['lines']:,} garbage lines, {what}",
                f"{garbage[key]:.0f} ms",
                f"≤ {limit:g} ms",
                garbage[key] <= limit,
            ))
    check = report.get("check")
    if check:
        median = check["median_ms"]
        checks.append((check_name(check), f"{median:.0f} ms", f"≤ {CHECK_BUDGET_MS:g} ms", median <= CHECK_BUDGET_MS))
    if not browser:
        checks.append(("browser benchmark", "did not run", "runs", False))
    return checks


def check_name(check):
    return f"stampede check of {check['schedules']:,} schedules in {check['files']} files"



def markdown(report, checks):
    m = report["machine"]
    lines = [
        f"Measured {report['date']} by `scripts/bench-report`{' (quick mode)' if report['quick'] else ''} "
        f"on {m['nproc']} cores ({m['cpu']}), {m['ram_gib']} GiB RAM, shared with other builds.",
        "",
        "| what | measured | budget |",
        "| --- | --- | --- |",
    ]
    by_name = {name: (measured, limit, passed) for name, measured, limit, passed in checks}
    sizes = report.get("sizes") or {}
    for key, what in (
        ("app_wasm", "app main wasm"),
        ("worker_wasm", "Queue worker wasm"),
        ("js_module_wasm", "JS module wasm"),
        ("element_js", "element script"),
    ):
        if key in sizes:
            s = sizes[key]
            budget = ""
            if f"{what}, gzipped" in by_name:
                _, limit, passed = by_name[f"{what}, gzipped"]
                budget = f"{limit} {'pass' if passed else '**FAIL**'}"
            lines.append(f"| {what}, gzip -9 (raw) | {kb(s['gzip_bytes'])} ({kb(s['raw_bytes'])}) | {budget} |")
    for group in (sizes.get("app_split") or {}).get("groups", []):
        lines.append(
            f"| app wasm fetched when one of the {group['name']} panels first opens, gzip -9 "
            f"| {kb(group['gzip_bytes'])} in {group['modules']} modules |  |"
        )
    browser = report.get("browser") or {}
    for panel, drag in (browser.get("drag") or {}).items():
        _, limit, passed = by_name[f"input to drawn, {panel}"]
        p50 = drag.get("p50_ms")
        p95 = drag.get("p95_ms")
        runs = drag.get("runs", 1)
        worst = f", worst of {runs} drags: {', '.join(f'{p:.1f}' for p in drag['p95_of_runs_ms'])} ms" if runs > 1 else ""
        measured = f"p50 {p50:.1f} ms, p95 {p95:.1f} ms ({drag['updates']} updates{worst})" if p95 else "no updates"
        lines.append(f"| {panel}: slider input to charts drawn | {measured} | {limit} {'pass' if passed else '**FAIL**'} |")
    for panel, first in (browser.get("first_chart_ms") or {}).items():
        _, limit, passed = by_name[f"first chart after navigation, {panel}"]
        lines.append(
            f"| {panel}: navigation to first chart (median of {len(first['samples'])}) | {first['median']:.0f} ms "
            f"| {limit} {'pass' if passed else '**FAIL**'} |"
        )
    week = browser.get("week_run")
    if week:
        lines.append(
            f"| Queue week run in the worker (1.3M jobs), change to done (median of {len(week['samples_ms'])}) "
            f"| {week['median_ms']:.0f} ms | |"
        )
    for key, what in (
        ("first_paint_ms", "first paint (the skeleton)"),
        ("slow_first_chart_ms", "first chart, 4× slower CPU at 1.6 Mbit/s"),
    ):
        figure = browser.get(key)
        if figure:
            _, limit, passed = by_name[what]
            lines.append(
                f"| {what} (median of {len(figure['samples'])}) | {figure['median']:.0f} ms "
                f"| {limit} {'pass' if passed else '**FAIL**'} |"
            )
    for key, what, words in (
        ("fleet_paste", "fleet paste", "paste"),
        ("fleet_mixed_paste", "mixed fleet paste", "paste of crontab, Jenkinsfiles, timers and CronJobs"),
    ):
        paste = browser.get(key)
        if paste:
            _, limit, passed = by_name[f"{what} of {paste['lines']:,} lines to drawn"]
            lines.append(
                f"| Fleet: {paste['lines']:,}-line {words} to drawn (median of {len(paste['samples_ms'])}) "
                f"| {paste['median_ms']:.0f} ms | {limit} {'pass' if passed else '**FAIL**'} |"
            )
    busy = browser.get("fleet_busy_sample")
    if busy:
        _, limit, passed = by_name["fleet sample picked while its worker is busy"]
        lines.append(
            f"| Fleet: a sample picked while its worker is busy, click to drawn "
            f"(median of {len(busy['samples_ms'])}) | {busy['median_ms']:.0f} ms | {limit} {'pass' if passed else '**FAIL**'} |"
        )
    if garbage := browser.get("fleet_garbage_paste"):
        for key, what in (
            ("longest_frame_ms", "longest frame"),
            ("answer_ms", "page's answer after it"),
            ("paging_longest_frame_ms", "longest frame listing more skipped lines"),
        ):
            _, limit, passed = by_name[f"fleet paste of {garbage['lines']:,} garbage lines, {what}"]
            lines.append(
                f"| Fleet: {garbage['lines']:,} garbage lines pasted, {what} (worst of {len(garbage['runs'])}) "
                f"| {garbage[key]:.0f} ms | {limit} {'pass' if passed else '**FAIL**'} |"
            )
    replicate = browser.get("replicate")
    if replicate:
        _, limit, passed = by_name[f"Queue replicate ×{replicate['runs']} to done"]
        lines.append(
            f"| Queue replicate ×{replicate['runs']} of the defaults in the worker, click to done "
            f"(median of {len(replicate['samples_ms'])}) | {replicate['median_ms']:.0f} ms "
            f"| {limit} {'pass' if passed else '**FAIL**'} |"
        )
    scaling = browser.get("replicate_scaling")
    if scaling:
        times = ", ".join(
            f"{by['workers']}: {by['median_ms']:.0f} ms" for by in scaling["by_workers"]
        )
        lines.append(
            f"| Queue replicate ×{scaling['runs']} of the defaults by workers, click to done "
            f"(medians) | {times} | |"
        )
    read = browser.get("arrivals_read")
    if read:
        _, limit, passed = by_name[f"{read['rows']:,} arrivals read in the worker"]
        lines.append(
            f"| Queue: {read['rows']:,} arrivals read in the worker (median of {len(read['samples_ms'])}) "
            f"| {read['median_ms']:.0f} ms | {limit} {'pass' if passed else '**FAIL**'} |"
        )
    check = report.get("check")
    if check:
        _, limit, passed = by_name[check_name(check)]
        lines.append(
            f"| {check_name(check)}, {check['findings']:,} findings, native (median of {len(check['samples_ms'])}) "
            f"| {check['median_ms']:.0f} ms | {limit} {'pass' if passed else '**FAIL**'} |"
        )
    simpy = report.get("simpy")
    if simpy:
        ours, theirs = simpy["stampede"], simpy["simpy"]
        span = "a day" if report["quick"] else "a week"
        lines.append(
            f"| M/M/c queue, {span}: stampede vs SimPy {simpy['simpy_version']} "
            f"| {ours['jobs'] / ours['best_seconds']:,.0f} vs {theirs['jobs'] / theirs['seconds']:,.0f} jobs/s, "
            f"{simpy['ratio']:.0f}× | |"
        )
    hashes = report.get("hashes")
    if hashes:
        for name, row in hashes["functions"].items():
            if "skipped" in row:
                lines.append(f"| {name} over 1M keys: vs {row['package']} | skipped: {row['skipped']} | |")
                continue
            same = "same checksum" if row["checksums_equal"] else "**checksums differ**"
            lines.append(
                f"| {name} over 1M keys: stampede vs {row['package']} {row['version']} (Python) "
                f"| {row['rust_keys_per_second'] / 1e6:.0f}M vs {row['python_keys_per_second'] / 1e6:.2f}M keys/s, "
                f"{row['ratio']:.0f}×, {same} | |"
            )
    criterion = report.get("criterion") or {}
    if criterion:
        lines += ["", "| criterion benchmark (native, opt-level 3) | median | mean |", "| --- | --- | --- |"]
        for full_id, estimate in criterion.items():
            lines.append(f"| {full_id} | {duration(estimate['median_ns'])} | {duration(estimate['mean_ns'])} |")
    return "\n".join(lines) + "\n"


def main():
    work, out, criterion_dir, stamp = sys.argv[1:5]
    work, out = Path(work), Path(out)
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "quick": os.environ.get("BENCH_QUICK", "") not in ("", "0"),
        "machine": machine(),
        "sizes": load(work / "sizes.json"),
        "browser": load(work / "browser.json"),
        "simpy": load(work / "simpy.json"),
        "hashes": load(work / "hashes.json"),
        "check": load(work / "check.json"),
        "criterion": criterion_estimates(criterion_dir, stamp),
    }
    checks = budgets(report)
    report["budgets"] = [
        {"budget": name, "measured": measured, "limit": limit, "pass": passed}
        for name, measured, limit, passed in checks
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    (out / "report.md").write_text(markdown(report, checks))
    print(f"bench-report: wrote {out / 'report.json'} and {out / 'report.md'}")
    for name, measured, limit, passed in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {measured} ({limit})")
    failed = sum(1 for *_, passed in checks if not passed)
    print(f"bench-report: {len(checks) - failed} budgets passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
