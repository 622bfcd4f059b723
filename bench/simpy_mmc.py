#!/usr/bin/env python3
"""Compares stampede's queue simulation with a SimPy model of one M/M/c queue.

The Rust example `core/examples/mmc.rs` simulates the workload (Poisson
arrivals, c workers, exponential durations) and prints one JSON line with
the workload, its best time and its mean wait beside the Erlang C mean
wait. This script builds and runs that example in release, runs the same
workload once in SimPy (the workload's figures are read from the example's
line, so the two cannot drift apart), and prints a table of both.

Usage, from the repository root:  python3 bench/simpy_mmc.py [--quick] [--json]
--quick simulates one day instead of a week; --json prints one JSON object
instead of the table.
"""

import argparse
import json
import math
import random
import sys
import time

from rust_example import run_example

try:
    import simpy
except ImportError:
    print(
        "simpy is not installed; install it with: pip install -r bench/requirements.txt",
        file=sys.stderr,
    )
    sys.exit(2)

# A fixed seed so that a run replays; the Rust example has its own fixed
# seed, and the two generators differ, so the models agree only within
# sampling noise, not exactly.
SEED = 1


def run_rust(quick):
    """The Rust side's JSON line, as a dict."""
    return run_example("mmc", "release", quick)


def run_simpy(workload):
    """Simulates the workload once; returns (jobs, seconds, mean wait)."""
    rng = random.Random(SEED)
    env = simpy.Environment()
    workers = simpy.Resource(env, capacity=workload["workers"])
    arrival_rate = workload["arrival_rate_per_s"]
    service_rate = 1.0 / workload["mean_service_s"]
    waits = []
    arrived_jobs = 0

    def job():
        due = env.now
        with workers.request() as turn:
            yield turn
            waits.append(env.now - due)
            yield env.timeout(rng.expovariate(service_rate))

    def arrivals():
        nonlocal arrived_jobs
        while True:
            yield env.timeout(rng.expovariate(arrival_rate))
            arrived_jobs += 1
            env.process(job())

    env.process(arrivals())
    start = time.perf_counter()
    # Like the Rust model, nothing at or after the horizon runs, and waits
    # count the jobs that started before it.
    env.run(until=workload["horizon_s"])
    seconds = time.perf_counter() - start
    return arrived_jobs, seconds, math.fsum(waits) / len(waits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="simulate one day instead of a week")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    rust = run_rust(args.quick)
    simpy_jobs, simpy_seconds, simpy_wait = run_simpy(rust)
    theory = rust["erlang_c_mean_wait_s"]
    ratio = (rust["jobs"] / rust["best_seconds"]) / (simpy_jobs / simpy_seconds)
    if args.json:
        simpy_run = {"jobs": simpy_jobs, "seconds": simpy_seconds, "mean_wait_s": simpy_wait}
        print(json.dumps({"stampede": rust, "simpy": simpy_run, "simpy_version": simpy.__version__, "ratio": ratio}))
        return

    print(
        f"M/M/c: c = {rust['workers']}, λ = {rust['arrival_rate_per_s']:.4f} jobs/s, "
        f"mean duration {rust['mean_service_s']:.3f} s, ρ = {rust['load']}, "
        f"horizon {rust['horizon_s']:,} s"
    )
    rows = [
        (
            f"stampede (Rust, best of {rust['timed_runs']})",
            rust["jobs"],
            rust["best_seconds"],
            rust["mean_wait_s"],
        ),
        (f"SimPy {simpy.__version__} (one run)", simpy_jobs, simpy_seconds, simpy_wait),
    ]
    print(f"{'model':<28}{'jobs':>11}{'seconds':>10}{'jobs/s':>13}{'mean wait s':>13}{'vs Erlang C':>13}")
    for name, jobs, seconds, wait in rows:
        print(
            f"{name:<28}{jobs:>11,}{seconds:>10.3f}{jobs / seconds:>13,.0f}"
            f"{wait:>13.4f}{wait / theory - 1:>+13.1%}"
        )
    print(f"{'Erlang C':<28}{'':>11}{'':>10}{'':>13}{theory:>13.4f}")
    print(f"stampede simulates {ratio:,.0f}× as many jobs per second as SimPy")


if __name__ == "__main__":
    main()
