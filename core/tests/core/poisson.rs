use stampede_core::field::{FieldValue, PanelParams};
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::poisson::key_numbers;
use stampede_core::poisson::{
    BucketPolicy, ExtraTenants, PoissonParams, PoissonRun, WindowPolicy, run,
};
use stampede_core::stats::{bin_index, ks_p_value, ks_statistic, quantile_sorted};

fn params(per_day: u32, window: (f64, f64), policy: WindowPolicy) -> PoissonParams {
    PoissonParams {
        per_day,
        window_start: window.0,
        window_end: window.1,
        policy,
        ..Default::default()
    }
}

fn all_day(per_day: u32) -> PoissonParams {
    params(per_day, (0.0, 24.0), WindowPolicy::Scale)
}

/// The run's gaps, shortest first.
fn sorted_gaps(result: &PoissonRun) -> Vec<f64> {
    let mut gaps: Vec<f64> = result.run_times.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_unstable_by(f64::total_cmp);
    gaps
}

#[test]
fn the_mean_gap_of_a_million_events_is_within_one_percent_of_one_over_lambda() {
    let result = run(&all_day(1_000_000), 7).unwrap();
    let mean_gap = result.mean_gap.unwrap();
    let span = result.run_times.last().unwrap() - result.run_times[0];
    assert!((mean_gap * result.gap_count as f64 / span - 1.0).abs() < 1e-9);
    let expected = 86_400.0 / 1_000_000.0;
    // The standard error of the mean of 10^6 exponential gaps is 0.1 % of
    // the mean, so 1 % is ten standard errors.
    assert!(
        (mean_gap / expected - 1.0).abs() < 0.01,
        "{mean_gap} vs {expected}"
    );
    // The count itself is Poisson(10^6): sd 1,000.
    assert!((result.run_times.len() as f64 - 1e6).abs() < 5_000.0);
}

#[test]
fn gap_quantiles_match_ln2_ln20_ln100_over_lambda() {
    let result = run(&all_day(1_000_000), 8).unwrap();
    for quantile in result.gap_quantiles {
        // With 10^6 gaps the sample quantiles sit within about 0.5 % of theory.
        let error = quantile.measured / quantile.theory - 1.0;
        assert!(error.abs() < 0.02, "p{}: {quantile:?}", quantile.p);
    }
    assert_eq!(
        result.gap_quantiles[0].theory,
        2f64.ln() / result.rate_per_second
    );
}

#[test]
fn gaps_pass_a_kolmogorov_smirnov_test_for_the_exponential() {
    let result = run(&all_day(100_000), 9).unwrap();
    let gaps = sorted_gaps(&result);
    let rate = result.rate_per_second;
    let d = ks_statistic(&gaps, |x| 1.0 - (-rate * x).exp());
    assert!(ks_p_value(d, gaps.len()) > 0.01, "D = {d}");
    // The same gaps against a rate 5 % off fail clearly: the test can fail.
    let wrong = ks_statistic(&gaps, |x| 1.0 - (-1.05 * rate * x).exp());
    assert!(ks_p_value(wrong, gaps.len()) < 1e-6, "D = {wrong}");
}

#[test]
fn defer_bursts_at_the_window_opening_and_scale_does_not() {
    let office = (9.0, 17.0);
    let deferred = run(&params(3_000, office, WindowPolicy::Defer), 10).unwrap();
    let hours = deferred.per_hour[0];
    // Two thirds of the day lies outside the window: about 2,000 events wait
    // for 09:00 (binomial sd ≈ 26, so ±120 is over four sd).
    assert!(
        (f64::from(deferred.deferred) - 2_000.0).abs() < 120.0,
        "{}",
        deferred.deferred
    );
    assert!(hours[9] > 2_000 && hours[10] < 200, "{hours:?}");
    assert!(
        hours
            .iter()
            .enumerate()
            .all(|(h, &c)| (9..17).contains(&h) || c == 0)
    );
    // The first day's 09:00 takes what was drawn from 00:00 to 09:00:
    // Binomial(3,000, 9/24), mean 1,125, sd 27; the evening's events wait
    // for the second day's 09:00.
    let (start, count) = deferred.busiest_minute.unwrap();
    assert_eq!(start, 9.0 * 3600.0);
    assert!((1_015..1_235).contains(&count), "{count}");
    // The average wait of an event drawn uniformly in the 16 closed hours is 8 h.
    let mean_wait = deferred.deferred_wait / f64::from(deferred.deferred);
    assert!((mean_wait / 3600.0 - 8.0).abs() < 0.5, "{mean_wait}");

    let scaled = run(&params(3_000, office, WindowPolicy::Scale), 10).unwrap();
    let hours = scaled.per_hour[0];
    assert_eq!(scaled.deferred, 0);
    // 375 an hour in the window, Poisson sd ≈ 19: no hour reaches 480.
    assert!(
        hours[9..17].iter().all(|&c| (270..480).contains(&c)),
        "{hours:?}"
    );
    assert!(
        hours
            .iter()
            .enumerate()
            .all(|(h, &c)| (9..17).contains(&h) || c == 0)
    );
}

#[test]
fn windows_follow_local_time_and_wrap_past_midnight() {
    let night = PoissonParams {
        utc_offset: 2.0,
        ..params(2_000, (22.0, 6.0), WindowPolicy::Scale)
    };
    let result = run(&night, 11).unwrap();
    for &time in &result.run_times {
        let local_hour = ((time + 7_200.0).rem_euclid(86_400.0) / 3600.0) as u32;
        assert!(
            !(6..22).contains(&local_hour),
            "{time} is local hour {local_hour}"
        );
    }
    // UTC hours 20..=23 and 0..=3.
    let utc_hour = |t: f64| (t.rem_euclid(86_400.0) / 3600.0) as u32;
    assert!(
        result
            .run_times
            .iter()
            .all(|&t| !(4..20).contains(&utc_hour(t)))
    );
}

#[test]
fn tenants_merge_into_one_ordered_stream() {
    let mut two = all_day(500);
    two.set("t", "2000@9-17");
    let result = run(&two, 12).unwrap();
    assert!(result.run_times.windows(2).all(|w| w[0] <= w[1]));
    let per_tenant: Vec<u32> = result.per_hour.iter().map(|h| h.iter().sum()).collect();
    assert_eq!(
        per_tenant.iter().sum::<u32>() as usize,
        result.run_times.len()
    );
    assert!(per_tenant[1] > per_tenant[0] * 3, "{per_tenant:?}");
    assert_eq!(
        result.rate_per_second,
        500.0 / 86_400.0 + 2_000.0 / 28_800.0
    );
    // The first tenant's draws do not depend on the second tenant.
    let alone = run(&all_day(500), 12).unwrap();
    assert_eq!(alone.per_hour[0], result.per_hour[0]);
}

#[test]
fn tenant_lists_parse_and_print_back() {
    let field = PoissonParams::FIELDS[6];
    let (tenants, _) = ExtraTenants::parse(" 1000@22-6 , 50,7@9.5-17.25", &field).unwrap();
    assert_eq!(tenants.encode(), "1000@22-6,50,7@9.5-17.25");
    assert_eq!(
        ExtraTenants::parse("", &field).unwrap().0,
        ExtraTenants::default()
    );
    for bad in ["abc", "0@1-2", "5@25-3", "5@3", "5@-", "1,2,3,4,5,6,7,8,9"] {
        assert!(ExtraTenants::parse(bad, &field).is_err(), "{bad}");
    }
}

fn bucket_run(capacity: u32, refill: f64, policy: BucketPolicy) -> PoissonRun {
    let params = PoissonParams {
        bucket_capacity: capacity,
        bucket_refill: refill,
        bucket_policy: policy,
        ..all_day(14_400)
    };
    run(&params, 13).unwrap()
}

#[test]
fn a_token_bucket_drops_or_delays_what_exceeds_its_rate() {
    // 10 events a minute arrive; the bucket passes 1 a minute on average.
    let dropped = bucket_run(5, 1.0 / 60.0, BucketPolicy::Drop);
    let outcome = dropped.bucket.clone().unwrap();
    let total = outcome.accepted + outcome.rejected + outcome.delayed;
    assert!((f64::from(total) - 14_400.0).abs() < 500.0);
    assert_eq!(outcome.delayed, 0);
    // At most capacity + one a minute for 1,440 minutes get through.
    assert!(
        outcome.accepted <= 5 + 1_440 && outcome.accepted > 1_380,
        "{outcome:?}"
    );
    assert_eq!(dropped.run_times.len() as u32, outcome.accepted);

    let waited = bucket_run(5, 1.0 / 60.0, BucketPolicy::Wait);
    let outcome = waited.bucket.clone().unwrap();
    assert_eq!(outcome.rejected, 0);
    assert!(outcome.delayed > 10_000, "{outcome:?}");
    // Once the bucket is empty, events leave one a minute, in order.
    assert!(waited.run_times.windows(2).all(|w| w[0] <= w[1]));
    let tail = &waited.run_times[waited.run_times.len() - 100..];
    assert!(tail.windows(2).all(|w| (w[1] - w[0] - 60.0).abs() < 1e-6));
    // 14,400 arrive in the day and 1,440 leave: the last waits about 9 days.
    assert!(
        (outcome.max_delay / 86_400.0 - 9.0).abs() < 0.5,
        "{outcome:?}"
    );
}

#[test]
fn bad_input_is_refused_by_name_without_panicking() {
    let mut bad = all_day(300);
    bad.utc_offset = f64::NAN;
    assert_eq!(run(&bad, 1).unwrap_err().field, "UTC offset");
    let mut huge = all_day(1_000_000);
    huge.days = 30;
    assert!(run(&huge, 1).is_err());
    let params = PoissonParams {
        bucket_capacity: 3,
        bucket_refill: -1.0,
        ..all_day(10)
    };
    assert_eq!(run(&params, 1).unwrap_err().field, "bucket refill");
}

#[test]
fn a_seed_draws_the_same_schedule_every_time() {
    let first = run(&PoissonParams::default(), 42).unwrap();
    assert_eq!(first, run(&PoissonParams::default(), 42).unwrap());
    assert_ne!(
        first.run_times,
        run(&PoissonParams::default(), 43).unwrap().run_times
    );
    let p50 = quantile_sorted(&sorted_gaps(&first), 0.5).unwrap();
    assert_eq!(p50, first.gap_quantiles[0].measured);
}

fn number<'a>(numbers: &'a [KeyNumber], key: &str) -> &'a KeyNumber {
    numbers
        .iter()
        .find(|n| n.key == key)
        .unwrap_or_else(|| panic!("no key number {key} in {numbers:?}"))
}

#[test]
fn key_numbers_put_the_theory_beside_the_measured_gaps() {
    let params = all_day(300);
    let result = run(&params, 1).unwrap();
    let numbers = key_numbers(&params, &result);
    assert_eq!(number(&numbers, "rate").value, "12.5 /h");
    let median = number(&numbers, "median-gap");
    assert_eq!(median.theory.as_deref(), Some("ln 2 / λ = 3 min 20 s"));
    assert_eq!(
        median.value,
        stampede_core::units::duration(result.gap_quantiles[0].measured)
    );
    assert_eq!(
        number(&numbers, "p95-gap").theory.as_deref(),
        Some("ln 20 / λ = 14 min 23 s")
    );
    assert!(
        numbers
            .iter()
            .all(|n| n.key != "deferred" && n.key != "bucket")
    );
}

#[test]
fn deferring_runs_everything_drawn_before_nine_at_nine() {
    let params = params(3000, (9.0, 17.0), WindowPolicy::Defer);
    let result = run(&params, 3).unwrap();
    let nine = 9 * 60;
    let (at, burst) = result.busiest_minute.unwrap();
    assert_eq!(at, f64::from(nine * 60));
    assert_eq!(result.first_day_per_minute[nine as usize], burst);
    // 3,000 × 9/24 = 1,125 expected, Poisson sd ≈ 34: five sd either way.
    assert!((burst as f64 - 1125.0).abs() < 170.0, "{burst}");
    let numbers = key_numbers(&params, &result);
    assert_eq!(
        number(&numbers, "busiest-minute").value,
        format!("{} at 09:00", stampede_core::units::count(u64::from(burst)))
    );
    assert_eq!(
        number(&numbers, "deferred").theory.as_deref(),
        Some("Σ N × days × (1 − window / day) = 2,000")
    );
}

#[test]
fn the_gap_histogram_holds_every_gap_and_the_curve_its_expected_counts() {
    let result = run(&all_day(10_000), 5).unwrap();
    let histogram = &result.gap_histogram;
    let binned: u32 = histogram.counts.iter().sum();
    assert_eq!((binned + histogram.beyond) as usize, result.gap_count);
    // The curve at 0 is n · bin · λ: the count the first bin should hold.
    let lambda = 10_000.0 / 86_400.0;
    let first = result.gap_count as f64 * histogram.bin_seconds * lambda;
    assert!((histogram.expected[0].1 - first).abs() < 1e-9);
    // The first bin holds n · (1 − e^(−λ·bin)) on average, a little less
    // than the curve's value at 0; 10 % covers it and the noise (sd ≈ 2 %).
    let measured = f64::from(histogram.counts[0]);
    assert!(
        (measured / first - 1.0).abs() < 0.1,
        "{measured} vs {first}"
    );
    let day: u32 = result.first_day_per_minute.iter().sum();
    assert_eq!(day as usize, result.run_times.len());
}

#[test]
fn a_bucket_slower_than_the_stream_drops_about_one_minus_r_over_lambda() {
    let params = PoissonParams {
        per_day: 100_000,
        bucket_capacity: 60,
        bucket_refill: 1.0,
        ..Default::default()
    };
    let result = run(&params, 9).unwrap();
    let bucket = result.bucket.clone().unwrap();
    let offered = f64::from(bucket.accepted + bucket.rejected);
    let share = f64::from(bucket.rejected) / offered;
    // 1 − 0.864 = 13.6 %; a day of 10^5 events pins it to a few tenths.
    assert!((share - 0.136).abs() < 0.01, "{share}");
    let numbers = key_numbers(&params, &result);
    assert_eq!(
        number(&numbers, "bucket").theory.as_deref(),
        Some("λ > r: about 1 − r / λ = 14 % find no token")
    );
}

/// The counts of a run, made again by looking at every event: per local
/// hour, per local minute of the first day, and the busiest minute.
fn counted_event_by_event(
    run: &PoissonRun,
    offset: f64,
) -> (Vec<u32>, Vec<u32>, Option<(f64, u32)>) {
    let mut per_hour = vec![0u32; 24];
    let mut per_minute = vec![0u32; 1440];
    let mut minutes: Vec<(f64, u32)> = Vec::new();
    for &time in &run.run_times {
        let second = (time + offset).rem_euclid(86_400.0);
        per_hour[((second / 3600.0) as usize).min(23)] += 1;
        let minute = bin_index(second, 0.0, 60.0);
        if time < 86_400.0 && (0.0..1440.0).contains(&minute) {
            per_minute[minute as usize] += 1;
        }
        let run_minute = (time / 60.0).floor();
        match minutes.last_mut() {
            Some((held, count)) if *held == run_minute => *count += 1,
            _ => minutes.push((run_minute, 1)),
        }
    }
    let mut busiest: Option<(f64, u32)> = None;
    for (minute, count) in minutes {
        if busiest.is_none_or(|(_, most)| count > most) {
            busiest = Some((minute * 60.0, count));
        }
    }
    (per_hour, per_minute, busiest)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Counting by runs of events in time order gives what looking at
    /// every event gives, over sparse and dense days, windows that wrap
    /// midnight, offsets of any fraction of an hour and several days.
    #[test]
    fn counts_by_runs_equal_counts_event_by_event(
        per_day in proptest::prop_oneof![1u32..8, 8u32..3_000],
        start in 0.0f64..24.0,
        end in 0.0f64..24.0,
        defer in proptest::bool::ANY,
        utc_offset in -24.0f64..24.0,
        days in 1u32..4,
        seed in 0u64..1_000,
    ) {
        let policy = if defer { WindowPolicy::Defer } else { WindowPolicy::Scale };
        let run_params = PoissonParams {
            utc_offset,
            days,
            ..params(per_day, (start, end), policy)
        };
        let result = run(&run_params, seed).unwrap();
        let (per_hour, per_minute, busiest) = counted_event_by_event(&result, utc_offset * 3600.0);
        proptest::prop_assert_eq!(result.per_hour[0].to_vec(), per_hour);
        proptest::prop_assert_eq!(&result.first_day_per_minute, &per_minute);
        proptest::prop_assert_eq!(result.busiest_minute, busiest);
    }
}
