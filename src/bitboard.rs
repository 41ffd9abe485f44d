//! `Bitboard`: a set of squares of a board of up to 64 squares, one bit per square.
//!
//! Square `i` of a board with `cols` columns is `row * cols + col`; the layout itself lives in
//! [`crate::board`], this type only knows bits.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

/// A set of square indices `0..64`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set of the first `n` squares (`n <= 64`).
    #[must_use]
    #[inline]
    pub const fn first(n: u32) -> Bitboard {
        if n >= 64 {
            Bitboard(u64::MAX)
        } else {
            Bitboard((1u64 << n) - 1)
        }
    }

    /// The set holding only square `i`.
    #[must_use]
    #[inline]
    pub const fn from_square(i: u32) -> Bitboard {
        Bitboard(1u64 << i)
    }

    #[must_use]
    #[inline]
    pub const fn contains(self, i: u32) -> bool {
        self.0 >> i & 1 != 0
    }

    #[must_use]
    #[inline]
    pub const fn with(self, i: u32) -> Bitboard {
        Bitboard(self.0 | 1u64 << i)
    }

    #[must_use]
    #[inline]
    pub const fn without(self, i: u32) -> Bitboard {
        Bitboard(self.0 & !(1u64 << i))
    }

    #[must_use]
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[must_use]
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[must_use]
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when the set has two or more squares (cheaper than `count() > 1`).
    #[must_use]
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square of a non-empty set.
    #[must_use]
    #[inline]
    pub const fn first_square(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// Shifts every square by `delta` indices (positive: towards higher indices); bits that leave
    /// the word are dropped. Callers mask the result so that nothing wraps across a row.
    #[must_use]
    #[inline]
    pub const fn shift(self, delta: i32) -> Bitboard {
        if delta >= 0 {
            Bitboard(self.0 << delta)
        } else {
            Bitboard(self.0 >> -delta)
        }
    }

    /// Iterates over the squares from the lowest index up.
    #[inline]
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }
}

/// Iterator over the set squares of a [`Bitboard`], lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(i)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = u32;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $op:tt, $tra:ident, $fa:ident) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bitop!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
bitop!(BitOr, bitor, |, BitOrAssign, bitor_assign);

impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_order() {
        let b = Bitboard(0b1010_0101);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 2, 5, 7]);
        assert_eq!(b.iter().len(), 4);
        assert_eq!(b.count(), 4);
    }

    #[test]
    fn first_and_shift() {
        assert_eq!(Bitboard::first(64), Bitboard(u64::MAX));
        assert_eq!(Bitboard::first(3), Bitboard(7));
        assert_eq!(Bitboard(1).shift(5), Bitboard(32));
        assert_eq!(Bitboard(32).shift(-5), Bitboard(1));
        assert!(Bitboard(6).more_than_one());
        assert!(!Bitboard(4).more_than_one());
        assert_eq!(Bitboard::EMPTY.with(9).without(9), Bitboard::EMPTY);
    }
}
