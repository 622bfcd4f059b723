#!/usr/bin/env python3
"""Runs the core's snippets in their own languages and writes what they give.

The snippets come from `cargo run -p stampede-core --example snippets`,
which prints each one's code after a `### ` line naming it. Each hash
snippet runs as written on the ids of IDS, in Python, Go (GOPATH mode over
Debian's golang-*-dev sources in /usr/share/gocode), Ruby or PostgreSQL
(psql, on a temporary table `tasks`), and the offsets go to
snippet_vectors.tsv. Each tenacity snippet is executed, and its wait
function is called for every retry with the draw replaced by a fixed u
(random.random() returns u; random.randrange(k) returns floor(u*k), as the
core models a whole-number draw); the waits go to tenacity_waits.tsv.

Every row carries the FNV-1a 32 of its snippet's code, so the Rust tests
notice when a snippet changes and these files must be made again.

Run from the repository root: python3 core/tests/data/make_snippet_vectors.py
"""

import os
import platform
import random
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent

IDS = [
    "42",
    "0",
    "18446744073709551617",
    "12345678901234567890123456789012",
    "0192f5c4-9a1b-7c3d-8e4f-a1b2c3d4e5f6",
    "E36DFB07-45D4-4120-A877-71BD40F830DC",
    "{c5d3ba75-f4ef-4d82-bb77-b11e22819813}",
    "urn:uuid:f2d6db91-8537-4553-99c5-0a56cf933f19",
    "66b35d5afd574a1880c2755e44e91906",
    "user7@example.com",
    "ab",
    "café",
    "ключ-17",
    "🦀 crab",
]

U_DRAWS = [0.5, 0.9]

GO_DRIVER = """package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
)

func main() {
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		id, _ := hex.DecodeString(lines.Text())
		fmt.Println(offset(string(id)))
	}
}
"""

RUBY_DRIVER = """
STDIN.each_line { |line| puts offset([line.chomp].pack("H*").force_encoding("UTF-8")) }
"""


def fnv1a_32(data: bytes) -> int:
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) % 2**32
    return h


def snippets():
    """(fields, code) of every snippet the example prints."""
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "stampede-core", "--example", "snippets"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    blocks = []
    for line in out.splitlines(keepends=True):
        if line.startswith("### "):
            blocks.append((line[4:].rstrip("\n").split("\t"), []))
        else:
            blocks[-1][1].append(line)
    return [(fields, "".join(code)) for fields, code in blocks]


def run_python(code, ids):
    namespace = {}
    exec(code, namespace)
    return [namespace["offset"](id) for id in ids]


def run_go(code, ids):
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "snippet.go").write_text("package main\n\n" + code)
        Path(directory, "main.go").write_text(GO_DRIVER)
        env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOFLAGS="")
        out = subprocess.run(
            ["go", "run", "."],
            cwd=directory,
            input="".join(id.encode().hex() + "\n" for id in ids),
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return [int(line) for line in out.split()]


def run_ruby(code, ids):
    out = subprocess.run(
        ["ruby", "-e", code + RUBY_DRIVER],
        input="".join(id.encode().hex() + "\n" for id in ids),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [int(line) for line in out.split()]


def psql(sql):
    return subprocess.run(
        ["su", "postgres", "-c", "psql -X -q -At -F '\t' -v ON_ERROR_STOP=1"],
        input=sql,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def run_sql(code, ids):
    """The query on a text column of every id; UUID-shaped ids again through a
    uuid column, which must give the same offsets."""
    literals = ",".join(f"(convert_from('\\x{id.encode().hex()}'::bytea, 'UTF8'))" for id in ids)
    out = psql(
        "CREATE TEMP TABLE tasks (id text);\n"
        f"INSERT INTO tasks VALUES {literals};\n{code}"
    )
    offsets = dict(line.split("\t") for line in out.splitlines())
    text_offsets = [int(offsets[id]) for id in ids]
    uuids = [id for id in ids if is_uuid(id)]
    # Rows come back in the order inserted, as the ids have no other order.
    literals = ",".join(f"('{id}'::uuid)" for id in uuids)
    out = psql(
        "CREATE TEMP TABLE tasks (id uuid);\n"
        f"INSERT INTO tasks VALUES {literals};\n{code}"
    )
    by_uuid = dict(line.split("\t") for line in out.splitlines())
    for id, (as_uuid, offset) in zip(uuids, by_uuid.items()):
        assert int(offset) == text_offsets[ids.index(id)], (id, as_uuid, offset)
    return text_offsets


def is_uuid(id):
    """Whether PostgreSQL's uuid type reads id as the panel does: every UUID
    form but urn:uuid:, which it refuses."""
    hyphenated = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    pattern = f"[0-9a-fA-F]{{32}}|{hyphenated}|\\{{{hyphenated}\\}}|urn:uuid:{hyphenated}"
    return re.fullmatch(pattern, id) is not None and not id.isdigit() and not id.startswith("urn:")


RUNNERS = {"python": run_python, "go": run_go, "ruby": run_ruby, "sql": run_sql}


def version(command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def debian_version(package):
    return version(["dpkg-query", "-W", "-f", "${Version}", package])


def tenacity_waits(code, retries):
    """The snippet's wait before each retry, for each draw u."""
    import tenacity

    rows = []
    for u in U_DRAWS:
        random.random = lambda: u
        random._inst.random = lambda: u
        random.randrange = lambda k: int(u * k)
        namespace = {}
        exec(code, namespace)
        retrying = namespace["call"].retry
        state = tenacity.RetryCallState(retrying, None, (), {})
        for n in range(1, retries + 1):
            state.attempt_number = n
            wait = retrying.wait(state)
            state.upcoming_sleep = wait
            rows.append((u, n, wait))
    return rows


def main():
    blocks = snippets()
    python = f"CPython {platform.python_version()}"
    packages = ", ".join(
        f"{name} {metadata.version(name)}" for name in ["pyfarmhash", "mmh3", "xxhash"]
    )
    go_packages = ", ".join(
        f"{name} {debian_version(name)}"
        for name in [
            "golang-github-dgryski-go-farm-dev",
            "golang-github-spaolacci-murmur3-dev",
            "golang-github-pierrec-xxhash-dev",
        ]
    )
    lines = [
        "# Offsets that each hash snippet (stampede_core::panels::snippet::hash) gives when run as written",
        "# in its own language by core/tests/data/make_snippet_vectors.py, which says how.",
        f"# python: {python} with {packages}.",
        f"# go: {version(['go', 'version'])}, Debian's {go_packages}.",
        f"# ruby: {version(['ruby', '--version'])}.",
        f"# sql: {version(['psql', '--version'])} server, text and uuid columns.",
        "# code_fnv: FNV-1a 32 of the snippet's code; key_hex: the id's UTF-8 bytes in hex.",
        "language\tmode\treduction\twindow\tcode_fnv\tkey_hex\toffset",
    ]
    for fields, code in blocks:
        if fields[0] != "hash":
            continue
        _, mode, reduction, window, language = fields
        offsets = RUNNERS[language](code, IDS)
        fingerprint = fnv1a_32(code.encode())
        for id, offset in zip(IDS, offsets):
            lines.append(
                f"{language}\t{mode}\t{reduction}\t{window}\t{fingerprint}\t{id.encode().hex()}\t{offset}"
            )
    (HERE / "snippet_vectors.tsv").write_text("\n".join(lines) + "\n")

    lines = [
        "# Waits before each retry from the tenacity snippet (stampede_core::panels::snippet::backoff) of",
        "# each backoff setup, called by core/tests/data/make_snippet_vectors.py with the draw",
        "# fixed at u: random.random() returns u and random.randrange(k) returns floor(u*k).",
        f"# {python}, tenacity {metadata.version('tenacity')}. wait is Python's repr of the float.",
        "strategy\tbase\tfactor\tcap\tretries\tcode_fnv\tu\tretry\twait",
    ]
    for fields, code in blocks:
        if fields[0] != "tenacity":
            continue
        _, strategy, base, factor, cap, retries = fields
        fingerprint = fnv1a_32(code.encode())
        for u, n, wait in tenacity_waits(code, int(retries)):
            lines.append(
                f"{strategy}\t{base}\t{factor}\t{cap}\t{retries}\t{fingerprint}\t{u}\t{n}\t{float(wait)!r}"
            )
    (HERE / "tenacity_waits.tsv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
