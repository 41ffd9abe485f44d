//! The knight's existence theorems: when a board, or a start square, can have no tour at all.
//!
//! Closed tours: Schwenk (1991). Open tours: Conrad, Hindrichs, Morsy and Wegener (1994). Colour
//! parity: every move changes colour, so a tour of an odd×odd board starts and ends on the
//! majority colour (that of a1). These only speak of the knight; other pieces get no verdict here.

use std::fmt;

use bitvec::prelude::*;

use crate::board::{Board, Square};
use crate::graph::Geometry;
use crate::piece::Piece;

/// A proof that no tour exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obstruction {
    /// Closed: both sides odd, so the board has an odd number of squares while a closed tour of a
    /// colour-switching piece alternates colours.
    OddSquares,
    /// Closed: a side of 1, 2 or 4.
    NarrowSide(u32),
    /// Closed: 3×4, 3×6 or 3×8 (Schwenk).
    SchwenkException,
    /// Open: 1×n (n > 1), 2×n, 3×3, 3×5, 3×6, 4×4 have no open tour.
    NoOpenTour,
    /// Colour parity: on an odd×odd board a tour starts and ends on a1's colour.
    MinorityColour(String),
    /// Any piece: a square without moves, too many dead ends, or a disconnected move graph.
    Graph(String),
    /// 4×n: an open tour starts and ends on the outer ranks (files, for n×4).
    InnerSquareOf4xN(String),
}

impl fmt::Display for Obstruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Obstruction::OddSquares => f.write_str(
                "both sides are odd, so the board has an odd number of squares, but every move of the piece changes colour and a closed tour must alternate colours (Schwenk 1991 for the knight)",
            ),
            Obstruction::NarrowSide(s) => write!(f, "a board with a side of {s} has no closed knight's tour (Schwenk 1991: no side may be 1, 2 or 4)"),
            Obstruction::SchwenkException => f.write_str("3x4, 3x6 and 3x8 have no closed knight's tour (Schwenk 1991)"),
            Obstruction::NoOpenTour => f.write_str(
                "this board has no knight's tour at all (Conrad et al. 1994: none on 1xn for n > 1, 2xn, 3x3, 3x5, 3x6 or 4x4)",
            ),
            Obstruction::MinorityColour(sq) => write!(
                f,
                "{sq} is on the minority colour of an odd-by-odd board; every knight move changes colour, so a tour must start and end on the colour of a1"
            ),
            Obstruction::Graph(why) => f.write_str(why),
            Obstruction::InnerSquareOf4xN(sq) => write!(
                f,
                "{sq} is on one of the two middle lines of a 4-wide board; knight moves from the outer lines only reach the middle ones, so a path starting there must alternate outer and middle lines, and with the colour alternation it would meet outer squares of one colour only (Schwenk's argument)"
            ),
        }
    }
}

/// Why the knight has no closed tour on `board`, if a theorem says so.
#[must_use]
pub fn closed_obstruction(board: Board, piece: &Piece) -> Option<Obstruction> {
    let n = board.squares();
    if piece.is_colour_switching() && n % 2 == 1 && n > 1 {
        return Some(Obstruction::OddSquares);
    }
    if !piece.is_knight() {
        return None;
    }
    let (m, k) = (board.rows.min(board.cols), board.rows.max(board.cols));
    if n == 1 {
        // a single square has no cycle
        return Some(Obstruction::NarrowSide(1));
    }
    if matches!(m, 1 | 2 | 4) {
        return Some(Obstruction::NarrowSide(m));
    }
    if m == 3 && matches!(k, 4 | 6 | 8) {
        return Some(Obstruction::SchwenkException);
    }
    None
}

/// Why the knight has no open tour on `board` (from `from`, when given), if a theorem says so.
#[must_use]
pub fn open_obstruction(board: Board, piece: &Piece, from: Option<Square>) -> Option<Obstruction> {
    if board.squares() == 1 {
        return None;
    }
    if piece.is_knight() {
        let (m, k) = (board.rows.min(board.cols), board.rows.max(board.cols));
        if m <= 2 || (m == 3 && matches!(k, 3 | 5 | 6)) || (m == 4 && k == 4) {
            return Some(Obstruction::NoOpenTour);
        }
    }
    if let Some(sq) = from {
        if piece.is_knight() && board.rows.min(board.cols) == 4 {
            let (line, width) = if board.rows == 4 {
                (sq.row, board.rows)
            } else {
                (sq.col, board.cols)
            };
            if width == 4 && (line == 1 || line == 2) {
                return Some(Obstruction::InnerSquareOf4xN(board.name(sq)));
            }
        }
        if piece.is_colour_switching() && board.squares() % 2 == 1 && Board::colour(sq) == 1 {
            return Some(Obstruction::MinorityColour(board.name(sq)));
        }
    }
    None
}

/// Degree and connectivity facts that rule out any tour, for any piece and board.
#[must_use]
pub fn graph_obstruction(geo: &Geometry, closed: bool) -> Option<String> {
    let n = geo.board.squares() as usize;
    if n == 1 {
        return closed.then(|| "a single square has no closed tour".to_string());
    }
    let mut low = 0usize;
    for i in 0..n as u32 {
        let d = geo.neighbours(i).count();
        if d == 0 {
            return Some(format!(
                "square {} has no move",
                geo.board.name(geo.board.square(i))
            ));
        }
        if d == 1 {
            if closed {
                return Some(format!(
                    "square {} has only one move",
                    geo.board.name(geo.board.square(i))
                ));
            }
            low += 1;
        }
    }
    if low > 2 {
        return Some(format!(
            "{low} squares have only one move, but a path has two ends"
        ));
    }
    let mut seen: BitVec = bitvec![0; n];
    let mut stack = vec![0u32];
    seen.set(0, true);
    let mut reached = 1;
    while let Some(s) = stack.pop() {
        for nb in geo.neighbours(s) {
            if !seen[nb as usize] {
                seen.set(nb as usize, true);
                reached += 1;
                stack.push(nb);
            }
        }
    }
    (reached < n).then(|| {
        format!(
            "the piece's moves split the board: from a1 it reaches only {reached} of {n} squares"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(r: u32, c: u32) -> Board {
        Board { rows: r, cols: c }
    }

    #[test]
    fn schwenk() {
        let k = Piece::knight();
        assert_eq!(
            closed_obstruction(b(5, 5), &k),
            Some(Obstruction::OddSquares)
        );
        assert_eq!(
            closed_obstruction(b(4, 8), &k),
            Some(Obstruction::NarrowSide(4))
        );
        assert_eq!(
            closed_obstruction(b(3, 8), &k),
            Some(Obstruction::SchwenkException)
        );
        assert_eq!(closed_obstruction(b(6, 6), &k), None);
        assert_eq!(closed_obstruction(b(3, 10), &k), None);
        assert_eq!(closed_obstruction(b(5, 6), &k), None);
    }

    #[test]
    fn open_tours() {
        let k = Piece::knight();
        assert_eq!(
            open_obstruction(b(4, 4), &k, None),
            Some(Obstruction::NoOpenTour)
        );
        assert_eq!(
            open_obstruction(b(3, 6), &k, None),
            Some(Obstruction::NoOpenTour)
        );
        assert_eq!(open_obstruction(b(3, 4), &k, None), None);
        assert_eq!(open_obstruction(b(1, 1), &k, None), None);
        assert!(matches!(
            open_obstruction(b(5, 5), &k, Some(Square::new(0, 1))),
            Some(Obstruction::MinorityColour(_))
        ));
        assert_eq!(open_obstruction(b(5, 5), &k, Some(Square::new(0, 0))), None);
        assert!(matches!(
            open_obstruction(b(4, 9), &k, Some(Square::new(1, 3))),
            Some(Obstruction::InnerSquareOf4xN(_))
        ));
        assert!(matches!(
            open_obstruction(b(9, 4), &k, Some(Square::new(3, 2))),
            Some(Obstruction::InnerSquareOf4xN(_))
        ));
        assert_eq!(open_obstruction(b(4, 9), &k, Some(Square::new(3, 3))), None);
        assert_eq!(open_obstruction(b(9, 4), &k, Some(Square::new(3, 0))), None);
    }
}
