use proptest::prelude::*;
use stampede_core::polyline::corners;

fn kept(points: &[(i32, i32)]) -> Vec<(i32, i32)> {
    corners(points.iter().copied()).collect()
}

#[test]
fn straight_runs_keep_their_ends() {
    // A bar chart's outline: flat tops and sides of many points each.
    let outline = [
        (0, 9),
        (0, 4),
        (1, 4),
        (2, 4),
        (3, 4),
        (3, 9),
        (4, 9),
        (5, 9),
    ];
    assert_eq!(kept(&outline), [(0, 9), (0, 4), (3, 4), (3, 9), (5, 9)]);
    // A constant series across the chart.
    let flat: Vec<_> = (0..1000).map(|x| (x, 40)).collect();
    assert_eq!(kept(&flat), [(0, 40), (999, 40)]);
    // Slopes too, in whole pixels.
    assert_eq!(
        kept(&[(0, 0), (1, 2), (2, 4), (3, 5)]),
        [(0, 0), (2, 4), (3, 5)]
    );
}

#[test]
fn repeats_go_and_turns_stay() {
    assert_eq!(kept(&[(1, 1), (1, 1), (2, 1), (2, 1)]), [(1, 1), (2, 1)]);
    // Doubling back on the same line is a turn: both ends stay.
    assert_eq!(kept(&[(0, 0), (5, 0), (2, 0)]), [(0, 0), (5, 0), (2, 0)]);
    assert_eq!(
        kept(&[(0, 0), (0, 5), (0, 0), (0, 5)]),
        [(0, 0), (0, 5), (0, 0), (0, 5)]
    );
    assert_eq!(kept(&[(0, 0), (1, 0), (1, 1)]), [(0, 0), (1, 0), (1, 1)]);
}

#[test]
fn short_paths_pass_as_they_are() {
    assert_eq!(kept(&[]), []);
    assert_eq!(kept(&[(3, 4)]), [(3, 4)]);
    assert_eq!(kept(&[(3, 4), (3, 4), (3, 4)]), [(3, 4)]);
    assert_eq!(kept(&[(3, 4), (5, 6)]), [(3, 4), (5, 6)]);
    // Far apart, where a product of differences needs more than 32 bits.
    let bent = [(-2_000_000_000, 0), (0, 1), (2_000_000_000, 3)];
    assert_eq!(kept(&bent), bent);
    let straight = [(-2_000_000_000, 0), (0, 1), (2_000_000_000, 2)];
    assert_eq!(kept(&straight), [straight[0], straight[2]]);
}

/// Whether `point` lies on the segment from `a` to `b`.
fn on_segment(point: (i32, i32), a: (i32, i32), b: (i32, i32)) -> bool {
    let (px, py) = (i64::from(point.0), i64::from(point.1));
    let (ax, ay, bx, by) = (
        i64::from(a.0),
        i64::from(a.1),
        i64::from(b.0),
        i64::from(b.1),
    );
    (bx - ax) * (py - ay) == (by - ay) * (px - ax)
        && px.min(ax.max(bx)) >= ax.min(bx)
        && py.min(ay.max(by)) >= ay.min(by)
        && px <= ax.max(bx)
        && py <= ay.max(by)
}

proptest! {
    /// Walking the original path, every point lies on the corners' path at
    /// or after the segment the one before it lay on, and the corners are
    /// original points in their order with no straight run left in them.
    #[test]
    fn corners_trace_the_same_line(steps in prop::collection::vec((-2i32..=2, -2i32..=2), 0..60)) {
        let mut points = vec![(0, 0)];
        for (dx, dy) in steps {
            let (x, y) = *points.last().unwrap();
            points.push((x + dx, y + dy));
        }
        let corners = kept(&points);
        prop_assert_eq!(corners.first(), points.first());
        prop_assert_eq!(corners.last(), points.last());
        let mut segment = 0;
        for &point in &points {
            while segment + 1 < corners.len() && !on_segment(point, corners[segment], corners[segment + 1]) {
                segment += 1;
            }
            prop_assert!(corners.len() == 1 || segment + 1 < corners.len(), "{point:?} is off the corners' path");
        }
        for window in corners.windows(3) {
            let (a, b, c) = (window[0], window[1], window[2]);
            let straight = (b.0 - a.0) * (c.1 - b.1) == (b.1 - a.1) * (c.0 - b.0)
                && (b.0 - a.0) * (c.0 - b.0) + (b.1 - a.1) * (c.1 - b.1) > 0;
            prop_assert!(!straight, "{b:?} sits inside a straight run");
        }
        for pair in corners.windows(2) {
            prop_assert_ne!(pair[0], pair[1]);
        }
    }
}
