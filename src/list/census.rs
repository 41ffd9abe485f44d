//! The census of listed tours: the conditions of `--where` and the properties `--histogram`
//! counts, computed from a tour's squares.
//!
//! Every property here is the same for a tour, its reverse and its images under the board's
//! symmetries (the listing relies on it to compute them once per search path, whatever number
//! of tours it prints from that path; the tests recompute them on every tour printed).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::Board;
use crate::graph::{Geometry, SmallGraph};
use crate::piece::Piece;

/// A condition a listed tour must meet (`--where`); several must all hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// The two ends are one move apart: the open tour closes into a cycle (every closed tour
    /// does).
    Closable,
    /// A rotation or reflection of the board other than the identity maps the tour onto itself:
    /// an open tour onto itself or its reverse (as a path), a closed tour onto itself as a cycle.
    Symmetric,
    /// Exactly this many moves continue in the direction of the move before.
    Straight(u32),
}

/// A `--where` text that names no condition.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("invalid condition '{}': allowed: closable, symmetric, straight=N (N a whole number of moves)", crate::error::clip(.0))]
pub struct FilterError(pub String);

impl FromStr for Filter {
    type Err = FilterError;

    fn from_str(s: &str) -> Result<Filter, FilterError> {
        let bad = || FilterError(s.to_string());
        match s.trim() {
            "closable" => Ok(Filter::Closable),
            "symmetric" => Ok(Filter::Symmetric),
            t => {
                let n = t.strip_prefix("straight=").ok_or_else(bad)?;
                n.trim().parse().map(Filter::Straight).map_err(|_| bad())
            }
        }
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Filter::Closable => f.write_str("closable"),
            Filter::Symmetric => f.write_str("symmetric"),
            Filter::Straight(n) => write!(f, "straight={n}"),
        }
    }
}

/// A number each tour has, whose distribution over the tours listed `--histogram` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Property {
    /// Moves that continue in the direction of the move before (a closed tour's moves are read
    /// around the cycle).
    Straight,
    /// How many different turn shapes the tour uses: a turn is a move and the next, its shape
    /// the angle between them (0 for a straight continuation) and the two moves' lengths; the
    /// knight has six (0, 37, 53, 90, 127 and 143 degrees).
    Turns,
    /// The fewest moves of the piece between the tour's first and last squares (1 for a
    /// closed tour).
    EndDistance,
}

impl Property {
    /// The name on the command line and in the JSON.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Property::Straight => "straight",
            Property::Turns => "turns",
            Property::EndDistance => "end-distance",
        }
    }

    /// What the value counts, for a table's heading.
    #[must_use]
    pub const fn meaning(self) -> &'static str {
        match self {
            Property::Straight => "moves that continue in the direction of the move before",
            Property::Turns => "different turn shapes used (the angle from one move to the next)",
            Property::EndDistance => "moves of the piece between the first and last squares",
        }
    }
}

/// The board's geometry the properties need, made once per listing: each square's rank and
/// file, the symmetries (as permutations of square indices) and the move distances.
#[derive(Clone, Debug)]
pub struct Census {
    n: usize,
    rows: Vec<i32>,
    cols: Vec<i32>,
    /// The board's symmetries whose permutation is not the identity (on a board one square wide
    /// some symmetries move no square), without repeats.
    perms: Vec<Vec<u8>>,
    /// `dist[a * n + b]`: the fewest moves from `a` to `b` (`u8::MAX` where none leads).
    dist: Vec<u8>,
    /// The move graph, for the closability of open tours.
    graph: SmallGraph,
}

impl Census {
    /// The census of `board` (at most 64 squares) for `piece`.
    #[must_use]
    pub fn new(board: Board, piece: &Piece) -> Census {
        let graph = SmallGraph::new(board, piece).expect("a board of at most 64 squares");
        let n = board.squares() as usize;
        let identity: Vec<u8> = (0..n as u8).collect();
        let mut perms: Vec<Vec<u8>> = Vec::new();
        for s in board.symmetries() {
            let p: Vec<u8> = board.permutation(s).iter().map(|&i| i as u8).collect();
            if p != identity && !perms.contains(&p) {
                perms.push(p);
            }
        }
        let geo = Geometry::new(board, piece);
        let mut dist = Vec::with_capacity(n * n);
        for a in 0..n as u32 {
            dist.extend(
                geo.distances(a)
                    .into_iter()
                    .map(|d| u8::try_from(d).unwrap_or(u8::MAX)),
            );
        }
        Census {
            n,
            rows: (0..n as u32).map(|i| board.square(i).row as i32).collect(),
            cols: (0..n as u32).map(|i| board.square(i).col as i32).collect(),
            perms,
            dist,
            graph,
        }
    }

    /// The move from the square at position `i` of `t` to the next (around the cycle).
    #[inline]
    fn step(&self, t: &[u8], i: usize) -> (i32, i32) {
        let (a, b) = (t[i] as usize, t[(i + 1) % t.len()] as usize);
        (self.rows[b] - self.rows[a], self.cols[b] - self.cols[a])
    }

    /// The turns of a tour: pairs of consecutive moves, `(move i - 1, move i)` for the inner
    /// squares of an open tour and for every square of a closed one.
    fn turns_of<'a>(
        &'a self,
        t: &'a [u8],
        closed: bool,
    ) -> impl Iterator<Item = ((i32, i32), (i32, i32))> + 'a {
        let n = t.len();
        let (first, moves) = if closed { (0, n) } else { (1, n - 1) };
        (first..moves.max(first)).map(move |i| (self.step(t, (i + n - 1) % n), self.step(t, i)))
    }

    /// Moves that continue in the direction of the move before.
    #[must_use]
    pub fn straight(&self, t: &[u8], closed: bool) -> u32 {
        self.turns_of(t, closed).filter(|(a, b)| a == b).count() as u32
    }

    /// Different turn shapes used: a shape is the pair of the two moves' squared lengths (in
    /// either order) and their dot product, which fix the angle between the moves up to a
    /// rotation or reflection of the plane.
    #[must_use]
    pub fn turns(&self, t: &[u8], closed: bool) -> u32 {
        let mut shapes: Vec<(i32, i32, i32)> = Vec::with_capacity(8);
        for ((ar, ac), (br, bc)) in self.turns_of(t, closed) {
            let (la, lb) = (ar * ar + ac * ac, br * br + bc * bc);
            let shape = (la.min(lb), la.max(lb), ar * br + ac * bc);
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
        shapes.len() as u32
    }

    /// The fewest moves between the first and last squares.
    #[must_use]
    pub fn end_distance(&self, t: &[u8]) -> u32 {
        let (a, b) = (t[0] as usize, t[t.len() - 1] as usize);
        u32::from(self.dist[a * self.n + b])
    }

    /// Whether the ends are one move apart.
    #[must_use]
    pub fn closable(&self, t: &[u8]) -> bool {
        t.len() >= 3 && self.graph.masks[t[0] as usize].contains(u32::from(t[t.len() - 1]))
    }

    /// Whether a symmetry other than the identity maps the tour onto itself (an open tour as a
    /// path, possibly reversed; a closed tour as a cycle).
    #[must_use]
    pub fn symmetric(&self, t: &[u8], closed: bool) -> bool {
        let n = t.len();
        if closed {
            // each square's two neighbours on the cycle; a symmetry keeps the cycle when it maps
            // every edge onto an edge
            let (mut next, mut prev) = ([0u8; 64], [0u8; 64]);
            for i in 0..n {
                let (a, b) = (t[i], t[(i + 1) % n]);
                next[a as usize] = b;
                prev[b as usize] = a;
            }
            self.perms.iter().any(|p| {
                (0..n).all(|i| {
                    let (a, b) = (p[t[i] as usize], p[t[(i + 1) % n] as usize]);
                    next[a as usize] == b || prev[a as usize] == b
                })
            })
        } else {
            self.perms.iter().any(|p| {
                (0..n).all(|i| p[t[i] as usize] == t[n - 1 - i])
                    || (0..n).all(|i| p[t[i] as usize] == t[i])
            })
        }
    }

    /// Whether the tour meets every condition.
    #[must_use]
    pub fn keeps(&self, filters: &[Filter], t: &[u8], closed: bool) -> bool {
        filters.iter().all(|f| match *f {
            Filter::Closable => closed || self.closable(t),
            Filter::Symmetric => self.symmetric(t, closed),
            Filter::Straight(k) => self.straight(t, closed) == k,
        })
    }

    /// The value of `property` for the tour.
    #[must_use]
    pub fn value(&self, property: Property, t: &[u8], closed: bool) -> u32 {
        match property {
            Property::Straight => self.straight(t, closed),
            Property::Turns => self.turns(t, closed),
            Property::EndDistance => self.end_distance(t),
        }
    }
}

/// How many tours have each value of a property: `counts[v]` tours have value `v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Counts one more tour of value `v`.
    pub fn add(&mut self, v: u32) {
        let v = v as usize;
        if self.counts.len() <= v {
            self.counts.resize(v + 1, 0);
        }
        self.counts[v] += 1;
    }

    /// The tours counted.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn census(b: &str) -> (Board, Census) {
        let board: Board = b.parse().unwrap();
        (board, Census::new(board, &Piece::knight()))
    }

    fn squares(board: Board, moves: &str) -> Vec<u8> {
        moves
            .split_whitespace()
            .map(|s| board.index(board.parse_square(s).unwrap()) as u8)
            .collect()
    }

    #[test]
    fn conditions_parse_and_name_the_bad_value() {
        assert_eq!("closable".parse(), Ok(Filter::Closable));
        assert_eq!("symmetric".parse(), Ok(Filter::Symmetric));
        assert_eq!("straight=3".parse(), Ok(Filter::Straight(3)));
        for bad in ["straight=x", "straight=-1", "straight", "round", ""] {
            let e = bad.parse::<Filter>().unwrap_err().to_string();
            assert!(
                e.contains(&format!("'{bad}'")) && e.contains("straight=N"),
                "{e}"
            );
        }
        for f in [Filter::Closable, Filter::Symmetric, Filter::Straight(7)] {
            assert_eq!(f.to_string().parse(), Ok(f));
        }
    }

    #[test]
    fn properties_of_a_3x4_tour() {
        let (b, c) = census("3x4");
        let t = squares(b, "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3");
        // moves: (1,2) (1,-2) (-2,1) (1,2) (1,-2) (-2,1) (1,-2) (1,2) (-2,1) (1,-2) (1,2)
        assert_eq!(c.straight(&t, false), 0);
        assert_eq!(c.end_distance(&t), 3);
        assert!(!c.closable(&t));
        // a1 <-> d3 by the half turn, reading the path backwards
        assert!(c.symmetric(&t, false));
        // shapes: (1,2)->(1,-2) dot -3, (1,-2)->(-2,1) dot -4, (-2,1)->(1,2) dot 0
        assert_eq!(c.turns(&t, false), 3);
    }

    #[test]
    fn straight_moves_around_a_cycle() {
        let (b, c) = census("5x6");
        // a closed tour found by the library, read around the cycle: its wrap-around turns count
        let found = crate::find::find_tour(
            b,
            &Piece::knight(),
            &crate::find::FindOptions::new(true, None, 0),
        )
        .unwrap()
        .tour;
        let t: Vec<u8> = found.path.iter().map(|&s| b.index(s) as u8).collect();
        let mut rotated = t.clone();
        rotated.rotate_left(7);
        let mut reversed = t.clone();
        reversed.reverse();
        for p in [Property::Straight, Property::Turns, Property::EndDistance] {
            assert_eq!(c.value(p, &t, true), c.value(p, &rotated, true), "{p:?}");
            assert_eq!(c.value(p, &t, true), c.value(p, &reversed, true), "{p:?}");
        }
        assert_eq!(c.end_distance(&t), 1);
        assert_eq!(c.symmetric(&t, true), c.symmetric(&rotated, true));
    }

    #[test]
    fn histograms_count_values() {
        let mut h = Histogram::default();
        for v in [2, 0, 2, 5] {
            h.add(v);
        }
        assert_eq!(h.counts, vec![1, 0, 2, 0, 0, 1]);
        assert_eq!(h.total(), 4);
    }
}
