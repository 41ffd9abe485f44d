//! The exact search that finds the construction's pieces: a Hamiltonian cycle (or a path from a
//! given square) through a small block of the knight's graph, at most 128 squares, with holes,
//! required moves and directed extra edges (the jumps where a route leaves the block and comes
//! back elsewhere).
//!
//! Only the piece generator (`examples/make_pieces.rs`) and the tests run it; the construction
//! itself reads the pieces it found from `pieces.txt`.

use crate::graph::KNIGHT_OFFSETS;

/// A square of a block, `(row, col)`.
pub type Cell = (u8, u8);

/// What to search for: a cycle through every square of a `rows`×`cols` block except `holes`,
/// using knight moves and the `extra` edges, each extra edge `(a, b)` used from `a` to `b`, and
/// containing every move of `required` (either way). With `open_from`, a path from that square
/// instead, ending anywhere.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    pub rows: u8,
    pub cols: u8,
    pub holes: Vec<Cell>,
    pub required: Vec<(Cell, Cell)>,
    pub extra: Vec<(Cell, Cell)>,
    pub open_from: Option<Cell>,
}

/// Why a [`Spec`] cannot be searched.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("a block of {0} squares is larger than the search's 128")]
    TooLarge(u32),
    #[error("square {0:?} is off the block or a hole")]
    OffBlock(Cell),
    #[error("required edge {0:?}-{1:?} is not a knight's move between two squares of the block")]
    NotAMove(Cell, Cell),
    #[error("square {0:?} has two extra edges leaving it or two entering it")]
    Crowded(Cell),
}

/// The search's graph: adjacency as bit sets, and the edges each square must use.
struct Graph {
    n: usize,
    /// Knight's moves.
    moves: Vec<u128>,
    /// Knight's moves and extra edges, either way: for the degree bounds.
    adj: Vec<u128>,
    /// Required moves at each square (either way).
    partners: Vec<Vec<u8>>,
    /// The square an extra edge leads to from each square, and the one it comes from.
    succ: Vec<Option<u8>>,
    pred: Vec<Option<u8>>,
    live: u128,
}

const NONE: usize = usize::MAX;

impl Graph {
    fn new(spec: &Spec) -> Result<Graph, SpecError> {
        let (rows, cols) = (usize::from(spec.rows), usize::from(spec.cols));
        let n = rows * cols;
        if n > 128 {
            return Err(SpecError::TooLarge(n as u32));
        }
        let mut live: u128 = if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        let raw = |c: Cell| -> Result<usize, SpecError> {
            if usize::from(c.0) >= rows || usize::from(c.1) >= cols {
                return Err(SpecError::OffBlock(c));
            }
            Ok(usize::from(c.0) * cols + usize::from(c.1))
        };
        for &h in &spec.holes {
            live &= !(1u128 << raw(h)?);
        }
        let index = |c: Cell| -> Result<usize, SpecError> {
            let i = raw(c)?;
            if live >> i & 1 == 0 {
                return Err(SpecError::OffBlock(c));
            }
            Ok(i)
        };
        let mut moves = vec![0u128; n];
        for (i, m) in moves.iter_mut().enumerate() {
            if live >> i & 1 == 0 {
                continue;
            }
            let (r, c) = ((i / cols) as i32, (i % cols) as i32);
            for (dr, dc) in KNIGHT_OFFSETS {
                let (nr, nc) = (r + dr, c + dc);
                if nr >= 0 && nc >= 0 && nr < rows as i32 && nc < cols as i32 {
                    let j = nr as usize * cols + nc as usize;
                    if live >> j & 1 == 1 {
                        *m |= 1u128 << j;
                    }
                }
            }
        }
        let mut adj = moves.clone();
        let mut succ = vec![None; n];
        let mut pred = vec![None; n];
        for &(a, b) in &spec.extra {
            let (i, j) = (index(a)?, index(b)?);
            adj[i] |= 1u128 << j;
            adj[j] |= 1u128 << i;
            if succ[i].replace(j as u8).is_some() {
                return Err(SpecError::Crowded(a));
            }
            if pred[j].replace(i as u8).is_some() {
                return Err(SpecError::Crowded(b));
            }
        }
        let mut partners = vec![Vec::new(); n];
        for &(a, b) in &spec.required {
            let (i, j) = (index(a)?, index(b)?);
            if moves[i] >> j & 1 == 0 {
                return Err(SpecError::NotAMove(a, b));
            }
            partners[i].push(j as u8);
            partners[j].push(i as u8);
        }
        if let Some(s) = spec.open_from {
            index(s)?;
        }
        Ok(Graph {
            n,
            moves,
            adj,
            partners,
            succ,
            pred,
            live,
        })
    }

    /// Whether `a -> b` may be a step: the extra edge leaving `a`, or else a knight's move into a
    /// square no extra edge enters.
    fn step(&self, a: usize, b: usize) -> bool {
        match self.succ[a] {
            Some(z) => usize::from(z) == b,
            None => self.moves[a] >> b & 1 == 1 && self.pred[b].is_none(),
        }
    }
}

/// The state of one depth-first search.
struct Dfs<'g> {
    g: &'g Graph,
    open: bool,
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

    /// Whether the required moves at `w` allow entering it from `e`: at most one of them may be
    /// left for its next step, and that one must lead to a free square (or close the cycle).
    fn may_enter(&self, e: usize, w: usize) -> bool {
        let mut others = self.g.partners[w]
            .iter()
            .map(|&z| usize::from(z))
            .filter(|&z| z != e);
        match (others.next(), others.next()) {
            (None, _) => true,
            (Some(_), Some(_)) => false,
            (Some(z), None) => {
                self.free >> z & 1 == 1
                    || (!self.open && z == self.start() && self.free.count_ones() == 1)
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

    /// Degree bounds: in a cycle every free square needs two usable edges (to free squares, the
    /// end or the start); on a path one, and at most one square (the path's end) can have one.
    fn degrees_ok(&self, end: usize) -> bool {
        let start = self.start();
        let mut open = self.free | 1u128 << end;
        if !self.open {
            open |= 1u128 << start;
        }
        let left = self.free.count_ones();
        let mut ones = 0;
        let mut f = self.free;
        while f != 0 {
            let v = f.trailing_zeros() as usize;
            f &= f - 1;
            let a = self.g.adj[v] & open;
            let d = a.count_ones();
            if self.open {
                if d == 0 || (d == 1 && a == 1u128 << end && left > 1) {
                    return false;
                }
                if d == 1 {
                    ones += 1;
                    if ones > 1 {
                        return false;
                    }
                }
            } else if d < 2 {
                return false;
            }
        }
        true
    }

    fn search(&mut self) -> Outcome {
        if self.budget == 0 {
            return Outcome::OutOfBudget;
        }
        self.budget -= 1;
        let end = usize::from(*self.path.last().expect("non-empty"));
        let start = self.start();
        if self.free == 0 {
            let closes = self.open
                || (self.path.len() >= 3
                    && self.g.step(end, start)
                    && self.partners_done(end, start));
            return if closes {
                Outcome::Found
            } else {
                Outcome::Dead
            };
        }
        // the step the end must take: its extra edge, or a required move other than its
        // predecessor's
        let prev = (self.path.len() >= 2).then(|| usize::from(self.path[self.path.len() - 2]));
        let mut forced = self.g.succ[end].map(usize::from);
        let pending: Vec<usize> = self.g.partners[end]
            .iter()
            .map(|&z| usize::from(z))
            .filter(|&z| Some(z) != prev)
            .collect();
        if end == start && !self.open {
            // the first step takes one required move, the closing step the other
            if forced.is_none() {
                forced = pending.first().copied();
            }
        } else {
            match (pending.len(), forced) {
                (0, _) => {}
                (1, None) => forced = Some(pending[0]),
                (1, Some(z)) if z == pending[0] => {}
                _ => return Outcome::Dead,
            }
        }
        if forced.is_some_and(|z| self.free >> z & 1 == 0) {
            return Outcome::Dead;
        }
        if !self.degrees_ok(end) || !self.connected(end) {
            return Outcome::Dead;
        }
        let mut cands: Vec<(u32, u32, usize)> = Vec::with_capacity(8);
        let mut nb = match forced {
            Some(z) => 1u128 << z,
            None => self.g.moves[end] & self.free,
        };
        while nb != 0 {
            let w = nb.trailing_zeros() as usize;
            nb &= nb - 1;
            if !self.g.step(end, w) || !self.may_enter(end, w) {
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

    /// Whether the closing step `end -> start` leaves no required move at either unused.
    fn partners_done(&self, end: usize, start: usize) -> bool {
        let prev = usize::from(self.path[self.path.len() - 2]);
        let first = usize::from(self.path[1]);
        self.g.partners[end]
            .iter()
            .all(|&z| usize::from(z) == prev || usize::from(z) == start)
            && self.g.partners[start]
                .iter()
                .all(|&z| usize::from(z) == first || usize::from(z) == end)
    }
}

/// The answer of [`find_cycle`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The squares in order: a cycle (the last steps to the first), or the path from
    /// `open_from`. A step from a square with an extra edge takes that edge.
    Cycle(Vec<Cell>),
    /// The search space was exhausted: there is no such cycle.
    None,
    /// The node budget ran out first.
    GaveUp,
}

/// Searches as `spec` asks: randomised depth-first runs in Warnsdorff order with doubling
/// budgets (restarts cut the heavy tail), `budget` nodes in all.
pub fn find_cycle(spec: &Spec, seed: u64, budget: u64) -> Result<Found, SpecError> {
    let g = Graph::new(spec)?;
    let cols = usize::from(spec.cols);
    let live = |v: &usize| g.live >> *v & 1 == 1;
    // a path starts where asked; a cycle on a square an extra edge enters (the cycle must come
    // back through that edge), else on one with required moves, else of least degree
    let start = match spec.open_from {
        Some((r, c)) => usize::from(r) * cols + usize::from(c),
        None => (0..g.n)
            .filter(live)
            .min_by_key(|&v| {
                (
                    g.pred[v].is_none(),
                    g.partners[v].is_empty(),
                    g.adj[v].count_ones(),
                )
            })
            .unwrap_or(NONE),
    };
    if start == NONE {
        return Ok(Found::None);
    }
    let mut spent = 0u64;
    let mut run_budget = 10_000u64;
    let mut run = 0u64;
    while spent < budget {
        let give = run_budget.min(budget - spent);
        let mut dfs = Dfs {
            g: &g,
            open: spec.open_from.is_some(),
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
        if run.is_multiple_of(2) {
            run_budget *= 2;
        }
    }
    Ok(Found::GaveUp)
}

/// Whether `cells` is what `spec` asks for: every square but the holes once, each step a
/// knight's move into a square no extra edge enters or the extra edge leaving a square, the
/// cycle closed the same way unless it is a path from `open_from`, and every required move used.
#[must_use]
pub fn satisfies(spec: &Spec, cells: &[Cell]) -> bool {
    let Ok(g) = Graph::new(spec) else {
        return false;
    };
    let cols = usize::from(spec.cols);
    let idx = |c: Cell| usize::from(c.0) * cols + usize::from(c.1);
    if cells.len() != g.live.count_ones() as usize || cells.is_empty() {
        return false;
    }
    let mut seen = 0u128;
    for &c in cells {
        if c.0 >= spec.rows || c.1 >= spec.cols {
            return false;
        }
        let i = idx(c);
        if seen >> i & 1 == 1 || g.live >> i & 1 == 0 {
            return false;
        }
        seen |= 1u128 << i;
    }
    let open = spec.open_from.is_some();
    if open && spec.open_from != Some(cells[0]) {
        return false;
    }
    let steps = if open { cells.len() - 1 } else { cells.len() };
    if !open && cells.len() < 3 {
        return false;
    }
    let edges: Vec<(usize, usize)> = (0..steps)
        .map(|k| (idx(cells[k]), idx(cells[(k + 1) % cells.len()])))
        .collect();
    let has = |a: usize, b: usize| {
        edges
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b))
    };
    // every extra edge is used: the square it leaves is never the path's end
    let extras_used = spec.extra.iter().all(|&(a, b)| {
        let (i, j) = (idx(a), idx(b));
        edges.contains(&(i, j))
    });
    edges.iter().all(|&(a, b)| g.step(a, b))
        && extras_used
        && spec.required.iter().all(|&(a, b)| has(idx(a), idx(b)))
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
            required: vec![((3, 0), (1, 1))],
            ..Spec::default()
        };
        let Found::Cycle(c) = find_cycle(&spec, 7, 1_000_000).unwrap() else {
            panic!("5x6 has a closed tour with this move");
        };
        assert!(satisfies(&spec, &c));
        let mut wrong = c.clone();
        wrong.swap(1, 2);
        assert!(!satisfies(&spec, &wrong));
        // 5x7 less a square of a1's colour
        let holey = Spec {
            rows: 5,
            cols: 7,
            holes: vec![(2, 2)],
            ..Spec::default()
        };
        let Found::Cycle(c) = find_cycle(&holey, 3, 1_000_000).unwrap() else {
            panic!("5x7 less c3 has a cycle");
        };
        assert!(satisfies(&holey, &c) && !c.contains(&(2, 2)));
        // two paths through a 3x6 block: (2,0) .. (0,5) and (2,5) .. (0,0), joined by jumps
        let lanes = Spec {
            rows: 3,
            cols: 6,
            extra: vec![((0, 5), (2, 5)), ((0, 0), (2, 0))],
            ..Spec::default()
        };
        if let Found::Cycle(c) = find_cycle(&lanes, 3, 1_000_000).unwrap() {
            assert!(satisfies(&lanes, &c));
        }
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

    #[test]
    fn paths_from_a_square() {
        // 3x4 has open tours from a1, none closed
        let spec = Spec {
            rows: 3,
            cols: 4,
            open_from: Some((0, 0)),
            ..Spec::default()
        };
        let Found::Cycle(p) = find_cycle(&spec, 0, 1_000_000).unwrap() else {
            panic!("3x4 has an open tour from a1");
        };
        assert!(satisfies(&spec, &p) && p[0] == (0, 0));
        // 4x4 has none
        let none = Spec {
            rows: 4,
            cols: 4,
            open_from: Some((0, 0)),
            ..Spec::default()
        };
        assert_eq!(find_cycle(&none, 0, 10_000_000).unwrap(), Found::None);
    }
}
