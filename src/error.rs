//! The library's error type: every message names the bad value and what is allowed.

use thiserror::Error;

/// Errors from parsing user input and from requests an engine cannot serve.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("invalid board '{value}': {why} (write ROWSxCOLS, e.g. 8x8 or 3x10, each side 1..={max})", max = crate::board::MAX_SIDE)]
    BadBoard { value: String, why: &'static str },
    #[error("board '{value}' is too large: each side may be at most {max} (boards of up to {max_squares} squares); a tour of it would need about {need} of memory at 4 bytes a square", max = crate::board::MAX_SIDE, max_squares = u64::from(crate::board::MAX_SIDE).pow(2), need = crate::count::report::human_bytes(*squares * 4))]
    BoardTooLarge { value: String, squares: u64 },
    #[error(
        "invalid square '{value}': write it as algebraic (a1, h8, aa12) or COL,RANK (1-based, e.g. 3,5)"
    )]
    BadSquare { value: String },
    #[error("square '{value}' is off the {board} board (files a..{last_file}, ranks 1..{rows})")]
    SquareOffBoard {
        value: String,
        board: String,
        last_file: String,
        rows: u32,
    },
    #[error("invalid piece '{value}': {why} (allowed: knight, camel, zebra, giraffe, A,B with 0 <= A,B <= {max} not both 0, or a union such as 3,0+2,2)", max = crate::piece::MAX_LEAP)]
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
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
