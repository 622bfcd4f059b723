"""Prints systemd timers' fixed delays: FixedRandomDelay=yes with
RandomizedDelaySec=, for varied unit names, machine ids and spans.

Run from the repository root on Debian 12 (systemd 252.39-1~deb12u2):
    pip install siphashc==2.9.1
    python3 fleet/tests/data/make_systemd_delay.py > fleet/tests/data/systemd_delay.tsv

The hash follows timer_get_fixed_delay_hash() in src/core/timer.c
(systemd v252): SipHash-2-4 under the key below over the machine id's 16
bytes, one byte 1 for the system manager (0 for a user's), the uid as 4
little-endian bytes and the unit name's bytes without a NUL. It is
computed by PyPI siphashc (an independent C SipHash), and checked against
systemd's own siphash24_init/compress/finalize in libsystemd-shared-252.so
fed in timer.c's order. The span is read by that library's parse_sec(),
the same function RandomizedDelaySec= goes through, and the delay is
hash % span.

Each row: unit, machine id (32 hex digits), manager ("system" or
"user:UID"), RandomizedDelaySec= as written, the span in microseconds (or
"refused"), the hash in hex, the delay in microseconds.
"""

import ctypes
import importlib.metadata
import itertools
import sys

import siphashc

LIBRARY = "/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
KEY = bytes([0x51, 0x0A, 0xDB, 0x76, 0x29, 0x51, 0x42, 0xC2, 0x80, 0x35, 0xEA, 0xE6, 0x8E, 0x3A, 0x37, 0xBD])

UNITS = [
    "backup.timer",
    "logrotate.timer",
    "apt-daily-upgrade.timer",
    "systemd-tmpfiles-clean.timer",
    "my\\x20job.timer",
    "café ☕ rapport.timer",
    "日本語のジョブ.timer",
    "team a/service b/deploy.timer",
    "  spaced  ",
    "x",
    "",
    "cleanup",
    "fstrim.timer",
    "certbot-renew@example.com.timer",
    "a" * 200 + ".timer",
]
MACHINE_IDS = [
    "00000000000000000000000000000000",
    "0123456789abcdef0123456789abcdef",
    "5f1c2a7e9b3d4c6e8a0b1d2f3e4c5a69",
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
]
SPANS = ["1h", "90", "30min", "1h 30min", "1.5h", "6h", "1d", "1w", "500ms", "7", "2M", "1y", "0.3333333s", "12h"]
REFUSED_SPANS = ["-1", "5.", "infinity", "abc", "3.sec", ""]
MANAGERS = ["system", "system", "system", "user:1000"]


def library():
    lib = ctypes.CDLL(LIBRARY)
    lib.parse_sec.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]
    lib.parse_sec.restype = ctypes.c_int
    lib.siphash24_init.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.siphash24_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.siphash24_finalize.argtypes = [ctypes.c_void_p]
    lib.siphash24_finalize.restype = ctypes.c_uint64
    return lib


def message(machine_id, manager, unit):
    system = manager == "system"
    uid = 0 if system else int(manager.split(":")[1])
    return bytes.fromhex(machine_id) + bytes([1 if system else 0]) + uid.to_bytes(4, "little") + unit.encode()


def systemd_hash(lib, machine_id, manager, unit):
    """timer.c's calls, made on systemd's own SipHash."""
    state = ctypes.create_string_buffer(64)  # struct siphash is 48 bytes
    lib.siphash24_init(state, KEY)
    whole = message(machine_id, manager, unit)
    for part in (whole[:16], whole[16:17], whole[17:21], whole[21:]):
        if part:  # siphash24_compress_string skips an empty name
            lib.siphash24_compress(part, len(part), state)
    return lib.siphash24_finalize(state)


def span(lib, text):
    usec = ctypes.c_uint64()
    if lib.parse_sec(text.encode(), ctypes.byref(usec)) < 0 or usec.value == 2**64 - 1:
        return None
    return usec.value


def main():
    lib = library()
    print(f"# siphashc {importlib.metadata.version('siphashc')}, libsystemd-shared-252.so (252.39-1~deb12u2), Python {sys.version.split()[0]}")
    print("# made with: python3 fleet/tests/data/make_systemd_delay.py > fleet/tests/data/systemd_delay.tsv")
    print("# columns: unit machine_id manager RandomizedDelaySec span_micros hash_hex delay_micros")
    spans = itertools.cycle(SPANS)
    managers = itertools.cycle(MANAGERS)
    rows = []
    for unit, machine_id, _ in itertools.product(UNITS, MACHINE_IDS, range(2)):
        rows.append((unit, machine_id, next(managers), next(spans)))
    for text, unit in zip(REFUSED_SPANS, UNITS):
        rows.append((unit, MACHINE_IDS[1], "system", text))
    for unit, machine_id, manager, text in rows:
        hashed = siphashc.siphash(KEY, message(machine_id, manager, unit))
        assert hashed == systemd_hash(lib, machine_id, manager, unit), (unit, machine_id)
        micros = span(lib, text)
        delay = "" if micros is None else str(hashed % micros)
        shown = "refused" if micros is None else str(micros)
        assert "\t" not in unit and "\n" not in unit
        print(f"{unit}\t{machine_id}\t{manager}\t{text}\t{shown}\t{hashed:016x}\t{delay}")
    print(f"# {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
