//! The frontier counter: dynamic programming over a moving frontier of the board.

use std::sync::atomic::AtomicBool;

use crate::board::Board;
use crate::count::CountSpec;
use crate::count::driver::{Job, Observer, Outcome, RunError};
use crate::error::Error;
use crate::piece::Piece;

/// Whether the frontier engine can count this request.
pub fn supports(_board: Board, _piece: &Piece, _spec: &CountSpec) -> Result<(), Error> {
    Err(Error::Invalid(
        "the frontier engine is not part of this build".into(),
    ))
}

/// Counts `job` with the frontier engine.
pub fn run(job: &Job, _stop: &AtomicBool, _obs: &dyn Observer) -> Result<Outcome, RunError> {
    Err(supports(job.board, &job.piece, &job.spec)
        .unwrap_err()
        .into())
}
