//! What an entry of a state table is made of: a state's key bytes, then its count's 64-bit
//! words, little-endian, read and written unaligned, in memory (`crate::layer`) and in files
//! (`layer/spill.rs`, `crate::disk::frames`) alike.

/// What an entry is made of: `key` bytes of key, then `limbs` words of count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bytes of a key (two window slots a byte).
    pub(crate) key: usize,
    /// 64-bit words of a count.
    pub(crate) limbs: usize,
}

impl Shape {
    /// Bytes an entry takes.
    #[inline]
    pub(crate) const fn stride(self) -> usize {
        self.key + 8 * self.limbs
    }

    /// The same keys with counts of `limbs` words.
    pub(crate) const fn with_limbs(self, limbs: usize) -> Shape {
        Shape {
            key: self.key,
            limbs,
        }
    }
}

/// A count in a table: `limbs` little-endian words, stored unaligned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limbs<'a>(&'a [u8]);

impl<'a> Limbs<'a> {
    /// The count stored in `bytes` (whole words, little-endian).
    #[inline]
    pub(crate) fn of(bytes: &'a [u8]) -> Limbs<'a> {
        Limbs(bytes)
    }

    /// Its number of words.
    #[inline]
    pub(crate) fn len(self) -> usize {
        self.0.len() / 8
    }

    /// Word `i`.
    #[inline]
    pub(crate) fn get(self, i: usize) -> u64 {
        u64::from_le_bytes(self.0[8 * i..8 * i + 8].try_into().expect("8 bytes"))
    }

    /// The count when it is one word.
    #[inline]
    pub(crate) fn single(self) -> Option<u64> {
        (self.0.len() == 8).then(|| self.get(0))
    }

    /// Its words, low first.
    pub(crate) fn words(self) -> impl Iterator<Item = u64> + 'a {
        self.0
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// Its little-endian bytes.
    pub(crate) fn bytes(self) -> &'a [u8] {
        self.0
    }
}
