//! Exact counting of open and closed tours on boards of up to 64 squares.
//!
//! [`count`] is the entry point: it checks the request, answers from the existence theorems where
//! they apply, builds a [`Plan`], splits it into work units and sums them in parallel with rayon.

pub mod checkpoint;
pub mod driver;
pub mod naive;
pub mod plan;
pub mod report;
pub mod run;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use num_bigint::BigUint;
use rayon::prelude::*;

pub use checkpoint::{Checkpoint, CheckpointError, RunId, Shard};
pub use plan::{CountSpec, Plan, Root, Tally, Unit};
pub use run::{Counter, count_each};

use crate::board::Board;
use crate::error::{Error, Result};
use crate::piece::Piece;
use crate::theory;
use driver::{Job, Quiet};

/// Which counter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The faster of the DFS and the frontier engine, by the rule of [`driver::choose`].
    #[default]
    Auto,
    /// The bitboard DFS (boards of up to 64 squares).
    Dfs,
    /// Dynamic programming over a moving frontier (boards of any length, short side up to 8).
    Frontier,
    /// Plain backtracking, for comparison.
    Naive,
}

impl Engine {
    /// The name printed in reports and written in checkpoints.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Dfs => "dfs",
            Engine::Frontier => "frontier",
            Engine::Naive => "naive",
        }
    }
}

/// Work units a count is split into, whatever the number of threads.
pub const UNIT_TARGET: usize = 4096;

/// The largest board the naive engine accepts: past it a count takes hours.
pub const NAIVE_MAX_SQUARES: u64 = 36;

/// The answer to a count.
#[derive(Clone, Debug, PartialEq)]
pub struct Count {
    /// Directed tours (open: every start and both directions; closed: twice the cycles).
    pub directed: BigUint,
    /// Undirected tours (open: directed / 2; closed: cycles).
    pub undirected: BigUint,
    /// How the total was assembled.
    pub how: String,
    /// The theorem that settles the count at zero, if one does.
    pub reason: Option<theory::Obstruction>,
    /// Directed open tours by start square (row-major), when asked for.
    pub per_square: Option<Vec<u64>>,
    pub seconds: f64,
    /// What the frontier engine needed at its largest layer (`None` for the other engines).
    pub peak: Option<Peak>,
}

/// The frontier engine's largest layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Peak {
    /// Squares in the frontier window.
    pub window: u32,
    /// States in the largest layer.
    pub states: u64,
    /// Bytes the state tables held at most.
    pub bytes: u64,
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

/// Refuses a DFS count of `plan` whose estimated time exceeds [`REACH_SECONDS`].
pub fn check_reach_plan(plan: &Plan, board: Board, threads: usize) -> Result<f64> {
    // every board of up to 40 squares counts within seconds; skip the estimate's milliseconds
    if board.squares() <= 40 {
        return Ok(0.0);
    }
    let secs = estimate_seconds(plan, threads);
    if secs > REACH_SECONDS {
        return Err(Error::Invalid(format!(
            "counting these tours on {board} is out of reach: the search tree is estimated at {:.1e} nodes, about {} on {threads} thread{}; use --force to start anyway (with --checkpoint), or `knights estimate` for an estimate of the count in seconds",
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

/// Counts tours of `piece` on `board` as `spec` asks, with `engine`, on the current rayon pool:
/// the driver's [`driver::run`] without checkpoint, shard, progress or stop flag.
pub fn count(board: Board, piece: &Piece, spec: &CountSpec, engine: Engine) -> Result<Count> {
    let job = Job::new(board, piece.clone(), spec.clone(), engine);
    let stop = std::sync::atomic::AtomicBool::new(false);
    match driver::run(&job, &stop, &Quiet) {
        Ok(o) => Ok(o.count),
        Err(driver::RunError::Input(e)) => Err(e),
        Err(e) => Err(Error::Invalid(e.to_string())),
    }
}

impl Count {
    /// The zero count a theorem settles.
    #[must_use]
    pub fn settled(
        board: Board,
        spec: &CountSpec,
        reason: theory::Obstruction,
        seconds: f64,
    ) -> Count {
        Count {
            directed: BigUint::ZERO,
            undirected: BigUint::ZERO,
            how: "settled by a theorem".into(),
            per_square: spec.per_square.then(|| vec![0; board.squares() as usize]),
            reason: Some(reason),
            seconds,
            peak: None,
        }
    }

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
            directed: directed.into(),
            undirected: undirected.into(),
            how: plan.how.clone(),
            reason: None,
            per_square: with_per_square.then(|| per_square(board, plan, units, counts)),
            seconds,
            peak: None,
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

/// The naive engine's count, or `None` when `stop` was set before it finished.
pub(crate) fn count_naive(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    t0: Instant,
    stop: &AtomicBool,
) -> Option<Count> {
    let n = board.squares();
    let (directed, undirected, how) = if spec.closed {
        match (spec.from, spec.to) {
            (Some(s), Some(t)) => {
                let c = naive::count_from_until(board, piece, s, true, Some(t), stop)?;
                (c, c, "backtracking from the start square to the end square")
            }
            _ => {
                // every closed tour passes a1; read from there each cycle is found in both directions
                let c = naive::count_from_until(board, piece, board.square(0), true, None, stop)?;
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
                let c = naive::count_from_until(board, piece, s, false, to, stop)?;
                (c, c, "backtracking from the start square")
            }
            (None, to) => {
                let c = naive::count_open_all_until(board, piece, to, stop)?;
                let und = if to.is_some() || n == 1 { c } else { c / 2 };
                (c, und, "backtracking from every square")
            }
        }
    };
    let per_square = if spec.per_square {
        Some(
            (0..n as u32)
                .map(|i| naive::count_from_until(board, piece, board.square(i), false, None, stop))
                .collect::<Option<Vec<u64>>>()?,
        )
    } else {
        None
    };
    Some(Count {
        directed: directed.into(),
        undirected: undirected.into(),
        how: how.into(),
        reason: None,
        per_square,
        seconds: t0.elapsed().as_secs_f64(),
        peak: None,
    })
}
