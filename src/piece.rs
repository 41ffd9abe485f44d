//! Pieces: leapers `(a, b)` and unions of them, and the move offsets they generate.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

pub use crate::limits::MAX_LEAP;

/// An `(a, b)` leaper: it jumps `a` squares along one axis and `b` along the other, in every
/// direction and orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Leaper {
    pub a: u32,
    pub b: u32,
}

impl Leaper {
    pub const KNIGHT: Leaper = Leaper { a: 1, b: 2 };
    pub const CAMEL: Leaper = Leaper { a: 1, b: 3 };
    pub const ZEBRA: Leaper = Leaper { a: 2, b: 3 };
    pub const GIRAFFE: Leaper = Leaper { a: 1, b: 4 };

    /// Normalised so that `a <= b`.
    #[must_use]
    pub const fn new(a: u32, b: u32) -> Leaper {
        if a <= b {
            Leaper { a, b }
        } else {
            Leaper { a: b, b: a }
        }
    }

    /// The distinct `(drow, dcol)` offsets of this leaper (8, or 4 when `a == 0` or `a == b`).
    #[must_use]
    pub fn offsets(self) -> Vec<(i32, i32)> {
        let (a, b) = (self.a as i32, self.b as i32);
        let mut v = Vec::with_capacity(8);
        for (x, y) in [(a, b), (b, a)] {
            for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                v.push((x * sx, y * sy));
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A piece: the union of one or more leapers. The knight is the default.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    leapers: Vec<Leaper>,
}

impl Default for Piece {
    fn default() -> Piece {
        Piece::knight()
    }
}

impl Piece {
    #[must_use]
    pub fn knight() -> Piece {
        Piece {
            leapers: vec![Leaper::KNIGHT],
        }
    }

    /// A piece from leapers (sorted and deduplicated); `None` when empty or `(0, 0)` is among them.
    #[must_use]
    pub fn from_leapers(leapers: &[Leaper]) -> Option<Piece> {
        let mut v: Vec<Leaper> = leapers.iter().map(|l| Leaper::new(l.a, l.b)).collect();
        v.sort_unstable();
        v.dedup();
        if v.is_empty() || v.iter().any(|l| l.b == 0) {
            return None;
        }
        Some(Piece { leapers: v })
    }

    #[must_use]
    pub fn leapers(&self) -> &[Leaper] {
        &self.leapers
    }

    /// True for the plain knight, the only piece the existence theorems speak of.
    #[must_use]
    pub fn is_knight(&self) -> bool {
        self.leapers == [Leaper::KNIGHT]
    }

    /// All distinct move offsets `(drow, dcol)`, sorted.
    #[must_use]
    pub fn offsets(&self) -> Vec<(i32, i32)> {
        let mut v: Vec<(i32, i32)> = self.leapers.iter().flat_map(|l| l.offsets()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// True when a move from `(r1, c1)` to `(r2, c2)` is one of this piece's leaps.
    #[must_use]
    pub fn is_move(&self, r1: u32, c1: u32, r2: u32, c2: u32) -> bool {
        let dr = r1.abs_diff(r2);
        let dc = c1.abs_diff(c2);
        self.leapers
            .iter()
            .any(|l| (l.a == dr && l.b == dc) || (l.a == dc && l.b == dr))
    }

    /// True when every move changes the square's colour (the knight's parity argument applies).
    #[must_use]
    pub fn is_colour_switching(&self) -> bool {
        self.leapers.iter().all(|l| (l.a + l.b) % 2 == 1)
    }

    /// True when no move changes the square's colour (the camel, the 2,2 leaper): the piece is
    /// bound to the colour it starts on.
    #[must_use]
    pub fn is_colour_bound(&self) -> bool {
        self.leapers.iter().all(|l| (l.a + l.b) % 2 == 0)
    }
}

impl FromStr for Piece {
    type Err = Error;

    fn from_str(s: &str) -> Result<Piece> {
        let bad = |why| Error::BadPiece {
            value: s.to_string(),
            why,
        };
        let mut leapers = Vec::new();
        for part in s.split('+') {
            let part = part.trim().to_ascii_lowercase();
            let l = match part.as_str() {
                "knight" | "n" => Leaper::KNIGHT,
                "camel" => Leaper::CAMEL,
                "zebra" => Leaper::ZEBRA,
                "giraffe" => Leaper::GIRAFFE,
                "" => return Err(bad("an empty part")),
                p => {
                    let p = p.trim_start_matches('(').trim_end_matches(')');
                    let Some((a, b)) = p.split_once(',') else {
                        return Err(bad("unknown name"));
                    };
                    let a: u32 = a
                        .trim()
                        .parse()
                        .map_err(|_| bad("leap components must be whole numbers"))?;
                    let b: u32 = b
                        .trim()
                        .parse()
                        .map_err(|_| bad("leap components must be whole numbers"))?;
                    if a > MAX_LEAP || b > MAX_LEAP {
                        return Err(bad("a leap component is too large"));
                    }
                    if a == 0 && b == 0 {
                        return Err(bad("the (0,0) leaper never moves"));
                    }
                    Leaper::new(a, b)
                }
            };
            leapers.push(l);
        }
        Piece::from_leapers(&leapers).ok_or_else(|| bad("no leaper given"))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = |l: Leaper| match l {
            Leaper::KNIGHT => Some("knight"),
            Leaper::CAMEL => Some("camel"),
            Leaper::ZEBRA => Some("zebra"),
            Leaper::GIRAFFE => Some("giraffe"),
            _ => None,
        };
        for (i, l) in self.leapers.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            match named(*l) {
                Some(n) if self.leapers.len() == 1 => f.write_str(n)?,
                _ => write!(f, "{},{}", l.a, l.b)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pieces() {
        assert!("knight".parse::<Piece>().unwrap().is_knight());
        assert!("2,1".parse::<Piece>().unwrap().is_knight());
        assert_eq!("camel".parse::<Piece>().unwrap().offsets().len(), 8);
        let pen: Piece = "3,0+2,2".parse().unwrap();
        assert_eq!(pen.offsets().len(), 8);
        assert!(pen.is_move(0, 0, 3, 0) && pen.is_move(2, 2, 0, 0) && !pen.is_move(0, 0, 1, 2));
        assert_eq!(pen.to_string(), "0,3+2,2");
        assert_eq!("zebra".parse::<Piece>().unwrap().to_string(), "zebra");
        for bad in ["0,0", "queen", "1,", "+", "knight+", "1,x", "100,1"] {
            assert!(bad.parse::<Piece>().is_err(), "{bad}");
        }
    }

    #[test]
    fn colour_switching() {
        assert!(Piece::knight().is_colour_switching());
        assert!(!"2,2".parse::<Piece>().unwrap().is_colour_switching());
        assert!("zebra".parse::<Piece>().unwrap().is_colour_switching());
    }
}
