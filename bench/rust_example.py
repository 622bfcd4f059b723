"""Runs one of stampede-core's examples for the peer comparisons."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_example(example, profile, quick):
    """Builds and runs `example` under cargo's `profile` (passing --quick
    when asked) and returns the JSON of its last output line as a dict."""
    command = ["cargo", "run", "--profile", profile, "--quiet", "-p", "stampede-core", "--example", example]
    if quick:
        command += ["--", "--quick"]
    try:
        finished = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    except FileNotFoundError:
        sys.exit("cargo is not on PATH; the Rust side needs a Rust toolchain")
    if finished.returncode != 0:
        sys.exit(f"{' '.join(command)} failed with exit status {finished.returncode}")
    return json.loads(finished.stdout.strip().splitlines()[-1])
