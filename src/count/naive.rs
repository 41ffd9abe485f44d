//! The naive counter: plain recursive backtracking over a 2-D array, as textbooks write it. No
//! bitboards, no pruning, no symmetry: a baseline for benchmarks and an independent cross-check.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::board::{Board, Square};
use crate::piece::Piece;

/// Nodes between two looks at the stop flag: rare enough to leave the textbook loop as it is.
const STOP_EVERY: u64 = 1 << 16;

struct Naive<'s> {
    rows: i32,
    cols: i32,
    offsets: Vec<(i32, i32)>,
    grid: Vec<Vec<bool>>,
    total: usize,
    start: (i32, i32),
    closed: bool,
    to: Option<(i32, i32)>,
    stop: &'s AtomicBool,
    nodes: u64,
    stopped: bool,
}

impl Naive<'_> {
    fn solve(&mut self, r: i32, c: i32, visited: usize) -> u64 {
        self.nodes += 1;
        // Relaxed: the flag only asks the search to give up; nothing is published through it
        if self.nodes % STOP_EVERY == 0 && self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
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
    let never = AtomicBool::new(false);
    count_from_until(board, piece, start, closed, to, &never).expect("never stopped")
}

/// [`count_from`], giving up (`None`) within moments of `stop` being set: what lets a benchmark
/// or Ctrl-C end a naive count that would take hours.
#[must_use]
pub fn count_from_until(
    board: Board,
    piece: &Piece,
    start: Square,
    closed: bool,
    to: Option<Square>,
    stop: &AtomicBool,
) -> Option<u64> {
    let mut s = Naive {
        rows: board.rows as i32,
        cols: board.cols as i32,
        offsets: piece.offsets(),
        grid: vec![vec![false; board.cols as usize]; board.rows as usize],
        total: board.squares() as usize,
        start: (start.row as i32, start.col as i32),
        closed,
        to: to.map(|t| (t.row as i32, t.col as i32)),
        stop,
        nodes: 0,
        stopped: false,
    };
    s.grid[start.row as usize][start.col as usize] = true;
    let c = s.solve(start.row as i32, start.col as i32, 1);
    (!s.stopped).then_some(c)
}

/// Every directed open tour of the board, start by start.
#[must_use]
pub fn count_open_all(board: Board, piece: &Piece, to: Option<Square>) -> u64 {
    let never = AtomicBool::new(false);
    count_open_all_until(board, piece, to, &never).expect("never stopped")
}

/// [`count_open_all`], giving up (`None`) within moments of `stop` being set.
#[must_use]
pub fn count_open_all_until(
    board: Board,
    piece: &Piece,
    to: Option<Square>,
    stop: &AtomicBool,
) -> Option<u64> {
    (0..board.rows)
        .flat_map(|r| (0..board.cols).map(move |c| Square::new(r, c)))
        .map(|s| count_from_until(board, piece, s, false, to, stop))
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

    #[test]
    fn a_set_flag_stops_the_count() {
        let stop = AtomicBool::new(true);
        // 5x5 from a1 visits far more than STOP_EVERY nodes, so the flag is seen
        let b = Board { rows: 5, cols: 5 };
        let k = Piece::knight();
        assert_eq!(
            count_from_until(b, &k, Square::new(0, 0), false, None, &stop),
            None
        );
        assert_eq!(count_open_all_until(b, &k, None, &stop), None);
        let go = AtomicBool::new(false);
        assert_eq!(
            count_from_until(b, &k, Square::new(0, 0), false, None, &go),
            Some(304)
        );
    }
}
