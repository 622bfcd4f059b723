"""Prints where a systemd timer wakes inside its AccuracySec= window, for
varied boot ids, accuracies and elapses.

Run from the repository root (no systemd needed):
    python3 fleet/tests/data/make_systemd_accuracy.py > fleet/tests/data/systemd_accuracy.tsv

These vectors are NOT made by systemd: no systemd manager runs where they
were made, and the wake-up of a real PID 1 cannot be read back to the
microsecond. They come from this script's re-implementation of the source
of systemd-stable v252.39 (Debian 12's 252.39-1~deb12u2), read line by
line from src/libsystemd/sd-event/sd-event.c:

- sd_event_add_time(): an accuracy of 0 is DEFAULT_ACCURACY_USEC, 250 ms;
- time_event_source_latest(): b = usec_add(next, accuracy), saturating;
- initialize_perturb(): the boot id (sd_id128_get_boot(), parsed from
  /proc/sys/kernel/random/boot_id) as two uint64 words in native byte
  order, little-endian on x86-64 and arm64, perturb = (w0 ^ w1) % 1 min;
- sleep_between(): the point at the perturbation into the minute, 10 s,
  1 s or 250 ms at or before b (less one step when not before b) that is
  not before a, else b.

Each row: boot id as written (the dashed UUID or 32 hex digits), the
AccuracySec= in microseconds as written, the elapse a (Unix microseconds),
the perturbation and the wake-up (microseconds).
"""

import platform
import random
import uuid

USEC_PER_MSEC = 1000
USEC_PER_SEC = 1000 * USEC_PER_MSEC
USEC_PER_MINUTE = 60 * USEC_PER_SEC
USEC_INFINITY = 2**64 - 1
DEFAULT_ACCURACY_USEC = 250 * USEC_PER_MSEC


def usec_add(a, b):
    return USEC_INFINITY if a > USEC_INFINITY - b else a + b


def initialize_perturb(boot_id):
    raw = uuid.UUID(hex=boot_id.replace("-", "")).bytes
    w0 = int.from_bytes(raw[:8], "little")
    w1 = int.from_bytes(raw[8:], "little")
    return (w0 ^ w1) % USEC_PER_MINUTE


def sleep_between(perturb, a, b):
    assert a <= b
    if a <= 0:
        return 0
    if a >= USEC_INFINITY:
        return USEC_INFINITY
    if b <= a + 1:
        return a
    for step in (USEC_PER_MINUTE, USEC_PER_SEC * 10, USEC_PER_SEC, USEC_PER_MSEC * 250):
        c = (b // step) * step + (perturb % step)
        if c >= b:
            if c < step:
                return b
            c -= step
        if c >= a:
            return c
    return b


def wake_up(boot_id, accuracy, elapse):
    accuracy = DEFAULT_ACCURACY_USEC if accuracy == 0 else accuracy
    return sleep_between(initialize_perturb(boot_id), elapse, usec_add(elapse, accuracy))


def main():
    draw = random.Random(252)
    boot_ids = [
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "0123456789abcdef0123456789abcdef",
        "0123456789abcdef0123456789abcdee",
        "5e9a7c1a-2f4b-4c7d-9b8e-1d2c3b4a5f60",
        "A1B2C3D4-E5F6-4789-8ABC-DEF012345678",
    ] + [str(uuid.UUID(int=draw.getrandbits(128), version=4)) for _ in range(6)]
    accuracies = [0, 1, 2, 999, 100_000, 250_000, 900_000, 5 * USEC_PER_SEC,
                  15 * USEC_PER_SEC, USEC_PER_MINUTE, 90 * USEC_PER_SEC,
                  10 * USEC_PER_MINUTE, 3600 * USEC_PER_SEC, 24 * 3600 * USEC_PER_SEC]
    monday = 1_708_905_600 * USEC_PER_SEC  # 2024-02-26T00:00:00Z
    elapses = [monday, monday + 1, monday + 59 * USEC_PER_SEC + 999_999,
               monday + 17 * USEC_PER_SEC + 250_000] + [
        monday + draw.randrange(0, 7 * 24 * 3600 * USEC_PER_SEC) for _ in range(4)]
    print("# re-implementation of systemd-stable v252.39 sd-event.c (initialize_perturb,"
          f" sleep_between), not made by systemd; Python {platform.python_version()}")
    print("# made with: python3 fleet/tests/data/make_systemd_accuracy.py"
          " > fleet/tests/data/systemd_accuracy.tsv")
    print("# columns: boot_id accuracy_usec elapse_usec perturb_usec wake_usec")
    for boot_id in boot_ids:
        for accuracy in accuracies:
            for elapse in elapses:
                woken = wake_up(boot_id, accuracy, elapse)
                limit = usec_add(elapse, DEFAULT_ACCURACY_USEC if accuracy == 0 else accuracy)
                assert elapse <= woken <= limit
                print(f"{boot_id}\t{accuracy}\t{elapse}\t{initialize_perturb(boot_id)}\t{woken}")


if __name__ == "__main__":
    main()
