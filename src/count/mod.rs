//! Exact counting of open and closed tours: the driver above the engines.
//!
//! [`count`] is the entry point: it checks the request, answers from the existence theorems where
//! they apply, and runs one of the engines ([`crate::dfs`], [`crate::frontier`],
//! [`crate::naive`]) through the interface of [`crate::engine`]: the engine cuts the count into
//! numbered pieces, and the driver ([`driver`]) counts the pieces of its shard, records them in
//! the checkpoint log ([`checkpoint`]), shows progress and puts the total together
//! ([`report`] prints it).

pub mod checkpoint;
pub mod driver;
pub mod folder;
pub mod ledger;
mod left;
pub mod report;
pub mod row;
mod shards;
pub mod status;

pub use crate::dfs::{
    Counter, Plan, REACH_SECONDS, Root, Tally, UNIT_TARGET, Unit, check_reach_plan, count_each,
    count_units, estimate_seconds, per_square, tally, weigh,
};
pub use crate::durable::CheckpointError;
pub use crate::engine::{Count, CountSpec, Peak};
pub use crate::human::human_duration;
pub use crate::naive::{self, NAIVE_MAX_SQUARES};
pub use checkpoint::{Checkpoint, RunId, Shard};

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

    /// The engine a checkpoint names.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Engine> {
        [Engine::Dfs, Engine::Frontier, Engine::Naive]
            .into_iter()
            .find(|e| e.name() == name)
    }
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
