//! A state and its count in a table of the exact sampler met in the middle
//! ([`super::meet`]), packed: a count of one word where every count of the run fits one, and
//! the pair aligned to 8 bytes.
//!
//! As a tuple `(u128, u128)` a state took 32 bytes, whatever its count: a `u128` key is
//! aligned to 16, so a `(u128, u64)` pair takes 32 too. 8x8 open's batch by way of its ledger
//! held 20 GiB so under a bound of 14 GiB (a node of 168 million states made from one of 142
//! million, with the other side's and the shared walk's). Packed to 8 bytes with a count of one
//! word, a state of 8x8 takes 24 bytes, and one of a board of up to 16 window squares 16.
//!
//! The sampler runs with one-word counts first; a count that passes a word stops it with
//! `Fault::Wider`, and it runs again with two-word counts (the same tours: the draws read only the
//! counts' values).

use std::fmt::Debug;

/// A count of a table: one word or two.
pub(crate) trait Count: Copy + Default + Eq + Debug + Send + Sync + 'static {
    /// Bytes it takes in a file.
    const BYTES: usize;

    /// The count `c`, or `None` where it does not fit.
    fn new(c: u128) -> Option<Self>;

    /// Its value.
    fn get(self) -> u128;

    /// The sum, or `None` where it does not fit.
    fn checked_add(self, other: Self) -> Option<Self>;

    /// Half of it (rounded down).
    #[must_use]
    fn half(self) -> Self;

    /// The count of the first [`Count::BYTES`] of `bytes` (little-endian).
    fn read(bytes: &[u8]) -> Self;

    /// Its bytes (little-endian) into the first [`Count::BYTES`] of `out`.
    fn write(self, out: &mut [u8]);
}

/// [`Count`] for an unsigned word type of `$bytes` bytes.
macro_rules! count_of {
    ($t:ty, $bytes:literal) => {
        impl Count for $t {
            const BYTES: usize = $bytes;

            fn new(c: u128) -> Option<$t> {
                <$t>::try_from(c).ok()
            }

            #[inline]
            fn get(self) -> u128 {
                u128::from(self)
            }

            #[inline]
            fn checked_add(self, other: $t) -> Option<$t> {
                <$t>::checked_add(self, other)
            }

            fn half(self) -> $t {
                self / 2
            }

            fn read(bytes: &[u8]) -> $t {
                <$t>::from_le_bytes(bytes[..$bytes].try_into().expect("the count's bytes"))
            }

            fn write(self, out: &mut [u8]) {
                out[..$bytes].copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}

count_of!(u64, 8);
count_of!(u128, 16);

/// A state `key` and its count: packed to 8-byte alignment (its fields are read by value,
/// never borrowed).
#[repr(C, packed(8))]
pub(crate) struct Entry<K, C> {
    key: K,
    count: C,
}

impl<K: Copy, C: Copy> Entry<K, C> {
    #[inline]
    pub(crate) const fn new(key: K, count: C) -> Entry<K, C> {
        Entry { key, count }
    }

    #[inline]
    pub(crate) const fn key(&self) -> K {
        self.key
    }

    /// The count as it is stored.
    #[inline]
    pub(crate) const fn raw(&self) -> C {
        self.count
    }

    /// The count stored as `c`.
    #[inline]
    pub(crate) fn set(&mut self, c: C) {
        self.count = c;
    }
}

impl<K: Copy, C: Count> Entry<K, C> {
    /// The count's value.
    #[inline]
    pub(crate) fn count(&self) -> u128 {
        let c = self.count;
        c.get()
    }
}

impl<K: Copy, C: Copy> Clone for Entry<K, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Copy, C: Copy> Copy for Entry<K, C> {}

impl<K: Copy + PartialEq, C: Copy + PartialEq> PartialEq for Entry<K, C> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key() && self.raw() == other.raw()
    }
}

impl<K: Copy + Eq, C: Copy + Eq> Eq for Entry<K, C> {}

impl<K: Copy + Debug, C: Copy + Debug> Debug for Entry<K, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.key(), self.raw()).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the module is for: 16 bytes a state of a narrow window with one-word counts,
    /// 24 of a wide one (8x8's), 32 with two-word counts (a tuple took 32 always).
    #[test]
    fn entries_take_the_bytes_they_hold() {
        use std::mem::size_of;
        assert_eq!(size_of::<Entry<u64, u64>>(), 16);
        assert_eq!(size_of::<Entry<u128, u64>>(), 24);
        assert_eq!(size_of::<Entry<u64, u128>>(), 24);
        assert_eq!(size_of::<Entry<u128, u128>>(), 32);
        assert_eq!(size_of::<(u128, u64)>(), 32);
    }

    /// Counts round-trip through their bytes, sum only where the sum fits, and halve.
    #[test]
    fn counts_fit_their_words_or_say_not() {
        assert_eq!(u64::new(u128::from(u64::MAX)), Some(u64::MAX));
        assert_eq!(u64::new(1 << 64), None);
        assert_eq!(Count::checked_add(u64::MAX, 1), None);
        assert_eq!(Count::checked_add(u64::MAX - 1, 1), Some(u64::MAX));
        assert_eq!(
            Count::checked_add(u128::from(u64::MAX), 1),
            Some(1u128 << 64)
        );
        for c in [0u128, 1, 77, u128::from(u64::MAX)] {
            let mut b = [0u8; 16];
            <u64 as Count>::write(u64::new(c).unwrap(), &mut b);
            assert_eq!(<u64 as Count>::read(&b).get(), c);
            <u128 as Count>::write(c << 60, &mut b);
            assert_eq!(<u128 as Count>::read(&b), c << 60);
            assert_eq!(u64::new(c).unwrap().half().get(), c / 2);
        }
        let mut e = Entry::new(5u128, 9u64);
        assert_eq!((e.key(), e.count()), (5, 9));
        e.set(11);
        assert_eq!(e, Entry::new(5u128, 11u64));
        assert_eq!(format!("{e:?}"), "(5, 11)");
    }
}
