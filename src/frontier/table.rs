//! State tables: a layer of states and their counts, split into partitions by hash so that many
//! threads fill one table at once, each partition an open-addressing table of its own.
//!
//! Counts are unsigned integers of `limbs` 64-bit words (little-endian). An addition that carries
//! out of the top word is reported, never wrapped: the caller widens the counts and redoes the
//! layer, so every count is exact at every size.

use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::state::Key;

/// The most partitions a table has: enough that threads rarely wait for each other's locks.
pub(crate) const PARTS: usize = 512;
const MAX_PART_BITS: u32 = PARTS.trailing_zeros();

/// States a partition is sized for when a table picks its number of partitions: small tables
/// get few partitions (a count of a small board is mostly fixed costs otherwise).
const STATES_PER_PART: u64 = 4096;

/// The partition bits for a table expected to hold `states`.
fn part_bits(states: u64) -> u32 {
    (states / STATES_PER_PART)
        .next_power_of_two()
        .trailing_zeros()
        .min(MAX_PART_BITS)
}
/// Entries a worker gathers for one partition before taking its lock.
const BATCH: usize = 64;

/// The smallest partition.
const MIN_CAP: usize = 16;

/// One partition: entries of the key's words followed by its count's words side by side (one
/// cache line holds both, so an insert costs one miss), linear probing, at most 4/5 full. Its
/// size is any number of entries (a key's place is its hash scaled to the size, not masked), so
/// a table sized for the layer to come is not rounded up to twice that.
#[derive(Clone, Debug)]
pub(crate) struct Part<K: Key> {
    data: Vec<u64>,
    /// Entries it has room for.
    cap: usize,
    len: usize,
    _key: PhantomData<K>,
}

/// The first word of an empty entry. A key's low word is never all ones: that would be sixteen
/// slots holding label 15, and a label is on two slots at most.
const EMPTY_WORD: u64 = u64::MAX;

/// Entries whose place is fetched ahead of their insert (misses overlap instead of queueing).
const AHEAD: usize = 16;

/// Adds `src` to `dst` word by word; true when a carry leaves the top word.
#[inline]
pub(crate) fn add_limbs(dst: &mut [u64], src: &[u64]) -> bool {
    if let ([d], [s]) = (&mut *dst, src) {
        let (x, carry) = d.overflowing_add(*s);
        *d = x;
        return carry;
    }
    let mut carry = false;
    for (d, s) in dst.iter_mut().zip(src) {
        let (x, c1) = d.overflowing_add(*s);
        let (y, c2) = x.overflowing_add(u64::from(carry));
        *d = y;
        carry = c1 || c2;
    }
    carry
}

/// Where a key goes among `1 << bits` partitions: its partition and the hash it probes with.
#[inline]
fn place<K: Key>(key: K, bits: u32) -> (usize, u64) {
    let h = key.hash64();
    let p = if bits == 0 {
        0
    } else {
        (h >> (64 - bits)) as usize
    };
    (p, h)
}

/// Asks the processor to bring the cache line of `word` in (a hint: nothing else happens).
#[inline]
fn prefetch(word: &u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing and faults on no address (and
    // the address is a live reference). The block is needed on Rust before 1.87 only.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(word).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

impl<K: Key> Part<K> {
    /// Words an entry takes.
    #[inline]
    const fn stride(limbs: usize) -> usize {
        K::WORDS + limbs
    }

    /// Emptied for reuse, if its size suits `cap` entries of `limbs` words.
    fn reused(mut self, cap: usize, limbs: usize) -> Option<Part<K>> {
        let want = cap.max(MIN_CAP);
        let fits = self.data.len() == self.cap * Self::stride(limbs)
            && self.cap >= want
            && self.cap <= want * 2;
        fits.then(|| {
            self.data.fill(EMPTY_WORD);
            self.len = 0;
            self
        })
    }

    fn with_capacity(cap: usize, limbs: usize) -> Part<K> {
        let cap = cap.max(MIN_CAP);
        debug_assert!(
            cap <= 1 << 32,
            "a place is the low 32 bits of a hash, scaled"
        );
        Part {
            // a count's words are written with its key, so all ones does for them too
            data: vec![EMPTY_WORD; cap * Self::stride(limbs)],
            cap,
            len: 0,
            _key: PhantomData,
        }
    }

    fn bytes(&self) -> u64 {
        (self.data.len() * 8) as u64
    }

    /// The entry where a key of hash `h` starts probing: the hash's low 32 bits scaled to the
    /// size (its high bits chose the partition).
    #[inline]
    fn home(&self, h: u64) -> usize {
        (((h & 0xFFFF_FFFF) * self.cap as u64) >> 32) as usize
    }

    /// Brings in the entry where a key of hash `h` starts probing.
    #[inline]
    fn prefetch(&self, h: u64, limbs: usize) {
        prefetch(&self.data[self.home(h) * Self::stride(limbs)]);
    }

    /// Where `key` (of hash `h`) is, `Ok`, or the empty entry where it would go, `Err`: linear
    /// probing from its home.
    #[inline]
    fn probe(&self, key: K, h: u64, stride: usize) -> Result<usize, usize> {
        let mut i = self.home(h);
        loop {
            let e = &self.data[i * stride..(i + 1) * stride];
            if e[0] == EMPTY_WORD {
                return Err(i);
            }
            if K::load(e) == key {
                return Ok(i);
            }
            i += 1;
            if i == self.cap {
                i = 0;
            }
        }
    }

    /// Adds `count` to `key`'s count, inserting it if new; `Err` on a carry out of the top word.
    /// The caller has made room (see [`Part::needs_room`]).
    #[inline]
    fn add(&mut self, key: K, h: u64, count: &[u64], limbs: usize) -> Result<(), ()> {
        let stride = Self::stride(limbs);
        match self.probe(key, h, stride) {
            Ok(i) => {
                let e = &mut self.data[i * stride..(i + 1) * stride];
                if add_limbs(&mut e[K::WORDS..], count) {
                    Err(())
                } else {
                    Ok(())
                }
            }
            Err(i) => {
                let e = &mut self.data[i * stride..(i + 1) * stride];
                key.store(e);
                e[K::WORDS..].copy_from_slice(count);
                self.len += 1;
                Ok(())
            }
        }
    }

    /// Whether `extra` more keys would fill it past 4/5.
    fn needs_room(&self, extra: usize) -> bool {
        (self.len + extra) * 5 > self.cap * 4
    }

    /// The same entries in a table twice the size.
    fn grown(&self, limbs: usize) -> Part<K> {
        let mut p = Part::with_capacity(self.cap * 2, limbs);
        for (k, c) in self.iter(limbs) {
            p.add(k, k.hash64(), c, limbs)
                .expect("moving a count cannot overflow");
        }
        p
    }

    fn iter(&self, limbs: usize) -> impl Iterator<Item = (K, &[u64])> + '_ {
        self.slots(limbs).map(|(_, k, c)| (k, c))
    }

    /// The entries with their places.
    fn slots(&self, limbs: usize) -> impl Iterator<Item = (usize, K, &[u64])> + '_ {
        self.data
            .chunks_exact(Self::stride(limbs))
            .enumerate()
            .filter(|(_, e)| e[0] != EMPTY_WORD)
            .map(|(i, e)| (i, K::load(e), &e[K::WORDS..]))
    }

    /// The entry at place `i` (one [`Part::slots`] gave).
    fn at(&self, i: usize, limbs: usize) -> (K, &[u64]) {
        let stride = Self::stride(limbs);
        let e = &self.data[i * stride..(i + 1) * stride];
        debug_assert_ne!(e[0], EMPTY_WORD);
        (K::load(e), &e[K::WORDS..])
    }

    #[cfg(test)]
    fn get(&self, key: K, h: u64, limbs: usize) -> Option<&[u64]> {
        let stride = Self::stride(limbs);
        let i = self.probe(key, h, stride).ok()?;
        Some(&self.data[i * stride + K::WORDS..(i + 1) * stride])
    }
}

/// A finished layer: read-only, iterated by partition, looked up by key.
#[derive(Clone, Debug)]
pub(crate) struct Layer<K: Key> {
    parts: Vec<Part<K>>,
    bits: u32,
    limbs: usize,
}

impl<K: Key> Layer<K> {
    /// A layer holding one state with count 1.
    pub(crate) fn single(key: K, limbs: usize) -> Layer<K> {
        let mut l = Layer::empty(limbs);
        let mut one = vec![0; limbs];
        one[0] = 1;
        l.insert(key, &one);
        l
    }

    pub(crate) fn empty(limbs: usize) -> Layer<K> {
        Layer::with_parts(0, limbs)
    }

    /// An empty layer of `1 << bits` partitions.
    pub(crate) fn with_parts(bits: u32, limbs: usize) -> Layer<K> {
        Layer {
            parts: (0..1 << bits)
                .map(|_| Part::with_capacity(0, limbs))
                .collect(),
            bits,
            limbs,
        }
    }

    /// Adds `count` to `key` (single-threaded building, e.g. reading a checkpoint).
    pub(crate) fn insert(&mut self, key: K, count: &[u64]) -> bool {
        let (p, h) = place(key, self.bits);
        if self.parts[p].needs_room(1) {
            self.parts[p] = self.parts[p].grown(self.limbs);
        }
        self.parts[p].add(key, h, count, self.limbs).is_ok()
    }

    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }

    pub(crate) fn len(&self) -> u64 {
        self.parts.iter().map(|p| p.len as u64).sum()
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.parts.iter().map(Part::bytes).sum()
    }

    /// Its number of partitions.
    pub(crate) fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// The number of states in partition `p`.
    pub(crate) fn part_len(&self, p: usize) -> usize {
        self.parts[p].len
    }

    /// The states of partition `p`.
    pub(crate) fn part(&self, p: usize) -> impl Iterator<Item = (K, &[u64])> {
        self.parts[p].iter(self.limbs)
    }

    /// The states of partition `p` with their places in it, for [`Layer::at`].
    pub(crate) fn part_slots(&self, p: usize) -> impl Iterator<Item = (usize, K, &[u64])> {
        self.parts[p].slots(self.limbs)
    }

    /// The state at place `i` of partition `p`.
    pub(crate) fn at(&self, p: usize, i: usize) -> (K, &[u64]) {
        self.parts[p].at(i, self.limbs)
    }

    /// Brings in the state at place `i` of partition `p` (a hint, for reading it soon).
    pub(crate) fn prefetch_at(&self, p: usize, i: usize) {
        prefetch(&self.parts[p].data[i * Part::<K>::stride(self.limbs)]);
    }

    /// Every state and its count.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, &[u64])> {
        self.parts.iter().flat_map(|p| p.iter(self.limbs))
    }

    #[cfg(test)]
    pub(crate) fn get(&self, key: K) -> Option<&[u64]> {
        let (p, h) = place(key, self.bits);
        self.parts[p].get(key, h, self.limbs)
    }

    /// The same states with counts of `limbs` words (more than now).
    pub(crate) fn widened(&self, limbs: usize) -> Layer<K> {
        debug_assert!(limbs >= self.limbs);
        let mut out = Layer::with_parts(self.bits, limbs);
        let mut buf = vec![0; limbs];
        for (k, c) in self.iter() {
            buf[..c.len()].copy_from_slice(c);
            buf[c.len()..].fill(0);
            out.insert(k, &buf);
        }
        out
    }
}

/// Why a layer could not be finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// A count needs more words.
    Overflow,
    /// The tables would pass the memory bound; the bytes they had reached.
    Memory(u64),
    /// The stop flag was set.
    Interrupted,
}

/// A layer being filled by many threads.
pub(crate) struct Builder<K: Key> {
    parts: Vec<Mutex<Part<K>>>,
    bits: u32,
    limbs: usize,
    bytes: AtomicU64,
    /// Bytes held besides this table (the layer being read).
    other: u64,
    limit: u64,
    overflow: AtomicBool,
    memory: AtomicBool,
}

impl<K: Key> Builder<K> {
    /// An empty table expecting about `expect` states, in the memory of `spare` where its
    /// partitions suit.
    pub(crate) fn new(
        expect: u64,
        limbs: usize,
        other: u64,
        limit: u64,
        spare: Option<Layer<K>>,
    ) -> Builder<K> {
        // partitions for a layer a few times larger (layers grow step by step), each sized for
        // its share of `expect` at 7/10 full (it grows past 4/5)
        let bits = part_bits(expect * 4);
        let per = (expect as usize >> bits) * 10 / 7 + MIN_CAP;
        let mut spare = spare.map(|l| l.parts.into_iter());
        let parts: Vec<Mutex<Part<K>>> = (0..1usize << bits)
            .map(|_| {
                let old = spare.as_mut().and_then(Iterator::next);
                Mutex::new(
                    old.and_then(|p| p.reused(per, limbs))
                        .unwrap_or_else(|| Part::with_capacity(per, limbs)),
                )
            })
            .collect();
        let bytes = parts.iter().map(|p| p.lock().expect("new").bytes()).sum();
        Builder {
            parts,
            bits,
            limbs,
            bytes: AtomicU64::new(bytes),
            other,
            limit,
            overflow: AtomicBool::new(false),
            memory: AtomicBool::new(bytes + other > limit),
        }
    }

    /// Bytes of this table and the one being read.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed) + self.other
    }

    /// Whether filling has failed (overflow or memory): workers stop early.
    pub(crate) fn failed(&self) -> bool {
        self.overflow.load(Ordering::Relaxed) || self.memory.load(Ordering::Relaxed)
    }

    /// Adds a batch of entries to partition `p`.
    fn flush(&self, p: usize, keys: &[K], counts: &[u64]) {
        if keys.is_empty() || self.failed() {
            return;
        }
        let limbs = self.limbs;
        let mut part = self.parts[p]
            .lock()
            .expect("no worker panics holding a lock");
        while part.needs_room(keys.len()) {
            let grown = part.grown(limbs);
            let delta = grown.bytes() - part.bytes();
            // Relaxed: a byte count for the bound and the report; the lock orders the table
            let now = self.bytes.fetch_add(delta, Ordering::Relaxed) + delta;
            if now + self.other > self.limit {
                self.memory.store(true, Ordering::Relaxed);
                return;
            }
            *part = grown;
        }
        for &k in &keys[..keys.len().min(AHEAD)] {
            part.prefetch(k.hash64(), limbs);
        }
        for (i, &k) in keys.iter().enumerate() {
            if let Some(&ahead) = keys.get(i + AHEAD) {
                part.prefetch(ahead.hash64(), limbs);
            }
            if part
                .add(k, k.hash64(), &counts[i * limbs..(i + 1) * limbs], limbs)
                .is_err()
            {
                self.overflow.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// The finished layer, or why it failed.
    pub(crate) fn finish(self) -> Result<Layer<K>, Stopped> {
        if self.overflow.load(Ordering::Relaxed) {
            return Err(Stopped::Overflow);
        }
        if self.memory.load(Ordering::Relaxed) {
            return Err(Stopped::Memory(self.bytes()));
        }
        Ok(Layer {
            parts: self
                .parts
                .into_iter()
                .map(|m| m.into_inner().expect("no worker panicked"))
                .collect(),
            bits: self.bits,
            limbs: self.limbs,
        })
    }
}

/// One worker's entries waiting for their partitions' locks; flushed when dropped.
pub(crate) struct Batch<'b, K: Key> {
    builder: &'b Builder<K>,
    keys: Vec<Vec<K>>,
    counts: Vec<Vec<u64>>,
}

impl<'b, K: Key> Batch<'b, K> {
    pub(crate) fn new(builder: &'b Builder<K>) -> Batch<'b, K> {
        let n = builder.parts.len();
        Batch {
            builder,
            keys: vec![Vec::new(); n],
            counts: vec![Vec::new(); n],
        }
    }

    /// Queues `count` for `key`.
    #[inline]
    pub(crate) fn push(&mut self, key: K, count: &[u64]) {
        let (p, _) = place(key, self.builder.bits);
        self.keys[p].push(key);
        self.counts[p].extend_from_slice(count);
        if self.keys[p].len() >= BATCH {
            self.builder.flush(p, &self.keys[p], &self.counts[p]);
            self.keys[p].clear();
            self.counts[p].clear();
        }
    }
}

impl<K: Key> Drop for Batch<'_, K> {
    fn drop(&mut self) {
        for p in 0..self.keys.len() {
            self.builder.flush(p, &self.keys[p], &self.counts[p]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_carry_and_report_overflow() {
        let mut a = [u64::MAX, 0];
        assert!(!add_limbs(&mut a, &[1, 0]));
        assert_eq!(a, [0, 1]);
        let mut b = [u64::MAX];
        assert!(add_limbs(&mut b, &[1]));
        let mut c = [u64::MAX, u64::MAX];
        assert!(add_limbs(&mut c, &[1, 0]));
    }

    #[test]
    fn batches_from_many_threads_sum_exactly() {
        use rayon::prelude::*;
        let b: Builder<u64> = Builder::new(0, 1, 0, u64::MAX, None);
        (0..8u64).into_par_iter().for_each(|t| {
            let mut batch = Batch::new(&b);
            for i in 0..10_000u64 {
                batch.push(i % 3000, &[t + 1]);
            }
        });
        let layer = b.finish().unwrap();
        assert_eq!(layer.len(), 3000);
        // key i appears 10000/3000 rounded up or down times per thread; every thread adds t+1
        let total: u64 = layer.iter().map(|(_, c)| c[0]).sum();
        assert_eq!(total, 10_000 * (1..=8).sum::<u64>());
        assert_eq!(layer.get(5).unwrap()[0], 4 * 36);
        assert!(layer.get(3000).is_none());
    }

    #[test]
    fn a_batch_larger_than_a_small_partition_grows_it_enough() {
        let b: Builder<u64> = Builder::new(0, 1, 0, u64::MAX, None);
        b.flush(
            0,
            &(0..BATCH as u64 * 4).collect::<Vec<_>>(),
            &[1; BATCH * 4],
        );
        assert_eq!(b.finish().unwrap().len(), BATCH as u64 * 4);
    }

    #[test]
    fn overflow_and_the_memory_bound_stop_a_layer() {
        let b: Builder<u64> = Builder::new(0, 1, 0, u64::MAX, None);
        {
            let mut batch = Batch::new(&b);
            batch.push(7, &[u64::MAX]);
            batch.push(7, &[1]);
        }
        assert_eq!(b.finish().err(), Some(Stopped::Overflow));
        let b: Builder<u64> = Builder::new(0, 1, 0, 200_000, None);
        {
            let mut batch = Batch::new(&b);
            for i in 0..100_000u64 {
                batch.push(i, &[1]);
            }
        }
        assert!(matches!(b.finish(), Err(Stopped::Memory(_))));
        let wide = Layer::<u64>::single(9, 1).widened(3);
        assert_eq!(wide.get(9).unwrap(), &[1, 0, 0]);
    }
}
