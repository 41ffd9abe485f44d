//! `knights`: knight's tours and their relatives. Find a verified tour on any board up to
//! 10000×10000, check one, count every tour exactly, and the classic puzzles around them.
//!
//! The `knights` command is a thin layer over this library: everything it prints, a program can
//! get from these modules, with typed errors ([`Error`], [`find::FindError`],
//! [`tour::TourError`]) whose messages name the bad value.
//!
//! # Find a tour
//!
//! [`find::find_tour`] returns a tour that has already been verified: by the linear-time
//! construction where it applies (the knight, boards with both sides at least 5), by the
//! searches elsewhere.
//!
//! ```
//! use knights::find::{FindOptions, find_tour};
//! use knights::{Board, Piece};
//!
//! let board: Board = "8x8".parse()?;
//! let knight = Piece::knight();
//! let from = board.parse_square("d4")?;
//! // open tour (closed = false) from d4, seed 0 for the searches' tie-breaks
//! let found = find_tour(board, &knight, &FindOptions::new(false, Some(from), 0))?;
//! assert_eq!(found.tour.path.len(), 64);
//! assert_eq!(board.name(found.tour.path[0]), "d4");
//! // the numbered grid `knights tour 8x8 --from d4` prints
//! let grid = knights::render::grid(&found.tour);
//! assert_eq!(grid.lines().count(), 11);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Count tours
//!
//! [`count::count`] counts exactly; open tours are reported directed (every start square, both
//! directions), closed tours as undirected cycles.
//!
//! ```
//! use knights::count::{CountSpec, Engine, count};
//! use knights::Piece;
//!
//! let spec = CountSpec {
//!     symmetry: true, // one start square per symmetry orbit, as `knights count` does
//!     ..CountSpec::default()
//! };
//! let c = count("5x5".parse()?, &Piece::knight(), &spec, Engine::Auto)?;
//! assert_eq!(c.directed, 1728u32.into());
//! assert_eq!(c.undirected, 864u32.into());
//!
//! let closed = CountSpec { closed: true, ..spec };
//! let c = count("3x10".parse()?, &Piece::knight(), &closed, Engine::Auto)?;
//! assert_eq!(c.undirected, 16u32.into());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Verify a tour
//!
//! [`tour::verify`] checks a path of squares and says whether it closes; [`Tour::verified`]
//! makes a [`Tour`] of it. A faulty path is refused with the first bad step.
//!
//! ```
//! use knights::tour::{TourError, verify};
//! use knights::{Board, Piece, Square};
//!
//! let board = Board::new(3, 4)?;
//! let path: Vec<Square> = "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3"
//!     .split(' ')
//!     .map(|s| board.parse_square(s))
//!     .collect::<Result<_, _>>()?;
//! let closed = verify(board, &Piece::knight(), &path)?;
//! assert!(!closed, "a valid open tour");
//!
//! let mut wrong = path.clone();
//! wrong.swap(1, 2);
//! assert!(matches!(
//!     verify(board, &Piece::knight(), &wrong),
//!     Err(TourError::BadMove { step: 2, .. })
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Where things are
//!
//! [`board`] (sizes, squares, notation, symmetry) and [`piece`] (leapers) describe the problem;
//! [`find`] and [`construct`] make tours, [`tour`] checks them and [`render`] prints and reads
//! them; [`count`] (the DFS over [`bitboard`]s, via [`search`]) and [`frontier`] count them;
//! [`theory`] knows when none exist; [`hunt`], [`heuristics`], [`survey`] and [`estimate`] are the
//! puzzles; [`mod@bench`] times the solvers side by side; [`cli`] is the command line's definition.

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod cli;
pub mod construct;
pub mod count;
#[cfg(test)]
mod damage;
pub mod dfs;
mod disk;
pub mod durable;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod failpoint;
pub mod find;
pub mod frontier;
pub mod graph;
pub mod hash;
pub mod heuristics;
pub mod human;
pub mod hunt;
pub mod input;
pub(crate) mod layer;
pub mod limits;
pub mod list;
pub mod memory;
pub mod naive;
pub mod piece;
pub mod render;
pub mod sample;
pub mod search;

pub mod survey;
pub mod tally;
pub mod theory;
pub mod tour;
mod walk;

pub use bitboard::Bitboard;
pub use board::{Board, Square};
pub use error::{Error, Result};
pub use piece::Piece;
pub use tour::Tour;
