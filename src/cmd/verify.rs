//! `knights verify`: read a tour in any of the text forms and check it, with every claim its text
//! makes (its piece, that it is closed, its length).

use std::io;
use std::path::Path;

use anyhow::{Result, bail};
use knights::input::{self, InputError, MAX_TOUR_TEXT};
use knights::render::{self, parse::ParseError};

use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::VerifyArgs;

/// The text of `file`, or of standard input for `-`, as tours are read (at most
/// [`MAX_TOUR_TEXT`] bytes, text only); where it is not a file, the error says to give `what`.
pub(crate) fn read_tour_text(file: &Path, what: &str) -> Result<String> {
    if file.as_os_str() == "-" {
        return Ok(input::read_text(
            io::stdin().lock(),
            "standard input",
            MAX_TOUR_TEXT,
        )?);
    }
    match input::read_file_text(file, MAX_TOUR_TEXT) {
        Ok(t) => Ok(t),
        Err(e @ InputError::NotAFile { .. }) => {
            bail!("{e}; give {what}, or - to read standard input")
        }
        Err(e) => Err(e.into()),
    }
}

pub(crate) fn run(a: &VerifyArgs) -> Result<u8> {
    let text = read_tour_text(&a.file, "a file")?;
    let parsed = match render::parse::parse_tour(&text, a.reading.board) {
        Ok(p) => p,
        Err(ParseError::Format(m)) => bail!(m),
        Err(ParseError::Numbering(m)) => {
            emit(&format!("invalid: {m}\n"))?;
            return Ok(EXIT_NOT_FOUND);
        }
    };
    drop(text);
    let piece = match parsed.piece(a.reading.piece.as_ref()) {
        Ok(p) => p,
        Err(e) => bail!(e),
    };
    let board = parsed.board;
    match parsed.verify(&piece, a.closed) {
        Ok(t) => {
            emit(&format!(
                "valid {} tour of {} by the {} ({} square{}, {} to {})\n",
                if t.closed { "closed" } else { "open" },
                board,
                piece,
                t.path.len(),
                knights::render::plural(t.path.len() as u64),
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
