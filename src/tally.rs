//! What a set of tours looks like: how often each move of the board is used, and two statistics
//! of shape (straight moves, crossings) with their means and spreads. Two sets of the same board
//! are set side by side and their difference measured in standard errors, which is how the
//! Markov chain's bias is measured against the exact sampler (`knights tally`).
//!
//! A crossing is a pair of the tour's moves whose segments, drawn between square centres, meet at
//! a point inside both (moves that only share an end, or that lie on one line, do not cross).
//! Each move can only cross moves that start within a leap of its own box, so a tour's crossings
//! are found in time linear in its length, on any board.

use std::collections::HashMap;

use crate::board::{Board, Square};
use crate::piece::Piece;
use crate::sample::stats::{erfc, straight_triples};

/// The largest board tallied: the moves of the board are held one counter each (4 a square
/// for the knight), as for the pictures (`render::svg::MAX_SQUARES`).
pub const MAX_SQUARES: u64 = 250_000;

/// The family-wise probability that [`Comparison::beyond`] counts a move whose share does not
/// differ at all: each move is tested at this over the number of moves (Bonferroni).
pub const FAMILY_ALPHA: f64 = 1e-3;

/// Why a tour cannot be added to a tally.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TallyError {
    #[error(
        "a tally holds tours of one board and kind: this one is {found}, the first was {first} (a move list takes its board from the squares it reaches unless --board gives it)"
    )]
    Mixed { first: String, found: String },
    #[error(
        "tally reads tours of boards of up to {MAX_SQUARES} squares (500x500); the {0} board has more"
    )]
    TooLarge(Board),
}

/// The mean and spread of a statistic over the tours.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Moments {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    #[must_use]
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The sample standard deviation (0 below two values).
    #[must_use]
    pub fn sd(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// The standard error of the mean.
    #[must_use]
    pub fn se(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sd() / (self.n as f64).sqrt()
        }
    }
}

/// The tours added so far: how many use each move, and the statistics of shape.
#[derive(Clone, Debug)]
pub struct Tally {
    pub board: Board,
    pub closed: bool,
    /// The moves of the piece on the board, each as (smaller index, larger index), sorted.
    moves: Vec<(u32, u32)>,
    index: HashMap<(u32, u32), usize>,
    /// How far a move reaches along a rank or file, at most.
    reach: u32,
    uses: Vec<u64>,
    pub tours: u64,
    pub straight: Moments,
    pub crossings: Moments,
}

impl Tally {
    /// An empty tally of `piece`'s tours on `board`.
    pub fn new(board: Board, piece: &Piece, closed: bool) -> Result<Tally, TallyError> {
        if board.squares() > MAX_SQUARES {
            return Err(TallyError::TooLarge(board));
        }
        let offsets = piece.offsets();
        let mut moves = Vec::new();
        for i in 0..board.squares() as u32 {
            let s = board.square(i);
            for &(dr, dc) in &offsets {
                let (r, c) = (
                    i64::from(s.row) + i64::from(dr),
                    i64::from(s.col) + i64::from(dc),
                );
                if board.contains(r, c) {
                    let j = board.index(Square {
                        row: r as u32,
                        col: c as u32,
                    });
                    if j > i {
                        moves.push((i, j));
                    }
                }
            }
        }
        moves.sort_unstable();
        moves.dedup();
        let index = moves.iter().enumerate().map(|(k, &m)| (m, k)).collect();
        let reach = offsets
            .iter()
            .map(|&(dr, dc)| dr.unsigned_abs().max(dc.unsigned_abs()))
            .max()
            .unwrap_or(0);
        Ok(Tally {
            board,
            closed,
            uses: vec![0; moves.len()],
            moves,
            index,
            reach,
            tours: 0,
            straight: Moments::default(),
            crossings: Moments::default(),
        })
    }

    /// The board and kind of tour, in words, to say why two do not mix.
    #[must_use]
    pub fn kind(&self) -> String {
        format!(
            "{} tours of {}",
            if self.closed { "closed" } else { "open" },
            self.board
        )
    }

    /// Adds a tour, already verified as a tour of the piece on this board (closed tours: the
    /// path without its start repeated).
    pub fn add(&mut self, board: Board, closed: bool, path: &[Square]) -> Result<(), TallyError> {
        if board != self.board || closed != self.closed {
            let found = format!(
                "{} tours of {board}",
                if closed { "closed" } else { "open" }
            );
            return Err(TallyError::Mixed {
                first: self.kind(),
                found,
            });
        }
        let ix: Vec<u32> = path.iter().map(|&s| board.index(s)).collect();
        for (a, b) in steps(&ix, closed) {
            let k = self.index[&(a.min(b), a.max(b))];
            self.uses[k] += 1;
        }
        self.tours += 1;
        self.straight.add(f64::from(straight_triples(path, closed)));
        self.crossings
            .add(crossings(board, self.reach, &ix, closed) as f64);
        Ok(())
    }

    /// Every move of the board with the share of tours that use it.
    pub fn shares(&self) -> impl Iterator<Item = (Square, Square, f64)> + '_ {
        self.moves.iter().zip(&self.uses).map(|(&(a, b), &u)| {
            (
                self.board.square(a),
                self.board.square(b),
                if self.tours == 0 {
                    0.0
                } else {
                    u as f64 / self.tours as f64
                },
            )
        })
    }

    /// How many of the tours use the move between `a` and `b` (None: not a move on this board).
    #[must_use]
    pub fn uses(&self, a: Square, b: Square) -> Option<u64> {
        let (i, j) = (self.board.index(a), self.board.index(b));
        self.index.get(&(i.min(j), i.max(j))).map(|&k| self.uses[k])
    }

    /// This tally measured against `reference`, a tally of the same board, kind and piece (the
    /// moves are paired in order).
    #[must_use]
    pub fn against(&self, reference: &Tally) -> Comparison {
        assert!(
            self.moves == reference.moves && self.closed == reference.closed,
            "a tally is measured against one of the same board, kind and piece"
        );
        let mut moves: Vec<MoveDifference> = self
            .moves
            .iter()
            .zip(self.uses.iter().zip(&reference.uses))
            .map(|(&(a, b), (&x, &y))| MoveDifference {
                from: self.board.square(a),
                to: self.board.square(b),
                share: x as f64 / self.tours.max(1) as f64,
                reference: y as f64 / reference.tours.max(1) as f64,
                z: two_proportions(x, self.tours, y, reference.tours),
            })
            .collect();
        moves.sort_by(|p, q| q.z.abs().total_cmp(&p.z.abs()));
        let bound = normal_upper_quantile(FAMILY_ALPHA / 2.0 / moves.len().max(1) as f64);
        let beyond = moves.iter().filter(|m| m.z.abs() > bound).count();
        let distance = moves
            .iter()
            .map(|m| (m.share - m.reference).abs())
            .sum::<f64>()
            / 2.0
            / (self.board.squares() - u64::from(!self.closed)).max(1) as f64;
        Comparison {
            straight: Difference::of(&self.straight, &reference.straight),
            crossings: Difference::of(&self.crossings, &reference.crossings),
            moves,
            bound,
            beyond,
            distance,
        }
    }
}

/// The difference of a statistic's mean from the reference's, in its units and in standard
/// errors (Welch's z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub mean: f64,
    pub z: f64,
}

impl Difference {
    fn of(x: &Moments, reference: &Moments) -> Difference {
        let mean = x.mean() - reference.mean();
        let se = x.se().hypot(reference.se());
        Difference {
            mean,
            z: if se > 0.0 { mean / se } else { 0.0 },
        }
    }
}

/// One move's share of tours in a tally and in the reference, and the difference in standard
/// errors (the two-proportion z with the pooled share).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveDifference {
    pub from: Square,
    pub to: Square,
    pub share: f64,
    pub reference: f64,
    pub z: f64,
}

/// A tally against a reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub straight: Difference,
    pub crossings: Difference,
    /// Every move, the largest difference first.
    pub moves: Vec<MoveDifference>,
    /// The |z| a move's difference passes with probability [`FAMILY_ALPHA`] over all moves
    /// together where the two samplers draw alike.
    pub bound: f64,
    /// The moves whose |z| passes `bound`: where there are any, the two differ (the chance of
    /// one where they do not is [`FAMILY_ALPHA`]).
    pub beyond: usize,
    /// Half the summed differences of share over the moves, over the moves of a tour: the share
    /// of a tour's moves that would have to go elsewhere, on average, to match (0 when equal).
    pub distance: f64,
}

/// The consecutive pairs of a path (closed: and back to the start).
fn steps(ix: &[u32], closed: bool) -> impl Iterator<Item = (u32, u32)> + '_ {
    let wrap = if closed && ix.len() > 2 {
        Some((ix[ix.len() - 1], ix[0]))
    } else {
        None
    };
    ix.windows(2).map(|w| (w[0], w[1])).chain(wrap)
}

/// The crossings of the path `ix` (square indices), moves reaching at most `reach`.
#[must_use]
pub fn crossings(board: Board, reach: u32, ix: &[u32], closed: bool) -> u64 {
    // the moves leaving each square, by their number along the path
    let n = board.squares() as usize;
    let mut leaving: Vec<[u32; 2]> = vec![[u32::MAX; 2]; n];
    let list: Vec<(u32, u32)> = steps(ix, closed).collect();
    for (k, &(a, _)) in list.iter().enumerate() {
        let slot = &mut leaving[a as usize];
        let at = usize::from(slot[0] != u32::MAX);
        slot[at] = k as u32;
    }
    let point = |i: u32| {
        let s = board.square(i);
        (i64::from(s.row), i64::from(s.col))
    };
    let reach = i64::from(reach);
    let mut count = 0;
    for (k, &(a, b)) in list.iter().enumerate() {
        let (p, q) = (point(a), point(b));
        let rows =
            (p.0.min(q.0) - reach).max(0)..=(p.0.max(q.0) + reach).min(i64::from(board.rows) - 1);
        for r in rows {
            let cols = (p.1.min(q.1) - reach).max(0)
                ..=(p.1.max(q.1) + reach).min(i64::from(board.cols) - 1);
            for c in cols {
                let s = board.index(Square {
                    row: r as u32,
                    col: c as u32,
                });
                for &m in &leaving[s as usize] {
                    if m != u32::MAX && m as usize > k {
                        let (x, y) = list[m as usize];
                        if cross(p, q, point(x), point(y)) {
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    count
}

/// Whether the segments pq and xy meet at a point inside both.
fn cross(p: (i64, i64), q: (i64, i64), x: (i64, i64), y: (i64, i64)) -> bool {
    let side = |a: (i64, i64), b: (i64, i64), c: (i64, i64)| {
        ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).signum()
    };
    let (d1, d2) = (side(p, q, x), side(p, q, y));
    let (d3, d4) = (side(x, y, p), side(x, y, q));
    d1 * d2 < 0 && d3 * d4 < 0
}

/// The z of the difference between x of n and y of m, with the pooled share (0 where every
/// tour of both uses the move or none does).
fn two_proportions(x: u64, n: u64, y: u64, m: u64) -> f64 {
    if n == 0 || m == 0 {
        return 0.0;
    }
    let (n, m) = (n as f64, m as f64);
    let pooled = (x as f64 + y as f64) / (n + m);
    let se = (pooled * (1.0 - pooled) * (1.0 / n + 1.0 / m)).sqrt();
    if se > 0.0 {
        (x as f64 / n - y as f64 / m) / se
    } else {
        0.0
    }
}

/// The z that a standard normal passes with probability `p` (bisection on the tail).
#[must_use]
pub fn normal_upper_quantile(p: f64) -> f64 {
    let tail = |z: f64| 0.5 * erfc(z / std::f64::consts::SQRT_2);
    let (mut lo, mut hi) = (-10.0, 40.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if tail(mid) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(board: Board, names: &str) -> Vec<Square> {
        names
            .split_whitespace()
            .map(|n| board.parse_square(n).unwrap())
            .collect()
    }

    #[test]
    fn crossings_are_pairs_meeting_inside_both() {
        let b = Board { rows: 4, cols: 4 };
        let ix = |p: &[Square]| p.iter().map(|&s| b.index(s)).collect::<Vec<_>>();
        let p = path(b, "a1 b3 d4 c2 a3");
        // moves: a1-b3, b3-d4, d4-c2, c2-a3; a1-b3 crosses c2-a3; nothing else crosses
        assert_eq!(crossings(b, 2, &ix(&p), false), 1);
        // moves that share an end never cross
        let q = path(b, "a1 b3 c1");
        assert_eq!(crossings(b, 2, &ix(&q), false), 0);
        // the same count however far the scan reaches, and by brute force over every pair
        // a closed six-move cycle (not a tour; crossings do not ask)
        let ir = ix(&path(b, "a1 c2 a3 b1 d2 b3"));
        let all: Vec<(u32, u32)> = steps(&ir, true).collect();
        let mut brute = 0;
        let pt = |i: u32| (i64::from(b.square(i).row), i64::from(b.square(i).col));
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                if cross(pt(all[i].0), pt(all[i].1), pt(all[j].0), pt(all[j].1)) {
                    brute += 1;
                }
            }
        }
        assert!(brute > 0);
        assert_eq!(crossings(b, 2, &ir, true), brute);
        assert_eq!(crossings(b, 4, &ir, true), brute);
    }

    #[test]
    fn collinear_and_touching_segments_do_not_cross() {
        assert!(!cross((0, 0), (2, 1), (2, 1), (4, 2)));
        assert!(!cross((0, 0), (0, 3), (0, 1), (0, 4)));
        assert!(!cross((0, 0), (2, 2), (1, 1), (3, 0)));
        assert!(cross((0, 0), (2, 1), (2, 0), (1, 2)));
    }

    #[test]
    fn quantiles_invert_the_tail() {
        assert!((normal_upper_quantile(0.025) - 1.959_964).abs() < 1e-4);
        assert!((normal_upper_quantile(1e-6) - 4.753_424).abs() < 1e-3);
    }

    #[test]
    fn a_tally_against_another_differs_by_the_moves_they_do_not_share_and_mixed_tours_are_refused()
    {
        let b = Board { rows: 3, cols: 4 };
        let k = Piece::knight();
        let mut t = Tally::new(b, &k, false).unwrap();
        let tour = path(b, "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3");
        t.add(b, false, &tour).unwrap();
        t.add(b, false, &tour).unwrap();
        assert_eq!(t.tours, 2);
        assert_eq!(
            t.uses(b.parse_square("c2").unwrap(), b.parse_square("a1").unwrap()),
            Some(2)
        );
        assert_eq!(
            t.uses(b.parse_square("a1").unwrap(), b.parse_square("a2").unwrap()),
            None
        );
        assert_eq!(t.shares().filter(|m| m.2 == 1.0).count(), 11);
        // against a tally of that tour and its mirror image, which share 8 of their 11 moves:
        // the 3 moves of each alone differ by a half (z = 0.5 / sqrt(3/4 * 1/4 * (1/2 + 1/2))
        // either way), the 8 shared not at all, and the distance is 3 moves' half of 11 moves
        let mut u = Tally::new(b, &k, false).unwrap();
        u.add(b, false, &tour).unwrap();
        u.add(b, false, &path(b, "d1 b2 d3 c1 a2 c3 b1 d2 b3 a1 c2 a3"))
            .unwrap();
        let c = t.against(&u);
        let z = 0.5 / (0.75f64 * 0.25).sqrt();
        let zs: Vec<f64> = c.moves.iter().map(|m| m.z.abs()).collect();
        assert_eq!(
            zs.iter().filter(|&&x| (x - z).abs() < 1e-12).count(),
            6,
            "{zs:?}"
        );
        assert_eq!(zs.iter().filter(|&&x| x == 0.0).count(), c.moves.len() - 6);
        assert!((c.distance - 3.0 / 22.0).abs() < 1e-12, "{}", c.distance);
        assert_eq!(c.beyond, 0, "z = {z:.3} is far below the family's bound");
        // a tally of shares other than 1 against itself differs nowhere
        let same = u.against(&u);
        assert_eq!((same.beyond, same.distance), (0, 0.0));
        assert!(same.moves.iter().all(|m| m.z == 0.0));
        assert_eq!(same.straight.mean, 0.0);
        let e = t.add(b, true, &tour).unwrap_err();
        assert!(e.to_string().contains("closed tours of 3x4"), "{e}");
    }
}
