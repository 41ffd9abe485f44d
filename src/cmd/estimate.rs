//! `knights estimate`: the number of tours by Knuth's random probes, with a 95 % interval.

use anyhow::Result;
use knights::count::driver::with_threads;
use knights::estimate::{self, EstimateSpec};
use knights::render::estimate as show;

use super::on_board;
use crate::emit;
use knights::cli::EstimateArgs;

pub(crate) fn run(a: &EstimateArgs) -> Result<u8> {
    let board = a.board;
    let piece = &a.piece.piece;
    let mut spec = EstimateSpec::new(a.closed, on_board(board, a.from, "--from")?);
    spec.probes = a.probes;
    spec.seed = a.seed;
    let e = with_threads(a.threads, || estimate::estimate(board, piece, &spec))??;
    let text = if a.json {
        show::json(&e, board, piece, &spec).to_string() + "\n"
    } else {
        show::text(&e, board, piece, &spec)
    };
    emit(&text)?;
    Ok(0)
}
