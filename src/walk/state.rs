//! Frontier states: one 4-bit code per window slot, packed in a `u64` or `u128`, and the rules
//! that add a square to a state.
//!
//! Slot `s` holds the square processed `s` steps ago. Its code says what the path edges chosen so
//! far make of it:
//!
//! - [`FREE`] (0): no edge yet (or the slot is empty: a square that left the window or none);
//! - [`SAT`] (1): it takes no more edges (two edges, or one as an end of the whole path);
//! - [`TERM`] (2): one end of a path piece whose other end is an end of the whole path (an open
//!   tour's terminal); it takes at most one more edge;
//! - a label `3..=15`: one end of a path piece whose other end is the other slot with that label.
//!
//! Labels are canonical (numbered by first appearance from slot 0), so equal states have equal
//! keys. The pieces never close into a cycle before the last square, and an open tour has at most
//! two terminals; the rules below refuse everything else.

use std::fmt::Debug;
use std::hash::Hash;

/// No edge yet.
pub(crate) const FREE: u8 = 0;
/// No more edges.
pub(crate) const SAT: u8 = 1;
/// An end whose piece leads to a terminal of the path.
pub(crate) const TERM: u8 = 2;
/// The first label.
pub(crate) const LABEL: u8 = 3;

/// A packed state: 4 bits per slot.
pub(crate) trait Key:
    Copy + Eq + Ord + Hash + Debug + Send + Sync + Default + 'static
{
    /// Slots the key holds.
    const SLOTS: u32;
    const ZERO: Self;
    /// Bytes of the type (a table entry stores only the key bytes its window needs).
    const BYTES: usize;

    fn get(self, slot: u32) -> u8;
    #[must_use]
    fn set(self, slot: u32, code: u8) -> Self;
    /// Every slot moves one up (the oldest falls off); slot 0 becomes [`FREE`].
    #[must_use]
    fn shifted(self) -> Self;
    /// The bit `4 * s` set for every slot `s` holding `code`.
    #[must_use]
    fn eq_mask(self, code: u8) -> Self;
    /// The bit `4 * s` set for every slot holding a label.
    #[must_use]
    fn label_mask(self) -> Self;
    #[must_use]
    fn and(self, other: Self) -> Self;
    #[must_use]
    fn or(self, other: Self) -> Self;
    /// `self - 1` (wrapping): with `and`, clears the lowest bit.
    #[must_use]
    fn minus_one(self) -> Self;
    #[must_use]
    fn without(self, other: Self) -> Self;
    /// `self` with `code` xored into every slot whose bit `4 * s` is set in `mask`.
    #[must_use]
    fn xor_nibbles(self, mask: Self, code: u8) -> Self;
    fn ones(self) -> u32;
    /// The lowest slot whose bit `4 * s` is set (the key must be non-zero).
    fn lowest(self) -> u32;
    /// The bit of slot `s`.
    fn bit(slot: u32) -> Self;
    /// A well-mixed hash.
    fn hash64(self) -> u64;
    /// The key from the first [`Key::BYTES`] bytes of `bytes` (little-endian), of which the
    /// bytes past `used` are not the key's: they are cleared.
    fn read(bytes: &[u8], used: usize) -> Self;
    /// Writes the key's [`Key::BYTES`] bytes (little-endian) to the start of `out`.
    fn write(self, out: &mut [u8]);
    /// Byte `i` of the key (slots `2i` and `2i + 1`).
    fn byte(self, i: usize) -> usize;
}

macro_rules! nibble_key {
    ($t:ty, $slots:expr) => {
        impl Key for $t {
            const SLOTS: u32 = $slots;
            const ZERO: Self = 0;
            const BYTES: usize = std::mem::size_of::<$t>();

            #[inline]
            fn get(self, slot: u32) -> u8 {
                ((self >> (4 * slot)) & 15) as u8
            }

            #[inline]
            fn set(self, slot: u32, code: u8) -> Self {
                (self & !(15 << (4 * slot))) | (<$t>::from(code) << (4 * slot))
            }

            #[inline]
            fn shifted(self) -> Self {
                self << 4
            }

            #[inline]
            fn eq_mask(self, code: u8) -> Self {
                const ONES: $t = <$t>::MAX / 15;
                let x = self ^ (ONES * <$t>::from(code));
                let z = x | (x >> 1) | (x >> 2) | (x >> 3);
                !z & ONES
            }

            #[inline]
            fn label_mask(self) -> Self {
                const ONES: $t = <$t>::MAX / 15;
                // a nibble is a label when it is at least 3: bit 2 or 3 set, or bits 0 and 1
                let hi = (self >> 2) | (self >> 3);
                let lo = self & (self >> 1);
                (hi | lo) & ONES
            }

            #[inline]
            fn and(self, other: Self) -> Self {
                self & other
            }

            #[inline]
            fn or(self, other: Self) -> Self {
                self | other
            }

            #[inline]
            fn minus_one(self) -> Self {
                self.wrapping_sub(1)
            }

            #[inline]
            fn without(self, other: Self) -> Self {
                self & !other
            }

            #[inline]
            fn xor_nibbles(self, mask: Self, code: u8) -> Self {
                self ^ (mask * <$t>::from(code))
            }

            #[inline]
            fn ones(self) -> u32 {
                // one instruction where the build may use it: the frontier walk's rules are
                // compiled a second time for processors that count bits themselves, and chosen
                // as it runs (see `expand::choices`). A loop clearing one bit at a time, as
                // before, mispredicted its exit: 7x8 open on one thread took 4 % longer with
                // it than with a count that does not branch
                self.count_ones()
            }

            #[inline]
            fn lowest(self) -> u32 {
                self.trailing_zeros() / 4
            }

            #[inline]
            fn bit(slot: u32) -> Self {
                1 << (4 * slot)
            }

            #[inline]
            fn hash64(self) -> u64 {
                #[allow(clippy::cast_possible_truncation)]
                let folded = (self as u128 ^ ((self as u128) >> 64)) as u64;
                let m = u128::from(folded ^ (folded >> 31)) * 0x9E37_79B9_7F4A_7C15;
                #[allow(clippy::cast_possible_truncation)]
                let h = (m as u64) ^ ((m >> 64) as u64);
                h
            }

            #[inline]
            fn read(bytes: &[u8], used: usize) -> Self {
                let k =
                    <$t>::from_le_bytes(bytes[..Self::BYTES].try_into().expect("a key's bytes"));
                k & <$t>::MAX
                    .checked_shr(8 * (Self::BYTES - used) as u32)
                    .unwrap_or(0)
            }

            #[inline]
            fn write(self, out: &mut [u8]) {
                out[..Self::BYTES].copy_from_slice(&self.to_le_bytes());
            }

            #[inline]
            fn byte(self, i: usize) -> usize {
                ((self >> (8 * i)) & 255) as usize
            }
        }
    };
}

nibble_key!(u64, 16);
nibble_key!(u128, 32);

/// The other end of the piece whose end is at `slot` (which holds a label).
#[inline]
fn mate<K: Key>(k: K, slot: u32) -> u32 {
    k.eq_mask(k.get(slot)).without(K::bit(slot)).lowest()
}

/// A label no slot of `k` holds (canonical keys number their pieces from [`LABEL`] up, and every
/// label is on two slots).
#[inline]
fn fresh<K: Key>(k: K) -> u8 {
    LABEL + (k.label_mask().ones() / 2) as u8
}

/// What adding an edge did besides changing the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    None,
    /// A cycle closed (a closed tour's last edge).
    Cycle,
    /// A piece with a terminal at each end was made (an open tour's last piece).
    Path,
}

/// Adds the edge between `a` and `b`; `None` when one of them takes no more edges or the edge
/// would close a cycle in an open count.
///
/// Inlined always, so that the walk's build for processors that count bits in one instruction
/// (`expand::choices`) counts the labels of [`fresh`] so too: 7x8 open on one thread 155 s of
/// CPU against 159 s.
#[inline(always)]
pub(crate) fn add_edge<K: Key>(k: K, a: u32, b: u32, closed: bool) -> Option<(K, Event)> {
    let (ca, cb) = (k.get(a), k.get(b));
    if ca == SAT || cb == SAT {
        return None;
    }
    let k = match (ca, cb) {
        (FREE, FREE) => {
            let l = fresh(k);
            k.set(a, l).set(b, l)
        }
        (FREE, c) | (c, FREE) => {
            // the free square takes over the other's role; the other is full
            let (z, o) = if ca == FREE { (a, b) } else { (b, a) };
            k.set(o, SAT).set(z, c)
        }
        (TERM, TERM) => {
            if closed {
                return None;
            }
            return Some((k.set(a, SAT).set(b, SAT), Event::Path));
        }
        (TERM, _) | (_, TERM) => {
            let (t, o) = if ca == TERM { (a, b) } else { (b, a) };
            let m = mate(k, o);
            k.set(t, SAT).set(o, SAT).set(m, TERM)
        }
        _ if ca == cb => {
            if !closed {
                return None;
            }
            return Some((k.set(a, SAT).set(b, SAT), Event::Cycle));
        }
        _ => {
            let mb = mate(k, b);
            k.set(a, SAT).set(b, SAT).set(mb, ca)
        }
    };
    Some((k, Event::None))
}

/// Makes the square at `slot` an end of the whole path; `None` if it already has two edges.
#[inline]
pub(crate) fn make_terminal<K: Key>(k: K, slot: u32) -> Option<(K, Event)> {
    match k.get(slot) {
        FREE => Some((k.set(slot, TERM), Event::None)),
        SAT => None,
        TERM => Some((k.set(slot, SAT), Event::Path)),
        _ => {
            let m = mate(k, slot);
            Some((k.set(slot, SAT).set(m, TERM), Event::None))
        }
    }
}

/// Renumbers the labels of the first `slots` slots by first appearance.
///
/// A piece at a time: the lowest label left is a piece's first end, both its ends are found by
/// one [`Key::eq_mask`] and given the next number by one exclusive or (they hold the old label,
/// so `old ^ (old ^ new)` is the new one). Nothing branches on the labels: this runs for every
/// state a step makes, and a map in memory with a branch on "seen before" cost a tenth of the
/// whole count in mispredictions and store-to-load waits.
#[inline]
pub(crate) fn canonical<K: Key>(k: K, slots: u32) -> K {
    let mut labels = k.label_mask();
    let mut next = LABEL;
    let mut out = k;
    while labels != K::ZERO {
        let s = labels.lowest();
        debug_assert!(s < slots);
        let c = k.get(s);
        let ends = k.eq_mask(c);
        labels = labels.without(ends);
        out = out.xor_nibbles(ends, c ^ next);
        next += 1;
    }
    out
}

/// A table read a key's byte at a time: entry `b * 256 + v` folds, with `add(slot, code, entry)`,
/// the two slots of byte `b` of a key when that byte is `v` (slot `2b` in its low four bits).
pub(crate) fn byte_table<T: Copy + Default>(
    bytes: usize,
    mut add: impl FnMut(u32, u8, &mut T),
) -> Vec<T> {
    let mut table = vec![T::default(); bytes * 256];
    for (b, part) in table.chunks_exact_mut(256).enumerate() {
        for (v, entry) in part.iter_mut().enumerate() {
            for half in 0..2 {
                add((2 * b + half) as u32, (v >> (4 * half)) as u8 & 15, entry);
            }
        }
    }
    table
}

/// A fixed permutation of a key's slots (the mirror at a column end, the renaming of a join),
/// applied a byte at a time: for each byte of a key and each of its 256 values, a table holds
/// its two slots already moved, so moving sixteen slots is eight lookups in a table that stays
/// in the first-level cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Perm<K> {
    table: Vec<K>,
}

impl<K: Key> Perm<K> {
    /// The permutation sending slot `s` to `perm[s]`; slots past `perm`'s length are dropped.
    pub(crate) fn new(perm: &[u8]) -> Perm<K> {
        let table = byte_table(K::BYTES, |s, code, out: &mut K| {
            if let Some(&to) = perm.get(s as usize) {
                *out = out.set(u32::from(to), code);
            }
        });
        Perm { table }
    }

    /// `k` with its slots moved, made canonical over its first `slots` slots.
    #[inline]
    pub(crate) fn apply(&self, k: K, slots: u32) -> K {
        let moved = (0..K::BYTES).fold(K::ZERO, |out, i| out.or(self.table[i * 256 + k.byte(i)]));
        canonical(moved, slots)
    }
}

/// The state with its slots moved by `perm` (`perm[s]` is where slot `s` goes), made canonical:
/// [`Perm`] slot by slot, for the tests to check it against.
#[cfg(test)]
pub(crate) fn permuted<K: Key>(k: K, perm: &[u8], slots: u32) -> K {
    let mut out = K::ZERO;
    for (s, &p) in perm.iter().enumerate() {
        out = out.set(u32::from(p), k.get(s as u32));
    }
    canonical(out, slots)
}

/// What a boundary square needs from the right: 0, 1 or 2 edges.
#[inline]
pub(crate) fn need(code: u8) -> u64 {
    match code {
        FREE => 2,
        SAT => 0,
        _ => 1,
    }
}

/// What a boundary square has from the right.
#[inline]
pub(crate) fn has(code: u8) -> u64 {
    match code {
        FREE => 0,
        SAT => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(codes: &[u8]) -> u64 {
        codes
            .iter()
            .enumerate()
            .fold(0, |k, (s, &c)| k.set(s as u32, c))
    }

    #[test]
    fn masks_find_codes_and_labels() {
        let k = key(&[0, 1, 2, 3, 4, 3, 15, 4]);
        assert_eq!(k.eq_mask(3), u64::bit(3) | u64::bit(5));
        assert_eq!(
            k.eq_mask(0),
            (8..16).fold(u64::bit(0), |m, s| m | u64::bit(s))
        );
        assert_eq!(k.label_mask().ones(), 5);
        assert_eq!(mate(k, 3), 5);
        assert_eq!(mate(k, 7), 4);
        let wide: u128 = key(&[3, 1, 3]).into();
        assert_eq!(wide.set(20, 5).label_mask().ones(), 3);
        assert_eq!(wide.shifted().get(1), 3);
    }

    #[test]
    fn edges_join_pieces_and_refuse_cycles_in_open_counts() {
        // two free squares make a piece
        let (k, e) = add_edge(0u64, 0, 2, false).unwrap();
        assert_eq!((k.get(0), k.get(2), e), (LABEL, LABEL, Event::None));
        // a third square extends it: the middle one is full
        let (k, _) = add_edge(k, 2, 5, false).unwrap();
        assert_eq!((k.get(0), k.get(2), k.get(5)), (LABEL, SAT, LABEL));
        // joining the two ends closes a cycle: refused for open tours, an event for closed ones
        assert!(add_edge(k, 0, 5, false).is_none());
        assert_eq!(add_edge(k, 0, 5, true).unwrap().1, Event::Cycle);
        // a terminal at one end passes to the other when the end becomes a terminal
        let (t, _) = make_terminal(k, 0).unwrap();
        assert_eq!((t.get(0), t.get(5)), (SAT, TERM));
        let (_, e) = make_terminal(t, 5).unwrap();
        assert_eq!(e, Event::Path);
        assert!(
            add_edge(t, 0, 1, false).is_none(),
            "a full square takes no edge"
        );
    }

    #[test]
    fn labels_are_canonical_and_permutations_keep_pieces() {
        let k = key(&[0, 7, 5, 7, 5]);
        assert_eq!(canonical(k, 16), key(&[0, 3, 4, 3, 4]));
        let p = permuted(key(&[3, 0, 3, 4, 4]), &[4, 3, 2, 1, 0], 16);
        assert_eq!(p, key(&[3, 3, 4, 0, 4]));
        assert_eq!(fresh(key(&[3, 3, 4, 4])), 5);
    }

    #[test]
    fn permutation_tables_move_slots_as_slot_by_slot_does() {
        // a reversal of 16 slots and a rotation of 20 (u128 keys), on pseudo-random keys
        let rev: Vec<u8> = (0..16).rev().collect();
        let rot: Vec<u8> = (0..20).map(|s| (s + 7) % 20).collect();
        let (p64, p128) = (Perm::<u64>::new(&rev), Perm::<u128>::new(&rot));
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(p64.apply(x, 16), permuted(x, &rev, 16));
            let wide = u128::from(x) | u128::from(x.rotate_left(9) & 0xFFFF) << 64;
            assert_eq!(p128.apply(wide, 20), permuted(wide, &rot, 20));
        }
    }
}
