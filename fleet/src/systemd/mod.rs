//! systemd timers: a `.timer` unit's `OnCalendar=` elapses, delayed as
//! its manager delays them.
//!
//! Followed: `src/core/timer.c` at systemd-stable tag v252.31 (the code
//! Debian 12's 252.39 builds) for `RandomizedDelaySec=`,
//! `FixedRandomDelay=` and the next-elapse base, and systemd main at
//! commit `3f2189ca2544cce99c2aa7a35881007830dc221a` (261~devel) for
//! `RandomizedOffsetSec=`, which is newer (258). Main after that commit
//! also takes the offset off the last start before looking for the next
//! calendar time; the two differ only when offset and delay together
//! reach past it.
//!
//! - Fixed hash: SipHash-2-4 under the key `51 0a db 76 29 51 42 c2 80
//!   35 ea e6 8e 3a 37 bd` over the machine id (16 raw bytes), one byte 1
//!   for the system manager (0 for a user's), the manager's uid (4 bytes,
//!   little-endian; 0 for the system manager) and the unit name's bytes
//!   (no NUL). `MachineID=` gives the id; without it the hash uses 16 zero
//!   bytes, as systemd does when it cannot read `/etc/machine-id`. A
//!   line's timer runs under the system manager, and its ID is hashed as
//!   written, so it should be the unit's full name (`backup.timer`).
//! - Delay of each elapse: `hash % RandomizedDelaySec` with
//!   `FixedRandomDelay=yes`, else a fresh `random_u64() % RandomizedDelaySec`,
//!   drawn here from the seed (so the notice says the delays are random).
//! - Offset: `hash % RandomizedOffsetSec`, always the fixed hash.
//! - Accuracy (`wake`, [`accuracy`]): the manager starts the service at a
//!   point in `[elapse, elapse + AccuracySec=]` (1 min by default) set by
//!   the boot id. With `BootID=` a start is that point; without it `wake`
//!   is the elapse itself, the earliest the start can be, and
//!   [`SystemdTimer::start_window`] gives the span it falls in.
//! - Walk: each elapse is `next_calendar(base) + offset + delay`, and the
//!   base of the next is the time the service was started, delay and
//!   wake-up included (`last_trigger`): a delay longer than the gap to
//!   the next calendar time skips it. The timer only waits again once the
//!   service has stopped, so with `Duration=` a start is never before the
//!   previous one ends; an elapse that passed meanwhile starts the service
//!   at once.
//!
//! ```text
//! startₖ = max(wake(next(startₖ₋₁) + offset + delayₖ), startₖ₋₁ + duration)
//! start₁ = wake(next(from − 1 µs − delay₁ − offset) + offset + delay₁)
//! ```
//!
//! The first base is a convention: the timer is taken as started just
//! before the window, waiting with its first delay, so the first start is
//! the first calendar time whose delayed elapse falls in the window. The
//! walk then needs one calendar step per start. Results assume the local
//! zone UTC.

pub mod accuracy;
pub mod calendar;
pub mod elapse;
pub mod timespan;

use std::borrow::Cow;

use rand::Rng;
use siphasher::sip::SipHasher24;
use std::hash::Hasher;

use self::calendar::CalendarSpec;
use crate::line::{FleetLine, Refusal};
use crate::span_cache::SpanCache;
use crate::time::{MICROS_PER_SECOND, Window};
use stampede_core::rng::{Purpose, SeededRng, seeded};

/// The SipHash key `timer_get_fixed_delay_hash()` hashes under.
pub const FIXED_DELAY_KEY: [u8; 16] = [
    0x51, 0x0a, 0xdb, 0x76, 0x29, 0x51, 0x42, 0xc2, 0x80, 0x35, 0xea, 0xe6, 0x8e, 0x3a, 0x37, 0xbd,
];

/// The option keys a systemd line reads.
pub const OPTION_KEYS: [&str; 6] = [
    "RandomizedDelaySec",
    "FixedRandomDelay",
    "MachineID",
    "RandomizedOffsetSec",
    "AccuracySec",
    "BootID",
];

/// The stream family random delays are drawn from, one stream per line.
const DELAY_DRAWS: Purpose = Purpose::new("fleet.systemd.delay");

/// Which manager runs the timer, as the fixed hash includes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager {
    System,
    /// A user's manager, with the user's uid.
    User(u32),
}

/// `timer_get_fixed_delay_hash()`: the hash a fixed delay and an offset
/// are taken from.
pub fn fixed_delay_hash(machine_id: &[u8; 16], manager: Manager, unit: &str) -> u64 {
    let (system, uid) = match manager {
        Manager::System => (true, 0),
        Manager::User(uid) => (false, uid),
    };
    let mut hasher = SipHasher24::new_with_key(&FIXED_DELAY_KEY);
    hasher.write(machine_id);
    hasher.write(&[u8::from(system)]);
    hasher.write(&uid.to_le_bytes());
    hasher.write(unit.as_bytes());
    hasher.finish()
}

/// How each elapse is delayed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Delay {
    None,
    /// `FixedRandomDelay=yes`: the same delay every time.
    Fixed(u64),
    /// A fresh draw below `span` for every elapse, from the line's stream.
    Drawn {
        span: u64,
        seed: u64,
        line: u64,
    },
}

/// A systemd line: its calendar, delays, offset and run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemdTimer {
    pub calendar: CalendarSpec,
    delay: Delay,
    /// `RandomizedOffsetSec=`'s offset, in microseconds.
    offset: u64,
    /// `Duration=` in microseconds; 0 when not given.
    duration: u64,
    /// `AccuracySec=` in microseconds, as sd-event holds it.
    accuracy: u64,
    /// The boot's perturbation, from `BootID=`; `None` when not given.
    perturb: Option<u64>,
    /// For a timer whose delays are drawn, its calendar times over the
    /// span a draw can reach, shared by the timer redrawn under other
    /// seeds; `None` when there are more than [`MOST_CACHED_TIMES`].
    calendar_times: SpanCache<Option<Vec<i64>>>,
}

/// The most calendar times a timer keeps for its redraws (a week of
/// elapses every five minutes): the times of 10,000 such lines take
/// 160 MB at most, and a denser calendar is searched at every draw.
const MOST_CACHED_TIMES: usize = 2_016;

impl SystemdTimer {
    /// Reads a systemd line: the ID is the unit's name, the spec its
    /// `OnCalendar=` expression. `seed` draws the random delays.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let calendar = calendar::parse(&line.spec).map_err(|why| Refusal::new("spec", why))?;
        let span = |key: &str| match line.options.own(key) {
            None => Ok(0),
            Some(text) => timespan::parse_span(text).map_err(|why| Refusal::new(key, why)),
        };
        let delay_span = span("RandomizedDelaySec")?;
        let offset_span = span("RandomizedOffsetSec")?;
        let fixed = match line.options.own("FixedRandomDelay") {
            None => false,
            Some(text) => parse_boolean(text).ok_or_else(|| {
                Refusal::new(
                    "FixedRandomDelay",
                    format!(
                        "\"{}\" is not yes or no",
                        stampede_core::field::shorten(text)
                    ),
                )
            })?,
        };
        let machine_id = match line.options.own("MachineID") {
            None => [0; 16],
            Some(text) => parse_machine_id(text).ok_or_else(|| {
                Refusal::new(
                    "MachineID",
                    format!(
                        "\"{}\" is not 32 hexadecimal digits",
                        stampede_core::field::shorten(text)
                    ),
                )
            })?,
        };
        let perturb = match line.options.own("BootID") {
            None => None,
            Some(text) => {
                let id = parse_boot_id(text).ok_or_else(|| {
                    Refusal::new(
                        "BootID",
                        format!(
                            "\"{}\" is not 32 hexadecimal digits or the UUID /proc/sys/kernel/random/boot_id holds",
                            stampede_core::field::shorten(text)
                        ),
                    )
                })?;
                Some(accuracy::perturbation(&id))
            }
        };
        let accuracy = match line.options.own("AccuracySec") {
            None => accuracy::DEFAULT_ACCURACY,
            Some(_) => span("AccuracySec")?,
        };
        let hash = fixed_delay_hash(&machine_id, Manager::System, &line.id);
        let delay = match (delay_span, fixed) {
            (0, _) => Delay::None,
            (span, true) => Delay::Fixed(hash % span),
            (span, false) => Delay::Drawn {
                span,
                seed,
                line: line.line as u64,
            },
        };
        Ok(Self {
            calendar,
            delay,
            offset: if offset_span == 0 {
                0
            } else {
                hash % offset_span
            },
            duration: line
                .options
                .duration_seconds
                .map_or(0, |seconds| seconds * MICROS_PER_SECOND as u64),
            accuracy: accuracy::event_accuracy(accuracy),
            perturb,
            calendar_times: SpanCache::default(),
        })
    }

    /// Whether the delays are drawn at random, as a real machine draws them
    /// anew at every elapse.
    /// The timer with its random delays drawn from `seed` instead.
    pub fn redrawn(&self, seed: u64) -> Self {
        let mut timer = self.clone();
        if let Delay::Drawn { seed: drawn, .. } = &mut timer.delay {
            *drawn = seed;
        }
        timer
    }

    pub fn draws_at_random(&self) -> bool {
        matches!(self.delay, Delay::Drawn { .. })
    }

    /// The same delay at every elapse, when it is fixed (or none).
    pub fn fixed_delay(&self) -> Option<u64> {
        match self.delay {
            Delay::None => Some(0),
            Delay::Fixed(delay) => Some(delay),
            Delay::Drawn { .. } => None,
        }
    }

    /// The offset `RandomizedOffsetSec=` adds to every elapse.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The span `[start, start + accuracy]` a start at `start` falls in
    /// when no `BootID=` places it; `None` when the start is exact.
    pub fn start_window(&self, start: i64) -> Option<Window> {
        if self.perturb.is_some() || self.accuracy <= 1 {
            return None;
        }
        let accuracy = i64::try_from(self.accuracy).unwrap_or(i64::MAX);
        Some(Window {
            from: start,
            end: start.saturating_add(accuracy).saturating_add(1),
        })
    }

    /// When the manager wakes for an elapse: the boot's point in the
    /// accuracy window, or the elapse itself when the boot is not known.
    fn wake_up(&self, elapse: i64) -> i128 {
        match self.perturb {
            // Elapses are calendar times after 1970, plus delays.
            Some(perturb) => i128::from(accuracy::wake_up(elapse as u64, self.accuracy, perturb)),
            None => i128::from(elapse),
        }
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let mut draws: Option<SeededRng> = match self.delay {
            Delay::Drawn { seed, line, .. } => Some(seeded(seed, DELAY_DRAWS.indexed(line))),
            _ => None,
        };
        let mut next_delay = || match self.delay {
            Delay::None => 0,
            Delay::Fixed(delay) => delay,
            Delay::Drawn { span, .. } => draws.as_mut().map_or(0, |rng| rng.next_u64() % span),
        };
        // Sums in i128: a span may be as long as a u64 holds.
        let (offset, duration) = (i128::from(self.offset), i128::from(self.duration));
        let mut delay = next_delay();
        let base_at = |delay: u64| {
            let base = i128::from(window.from) - 1 - i128::from(delay) - offset;
            base.clamp(0, i128::from(i64::MAX)) as i64
        };
        let mut base = base_at(delay);
        let cached = match self.delay {
            Delay::Drawn { span, .. } => {
                let lowest = base_at(span - 1);
                self.calendar_times.get((lowest, window.end), || {
                    self.calendar_times(lowest, window.end)
                })
            }
            _ => Cow::Owned(None),
        };
        // The first calendar time after `base`; from the cached times
        // when there are any, which hold every time before the window's
        // end that a draw can reach.
        let next_elapse = |base: i64| match cached.as_deref() {
            Some(times) => times
                .get(times.partition_point(|&time| time <= base))
                .copied(),
            None => self.calendar.next_elapse(base),
        };
        let mut running_until = i128::MIN;
        let end = i128::from(window.end);
        while let Some(calendar_time) = next_elapse(base) {
            let elapse = i128::from(calendar_time) + offset + i128::from(delay);
            if elapse >= end {
                return false;
            }
            // An elapse that passed while the service ran starts it at once.
            let start = self.wake_up(elapse as i64).max(running_until);
            if start >= end {
                return false;
            }
            if out.len() >= most {
                return true;
            }
            out.push(start as i64);
            base = start as i64;
            running_until = start + duration;
            delay = next_delay();
        }
        false
    }
}

impl SystemdTimer {
    /// The calendar times in `(after, end)`, or `None` past
    /// [`MOST_CACHED_TIMES`].
    fn calendar_times(&self, after: i64, end: i64) -> Option<Vec<i64>> {
        let mut times = Vec::new();
        let mut base = after;
        while let Some(time) = self.calendar.next_elapse(base).filter(|&time| time < end) {
            if times.len() == MOST_CACHED_TIMES {
                return None;
            }
            times.push(time);
            base = time;
        }
        Some(times)
    }
}

/// `parse_boolean()`: yes/no and their synonyms, in any case.
fn parse_boolean(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "1" | "yes" | "y" | "true" | "t" | "on" => Some(true),
        "0" | "no" | "n" | "false" | "f" | "off" => Some(false),
        _ => None,
    }
}

/// A boot id: 32 hexadecimal digits, or the dashed UUID
/// `/proc/sys/kernel/random/boot_id` holds.
fn parse_boot_id(text: &str) -> Option<[u8; 16]> {
    let dashed = text.len() == 36
        && text
            .char_indices()
            .all(|(at, c)| (c == '-') == [8, 13, 18, 23].contains(&at));
    if dashed {
        parse_machine_id(&text.replace('-', ""))
    } else {
        parse_machine_id(text)
    }
}

/// 32 hexadecimal digits, in either case, as `/etc/machine-id` holds them.
fn parse_machine_id(text: &str) -> Option<[u8; 16]> {
    let bytes = text.as_bytes();
    if bytes.len() != 32 || !bytes.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut id = [0u8; 16];
    for (byte, pair) in id.iter_mut().zip(bytes.chunks(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(id)
}
