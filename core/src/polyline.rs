//! Polylines on a pixel grid, thinned to the points that shape them.
//!
//! A chart's series often maps many points onto one straight run of
//! pixels: a flat stretch of zero, a constant worker count, the top of a
//! wide bar. Each point is a call into the canvas, so a path is handed
//! over as its [`corners`]: the same line with every repeated point, and
//! every point inside a straight run, left out.

/// The points of a polyline where it turns, in order: its first and last
/// point, and each point where the direction changes. A point equal to the
/// one before is dropped, as is a point that lies between its neighbours
/// on a straight line, so the polyline drawn through the corners covers
/// exactly the same segments. A point where the line doubles back stays.
///
/// ```
/// use stampede_core::polyline::corners;
///
/// let steps = [(0, 5), (1, 5), (2, 5), (2, 5), (2, 1), (3, 1), (4, 1), (4, 6)];
/// let kept: Vec<_> = corners(steps).collect();
/// assert_eq!(kept, [(0, 5), (2, 5), (2, 1), (4, 1), (4, 6)]);
/// ```
pub fn corners(points: impl IntoIterator<Item = (i32, i32)>) -> impl Iterator<Item = (i32, i32)> {
    let mut points = points.into_iter();
    // The last corner handed out, and the point after it not yet known to
    // be one.
    let mut corner: Option<(i32, i32)> = None;
    let mut pending: Option<(i32, i32)> = None;
    std::iter::from_fn(move || {
        loop {
            let Some(point) = points.next() else {
                return pending.take();
            };
            let Some(from) = corner else {
                corner = Some(point);
                return corner;
            };
            let Some(middle) = pending else {
                if point != from {
                    pending = Some(point);
                }
                continue;
            };
            if point == middle || runs_straight_through(from, middle, point) {
                pending = Some(point);
                continue;
            }
            corner = Some(middle);
            pending = Some(point);
            return corner;
        }
    })
}

/// Whether `middle` lies on the segment from `from` to `to`, strictly
/// between them: the three points on one line, and the turn at `middle`
/// no turn at all.
fn runs_straight_through(from: (i32, i32), middle: (i32, i32), to: (i32, i32)) -> bool {
    let (ax, ay) = (
        i64::from(middle.0) - i64::from(from.0),
        i64::from(middle.1) - i64::from(from.1),
    );
    let (bx, by) = (
        i64::from(to.0) - i64::from(middle.0),
        i64::from(to.1) - i64::from(middle.1),
    );
    ax * by == ay * bx && ax * bx + ay * by > 0
}
