//! Exact depth-first search for boards of any size, with arrays instead of bitboards: Warnsdorff
//! order, dead-square and forced-end pruning kept up to date move by move, and a node budget.
//! It rescues the boards where the heuristic walk fails (narrow boards such as 4×n).

use bitvec::prelude::*;

use super::Deadline;
use crate::graph::Geometry;

pub(crate) struct Backtrack<'a> {
    geo: &'a Geometry,
    visited: BitVec,
    /// Unvisited neighbours of every square.
    degree: Vec<u8>,
    /// Unvisited squares with degree 0, and with degree 1.
    zeros: usize,
    ones: usize,
    path: Vec<u32>,
    closed: bool,
    /// Counting bounds on the unvisited squares, see [`Backtrack::counts_ok`].
    colour_switching: bool,
    left_by_colour: [usize; 2],
    /// On a 4×n board, the outer lines: they only neighbour the middle lines (knight only).
    outer: Option<BitVec>,
    left_outer: usize,
    left_inner: usize,
    /// Breaks Warnsdorff ties, so that restarts explore different trees.
    rng: fastrand::Rng,
}

#[derive(Clone, Copy)]
struct Frame {
    cands: [u32; 16],
    len: u8,
    at: u8,
}

impl<'a> Backtrack<'a> {
    pub(crate) fn new(geo: &'a Geometry, closed: bool, seed: u64) -> Backtrack<'a> {
        let n = geo.board.squares() as usize;
        let degree: Vec<u8> = (0..n as u32)
            .map(|i| geo.neighbours(i).count() as u8)
            .collect();
        let zeros = degree.iter().filter(|&&d| d == 0).count();
        let ones = degree.iter().filter(|&&d| d == 1).count();
        let b = geo.board;
        let colour = |i: u32| crate::board::Board::colour(b.square(i)) as usize;
        let mut left_by_colour = [0; 2];
        for i in 0..n as u32 {
            left_by_colour[colour(i)] += 1;
        }
        let knight = geo.offsets.len() == 8
            && geo
                .offsets
                .iter()
                .all(|&(r, c)| r.abs() + c.abs() == 3 && r != 0 && c != 0);
        let outer = (knight && b.rows.min(b.cols) == 4).then(|| {
            (0..n as u32)
                .map(|i| {
                    let sq = b.square(i);
                    let line = if b.rows == 4 { sq.row } else { sq.col };
                    line == 0 || line == 3
                })
                .collect::<BitVec>()
        });
        let left_outer = outer.as_ref().map_or(0, |o| o.count_ones());
        Backtrack {
            geo,
            visited: bitvec![0; n],
            degree,
            zeros,
            ones,
            path: Vec::with_capacity(n),
            closed,
            colour_switching: geo.offsets.iter().all(|&(r, c)| (r + c) % 2 != 0),
            left_by_colour,
            left_inner: outer.as_ref().map_or(0, |o| o.count_zeros()),
            outer,
            left_outer,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    fn colour(&self, i: u32) -> usize {
        crate::board::Board::colour(self.geo.board.square(i)) as usize
    }

    fn tally(&mut self, s: u32, delta: isize) {
        let c = self.colour(s);
        self.left_by_colour[c] = self.left_by_colour[c].wrapping_add_signed(delta);
        if let Some(o) = &self.outer {
            if o[s as usize] {
                self.left_outer = self.left_outer.wrapping_add_signed(delta);
            } else {
                self.left_inner = self.left_inner.wrapping_add_signed(delta);
            }
        }
    }

    /// Counting bounds from the end `e`: for a colour-switching piece the rest of the path
    /// alternates colours starting with the colour `e` lacks; on a 4×n board two outer squares
    /// are never adjacent, so the rest holds at most one more outer than middle square, and no
    /// more than it when `e` is outer (its successor is then a middle square).
    fn counts_ok(&self, e: u32) -> bool {
        if self.colour_switching {
            let c = self.colour(e);
            let (same, other) = (self.left_by_colour[c], self.left_by_colour[1 - c]);
            if other < same || other > same + 1 {
                return false;
            }
        }
        if let Some(o) = &self.outer {
            let slack = usize::from(!o[e as usize]);
            if self.left_outer > self.left_inner + slack {
                return false;
            }
        }
        true
    }

    fn visit(&mut self, s: u32) {
        match self.degree[s as usize] {
            0 => self.zeros -= 1,
            1 => self.ones -= 1,
            _ => {}
        }
        self.visited.set(s as usize, true);
        self.tally(s, -1);
        self.path.push(s);
        for nb in self.geo.neighbours(s) {
            let d = &mut self.degree[nb as usize];
            if !self.visited[nb as usize] {
                match *d {
                    1 => {
                        self.ones -= 1;
                        self.zeros += 1;
                    }
                    2 => self.ones += 1,
                    _ => {}
                }
            }
            *d -= 1;
        }
    }

    fn unvisit(&mut self) {
        let s = self.path.pop().expect("non-empty");
        for nb in self.geo.neighbours(s) {
            let d = &mut self.degree[nb as usize];
            *d += 1;
            if !self.visited[nb as usize] {
                match *d {
                    1 => {
                        self.zeros -= 1;
                        self.ones += 1;
                    }
                    2 => self.ones -= 1,
                    _ => {}
                }
            }
        }
        self.visited.set(s as usize, false);
        self.tally(s, 1);
        match self.degree[s as usize] {
            0 => self.zeros += 1,
            1 => self.ones += 1,
            _ => {}
        }
    }

    /// The moves from the end of the path that can still complete a tour, in Warnsdorff order.
    fn frame(&mut self) -> Frame {
        let mut f = Frame {
            cands: [0; 16],
            len: 0,
            at: 0,
        };
        let n = self.visited.len();
        let left = n - self.path.len();
        let end = *self.path.last().expect("non-empty");
        if (self.zeros > 0 && left > 1) || !self.counts_ok(end) {
            return f;
        }
        if self.closed && left > 0 && self.degree[self.path[0] as usize] == 0 {
            return f;
        }
        let mut near_ones = 0;
        let mut keyed: [(u8, u32, u32); 16] = [(0, 0, 0); 16];
        let mut k = 0;
        for w in self.geo.neighbours(end) {
            if self.visited[w as usize] || k == 16 {
                continue;
            }
            let d = self.degree[w as usize];
            if d == 1 {
                near_ones += 1;
            }
            keyed[k] = (d, self.rng.u32(..), w);
            k += 1;
        }
        let far_ones = self.ones - near_ones;
        if far_ones > 1 || (far_ones == 1 && near_ones > 1) || near_ones > 2 {
            return f;
        }
        let keyed = &mut keyed[..k];
        keyed.sort_unstable();
        // with a far square waiting to be the end, a near square of degree 1 must be next; with two
        // near ones, one is next and the other the end
        let must_be_lone = (far_ones == 1 && near_ones == 1) || near_ones == 2;
        for &(d, _, w) in keyed.iter() {
            if must_be_lone && d != 1 {
                continue;
            }
            f.cands[f.len as usize] = w;
            f.len += 1;
        }
        f
    }

    /// Searches from `start` for a tour; `Some(path)` when found, `None` when the budget ran out
    /// or the search space was exhausted (the caller cannot tell these apart on large boards).
    pub(crate) fn run(
        mut self,
        start: u32,
        mut budget: u64,
        deadline: Deadline,
    ) -> Option<Vec<u32>> {
        let n = self.visited.len();
        let adjacent = |geo: &Geometry, a: u32, b: u32| geo.neighbours(a).any(|x| x == b);
        self.visit(start);
        let mut stack = vec![self.frame()];
        loop {
            if self.path.len() == n
                && (!self.closed || (n >= 3 && adjacent(self.geo, self.path[n - 1], start)))
            {
                return Some(self.path);
            }
            let top = stack.last_mut()?;
            if top.at == top.len || budget == 0 {
                if budget == 0 {
                    return None;
                }
                stack.pop();
                if stack.is_empty() {
                    return None;
                }
                self.unvisit();
                continue;
            }
            budget -= 1;
            if budget.is_multiple_of(65_536) && deadline.passed() {
                return None;
            }
            let w = top.cands[top.at as usize];
            top.at += 1;
            self.visit(w);
            stack.push(self.frame());
        }
    }
}

/// Short randomised runs with growing budgets, `budget` nodes in all: depth-first search has
/// heavy tails, so many short runs beat one long one.
pub(crate) fn with_restarts(
    geo: &Geometry,
    closed: bool,
    start: u32,
    seed: u64,
    budget: u64,
    deadline: Deadline,
) -> Option<Vec<u32>> {
    let mut run_budget = 20_000u64;
    let mut spent = 0u64;
    let mut run = 0u64;
    while spent < budget && !deadline.passed() {
        let seed = seed ^ run.wrapping_mul(0xA076_1D64_78BD_642F);
        if let Some(path) = Backtrack::new(geo, closed, seed).run(start, run_budget, deadline) {
            return Some(path);
        }
        spent += run_budget;
        run += 1;
        if run.is_multiple_of(4) {
            run_budget *= 2;
        }
    }
    None
}
