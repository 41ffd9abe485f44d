//! Board geometry: sizes, squares and their notation, and the board's symmetry group.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

pub use crate::limits::MAX_SIDE;

/// A rectangular board of `rows` ranks by `cols` files. Square `(row, col)` has index
/// `row * cols + col`; row 0 is rank 1 and col 0 is file `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Board {
    pub rows: u32,
    pub cols: u32,
}

/// A square of a board, 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    pub row: u32,
    pub col: u32,
}

impl Square {
    #[must_use]
    pub const fn new(row: u32, col: u32) -> Square {
        Square { row, col }
    }
}

impl Board {
    /// A board with checked sides.
    pub fn new(rows: u32, cols: u32) -> Result<Board> {
        let b = Board { rows, cols };
        if rows == 0 || cols == 0 || rows > MAX_SIDE || cols > MAX_SIDE {
            return Err(Error::BadBoard {
                value: b.to_string(),
                why: "sides must be 1 or more and at most the maximum",
            });
        }
        Ok(b)
    }

    #[must_use]
    pub const fn squares(self) -> u64 {
        self.rows as u64 * self.cols as u64
    }

    /// True when the board fits a `u64` bitboard.
    #[must_use]
    pub const fn is_small(self) -> bool {
        self.squares() <= 64
    }

    #[must_use]
    pub const fn transposed(self) -> Board {
        Board {
            rows: self.cols,
            cols: self.rows,
        }
    }

    #[must_use]
    pub const fn contains(self, row: i64, col: i64) -> bool {
        row >= 0 && col >= 0 && row < self.rows as i64 && col < self.cols as i64
    }

    #[must_use]
    pub const fn index(self, sq: Square) -> u32 {
        sq.row * self.cols + sq.col
    }

    #[must_use]
    pub const fn square(self, index: u32) -> Square {
        Square {
            row: index / self.cols,
            col: index % self.cols,
        }
    }

    /// The colour of a square: 0 for the colour of a1, 1 for the other.
    #[must_use]
    pub const fn colour(sq: Square) -> u32 {
        (sq.row + sq.col) & 1
    }

    /// Parses a square in algebraic (`a1`, `aa10`) or numeric `COL,RANK` (1-based) notation and
    /// checks that it lies on this board.
    pub fn parse_square(self, s: &str) -> Result<Square> {
        self.check_square(parse_square_unchecked(s)?)
    }

    /// `sq` when it lies on this board; the error names it and the board's files and ranks.
    pub fn check_square(self, sq: Square) -> Result<Square> {
        if sq.row >= self.rows || sq.col >= self.cols {
            return Err(Error::SquareOffBoard {
                value: self.name(sq),
                board: self.to_string(),
                last_file: file_name(self.cols - 1),
                rows: self.rows,
            });
        }
        Ok(sq)
    }

    /// The square's algebraic name, e.g. `a1`.
    #[must_use]
    pub fn name(self, sq: Square) -> String {
        format!("{}{}", file_name(sq.col), sq.row + 1)
    }

    /// Writes the square's algebraic name without allocating, for streamed output.
    pub fn write_name(self, out: &mut impl std::io::Write, sq: Square) -> std::io::Result<()> {
        let mut buf = [0u8; 16];
        let mut at = buf.len();
        let mut rank = sq.row + 1;
        while rank > 0 {
            at -= 1;
            buf[at] = b'0' + (rank % 10) as u8;
            rank /= 10;
        }
        let mut n = sq.col + 1;
        while n > 0 {
            n -= 1;
            at -= 1;
            buf[at] = b'a' + (n % 26) as u8;
            n /= 26;
        }
        out.write_all(&buf[at..])
    }

    /// The symmetries of the dihedral group that map this board onto itself: all 8 on a square
    /// board, the 4 that keep the axes on a rectangle.
    #[must_use]
    pub fn symmetries(self) -> Vec<Symmetry> {
        Symmetry::ALL
            .into_iter()
            .filter(|s| self.rows == self.cols || !s.transposes())
            .collect()
    }

    /// The image of `sq` under `sym` (which must be one of [`Board::symmetries`]).
    #[must_use]
    pub const fn apply(self, sym: Symmetry, sq: Square) -> Square {
        let (mut r, mut c) = (sq.row, sq.col);
        let (rows, cols) = (self.rows, self.cols);
        if sym.0 & 4 != 0 {
            // transpose first; only used on square boards
            let t = r;
            r = c;
            c = t;
        }
        if sym.0 & 1 != 0 {
            r = rows - 1 - r;
        }
        if sym.0 & 2 != 0 {
            c = cols - 1 - c;
        }
        Square { row: r, col: c }
    }

    /// The symmetry as a permutation of square indices.
    #[must_use]
    pub fn permutation(self, sym: Symmetry) -> Vec<u32> {
        (0..self.squares() as u32)
            .map(|i| self.index(self.apply(sym, self.square(i))))
            .collect()
    }

    /// The orbits of the squares under the symmetry group, each sorted, ordered by their
    /// smallest square.
    #[must_use]
    pub fn orbits(self) -> Vec<Vec<u32>> {
        let n = self.squares() as usize;
        let perms: Vec<Vec<u32>> = self
            .symmetries()
            .into_iter()
            .map(|s| self.permutation(s))
            .collect();
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for i in 0..n {
            if seen[i] {
                continue;
            }
            let mut orbit: Vec<u32> = perms.iter().map(|p| p[i]).collect();
            orbit.sort_unstable();
            orbit.dedup();
            for &j in &orbit {
                seen[j as usize] = true;
            }
            out.push(orbit);
        }
        out
    }
}

/// One of the eight symmetries of the square: bit 0 flips ranks, bit 1 flips files, bit 2
/// transposes (applied first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(pub u8);

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    #[must_use]
    pub const fn transposes(self) -> bool {
        self.0 & 4 != 0
    }
}

/// File name of a 0-based column: `a`..`z`, then `aa`, `ab`, … (bijective base 26).
#[must_use]
pub fn file_name(col: u32) -> String {
    let mut n = col + 1;
    let mut bytes = Vec::new();
    while n > 0 {
        n -= 1;
        bytes.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    bytes.reverse();
    String::from_utf8(bytes).expect("ascii")
}

/// Parses a square without knowing the board.
pub fn parse_square_unchecked(s: &str) -> Result<Square> {
    let bad = || Error::BadSquare {
        value: s.to_string(),
    };
    let t = s.trim();
    if let Some((c, r)) = t.split_once(',') {
        let col: u32 = c.trim().parse().map_err(|_| bad())?;
        let rank: u32 = r.trim().parse().map_err(|_| bad())?;
        if col == 0 || rank == 0 || col > MAX_SIDE || rank > MAX_SIDE {
            return Err(bad());
        }
        return Ok(Square {
            row: rank - 1,
            col: col - 1,
        });
    }
    let letters = t.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (file, rank) = t.split_at(letters);
    if letters == 0 || letters > 3 || rank.is_empty() || !rank.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let mut col: u64 = 0;
    for b in file.bytes() {
        col = col * 26 + u64::from(b.to_ascii_lowercase() - b'a' + 1);
    }
    let rank: u64 = rank.parse().map_err(|_| bad())?;
    if rank == 0 || rank > u64::from(MAX_SIDE) || col > u64::from(MAX_SIDE) {
        return Err(bad());
    }
    Ok(Square {
        row: rank as u32 - 1,
        col: col as u32 - 1,
    })
}

impl FromStr for Board {
    type Err = Error;

    fn from_str(s: &str) -> Result<Board> {
        let bad = |why| Error::BadBoard {
            value: s.to_string(),
            why,
        };
        let t = s.trim().to_ascii_lowercase();
        let Some((r, c)) = t.split_once(['x', '×', '*']) else {
            return Err(bad("expected two sides separated by 'x'"));
        };
        let side = |p: &str| -> Result<u64> {
            if p.is_empty() {
                return Err(bad("a side is missing"));
            }
            let v: u64 = p
                .trim()
                .parse()
                .map_err(|_| bad("sides must be whole numbers"))?;
            if v == 0 {
                return Err(bad("sides must be at least 1"));
            }
            Ok(v)
        };
        let (rows, cols) = (side(r)?, side(c)?);
        if rows > u64::from(MAX_SIDE) || cols > u64::from(MAX_SIDE) {
            return Err(Error::BoardTooLarge {
                value: s.trim().to_string(),
                squares: rows.saturating_mul(cols),
            });
        }
        Ok(Board {
            rows: rows as u32,
            cols: cols as u32,
        })
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_boards() {
        assert_eq!("8x8".parse::<Board>().unwrap(), Board { rows: 8, cols: 8 });
        assert_eq!(
            "3X10".parse::<Board>().unwrap(),
            Board { rows: 3, cols: 10 }
        );
        assert_eq!(
            "1000x1001".parse::<Board>().unwrap(),
            Board {
                rows: 1000,
                cols: 1001
            }
        );
        for bad in ["0x5", "8x", "abc", "x8", "5x0", "-1x5", "10001x2", "8x8x8"] {
            assert!(bad.parse::<Board>().is_err(), "{bad}");
        }
        let big = "20000x20000".parse::<Board>().unwrap_err().to_string();
        assert!(big.contains("20000x20000") && big.contains("10000") && big.contains("1.5 GiB"));
    }

    #[test]
    fn parses_squares() {
        let b = Board {
            rows: 1000,
            cols: 1000,
        };
        assert_eq!(b.parse_square("a1").unwrap(), Square::new(0, 0));
        assert_eq!(b.parse_square("h8").unwrap(), Square::new(7, 7));
        assert_eq!(b.parse_square("z3").unwrap(), Square::new(2, 25));
        assert_eq!(b.parse_square("aa10").unwrap(), Square::new(9, 26));
        assert_eq!(b.parse_square("777,500").unwrap(), Square::new(499, 776));
        for bad in ["", "a0", "1a", "a", "0,3", "3,0", "a1b", "abcd1"] {
            assert!(b.parse_square(bad).is_err(), "{bad}");
        }
        let small = Board { rows: 5, cols: 5 };
        assert!(matches!(
            small.parse_square("f1"),
            Err(Error::SquareOffBoard { .. })
        ));
        assert!(matches!(
            small.parse_square("a6"),
            Err(Error::SquareOffBoard { .. })
        ));
    }

    #[test]
    fn written_names_match() {
        let b = Board {
            rows: 10_000,
            cols: 10_000,
        };
        for (r, c) in [(0, 0), (9, 25), (99, 26), (9999, 9999), (1234, 702)] {
            let mut v = Vec::new();
            b.write_name(&mut v, Square::new(r, c)).unwrap();
            assert_eq!(String::from_utf8(v).unwrap(), b.name(Square::new(r, c)));
        }
    }

    #[test]
    fn file_names_round_trip() {
        for col in [0, 1, 25, 26, 27, 51, 52, 701, 702, 9999] {
            let name = format!("{}1", file_name(col));
            assert_eq!(parse_square_unchecked(&name).unwrap().col, col, "{name}");
        }
        assert_eq!(file_name(26), "aa");
        assert_eq!(file_name(27), "ab");
    }

    #[test]
    fn symmetry_groups_and_orbits() {
        let sq = Board { rows: 6, cols: 6 };
        assert_eq!(sq.symmetries().len(), 8);
        assert_eq!(sq.orbits().len(), 6);
        let rect = Board { rows: 5, cols: 8 };
        assert_eq!(rect.symmetries().len(), 4);
        assert_eq!(rect.orbits().iter().map(Vec::len).sum::<usize>(), 40);
        for s in rect.symmetries() {
            let mut p = rect.permutation(s);
            p.sort_unstable();
            assert_eq!(p, (0..40).collect::<Vec<_>>());
        }
    }
}
