//! The rate a trace's arrivals come at, estimated from the trace itself:
//! counts over bins of one width (a minute, 10 minutes, an hour or a day,
//! the finest that holds enough arrivals), each bin's rate placed at its
//! middle and joined by straight lines, so a rate that climbs through the
//! morning is followed within the hour rather than as a staircase.

/// Widths the rate may be estimated over, finest first, in seconds.
const RATE_WIDTHS: [f64; 4] = [60.0, 600.0, 3_600.0, 86_400.0];
/// The fewest arrivals an average bin must hold.
const FEWEST_PER_BIN: f64 = 100.0;

/// A rate estimated per bin: bins cover the trace from its first arrival
/// to its last, times in seconds since midnight UTC of the first's day.
pub(super) struct Rate {
    pub width_s: f64,
    starts: Vec<f64>,
    ends: Vec<f64>,
    rates: Vec<f64>,
    middles: Vec<f64>,
    /// The cumulative rate at each middle.
    at_middles: Vec<f64>,
}

impl Rate {
    /// The rate of `times` (ascending, spanning more than 0 s).
    pub fn estimate(times: &[f64]) -> Rate {
        let (first, last) = (times[0], times[times.len() - 1]);
        let n = times.len() as f64;
        // A bin's rate comes from its own arrivals, so its gaps come out a
        // little short of exponential, by about 0.3 / (arrivals in the bin)
        // in KS distance; 2√n arrivals a bin keep that under a fifth of
        // what the test can see.
        let fewest = FEWEST_PER_BIN.max(2.0 * n.sqrt());
        let per_second = n / (last - first);
        let width_s = RATE_WIDTHS
            .into_iter()
            .find(|width| per_second * width >= fewest)
            .unwrap_or_else(|| 86_400.0 * (fewest / (per_second * 86_400.0)).ceil());
        let mut bins: Vec<(f64, f64, u64)> = Vec::new();
        for &at in times {
            let start = (at / width_s).floor() * width_s;
            match bins.last_mut() {
                Some(bin) if bin.0 == start.max(first) => bin.2 += 1,
                _ => {
                    // Bins with no arrival still count their time.
                    let mut next = bins.last().map_or(start, |bin| bin.1);
                    while next < start {
                        bins.push((next, next + width_s, 0));
                        next += width_s;
                    }
                    bins.push((start.max(first), start + width_s, 1));
                }
            }
        }
        if let Some(bin) = bins.last_mut() {
            bin.1 = last;
        }
        // A sliver of a bin at either end would give a wild rate: it joins
        // its neighbour.
        if bins.len() > 2 && bins[0].1 - bins[0].0 < width_s / 2.0 {
            let sliver = bins.remove(0);
            bins[0].0 = sliver.0;
            bins[0].2 += sliver.2;
        }
        let end = bins.len() - 1;
        if bins.len() > 2 && bins[end].1 - bins[end].0 < width_s / 2.0 {
            let sliver = bins.remove(end);
            bins[end - 1].1 = sliver.1;
            bins[end - 1].2 += sliver.2;
        }
        let starts: Vec<f64> = bins.iter().map(|bin| bin.0).collect();
        let ends: Vec<f64> = bins.iter().map(|bin| bin.1).collect();
        let rates: Vec<f64> = bins
            .iter()
            .map(|&(start, end, count)| count as f64 / (end - start).max(f64::MIN_POSITIVE))
            .collect();
        let middles: Vec<f64> = bins.iter().map(|bin| (bin.0 + bin.1) / 2.0).collect();
        let mut at_middles = vec![0.0; bins.len()];
        for j in 1..bins.len() {
            at_middles[j] =
                at_middles[j - 1] + (rates[j - 1] + rates[j]) / 2.0 * (middles[j] - middles[j - 1]);
        }
        Rate {
            width_s,
            starts,
            ends,
            rates,
            middles,
            at_middles,
        }
    }

    /// The rate at `t`, per second.
    pub fn at(&self, t: f64) -> f64 {
        let j = self.middles.partition_point(|&middle| middle <= t);
        match j {
            0 => self.rates[0],
            j if j == self.rates.len() => self.rates[j - 1],
            j => {
                let share = (t - self.middles[j - 1]) / (self.middles[j] - self.middles[j - 1]);
                self.rates[j - 1] + share * (self.rates[j] - self.rates[j - 1])
            }
        }
    }

    /// Each bin as (start, end, its own rate), for folding.
    pub fn bins(&self) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        (0..self.rates.len()).map(|j| (self.starts[j], self.ends[j], self.rates[j]))
    }

    /// A reader of the cumulative rate at times that mostly ascend.
    pub fn cumulative(&self) -> Cumulative<'_> {
        Cumulative { rate: self, j: 0 }
    }
}

/// The expected arrivals from a fixed origin to a time (the integral of
/// the rate), read with a cursor so ascending times cost O(1) each.
pub(super) struct Cumulative<'a> {
    rate: &'a Rate,
    j: usize,
}

impl Cumulative<'_> {
    pub fn at(&mut self, t: f64) -> f64 {
        let Rate {
            middles,
            rates,
            at_middles,
            ..
        } = self.rate;
        while self.j + 1 < middles.len() && t >= middles[self.j + 1] {
            self.j += 1;
        }
        while self.j > 0 && t < middles[self.j] {
            self.j -= 1;
        }
        let j = self.j;
        let dt = t - middles[j];
        if dt < 0.0 || j + 1 == middles.len() {
            // Beyond the outer middles the rate stays level.
            return at_middles[j] + rates[j] * dt;
        }
        let slope = (rates[j + 1] - rates[j]) / (middles[j + 1] - middles[j]);
        at_middles[j] + rates[j] * dt + slope * dt * dt / 2.0
    }
}
