//! `knights tour`: find one tour and print it, verified, as a stream.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::Instant;

use anyhow::Result;
use knights::find::{self, FindError, FindOptions};
use knights::render::colour::{self, ColorChoice};
use knights::render::{self, Format};

use super::on_board;
use crate::EXIT_NOT_FOUND;
use knights::cli::TourArgs;

pub(crate) fn run(a: &TourArgs, colour: ColorChoice) -> Result<u8> {
    let board = a.board;
    let piece = &a.piece.piece;
    let from = on_board(board, a.from, "--from")?;
    if a.format == Format::Svg {
        render::svg::check_size(board)?;
    }
    let t0 = Instant::now();
    let opts = FindOptions::new(a.closed, from, a.seed).with_strategy(a.method);
    let found = match find::find_compact(board, piece, &opts) {
        Ok(f) => f,
        Err(FindError::Input(e)) => return Err(e.into()),
        Err(e @ (FindError::Internal(_) | FindError::Unsupported { .. })) => return Err(e.into()),
        Err(e) => {
            eprintln!("knights: {e}");
            return Ok(EXIT_NOT_FOUND);
        }
    };
    let seconds = t0.elapsed().as_secs_f64();
    let t = found.tour;
    let summary = format!(
        "{} tour of {} by the {} from {} to {}, verified ({}, {:.3} s)\n",
        if t.closed() { "closed" } else { "open" },
        board,
        piece,
        board.name(t.first()),
        board.name(t.last()),
        found.method,
        seconds
    );
    let stdout = io::stdout();
    let colour = colour::enabled(
        colour,
        stdout.is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    );
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    render::write_in_colour(&mut out, t, piece, a.format, colour)?;
    if matches!(a.format, Format::Grid | Format::None) {
        out.write_all(summary.as_bytes())?;
    }
    out.flush()?;
    Ok(0)
}
