//! The naive counter: plain recursive backtracking over a 2-D array, as textbooks write it. No
//! bitboards, no pruning, no symmetry: a baseline for benchmarks and an independent cross-check.

use crate::board::{Board, Square};
use crate::piece::Piece;

struct Naive {
    rows: i32,
    cols: i32,
    offsets: Vec<(i32, i32)>,
    grid: Vec<Vec<bool>>,
    total: usize,
    start: (i32, i32),
    closed: bool,
    to: Option<(i32, i32)>,
}

impl Naive {
    fn solve(&mut self, r: i32, c: i32, visited: usize) -> u64 {
        if visited == self.total {
            if let Some(t) = self.to {
                if (r, c) != t {
                    return 0;
                }
            }
            if self.closed {
                let (sr, sc) = self.start;
                let (dr, dc) = (r - sr, c - sc);
                return u64::from(self.total >= 3 && self.offsets.contains(&(dr, dc)));
            }
            return 1;
        }
        let mut count = 0;
        for k in 0..self.offsets.len() {
            let (dr, dc) = self.offsets[k];
            let (nr, nc) = (r + dr, c + dc);
            if nr >= 0
                && nc >= 0
                && nr < self.rows
                && nc < self.cols
                && !self.grid[nr as usize][nc as usize]
            {
                self.grid[nr as usize][nc as usize] = true;
                count += self.solve(nr, nc, visited + 1);
                self.grid[nr as usize][nc as usize] = false;
            }
        }
        count
    }
}

/// Directed tours starting on `start` (ending on `to` when given); with `closed`, only those whose
/// last square is one move from the first.
#[must_use]
pub fn count_from(
    board: Board,
    piece: &Piece,
    start: Square,
    closed: bool,
    to: Option<Square>,
) -> u64 {
    let mut s = Naive {
        rows: board.rows as i32,
        cols: board.cols as i32,
        offsets: piece.offsets(),
        grid: vec![vec![false; board.cols as usize]; board.rows as usize],
        total: board.squares() as usize,
        start: (start.row as i32, start.col as i32),
        closed,
        to: to.map(|t| (t.row as i32, t.col as i32)),
    };
    s.grid[start.row as usize][start.col as usize] = true;
    s.solve(start.row as i32, start.col as i32, 1)
}

/// Every directed open tour of the board, start by start.
#[must_use]
pub fn count_open_all(board: Board, piece: &Piece, to: Option<Square>) -> u64 {
    (0..board.rows)
        .flat_map(|r| (0..board.cols).map(move |c| Square::new(r, c)))
        .map(|s| count_from(board, piece, s, false, to))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_known_values() {
        let k = Piece::knight();
        assert_eq!(count_open_all(Board { rows: 3, cols: 4 }, &k, None), 16);
        assert_eq!(count_open_all(Board { rows: 4, cols: 4 }, &k, None), 0);
        assert_eq!(count_open_all(Board { rows: 1, cols: 1 }, &k, None), 1);
        // 3x10 has 16 closed tours; read from a1 each is found in both directions
        assert_eq!(
            count_from(
                Board { rows: 3, cols: 10 },
                &k,
                Square::new(0, 0),
                true,
                None
            ),
            32
        );
    }
}
