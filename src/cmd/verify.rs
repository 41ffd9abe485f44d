//! `knights verify`: read a tour in any of the text forms and check it.

use std::io::{self, Read};

use anyhow::{Context, Result};
use knights::render::{self, parse::ParseError};
use knights::tour;

use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::VerifyArgs;

pub(crate) fn run(a: &VerifyArgs) -> Result<u8> {
    let text = if a.file.as_os_str() == "-" {
        let mut s = String::new();
        io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the tour from standard input")?;
        s
    } else {
        std::fs::read_to_string(&a.file)
            .with_context(|| format!("cannot read '{}'", a.file.display()))?
    };
    let (board, path) = match render::parse::parse_tour(&text, a.board) {
        Ok(p) => p,
        Err(ParseError::Format(m)) => anyhow::bail!(m),
        Err(ParseError::Numbering(m)) => {
            emit(&format!("invalid: {m}\n"))?;
            return Ok(EXIT_NOT_FOUND);
        }
    };
    let piece = &a.piece.piece;
    match tour::Tour::verified(board, piece, path, a.closed) {
        Ok(t) => {
            emit(&format!(
                "valid {} tour of {} by the {} ({} squares, {} to {})\n",
                if t.closed { "closed" } else { "open" },
                board,
                piece,
                t.path.len(),
                board.name(t.path[0]),
                board.name(t.path[t.path.len() - 1])
            ))?;
            Ok(0)
        }
        Err(e) => {
            emit(&format!("invalid: {e}\n"))?;
            Ok(EXIT_NOT_FOUND)
        }
    }
}
