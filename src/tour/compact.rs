//! A tour stored as a successor array (4 bytes a square, for boards of up to 10⁸ squares), with
//! its linear-time check and the walks that print it.

use bitvec::prelude::*;

use super::{Tour, TourError};
use crate::board::{Board, Square};
use crate::piece::Piece;

/// Marks "no successor": the last square of an open tour.
pub const NO_SQUARE: u32 = u32::MAX;

/// A verified tour as successors: `next[i]` is the square after square index `i`
/// (`row * cols + col`). Following `next` from `first` visits every square once; `next[last]`
/// is `first` for a closed tour and [`NO_SQUARE`] for an open one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactTour {
    board: Board,
    closed: bool,
    first: u32,
    last: u32,
    next: Vec<u32>,
}

/// A piece's moves as index steps on one board, for checking a move without a division: a step
/// `delta` from `(r, c)` is a move when some offset with that delta stays on the board.
struct Steps {
    rows: i64,
    cols: i64,
    moves: Vec<(i64, i64, i64)>,
}

impl Steps {
    fn new(board: Board, piece: &Piece) -> Steps {
        let cols = i64::from(board.cols);
        Steps {
            rows: i64::from(board.rows),
            cols,
            moves: piece
                .offsets()
                .into_iter()
                .map(|(dr, dc)| {
                    (
                        i64::from(dr) * cols + i64::from(dc),
                        i64::from(dr),
                        i64::from(dc),
                    )
                })
                .collect(),
        }
    }

    /// The square `to` as `(row, col)` when it is one move from `(r, c)`.
    #[inline]
    fn step(&self, r: i64, c: i64, from: u32, to: u32) -> Option<(i64, i64)> {
        let delta = i64::from(to) - i64::from(from);
        self.moves.iter().find_map(|&(d, dr, dc)| {
            let (nr, nc) = (r + dr, c + dc);
            (d == delta && nr >= 0 && nc >= 0 && nr < self.rows && nc < self.cols)
                .then_some((nr, nc))
        })
    }
}

impl CompactTour {
    /// Checks the successors `next` from `first` on `board` for `piece`; with `require_closed`,
    /// an open tour is an error. `next` of the last square is ignored (it is set to `first` or
    /// [`NO_SQUARE`] by what the check finds).
    ///
    /// Two passes: a walk from `first` that marks each square once (a revisit, or fewer squares
    /// than the board, fails it), then every square but the last checked against its successor
    /// in board order, rows in parallel. A fault sends the check through a walk in path order,
    /// which names the first fault along the path.
    pub fn verified(
        board: Board,
        piece: &Piece,
        first: u32,
        mut next: Vec<u32>,
        require_closed: bool,
    ) -> Result<CompactTour, TourError> {
        let n = board.squares();
        if next.is_empty() {
            return Err(TourError::Empty);
        }
        if next.len() as u64 != n {
            return Err(TourError::Incomplete {
                got: next.len(),
                expected: n,
                board,
                missing: board.name(board.square(next.len().min(n as usize) as u32)),
            });
        }
        let last = match Self::distinct(&next, first) {
            Some(last) if Self::moves_ok(board, piece, &next, last) => last,
            _ => Self::walk_check(board, piece, first, &next)?,
        };
        let (f, l) = (board.square(first), board.square(last));
        let closed = n >= 3 && piece.is_move(l.row, l.col, f.row, f.col);
        if require_closed && !closed {
            return Err(TourError::NotClosed {
                first: board.name(f),
                last: board.name(l),
            });
        }
        next[last as usize] = if closed { first } else { NO_SQUARE };
        Ok(CompactTour {
            board,
            closed,
            first,
            last,
            next,
        })
    }

    /// The last square when the walk from `first` meets every square once, else `None`.
    fn distinct(next: &[u32], first: u32) -> Option<u32> {
        let n = next.len();
        if first as usize >= n {
            return None;
        }
        let mut seen = vec![0u64; n.div_ceil(64)];
        seen[first as usize / 64] |= 1 << (first % 64);
        let mut at = first;
        for _ in 1..n {
            let to = next[at as usize];
            let word = seen.get_mut(to as usize / 64)?;
            let bit = 1u64 << (to % 64);
            if *word & bit != 0 {
                return None;
            }
            *word |= bit;
            at = to;
        }
        Some(at)
    }

    /// Whether every square but `last` steps to its successor by a move of the piece (rows in
    /// parallel, in board order).
    fn moves_ok(board: Board, piece: &Piece, next: &[u32], last: u32) -> bool {
        use rayon::prelude::*;
        let steps = Steps::new(board, piece);
        let cols = board.cols as usize;
        next.par_chunks(cols).enumerate().all(|(r, row)| {
            row.iter().enumerate().all(|(c, &to)| {
                let at = (r * cols + c) as u32;
                at == last || steps.step(r as i64, c as i64, at, to).is_some()
            })
        })
    }

    /// The check as one walk in path order, which names the first fault (the slow path, taken
    /// only when the fast one fails); the last square when there is none.
    fn walk_check(board: Board, piece: &Piece, first: u32, next: &[u32]) -> Result<u32, TourError> {
        let n = board.squares();
        let name = |i: u32| {
            if u64::from(i) < n {
                board.name(board.square(i))
            } else {
                format!("#{i}")
            }
        };
        if u64::from(first) >= n {
            return Err(TourError::OffBoard {
                step: 1,
                square: name(first),
                board,
            });
        }
        let steps = Steps::new(board, piece);
        let mut seen: BitVec = bitvec![0; n as usize];
        seen.set(first as usize, true);
        let mut at = first;
        let start = board.square(first);
        let (mut r, mut c) = (i64::from(start.row), i64::from(start.col));
        for k in 1..n as usize {
            let to = next[at as usize];
            let step = k + 1;
            if u64::from(to) >= n {
                return Err(TourError::OffBoard {
                    step,
                    square: name(to),
                    board,
                });
            }
            let Some((nr, nc)) = steps.step(r, c, at, to) else {
                return Err(TourError::BadMove {
                    step,
                    from: name(at),
                    to: name(to),
                    piece: piece.to_string(),
                });
            };
            if seen.replace(to as usize, true) {
                let first_visit = Self::position(next, first, to);
                return Err(TourError::Revisit {
                    step,
                    square: name(to),
                    first: first_visit + 1,
                });
            }
            (r, c, at) = (nr, nc, to);
        }
        Ok(at)
    }

    /// The 0-based step at which the walk from `first` reaches `target` (for error messages).
    fn position(next: &[u32], first: u32, target: u32) -> usize {
        let mut at = first;
        let mut k = 0;
        while at != target {
            at = next[at as usize];
            k += 1;
        }
        k
    }

    /// Checks a path of square indices (an ordinary search's answer) and stores it compactly.
    pub fn from_path(
        board: Board,
        piece: &Piece,
        path: &[u32],
        require_closed: bool,
    ) -> Result<CompactTour, TourError> {
        let Some(&first) = path.first() else {
            return Err(TourError::Empty);
        };
        let n = board.squares();
        if path.len() as u64 != n {
            // the ordinary checker words every other fault best
            let squares: Vec<Square> = path.iter().map(|&i| board.square(i)).collect();
            super::verify(board, piece, &squares)?;
        }
        let mut next = vec![NO_SQUARE; n as usize];
        for w in path.windows(2) {
            if u64::from(w[0]) >= n {
                break;
            }
            next[w[0] as usize] = w[1];
        }
        Self::verified(board, piece, first, next, require_closed)
    }

    /// The compact form of a checked tour.
    #[must_use]
    pub fn from_tour(tour: &Tour) -> CompactTour {
        let b = tour.board;
        let idx: Vec<u32> = tour.path.iter().map(|&s| b.index(s)).collect();
        let mut next = vec![NO_SQUARE; idx.len()];
        for w in idx.windows(2) {
            next[w[0] as usize] = w[1];
        }
        let (first, last) = (idx[0], idx[idx.len() - 1]);
        next[last as usize] = if tour.closed { first } else { NO_SQUARE };
        CompactTour {
            board: b,
            closed: tour.closed,
            first,
            last,
            next,
        }
    }

    /// The tour as a list of squares (8 bytes a square: for small boards and tests).
    #[must_use]
    pub fn to_tour(&self) -> Tour {
        Tour {
            board: self.board,
            closed: self.closed,
            path: self.squares().map(|i| self.board.square(i)).collect(),
        }
    }

    #[must_use]
    pub fn board(&self) -> Board {
        self.board
    }

    /// Whether the last square is one move from the first.
    #[must_use]
    pub fn closed(&self) -> bool {
        self.closed
    }

    #[must_use]
    pub fn first(&self) -> Square {
        self.board.square(self.first)
    }

    #[must_use]
    pub fn last(&self) -> Square {
        self.board.square(self.last)
    }

    /// Number of squares (every square of the board).
    #[must_use]
    pub fn len(&self) -> usize {
        self.next.len()
    }

    /// Never true: a verified tour has at least one square.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.next.is_empty()
    }

    /// The square indices in tour order.
    pub fn squares(&self) -> impl Iterator<Item = u32> + '_ {
        let mut at = self.first;
        (0..self.next.len()).map(move |_| {
            let here = at;
            at = self.next[here as usize];
            here
        })
    }

    /// The 1-based step of every square, by square index, made in place of the successors (no
    /// second array): what the numbered grid prints.
    #[must_use]
    pub fn into_numbering(self) -> Vec<u32> {
        let mut next = self.next;
        let mut at = self.first;
        for k in 1..=next.len() as u32 {
            let after = next[at as usize];
            next[at as usize] = k;
            at = after;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(r: u32, c: u32) -> Board {
        Board { rows: r, cols: c }
    }

    /// The 3x4 open tour a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3, as indices.
    fn path_3x4() -> Vec<u32> {
        let b = board(3, 4);
        [
            "a1", "c2", "a3", "b1", "d2", "b3", "c1", "a2", "c3", "d1", "b2", "d3",
        ]
        .iter()
        .map(|s| b.index(b.parse_square(s).unwrap()))
        .collect()
    }

    #[test]
    fn agrees_with_the_list_checker() {
        let b = board(3, 4);
        let k = Piece::knight();
        let t = CompactTour::from_path(b, &k, &path_3x4(), false).unwrap();
        assert!(!t.closed());
        assert_eq!(t.squares().collect::<Vec<_>>(), path_3x4());
        assert_eq!(t.first(), Square::new(0, 0));
        assert_eq!(t.last(), Square::new(2, 3));
        let list = t.to_tour();
        assert_eq!(super::super::verify(b, &k, &list.path), Ok(false));
        assert_eq!(CompactTour::from_tour(&list), t);
        assert!(matches!(
            CompactTour::from_path(b, &k, &path_3x4(), true),
            Err(TourError::NotClosed { .. })
        ));
    }

    #[test]
    fn names_the_first_fault() {
        let b = board(3, 4);
        let k = Piece::knight();
        let mut swapped = path_3x4();
        swapped.swap(1, 2);
        assert!(matches!(
            CompactTour::from_path(b, &k, &swapped, false),
            Err(TourError::BadMove { step: 2, .. })
        ));
        // a successor array with a cycle short of the whole board: a1 c2 a3 b1 ... back to c2
        let p = path_3x4();
        let mut next = vec![NO_SQUARE; 12];
        for w in p.windows(2) {
            next[w[0] as usize] = w[1];
        }
        // b1 -> c3 is not a move; d2 -> b1 is, so make b3 (index 9) lead back to ... a revisit
        next[p[5] as usize] = p[3]; // b3 -> b1: not a knight move
        assert!(matches!(
            CompactTour::verified(b, &k, p[0], next.clone(), false),
            Err(TourError::BadMove { step: 7, .. })
        ));
        next[p[5] as usize] = p[4]; // b3 -> d2 is a move, but d2 came at step 5
        assert!(matches!(
            CompactTour::verified(b, &k, p[0], next.clone(), false),
            Err(TourError::Revisit {
                step: 7,
                first: 5,
                ..
            })
        ));
        next[p[5] as usize] = 99;
        assert!(matches!(
            CompactTour::verified(b, &k, p[0], next, false),
            Err(TourError::OffBoard { step: 7, .. })
        ));
    }

    #[test]
    fn no_edge_wraps_on_narrow_boards() {
        // on a 5-wide board, index +3 is (0,+3) or (+1,-2): only the move counts, never a wrap
        let b = board(5, 5);
        let steps = Steps::new(b, &Piece::knight());
        assert_eq!(steps.step(0, 4, 4, 7), Some((1, 2))); // e1 -> c2
        assert_eq!(steps.step(0, 1, 1, 4), None); // b1 -> e1 would wrap
    }

    #[test]
    fn numbering_is_made_in_place() {
        let b = board(3, 4);
        let t = CompactTour::from_path(b, &Piece::knight(), &path_3x4(), false).unwrap();
        let numbers = t.clone().into_numbering();
        for (k, sq) in t.squares().enumerate() {
            assert_eq!(numbers[sq as usize], k as u32 + 1);
        }
    }
}
