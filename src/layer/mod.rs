//! A layer of the frontier walk's states and their counts, in memory or on disk: its table,
//! split into partitions by hash so that many threads fill one table at once, each partition an
//! open-addressing table of its own; the builder that fills it (`builder.rs`); its files on disk
//! past the memory bound (`spill.rs`). The frontier engine's walk, its join and its saved stages
//! read and make their layers here (the exact sampler keeps its own tables, `sample::entry`).
//!
//! An entry is a state's key in as many bytes as its window needs (two slots a byte: 9 bytes for
//! the 18 slots of 8x8, not the 16 of a `u128`) followed by its count, `limbs` 64-bit words,
//! little-endian, read and written unaligned.
//!
//! Counts are unsigned integers of `limbs` 64-bit words (little-endian). An addition that carries
//! out of the top word is reported, never wrapped: the caller widens the counts and redoes the
//! layer, so every count is exact at every size.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use num_bigint::BigUint;
use rayon::prelude::*;

use crate::disk::scratch::Scratch;
use crate::durable::DiskError;
use crate::walk::entry::{Limbs, Shape};
use crate::walk::state::Key;
use spill::{Spill, SpillWriter, entries};

mod builder;
pub(crate) mod spill;

pub(crate) use builder::{Batch, Builder, big};

/// The most partitions a table has: enough that threads rarely wait for each other's locks.
pub(crate) const PARTS: usize = 512;

/// Partitions a table has for each worker thread (up to [`PARTS`]): a worker holds a lock for a
/// batch of inserts, so two meet at one about once in this many flushes, and few partitions
/// keep a worker's batches (one a partition) in its caches. On two threads 64 partitions
/// against 512 took 7x8 open from 111.5 to 104.7 s and 8x8 closed from 143 to 138 s, the
/// memory about the same (`results/frontier.md`).
pub(super) const PARTS_PER_THREAD: usize = 32;

/// The partition bits of the largest table for the pool running now.
pub(super) fn max_part_bits() -> u32 {
    (rayon::current_num_threads() * PARTS_PER_THREAD)
        .next_power_of_two()
        .min(PARTS)
        .trailing_zeros()
}

/// States a partition is sized for when a table picks its number of partitions: small tables
/// get few partitions (a count of a small board is mostly fixed costs otherwise).
pub(super) const STATES_PER_PART: u64 = 4096;

/// The partition bits for a table expected to hold `states`.
pub(super) fn part_bits(states: u64) -> u32 {
    (states / STATES_PER_PART)
        .next_power_of_two()
        .trailing_zeros()
        .min(max_part_bits())
}
/// Entries a worker gathers for one partition before taking its lock.
pub(super) const BATCH: usize = 64;

/// The most batches a worker holds for one partition while another worker holds its lock,
/// before it waits for it.
pub(super) const HELD: usize = 8;

/// The smallest partition.
pub(super) const MIN_CAP: usize = 16;

/// One partition: entries of the key's bytes followed by its count's words side by side (one
/// cache line holds both, so an insert costs one miss), linear probing, at most 4/5 full. Its
/// size is any number of entries (a key's place is its hash scaled to the size, not masked), so
/// a table sized for the layer to come is not rounded up to twice that.
#[derive(Clone, Debug)]
pub(crate) struct Part<K: Key> {
    pub(super) data: Vec<u8>,
    /// Entries it has room for.
    pub(super) cap: usize,
    pub(super) len: usize,
    pub(super) _key: PhantomData<K>,
}

/// The first byte of an empty entry. No key starts with it: slot 0 holds a label only as the
/// first one, `3`, so a key's first byte (slots 0 and 1) is at most `0x43`.
pub(crate) const EMPTY: u8 = 0xFF;

/// Entries whose place is fetched ahead of their insert (misses overlap instead of queueing).
pub(super) const AHEAD: usize = 16;

/// Adds the words of `src` to the little-endian words at `dst`; true when a carry leaves the
/// top word.
#[inline]
pub(super) fn add_into(dst: &mut [u8], src: &[u64]) -> bool {
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if let [s] = src {
        let (x, carry) = word(&dst[..8]).overflowing_add(*s);
        dst[..8].copy_from_slice(&x.to_le_bytes());
        return carry;
    }
    let mut carry = false;
    for (d, s) in dst.chunks_exact_mut(8).zip(src) {
        let (x, c1) = word(d).overflowing_add(*s);
        let (y, c2) = x.overflowing_add(u64::from(carry));
        d.copy_from_slice(&y.to_le_bytes());
        carry = c1 || c2;
    }
    carry
}

/// Where a key goes among `1 << bits` partitions whose hash bits begin `skip` bits from the
/// top: its partition and the hash it probes with.
#[inline]
pub(super) fn place<K: Key>(key: K, skip: u32, bits: u32) -> (usize, u64) {
    let h = key.hash64();
    (bits_of(h, skip, bits), h)
}

/// The `bits` bits of a hash `skip` bits from its top (0 where `bits` is 0). A partition's
/// states share the bits above it, so a table made of one partition's states (see
/// [`Builder::finish_node`]) partitions them by the bits below.
#[inline]
pub(crate) fn bits_of(h: u64, skip: u32, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        ((h << skip) >> (64 - bits)) as usize
    }
}

/// Bytes of a cache line (x86-64's and most ARM processors').
const LINE: usize = 64;

/// Asks the processor to bring the cache line of `byte` in (a hint: nothing else happens).
#[inline]
pub(crate) fn prefetch<T>(byte: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing and faults on no address (and
    // the address is a live reference). The block is needed on Rust before 1.87 only.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

impl<K: Key> Part<K> {
    /// Emptied for reuse, if its size suits `cap` entries of `shape`.
    pub(super) fn reused(mut self, cap: usize, shape: Shape) -> Option<Part<K>> {
        let want = cap.max(MIN_CAP);
        let fits = self.data.len() == self.cap * shape.stride()
            && self.cap >= want
            && self.cap <= want * 2;
        fits.then(|| {
            self.data.fill(EMPTY);
            self.len = 0;
            self
        })
    }

    pub(super) fn with_capacity(cap: usize, shape: Shape) -> Part<K> {
        let cap = cap.max(MIN_CAP);
        debug_assert!(
            cap <= 1 << 32,
            "a place is the low 32 bits of a hash, scaled"
        );
        Part {
            // a count is written with its key, so the filler is only read as a first byte
            data: vec![EMPTY; cap * shape.stride()],
            cap,
            len: 0,
            _key: PhantomData,
        }
    }

    pub(super) fn bytes(&self) -> u64 {
        self.data.len() as u64
    }

    /// Emptied, keeping its memory.
    pub(super) fn clear(&mut self) {
        self.data.fill(EMPTY);
        self.len = 0;
    }

    /// Its entries' raw bytes, a run of whole entries at a time (at most about `max` bytes),
    /// into `f` with their number, until `f` fails.
    pub(super) fn raw_runs<E>(
        &self,
        shape: Shape,
        max: usize,
        mut f: impl FnMut(&[u8], u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let stride = shape.stride();
        let mut buf = Vec::with_capacity(max.min(self.len * stride).max(stride));
        let mut n = 0;
        for e in self.data.chunks_exact(stride) {
            if e[0] == EMPTY {
                continue;
            }
            buf.extend_from_slice(e);
            n += 1;
            if buf.len() + stride > max {
                f(&buf, n)?;
                buf.clear();
                n = 0;
            }
        }
        if n > 0 {
            f(&buf, n)?;
        }
        Ok(())
    }

    /// The entry where a key of hash `h` starts probing: the hash's low 32 bits scaled to the
    /// size (its high bits chose the partition).
    #[inline]
    pub(super) fn home(&self, h: u64) -> usize {
        (((h & 0xFFFF_FFFF) * self.cap as u64) >> 32) as usize
    }

    /// Brings in the entry where a key of hash `h` starts probing, and the cache line after
    /// it (an entry that crosses a line, or the probes past its home).
    #[inline]
    pub(super) fn prefetch(&self, h: u64, shape: Shape) {
        let at = self.home(h) * shape.stride();
        prefetch(&self.data[at]);
        if let Some(next) = self.data.get(at + LINE) {
            prefetch(next);
        }
    }

    /// Where `key` (of hash `h`) is, `Ok`, or the empty entry where it would go, `Err`: linear
    /// probing from its home.
    #[inline]
    pub(super) fn probe(&self, key: K, h: u64, shape: Shape) -> Result<usize, usize> {
        let stride = shape.stride();
        let mut i = self.home(h);
        loop {
            let e = &self.data[i * stride..(i + 1) * stride];
            if e[0] == EMPTY {
                return Err(i);
            }
            if K::read(e, shape.key) == key {
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
    pub(super) fn add(&mut self, key: K, h: u64, count: &[u64], shape: Shape) -> Result<(), ()> {
        let stride = shape.stride();
        match self.probe(key, h, shape) {
            Ok(i) => {
                let e = &mut self.data[i * stride + shape.key..(i + 1) * stride];
                if add_into(e, count) { Err(()) } else { Ok(()) }
            }
            Err(i) => {
                let e = &mut self.data[i * stride..(i + 1) * stride];
                // the key's whole type is written, then its count over the bytes past the key's
                key.write(e);
                debug_assert_ne!(e[0], EMPTY, "a state's first byte is never the empty mark");
                for (d, c) in e[shape.key..].chunks_exact_mut(8).zip(count) {
                    d.copy_from_slice(&c.to_le_bytes());
                }
                self.len += 1;
                Ok(())
            }
        }
    }

    /// Whether `extra` more keys would fill it past 4/5.
    pub(super) fn needs_room(&self, extra: usize) -> bool {
        (self.len + extra) * 5 > self.cap * 4
    }

    /// The same entries in a table twice the size.
    pub(super) fn grown(&self, shape: Shape) -> Part<K> {
        let mut p = Part::with_capacity(self.cap * 2, shape);
        let mut buf = vec![0u64; shape.limbs];
        for (k, c) in self.iter(shape) {
            for (b, w) in buf.iter_mut().zip(c.words()) {
                *b = w;
            }
            p.add(k, k.hash64(), &buf, shape)
                .expect("moving a count cannot overflow");
        }
        p
    }

    pub(super) fn iter(&self, shape: Shape) -> impl Iterator<Item = (K, Limbs<'_>)> + '_ {
        self.slots(shape).map(|(_, k, c)| (k, c))
    }

    /// The entries with their places.
    pub(super) fn slots(&self, shape: Shape) -> impl Iterator<Item = (usize, K, Limbs<'_>)> + '_ {
        self.data
            .chunks_exact(shape.stride())
            .enumerate()
            .filter(|(_, e)| e[0] != EMPTY)
            .map(move |(i, e)| (i, K::read(e, shape.key), Limbs::of(&e[shape.key..])))
    }

    /// The entry at place `i` (one [`Part::slots`] gave).
    pub(super) fn at(&self, i: usize, shape: Shape) -> (K, Limbs<'_>) {
        let stride = shape.stride();
        let e = &self.data[i * stride..(i + 1) * stride];
        debug_assert_ne!(e[0], EMPTY);
        (K::read(e, shape.key), Limbs::of(&e[shape.key..]))
    }

    #[cfg(test)]
    pub(super) fn get(&self, key: K, h: u64, shape: Shape) -> Option<Limbs<'_>> {
        let stride = shape.stride();
        let i = self.probe(key, h, shape).ok()?;
        Some(Limbs::of(
            &self.data[i * stride + shape.key..(i + 1) * stride],
        ))
    }
}

/// A finished layer: read-only, iterated by partition, looked up by key.
#[derive(Clone, Debug)]
pub(crate) struct Layer<K: Key> {
    pub(super) parts: Vec<Part<K>>,
    pub(super) bits: u32,
    /// Hash bits above the partitions' (see [`bits_of`]).
    pub(super) skip: u32,
    pub(super) shape: Shape,
}

impl<K: Key> Layer<K> {
    /// A layer holding one state with count 1, of keys of `key_bytes` bytes.
    pub(crate) fn single(key: K, key_bytes: usize, limbs: usize) -> Layer<K> {
        let mut l = Layer::empty(Shape {
            key: key_bytes,
            limbs,
        });
        let mut one = vec![0; limbs];
        one[0] = 1;
        l.insert(key, &one);
        l
    }

    pub(crate) fn empty(shape: Shape) -> Layer<K> {
        Layer::with_parts(0, shape)
    }

    /// An empty layer of `1 << bits` partitions.
    pub(crate) fn with_parts(bits: u32, shape: Shape) -> Layer<K> {
        Layer {
            parts: (0..1 << bits)
                .map(|_| Part::with_capacity(0, shape))
                .collect(),
            bits,
            skip: 0,
            shape,
        }
    }

    /// Adds `count` to `key` (single-threaded building, e.g. reading a checkpoint).
    pub(crate) fn insert(&mut self, key: K, count: &[u64]) -> bool {
        let (p, h) = place(key, self.skip, self.bits);
        if self.parts[p].needs_room(1) {
            self.parts[p] = self.parts[p].grown(self.shape);
        }
        self.parts[p].add(key, h, count, self.shape).is_ok()
    }

    pub(crate) fn limbs(&self) -> usize {
        self.shape.limbs
    }

    /// What its entries are made of.
    pub(crate) fn shape(&self) -> Shape {
        self.shape
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

    /// The number of states of partition `p`.
    pub(crate) fn part_len(&self, p: usize) -> usize {
        self.parts[p].len
    }

    /// The states of partition `p`.
    pub(crate) fn part(&self, p: usize) -> impl Iterator<Item = (K, Limbs<'_>)> {
        self.parts[p].iter(self.shape)
    }

    /// The states of partition `p` with their places in it, for [`Layer::at`].
    pub(crate) fn part_slots(&self, p: usize) -> impl Iterator<Item = (usize, K, Limbs<'_>)> {
        self.parts[p].slots(self.shape)
    }

    /// The state at place `i` of partition `p`.
    pub(crate) fn at(&self, p: usize, i: usize) -> (K, Limbs<'_>) {
        self.parts[p].at(i, self.shape)
    }

    /// Every state and its count.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, Limbs<'_>)> {
        self.parts.iter().flat_map(|p| p.iter(self.shape))
    }

    #[cfg(test)]
    pub(crate) fn get(&self, key: K) -> Option<Limbs<'_>> {
        let (p, h) = place(key, self.skip, self.bits);
        self.parts[p].get(key, h, self.shape)
    }

    /// The same states with counts of `limbs` words (more than now).
    #[cfg(test)]
    pub(crate) fn widened(&self, limbs: usize) -> Layer<K> {
        debug_assert!(limbs >= self.shape.limbs);
        let mut out = Layer::with_parts(self.bits, self.shape.with_limbs(limbs));
        out.skip = self.skip;
        let mut buf = vec![0; limbs];
        for (k, c) in self.iter() {
            buf.fill(0);
            for (b, w) in buf.iter_mut().zip(c.words()) {
                *b = w;
            }
            out.insert(k, &buf);
        }
        out
    }
}

/// A layer of states: a table in memory, or a file beside the count.
pub(crate) enum Node<K: Key> {
    Mem(Layer<K>),
    Disk(Arc<Spill<K>>),
}

impl<K: Key> Clone for Node<K> {
    /// A copy in memory, or the same file shared (it is never written again).
    fn clone(&self) -> Node<K> {
        match self {
            Node::Mem(l) => Node::Mem(l.clone()),
            Node::Disk(s) => Node::Disk(Arc::clone(s)),
        }
    }
}

impl<K: Key> Node<K> {
    pub(crate) fn len(&self) -> u64 {
        self.src().len()
    }

    /// Bytes it holds in memory.
    pub(crate) fn bytes(&self) -> u64 {
        self.src().bytes()
    }

    /// Its states as a step reads them.
    pub(crate) fn src(&self) -> Src<'_, K> {
        match self {
            Node::Mem(l) => Src::Mem(l),
            Node::Disk(s) => Src::Disk(s),
        }
    }
}

/// A layer's states as a step reads them: a table in memory or a file.
#[derive(Clone, Copy)]
pub(crate) enum Src<'a, K: Key> {
    Mem(&'a Layer<K>),
    Disk(&'a Arc<Spill<K>>),
}

impl<K: Key> Src<'_, K> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Src::Mem(l) => l.len(),
            Src::Disk(s) => s.len,
        }
    }

    /// Bytes it holds in memory.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Src::Mem(l) => l.bytes(),
            Src::Disk(_) => 0,
        }
    }

    pub(crate) fn shape(&self) -> Shape {
        match self {
            Src::Mem(l) => l.shape(),
            Src::Disk(s) => s.shape,
        }
    }

    /// Calls `each` on every state and its count, on all threads: each task starts with
    /// `init()`, and hands its value to `end` when done. `stop()` is asked between runs of
    /// states; a task stops where it says so. Err where the file could not be read back whole
    /// (a task may have seen part of it).
    pub(crate) fn par_each<T>(
        &self,
        stop: &(impl Fn() -> bool + Sync),
        init: &(impl Fn() -> T + Sync),
        each: &(impl Fn(&mut T, K, Limbs<'_>) + Sync),
        end: &(impl Fn(T) + Sync),
    ) -> Result<(), DiskError> {
        match *self {
            Src::Mem(layer) => {
                part_chunks(layer.part_count()).for_each(|chunk| {
                    let mut t = init();
                    for p in chunk {
                        if stop() {
                            break;
                        }
                        for (key, count) in layer.part(p) {
                            each(&mut t, key, count);
                        }
                    }
                    end(t);
                });
                Ok(())
            }
            Src::Disk(spill) => {
                let stride = spill.shape.stride();
                spill.chunks(|bytes| {
                    let per = (bytes.len() / stride / (rayon::current_num_threads() * 4)).max(1);
                    bytes.par_chunks(per * stride).for_each(|part| {
                        let mut t = init();
                        // a part of a file chunk is large: the flag every partition's worth
                        for run in part.chunks(4096 * stride) {
                            if stop() {
                                break;
                            }
                            for (key, count) in entries::<K>(run, spill.shape) {
                                each(&mut t, key, count);
                            }
                        }
                        end(t);
                    });
                })
            }
        }
    }

    /// Calls `f` on every state and its count, in order, on this thread.
    pub(crate) fn each(&self, mut f: impl FnMut(K, Limbs<'_>)) -> Result<(), DiskError> {
        match *self {
            Src::Mem(layer) => {
                for (k, c) in layer.iter() {
                    f(k, c);
                }
                Ok(())
            }
            Src::Disk(spill) => spill.chunks(|bytes| {
                for (k, c) in entries::<K>(bytes, spill.shape) {
                    f(k, c);
                }
            }),
        }
    }

    /// A node of the same states: a copy in memory, or the same file.
    pub(crate) fn to_node(self) -> Node<K> {
        match self {
            Src::Mem(l) => Node::Mem(l.clone()),
            Src::Disk(s) => Node::Disk(Arc::clone(s)),
        }
    }
}

/// The partitions of a layer of `parts` dealt out for a step: a few chunks a thread, each with
/// its own batches, for balance, and each chunk a task of its own (left to itself, the pool ran
/// a quarter of them as one task, and a thread that started one late left the other idle at
/// the step's end).
pub(crate) fn part_chunks(parts: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    let chunk = (parts / (rayon::current_num_threads() * 8)).clamp(1, parts);
    (0..parts.div_ceil(chunk))
        .into_par_iter()
        .with_max_len(1)
        .map(move |c| c * chunk..((c + 1) * chunk).min(parts))
}

impl<K: Key> Layer<K> {
    /// Writes its states to a new file in `scratch`.
    pub(crate) fn spill(&self, scratch: &Scratch) -> Result<Spill<K>, DiskError> {
        let mut out = SpillWriter::new(scratch, self.shape)?;
        for part in &self.parts {
            part.raw_runs(self.shape, RUN_WRITE, |bytes, n| out.push(bytes, n))?;
        }
        out.finish()
    }
}

/// Why a layer could not be finished.
#[derive(Clone, Debug)]
pub(crate) enum Stopped {
    /// A count needs more words.
    Overflow,
    /// The tables would pass the memory bound; the bytes they had reached.
    Memory(u64),
    /// The stop flag was set.
    Interrupted,
    /// A part of the count kept on disk could not be written or read back.
    Disk(DiskError),
}

/// The memory a layer being filled may take: its tables' own share (the bound less what the
/// count keeps beside them), and the whole process's resident size, checked before each
/// allocation of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The most bytes this table and the layer being read may hold.
    pub(crate) tables: u64,
    /// The most bytes the process may hold resident (`--max-memory`).
    pub(crate) process: u64,
}

impl Bound {
    /// One bound for both.
    pub(crate) const fn new(bytes: u64) -> Bound {
        Bound {
            tables: bytes,
            process: bytes,
        }
    }

    /// No bound.
    #[cfg(test)]
    pub(crate) const NONE: Bound = Bound::new(u64::MAX);
}

/// A number from little-endian 64-bit words.
pub(crate) fn big_words(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

/// Bytes of entries written to a partition's runs at a time.
pub(super) const RUN_WRITE: usize = 256 << 10;

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Shape = Shape { key: 8, limbs: 1 };

    /// Test keys: any value whose first byte is not the empty mark (states never start with it).
    fn key(i: u64) -> u64 {
        i << 8
    }

    fn limbs(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn a_layer_written_to_disk_is_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let mut l = Layer::<u64>::empty(ONE);
        for i in 1..=1000 {
            l.insert(key(i), &[i]);
        }
        let s = std::sync::Arc::new(l.spill(&scratch).unwrap());
        assert_eq!(s.len, 1000);
        let mut back = Layer::<u64>::empty(ONE);
        Src::Disk(&s)
            .each(|k, c| {
                back.insert(k, &[c.get(0)]);
            })
            .unwrap();
        assert_eq!(back.len(), 1000);
        assert_eq!(back.get(key(77)).unwrap().single(), Some(77));
    }

    #[test]
    fn limbs_carry_and_report_overflow() {
        let mut a = limbs(&[u64::MAX, 0]);
        assert!(!add_into(&mut a, &[1, 0]));
        assert_eq!(Limbs::of(&a).words().collect::<Vec<_>>(), [0, 1]);
        let mut b = limbs(&[u64::MAX]);
        assert!(add_into(&mut b, &[1]));
        let mut c = limbs(&[u64::MAX, u64::MAX]);
        assert!(add_into(&mut c, &[1, 0]));
    }

    #[test]
    fn keys_take_the_bytes_their_window_needs() {
        // 18 slots in 9 bytes: a key with its top slot set reads back whole, next to its count
        let shape = Shape { key: 9, limbs: 1 };
        let mut l = Layer::<u128>::empty(shape);
        let k = (0xAu128 << 68) | 0x43;
        l.insert(k, &[5]);
        l.insert(k, &[6]);
        assert_eq!(l.get(k).unwrap().single(), Some(11));
        assert_eq!(l.iter().map(|(k, _)| k).collect::<Vec<_>>(), [k]);
        assert_eq!(shape.stride(), 17);
        assert_eq!(l.bytes() % 17, 0);
    }

    #[test]
    fn batches_from_many_threads_sum_exactly() {
        let b: Builder<u64> = Builder::new(0, ONE, 0, Bound::NONE, None);
        (0..8u64).into_par_iter().for_each(|t| {
            let mut batch = Batch::new(&b);
            let c = limbs(&[t + 1]);
            for i in 0..10_000u64 {
                batch.push(key(i % 3000), Limbs::of(&c));
            }
        });
        let layer = b.finish().unwrap();
        assert_eq!(layer.len(), 3000);
        // key i appears 10000/3000 rounded up or down times per thread; every thread adds t+1
        let total: u64 = layer.iter().map(|(_, c)| c.get(0)).sum();
        assert_eq!(total, 10_000 * (1..=8).sum::<u64>());
        assert_eq!(layer.get(key(5)).unwrap().get(0), 4 * 36);
        assert!(layer.get(key(3000)).is_none());
    }

    #[test]
    fn a_batch_larger_than_a_small_partition_grows_it_enough() {
        let b: Builder<u64> = Builder::new(0, ONE, 0, Bound::NONE, None);
        b.flush(
            0,
            &(0..BATCH as u64 * 4).map(key).collect::<Vec<_>>(),
            &[1; BATCH * 4],
        );
        assert_eq!(b.finish().unwrap().len(), BATCH as u64 * 4);
    }

    #[test]
    fn overflow_and_the_memory_bound_stop_a_layer() {
        let b: Builder<u64> = Builder::new(0, ONE, 0, Bound::NONE, None);
        {
            let mut batch = Batch::new(&b);
            let (max, one) = (limbs(&[u64::MAX]), limbs(&[1]));
            batch.push(key(7), Limbs::of(&max));
            batch.push(key(7), Limbs::of(&one));
        }
        assert!(matches!(b.finish().err(), Some(Stopped::Overflow)));
        let b: Builder<u64> = Builder::new(
            0,
            ONE,
            0,
            Bound {
                tables: 200_000,
                process: u64::MAX,
            },
            None,
        );
        {
            let mut batch = Batch::new(&b);
            let one = limbs(&[1]);
            for i in 0..100_000u64 {
                batch.push(key(i), Limbs::of(&one));
            }
        }
        assert!(matches!(b.finish(), Err(Stopped::Memory(_))));
        let wide = Layer::<u64>::single(key(9), 8, 1).widened(3);
        assert_eq!(
            wide.get(key(9)).unwrap().words().collect::<Vec<_>>(),
            [1, 0, 0]
        );
    }

    /// A worker whose partition another holds keeps its batch and goes on, up to `HELD`
    /// batches, then waits: no entry is lost or counted twice either way.
    #[test]
    fn a_batch_whose_partition_is_held_waits_in_the_worker_not_at_the_lock() {
        let b: Builder<u64> = Builder::new(0, ONE, 0, Bound::NONE, None);
        assert_eq!(
            b.parts.len(),
            1,
            "one partition: every key meets the held lock"
        );
        let one = limbs(&[1]);
        let mut batch = Batch::new(&b);
        let n = (HELD * BATCH) as u64;
        {
            let _held = b.parts[0].lock().unwrap();
            // every key twice: the batch holds both, the table sees neither yet
            for i in 0..n - 1 {
                batch.push(key(i / 2 + 1), Limbs::of(&one));
            }
            assert_eq!(batch.keys[0].len(), HELD * BATCH - 1);
            assert_eq!(b.parts[0].try_lock().map(|p| p.len).ok(), None);
        }
        assert_eq!(b.parts[0].lock().unwrap().len, 0);
        // the lock free again: the next full batch goes in at once
        batch.push(key(n / 2), Limbs::of(&one));
        assert!(batch.keys[0].is_empty());
        assert_eq!(b.parts[0].lock().unwrap().len, (n / 2) as usize);
        drop(batch);
        let l = b.finish().unwrap();
        assert_eq!(l.len(), n / 2);
        for i in 1..=n / 2 {
            assert_eq!(l.get(key(i)).unwrap().single(), Some(2), "key {i}");
        }
    }

    /// Counts past 2^64 on the 8-wide engine's tables (u128 keys of 9 bytes, two limbs): sums
    /// from many threads carry into the high limb exactly, a layer widened from one limb keeps
    /// its counts, and the sums go through disk and back to big integers unchanged.
    #[test]
    fn eight_wide_counts_past_two_to_the_64_add_exactly() {
        let shape = Shape { key: 9, limbs: 2 };
        // keys with slots set in the ninth byte, as an 18-slot window's are
        let key = |i: u64| (0xAu128 << 68) | (u128::from(i) << 8);
        let b: Builder<u128> = Builder::new(0, shape, 0, Bound::NONE, None);
        (0..8u64).into_par_iter().for_each(|t| {
            let mut batch = Batch::new(&b);
            let c = limbs(&[u64::MAX - t, t]);
            for i in 0..1000u64 {
                batch.push(key(i % 10), Limbs::of(&c));
            }
        });
        let layer = b.finish().unwrap();
        assert_eq!(layer.len(), 10);
        // each key gets 100 pushes from each thread t, of (2^64 - 1 - t) + t * 2^64
        let want: u128 = (0..8u128)
            .map(|t| 100 * ((u128::from(u64::MAX) - t) + (t << 64)))
            .sum();
        let got = |l: &Layer<u128>, k: u128| {
            let w: Vec<u64> = l.get(k).unwrap().words().collect();
            u128::from(w[0]) | u128::from(w[1]) << 64
        };
        assert!(want > u128::from(u64::MAX) * 100);
        for i in 0..10 {
            assert_eq!(got(&layer, key(i)), want, "key {i}");
        }
        // a one-limb layer widened to two keeps its counts and carries past 2^64 after
        let mut one = Layer::<u128>::empty(Shape { key: 9, limbs: 1 });
        one.insert(key(3), &[u64::MAX]);
        let mut two = one.widened(2);
        two.insert(key(3), &[1, 0]);
        assert_eq!(got(&two, key(3)), 1u128 << 64);
        // through disk and to a big integer
        let dir = tempfile::tempdir().unwrap();
        let spilled = layer
            .spill(&Scratch::new(dir.path().to_path_buf()))
            .unwrap();
        let mut sum = BigUint::ZERO;
        Src::Disk(&std::sync::Arc::new(spilled))
            .each(|_, c| sum += big_words(&c.words().collect::<Vec<_>>()))
            .unwrap();
        assert_eq!(sum, BigUint::from(want) * 10u32);
    }
}
