//! The known counts the bench checks its answers against: the published values of
//! `tests/data/counts.tsv`, the table the known-answer tests read, embedded whole so that the
//! bench and the tests share one source and no engine ever sees it.

use num_bigint::BigUint;

use crate::board::Board;

/// The table: `board piece kind from to figure count tier`, tab-separated, `#` comments.
const TABLE: &str = include_str!("../../tests/data/counts.tsv");

/// The figure the bench compares: directed open tours, or closed tours as undirected cycles.
#[must_use]
pub const fn figure(closed: bool) -> &'static str {
    if closed { "undirected" } else { "directed" }
}

/// The known whole-board count of knight's tours on `board` (open: directed tours; closed:
/// undirected cycles), or `None` when the table has no such row.
#[must_use]
pub fn count(board: Board, closed: bool) -> Option<BigUint> {
    let name = board.to_string();
    let kind = if closed { "closed" } else { "open" };
    TABLE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| {
            f.len() == 8
                && f[0] == name
                && f[1] == "knight"
                && f[2] == kind
                && f[3] == "-"
                && f[4] == "-"
                && f[5] == figure(closed)
        })
        .and_then(|f| f[6].parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_boards_are_in_the_table() {
        let b = |r, c| Board::new(r, c).unwrap();
        assert_eq!(count(b(5, 5), false), Some(1728u32.into()));
        assert_eq!(count(b(6, 6), true), Some(9862u32.into()));
        assert_eq!(count(b(5, 6), true), Some(8u32.into()));
        assert_eq!(count(b(6, 6), false), Some(6_637_920u32.into()));
        // the table holds no 2x99 row
        assert_eq!(count(b(2, 99), false), None);
    }
}
