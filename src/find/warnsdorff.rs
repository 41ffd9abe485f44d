//! Warnsdorff's rule with strong tie-breaking, extended by Pósa rotations so that a walk that
//! gets stuck is bent into a new path with a fresh end instead of being thrown away.
//!
//! Works on boards of any size through [`Geometry`]; memory is a few bytes per square.

use bitvec::prelude::*;

use super::Deadline;
use crate::graph::Geometry;

/// A growing path that keeps, for every square, whether it is visited, how many unvisited
/// neighbours it has, and where it stands in the path.
pub(crate) struct Walk<'a> {
    geo: &'a Geometry,
    visited: BitVec,
    degree: Vec<u8>,
    pub(crate) path: Vec<u32>,
    pos: Vec<u32>,
    rng: fastrand::Rng,
    /// Squared distance from the centre, doubled coordinates (Roth's tie-break).
    rows: i64,
    cols: i64,
    /// Every move changes the square's colour.
    switching: bool,
    /// When every loop here gives up.
    deadline: Deadline,
}

const NOWHERE: u32 = u32::MAX;

impl<'a> Walk<'a> {
    pub(crate) fn new(geo: &'a Geometry, start: u32, seed: u64, deadline: Deadline) -> Walk<'a> {
        let n = geo.board.squares() as usize;
        let degree = (0..n as u32)
            .map(|i| geo.neighbours(i).count() as u8)
            .collect();
        let mut w = Walk {
            geo,
            visited: bitvec![0; n],
            degree,
            path: Vec::with_capacity(n),
            pos: vec![NOWHERE; n],
            rng: fastrand::Rng::with_seed(seed),
            rows: i64::from(geo.board.rows),
            cols: i64::from(geo.board.cols),
            switching: geo.offsets.iter().all(|&(r, c)| (r + c) % 2 != 0),
            deadline,
        };
        w.visit(start);
        w
    }

    /// A walk over a complete path found some other way (so that it can be rotated).
    pub(crate) fn from_path(
        geo: &'a Geometry,
        path: Vec<u32>,
        seed: u64,
        deadline: Deadline,
    ) -> Walk<'a> {
        let mut w = Walk::new(geo, path[0], seed, deadline);
        for &s in &path[1..] {
            w.visit(s);
        }
        w
    }

    fn n(&self) -> usize {
        self.visited.len()
    }

    fn visit(&mut self, s: u32) {
        self.visited.set(s as usize, true);
        self.pos[s as usize] = self.path.len() as u32;
        self.path.push(s);
        for nb in self.geo.neighbours(s) {
            self.degree[nb as usize] -= 1;
        }
    }

    fn centre_distance(&self, s: u32) -> i64 {
        let (r, c) = (i64::from(s) / self.cols, i64::from(s) % self.cols);
        let (dr, dc) = (2 * r - (self.rows - 1), 2 * c - (self.cols - 1));
        dr * dr + dc * dc
    }

    /// Warnsdorff's choice from the end of the path: fewest onward moves; ties to the smallest
    /// sum of the candidates' neighbours' onward moves (Pohl), then the farthest from the
    /// centre (Roth), then at random.
    fn choose(&mut self) -> Option<u32> {
        let end = *self.path.last().expect("non-empty");
        let mut best: Option<((u8, u32, i64, u32), u32)> = None;
        for w in self.geo.neighbours(end) {
            if self.visited[w as usize] {
                continue;
            }
            let pohl: u32 = self
                .geo
                .neighbours(w)
                .filter(|&x| !self.visited[x as usize])
                .map(|x| u32::from(self.degree[x as usize]))
                .sum();
            let key = (
                self.degree[w as usize],
                pohl,
                -self.centre_distance(w),
                self.rng.u32(..),
            );
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, w));
            }
        }
        best.map(|(_, w)| w)
    }

    /// Pósa rotation: with the end adjacent to path square `i`, reverse the path after `i`; the
    /// square after `i` becomes the new end. The start never moves.
    fn rotate(&mut self, i: usize) {
        let k = self.path.len();
        self.path[i + 1..k].reverse();
        for j in i + 1..k {
            self.pos[self.path[j] as usize] = j as u32;
        }
    }

    /// Indices `i` where a rotation can pivot: path squares adjacent to the end, other than its
    /// predecessor.
    fn pivots(&self) -> Vec<usize> {
        let k = self.path.len();
        let end = self.path[k - 1];
        self.geo
            .neighbours(end)
            .filter_map(|x| {
                let p = self.pos[x as usize];
                (p != NOWHERE && (p as usize) + 2 < k).then_some(p as usize)
            })
            .collect()
    }

    /// Rotates until the end has an unvisited neighbour; false after `limit` rotations.
    fn unstick(&mut self, limit: usize) -> bool {
        for _ in 0..limit {
            if self.deadline.passed() {
                return false;
            }
            let pivots = self.pivots();
            if pivots.is_empty() {
                return false;
            }
            if let Some(&i) = pivots
                .iter()
                .find(|&&i| self.degree[self.path[i + 1] as usize] > 0)
            {
                self.rotate(i);
                return true;
            }
            let i = pivots[self.rng.usize(..pivots.len())];
            self.rotate(i);
        }
        false
    }

    /// Extends the path to cover the board; false if it stays stuck.
    pub(crate) fn complete(&mut self) -> bool {
        let limit = 64 + self.n() / 8;
        while self.path.len() < self.n() {
            if self.path.len().is_multiple_of(4096) && self.deadline.passed() {
                return false;
            }
            match self.choose() {
                Some(w) => self.visit(w),
                None => {
                    if !self.unstick(limit) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Rotates a complete path until its end is one move from its start; false after `limit`.
    pub(crate) fn close(&mut self, adjacent: impl Fn(u32, u32) -> bool, limit: usize) -> bool {
        let start = self.path[0];
        for _ in 0..limit {
            if self.deadline.passed() {
                return false;
            }
            let k = self.path.len();
            if k >= 3 && adjacent(self.path[k - 1], start) {
                return true;
            }
            let pivots = self.pivots();
            if pivots.is_empty() {
                return false;
            }
            let i = match pivots.iter().find(|&&i| adjacent(self.path[i + 1], start)) {
                Some(&i) => i,
                None => pivots[self.rng.usize(..pivots.len())],
            };
            self.rotate(i);
        }
        false
    }

    /// Rotates a complete path at either end until `target` is one of its ends, then orients it
    /// to start there; false after `limit` rotations. This moves the start of an open tour to a
    /// square from which the walk itself gets stuck (the middle of a narrow board).
    pub(crate) fn steer_start_to(&mut self, target: u32, limit: usize) -> bool {
        let cols = self.cols;
        let colour = |a: u32| (i64::from(a) / cols + i64::from(a) % cols) % 2;
        let dist = |a: u32, b: u32| {
            let (ra, ca) = (i64::from(a) / cols, i64::from(a) % cols);
            let (rb, cb) = (i64::from(b) / cols, i64::from(b) % cols);
            (ra - rb).pow(2) + (ca - cb).pow(2)
        };
        for _ in 0..limit {
            if self.deadline.passed() {
                return false;
            }
            let k = self.path.len();
            if self.path[0] == target {
                return true;
            }
            if self.path[k - 1] == target {
                self.reverse();
                return true;
            }
            // rotations keep each end on its colour when every move changes colour, so only an
            // end of the target's colour can reach it; otherwise work on the end nearer the
            // target, now and then on the other one
            let (first, last) = (self.path[0], self.path[k - 1]);
            let work_on_first = if self.switching && colour(first) != colour(last) {
                colour(first) == colour(target)
            } else {
                (dist(first, target) < dist(last, target)) != (self.rng.u8(..5) == 0)
            };
            if work_on_first {
                self.reverse();
            }
            let pivots = self.pivots();
            if pivots.is_empty() {
                continue;
            }
            // greedy towards the target half of the time, at random otherwise
            let i = if self.rng.bool() {
                *pivots
                    .iter()
                    .min_by_key(|&&i| dist(self.path[i + 1], target))
                    .expect("non-empty")
            } else {
                pivots[self.rng.usize(..pivots.len())]
            };
            self.rotate(i);
        }
        false
    }

    /// Reverses the whole path (its start becomes its end).
    fn reverse(&mut self) {
        self.path.reverse();
        for (j, &s) in self.path.iter().enumerate() {
            self.pos[s as usize] = j as u32;
        }
    }
}
