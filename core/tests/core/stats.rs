use proptest::prelude::*;
use stampede_core::stats::{
    BinsFromZero, TwoPassQuantiles, bin_index, bin_index_by_reciprocal, chi_square_p_value,
    histogram, ks_p_value, ks_statistic, max_per_group, place_order_statistics, quantile_sorted,
    quantiles_unsorted,
};

#[test]
fn quantile_interpolates_between_order_statistics() {
    let values = [1.0, 2.0, 4.0, 8.0, 16.0];
    assert_eq!(quantile_sorted(&values, 0.0), Some(1.0));
    assert_eq!(quantile_sorted(&values, 1.0), Some(16.0));
    assert_eq!(quantile_sorted(&values, 0.5), Some(4.0));
    // h = 4·0.6 = 2.4: 40 % of the way from 4 to 8.
    assert_eq!(quantile_sorted(&values, 0.6), Some(5.6));
    // h = 4·0.125 = 0.5: midway between 1 and 2.
    assert_eq!(quantile_sorted(&values, 0.125), Some(1.5));
    assert_eq!(quantile_sorted(&[3.0, 5.0], 0.25), Some(3.5));
    assert_eq!(quantile_sorted(&[7.0], 0.3), Some(7.0));
}

#[test]
fn quantile_refuses_empty_input_and_p_outside_the_unit_interval() {
    assert_eq!(quantile_sorted(&[], 0.5), None);
    for p in [-0.1, 1.1, f64::NAN] {
        assert_eq!(quantile_sorted(&[1.0, 2.0], p), None);
    }
}

#[test]
fn histogram_bins_are_left_closed_and_right_open() {
    let values = [0.0, 0.5, 1.0, 1.999, 2.0, 2.5, 3.0];
    // Bins [0, 1), [1, 2), [2, 3): 3.0 is the right edge of the last bin.
    assert_eq!(histogram(values, 0.0, 1.0, 3), vec![2, 2, 2]);
    assert_eq!(histogram(values, 0.5, 0.5, 4), vec![1, 1, 1, 1]);
}

#[test]
fn histogram_ignores_values_outside_its_bins() {
    let values = [
        -0.001,
        -5.0,
        10.0,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        4.0,
    ];
    assert_eq!(histogram(values, 0.0, 2.0, 5), vec![0, 0, 1, 0, 0]);
}

#[test]
fn histogram_edges_follow_the_float_edges() {
    // 1.7 / 0.1 rounds to exactly 17, but the edge 17 × 0.1 evaluates to
    // 1.7000000000000002, above 1.7: the value belongs to bin 16.
    let mut expected = vec![0; 20];
    expected[16] = 1;
    assert_eq!(histogram([1.7], 0.0, 0.1, 20), expected);
    // 1.8 / 0.1 and the edge 18 × 0.1 agree: 1.8 opens bin 18.
    expected[16] = 0;
    expected[18] = 1;
    assert_eq!(histogram([1.8], 0.0, 0.1, 20), expected);
}

#[test]
fn histogram_with_a_bad_width_counts_nothing() {
    for width in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(histogram([0.5, 1.5], 0.0, width, 2), vec![0, 0]);
    }
    assert_eq!(histogram([0.5], f64::NAN, 1.0, 1), vec![0]);
}

/// Values on every edge, just either side of it, between edges, below 0,
/// past the last bin and not numbers at all, for widths whose
/// reciprocals round both ways.
fn around_the_edges(width: f64) -> Vec<f64> {
    let mut values = vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        1e300,
    ];
    for k in 0..45 {
        let edge = k as f64 * width;
        let middle = (k as f64 + 0.5) * width;
        values.extend([edge, edge.next_down(), edge.next_up(), middle, -edge]);
    }
    values
}

/// Bin widths whose reciprocals round both ways.
const WIDTHS: [f64; 9] = [
    0.1,
    1.0 / 3.0,
    0.7,
    1.0,
    6.9,
    60.0,
    86_400.0 / 7.0,
    1e-4,
    12_345.678,
];

/// A multiplication by 1 / width finds the bin `bin_index` finds by a
/// division, for every value around every edge.
#[test]
fn bins_found_by_a_reciprocal_are_those_of_bin_index() {
    for width in WIDTHS {
        for value in around_the_edges(width) {
            assert_eq!(
                bin_index_by_reciprocal(value, width, 1.0 / width, 40.0).to_bits(),
                bin_index(value, 0.0, width).to_bits(),
                "{value} in bins {width} wide"
            );
        }
    }
}

#[test]
fn bins_from_zero_count_what_histogram_counts() {
    for width in WIDTHS {
        let values = around_the_edges(width);
        let mut bins = BinsFromZero::new(width, 40);
        values.iter().for_each(|&v| bins.count(v));
        assert_eq!(
            bins.counts(),
            histogram(values, 0.0, width, 40),
            "bins {width} wide"
        );
    }
    for width in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let mut bins = BinsFromZero::new(width, 2);
        bins.count(0.5);
        assert_eq!(bins.into_counts(), [0, 0], "bins {width} wide");
    }
}

#[test]
fn two_pass_quantiles_equal_those_found_by_selection() {
    let ps = [0.0, 0.01, 0.5, 0.95, 0.99, 1.0];
    // Spread far past the buckets, bunched in one, and not numbers.
    let spread: Vec<f64> = (0..5_000)
        .map(|i| f64::from(i * 7919 % 5_000) * 0.37)
        .collect();
    let bunched: Vec<f64> = (0..2_000).map(|i| 1.0 + f64::from(i % 3) * 1e-9).collect();
    for values in [
        spread,
        bunched,
        around_the_edges(0.7),
        vec![4.0],
        vec![2.0, 2.0],
    ] {
        for typical in [1.0, 1e-6, 1e6, 0.0, f64::NAN] {
            let mut counted = TwoPassQuantiles::new(typical);
            values.iter().for_each(|&v| counted.count(v));
            let found = counted.quantiles(values.iter().copied(), ps);
            let expected = quantiles_unsorted(&mut values.clone(), ps);
            let bits = |q: Option<[f64; 6]>| q.map(|q| q.map(f64::to_bits));
            assert_eq!(
                bits(found),
                bits(expected),
                "typical {typical}, {} values",
                values.len()
            );
        }
    }
}

#[test]
fn two_pass_quantiles_refuse_what_selection_refuses_and_other_values() {
    let mut counted = TwoPassQuantiles::new(1.0);
    assert_eq!(counted.quantiles([], [0.5]), None);
    [3.0, 1.0, 2.0].iter().for_each(|&v| counted.count(v));
    assert_eq!(counted.quantiles([3.0, 1.0, 2.0], [0.5, 0.25]), None);
    assert_eq!(counted.quantiles([3.0, 1.0, 2.0], [1.5]), None);
    assert_eq!(counted.quantiles([2.0, 3.0, 1.0], [0.5]), Some([2.0]));
    // Values other than those counted are refused, not misread.
    assert_eq!(counted.quantiles([3.0, 1.0], [0.5]), None);
    assert_eq!(counted.quantiles([3.0, 1.0, 2.0, 2.0], [0.5]), None);
}

#[test]
fn ks_statistic_of_a_small_sample() {
    // Against the uniform cdf F(x) = x: the step cdf jumps to 1/3 at 0.1,
    // 2/3 at 0.2 and 1 at 0.9; the widest gap is 2/3 − 0.2 just after 0.2.
    let d = ks_statistic(&[0.1, 0.2, 0.9], |x| x.clamp(0.0, 1.0));
    assert!((d - (2.0 / 3.0 - 0.2)).abs() < 1e-15, "D = {d}");
    assert_eq!(ks_statistic(&[], |x| x), 0.0);
}

/// The D at which the p-value is Q(λ) for n values.
fn d_for(lambda: f64, n: usize) -> f64 {
    let root_n = (n as f64).sqrt();
    lambda / (root_n + 0.12 + 0.11 / root_n)
}

#[test]
fn ks_p_value_matches_the_kolmogorov_distribution() {
    // Q(λ) to 17 digits from its series in 30-digit arithmetic; the classic
    // tables round Q(1.36) to 0.049 and Q(1.63) to 0.0098.
    let published = [
        (0.5, 0.963_945_243_664_875_1),
        (1.0, 0.269_999_671_677_354_5),
        (1.18, 0.123_453_809_429_765_7),
        (1.36, 0.049_485_876_755_377_91),
        (1.63, 0.009_846_364_888_486_524),
        (2.0, 0.000_670_925_255_779_695_3),
    ];
    for (lambda, q) in published {
        let p = ks_p_value(d_for(lambda, 100), 100);
        assert!(
            (p - q).abs() <= 1e-14 * q.max(1e-3),
            "Q({lambda}) = {p}, not {q}"
        );
    }
}

#[test]
fn ks_p_value_is_continuous_where_its_two_series_meet() {
    let below = ks_p_value(d_for(1.18 - 1e-12, 50), 50);
    let above = ks_p_value(d_for(1.18, 50), 50);
    assert!((below - above).abs() < 1e-12, "{below} vs {above}");
}

#[test]
fn ks_p_value_at_the_ends() {
    assert_eq!(ks_p_value(0.0, 10), 1.0);
    assert_eq!(ks_p_value(1.0, 1000), 0.0);
    assert_eq!(ks_p_value(0.3, 0), 1.0);
    assert!(ks_p_value(f64::NAN, 10).is_nan());
}

#[test]
fn ks_p_value_with_stephens_correction_fits_small_samples() {
    // The exact 5 % critical value for n = 10 is D = 0.40925 (Miller's
    // table); Stephens' correction lands within half a percentage point.
    let p = ks_p_value(0.40925, 10);
    assert!((p - 0.05).abs() < 0.005, "p = {p}");
}

#[test]
fn chi_square_p_value_at_the_five_percent_points() {
    // The 5 % critical values from the standard tables, given to 3 decimals,
    // so the p-value matches to the change 0.0005 in the statistic makes.
    assert!((chi_square_p_value(3.841, 1) - 0.05).abs() < 1e-4);
    assert!((chi_square_p_value(18.307, 10) - 0.05).abs() < 1e-4);
    // For 2 degrees of freedom the tail is e^(−x/2) exactly.
    assert!((chi_square_p_value(5.0, 2) - (-2.5f64).exp()).abs() < 1e-14);
}

#[test]
fn chi_square_p_value_at_the_ends() {
    assert_eq!(chi_square_p_value(0.0, 3), 1.0);
    assert_eq!(chi_square_p_value(-1.0, 3), 1.0);
    assert_eq!(chi_square_p_value(2.0, 0), 0.0);
    assert_eq!(chi_square_p_value(0.0, 0), 1.0);
}

#[test]
fn selection_finds_the_same_quantiles_as_sorting() {
    use stampede_core::stats::quantile_unsorted;
    let values = [9.0, 1.0, 7.0, 3.0, 3.0, 10.0, -2.0, 5.5];
    let mut sorted = values;
    sorted.sort_unstable_by(f64::total_cmp);
    for p in [0.0, 0.1, 0.5, 0.95, 0.99, 1.0] {
        let mut scratch = values;
        assert_eq!(
            quantile_unsorted(&mut scratch, p),
            quantile_sorted(&sorted, p),
            "p = {p}"
        );
    }
    assert_eq!(quantile_unsorted(&mut [], 0.5), None);
    assert_eq!(quantile_unsorted(&mut [1.0], 1.5), None);
}

#[test]
fn pearsons_statistic_sums_squared_misses_over_expectations() {
    use stampede_core::stats::chi_square;
    // (8 − 10)²/10 + (12 − 10)²/10 + (5 − 5)²/5 = 0.8
    let statistic = chi_square(&[8, 12, 5], |bin| if bin < 2 { 10.0 } else { 5.0 });
    assert!((statistic - 0.8).abs() < 1e-12, "{statistic}");
    assert_eq!(chi_square(&[], |_| 1.0), 0.0);
}

#[test]
fn thinning_keeps_every_peak() {
    let values = [1.0, 5.0, 2.0, 2.0, 7.0];
    assert_eq!(max_per_group(&values, 2), (3, vec![5.0, 7.0]));
    assert_eq!(max_per_group(&values, 5), (1, values.to_vec()));
    assert_eq!(max_per_group(&values, 0), (5, vec![7.0]));
    assert_eq!(max_per_group(&[], 3), (1, vec![]));
}

proptest! {
    /// Few distinct values, so order statistics repeat; p may repeat too.
    #[test]
    fn quantiles_by_selection_equal_those_of_the_sorted_values(
        values in prop::collection::vec((0u8..20).prop_map(f64::from), 1..200),
        mut ps in prop::collection::vec(prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64], 4),
    ) {
        ps.sort_by(f64::total_cmp);
        let ps: [f64; 4] = ps.try_into().unwrap();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let expected = ps.map(|p| quantile_sorted(&sorted, p).unwrap());
        let mut scratch = values.clone();
        prop_assert_eq!(quantiles_unsorted(&mut scratch, ps), Some(expected));
        let mut counted = TwoPassQuantiles::new(4.0);
        values.iter().for_each(|&v| counted.count(v));
        prop_assert_eq!(counted.quantiles(values, ps), Some(expected));
    }

    /// Ranks may repeat, come out of order or lie past the end; those are
    /// skipped, and every other one holds what the sorted values hold.
    #[test]
    fn placed_order_statistics_sit_where_a_sort_puts_them(
        values in prop::collection::vec((0u8..20).prop_map(f64::from), 1..200),
        mut ranks in prop::collection::vec(0usize..220, 0..6),
    ) {
        ranks.sort_unstable();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let mut placed = values.clone();
        place_order_statistics(&mut placed, &ranks);
        for rank in ranks.into_iter().filter(|&rank| rank < values.len()) {
            prop_assert_eq!(placed[rank], sorted[rank], "rank {}", rank);
        }
    }
}

#[test]
fn quantiles_need_ascending_probabilities_within_zero_and_one() {
    let mut values = [3.0, 1.0, 2.0];
    assert_eq!(quantiles_unsorted(&mut values, [0.5, 0.25]), None);
    assert_eq!(quantiles_unsorted(&mut values, [0.5, 1.5]), None);
    assert_eq!(quantiles_unsorted(&mut [], [0.5]), None);
    assert_eq!(
        quantiles_unsorted(&mut values, [0.0, 0.5, 0.5, 1.0]),
        Some([1.0, 2.0, 2.0, 3.0])
    );
}

#[test]
fn values_sort_as_total_cmp_orders_them() {
    let mut values = [
        3.0,
        -1.0,
        0.0,
        f64::INFINITY,
        -0.0,
        -5.5,
        1e-300,
        f64::NEG_INFINITY,
    ];
    let mut expected = values;
    expected.sort_by(f64::total_cmp);
    stampede_core::stats::sort_as_total_cmp(&mut values);
    assert_eq!(values.map(f64::to_bits), expected.map(f64::to_bits));
}
