//! `AccuracySec=`: where in `[elapse, elapse + accuracy]` the manager
//! wakes up to start a timer's service.
//!
//! Followed: systemd-stable tag v252.39 (the source of Debian 12's
//! 252.39-1~deb12u2), `src/libsystemd/sd-event/sd-event.c`:
//! `initialize_perturb()`, `sleep_between()`, `sd_event_add_time()` and
//! `time_event_source_latest()`; `src/core/timer.c`
//! `timer_enter_waiting()`, which adds the calendar elapse (delay
//! included) as a `CLOCK_REALTIME` source with the unit's `AccuracySec=`
//! (default `DefaultTimerAccuracySec=`, 1 min).
//!
//! - Perturbation: one per boot, from the boot id's 16 bytes read as two
//!   64-bit words in the machine's byte order (little-endian here, as on
//!   x86-64 and arm64): `perturb = (w₀ ⊕ w₁) mod 60 s`.
//! - Wake-up, for `a` the elapse and `b = a + accuracy`, in Unix
//!   microseconds: the last point before `b` at the boot's offset into a
//!   minute, if it is not before `a`; else the same into 10 s, 1 s and
//!   250 ms; else `b`:
//!
//! ```text
//! for step in 1 min, 10 s, 1 s, 250 ms:
//!     c = ⌊b / step⌋ · step + perturb mod step,  less one step when c ≥ b
//!     c ≥ a  ⇒  wake at c
//! wake at b
//! ```
//!
//! - An accuracy of 1 µs or less wakes at `a` itself; `AccuracySec=0` is
//!   sd-event's own default for 0, 250 ms.
//! - The manager arms one timer for all its realtime sources, from the
//!   earliest elapse to the earliest latest-time among them; the point
//!   here is the timer's own, as when no other source's span overlaps it.
//!
//! No systemd runs where this is built, so the vectors that check it
//! (`systemd_accuracy.tsv`) come from a re-implementation of the source
//! above, not from the real manager.

use crate::time::MICROS_PER_SECOND;

/// `DefaultTimerAccuracySec=`'s default, the accuracy of a timer that does
/// not set `AccuracySec=`.
pub const DEFAULT_ACCURACY: u64 = 60 * MICROS_PER_SECOND as u64;

/// `DEFAULT_ACCURACY_USEC`: what sd-event takes an accuracy of 0 for.
const ZERO_ACCURACY: u64 = 250_000;

/// The steps the wake-up is aligned to, coarsest first.
const STEPS: [u64; 4] = [
    60 * MICROS_PER_SECOND as u64,
    10 * MICROS_PER_SECOND as u64,
    MICROS_PER_SECOND as u64,
    250_000,
];

/// The accuracy sd-event holds for `AccuracySec=` as written.
pub fn event_accuracy(accuracy: u64) -> u64 {
    if accuracy == 0 {
        ZERO_ACCURACY
    } else {
        accuracy
    }
}

/// `initialize_perturb()`: the boot's offset into every minute.
pub fn perturbation(boot_id: &[u8; 16]) -> u64 {
    let (low, high) = boot_id.split_at(8);
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    (word(low) ^ word(high)) % STEPS[0]
}

/// `sleep_between()`: when the manager wakes for a source due at `a` with
/// `accuracy` (as sd-event holds it), in Unix microseconds.
pub fn wake_up(a: u64, accuracy: u64, perturb: u64) -> u64 {
    // `usec_add()` stops at `USEC_INFINITY`.
    let b = a.saturating_add(accuracy);
    if a == 0 {
        return 0;
    }
    if a == u64::MAX {
        return u64::MAX;
    }
    if b <= a + 1 {
        return a;
    }
    for step in STEPS {
        let mut c = b / step * step + perturb % step;
        if c >= b {
            if c < step {
                return b;
            }
            c -= step;
        }
        if c >= a {
            return c;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: u64 = 60_000_000;

    #[test]
    fn the_wake_up_is_the_boots_point_in_the_latest_minute_it_can_be() {
        // 2024-02-26T00:00:00Z, a whole minute; the boot's point is 17 s in.
        let a = 1_708_905_600_000_000;
        let perturb = 17_000_000;
        assert_eq!(wake_up(a, MINUTE, perturb), a + perturb);
        // Ten minutes of slack: the last point before a + 10 min.
        assert_eq!(wake_up(a, 10 * MINUTE, perturb), a + 9 * MINUTE + perturb);
        // Five seconds end before the minute's point and the 10 s point
        // (7 s in): the last whole second before the end (0 s in).
        assert_eq!(wake_up(a, 5_000_000, perturb), a + 4_000_000);
        // 100 ms: no 250 ms point fits, so the end of the span.
        assert_eq!(wake_up(a + 1, 100_000, perturb), a + 100_001);
        assert_eq!(wake_up(a, 1, perturb), a);
        assert_eq!(wake_up(a, 0, perturb), a);
    }

    #[test]
    fn the_perturbation_xors_the_two_halves_of_the_boot_id() {
        let mut id = [0u8; 16];
        id[0] = 1;
        id[8] = 3;
        assert_eq!(perturbation(&id), 2);
        id[15] = 0x80;
        assert_eq!(perturbation(&id), ((1u64 << 63) | 2) % MINUTE);
    }
}
