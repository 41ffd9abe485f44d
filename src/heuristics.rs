//! The classic tour heuristics as homework writes them: one walk from a start square, never
//! backtracking (Warnsdorff's rule and its tie-breaks), or plain backtracking in a fixed move
//! order with a node budget (the textbook brute force). The survey runs them from every square.
//!
//! These are deliberately the plain versions; the project's own tour search (`find`) bends a
//! stuck walk with rotations and never gives up this easily.

use std::fmt;

use crate::board::Board;
use crate::graph::Geometry;

/// How the next square is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Heuristic {
    /// Fewest onward moves; ties to the first in the fixed move order.
    Warnsdorff,
    /// Fewest onward moves; ties at random (seeded).
    Random,
    /// Fewest onward moves; ties to the smallest sum of the candidate's neighbours' onward
    /// moves (Pohl 1967), then the move order.
    Pohl,
    /// Fewest onward moves; ties to the square farthest from the centre (Roth), then the order.
    Roth,
    /// Fewest onward moves; ties by the move orderings of Squirrel and Cull (1996), which change
    /// at fixed squares depending on the side modulo 8 (the knight on square boards).
    SquirrelCull,
    /// Fewest onward moves; ties by Warnsdorff's rule one move further ahead (the smallest number
    /// of onward moves of the best next square), then the order.
    Lookahead1,
    /// As `Lookahead1`, and remaining ties two moves further ahead.
    Lookahead2,
    /// Plain backtracking in the fixed move order, up to a node budget.
    Naive,
}

impl Heuristic {
    pub const ALL: [Heuristic; 8] = [
        Heuristic::Warnsdorff,
        Heuristic::Random,
        Heuristic::Pohl,
        Heuristic::Roth,
        Heuristic::SquirrelCull,
        Heuristic::Lookahead1,
        Heuristic::Lookahead2,
        Heuristic::Naive,
    ];

    /// The heuristic of a name (see [`Heuristic::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Heuristic> {
        Heuristic::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The name used on the command line and in reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Heuristic::Warnsdorff => "warnsdorff",
            Heuristic::Random => "random",
            Heuristic::Pohl => "pohl",
            Heuristic::Roth => "roth",
            Heuristic::SquirrelCull => "squirrel-cull",
            Heuristic::Lookahead1 => "lookahead1",
            Heuristic::Lookahead2 => "lookahead2",
            Heuristic::Naive => "naive",
        }
    }

    /// Nanoseconds of one core per square walked (per node for the backtracking), measured on
    /// this project's 2-core machines with margin: what the survey's size cap counts.
    #[must_use]
    pub const fn nanos_per_square(self) -> u64 {
        match self {
            Heuristic::Warnsdorff | Heuristic::Random | Heuristic::SquirrelCull => 60,
            Heuristic::Roth => 100,
            Heuristic::Pohl => 150,
            Heuristic::Lookahead1 => 300,
            Heuristic::Lookahead2 => 1200,
            Heuristic::Naive => 25,
        }
    }
}

impl fmt::Display for Heuristic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every square visited (and, when a closed tour was asked of the backtracking, closed).
    Complete,
    /// A walk with no unvisited neighbour left.
    Stuck,
    /// Backtracking tried everything: no tour (of the asked kind) starts here.
    Exhausted,
    /// Backtracking ran out of its node budget.
    Budget,
}

impl Stop {
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Stop::Complete => "complete",
            Stop::Stuck => "stuck",
            Stop::Exhausted => "exhausted",
            Stop::Budget => "budget",
        }
    }
}

/// One walk's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walked {
    /// The squares visited, in order: the tour when complete; for backtracking that gave up, the
    /// path it held when it stopped.
    pub path: Vec<u32>,
    /// The most squares the path held (the path's length, but for backtracking).
    pub reached: usize,
    /// Squares placed on the path, backtracked ones included.
    pub nodes: u64,
    pub stop: Stop,
}

/// The knight's move order of the homework programs: counter-clockwise from two files right and
/// one rank up. Other pieces use their moves in the same angular order.
fn fixed_order(offsets: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut v = offsets.to_vec();
    let angle = |&(dr, dc): &(i32, i32)| {
        let a = f64::from(dr).atan2(f64::from(dc));
        if a < 0.0 {
            a + std::f64::consts::TAU
        } else {
            a
        }
    };
    v.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
    v
}

/// The Squirrel–Cull move numbering: direction `k` (1-based) as `(d_first, d_second)` on their
/// 1-based coordinates, which this module maps to (rank, file).
const SC_DIRECTIONS: [(i32, i32); 8] = [
    (-2, 1),
    (-1, 2),
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
];

/// One Squirrel–Cull rule: an ordering of the directions (best first) used until the walk stands
/// on `switch` (1-based), where the next rule takes over before the move from that square.
#[derive(Clone, Debug)]
struct ScRule {
    rank_of: [u8; 8],
    switch: Option<(i64, i64)>,
}

/// The rules of Squirrel and Cull for an `m`×`m` board, from the program published with their
/// paper: a start ordering and the squares where the ordering changes, by `m` modulo 8 (16 for
/// odd residues 5 and 13).
fn squirrel_cull_rules(m: i64) -> Vec<ScRule> {
    let table: Vec<(&str, Option<(i64, i64)>)> = match m % 8 {
        0 => vec![
            ("34261578", Some((m - 1, m - 2))),
            ("87642135", Some((2, 2))),
            ("51867342", Some((m - 8, 1))),
            ("51342678", Some((7, m - 3))),
            ("21435678", None),
        ],
        1 => vec![
            ("34261578", Some((m - 1, m - 2))),
            ("87642135", Some((2, 2))),
            ("51324678", Some((m - 6, (m + 9) / 2))),
            ("32481765", None),
        ],
        2 => vec![
            ("34261578", Some((6, 1))),
            ("87642135", Some((3, 1))),
            ("54132678", Some((m - 15, 4))),
            ("52431678", Some((10, m - 2))),
            ("85647123", Some((5, (m - 6) / 2))),
            ("15746823", None),
        ],
        3 => vec![
            ("34625718", Some((m - 1, m - 2))),
            ("42681357", Some((m - 6, m))),
            ("86512347", Some((2, 5))),
            ("51867342", Some((m - 10, 3))),
            ("61825437", Some(((m + 1) / 2, m - 2))),
            ("71642538", None),
        ],
        4 => vec![
            ("34261578", Some((m - 1, m - 2))),
            ("87642135", Some((2, 2))),
            ("51867342", Some((m - 8, 1))),
            ("51342678", Some((10, m - 5))),
            ("86753421", Some((13, (m + 2) / 2))),
            ("78563421", None),
        ],
        5 => {
            let col = if m % 16 == 5 {
                (m - 5) / 2
            } else {
                (m - 13) / 2
            };
            vec![
                ("34261578", Some((m - 1, m - 2))),
                ("87642135", Some((2, 2))),
                ("51324678", Some((m - 2, col))),
                ("15234678", None),
            ]
        }
        6 => vec![
            ("34261578", Some((6, 1))),
            ("87642135", Some((3, 1))),
            ("54132678", Some((m - 10, 1))),
            ("52431678", Some((10, m - 2))),
            ("85647123", Some((3, (m + 8) / 2))),
            ("12453678", None),
        ],
        _ => vec![
            ("34625718", Some((m - 1, m - 2))),
            ("42681357", Some((m - 6, m))),
            ("86512347", Some((2, 5))),
            ("51867342", Some((m - 6, 3))),
            ("61825437", Some(((m + 1) / 2, m - 2))),
            ("61357284", None),
        ],
    };
    table
        .into_iter()
        .map(|(order, switch)| {
            let mut rank_of = [0u8; 8];
            for (rank, digit) in order.bytes().enumerate() {
                rank_of[usize::from(digit - b'1')] = rank as u8;
            }
            ScRule { rank_of, switch }
        })
        .collect()
}

/// The move graph in a fixed move order, with the state of one walk: what is visited and how
/// many unvisited neighbours each square has. Reused from walk to walk.
pub struct Walker<'g> {
    geo: &'g Geometry,
    /// `nb[i * k + j]`: the square reached from `i` by move `j` of the fixed order, or `NONE`.
    nb: Vec<u32>,
    /// Moves per square (the piece's offsets).
    k: usize,
    /// For the Squirrel–Cull rules: move `j` of the fixed order as a direction number, 0-based.
    sc_dir: Vec<u8>,
    visited: Vec<bool>,
    degree: Vec<u8>,
    /// Each square's degree with nothing visited.
    degree0: Vec<u8>,
}

const NONE: u32 = u32::MAX;

impl<'g> Walker<'g> {
    #[must_use]
    pub fn new(geo: &'g Geometry) -> Walker<'g> {
        let b = geo.board;
        let n = b.squares() as usize;
        let order = fixed_order(&geo.offsets);
        let k = order.len();
        let mut nb = vec![NONE; n * k];
        for i in 0..n {
            let (r, c) = (i64::from(i as u32 / b.cols), i64::from(i as u32 % b.cols));
            for (j, &(dr, dc)) in order.iter().enumerate() {
                let (nr, nc) = (r + i64::from(dr), c + i64::from(dc));
                if b.contains(nr, nc) {
                    nb[i * k + j] = (nr * i64::from(b.cols) + nc) as u32;
                }
            }
        }
        let degree0: Vec<u8> = (0..n)
            .map(|i| {
                nb[i * k..(i + 1) * k]
                    .iter()
                    .filter(|&&w| w != NONE)
                    .count() as u8
            })
            .collect();
        let sc_dir = order
            .iter()
            .map(|o| SC_DIRECTIONS.iter().position(|d| d == o).unwrap_or(0) as u8)
            .collect();
        Walker {
            geo,
            nb,
            k,
            sc_dir,
            visited: vec![false; n],
            degree: degree0.clone(),
            degree0,
        }
    }

    #[must_use]
    pub fn board(&self) -> Board {
        self.geo.board
    }

    /// The neighbours of `i` in the fixed order, with their move numbers.
    #[inline]
    fn moves(&self, i: u32) -> impl Iterator<Item = (usize, u32)> + '_ {
        let i = i as usize;
        self.nb[i * self.k..(i + 1) * self.k]
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, w)| w != NONE)
    }

    fn reset(&mut self) {
        self.visited.fill(false);
        self.degree.copy_from_slice(&self.degree0);
    }

    /// Marks `s` visited (or unvisited again) and updates its neighbours' onward counts.
    #[inline]
    fn mark(&mut self, s: u32, visited: bool) {
        self.visited[s as usize] = visited;
        let i = s as usize;
        for j in 0..self.k {
            let w = self.nb[i * self.k + j];
            if w != NONE {
                let d = &mut self.degree[w as usize];
                *d = if visited { *d - 1 } else { *d + 1 };
            }
        }
    }

    #[inline]
    fn visit(&mut self, s: u32) {
        self.mark(s, true);
    }

    #[inline]
    fn unvisit(&mut self, s: u32) {
        self.mark(s, false);
    }

    /// Warnsdorff's key looked `depth` moves ahead from `s` (which is visited): the smallest
    /// onward count among its unvisited neighbours, then, among those, the same one level down.
    /// Squares without onward moves score `u8::MAX`.
    fn ahead(&mut self, s: u32, depth: u32) -> [u8; 2] {
        let mut best = [u8::MAX; 2];
        let base = s as usize * self.k;
        for j in 0..self.k {
            let w = self.nb[base + j];
            if w == NONE || self.visited[w as usize] {
                continue;
            }
            let mut key = [self.degree[w as usize], u8::MAX];
            if depth > 1 {
                self.visit(w);
                key[1] = self.ahead(w, depth - 1)[0];
                self.unvisit(w);
            }
            best = best.min(key);
        }
        best
    }

    /// One walk from `start` by `h`. `seed` drives the random tie-breaks; `budget` caps the
    /// backtracking's nodes; `closed` makes the backtracking look for a closed tour (the
    /// heuristics walk the same either way).
    pub fn walk(
        &mut self,
        h: Heuristic,
        start: u32,
        seed: u64,
        budget: u64,
        closed: bool,
    ) -> Walked {
        self.reset();
        if h == Heuristic::Naive {
            return self.backtrack(start, budget, closed);
        }
        let b = self.geo.board;
        let n = b.squares() as usize;
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut rules = if h == Heuristic::SquirrelCull {
            squirrel_cull_rules(i64::from(b.rows))
        } else {
            Vec::new()
        };
        let mut path = Vec::with_capacity(n);
        let mut cur = start;
        self.visit(cur);
        path.push(cur);
        let (rows, cols) = (i64::from(b.rows), i64::from(b.cols));
        while path.len() < n {
            if h == Heuristic::SquirrelCull && rules.len() > 1 {
                // the next ordering takes over on the switch square, before the move from it
                let here = (i64::from(cur / b.cols) + 1, i64::from(cur % b.cols) + 1);
                if rules[0].switch == Some(here) {
                    rules.remove(0);
                }
            }
            let mut best: Option<([i64; 4], u32)> = None;
            for j in 0..self.k {
                let w = self.nb[cur as usize * self.k + j];
                if w == NONE || self.visited[w as usize] {
                    continue;
                }
                let deg = i64::from(self.degree[w as usize]);
                let tie: [i64; 2] = match h {
                    Heuristic::Warnsdorff => [0, 0],
                    Heuristic::Random => [i64::from(rng.u32(..)), 0],
                    Heuristic::Pohl => [
                        self.moves(w)
                            .filter(|&(_, x)| !self.visited[x as usize])
                            .map(|(_, x)| i64::from(self.degree[x as usize]))
                            .sum(),
                        0,
                    ],
                    Heuristic::Roth => {
                        let (r, c) = (i64::from(w / b.cols), i64::from(w % b.cols));
                        let (dr, dc) = (2 * r - (rows - 1), 2 * c - (cols - 1));
                        [-(dr * dr + dc * dc), 0]
                    }
                    Heuristic::SquirrelCull => {
                        [i64::from(rules[0].rank_of[self.sc_dir[j] as usize]), 0]
                    }
                    Heuristic::Lookahead1 | Heuristic::Lookahead2 => {
                        let depth = if h == Heuristic::Lookahead1 { 1 } else { 2 };
                        self.visit(w);
                        let a = self.ahead(w, depth);
                        self.unvisit(w);
                        [i64::from(a[0]), i64::from(a[1])]
                    }
                    Heuristic::Naive => unreachable!("handled above"),
                };
                let key = [deg, tie[0], tie[1], j as i64];
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, w));
                }
            }
            let Some((_, w)) = best else {
                break;
            };
            cur = w;
            self.visit(cur);
            path.push(cur);
        }
        let stop = if path.len() == n {
            Stop::Complete
        } else {
            Stop::Stuck
        };
        Walked {
            nodes: path.len() as u64,
            reached: path.len(),
            path,
            stop,
        }
    }

    /// Depth-first search in the fixed move order, as the textbook writes it: no pruning, no
    /// ordering, stopped after `budget` nodes.
    fn backtrack(&mut self, start: u32, budget: u64, closed: bool) -> Walked {
        let b = self.geo.board;
        let n = b.squares() as usize;
        let adjacent_to_start = |w: u32| -> bool {
            let (s, t) = (b.square(start), b.square(w));
            self.geo.offsets.iter().any(|&(dr, dc)| {
                i64::from(s.row) + i64::from(dr) == i64::from(t.row)
                    && i64::from(s.col) + i64::from(dc) == i64::from(t.col)
            })
        };
        let mut path = vec![start];
        // next move to try from each square of the path
        let mut next = vec![0usize];
        self.visited[start as usize] = true;
        let mut nodes = 1u64;
        let mut reached = 1;
        let done =
            |path: &[u32]| path.len() == n && (!closed || n == 1 || adjacent_to_start(path[n - 1]));
        let end = |path: Vec<u32>, nodes, reached, stop| Walked {
            path,
            reached,
            nodes,
            stop,
        };
        if done(&path) {
            return end(path, nodes, reached, Stop::Complete);
        }
        loop {
            let Some(&cur) = path.last() else {
                return end(path, nodes, reached, Stop::Exhausted);
            };
            let top = next.len() - 1;
            let mut stepped = false;
            while next[top] < self.k {
                let w = self.nb[cur as usize * self.k + next[top]];
                next[top] += 1;
                if w == NONE || self.visited[w as usize] {
                    continue;
                }
                if nodes >= budget {
                    return end(path, nodes, reached, Stop::Budget);
                }
                nodes += 1;
                self.visited[w as usize] = true;
                path.push(w);
                next.push(0);
                reached = reached.max(path.len());
                if done(&path) {
                    return end(path, nodes, reached, Stop::Complete);
                }
                stepped = true;
                break;
            }
            if !stepped {
                self.visited[cur as usize] = false;
                path.pop();
                next.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;
    use crate::tour::Tour;

    fn walker(rows: u32, cols: u32) -> Geometry {
        Geometry::new(Board { rows, cols }, &Piece::knight())
    }

    #[test]
    fn the_fixed_order_is_the_homeworks() {
        let order = fixed_order(&Piece::knight().offsets());
        assert_eq!(
            order,
            vec![
                (1, 2),
                (2, 1),
                (2, -1),
                (1, -2),
                (-1, -2),
                (-2, -1),
                (-2, 1),
                (-1, 2)
            ]
        );
    }

    #[test]
    fn warnsdorff_tours_8x8_from_a1() {
        let geo = walker(8, 8);
        let mut w = Walker::new(&geo);
        let out = w.walk(Heuristic::Warnsdorff, 0, 0, 0, false);
        assert_eq!(out.stop, Stop::Complete);
        let path = out.path.iter().map(|&i| geo.board.square(i)).collect();
        assert!(Tour::verified(geo.board, &Piece::knight(), path, false).is_ok());
    }

    #[test]
    fn squirrel_cull_tours_from_the_corner() {
        // their rules as transcribed complete every board from 5x5 to 400x400 but 74x74 (the
        // sweep of results/survey.md); checked here up to 40x40
        for m in 5..=40 {
            let geo = walker(m, m);
            let mut w = Walker::new(&geo);
            let out = w.walk(Heuristic::SquirrelCull, 0, 0, 0, false);
            assert_eq!(out.stop, Stop::Complete, "{m}x{m}");
        }
    }

    #[test]
    fn naive_backtracking_finds_exhausts_and_gives_up() {
        let geo = walker(5, 5);
        let mut w = Walker::new(&geo);
        // a1 is on the majority colour of 5x5: a tour exists
        let found = w.walk(Heuristic::Naive, 0, 0, 10_000_000, false);
        assert_eq!(found.stop, Stop::Complete);
        assert_eq!(found.path.len(), 25);
        // b1 is on the minority colour: no open tour starts there, and the search proves it
        let none = w.walk(Heuristic::Naive, 1, 0, 100_000_000, false);
        assert_eq!(none.stop, Stop::Exhausted);
        assert!(none.path.is_empty() && none.reached < 25 && none.reached > 1);
        // no closed tour on an odd board
        let closed = w.walk(Heuristic::Naive, 0, 0, 100_000_000, true);
        assert_eq!(closed.stop, Stop::Exhausted);
        let short = w.walk(Heuristic::Naive, 0, 0, 10, false);
        assert_eq!((short.stop, short.nodes), (Stop::Budget, 10));
    }

    #[test]
    fn every_heuristic_walks_a_legal_path() {
        let geo = walker(7, 9);
        let mut w = Walker::new(&geo);
        for h in Heuristic::ALL {
            for start in [0, 10, 31] {
                let out = w.walk(h, start, 3, 100_000, false);
                assert_eq!(out.path[0], start);
                for p in out.path.windows(2) {
                    let (a, b) = (geo.board.square(p[0]), geo.board.square(p[1]));
                    assert!(Piece::knight().is_move(a.row, a.col, b.row, b.col), "{h}");
                }
                let mut seen = out.path.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), out.path.len(), "{h}: a square twice");
            }
        }
    }
}
