//! How a crossing's boundary squares are read and how two sides' pieces join across them: the
//! links of a state (each boundary square's partner along its piece, packed 4 or 5 bits a
//! square), the groups a right state is filed under, and whether a left and a right state make
//! one tour, pair by pair or by byte shuffles a run at a time. Below both the right side's index
//! (`index.rs`) and the join that reads it (`join.rs`).

use crate::walk::state::{Key, TERM, has, need};

/// A right state ready for joining.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Right<L> {
    pub(super) mates: L,
    pub(super) term: u32,
}

/// The group of right states a class and a number of terminal-bound squares make: the join
/// pairs a left state only with right states whose terminals complete its own to two.
#[inline]
pub(super) fn group(class: u64, terminals: u32) -> u64 {
    class << 2 | u64::from(terminals.min(3))
}

/// Boundary squares a join handles: their links are packed 4 bits each in a `u64` up to 16
/// ([`NARROW`]: boards up to 8 wide for the knight), 5 bits each in a `u128` past them (boards
/// 9 and 10 wide, whose crossings have 18 and 20). The classes a crossing asks for are numbers
/// in base 3 of a digit a square, and [`Prefixes`] sums them in `u32`: 3^20 fits, 3^21 does not.
pub(crate) const MAX_BOUNDARY: u32 = 20;

/// Boundary squares whose links fit a `u64`, 4 bits each, which the byte shuffles of the join
/// read as a permutation of 16 bytes.
pub(crate) const NARROW: u32 = 16;

/// The partner of each boundary square along its piece, packed: `u64` for up to [`NARROW`]
/// squares, `u128` for up to [`MAX_BOUNDARY`]. The join of narrow links walks pairs by byte
/// shuffles where the processor has them; wide links are walked square by square.
pub(crate) trait Links:
    Copy + Default + PartialEq + Send + Sync + std::fmt::Debug + 'static
{
    /// Boundary squares it holds.
    const SQUARES: u32;
    /// The partner of square `s`.
    fn link(self, s: u32) -> u32;
    /// These links with squares `a` and `b` each other's partner.
    fn pair(self, a: u32, b: u32) -> Self;
    /// [`run_sums`] for these links: the fastest way this processor has.
    fn run_sums(
        left: &[(Self, u32)],
        ends: u32,
        rights: &[Right<Self>],
        counts: &[u64],
        closed: bool,
    ) -> Vec<u128> {
        walked_run(left, ends, rights, counts, closed)
    }
}

impl Links for u64 {
    const SQUARES: u32 = NARROW;
    #[inline]
    fn link(self, s: u32) -> u32 {
        link(self, s)
    }
    #[inline]
    fn pair(self, a: u32, b: u32) -> u64 {
        self | u64::from(b) << (4 * a) | u64::from(a) << (4 * b)
    }
    fn run_sums(
        left: &[(u64, u32)],
        ends: u32,
        rights: &[Right<u64>],
        counts: &[u64],
        closed: bool,
    ) -> Vec<u128> {
        #[cfg(target_arch = "x86_64")]
        if let Some(kernel) = shuffle::Kernel::detect() {
            return shuffled_run(kernel, left, ends, rights, counts);
        }
        walked_run(left, ends, rights, counts, closed)
    }
}

impl Links for u128 {
    const SQUARES: u32 = MAX_BOUNDARY;
    #[inline]
    fn link(self, s: u32) -> u32 {
        ((self >> (5 * s)) & 31) as u32
    }
    #[inline]
    fn pair(self, a: u32, b: u32) -> u128 {
        self | u128::from(b) << (5 * a) | u128::from(a) << (5 * b)
    }
}

/// The boundary squares of a state in crossing order `j = 0..m`: square `j` is in slot
/// `slot(j)`.
#[derive(Clone, Debug)]
pub(crate) struct Boundary {
    pub(crate) slots: Vec<u32>,
}

impl Boundary {
    /// The class a crossing state asks of the right over its first `m` boundary squares: what
    /// square `j` needs is digit `j` of a number in base 3 (so a class over squares `0..=i` is
    /// the class modulo `3^(i+1)`, which [`Prefixes`] reads).
    pub(crate) fn asks<K: Key>(&self, k: K, m: usize) -> u64 {
        self.slots[..m]
            .iter()
            .rev()
            .fold(0, |c, &s| c * 3 + need(k.get(s)))
    }

    /// The class a right state offers (the same digits as [`Boundary::asks`]).
    pub(super) fn offers<K: Key>(&self, k: K) -> u64 {
        self.slots
            .iter()
            .rev()
            .fold(0, |c, &s| c * 3 + has(k.get(s)))
    }

    /// Each boundary square's partner along its piece and the squares whose piece leads to a
    /// terminal.
    pub(super) fn links<L: Links, K: Key>(&self, k: K) -> (L, u32) {
        debug_assert!(self.slots.len() as u32 <= L::SQUARES);
        let mut mates = L::default();
        let mut term = 0u32;
        let mut first = [u8::MAX; 16];
        for (j, &s) in self.slots.iter().enumerate() {
            let c = k.get(s);
            if c == TERM {
                term |= 1 << j;
            } else if c > TERM {
                let f = &mut first[c as usize];
                if *f == u8::MAX {
                    *f = j as u8;
                } else {
                    mates = mates.pair(u32::from(*f), j as u32);
                }
            }
        }
        (mates, term)
    }

    /// The squares whose piece leads to a terminal.
    pub(super) fn terminals<K: Key>(&self, k: K) -> u32 {
        (self.slots.iter().enumerate())
            .filter(|&(_, &s)| k.get(s) == TERM)
            .fold(0, |t, (j, _)| t | 1 << j)
    }

    /// The squares with one edge on each side (those with one edge from the left).
    pub(super) fn ends<K: Key>(&self, k: K) -> u32 {
        (self.slots.iter().enumerate())
            .filter(|&(_, &s)| need(k.get(s)) == 1)
            .fold(0, |e, (j, _)| e | 1 << j)
    }
}

/// A crossing state as the join reads it: the group of right states it asks for, its links
/// and terminals, and its ends (the boundary squares with one edge on each side); `None` where
/// it has more terminals than a tour (`want`: none closed, two open). The exact sampler's join
/// of one leaf, state by state.
pub(crate) fn left_side<K: Key>(b: &Boundary, k: K, want: u32) -> Option<(u64, u64, u32, u32)> {
    let (lm, lt) = b.links(k);
    let rt = want.checked_sub(lt.count_ones())?;
    Some((group(b.asks(k, b.slots.len()), rt), lm, lt, b.ends(k)))
}

/// A right state as the join reads it: the group it offers, its links and terminals.
pub(crate) fn right_side<K: Key>(b: &Boundary, k: K) -> (u64, u64, u32) {
    let (rm, rt) = b.links(k);
    (group(b.offers(k), rt.count_ones()), rm, rt)
}

/// Whether a crossing state read by [`left_side`] and a right state of its group read by
/// [`right_side`] make one tour.
pub(crate) fn pair_joins(left: (u64, u32, u32), right: (u64, u32), closed: bool) -> bool {
    let (lm, lt, ends) = left;
    joins_paired(lm, lt, right.0, right.1, ends, ends.count_ones(), closed)
}

/// Whether the pieces of a left state (`lm`, `lt`) and a right state (`rm`, `rt`) on the
/// boundary squares `ends` (those with one edge on each side) make one cycle (closed) or one
/// path between two terminals (open).
#[cfg(test)]
fn joins<L: Links>(lm: L, lt: u32, rm: L, rt: u32, ends: u32, closed: bool) -> bool {
    let n = ends.count_ones();
    (closed || lt.count_ones() + rt.count_ones() == 2)
        && joins_paired(lm, lt, rm, rt, ends, n, closed)
}

/// [`joins`] for an open count whose two sides hold two terminals between them (as the join's
/// groups make sure), with `n`, the number of `ends`, counted once for many right states.
/// (A walk of a fixed number of links, checked at its end, has branches easier to predict but
/// measured slower: most pairs fail a link or two in.)
#[inline]
pub(super) fn joins_paired<L: Links>(
    lm: L,
    lt: u32,
    rm: L,
    rt: u32,
    ends: u32,
    n: u32,
    closed: bool,
) -> bool {
    if n == 0 {
        return false;
    }
    if closed {
        let s0 = ends.trailing_zeros();
        let (mut s, mut seen) = (s0, 0);
        loop {
            s = rm.link(lm.link(s));
            seen += 2;
            if s == s0 || seen > n {
                return s == s0 && seen == n;
            }
        }
    }
    debug_assert_eq!(lt.count_ones() + rt.count_ones(), 2);
    // walk from a square whose piece leads to a terminal, leaving by the other side
    let (mut s, mut right) = if lt != 0 {
        (lt.trailing_zeros(), true)
    } else {
        (rt.trailing_zeros(), false)
    };
    let mut seen = 1;
    loop {
        let (t, m) = if right { (rt, rm) } else { (lt, lm) };
        if t & (1 << s) != 0 {
            return seen == n;
        }
        s = m.link(s);
        seen += 1;
        right = !right;
        if seen > n {
            return false;
        }
    }
}

/// Left states of one group joined at once against each right row of the group.
pub(super) const TILE: usize = 16;

/// Right rows of a group made ready (their links as bytes) at a time, then read against every
/// tile of the left states that ask for the group: 64 KiB of bytes and 32 KiB of counts, which
/// stay in the second-level cache while the tiles pass.
pub(super) const BLOCK: usize = 4096;

/// The partner of boundary square `s` in the links `m` (4 bits a square).
#[inline]
pub(super) fn link(m: u64, s: u32) -> u32 {
    ((m >> (4 * s)) & 15) as u32
}

/// An open join made a closed one: the ends whose pieces lead to terminals are linked up, so
/// that the pieces make one path through every end exactly where, so linked, they make one
/// cycle. Two terminal-bound ends on one side are linked to each other on that side; one on
/// each side (an odd number of ends) are each linked to a spare square, `spare`, on their
/// side: the path's two ends then meet there.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cycle {
    pub(super) spare: u32,
    /// The first end, where the walk round the cycle starts.
    pub(super) s0: u32,
    /// The steps of the walk round a cycle through every end (each step a left link and a
    /// right one): half the ends, the spare square included.
    pub(super) half: u32,
}

impl Cycle {
    /// The cycle a group of ends `ends` makes, whose left states hold the terminals `term`
    /// (every left state of a group holds as many); `None` where no end joins the sides.
    pub(super) fn of(ends: u32, term: u32) -> Option<Cycle> {
        if ends == 0 {
            return None;
        }
        let spare = (!ends).trailing_zeros();
        let odd = term.count_ones() == 1;
        let n = ends.count_ones() + u32::from(odd);
        (2..=NARROW).contains(&n).then_some(Cycle {
            spare,
            s0: ends.trailing_zeros(),
            half: n / 2,
        })
    }

    /// The links `mates` of a side whose terminal-bound ends are `term`, linked up.
    #[inline]
    pub(super) fn close(self, mates: u64, term: u32) -> u64 {
        let a = term.trailing_zeros();
        match term.count_ones() {
            0 => mates,
            1 => mates.pair(a, self.spare),
            _ => mates.pair(a, (term & (term - 1)).trailing_zeros()),
        }
    }
}

/// The links of 16 squares, 4 bits each, as a byte each.
#[inline]
pub(super) fn bytes(mates: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (i, v) in b.iter_mut().enumerate() {
        *v = link(mates, i as u32) as u8;
    }
    b
}

/// The walk round the cycle by byte shuffles: the walk's step is the permutation
/// `p[s] = right[left[s]]`, one shuffle, and its powers are shuffles of it; the pieces make one
/// cycle where the first end comes back after exactly `half` steps (a fixed point of
/// `p^half`), and not after any step count that divides `half` (checked at the largest such
/// counts). A fixed handful of instructions for each pair, where the walk square by square
/// takes up to 16 steps and a branch it mispredicts.
#[cfg(target_arch = "x86_64")]
mod shuffle {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set_epi8,
        _mm_shuffle_epi8, _mm256_add_epi64, _mm256_and_si256, _mm256_broadcastsi128_si256,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi64x,
        _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_storeu_si256,
    };

    use super::TILE;

    /// The widest shuffle the processor has, proof that it has it: made only where it does.
    /// AVX2 shuffles two pairs' bytes at once (two 16-byte lanes), SSSE3 one.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) enum Kernel {
        Ssse3(Proof),
        Avx2(Proof),
    }

    /// Made only by [`Kernel::available`], where the processor has the kernel's instructions.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) struct Proof(());

    impl Kernel {
        /// Every kernel the processor has, the widest last (asked once a process).
        pub(super) fn available() -> &'static [Kernel] {
            static HAS: std::sync::OnceLock<Vec<Kernel>> = std::sync::OnceLock::new();
            HAS.get_or_init(|| {
                let mut k = Vec::new();
                if std::is_x86_feature_detected!("ssse3") {
                    k.push(Kernel::Ssse3(Proof(())));
                }
                if std::is_x86_feature_detected!("avx2") {
                    k.push(Kernel::Avx2(Proof(())));
                }
                k
            })
        }

        /// The widest kernel the processor has.
        pub(super) fn detect() -> Option<Kernel> {
            Self::available().last().copied()
        }

        /// Adds to `acc` each right row's count (`rights`, their links as bytes, and `counts`)
        /// for each of the tile's left states (`left`, as bytes) whose pieces, with the row's,
        /// make one cycle of `half` steps through the end `s0`.
        #[inline]
        pub(super) fn sums(
            self,
            left: &[[u8; 16]; TILE],
            rights: &[[u8; 16]],
            counts: &[u64],
            s0: u32,
            half: u32,
            acc: &mut [u128; TILE],
        ) {
            // SAFETY: a kernel is made only where the processor has its instructions (see
            // `available`), and the functions need nothing else
            match self {
                Kernel::Ssse3(_) => unsafe { sums_ssse3(left, rights, counts, s0, half, acc) },
                Kernel::Avx2(_) => unsafe { sums_avx2(left, rights, counts, s0, half, acc) },
            }
        }
    }

    /// The bits of the squares that one walk of `half` steps brings back, and no walk of a
    /// divisor of `half` does (checked at its largest such divisors), from the walk's step `p1`:
    /// `then(a, b)` is `a` then `b`, `fixed` the bits of the squares a permutation keeps.
    #[inline(always)]
    pub(super) fn once<V: Copy>(
        p1: V,
        half: u32,
        then: impl Fn(V, V) -> V,
        fixed: impl Fn(V) -> u32,
    ) -> u32 {
        let p2 = then(p1, p1);
        match half {
            1 => fixed(p1),
            2 => fixed(p2) & !fixed(p1),
            3 => fixed(then(p2, p1)) & !fixed(p1),
            4 => {
                let p4 = then(p2, p2);
                fixed(p4) & !fixed(p2)
            }
            5 => fixed(then(then(p2, p2), p1)) & !fixed(p1),
            6 => {
                let p3 = then(p2, p1);
                fixed(then(p3, p3)) & !fixed(p3) & !fixed(p2)
            }
            7 => {
                let p3 = then(p2, p1);
                fixed(then(p3, then(p2, p2))) & !fixed(p1)
            }
            _ => {
                let p4 = then(p2, p2);
                fixed(then(p4, p4)) & !fixed(p4)
            }
        }
    }

    /// The identity permutation of 16 bytes (byte `i` holds `i`), which a walk's step leaves
    /// unchanged where it brings a square back.
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(super) fn identity() -> __m128i {
        _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
    }

    /// Adds `count` to the lanes of `acc` whose bit in `tours` is set.
    #[inline(always)]
    pub(super) fn add(acc: &mut [u128; TILE], tours: u32, count: u64) {
        for (x, a) in acc.iter_mut().enumerate() {
            *a += u128::from(count & 0u64.wrapping_sub(u64::from(tours >> x & 1)));
        }
    }

    #[target_feature(enable = "ssse3")]
    pub(super) fn sums_ssse3(
        left: &[[u8; 16]; TILE],
        rights: &[[u8; 16]],
        counts: &[u64],
        s0: u32,
        half: u32,
        acc: &mut [u128; TILE],
    ) {
        let load = |b: &[u8; 16]| {
            // SAFETY: an unaligned load of 16 bytes from a 16-byte array
            unsafe { _mm_loadu_si128(b.as_ptr().cast::<__m128i>()) }
        };
        let ident = identity();
        let fixed = |p: __m128i| _mm_movemask_epi8(_mm_cmpeq_epi8(p, ident)) as u32;
        let then = |a: __m128i, b: __m128i| _mm_shuffle_epi8(b, a);
        let lanes = left.map(|l| load(&l));
        for (right, &count) in rights.iter().zip(counts) {
            let r = load(right);
            let mut tours = 0;
            for (x, &l) in lanes.iter().enumerate() {
                tours |= (once(_mm_shuffle_epi8(r, l), half, then, fixed) >> s0 & 1) << x;
            }
            add(acc, tours, count);
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn sums_avx2(
        left: &[[u8; 16]; TILE],
        rights: &[[u8; 16]],
        counts: &[u64],
        s0: u32,
        half: u32,
        acc: &mut [u128; TILE],
    ) {
        // two left states a register, one in each 16-byte lane (a shuffle stays in its lane)
        let lanes: [__m256i; TILE / 2] = std::array::from_fn(|j| {
            // SAFETY: an unaligned load of 32 bytes from two adjacent 16-byte arrays
            unsafe { _mm256_loadu_si256(left[2 * j..].as_ptr().cast::<__m256i>()) }
        });
        let ident = _mm256_broadcastsi128_si256(identity());
        let fixed = |p: __m256i| _mm256_movemask_epi8(_mm256_cmpeq_epi8(p, ident)) as u32;
        let then = |a: __m256i, b: __m256i| _mm256_shuffle_epi8(b, a);
        // the sums four lanes a register, the counts' low and high 32 bits apart: a block's
        // rows add at most 2^32 times 2^12 in a lane, folded into `acc` at its end
        let zero = _mm256_setzero_si256();
        let (mut low, mut high) = ([zero; TILE / 4], [zero; TILE / 4]);
        debug_assert!(rights.len() <= super::BLOCK);
        for (right, &count) in rights.iter().zip(counts) {
            // SAFETY: an unaligned load of 16 bytes from a 16-byte array
            let r = _mm256_broadcastsi128_si256(unsafe {
                _mm_loadu_si128(right.as_ptr().cast::<__m128i>())
            });
            let mut tours = 0;
            for (j, &l) in lanes.iter().enumerate() {
                // the first end's bit in each lane: bit s0 and bit 16 + s0
                let m = once(_mm256_shuffle_epi8(r, l), half, then, fixed) >> s0;
                tours |= ((m & 1) | (m >> 15 & 2)) << (2 * j);
            }
            let lo = _mm256_set1_epi64x((count & 0xffff_ffff) as i64);
            let hi = _mm256_set1_epi64x((count >> 32) as i64);
            for q in 0..TILE / 4 {
                let nibble = (tours >> (4 * q) & 15) as usize;
                // SAFETY: an unaligned load of 32 bytes from a 32-byte array
                let m = unsafe { _mm256_loadu_si256(LANES[nibble].as_ptr().cast::<__m256i>()) };
                low[q] = _mm256_add_epi64(low[q], _mm256_and_si256(m, lo));
                high[q] = _mm256_add_epi64(high[q], _mm256_and_si256(m, hi));
            }
        }
        for q in 0..TILE / 4 {
            let (mut l, mut h) = ([0u64; 4], [0u64; 4]);
            // SAFETY: unaligned stores of 32 bytes into 32-byte arrays
            unsafe {
                _mm256_storeu_si256(l.as_mut_ptr().cast::<__m256i>(), low[q]);
                _mm256_storeu_si256(h.as_mut_ptr().cast::<__m256i>(), high[q]);
            }
            for i in 0..4 {
                acc[4 * q + i] += u128::from(l[i]) + (u128::from(h[i]) << 32);
            }
        }
    }

    /// For each four bits, a lane of all ones where each bit is set.
    pub(super) const LANES: [[u64; 4]; 16] = {
        let mut t = [[0u64; 4]; 16];
        let mut n = 0;
        while n < 16 {
            let mut i = 0;
            while i < 4 {
                if n >> i & 1 == 1 {
                    t[n][i] = u64::MAX;
                }
                i += 1;
            }
            n += 1;
        }
        t
    };
}

/// For each of the left states `(links, terminals)` of one group, whose ends are `ends`
/// (every state of a group has the same: its class says which), the sum of the counts of the
/// right rows that join it into one tour: a cycle (`closed`) or a path between two terminals.
///
/// By byte shuffles where the processor has them ([`shuffle`]: 8x9 closed spent 16 s of a
/// 46 s piece walking pairs square by square, 6 s so), else the walk of [`joins_paired`].
pub(super) fn run_sums<L: Links>(
    left: &[(L, u32)],
    ends: u32,
    rights: &[Right<L>],
    counts: &[u64],
    closed: bool,
) -> Vec<u128> {
    L::run_sums(left, ends, rights, counts, closed)
}

/// [`run_sums`] by the walk of each pair square by square.
pub(super) fn walked_run<L: Links>(
    left: &[(L, u32)],
    ends: u32,
    rights: &[Right<L>],
    counts: &[u64],
    closed: bool,
) -> Vec<u128> {
    let mut acc = vec![0u128; left.len()];
    let n = ends.count_ones();
    for (r, &rc) in rights.iter().zip(counts) {
        for (a, &(lm, lt)) in acc.iter_mut().zip(left) {
            // the group gave the right state the terminals the left one lacks
            if joins_paired(lm, lt, r.mates, r.term, ends, n, closed) {
                *a += u128::from(rc);
            }
        }
    }
    acc
}

/// [`run_sums`] by byte shuffles (the walk's step one shuffle for each pair, the open joins
/// made closed by [`Cycle`]): the left states' links made bytes once, the right rows' once a
/// [`BLOCK`], and each block read against every tile of [`TILE`] left states.
#[cfg(target_arch = "x86_64")]
fn shuffled_run(
    kernel: shuffle::Kernel,
    left: &[(u64, u32)],
    ends: u32,
    rights: &[Right<u64>],
    counts: &[u64],
) -> Vec<u128> {
    let Some(cycle) = Cycle::of(ends, left[0].1) else {
        return vec![0; left.len()];
    };
    // the last tile is filled out with lanes whose sums are dropped
    let mut tiles = vec![[[0u8; 16]; TILE]; left.len().div_ceil(TILE)];
    for (l, &(lm, lt)) in tiles.iter_mut().flatten().zip(left) {
        *l = bytes(cycle.close(lm, lt));
    }
    let mut acc = vec![[0u128; TILE]; tiles.len()];
    let mut block: Vec<[u8; 16]> = Vec::with_capacity(BLOCK.min(rights.len()));
    for (rows, rc) in rights.chunks(BLOCK).zip(counts.chunks(BLOCK)) {
        block.clear();
        block.extend(rows.iter().map(|r| bytes(cycle.close(r.mates, r.term))));
        for (tile, a) in tiles.iter().zip(&mut acc) {
            kernel.sums(tile, &block, rc, cycle.s0, cycle.half, a);
        }
    }
    let mut out: Vec<u128> = acc.into_iter().flatten().collect();
    out.truncate(left.len());
    out
}

/// Crossing states a worker joins at a time, at most.
pub(super) const JOIN_CHUNK: usize = 1 << 14;

/// Crossing states a worker joins at a time, of `len` on `threads` threads: [`JOIN_CHUNK`], or
/// less where that would leave threads idle, down to [`MIN_JOIN_CHUNK`] (a chunk reads each
/// right row of a group once for its whole run of the group's left states, so a smaller chunk
/// reads them more often). The leaves of 8x8 closed are joined a few thousand crossing states
/// at a time: in one chunk a leaf, its join ran on one thread, 4.3 s of its 10.2 s on two
/// (`results/work-span.md`).
pub(super) fn join_chunk(len: usize, threads: usize) -> usize {
    (len / (4 * threads.max(1))).clamp(MIN_JOIN_CHUNK, JOIN_CHUNK)
}

/// The smallest chunk [`join_chunk`] makes.
pub(super) const MIN_JOIN_CHUNK: usize = 256;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_join_is_cut_into_chunks_for_every_thread_within_bounds() {
        // a few thousand crossing states: four chunks a thread, not one chunk for one thread
        assert_eq!(join_chunk(8_000, 2), 1_000);
        assert_eq!(join_chunk(8_000, 16), MIN_JOIN_CHUNK);
        assert_eq!(join_chunk(100, 2), MIN_JOIN_CHUNK);
        assert_eq!(join_chunk(1 << 24, 2), JOIN_CHUNK);
        assert_eq!(join_chunk(1 << 20, 0), JOIN_CHUNK);
    }

    fn mates<L: Links>(pairs: &[(u32, u32)]) -> L {
        pairs.iter().fold(L::default(), |m, &(a, b)| m.pair(a, b))
    }

    /// Random pieces on the ends `ends`: `terms` of them lead to a terminal, the others are
    /// paired at random.
    fn random_side<L: Links>(rng: &mut fastrand::Rng, ends: u32, terms: usize) -> (L, u32) {
        let mut squares: Vec<u32> = (0..L::SQUARES).filter(|&s| ends >> s & 1 != 0).collect();
        rng.shuffle(&mut squares);
        let term = squares[..terms].iter().fold(0, |t, &s| t | 1 << s);
        let pairs: Vec<(u32, u32)> = squares[terms..].chunks(2).map(|p| (p[0], p[1])).collect();
        (mates(&pairs), term)
    }

    /// Whether two sides make one tour, by another method than the walk: the graph of the ends
    /// and both sides' links is one piece (union-find) with as many links as a cycle (closed)
    /// or a path (open: the terminals leave one end short) through every end has.
    fn one_tour<L: Links>(lm: L, lt: u32, rm: L, rt: u32, ends: u32, closed: bool) -> bool {
        let mut root: Vec<u32> = (0..L::SQUARES).collect();
        fn find(root: &mut [u32], s: u32) -> u32 {
            let mut s = s;
            while root[s as usize] != s {
                s = root[s as usize];
            }
            s
        }
        let mut links = 0;
        for (m, t) in [(lm, lt), (rm, rt)] {
            for s in (0..L::SQUARES).filter(|&s| ends >> s & 1 != 0 && t >> s & 1 == 0) {
                let (a, b) = (find(&mut root, s), find(&mut root, m.link(s)));
                root[a as usize] = b;
                links += 1;
            }
        }
        // each link was met from both its ends
        let links = links / 2;
        let mut pieces: Vec<u32> = (0..L::SQUARES)
            .filter(|&s| ends >> s & 1 != 0)
            .map(|s| find(&mut root, s))
            .collect();
        pieces.dedup();
        let n = ends.count_ones();
        n > 0 && pieces.len() == 1 && links == if closed { n } else { n - 1 }
    }

    #[test]
    fn a_run_sums_what_the_walk_of_each_pair_joins_by_every_kernel() {
        let mut rng = fastrand::Rng::with_seed(28);
        // (closed, ends, left terminals) -> pairs that joined, pairs that did not
        let mut seen = std::collections::BTreeMap::<(bool, u32, usize), (u32, u32)>::new();
        for case in 0..6000 {
            let closed = case % 2 == 0;
            let n = if closed {
                2 * rng.u32(0..=8)
            } else {
                rng.u32(1..=16)
            };
            let mut squares: Vec<u32> = (0..16).collect();
            rng.shuffle(&mut squares);
            let ends = squares[..n as usize].iter().fold(0u32, |e, &s| e | 1 << s);
            // open: the left holds 0, 1 or 2 terminals of the same parity as n, the right the rest
            let lt = if closed {
                0
            } else if n % 2 == 1 {
                1
            } else if n >= 2 {
                2 * rng.usize(0..=1)
            } else {
                0
            };
            let rt = if closed { 0 } else { 2 - lt };
            // runs of left states of one tile or several, and right rows of one block or
            // (now and then) more
            let tile: Vec<(u64, u32)> = (0..rng.usize(1..=2 * TILE + 3))
                .map(|_| random_side(&mut rng, ends, lt))
                .collect();
            let rows = if case % 400 == 0 {
                BLOCK + rng.usize(1..40)
            } else {
                rng.usize(0..40)
            };
            let rights: Vec<Right<u64>> = (0..rows)
                .map(|_| {
                    let (mates, term) = random_side(&mut rng, ends, rt);
                    Right { mates, term }
                })
                .collect();
            let counts: Vec<u64> = rights.iter().map(|_| rng.u64(..)).collect();
            // the walk square by square, and by each kernel of shuffles this processor has
            let walked = walked_run(&tile, ends, &rights, &counts, closed);
            let sums = run_sums(&tile, ends, &rights, &counts, closed);
            #[cfg(target_arch = "x86_64")]
            let kernels: Vec<_> = shuffle::Kernel::available()
                .iter()
                .map(|&k| (k, shuffled_run(k, &tile, ends, &rights, &counts)))
                .collect();
            for (x, &(lm, lt_bits)) in tile.iter().enumerate() {
                let mut want = 0u128;
                for (r, &c) in rights.iter().zip(&counts) {
                    let tour = if rows > 40 {
                        joins(lm, lt_bits, r.mates, r.term, ends, closed)
                    } else {
                        let tour = one_tour(lm, lt_bits, r.mates, r.term, ends, closed);
                        assert_eq!(tour, joins(lm, lt_bits, r.mates, r.term, ends, closed));
                        let e = seen.entry((closed, n, lt)).or_default();
                        *(if tour { &mut e.0 } else { &mut e.1 }) += 1;
                        tour
                    };
                    want += if tour { u128::from(c) } else { 0 };
                }
                assert_eq!(walked[x], want, "case {case}, lane {x}: the walk");
                assert_eq!(
                    sums[x], want,
                    "case {case}, lane {x}, {n} ends, closed {closed}"
                );
                #[cfg(target_arch = "x86_64")]
                for (k, sums) in &kernels {
                    assert_eq!(sums[x], want, "case {case}, lane {x}, kernel {k:?}");
                }
            }
            assert_eq!((walked.len(), sums.len()), (tile.len(), tile.len()));
        }
        // every number of ends from 3 (closed: every walk length, 2 to 8 steps) and every
        // split of the terminals met pairs that join and pairs that do not (with 1 or 2 ends
        // every pair joins)
        for (key, (yes, no)) in &seen {
            let (_, n, _) = *key;
            if n >= 3 {
                assert!(*yes > 0 && *no > 0, "{key:?}: {yes} joined, {no} did not");
            }
        }
        assert!(seen.len() > 30, "{} kinds of case", seen.len());
    }

    /// Wide links (5 bits a square in a `u128`, up to 20 boundary squares): the walk of a run
    /// sums what the union-find of each pair finds, over every number of ends to 20 and every
    /// split of the terminals; and on 16 squares or fewer, the same pieces packed narrow give
    /// the same sums (the shuffles' path among them).
    #[test]
    fn wide_links_join_as_the_union_find_and_as_narrow_links_do() {
        let mut rng = fastrand::Rng::with_seed(29);
        let mut joined = [0u32; 2];
        for case in 0..3000 {
            let closed = case % 2 == 0;
            let n = if closed {
                2 * rng.u32(1..=10)
            } else {
                rng.u32(1..=20)
            };
            let mut squares: Vec<u32> = (0..MAX_BOUNDARY).collect();
            rng.shuffle(&mut squares);
            let ends = squares[..n as usize].iter().fold(0u32, |e, &s| e | 1 << s);
            let lt = if closed {
                0
            } else if n % 2 == 1 {
                1
            } else {
                2 * rng.usize(0..=1)
            };
            let rt = if closed { 0 } else { 2 - lt };
            let tile: Vec<(u128, u32)> = (0..rng.usize(1..=5))
                .map(|_| random_side(&mut rng, ends, lt))
                .collect();
            let rights: Vec<Right<u128>> = (0..rng.usize(0..30))
                .map(|_| {
                    let (mates, term) = random_side(&mut rng, ends, rt);
                    Right { mates, term }
                })
                .collect();
            let counts: Vec<u64> = rights.iter().map(|_| rng.u64(..1 << 40)).collect();
            let sums = run_sums(&tile, ends, &rights, &counts, closed);
            for (x, &(lm, l_t)) in tile.iter().enumerate() {
                let mut want = 0u128;
                for (r, &c) in rights.iter().zip(&counts) {
                    let tour = one_tour(lm, l_t, r.mates, r.term, ends, closed);
                    assert_eq!(tour, joins(lm, l_t, r.mates, r.term, ends, closed));
                    joined[usize::from(tour)] += 1;
                    want += if tour { u128::from(c) } else { 0 };
                }
                assert_eq!(sums[x], want, "case {case}, lane {x}, {n} ends");
            }
            // the same pieces on the first 16 squares, narrow
            if ends >> NARROW == 0 {
                let narrow = |m: u128| {
                    (0..NARROW)
                        .filter(|&s| ends >> s & 1 != 0)
                        .fold(0u64, |a, s| a | u64::from(m.link(s)) << (4 * s))
                };
                let tile: Vec<(u64, u32)> = tile.iter().map(|&(m, t)| (narrow(m), t)).collect();
                let rights: Vec<Right<u64>> = (rights.iter())
                    .map(|r| Right {
                        mates: narrow(r.mates),
                        term: r.term,
                    })
                    .collect();
                assert_eq!(run_sums(&tile, ends, &rights, &counts, closed), sums);
            }
        }
        assert!(joined[0] > 1000 && joined[1] > 100, "{joined:?}");
    }

    /// A crossing state's links read from its slots: a square's partner is the other square of
    /// its label, past the 16th square too, and terminals are the squares of the label `TERM`.
    #[test]
    fn links_are_read_from_the_slots_past_sixteen_squares() {
        use crate::walk::state::Key;
        // 20 slots of 4 bits in a u128: labels 2 (a terminal), then pairs 3..=11
        let codes: [u8; 20] = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 2, 11, 10, 9, 8, 7, 6, 5, 4, 3, 0,
        ];
        let k = codes
            .iter()
            .enumerate()
            .fold(0u128, |k, (s, &c)| k.set(s as u32, c));
        let b = Boundary {
            slots: (0..20).collect(),
        };
        let (m, t): (u128, u32) = b.links(k);
        assert_eq!(t, 1 << 9);
        assert_eq!(b.terminals(k), t);
        for j in 0..9 {
            assert_eq!((m.link(j), m.link(18 - j)), (18 - j, j), "square {j}");
        }
    }

    #[test]
    fn two_matchings_make_one_cycle_or_two() {
        // squares 0..4: left pairs 0-1, 2-3; right pairs 1-2, 3-0: one cycle 0-1-2-3-0
        let (l, r1, r2): (u64, u64, u64) = (
            mates(&[(0, 1), (2, 3)]),
            mates(&[(1, 2), (3, 0)]),
            mates(&[(0, 1), (2, 3)]),
        );
        assert!(joins(l, 0, r1, 0, 0b1111, true));
        assert!(!joins(l, 0, r2, 0, 0b1111, true), "two 2-cycles");
    }

    #[test]
    fn paths_need_exactly_two_terminals_and_every_end() {
        // left: 0 leads to a terminal, 1-2 paired; right: 0-1 paired, 2 leads to a terminal
        let (l, r): (u64, u64) = (mates(&[(1, 2)]), mates(&[(0, 1)]));
        assert!(joins(l, 0b001, r, 0b100, 0b111, false));
        // a square both of whose sides end at terminals is a path of its own: not all ends
        assert!(!joins(0u64, 0b1, 0, 0b1, 0b11, false));
        assert!(joins(0u64, 0b1, 0, 0b1, 0b1, false));
        // three terminals
        assert!(!joins(l, 0b001, r, 0b101, 0b111, false));
    }
}
