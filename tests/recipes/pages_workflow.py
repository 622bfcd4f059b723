#!/usr/bin/env python3
"""Checks the GitHub Pages workflow (.github/workflows/pages.yml) without
GitHub: it parses as YAML, its build job uploads dist/ and its deploy job
deploys it, every `run:` step is valid bash, and every script a step runs
exists and is executable. Whether the build itself works as a non-root
user is checked by hand (see the book's Publishing chapter).

Usage: python3 tests/recipes/pages_workflow.py
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github/workflows/pages.yml"


def main():
    flow = yaml.safe_load(WORKFLOW.read_text())
    problems = []
    steps = [step for job in flow["jobs"].values() for step in job["steps"]]
    uses = [step["uses"] for step in steps if "uses" in step]
    for action in ("actions/checkout", "actions/upload-pages-artifact", "actions/deploy-pages"):
        if not any(u.startswith(action + "@") for u in uses):
            problems.append(f"no step uses {action}")
    upload = next((s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")), {})
    if upload.get("with", {}).get("path") != "dist":
        problems.append("the uploaded artifact is not dist/")
    runs = [step["run"] for step in steps if "run" in step]
    if not runs:
        problems.append("no step runs a command")
    for run in runs:
        # GitHub substitutes ${{ ... }} before bash sees the step.
        script = re.sub(r"\$\{\{[^}]*\}\}", "x", run)
        checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
        if checked.returncode != 0:
            problems.append(f"not valid bash: {run!r}: {checked.stderr.strip()}")
        for name in re.findall(r"(?<![\w/])(scripts/[\w./-]+)", script):
            path = ROOT / name
            if not (path.is_file() and os.access(path, os.X_OK)):
                problems.append(f"{name} is not an executable file")
    for problem in problems:
        print(f"pages workflow: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"pages workflow: {len(steps)} steps, {len(runs)} run steps, every script they run exists")


if __name__ == "__main__":
    main()
