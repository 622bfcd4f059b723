//! The workers, and the autoscaler that changes how many are ready.
//!
//! Without an autoscaler the run keeps its W workers throughout. With one,
//! the rule on [`Autoscaler`] decides at each check:
//! workers it orders join when their boot delay is over, and workers it
//! removes leave at once, which the rule only asks for while they are idle.

use std::collections::VecDeque;

use super::event::{NEVER, time_of};
use super::{Autoscaler, SimParams};
use crate::scheduler::{MinHeap, micros_of_whole};

/// The ready workers, the finish keys of the busy ones, and the
/// autoscaler, if any.
pub(super) struct Workers {
    /// Jobs start only while fewer than this are busy.
    ready: usize,
    busy: MinHeap<u64>,
    /// The most busy at once so far.
    most_busy: usize,
    scaler: Option<Scaler>,
}

impl Workers {
    pub(super) fn new(params: &SimParams) -> Self {
        let most = params
            .autoscaler
            .map_or(params.workers, |config| config.max_workers);
        Self {
            ready: params.workers as usize,
            busy: MinHeap::with_capacity(most as usize),
            most_busy: 0,
            scaler: params
                .autoscaler
                .map(|config| Scaler::new(config, params.workers)),
        }
    }

    pub(super) fn ready(&self) -> usize {
        self.ready
    }

    pub(super) fn busy(&self) -> usize {
        self.busy.len()
    }

    pub(super) fn most_busy(&self) -> usize {
        self.most_busy
    }

    pub(super) fn has_idle(&self) -> bool {
        self.busy.len() < self.ready
    }

    /// When the next busy worker finishes.
    pub(super) fn next_finish(&self) -> u64 {
        self.busy.peek().map_or(NEVER, |&key| time_of(key))
    }

    /// When ordered workers next become ready, and when the autoscaler next
    /// checks.
    pub(super) fn next_scaling(&self) -> (u64, u64) {
        self.scaler.as_ref().map_or((NEVER, NEVER), |scaler| {
            (scaler.next_ready(), scaler.next_check)
        })
    }

    /// Puts an idle worker to work until the event of `finish_key`.
    pub(super) fn start(&mut self, finish_key: u64) {
        self.busy.push(finish_key);
        self.most_busy = self.most_busy.max(self.busy.len());
    }

    /// Frees the worker that finishes first and returns its finish key.
    pub(super) fn finish(&mut self) -> Option<u64> {
        self.busy.pop()
    }

    /// Adds the earliest order of workers to the ready ones; false when
    /// none was booting.
    pub(super) fn join_booted(&mut self) -> bool {
        let Some(count) = self.scaler.as_mut().and_then(Scaler::join_next) else {
            return false;
        };
        self.ready += count as usize;
        true
    }

    /// The autoscaler's check at `now` with `waiting` jobs queued.
    pub(super) fn check(&mut self, now: u64, waiting: usize) {
        let (busy, waiting) = (self.busy.len() as u32, waiting as u32);
        if let Some(keep) = self
            .scaler
            .as_mut()
            .and_then(|s| s.check(now, busy, waiting))
        {
            self.ready = keep as usize;
        }
    }
}

/// The autoscaler and what it has decided so far.
struct Scaler {
    config: Autoscaler,
    check_us: u64,
    next_check: u64,
    /// Ready workers plus those booting.
    provisioned: u32,
    /// Orders of workers: when they are ready, and how many. The boot
    /// delay is the same for all, so this FIFO is sorted.
    booting: VecDeque<(u64, u32)>,
    /// Since when desired has stayed below `provisioned`.
    low_since: Option<u64>,
}

impl Scaler {
    fn new(config: Autoscaler, workers: u32) -> Self {
        let check_us = micros_of_whole(config.check_seconds);
        Self {
            config,
            check_us,
            next_check: check_us,
            provisioned: workers,
            booting: VecDeque::new(),
            low_since: None,
        }
    }

    fn next_ready(&self) -> u64 {
        self.booting.front().map_or(NEVER, |&(ready, _)| ready)
    }

    /// How many workers the earliest order brings, now that they are ready.
    fn join_next(&mut self) -> Option<u32> {
        self.booting.pop_front().map(|(_, count)| count)
    }

    /// The check at `now`: orders workers, or returns how many ready
    /// workers to keep when it removes some.
    fn check(&mut self, now: u64, busy: u32, waiting: u32) -> Option<u32> {
        let Autoscaler {
            target_depth_per_worker,
            up_delay_seconds,
            down_delay_seconds,
            min_workers,
            max_workers,
            ..
        } = self.config;
        self.next_check = now + self.check_us;
        let desired = busy
            .saturating_add(waiting.div_ceil(target_depth_per_worker))
            .clamp(min_workers, max_workers);
        if desired > self.provisioned {
            let ready = now + micros_of_whole(up_delay_seconds);
            self.booting.push_back((ready, desired - self.provisioned));
            self.provisioned = desired;
            self.low_since = None;
            return None;
        }
        if desired == self.provisioned {
            self.low_since = None;
            return None;
        }
        let since = *self.low_since.get_or_insert(now);
        if self.booting.is_empty() && now - since >= micros_of_whole(down_delay_seconds) {
            self.provisioned = desired;
            self.low_since = None;
            return Some(desired);
        }
        None
    }
}
