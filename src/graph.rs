//! The move graph of a piece on a board: bitboard masks for boards of up to 64 squares, and
//! neighbour generation by offsets for boards of any size.

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::piece::Piece;

/// The knight's eight offsets, for the compile-time tables.
pub const KNIGHT_OFFSETS: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];

/// The move mask of square `index` on a `rows`×`cols` board (`rows * cols <= 64`). Offsets are
/// applied to (row, col) pairs, so no move wraps around an edge on any width.
#[must_use]
pub const fn leaper_mask(rows: u32, cols: u32, offsets: &[(i32, i32)], index: u32) -> Bitboard {
    let r = (index / cols) as i32;
    let c = (index % cols) as i32;
    let mut bits = 0u64;
    let mut k = 0;
    while k < offsets.len() {
        let (dr, dc) = offsets[k];
        let (nr, nc) = (r + dr, c + dc);
        if nr >= 0 && nc >= 0 && nr < rows as i32 && nc < cols as i32 {
            bits |= 1u64 << (nr as u32 * cols + nc as u32);
        }
        k += 1;
    }
    Bitboard(bits)
}

/// All move masks of a board of up to 64 squares; squares past `rows * cols` stay empty.
#[must_use]
pub const fn leaper_masks(rows: u32, cols: u32, offsets: &[(i32, i32)]) -> [Bitboard; 64] {
    let mut out = [Bitboard::EMPTY; 64];
    let n = rows * cols;
    let mut i = 0;
    while i < n && i < 64 {
        out[i as usize] = leaper_mask(rows, cols, offsets, i);
        i += 1;
    }
    out
}

/// The knight's masks on the 8×8 board, built at compile time.
pub const KNIGHT_8X8: [Bitboard; 64] = leaper_masks(8, 8, &KNIGHT_OFFSETS);

/// One move direction as a bit shift: the squares reached from a set `s` along this direction are
/// `(s & from).shift(delta)`; `from` holds the squares whose move stays on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShiftDir {
    pub delta: i32,
    pub from: Bitboard,
}

/// The move graph of a piece on a board of up to 64 squares.
#[derive(Clone, Debug)]
pub struct SmallGraph {
    pub board: Board,
    /// Number of squares.
    pub n: u32,
    /// Every square of the board.
    pub all: Bitboard,
    /// `masks[i]`: the squares one move from `i`.
    pub masks: [Bitboard; 64],
    /// The piece's moves as shifts, for bit-parallel neighbourhoods.
    pub dirs: Vec<ShiftDir>,
    /// The same padded to eight with no-op shifts, when the piece has at most eight moves: a
    /// fixed-length loop the compiler unrolls (the knight's case, the hot one).
    pub dirs8: Option<[ShiftDir; 8]>,
}

impl SmallGraph {
    /// `None` when the board has more than 64 squares.
    #[must_use]
    pub fn new(board: Board, piece: &Piece) -> Option<SmallGraph> {
        if !board.is_small() {
            return None;
        }
        let n = board.squares() as u32;
        let offsets = piece.offsets();
        let masks = leaper_masks(board.rows, board.cols, &offsets);
        let cols = board.cols as i32;
        let dirs = offsets
            .iter()
            .filter_map(|&(dr, dc)| {
                let from = Bitboard(
                    (0..n)
                        .filter(|&i| {
                            let sq = board.square(i);
                            board.contains(
                                i64::from(sq.row) + i64::from(dr),
                                i64::from(sq.col) + i64::from(dc),
                            )
                        })
                        .fold(0u64, |acc, i| acc | 1 << i),
                );
                from.any().then_some(ShiftDir {
                    delta: dr * cols + dc,
                    from,
                })
            })
            .collect::<Vec<ShiftDir>>();
        let dirs8 = (dirs.len() <= 8).then(|| {
            let mut d8 = [ShiftDir {
                delta: 0,
                from: Bitboard::EMPTY,
            }; 8];
            d8[..dirs.len()].copy_from_slice(&dirs);
            d8
        });
        Some(SmallGraph {
            board,
            n,
            all: Bitboard::first(n),
            masks,
            dirs,
            dirs8,
        })
    }

    /// Squares with at least one move into `s`.
    #[must_use]
    #[inline]
    pub fn neighbours_of_set(&self, s: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let step = |out: &mut Bitboard, d: &ShiftDir| *out |= (s & d.from).shift(d.delta);
        match &self.dirs8 {
            Some(d8) => d8.iter().for_each(|d| step(&mut out, d)),
            None => self.dirs.iter().for_each(|d| step(&mut out, d)),
        }
        out
    }

    /// `(one, two)`: the squares with at least one, and at least two, moves into `s`.
    #[must_use]
    #[inline]
    pub fn degree_at_least_1_2(&self, s: Bitboard) -> (Bitboard, Bitboard) {
        let mut one = Bitboard::EMPTY;
        let mut two = Bitboard::EMPTY;
        let mut step = |d: &ShiftDir| {
            let x = (s & d.from).shift(d.delta);
            two |= one & x;
            one |= x;
        };
        match &self.dirs8 {
            Some(d8) => d8.iter().for_each(&mut step),
            None => self.dirs.iter().for_each(&mut step),
        }
        (one, two)
    }

    /// `(two, three)`: the squares with at least two, and at least three, moves into `s`.
    /// [`SmallGraph::degree_at_least_1_2`]'s twin with one level more: written out apart,
    /// because both served by one three-level counter made the one-ended search (`count 6x6`)
    /// 6 to 9 percent slower.
    #[must_use]
    #[inline]
    pub fn degree_at_least_2_3(&self, s: Bitboard) -> (Bitboard, Bitboard) {
        let mut one = Bitboard::EMPTY;
        let mut two = Bitboard::EMPTY;
        let mut three = Bitboard::EMPTY;
        let mut step = |d: &ShiftDir| {
            let x = (s & d.from).shift(d.delta);
            three |= two & x;
            two |= one & x;
            one |= x;
        };
        match &self.dirs8 {
            Some(d8) => d8.iter().for_each(&mut step),
            None => self.dirs.iter().for_each(&mut step),
        }
        (two, three)
    }

    /// The squares of `within` connected to `seed` through squares of `within`.
    #[must_use]
    #[inline]
    pub fn flood(&self, seed: Bitboard, within: Bitboard) -> Bitboard {
        let mut reached = seed & within;
        loop {
            let next = (reached | self.neighbours_of_set(reached)) & within;
            if next == reached {
                return reached;
            }
            reached = next;
        }
    }

    #[must_use]
    #[inline]
    pub fn degree(&self, sq: u32, within: Bitboard) -> u32 {
        (self.masks[sq as usize] & within).count()
    }
}

/// The distance [`Geometry::distances`] gives a square no move sequence reaches.
pub const UNSEEN: u32 = u32::MAX;

/// Neighbour generation for a board of any size, from the piece's offsets.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub board: Board,
    pub offsets: Vec<(i32, i32)>,
}

impl Geometry {
    #[must_use]
    pub fn new(board: Board, piece: &Piece) -> Geometry {
        Geometry {
            board,
            offsets: piece.offsets(),
        }
    }

    /// The squares one move from square index `i`, in offset order.
    #[inline]
    pub fn neighbours(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let b = self.board;
        let (r, c) = (i64::from(i / b.cols), i64::from(i % b.cols));
        self.offsets.iter().filter_map(move |&(dr, dc)| {
            let (nr, nc) = (r + i64::from(dr), c + i64::from(dc));
            b.contains(nr, nc)
                .then(|| (nr * i64::from(b.cols) + nc) as u32)
        })
    }

    /// The fewest moves from square index `src` to every square ([`UNSEEN`] where none leads),
    /// by breadth-first search.
    #[must_use]
    pub fn distances(&self, src: u32) -> Vec<u32> {
        let mut dist = vec![UNSEEN; self.board.squares() as usize];
        let mut queue = std::collections::VecDeque::from([src]);
        dist[src as usize] = 0;
        while let Some(s) = queue.pop_front() {
            let d = dist[s as usize] + 1;
            for w in self.neighbours(s) {
                if dist[w as usize] == UNSEEN {
                    dist[w as usize] = d;
                    queue.push_back(w);
                }
            }
        }
        dist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knight_table_matches_runtime() {
        let g = SmallGraph::new(Board { rows: 8, cols: 8 }, &Piece::knight()).unwrap();
        assert_eq!(g.masks, KNIGHT_8X8);
        assert_eq!(KNIGHT_8X8[0].count(), 2);
        assert_eq!(KNIGHT_8X8[27].count(), 8);
    }

    #[test]
    fn shifts_agree_with_masks() {
        for (rows, cols) in [(3, 21), (4, 16), (5, 12), (8, 8), (1, 64), (7, 9)] {
            for piece in ["knight", "camel", "3,0+2,2", "giraffe"] {
                let piece: Piece = piece.parse().unwrap();
                let g = SmallGraph::new(Board { rows, cols }, &piece).unwrap();
                for i in 0..g.n {
                    assert_eq!(
                        g.neighbours_of_set(Bitboard::from_square(i)),
                        g.masks[i as usize]
                    );
                    let geo = Geometry::new(g.board, &piece);
                    let from_geo = geo.neighbours(i).fold(Bitboard::EMPTY, Bitboard::with);
                    assert_eq!(from_geo, g.masks[i as usize]);
                }
            }
        }
    }
}
