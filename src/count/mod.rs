//! Exact counting of open and closed tours on boards of up to 64 squares.
//!
//! [`count`] is the entry point: it checks the request, answers from the existence theorems where
//! they apply, builds a [`Plan`], splits it into work units and sums them in parallel with rayon.

pub mod checkpoint;
pub mod naive;
pub mod plan;
pub mod run;

use std::time::Instant;

use rayon::prelude::*;

pub use checkpoint::{Checkpoint, CheckpointError, RunId, Shard};
pub use plan::{CountSpec, Plan, Root, Tally, Unit};
pub use run::{Counter, count_each};

use crate::board::Board;
use crate::error::{Error, Result};
use crate::piece::Piece;
use crate::theory;

/// Which counter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The bitboard DFS.
    #[default]
    Auto,
    Dfs,
    /// Plain backtracking, for comparison.
    Naive,
}

/// Work units a count is split into, whatever the number of threads.
pub const UNIT_TARGET: usize = 4096;

/// The largest board the naive engine accepts: past it a count takes hours.
pub const NAIVE_MAX_SQUARES: u64 = 36;

/// The answer to a count.
#[derive(Clone, Debug, PartialEq)]
pub struct Count {
    /// Directed tours (open: every start and both directions; closed: twice the cycles).
    pub directed: u64,
    /// Undirected tours (open: directed / 2; closed: cycles).
    pub undirected: u64,
    /// How the total was assembled.
    pub how: String,
    /// The theorem that settles the count at zero, if one does.
    pub reason: Option<theory::Obstruction>,
    /// Directed open tours by start square (row-major), when asked for.
    pub per_square: Option<Vec<u64>>,
    pub seconds: f64,
}

/// Checks a request before any work: board size for the engine and squares on the board.
pub fn check(board: Board, spec: &CountSpec, engine: Engine) -> Result<()> {
    if spec.per_square && (spec.closed || spec.from.is_some() || spec.to.is_some()) {
        return Err(Error::Invalid(
            "--per-square counts open tours from every square; it cannot be combined with --closed, --from or --to".into(),
        ));
    }
    if !board.is_small() {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "exact counting",
            max: 64,
            hint: "Counts past 64 squares are out of reach of an exhaustive search; `knights tour` finds one tour on boards of up to 4,000,000 squares (2000x2000).",
        });
    }
    if engine == Engine::Naive && board.squares() > NAIVE_MAX_SQUARES {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "the naive engine",
            max: NAIVE_MAX_SQUARES,
            hint: "Use --engine dfs.",
        });
    }
    Ok(())
}

/// Search nodes one thread gets through in a second, by Knuth's estimate: measured 5e7 to 1.5e8
/// on this project's 2-core machines, taken low so that a count is refused only when clearly hopeless.
const NODES_PER_THREAD_SECOND: f64 = 3e7;

/// The longest count started without `--force`: 30 days.
pub const REACH_SECONDS: f64 = 30.0 * 86_400.0;

/// Estimated seconds a DFS count takes on `threads` threads (see [`Plan::estimate_nodes`]).
#[must_use]
pub fn estimate_seconds(plan: &Plan, threads: usize) -> f64 {
    plan.estimate_nodes(1000, 0x5EED) / (NODES_PER_THREAD_SECOND * threads.max(1) as f64)
}

/// Refuses a count whose estimated time exceeds [`REACH_SECONDS`].
pub fn check_reach(board: Board, piece: &Piece, spec: &CountSpec, threads: usize) -> Result<f64> {
    // every board of up to 40 squares counts within seconds; skip the estimate's milliseconds
    if board.squares() <= 40 || obstruction(board, piece, spec).is_some() {
        return Ok(0.0);
    }
    let secs = estimate_seconds(&Plan::new(board, piece, spec), threads);
    if secs > REACH_SECONDS {
        return Err(Error::Invalid(format!(
            "counting these tours on {board} is out of reach: the search tree is estimated at {:.1e} nodes, about {} on {threads} thread{}; use --force to start anyway (with --checkpoint)",
            secs * NODES_PER_THREAD_SECOND * threads as f64,
            human_duration(secs),
            if threads == 1 { "" } else { "s" }
        )));
    }
    Ok(secs)
}

/// A duration in the largest fitting unit, e.g. `3.2 hours`.
#[must_use]
pub fn human_duration(secs: f64) -> String {
    let units = [
        (365.25 * 86_400.0, "years"),
        (86_400.0, "days"),
        (3_600.0, "hours"),
        (60.0, "minutes"),
    ];
    for (size, name) in units {
        if secs >= size {
            return format!("{:.1} {name}", secs / size);
        }
    }
    format!("{secs:.1} seconds")
}

/// The theorem that makes the count zero, if any.
#[must_use]
pub fn obstruction(board: Board, piece: &Piece, spec: &CountSpec) -> Option<theory::Obstruction> {
    let theorem = if spec.closed {
        theory::closed_obstruction(board, piece)
    } else {
        theory::open_obstruction(board, piece, spec.from).or_else(|| {
            spec.to
                .and_then(|t| theory::open_obstruction(board, piece, Some(t)))
        })
    };
    theorem.or_else(|| {
        let geo = crate::graph::Geometry::new(board, piece);
        theory::graph_obstruction(&geo, spec.closed).map(theory::Obstruction::Graph)
    })
}

/// Turns the weighted sum of a plan into the reported pair `(directed, undirected)`.
#[must_use]
pub fn tally(kind: Tally, sum: u64, squares: u64) -> (u64, u64) {
    match kind {
        Tally::OpenAll if squares == 1 => (sum, sum),
        Tally::OpenAll => (sum, sum / 2),
        Tally::Fixed => (sum, sum),
        Tally::Cycles => (2 * sum, sum),
    }
}

/// Counts every unit of `units` of `plan`, in parallel on the current rayon pool; the result is
/// in unit order and does not depend on the number of threads.
#[must_use]
pub fn count_units(plan: &Plan, units: &[Unit]) -> Vec<u64> {
    let counter = Counter::new(plan);
    units
        .par_iter()
        .with_max_len(1)
        .map(|u| counter.count(u))
        .collect()
}

/// The weighted total of counted units.
#[must_use]
pub fn weigh(plan: &Plan, units: &[Unit], counts: &[u64]) -> u64 {
    units
        .iter()
        .zip(counts)
        .map(|(u, c)| plan.roots[u.root as usize].multiplier * c)
        .sum()
}

/// Counts tours of `piece` on `board` as `spec` asks, with `engine`, on the current rayon pool.
pub fn count(board: Board, piece: &Piece, spec: &CountSpec, engine: Engine) -> Result<Count> {
    check(board, spec, engine)?;
    let t0 = Instant::now();
    let reason = obstruction(board, piece, spec);
    if let Some(reason) = reason {
        return Ok(Count {
            directed: 0,
            undirected: 0,
            how: "settled by a theorem".into(),
            per_square: spec.per_square.then(|| vec![0; board.squares() as usize]),
            reason: Some(reason),
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    if engine == Engine::Naive {
        return Ok(count_naive(board, piece, spec, t0));
    }
    let plan = Plan::new(board, piece, spec);
    let units = plan.units(UNIT_TARGET);
    let counts = count_units(&plan, &units);
    Ok(Count::from_units(
        board,
        &plan,
        &units,
        &counts,
        spec.per_square,
        t0.elapsed().as_secs_f64(),
    ))
}

impl Count {
    /// The figures of a plan from the counts of its units (0 for a unit not counted), with the
    /// table by start square when `with_per_square`.
    #[must_use]
    pub fn from_units(
        board: Board,
        plan: &Plan,
        units: &[Unit],
        counts: &[u64],
        with_per_square: bool,
        seconds: f64,
    ) -> Count {
        let (directed, undirected) = tally(plan.tally, weigh(plan, units, counts), board.squares());
        Count {
            directed,
            undirected,
            how: plan.how.clone(),
            reason: None,
            per_square: with_per_square.then(|| per_square(board, plan, units, counts)),
            seconds,
        }
    }
}

/// Directed open tours by start square (row-major) from the counts of every unit of a plan made
/// with `per_square` set: each orbit's squares get its representative's count.
#[must_use]
pub fn per_square(board: Board, plan: &Plan, units: &[Unit], counts: &[u64]) -> Vec<u64> {
    let mut by_root = vec![0u64; plan.roots.len()];
    for (u, c) in units.iter().zip(counts) {
        by_root[u.root as usize] += c;
    }
    let mut table = vec![0u64; board.squares() as usize];
    for (orbit, root) in board.orbits().iter().filter_map(|o| {
        plan.roots
            .iter()
            .position(|r| r.start == o[0])
            .map(|i| (o, i))
    }) {
        for &s in orbit {
            table[s as usize] = by_root[root];
        }
    }
    table
}

fn count_naive(board: Board, piece: &Piece, spec: &CountSpec, t0: Instant) -> Count {
    let n = board.squares();
    let (directed, undirected, how) = if spec.closed {
        match (spec.from, spec.to) {
            (Some(s), Some(t)) => {
                let c = naive::count_from(board, piece, s, true, Some(t));
                (c, c, "backtracking from the start square to the end square")
            }
            _ => {
                // every closed tour passes a1; read from there each cycle is found in both directions
                let c = naive::count_from(board, piece, board.square(0), true, None);
                (
                    c,
                    c / 2,
                    "backtracking from a1, closed paths found twice each",
                )
            }
        }
    } else {
        match (spec.from, spec.to) {
            (Some(s), to) => {
                let c = naive::count_from(board, piece, s, false, to);
                (c, c, "backtracking from the start square")
            }
            (None, to) => {
                let c = naive::count_open_all(board, piece, to);
                let und = if to.is_some() || n == 1 { c } else { c / 2 };
                (c, und, "backtracking from every square")
            }
        }
    };
    let per_square = spec.per_square.then(|| {
        (0..n as u32)
            .map(|i| naive::count_from(board, piece, board.square(i), false, None))
            .collect()
    });
    Count {
        directed,
        undirected,
        how: how.into(),
        reason: None,
        per_square,
        seconds: t0.elapsed().as_secs_f64(),
    }
}
