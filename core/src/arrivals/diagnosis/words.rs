//! A diagnosis in the reader's words: the verdict, then each finding.

use super::{DailyCycle, Diagnosis, Dispersion, FanoGrowth};
use crate::arrivals::burst::PeriodicBurst;
use crate::units::{counted, duration, significant};

pub(super) fn sentences(diagnosis: &Diagnosis) -> Vec<String> {
    let mut out = vec![verdict(diagnosis)];
    out.push(match &diagnosis.burst {
        Some(burst) => burst_in_words(burst),
        None => "No periodic burst: no short window of the minute, 5 minutes, 15 minutes, hour or day (as many as the trace spans four of) holds twice the arrivals the rate would put there in most periods.".into(),
    });
    out.push(match &diagnosis.daily_cycle {
        Some(cycle) => cycle_in_words(cycle),
        None => "The trace spans less than 23 hours, too little to tell a daily cycle.".into(),
    });
    let taken_out = match diagnosis.burst {
        Some(_) => "the local rate and the burst",
        None => "the local rate",
    };
    if let Some(at) = &diagnosis.overdispersion {
        out.push(dispersion_in_words(
            at,
            diagnosis.overdispersed(),
            taken_out,
        ));
    }
    out.push(match &diagnosis.scaling {
        Some(scaling) => scaling_in_words(scaling, taken_out),
        None => "Too few bin widths fit between 1 s and a tenth of the rate's bins to tell self-similarity.".into(),
    });
    out
}

fn verdict(diagnosis: &Diagnosis) -> String {
    let Some(check) = diagnosis.rescaled else {
        return "Too few distinct arrivals to test whether they are Poisson.".into();
    };
    let per = per_width(diagnosis.rate_bin_s);
    let figures = format!(
        "KS D = {}, p {} over {}",
        significant(check.ks_statistic, 2),
        p_in_words(check.p_value),
        counted(check.gaps, "gap", "gaps")
    );
    let spread = match check.spread_within_s {
        s if s >= 1.0 => " (each arrival spread within its second first)",
        s if s > 0.0 => " (each arrival spread within its millisecond first)",
        _ => "",
    };
    let constant = format!(
        "at one constant rate the gaps would give D = {}, p {}",
        significant(check.constant_rate_ks_statistic, 2),
        p_in_words(check.constant_rate_p_value)
    );
    if diagnosis.poisson_at_own_rate() {
        let varying = if diagnosis.daily_cycle.is_some_and(|c| c.cycles) {
            "at a rate that varies over the day"
        } else {
            "at its own rate"
        };
        format!(
            "Consistent with Poisson {varying} (rate estimated per {per}): with time stretched by that rate the gaps pass for exponential{spread}; {figures}; {constant}."
        )
    } else {
        format!(
            "Not Poisson even at its own rate estimated per {per}: with time stretched by that rate, gaps this far from exponential would come by chance {}{spread}; {figures}; {constant}.",
            chance_in_words(check.p_value)
        )
    }
}

fn burst_in_words(burst: &PeriodicBurst) -> String {
    let period = period_name(burst.period_s);
    let length = burst.phase_end_s - burst.phase_start_s;
    let window = match burst.period_s {
        3_600.0 => format!(
            " ({}–{})",
            clock(burst.phase_start_s, false),
            clock(burst.phase_end_s, false)
        ),
        86_400.0 => format!(
            " ({}–{} UTC)",
            clock(burst.phase_start_s, true),
            clock(burst.phase_end_s, true)
        ),
        _ => String::new(),
    };
    let when = if burst.phase_start_s == 0.0 {
        format!(
            "in the first {} of every {period}{window}",
            duration(length)
        )
    } else {
        format!(
            "in the {} from {} into every {period}{window}",
            duration(length),
            duration(burst.phase_start_s)
        )
    };
    format!(
        "A burst every {period}: about {} extra arrivals {when}, seen in {} of {}, where the rate alone would put {}.",
        significant(burst.extra_per_period, 2),
        burst.periods_with_burst,
        match burst.period_s {
            300.0 | 900.0 => counted(burst.periods, "period", "periods"),
            _ => counted(burst.periods, &period, &format!("{period}s")),
        },
        significant(burst.expected_per_period, 2)
    )
}

fn cycle_in_words(cycle: &DailyCycle) -> String {
    let hours = format!(
        "busiest in hour {} (UTC) at {}, quietest in hour {} at {}",
        cycle.peak_hour,
        per_second(cycle.peak_per_s),
        cycle.trough_hour,
        per_second(cycle.trough_per_s)
    );
    if cycle.cycles {
        format!(
            "A daily cycle: the rate is {hours}; the hours differ more than chance allows (chi-square across the 24 hours, p {}).",
            p_in_words(cycle.p_value)
        )
    } else {
        format!(
            "No daily cycle: the hours of the day differ no more than chance allows (p {}; {hours}).",
            p_in_words(cycle.p_value)
        )
    }
}

fn dispersion_in_words(at: &Dispersion, overdispersed: bool, taken_out: &str) -> String {
    let width = per_width(at.width_s);
    if overdispersed {
        format!(
            "Overdispersed: counts per {width} vary {} times as much around {taken_out} as Poisson counts would (p {}).",
            significant(at.fano, 2),
            p_in_words(at.p_value)
        )
    } else {
        format!(
            "Counts per {width} vary around {taken_out} as Poisson counts do (Fano factor {}, p {}): not overdispersed.",
            significant(at.fano, 2),
            p_in_words(at.p_value)
        )
    }
}

fn scaling_in_words(scaling: &FanoGrowth, taken_out: &str) -> String {
    let fit = format!(
        "w^{}, {} to {},",
        significant(scaling.alpha, 2),
        significant(scaling.low, 2),
        significant(scaling.high, 2),
    );
    let (from, to) = (duration(scaling.from_s), duration(scaling.to_s));
    let (fano_from, fano_to) = (
        significant(scaling.fano_from, 2),
        significant(scaling.fano_to, 2),
    );
    if scaling.self_similar {
        format!(
            "Self-similar: around {taken_out}, the Fano factor grows as w^{} ({} to {}) from {from} to {to}, from {fano_from} to {fano_to}: bursts within bursts.",
            significant(scaling.alpha, 2),
            significant(scaling.low, 2),
            significant(scaling.high, 2)
        )
    } else if scaling.low > 0.0 && scaling.fano_to >= 2.0 * scaling.fano_from {
        format!(
            "No evidence of self-similarity: around {taken_out}, the Fano factor rises from {fano_from} at {from} to {fano_to} at {to} but levels off at the widest widths (w^{} there): bursts of one size, not bursts within bursts.",
            significant(scaling.tail_alpha, 2)
        )
    } else {
        format!(
            "No evidence of self-similarity: around {taken_out}, the Fano factor goes from {fano_from} at {from} to {fano_to} at {to} (fitted {fit} where self-similar traffic's would grow steadily to at least twice)."
        )
    }
}

/// "hour", "10 minutes", "day", "3 days".
fn per_width(seconds: f64) -> String {
    match seconds {
        1.0 => "second".into(),
        60.0 => "minute".into(),
        3_600.0 => "hour".into(),
        86_400.0 => "day".into(),
        s => duration(s)
            .replace(" min", " minutes")
            .replace(" s", " seconds")
            .replace(" h", " hours"),
    }
}

fn period_name(seconds: f64) -> String {
    match seconds {
        300.0 => "5 minutes".into(),
        900.0 => "15 minutes".into(),
        s => per_width(s),
    }
}

/// ":00:05" within an hour, "02:00:24" within a day.
fn clock(seconds: f64, with_hours: bool) -> String {
    let s = seconds.round() as u32;
    if with_hours {
        format!("{:02}:{:02}:{:02}", s / 3_600, s / 60 % 60, s % 60)
    } else {
        format!(":{:02}:{:02}", s / 60 % 60, s % 60)
    }
}

/// "0.52 /s (31 /min)".
fn per_second(rate: f64) -> String {
    format!(
        "{} /s ({} /min)",
        significant(rate, 2),
        significant(rate * 60.0, 2)
    )
}

fn p_in_words(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("= {}", significant(p, 2))
    }
}

fn chance_in_words(p: f64) -> String {
    if p < 1e-4 {
        "less than once in 10,000 traces".into()
    } else {
        format!("about once in {} traces", significant(1.0 / p, 2))
    }
}
