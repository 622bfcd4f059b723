//! The queue of calls the interacting simulation takes in time order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Calls waiting to be made, taken in time order, second by second: the
/// calls of the next [`NEAR_SECONDS`] seconds in one bucket per second, each
/// sorted when its second comes, later ones in a heap. A call is keyed by
/// the bits of its time, which for times from +0 on order as the times do,
/// and then its client, so that of calls at one instant client 0 comes
/// first. It takes only calls no earlier than the last one taken, as
/// retries are.
pub(super) struct CallQueue {
    /// The second whose calls are being taken, once `open`, or the first
    /// second the buckets can hold.
    second: u64,
    open: bool,
    /// The open second's calls, sorted latest first.
    current: Vec<(u64, u32)>,
    /// Calls made into the open second after it was sorted.
    late: BinaryHeap<Reverse<(u64, u32)>>,
    /// Second s's calls in bucket s mod [`NEAR_SECONDS`], for the seconds
    /// after the open one and before it + [`NEAR_SECONDS`].
    near: Vec<Vec<(u64, u32)>>,
    near_calls: usize,
    far: BinaryHeap<Reverse<(u64, u32)>>,
}

/// Seconds ahead whose calls a [`CallQueue`] keeps in buckets.
const NEAR_SECONDS: u64 = 1024;

impl CallQueue {
    pub(super) fn new() -> Self {
        Self {
            second: 0,
            open: false,
            current: Vec::new(),
            late: BinaryHeap::new(),
            near: (0..NEAR_SECONDS).map(|_| Vec::new()).collect(),
            near_calls: 0,
            far: BinaryHeap::new(),
        }
    }

    fn bucket(second: u64) -> usize {
        (second % NEAR_SECONDS) as usize
    }

    /// Client `client` calls at `at`, no earlier than the last call taken.
    pub(super) fn push(&mut self, at: f64, client: u32) {
        let key = (at.to_bits(), client);
        let second = at as u64;
        if self.open && second == self.second {
            self.late.push(Reverse(key));
        } else if second < self.second + NEAR_SECONDS {
            self.near[Self::bucket(second)].push(key);
            self.near_calls += 1;
        } else {
            self.far.push(Reverse(key));
        }
    }

    /// The earliest call and its client.
    pub(super) fn pop(&mut self) -> Option<(f64, u32)> {
        loop {
            let sorted = self.current.last().copied();
            let late = self.late.peek().map(|&Reverse(key)| key);
            let key = match (sorted, late) {
                (Some(sorted), Some(late)) if late < sorted => self.late.pop().map(|key| key.0),
                (Some(_), _) => self.current.pop(),
                (None, Some(_)) => self.late.pop().map(|key| key.0),
                (None, None) if self.next_second() => continue,
                (None, None) => None,
            };
            return key.map(|(bits, client)| (f64::from_bits(bits), client));
        }
    }

    /// Opens the next second with calls; false when there is none.
    fn next_second(&mut self) -> bool {
        let first = self.second + u64::from(self.open);
        let next = if self.near_calls > 0 {
            (first..first + NEAR_SECONDS)
                .find(|&second| !self.near[Self::bucket(second)].is_empty())
        } else {
            self.far
                .peek()
                .map(|&Reverse((bits, _))| f64::from_bits(bits) as u64)
        };
        let Some(next) = next else {
            return false;
        };
        (self.second, self.open) = (next, true);
        while let Some(&Reverse((bits, client))) = self.far.peek() {
            let second = f64::from_bits(bits) as u64;
            if second >= next + NEAR_SECONDS {
                break;
            }
            self.far.pop();
            self.near[Self::bucket(second)].push((bits, client));
            self.near_calls += 1;
        }
        std::mem::swap(&mut self.current, &mut self.near[Self::bucket(next)]);
        self.near_calls -= self.current.len();
        self.current.sort_unstable_by(|a, b| b.cmp(a));
        true
    }
}
