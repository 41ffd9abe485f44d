//! Linear-time construction of knight's tours from small pieces: a grid of blocks joined into
//! one cycle on boards with both sides at least 5.
//!
//! The pieces are cycles of small blocks found once by the exact search (`search.rs`) and
//! embedded as data (`pieces.txt`); joining two neighbouring cycles swaps two moves for two
//! (`ports.rs`); the blocks are joined along a spanning tree, each block written and joined in
//! constant time, so a board of N squares takes O(N) time and 4N bytes. The caller verifies
//! every tour made here before using it.

mod grid;
pub mod pieces;
pub mod ports;
pub mod search;

use crate::board::{Board, Square};

/// A tour the construction can make, planned without touching board-sized memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    grid: grid::GridPlan,
}

/// A tour as made, not yet verified: `next[i]` follows square index `i`, starting at `first`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    pub next: Vec<u32>,
    pub first: u32,
}

/// Plans a knight's tour of `board` from `from`: closed when the board has an even side (also
/// what is given when an open tour is asked for: a closed tour read from `from` is an open one),
/// open when both sides are odd (`from` on a1's colour). `None` where the construction does not
/// apply: a side under 5, a closed tour asked of an odd×odd board, or (on boards of up to 11
/// a side) a start square no piece serves.
#[must_use]
pub fn plan(board: Board, closed: bool, from: Square) -> Option<Plan> {
    if closed && board.squares() % 2 == 1 {
        return None;
    }
    Some(Plan {
        grid: grid::GridPlan::new(board, from)?,
    })
}

impl Plan {
    /// Makes the tour in O(N) time.
    #[must_use]
    pub fn build(&self) -> Option<Built> {
        let (next, first) = self.grid.build()?;
        Some(Built { next, first })
    }

    /// The blocks used, for the summary line.
    #[must_use]
    pub fn describe(&self) -> String {
        self.grid.describe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Piece;
    use crate::tour::CompactTour;

    fn check(rows: u32, cols: u32, closed: bool, from: Square) {
        let board = Board { rows, cols };
        let plan = plan(board, closed, from).unwrap_or_else(|| panic!("{board} from {from:?}"));
        let built = plan.build().unwrap_or_else(|| panic!("{board}: a join failed"));
        assert_eq!(built.first, board.index(from));
        let t = CompactTour::verified(board, &Piece::knight(), built.first, built.next, closed)
            .unwrap_or_else(|e| panic!("{board} from {from:?}: {e}"));
        assert_eq!(t.closed(), board.squares() % 2 == 0, "{board}");
    }

    #[test]
    fn small_grid_boards() {
        for (r, c) in [(6, 6), (8, 8), (6, 14), (14, 6), (20, 20), (13, 22), (24, 17), (5, 16)] {
            check(r, c, true, Square::new(0, 0));
        }
        for (r, c, sr, sc) in [(13, 13, 6, 6), (15, 21, 0, 0), (17, 5, 8, 2), (25, 27, 24, 26)] {
            check(r, c, false, Square::new(sr, sc));
        }
    }
}
