//! `knights`: knight's tours and their relatives. Boards, leapers, verified tours, exact counts.

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod cli;
pub mod construct;
pub mod count;
pub mod error;
pub mod estimate;
pub mod find;
pub mod frontier;
pub mod graph;
pub mod hash;
pub mod heuristics;
pub mod hunt;
pub mod piece;
pub mod render;
pub mod search;
pub mod survey;
pub mod theory;
pub mod tour;

pub use bitboard::Bitboard;
pub use board::{Board, Square};
pub use error::{Error, Result};
pub use piece::Piece;
pub use tour::Tour;
