//! The Markov chain for boards beyond exact sampling: backbite moves on a Hamiltonian path
//! (Mansfield 2006) and two-edge exchanges, whose stationary distribution is uniform over the
//! tours, started from a tour the finder makes. Samples from it are approximately uniform, never exactly.
//!
//! **Open tours.** The state is a path through every square. A move picks one of the two ends
//! (probability 1/2) and one of the piece's move directions (probability 1/d, all d of them,
//! whether or not they stay on the board). When the square `w` reached is on the board and is not
//! the end's own neighbour on the path, the edge from `w` towards that end is cut and the end
//! joined to `w`: the segment between is reversed and the square after `w` becomes the end.
//! Otherwise the path stays. The move from the new path back (the new end, the direction to `w`)
//! has the same probability `1/(2d)`: the proposal is symmetric, so detailed balance holds with a
//! constant and every path (a sequence of squares, so each tour in each direction) is equally
//! likely in the stationary distribution. With `--from` the start stays fixed and only the other
//! end moves (`1/d` each way).
//!
//! Backbites alone are not enough on the knight's graph: they never change the colour of an end
//! (the new end is two moves from the old), and on 5x5 they reach exactly half of the 1,728 tours
//! from any start (measured). Every other move is therefore a two-edge exchange (2-opt, see
//! `Chain::exchange`), also symmetric; with it the chain reaches all of them. Each move is a
//! backbite or an exchange with probability 1/2, a mixture of symmetric proposals, so the
//! stationary distribution stays uniform. Open paths are printed in a direction a fair coin
//! picks (backbites keep each end on its colour, which on boards with an even number of squares
//! fixes the direction).
//!
//! **Closed tours.** The same chain runs on open paths; a path whose ends are a move apart
//! closes into a cycle, and every cycle of `n` squares is the closing of exactly `n` such paths
//! (one per edge left out). The chain observed only at its steps in that set (its trace) has the
//! uniform distribution restricted to the set, so each cycle is equally likely. At every such step
//! the path is also re-opened at an edge of its cycle chosen uniformly (a move within the `n`
//! paths of one cycle, which keeps that distribution and lets the chain turn the cycle).
//!
//! **Not proved:** that the backbite moves connect every pair of tours of the knight's graph
//! (irreducibility), so the chain might not reach every tour; nor how fast it mixes. The burn-in
//! and the thinning are chosen from measured autocorrelations (`results/sampling.md`).

use crate::board::Board;
use crate::piece::Piece;

/// One chain: a path through every square (square indices), with each square's place in it.
#[derive(Clone, Debug)]
pub struct Chain {
    path: Vec<u32>,
    pos: Vec<u32>,
    rng: fastrand::Rng,
    /// The start square is fixed (`--from`, open tours).
    pinned: bool,
    closed: bool,
}

/// The board's moves for the chain: every direction of the piece as a `(row, col)` offset.
#[derive(Clone, Debug)]
pub struct Moves {
    rows: i64,
    cols: i64,
    offsets: Vec<(i64, i64)>,
}

impl Moves {
    #[must_use]
    pub fn new(board: Board, piece: &Piece) -> Moves {
        Moves {
            rows: i64::from(board.rows),
            cols: i64::from(board.cols),
            offsets: piece
                .offsets()
                .into_iter()
                .map(|(r, c)| (i64::from(r), i64::from(c)))
                .collect(),
        }
    }

    /// The square one move in direction `d` from `sq`, if on the board.
    #[inline]
    fn step(&self, sq: u32, d: usize) -> Option<u32> {
        let (r, c) = (i64::from(sq) / self.cols, i64::from(sq) % self.cols);
        let (dr, dc) = self.offsets[d];
        let (nr, nc) = (r + dr, c + dc);
        (nr >= 0 && nc >= 0 && nr < self.rows && nc < self.cols)
            .then(|| (nr * self.cols + nc) as u32)
    }

    /// Whether `a` and `b` are a move apart.
    #[inline]
    #[must_use]
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        (0..self.offsets.len()).any(|d| self.step(a, d) == Some(b))
    }
}

impl Chain {
    /// A chain at `path` (a tour: a closed one for a closed chain), seeded by `seed`.
    #[must_use]
    pub fn new(path: Vec<u32>, closed: bool, pinned: bool, seed: u64) -> Chain {
        let mut pos = vec![0; path.len()];
        for (i, &s) in path.iter().enumerate() {
            pos[s as usize] = i as u32;
        }
        Chain {
            path,
            pos,
            rng: fastrand::Rng::with_seed(seed),
            pinned,
            closed,
        }
    }

    #[must_use]
    pub fn path(&self) -> &[u32] {
        &self.path
    }

    /// Reverses `path[a..b]` and updates the places.
    #[inline]
    fn reverse(&mut self, a: usize, b: usize) {
        self.path[a..b].reverse();
        for i in a..b {
            self.pos[self.path[i] as usize] = i as u32;
        }
    }

    /// One move: a backbite or a two-edge exchange, each with probability 1/2 (either may
    /// leave the path as it is).
    #[inline]
    pub fn step(&mut self, moves: &Moves) {
        if self.rng.bool() {
            self.backbite(moves);
        } else {
            self.exchange(moves);
        }
    }

    /// The two-edge exchange (2-opt): a place `i` on the path (uniform) and a direction `d`
    /// (uniform, all `d` of them) give the square `c` one move from the `i`-th; if `c` lies at a
    /// place `j > i + 1` and the squares after `i` and after `j` are a move apart, the edges
    /// `(i, i+1)` and `(j, j+1)` are swapped for `(i, j)` and `(i+1, j+1)` by reversing the
    /// segment between. The move back is the same `i` with the direction to the square now at
    /// `i + 1` (the old `j`): the same probability, so the proposal is symmetric. It keeps both
    /// ends, and breaks the invariant that confines backbites to part of the tours (5x5: half).
    #[inline]
    fn exchange(&mut self, moves: &Moves) {
        let n = self.path.len();
        if n < 4 {
            return;
        }
        let i = self.rng.usize(..n - 1);
        let d = self.rng.usize(..moves.offsets.len());
        let Some(c) = moves.step(self.path[i], d) else {
            return;
        };
        let j = self.pos[c as usize] as usize;
        if j <= i + 1 || j + 1 >= n || !moves.adjacent(self.path[i + 1], self.path[j + 1]) {
            return;
        }
        self.reverse(i + 1, j + 1);
    }

    /// One backbite move (which may leave the path as it is).
    #[inline]
    fn backbite(&mut self, moves: &Moves) {
        let n = self.path.len();
        if n < 3 {
            return;
        }
        let tail = self.pinned || self.rng.bool();
        let d = self.rng.usize(..moves.offsets.len());
        let end = if tail { self.path[n - 1] } else { self.path[0] };
        let Some(w) = moves.step(end, d) else {
            return;
        };
        let i = self.pos[w as usize] as usize;
        if tail {
            if i + 2 > n - 1 {
                // w is the end's neighbour on the path (or the end itself: no move does that)
                return;
            }
            self.reverse(i + 1, n);
        } else {
            if i < 2 {
                return;
            }
            self.reverse(0, i);
        }
    }

    /// Whether the path's ends are a move apart (it closes into a cycle).
    #[inline]
    #[must_use]
    pub fn closable(&self, moves: &Moves) -> bool {
        let n = self.path.len();
        n >= 3 && moves.adjacent(self.path[0], self.path[n - 1])
    }

    /// Opens the cycle of a closable path at one of its `n` edges chosen uniformly.
    fn reopen(&mut self) {
        let n = self.path.len();
        let k = self.rng.usize(..n);
        if k > 0 {
            self.path.rotate_left(k);
            for (i, &s) in self.path.iter().enumerate() {
                self.pos[s as usize] = i as u32;
            }
        }
    }

    /// Advances the chain by `thin` samples' worth: `thin` backbite moves (open tours), or
    /// `thin` steps spent among closable paths (closed tours, each followed by a re-opening).
    pub fn advance(&mut self, moves: &Moves, thin: u64) {
        if !self.closed {
            for _ in 0..thin {
                self.step(moves);
            }
            return;
        }
        let mut visits = 0;
        while visits < thin {
            self.step(moves);
            if self.closable(moves) {
                visits += 1;
                self.reopen();
            }
        }
    }

    /// A fair coin from the chain's generator (the direction a tour is printed in).
    pub fn coin(&mut self) -> bool {
        self.rng.bool()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour::verify;

    #[test]
    fn backbites_keep_a_hamiltonian_path() {
        let b = Board { rows: 6, cols: 6 };
        let piece = Piece::knight();
        let t = crate::find::find_tour(b, &piece, &crate::find::FindOptions::new(true, None, 1))
            .unwrap()
            .tour;
        let path: Vec<u32> = t.path.iter().map(|&s| b.index(s)).collect();
        let moves = Moves::new(b, &piece);
        for (closed, pinned) in [(false, false), (false, true), (true, false)] {
            let mut c = Chain::new(path.clone(), closed, pinned, 7);
            for _ in 0..200 {
                c.advance(&moves, 3);
                let sq: Vec<_> = c.path().iter().map(|&i| b.square(i)).collect();
                let is_closed = verify(b, &piece, &sq).unwrap();
                assert!(!closed || is_closed);
                if pinned {
                    assert_eq!(c.path()[0], path[0]);
                }
            }
        }
    }
}
