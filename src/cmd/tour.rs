//! `knights tour`: find one tour and print it, verified.

use std::time::Instant;

use anyhow::Result;
use knights::find::{self, FindError, FindOptions};
use knights::render::{self, Format};

use super::on_board;
use crate::cli::TourArgs;
use crate::{EXIT_NOT_FOUND, emit};

pub(crate) fn run(a: &TourArgs) -> Result<u8> {
    let board = a.board;
    let from = on_board(board, a.from, "--from")?;
    let t0 = Instant::now();
    let opts = FindOptions::new(a.closed, from, a.seed);
    let found = match find::find_tour(board, &a.piece.piece, &opts) {
        Ok(f) => f,
        Err(FindError::Input(e)) => return Err(e.into()),
        Err(e @ FindError::Internal(_)) => return Err(e.into()),
        Err(e) => {
            eprintln!("knights: {e}");
            return Ok(EXIT_NOT_FOUND);
        }
    };
    let t = &found.tour;
    let summary = format!(
        "{} tour of {} by the {} from {} to {}, verified ({}, {:.3} s)\n",
        if t.closed { "closed" } else { "open" },
        board,
        a.piece.piece,
        board.name(t.path[0]),
        board.name(t.path[t.path.len() - 1]),
        found.method,
        t0.elapsed().as_secs_f64()
    );
    let body = render::render(t, &a.piece.piece, a.format);
    match a.format {
        Format::Grid => emit(&(body + &summary))?,
        Format::None => emit(&summary)?,
        _ => emit(&body)?,
    }
    Ok(0)
}
