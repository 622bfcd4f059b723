#!/usr/bin/env python3
"""Times stampede's 32-bit hashes beside the reference Python packages.

The Rust example `core/examples/hash_peers.rs` hashes "user-1" to
"user-1000000" with each function and prints one JSON line: keys per
second, a checksum (the sum of all hashes modulo 2**32) and the first three
hashes. This script builds and runs that example (the bench profile,
opt-level 3, as the criterion benchmarks), then hashes the same keys, as
UTF-8 bytes, with each function's Python package: mmh3 for MurmurHash3,
xxhash for XXH32, pyfarmhash for FarmHash Fingerprint32 and fnvhash (pure
Python) for FNV-1a. A package whose first three hashes differ from the
Rust ones is skipped with a note rather than timed. Equal checksums show
that both sides returned the same million values.

The Python time is the best of three passes of a loop calling the package
once per key, as a user of the package calls it; the loop's own cost is in
it, which is the point: it is what hashing a million keys in Python costs.

Usage, from the repository root:
    python3 bench/hash_peers.py [--quick] [--json]
--quick times one pass on each side; --json prints one JSON object instead
of the table.
"""

import argparse
import importlib.metadata
import json
import sys
import time

from rust_example import run_example

SAMPLE = 3


def reference_functions():
    """Each function's package and the call that hashes bytes, or why not."""
    found = {}

    def add(name, package, load):
        try:
            found[name] = (package, load())
        except ImportError as error:
            found[name] = (package, f"not installed ({error})")

    add("farm_fingerprint32", "pyfarmhash", lambda: __import__("farmhash").fingerprint32)

    def murmur():
        import mmh3

        return lambda key: mmh3.hash(key, 0, signed=False)

    add("murmur3_32", "mmh3", murmur)
    add("xxh32", "xxhash", lambda: __import__("xxhash").xxh32_intdigest)
    add("fnv1a_32", "fnvhash", lambda: __import__("fnvhash").fnv1a_32)
    return found


def run_rust(quick):
    """The Rust side's JSON line, as a dict."""
    return run_example("hash_peers", "bench", quick)


def time_python(hash_key, keys, passes):
    """Best seconds over `passes` passes, and the checksum of one."""
    best = float("inf")
    checksum = None
    for _ in range(passes):
        start = time.perf_counter()
        total = 0
        for key in keys:
            total += hash_key(key)
        best = min(best, time.perf_counter() - start)
        checksum = total % 2**32
    return best, checksum


def compare(quick):
    rust = run_rust(quick)
    keys = [f"user-{i}".encode() for i in range(1, rust["keys"] + 1)]
    passes = 1 if quick else 3
    rows = {}
    for name, (package, hash_key) in reference_functions().items():
        ours = rust["functions"][name]
        row = {
            "package": package,
            "rust_keys_per_second": ours["keys_per_second"],
            "rust_checksum": ours["checksum"],
        }
        rows[name] = row
        if isinstance(hash_key, str):
            row["skipped"] = hash_key
            continue
        row["version"] = importlib.metadata.version(package)
        sample = [hash_key(key) for key in keys[:SAMPLE]]
        if sample != ours["sample"]:
            row["skipped"] = f"its first hashes {sample} differ from stampede's {ours['sample']}"
            continue
        seconds, checksum = time_python(hash_key, keys, passes)
        row.update(
            python_keys_per_second=rust["keys"] / seconds,
            python_checksum=checksum,
            checksums_equal=checksum == ours["checksum"],
            ratio=ours["keys_per_second"] * seconds / rust["keys"],
        )
    return {"keys": rust["keys"], "rust_timed_runs": rust["timed_runs"], "python_passes": passes, "functions": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time one pass on each side")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = compare(args.quick)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['keys']:,} keys, user-1 to user-{result['keys']}")
        print(f"{'function':<20}{'package':<22}{'stampede keys/s':>17}{'Python keys/s':>15}{'ratio':>9}  checksums")
        for name, row in result["functions"].items():
            package = f"{row['package']} {row.get('version', '')}".strip()
            if "skipped" in row:
                print(f"{name:<20}{package:<22}{row['rust_keys_per_second']:>17,.0f}  skipped: {row['skipped']}")
                continue
            same = "equal" if row["checksums_equal"] else "DIFFER"
            print(
                f"{name:<20}{package:<22}{row['rust_keys_per_second']:>17,.0f}"
                f"{row['python_keys_per_second']:>15,.0f}{row['ratio']:>8,.0f}×  {same}"
            )
    if any(row.get("checksums_equal") is False for row in result["functions"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
