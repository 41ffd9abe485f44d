//! The exact search that finds the construction's pieces: a Hamiltonian cycle through a small
//! block of the knight's graph (at most 128 squares) with holes, required moves and extra edges.
//!
//! Only the piece generator (`examples/make_pieces.rs`) and the tests run it; the construction
//! itself reads the pieces it found from `pieces.txt`.

use crate::graph::KNIGHT_OFFSETS;

/// A square of a block, `(row, col)`.
pub type Cell = (u8, u8);

/// What to search for: a cycle through every square of a `rows`×`cols` block except `holes`,
/// using knight moves and the `extra` edges (every extra edge is used), containing every move
/// of `required`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    pub rows: u8,
    pub cols: u8,
    pub holes: Vec<Cell>,
    pub required: Vec<(Cell, Cell)>,
    pub extra: Vec<(Cell, Cell)>,
}

/// Why a [`Spec`] cannot be searched.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("a block of {0} squares is larger than the search's 128")]
    TooLarge(u32),
    #[error("square {0:?} is off the block")]
    OffBlock(Cell),
    #[error("required edge {0:?}-{1:?} is not a knight's move between two squares of the block")]
    NotAMove(Cell, Cell),
}

/// The search's graph: adjacency as bit sets, and for each square the squares it must be joined to.
struct Graph {
    n: usize,
    adj: Vec<u128>,
    /// Required partners of each square (at most two can ever be satisfied).
    partners: Vec<Vec<u8>>,
    live: u128,
}

impl Graph {
    fn new(spec: &Spec) -> Result<Graph, SpecError> {
        let (rows, cols) = (u32::from(spec.rows), u32::from(spec.cols));
        let n = (rows * cols) as usize;
        if n > 128 {
            return Err(SpecError::TooLarge(rows * cols));
        }
        let index = |c: Cell| -> Result<usize, SpecError> {
            if c.0 >= spec.rows || c.1 >= spec.cols {
                return Err(SpecError::OffBlock(c));
            }
            Ok(usize::from(c.0) * cols as usize + usize::from(c.1))
        };
        let mut live: u128 = if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        for &h in &spec.holes {
            live &= !(1u128 << index(h)?);
        }
        let mut adj = vec![0u128; n];
        for (i, a) in adj.iter_mut().enumerate() {
            if live >> i & 1 == 0 {
                continue;
            }
            let (r, c) = ((i / cols as usize) as i32, (i % cols as usize) as i32);
            for (dr, dc) in KNIGHT_OFFSETS {
                let (nr, nc) = (r + dr, c + dc);
                if nr >= 0 && nc >= 0 && nr < rows as i32 && nc < cols as i32 {
                    let j = nr as usize * cols as usize + nc as usize;
                    if live >> j & 1 == 1 {
                        *a |= 1u128 << j;
                    }
                }
            }
        }
        let mut partners = vec![Vec::new(); n];
        for &(a, b) in &spec.extra {
            let (i, j) = (index(a)?, index(b)?);
            adj[i] |= 1u128 << j;
            adj[j] |= 1u128 << i;
            partners[i].push(j as u8);
            partners[j].push(i as u8);
        }
        for &(a, b) in &spec.required {
            let (i, j) = (index(a)?, index(b)?);
            if adj[i] >> j & 1 == 0 || live >> i & 1 == 0 || live >> j & 1 == 0 {
                return Err(SpecError::NotAMove(a, b));
            }
            partners[i].push(j as u8);
            partners[j].push(i as u8);
        }
        Ok(Graph {
            n,
            adj,
            partners,
            live,
        })
    }
}

/// The state of one depth-first search.
struct Dfs<'g> {
    g: &'g Graph,
    path: Vec<u8>,
    /// Squares not yet on the path.
    free: u128,
    budget: u64,
    rng: fastrand::Rng,
}

enum Outcome {
    Found,
    Dead,
    OutOfBudget,
}

impl Dfs<'_> {
    fn start(&self) -> usize {
        usize::from(self.path[0])
    }

    /// Whether `w` may be entered from `e` now: every required partner of `w` other than `e` must
    /// be able to follow it (one at most; the start only when `w` is the last square).
    fn may_enter(&self, e: usize, w: usize) -> bool {
        let mut others = self.g.partners[w].iter().filter(|&&z| usize::from(z) != e);
        match (others.next(), others.next()) {
            (None, _) => true,
            (Some(_), Some(_)) => false,
            (Some(&z), None) => {
                let z = usize::from(z);
                if self.free >> z & 1 == 1 {
                    true
                } else {
                    // `w` would have to close the cycle to `z`
                    z == self.start() && self.free.count_ones() == 1
                }
            }
        }
    }

    /// Whether every free square can still be reached from the end through free squares.
    fn connected(&self, end: usize) -> bool {
        let mut reached = 0u128;
        let mut frontier = self.g.adj[end] & self.free;
        while frontier != 0 {
            reached |= frontier;
            let mut next = 0u128;
            let mut f = frontier;
            while f != 0 {
                let v = f.trailing_zeros() as usize;
                f &= f - 1;
                next |= self.g.adj[v];
            }
            frontier = next & self.free & !reached;
        }
        reached == self.free
    }

    fn search(&mut self) -> Outcome {
        if self.budget == 0 {
            return Outcome::OutOfBudget;
        }
        self.budget -= 1;
        let end = usize::from(*self.path.last().expect("non-empty"));
        let start = self.start();
        if self.free == 0 {
            let closes = self.g.adj[end] >> start & 1 == 1 && self.path.len() >= 3;
            return if closes {
                Outcome::Found
            } else {
                Outcome::Dead
            };
        }
        // the moves the end must make: a required partner other than its predecessor
        let prev = (self.path.len() >= 2).then(|| usize::from(self.path[self.path.len() - 2]));
        let pending: Vec<usize> = self.g.partners[end]
            .iter()
            .map(|&z| usize::from(z))
            .filter(|&z| Some(z) != prev)
            .collect();
        let mut forced: Option<usize> = None;
        if end == start {
            // the start's partners: the first move takes one, the closing move the other
            if let Some(&z) = pending.first() {
                forced = Some(z);
            }
        } else {
            match pending.len() {
                0 => {}
                1 => forced = Some(pending[0]),
                _ => return Outcome::Dead,
            }
            if let Some(z) = forced {
                if self.free >> z & 1 == 0 {
                    return Outcome::Dead;
                }
            }
        }
        // degree pruning: every free square needs two usable edges (free squares, the end, the start)
        let open = self.free | 1u128 << end | 1u128 << start;
        let mut need_end = 0u32;
        let mut need_start = 0u32;
        let mut must: Option<usize> = None;
        let mut f = self.free;
        while f != 0 {
            let v = f.trailing_zeros() as usize;
            f &= f - 1;
            let a = self.g.adj[v] & open;
            let deg = a.count_ones();
            if deg < 2 {
                return Outcome::Dead;
            }
            if deg == 2 {
                let to_end = a >> end & 1 == 1;
                let to_start = a >> start & 1 == 1;
                if to_end && to_start && end != start && self.free.count_ones() > 1 {
                    // it would have to be next and last at once
                    return Outcome::Dead;
                }
                if to_end && end != start {
                    need_end += 1;
                    must = Some(v);
                }
                if to_start {
                    need_start += 1;
                }
            }
        }
        // the end has one edge left to give, the start one (two before the first move)
        if need_end > 1 || need_start > 1 + u32::from(end == start) {
            return Outcome::Dead;
        }
        if !self.connected(end) {
            return Outcome::Dead;
        }
        if let Some(v) = must {
            if forced.is_some_and(|z| z != v) {
                return Outcome::Dead;
            }
            forced = Some(v);
        }
        let mut cands: Vec<(u32, u32, usize)> = Vec::with_capacity(8);
        let mut nb = self.g.adj[end] & self.free;
        if let Some(z) = forced {
            nb &= 1u128 << z;
        }
        while nb != 0 {
            let w = nb.trailing_zeros() as usize;
            nb &= nb - 1;
            if !self.may_enter(end, w) {
                continue;
            }
            let onward = (self.g.adj[w] & self.free).count_ones();
            cands.push((onward, self.rng.u32(..), w));
        }
        cands.sort_unstable();
        for &(_, _, w) in &cands {
            self.free &= !(1u128 << w);
            self.path.push(w as u8);
            match self.search() {
                Outcome::Found => return Outcome::Found,
                Outcome::OutOfBudget => return Outcome::OutOfBudget,
                Outcome::Dead => {}
            }
            self.path.pop();
            self.free |= 1u128 << w;
        }
        Outcome::Dead
    }
}

/// The answer of [`find_cycle`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The cycle, as squares in order (the last is one edge from the first).
    Cycle(Vec<Cell>),
    /// The search space was exhausted: there is no such cycle.
    None,
    /// The node budget ran out first.
    GaveUp,
}

/// Searches for a cycle as `spec` asks: randomised depth-first runs in Warnsdorff order with
/// doubling budgets (restarts cut the heavy tail), `budget` nodes in all.
pub fn find_cycle(spec: &Spec, seed: u64, budget: u64) -> Result<Found, SpecError> {
    let g = Graph::new(spec)?;
    let cols = usize::from(spec.cols);
    // start on a square with required partners (they fix its edges) or else of least degree
    let start = (0..g.n)
        .filter(|&v| g.live >> v & 1 == 1)
        .min_by_key(|&v| (usize::from(g.partners[v].is_empty()), g.adj[v].count_ones()))
        .expect("a square");
    let mut spent = 0u64;
    let mut run_budget = 10_000u64;
    let mut run = 0u64;
    while spent < budget {
        let give = run_budget.min(budget - spent);
        let mut dfs = Dfs {
            g: &g,
            path: vec![start as u8],
            free: g.live & !(1u128 << start),
            budget: give,
            rng: fastrand::Rng::with_seed(seed ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        };
        match dfs.search() {
            Outcome::Found => {
                let cells = dfs
                    .path
                    .iter()
                    .map(|&v| ((usize::from(v) / cols) as u8, (usize::from(v) % cols) as u8))
                    .collect();
                return Ok(Found::Cycle(cells));
            }
            Outcome::Dead => return Ok(Found::None),
            Outcome::OutOfBudget => {}
        }
        spent += give;
        run += 1;
        if run % 2 == 0 {
            run_budget *= 2;
        }
    }
    Ok(Found::GaveUp)
}

/// Whether `cycle` is a cycle as `spec` asks (every square but the holes once, each step a knight's
/// move or an extra edge, every extra edge and required move used).
#[must_use]
pub fn satisfies(spec: &Spec, cycle: &[Cell]) -> bool {
    let Ok(g) = Graph::new(spec) else {
        return false;
    };
    let cols = usize::from(spec.cols);
    let idx = |c: Cell| usize::from(c.0) * cols + usize::from(c.1);
    if cycle.len() != g.live.count_ones() as usize || cycle.len() < 3 {
        return false;
    }
    let mut seen = 0u128;
    for &c in cycle {
        if c.0 >= spec.rows || c.1 >= spec.cols {
            return false;
        }
        let i = idx(c);
        if seen >> i & 1 == 1 || g.live >> i & 1 == 0 {
            return false;
        }
        seen |= 1u128 << i;
    }
    let edges: Vec<(usize, usize)> = (0..cycle.len())
        .map(|k| (idx(cycle[k]), idx(cycle[(k + 1) % cycle.len()])))
        .collect();
    let has = |a: usize, b: usize| {
        edges
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b))
    };
    edges.iter().all(|&(a, b)| g.adj[a] >> b & 1 == 1)
        && spec
            .required
            .iter()
            .chain(&spec.extra)
            .all(|&(a, b)| has(idx(a), idx(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_closed_tours_and_proves_none() {
        let spec = Spec {
            rows: 6,
            cols: 6,
            ..Spec::default()
        };
        let Found::Cycle(c) = find_cycle(&spec, 1, 1_000_000).unwrap() else {
            panic!("6x6 has closed tours");
        };
        assert!(satisfies(&spec, &c));
        // 4x5 has no closed tour (Schwenk), and the search proves it
        let none = Spec {
            rows: 4,
            cols: 5,
            ..Spec::default()
        };
        assert_eq!(find_cycle(&none, 1, 10_000_000).unwrap(), Found::None);
    }

    #[test]
    fn honours_holes_required_moves_and_extra_edges() {
        let spec = Spec {
            rows: 5,
            cols: 6,
            holes: vec![],
            required: vec![((3, 0), (1, 1))],
            extra: vec![],
        };
        let Found::Cycle(c) = find_cycle(&spec, 7, 1_000_000).unwrap() else {
            panic!("5x6 has a closed tour with this move");
        };
        assert!(satisfies(&spec, &c));
        // 5x5 less a corner, with an extra edge: a path between the corner's two neighbours
        let holey = Spec {
            rows: 5,
            cols: 5,
            holes: vec![(2, 2)],
            required: vec![],
            extra: vec![((0, 0), (4, 4))],
        };
        if let Found::Cycle(c) = find_cycle(&holey, 3, 1_000_000).unwrap() {
            assert!(satisfies(&holey, &c));
        }
        let mut wrong = c.clone();
        wrong.swap(1, 2);
        assert!(!satisfies(&spec, &wrong));
        assert_eq!(
            find_cycle(
                &Spec {
                    rows: 5,
                    cols: 5,
                    required: vec![((0, 0), (1, 1))],
                    ..Spec::default()
                },
                0,
                10
            ),
            Err(SpecError::NotAMove((0, 0), (1, 1)))
        );
    }
}
