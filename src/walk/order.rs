//! The order a walk takes the squares of each column in (see [`crate::engine::Order`]): a
//! permutation of the column's rows, the same in every column.

use crate::engine::Order;
use crate::piece::Piece;

/// The knight's tuned orders, by the width of the window (`TUNED[w]`, the rows in the order
/// walked; none where the straight order is kept).
///
/// Each was chosen by walking every order of its width (up to the mirror image, which walks the
/// same states) on a short board and then the fastest few on the counts that matter, fewest
/// states read first, the key's size next (a window past 16 squares takes two words): see
/// `results/order.md` for the figures and the commands. They have one thing in common: the
/// rows next to the column's ends (1 and `w - 2`) come early, because the squares of the column
/// before that wait on them wait on nothing else.
const TUNED: [&[u32]; 9] = [
    &[],
    &[],
    &[],
    &[1, 0, 2],
    &[1, 2, 0, 3],
    &[1, 3, 0, 2, 4],
    &[1, 2, 4, 0, 3, 5],
    &[1, 3, 5, 0, 2, 4, 6],
    &[1, 3, 6, 4, 2, 0, 5, 7],
];

/// The time a count walked in the tuned order of width `w` takes, against the same count
/// walked straight: what the up-front projection, calibrated on straight walks, scales its
/// time by. Measured on this project's two-core machine (whole commands, `--order straight`
/// against `--order tuned`; `results/order.md`): 4 wide 0.6 to 0.67 (4x60 open), 5 wide 0.45 to
/// 0.53 (5x16 open, 5x20 closed), 6 wide 0.5 (6x9 open swept), 7 wide 0.79 (7x8 open: its keys
/// take two words where the straight walk's take one), 8 wide 0.64 (8x8 closed). 5 and 6 wide
/// take 0.6: a count of a tenth of a second is mostly what no order shortens (5x8 and 6x6 open
/// took half their straight time and more).
const TUNED_TIME: [f64; 9] = [1.0, 1.0, 1.0, 1.0, 0.65, 0.6, 0.6, 0.8, 0.65];

/// [`TUNED_TIME`] of a walk of width `w` whose columns take their rows in the order `rows` (1
/// where it is straight).
pub(crate) fn tuned_time(w: u32, rows: &[u32]) -> f64 {
    if is_straight(rows) {
        1.0
    } else {
        TUNED_TIME.get(w as usize).copied().unwrap_or(1.0)
    }
}

/// The rows of a column of `w` in the order a walk of `piece` in `order` takes them.
pub(crate) fn column_rows(w: u32, piece: &Piece, order: Order) -> Vec<u32> {
    match order {
        Order::Tuned if piece.is_knight() => match TUNED.get(w as usize) {
            Some(rows) if !rows.is_empty() => rows.to_vec(),
            _ => (0..w).collect(),
        },
        _ => (0..w).collect(),
    }
}

/// Whether `rows` is the straight order (every row in its place).
pub(crate) fn is_straight(rows: &[u32]) -> bool {
    rows.iter().enumerate().all(|(i, &r)| r == i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tuned_order_is_a_permutation_of_its_column() {
        for (w, rows) in TUNED.iter().enumerate() {
            let mut sorted = rows.to_vec();
            sorted.sort_unstable();
            assert!(
                sorted.is_empty() || sorted == (0..w as u32).collect::<Vec<_>>(),
                "width {w}: {rows:?}"
            );
        }
        let knight = Piece::knight();
        assert!(is_straight(&column_rows(6, &knight, Order::Straight)));
        assert!(!is_straight(&column_rows(6, &knight, Order::Tuned)));
        // past the table, and for other pieces, the straight order
        assert!(is_straight(&column_rows(11, &knight, Order::Tuned)));
        let camel: Piece = "camel".parse().unwrap();
        assert!(is_straight(&column_rows(6, &camel, Order::Tuned)));
    }
}
