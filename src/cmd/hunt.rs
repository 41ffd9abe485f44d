//! `knights hunt`: the shortest path from a square through every listed square.

use anyhow::{Context, Result};
use knights::hunt::{self, HuntError};
use knights::render::hunt as show;

use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::{HuntArgs, HuntFormat};

pub(crate) fn run(a: &HuntArgs) -> Result<u8> {
    let board = a.board;
    let piece = &a.piece.piece;
    let targets: Vec<_> = a.visit.iter().flat_map(|l| l.0.iter().copied()).collect();
    let from = board.check_square(a.from).context("--from")?;
    let h = match hunt::hunt(board, piece, from, &targets) {
        Ok(h) => h,
        Err(e @ HuntError::Unreachable { .. }) => {
            eprintln!("knights: {e}");
            return Ok(EXIT_NOT_FOUND);
        }
        Err(e @ HuntError::Internal(_)) => return Err(e.into()),
        Err(e) => return Err(anyhow::Error::new(e).context("--visit")),
    };
    let text = match a.format {
        HuntFormat::Moves => show::moves(&h) + &show::order(&h) + &show::summary(&h, piece),
        HuntFormat::Grid => show::grid(&h) + &show::summary(&h, piece),
        HuntFormat::Json => show::json(&h, piece),
        HuntFormat::Svg => show::svg(&h),
    };
    emit(&text)?;
    Ok(0)
}
