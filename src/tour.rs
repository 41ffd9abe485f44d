//! A tour and its checks: every tour the program prints goes through [`Tour::verified`].

use bitvec::prelude::*;
use thiserror::Error;

use crate::board::{Board, Square};
use crate::piece::Piece;

mod compact;

pub use compact::{CompactTour, NO_SQUARE};

/// A verified tour: a path visiting every square of `board` exactly once with legal moves of
/// the piece; `closed` when the last square is also one move from the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tour {
    pub board: Board,
    pub closed: bool,
    pub path: Vec<Square>,
}

/// Why a path is not a tour. Steps are numbered from 1 (the first square is step 1).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TourError {
    #[error("step {step}: square {square} is off the {board} board")]
    OffBoard {
        step: usize,
        square: String,
        board: Board,
    },
    #[error("step {step}: square {square} was already visited at step {first}")]
    Revisit {
        step: usize,
        square: String,
        first: usize,
    },
    #[error("step {step}: {from} to {to} is not a move of the {piece}")]
    BadMove {
        step: usize,
        from: String,
        to: String,
        piece: String,
    },
    #[error(
        "the path has {got} square{} but the {board} board has {expected}; first unvisited square: {missing}",
        crate::human::plural(*got as u64)
    )]
    Incomplete {
        got: usize,
        expected: u64,
        board: Board,
        missing: String,
    },
    #[error(
        "the tour is open: its last square {last} is not one move from its first square {first}"
    )]
    NotClosed { first: String, last: String },
    #[error("the path is empty")]
    Empty,
}

impl Tour {
    /// Checks `path` on `board` for `piece`; with `require_closed`, an open tour is an error.
    pub fn verified(
        board: Board,
        piece: &Piece,
        path: Vec<Square>,
        require_closed: bool,
    ) -> Result<Tour, TourError> {
        let closed = verify(board, piece, &path)?;
        if require_closed && !closed {
            return Err(TourError::NotClosed {
                first: board.name(path[0]),
                last: board.name(*path.last().expect("non-empty")),
            });
        }
        Ok(Tour {
            board,
            closed,
            path,
        })
    }

    /// The square numbers in board order: `numbers[row][col]` is the 1-based step of that square.
    #[must_use]
    pub fn numbering(&self) -> Vec<Vec<usize>> {
        let mut grid = vec![vec![0; self.board.cols as usize]; self.board.rows as usize];
        for (k, sq) in self.path.iter().enumerate() {
            grid[sq.row as usize][sq.col as usize] = k + 1;
        }
        grid
    }
}

/// Verifies a path; returns whether it is closed. The checks run in path order and report the
/// first problem found.
pub fn verify(board: Board, piece: &Piece, path: &[Square]) -> Result<bool, TourError> {
    let Some(&first) = path.first() else {
        return Err(TourError::Empty);
    };
    let n = board.squares();
    let mut seen: BitVec = bitvec![0; n as usize];
    // step at which each square was first visited, only consulted to word the error
    for (k, &sq) in path.iter().enumerate() {
        let step = k + 1;
        if sq.row >= board.rows || sq.col >= board.cols {
            return Err(TourError::OffBoard {
                step,
                square: board.name(sq),
                board,
            });
        }
        let idx = board.index(sq) as usize;
        if seen[idx] {
            let first = path.iter().position(|&p| p == sq).expect("seen") + 1;
            return Err(TourError::Revisit {
                step,
                square: board.name(sq),
                first,
            });
        }
        seen.set(idx, true);
        if k > 0 {
            let prev = path[k - 1];
            if !piece.is_move(prev.row, prev.col, sq.row, sq.col) {
                return Err(TourError::BadMove {
                    step,
                    from: board.name(prev),
                    to: board.name(sq),
                    piece: piece.to_string(),
                });
            }
        }
    }
    if (path.len() as u64) < n {
        let missing = seen.first_zero().expect("a square is missing") as u32;
        return Err(TourError::Incomplete {
            got: path.len(),
            expected: n,
            board,
            missing: board.name(board.square(missing)),
        });
    }
    let last = path[path.len() - 1];
    Ok(path.len() >= 3 && piece.is_move(last.row, last.col, first.row, first.col))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(board: Board, s: &str) -> Square {
        board.parse_square(s).unwrap()
    }

    #[test]
    fn verifies_a_3x4_open_tour() {
        let b = Board { rows: 3, cols: 4 };
        let path: Vec<Square> = [
            "a1", "c2", "a3", "b1", "d2", "b3", "c1", "a2", "c3", "d1", "b2", "d3",
        ]
        .iter()
        .map(|s| sq(b, s))
        .collect();
        assert_eq!(verify(b, &Piece::knight(), &path), Ok(false));
        assert!(matches!(
            Tour::verified(b, &Piece::knight(), path.clone(), true),
            Err(TourError::NotClosed { .. })
        ));
        let mut bad = path.clone();
        bad.swap(1, 2);
        assert!(matches!(
            verify(b, &Piece::knight(), &bad),
            Err(TourError::BadMove { step: 2, .. })
        ));
        let mut rep = path.clone();
        rep[5] = rep[0];
        assert!(matches!(
            verify(b, &Piece::knight(), &rep),
            Err(TourError::Revisit {
                step: 6,
                first: 1,
                ..
            })
        ));
        assert!(matches!(
            verify(b, &Piece::knight(), &path[..11]),
            Err(TourError::Incomplete { got: 11, .. })
        ));
        assert_eq!(verify(b, &Piece::knight(), &[]), Err(TourError::Empty));
    }

    #[test]
    fn one_square_board() {
        let b = Board { rows: 1, cols: 1 };
        assert_eq!(verify(b, &Piece::knight(), &[Square::new(0, 0)]), Ok(false));
    }
}
