//! The up-front projection of a frontier count from the columns walked so far (what the reach
//! check refuses counts by, and the first figure a long count shows), by one model:
//!
//! *A column not walked grows by the square root of the growth of the column before it (the
//! fifth column by its 0.85th power, the sixth by its fourth root, none past `w + 2`) and holds
//! no fewer states than the one before; a meeting's pieces read, for each state a column they
//! walk starts from, `12 × 1.5^(w − 5)` states and 1.8 for each it ends with, the crossing's
//! first column six times from the left table, the right half's last column once from the right
//! table, and the smaller of the two again (the side made true), at the calibrated cost of a
//! read.*
//!
//! The time is those reads at 0.25 µs on one thread (2.5 times that on boards 8 wide), scaled
//! for a walk in a tuned order by the time it measured against the straight walk's
//! (`order::tuned_time`: the reads counted are the straight walk's); the memory
//! is the tree's line by parts (`Run::estimate_at`). Within 2 times of the wall time of every
//! count of `results/estimates.md` past 0.1 s (0.68 to 1.76; `tests/all/messages.rs`).
//!
//! **A longer board is never projected at less**, for one width and kind:
//!
//! - its walk begins as the shorter board's: the reach check reads the column ends to the first
//!   past 2,000,000 states or to the forward walk's end (column `max(left, right − 1)`, at least
//!   two before the board's end, which no earlier column sees), walked under the same rules
//!   wherever the two boards' colours agree (always for closed tours and even widths; for open
//!   tours on odd widths between lengths of one parity, see below);
//! - from one walk the columns never shrink ([`project_columns`]), and the reads never shrink as
//!   the board grows ([`meeting_reads`]): the cut's left half is `(len − 1) / 2` columns and its
//!   right half the rest, so the four column ends read (`left`, `left + 1`, `right − 1`,
//!   `right`) never move back, each enters with a factor of at least 0, and the side made true
//!   is the smaller of two terms that never shrink;
//! - a longer board may walk a column the shorter one projected and find fewer states, so a
//!   board is projected at no less than every shorter board of its width from the same walk cut
//!   at that board's forward end (`Run::estimate`), which is that board's own projection: time,
//!   memory and states never shrink, whatever the parts.
//!
//! Open tours on boards of odd width are two walks: on a board of odd squares a tour's ends lie
//! on its majority colour, on one of even squares on both colours, and the rule that walks each
//! (`layout::Rules`) shrinks the odd boards' layers (5x15 open holds 75,541 states where 5x14
//! holds 104,335). The counts' own times alternate (5x14 open took 0.94 s, 5x15 0.66 s), and so
//! may the projections of two such boards a column apart: the projection follows the walk the
//! count makes, and walks no other board.

/// Projects the forward walk's layer size at every column end (`[0]` is the empty start) from
/// the sizes walked so far, `(squares walked, states)` in order, on a board `w` squares wide and
/// `len` columns long.
///
/// Measured columns are kept. A column cut short (a sweep stops a square at a time) is finished
/// square by square with the growth of the same squares of the column before (each ratio's
/// square root where it grows: the knight's layers grow 3 to 4 times a square in the middle of
/// the third column of 8x8 to 12x12, and shrink at its last squares), or with the column's own
/// growth so far where the column before was not walked a square at a time. Each later column
/// `c` grows by the growth of the column before it to the power [`growth_power`]`(w, c)`, and no
/// column holds fewer states than the one before it.
pub(crate) fn project_columns(w: usize, len: usize, sizes: &[(usize, u64)]) -> Vec<f64> {
    let at = |s: usize| sizes.iter().find(|x| x.0 == s).map(|x| x.1 as f64);
    let mut col = vec![1.0f64; len + 1];
    let mut ratio = 1.0f64;
    let &(last, states) = sizes.last().unwrap_or(&(0, 1));
    for c in 1..=len {
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
            None => col[c - 1] * ratio.powf(growth_power(w, c)),
        }
        .max(col[c - 1]);
        ratio = col[c] / col[c - 1].max(1.0);
    }
    col
}

/// The power of the growth of the column before that column `c` of a board `w` wide grows by
/// where it was not walked: 1/2, but 0.85 at the fifth column and 1/4 at the sixth, and 0 past
/// `w + 2` columns, where long boards level off. The knight's first columns grow hundreds of
/// times, the next by about the square root of that (7 wide open, the board of odd squares: 483
/// times into its third column, 17 into its fourth; 8x8 open 2,652 into its third, about 37
/// into its fourth); the fifth grows nearly as much as the fourth (closed tours on boards 5 to
/// 8 wide grew 9.5, 14.4, 19 and 31.9 times into their fourth columns, then 6.9, 10.4, 11.9 and
/// 20.3; open ones 5 and 6 wide 5.9 and 10.4, then 4.3 and 5.8); the sixth by much less
/// (closed 5 and 6 wide 2.1 and 1.9 times, open 1.8 and 1.6); the seventh on boards 4 to 6 wide
/// 1.0 to 1.2 times.
fn growth_power(w: usize, c: usize) -> f64 {
    match c {
        _ if c > w + 2 => 0.0,
        5 => 0.85,
        6 => 0.25,
        _ => 0.5,
    }
}

/// The states a column of a board `w` wide reads, walked from `start` states to `end`: the
/// reads of [`column_reads_from_growth`](super::sizes::column_reads_from_growth) for each state
/// it starts from, which grow with the column's growth, `end / start`. So a column reads
/// `12 × 1.5^(w − 5)` states for each it starts from and 1.8 for each it ends with: more from
/// more, and more to more.
pub(crate) fn column_reads(w: u32, start: f64, end: f64) -> f64 {
    let start = start.max(1.0);
    start * super::sizes::column_reads_from_growth(w, end / start)
}

/// The states the pieces of a meeting read, cut after `left` columns with a right half of
/// `right` on a board `w` wide, from its projected column ends `col`: the crossing six times
/// a column from the left table (see [`sizes::reads`](super::sizes::reads)), the right half's
/// last column from the right table, and again the side made true, which is the one that reads
/// less.
pub(crate) fn meeting_reads(w: u32, left: usize, right: usize, col: &[f64]) -> f64 {
    let crossing = super::sizes::CROSSING_READS * column_reads(w, col[left], col[left + 1]);
    let last = column_reads(w, col[right - 1], col[right]);
    crossing + last + crossing.min(last)
}

/// The states a meeting's forward walk reads to the end of column `last` (the shared walk), from
/// the projected column ends `col`: each column's reads from its start and end.
pub(crate) fn forward_reads(w: u32, last: usize, col: &[f64]) -> f64 {
    (0..last.min(col.len().saturating_sub(1)))
        .map(|c| column_reads(w, col[c], col[c + 1]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::{meeting_reads, project_columns};

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

    /// Column ends of the forward walk to a meeting (mirror images merged), each board's walk
    /// to its end (`tests/data/reach-sizes.tsv` has them to the forward walk's end).
    const CLOSED_6X16: [u64; 9] = [1, 1, 36, 851, 12260, 127101, 238191, 254314, 256396];
    const OPEN_5X16: [u64; 10] = [1, 1, 26, 2387, 14103, 61088, 109333, 104335, 119184, 104420];
    const CLOSED_8X16: [u64; 5] = [1, 1, 528, 124411, 3969876];

    fn ends(w: usize, cols: &[u64], upto: usize) -> Vec<(usize, u64)> {
        cols.iter()
            .take(upto + 1)
            .enumerate()
            .map(|(c, &n)| (c * w, n))
            .collect()
    }

    #[test]
    fn the_columns_past_four_walked_are_projected_within_a_third() {
        // the fifth to the eighth column, against those walked
        for (w, cols) in [(6, &CLOSED_6X16[..]), (5, &OPEN_5X16[..])] {
            let c = project_columns(w, 16, &ends(w, cols, 4));
            for k in 5..=8 {
                assert!(
                    within(c[k], cols[k] as f64, 1.33),
                    "{w} wide, column {k}: {c:?}"
                );
            }
        }
    }

    #[test]
    fn no_column_holds_fewer_states_than_the_one_before() {
        // 5x16 open's columns walked alternate from the sixth on; projected, they never shrink
        let c = project_columns(5, 16, &ends(5, &OPEN_5X16, 9));
        assert!(c.windows(2).all(|p| p[1] >= p[0]), "{c:?}");
        assert_eq!(c[6], 109_333.0);
        assert_eq!(c[7], 109_333.0);
        assert_eq!(c[8], 119_184.0);
    }

    #[test]
    fn the_reads_never_shrink_as_the_cut_moves_along() {
        // the cut in the middle (`auto_cut`): the left half (len - 1) / 2 columns, the right
        // half the rest; 8x16 closed from its walk to the fourth column, 5x16 open to its end
        for (w, col) in [
            (8, project_columns(8, 16, &ends(8, &CLOSED_8X16, 4))),
            (5, project_columns(5, 16, &ends(5, &OPEN_5X16, 9))),
            (6, project_columns(6, 16, &ends(6, &CLOSED_6X16, 8))),
        ] {
            let reads: Vec<f64> = (4..=16usize)
                .map(|len| {
                    let left = (len - 1) / 2;
                    meeting_reads(w as u32, left, len - left, &col)
                })
                .collect();
            assert!(reads.windows(2).all(|p| p[1] >= p[0]), "{w}: {reads:?}");
        }
        // 8x11, 8x12 and 8x13 closed, once projected at 3.9, 2.9 and 4.8 hours
        let col = project_columns(8, 13, &ends(8, &CLOSED_8X16, 4));
        let r = |len: usize| meeting_reads(8, (len - 1) / 2, len - (len - 1) / 2, &col);
        assert!(r(11) <= r(12) && r(12) <= r(13));
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
