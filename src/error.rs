//! The library's error type: every message names the bad value and what is allowed.

use thiserror::Error;

/// Errors from parsing user input and from requests an engine cannot serve.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("invalid board '{}': {why} (write ROWSxCOLS, e.g. 8x8 or 3x10, each side 1..={max})", clip(.value), max = crate::limits::MAX_SIDE)]
    BadBoard { value: String, why: &'static str },
    #[error("board '{}' is too large: each side may be at most {max} (boards of up to {max_squares} squares); a tour of it would need about {need} of memory at 4 bytes a square", clip(.value), max = crate::limits::MAX_SIDE, max_squares = u64::from(crate::limits::MAX_SIDE).pow(2), need = crate::human::human_bytes(*squares * 4))]
    BoardTooLarge { value: String, squares: u64 },
    #[error(
        "invalid square '{}': write it as algebraic (a1, h8, aa12) or COL,RANK (1-based, e.g. 3,5; each 1..={max})",
        clip(.value),
        max = crate::limits::MAX_SIDE
    )]
    BadSquare { value: String },
    #[error("square '{}' is off the {board} board (files a..{last_file}, ranks 1..{rows})", clip(.value))]
    SquareOffBoard {
        value: String,
        board: String,
        last_file: String,
        rows: u32,
    },
    #[error("invalid piece '{}': {why} (allowed: knight, camel, zebra, giraffe, A,B with 0 <= A,B <= {max} not both 0, or a union such as 3,0+2,2)", clip(.value), max = crate::limits::MAX_LEAP)]
    BadPiece { value: String, why: &'static str },
    #[error("the {board} board has {squares} squares; {engine} handles at most {max}. {hint}")]
    TooLarge {
        board: String,
        squares: u64,
        engine: &'static str,
        max: u64,
        hint: &'static str,
    },
    #[error("{0}")]
    Invalid(String),
    /// A count refused before it starts: projected past the memory bound or 30 days, or past
    /// an hour with nothing kept. It has done no work worth keeping, so it leaves no file.
    #[error("{0}")]
    Refused(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The longest stretch of a bad value an error quotes, in characters.
pub const CLIP_CHARS: usize = 60;

/// A bad value as an error quotes it: control characters escaped (the message stays one line)
/// and cut to [`CLIP_CHARS`] characters, with `…` where it was cut.
#[must_use]
pub fn clip(value: &str) -> String {
    let mut cut: String = value.chars().take(CLIP_CHARS).collect();
    if cut.len() < value.len() {
        cut.push('…');
    }
    escape_controls(&cut)
}

/// `text` with control characters (line breaks among them) escaped as `\n`, `\u{0}`, …
#[must_use]
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_and_control_characters_escaped() {
        assert_eq!(clip("8x8"), "8x8");
        assert_eq!(clip("a\nb"), "a\\nb");
        let long = "x".repeat(1_000_000);
        let shown = clip(&long);
        assert_eq!(shown.chars().count(), CLIP_CHARS + 1);
        assert!(shown.ends_with('…'));
        let e = Error::BadBoard {
            value: long,
            why: "expected two sides separated by 'x'",
        };
        assert!(e.to_string().len() < 300, "{e}");
    }
}
