//! The projection of a frontier count's layer sizes from the columns walked so far: what the
//! reach check refuses counts by, and the first figure a long count shows.

/// Projects the forward walk's layer size at every column end (`[0]` is the empty start) from
/// the sizes walked so far, `(squares walked, states)` in order, on a board `w` squares wide and
/// `len` columns long.
///
/// Measured columns are kept. A column cut short is finished square by square with the growth
/// of the same squares of the column before (each ratio's square root where it grows: the
/// knight's layers grow 3 to 4 times a square in the middle of the third column of 8x8 to
/// 12x12, and shrink at its last squares), or with the column's own growth so far where the
/// column before was not walked a square at a time. Each later column then grows by a power of
/// the growth before it (see [`damped`]), and no more past `w + 2` columns, where long boards
/// level off (7x7 grows 1,272 times from column 2 to 3, then 15, then 2.3 times; 6x12 314, 11,
/// 5.7, 1.5, 1.04). It errs on either side by a few times: for refusing counts out of reach
/// before they start, and for the first figure a long count shows.
pub(super) fn project_columns(w: usize, len: usize, sizes: &[(usize, u64)]) -> Vec<f64> {
    let at = |s: usize| sizes.iter().find(|x| x.0 == s).map(|x| x.1 as f64);
    let mut col = vec![1.0f64; len + 1];
    let mut ratio = 1.0f64;
    let &(last, states) = sizes.last().unwrap_or(&(0, 1));
    for c in 1..=len {
        let grown = |prev: f64, ratio: f64| {
            if c > w + 2 {
                prev
            } else {
                prev * damped(c, ratio)
            }
        };
        col[c] = match at(c * w) {
            Some(x) => x,
            None if last > (c - 1) * w && last < c * w => {
                // the column cut short
                let walked = last - (c - 1) * w;
                // the column's own growth a square so far
                let own = (states as f64 / col[c - 1].max(1.0)).powf(1.0 / walked as f64);
                let mut x = states as f64;
                for j in walked + 1..=w {
                    let before = (c >= 2)
                        .then(|| Some(at((c - 2) * w + j)? / at((c - 2) * w + j - 1)?.max(1.0)))
                        .flatten();
                    let r = before.unwrap_or(own);
                    x *= if r > 1.0 { r.sqrt() } else { r };
                }
                x
            }
            None => grown(col[c - 1], ratio),
        };
        ratio = (col[c] / col[c - 1].max(1.0)).max(1.0);
    }
    col
}

/// The growth of column `c` projected from the growth `ratio` of the column before. Up to the
/// fifth column a column that grew fewer than 40 times is followed by one that grows nearly as
/// much (the 0.85th power: the knight's closed tours on boards 5 to 8 wide grew 9.5, 14.4, 19
/// and 31.9 times into their fourth columns and then 6.9, 10.4, 11.9 and 20.3; open 6x12 and 7x12
/// 11.3 and 13.6, then 5.7 and 8.1), a steeper one by its square root (7x7 open: 1,272 times,
/// then 15); the sixth column grows by the fourth root (2.1, 1.9, 1.7 and 1.5 times on those
/// boards), later ones by the square root.
fn damped(c: usize, ratio: f64) -> f64 {
    let power = match c {
        ..=5 if ratio <= 40.0 => 0.85,
        6 => 0.25,
        _ => 0.5,
    };
    ratio.powf(power)
}

#[cfg(test)]
mod tests {
    use super::project_columns;

    /// The walk's layer sizes after every square, from `profile_squares` (the knight, mirror
    /// images merged), cut after `upto` squares.
    fn walked(columns: &[&[u64]], upto: usize) -> Vec<(usize, u64)> {
        std::iter::once(1)
            .chain(columns.iter().flat_map(|c| c.iter().copied()))
            .take(upto + 1)
            .enumerate()
            .collect()
    }

    const OPEN_7X7: [&[u64]; 4] = [
        &[1; 7],
        &[2, 4, 16, 64, 256, 512, 528],
        &[1776, 5455, 21881, 110117, 341446, 516901, 671990],
        &[
            1453893, 2377366, 4492099, 7797875, 14025427, 11964746, 9836758,
        ],
    ];
    const OPEN_6X12: [&[u64]; 5] = [
        &[1; 6],
        &[2, 4, 16, 64, 128, 136],
        &[472, 1278, 6203, 23151, 37497, 42755],
        &[90825, 139092, 281995, 588383, 550117, 482693],
        &[1132023, 1965718, 3637105, 6164798, 3764403, 2740828],
    ];
    const OPEN_11X11: [&[u64]; 3] = [
        &[1; 11],
        &[2, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 131072, 131328],
        &[448820, 1372891, 6056487, 28126355, 102474267],
    ];

    fn within(x: f64, truth: f64, times: f64) -> bool {
        x <= truth * times && x >= truth / times
    }

    #[test]
    fn a_column_cut_short_is_finished_within_three_times_its_size() {
        // 7x7 stopped at the 2nd square of column 4, 6x12 at the 3rd of column 5
        let c = project_columns(7, 7, &walked(&OPEN_7X7, 23));
        assert!(within(c[4], 9_836_758.0, 3.0), "{c:?}");
        let c = project_columns(6, 12, &walked(&OPEN_6X12, 27));
        assert!(within(c[5], 2_740_828.0, 3.0), "{c:?}");
        // the columns measured are kept
        assert_eq!(c[4], 482_693.0);
    }

    #[test]
    fn a_column_projected_whole_is_within_three_times() {
        // 7x7 from its first three columns: column 4 is 9,836,758
        let c = project_columns(7, 7, &walked(&OPEN_7X7, 21));
        assert!(within(c[4], 9_836_758.0, 3.0), "{c:?}");
        // 6x12 from four: column 5 is 2,740,828, column 6 4,181,602
        let c = project_columns(6, 12, &walked(&OPEN_6X12, 24));
        assert!(within(c[5], 2_740_828.0, 3.0), "{c:?}");
        assert!(within(c[6], 4_181_602.0, 3.0), "{c:?}");
    }

    #[test]
    fn a_column_still_growing_steadily_is_projected_within_one_and_a_half_times() {
        // 8x10 closed walked to its fourth column's end: its fifth holds 80,757,438 states (the
        // count's right half), 3.6 times the square root's projection
        let sizes = [(8, 1), (16, 528), (24, 124_411), (32, 3_969_876)];
        let c = project_columns(8, 10, &sizes);
        assert!(within(c[5], 80_757_438.0, 1.5), "{c:?}");
        // 6x12 open from four columns: the fifth and the sixth, which grows much less
        let c = project_columns(6, 12, &walked(&OPEN_6X12, 24));
        assert!(within(c[5], 2_740_828.0, 1.5), "{c:?}");
        assert!(within(c[6], 4_181_602.0, 1.6), "{c:?}");
    }

    #[test]
    fn boards_far_out_of_reach_are_projected_far_out_of_reach() {
        // 11x11 stopped past 2,000,000 states at the 3rd square of column 3: the squares of
        // column 3 walked so far (to 102 million at the 5th) are a lower bound on what comes
        let c = project_columns(11, 11, &walked(&OPEN_11X11, 24));
        assert!(c[3] > 102_474_267.0, "{c:?}");
        assert!(c.iter().copied().fold(0.0, f64::max) > 1e11, "{c:?}");
        // long boards level off past w + 2 columns
        let c = project_columns(6, 40, &walked(&OPEN_6X12, 30));
        assert_eq!(c[9], c[40]);
    }
}
