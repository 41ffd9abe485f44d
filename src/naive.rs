//! The naive counter: plain recursive backtracking over a 2-D array, as textbooks write it. No
//! bitboards, no pruning, no symmetry: a baseline for benchmarks and an independent cross-check.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use num_bigint::BigUint;

use crate::board::{Board, Square};
use crate::engine::{
    Count, CountEngine, CountSpec, Host, Limits, Ran, Recorded, Request, RunError, Split,
    u64_counts,
};
use crate::piece::Piece;

/// The largest board the naive engine accepts: past it a count takes hours.
pub const NAIVE_MAX_SQUARES: u64 = 36;

/// Nodes between two looks at the stop flag: rare enough to leave the textbook loop as it is.
const STOP_EVERY: u64 = 1 << 16;

struct Search<'s> {
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

impl Search<'_> {
    fn solve(&mut self, r: i32, c: i32, visited: usize) -> u64 {
        self.nodes += 1;
        // Relaxed: the flag only asks the search to give up; nothing is published through it
        if self.nodes.is_multiple_of(STOP_EVERY) && self.stop.load(Ordering::Relaxed) {
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
    let mut s = Search {
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

/// The pieces of a naive count: open tours from every square are one piece a start square (so
/// that the table by start square falls out of them); every other count is one piece.
fn pieces(board: Board, spec: &CountSpec) -> usize {
    if !spec.closed && spec.from.is_none() {
        board.squares() as usize
    } else {
        1
    }
}

/// Counts piece `i` (see [`pieces`]): directed tours, closed ones found in both directions from
/// a1 when no end is fixed; `None` when stopped.
fn count_piece(req: Request<'_>, i: usize, stop: &AtomicBool) -> Option<u64> {
    let (board, piece, spec) = (req.board, req.piece, req.spec);
    if spec.closed {
        // every closed tour passes a1; read from there each cycle is found in both directions
        let start = spec
            .from
            .filter(|_| spec.to.is_some())
            .unwrap_or(board.square(0));
        let to = spec.from.and(spec.to);
        count_from_until(board, piece, start, true, to, stop)
    } else {
        let start = spec.from.unwrap_or(board.square(i as u32));
        count_from_until(board, piece, start, false, spec.to, stop)
    }
}

/// The figures of a naive count from its pieces' counts (directed, as [`count_piece`] gives
/// them).
fn figures(req: Request<'_>, counts: &[u64], complete: bool) -> Count {
    let (board, spec) = (req.board, req.spec);
    let n = board.squares();
    let c: u64 = counts.iter().sum();
    let (undirected, how) = if spec.closed {
        if spec.from.is_some() && spec.to.is_some() {
            (c, "backtracking from the start square to the end square")
        } else {
            (c / 2, "backtracking from a1, closed paths found twice each")
        }
    } else if spec.from.is_some() {
        (c, "backtracking from the start square")
    } else {
        let und = if spec.to.is_some() || n == 1 {
            c
        } else {
            c / 2
        };
        (und, "backtracking from every square")
    };
    Count {
        directed: c.into(),
        undirected: undirected.into(),
        how: how.into(),
        reason: None,
        per_square: (complete && spec.per_square).then(|| counts.to_vec()),
        seconds: 0.0,
        peak: None,
        work: None,
    }
}

/// Counts as the naive engine does, on this thread, piece after piece; `None` when `stop` was
/// set before it finished (what the bench times).
pub fn count(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    t0: Instant,
    stop: &AtomicBool,
) -> Option<Count> {
    let req = Request { board, piece, spec };
    let counts = (0..pieces(board, spec))
        .map(|i| count_piece(req, i, stop))
        .collect::<Option<Vec<u64>>>()?;
    Some(Count {
        seconds: t0.elapsed().as_secs_f64(),
        ..figures(req, &counts, true)
    })
}

/// Plain backtracking as an engine of the driver.
#[derive(Clone, Copy, Debug, Default)]
pub struct Naive;

impl CountEngine for Naive {
    fn name(&self) -> &'static str {
        "naive"
    }

    fn run(&self, req: Request<'_>, _limits: &Limits, host: &dyn Host) -> Result<Ran, RunError> {
        let split = Split {
            pieces: pieces(req.board, req.spec),
            param: 0,
            fingerprint: 0,
            weights: Vec::new(),
        };
        for i in host.start(&split)? {
            match count_piece(req, i, host.stop()) {
                Some(c) => host.done(i, c.into())?,
                None => break,
            }
        }
        Ok(Ran::default())
    }

    fn total(
        &self,
        req: Request<'_>,
        cut: &Recorded,
        counts: &BTreeMap<usize, BigUint>,
        complete: bool,
    ) -> Result<Count, RunError> {
        Ok(figures(req, &u64_counts(counts, cut.pieces), complete))
    }
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
