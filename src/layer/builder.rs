//! A layer being filled by many threads ([`Builder`]): each worker's entries batched by
//! partition ([`Batch`]), each partition an open-addressing table, and past its share of the
//! memory bound written to disk as runs and combined when the layer is done.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use num_bigint::BigUint;
use rayon::prelude::*;

use super::spill::{Runs, SpillWriter, entries};
use crate::disk::scratch::Scratch;
use crate::durable::DiskError;
use crate::walk::entry::{Limbs, Shape};
use crate::walk::state::Key;

use super::*;

/// A layer being filled by many threads.
pub(crate) struct Builder<K: Key> {
    pub(super) parts: Vec<Mutex<Part<K>>>,
    pub(super) bits: u32,
    /// Hash bits above the partitions' (see [`bits_of`]).
    pub(super) skip: u32,
    pub(super) shape: Shape,
    pub(super) bytes: AtomicU64,
    /// Bytes held besides this table (the layer being read).
    pub(super) other: u64,
    pub(super) bound: Bound,
    pub(super) overflow: AtomicBool,
    pub(super) memory: AtomicBool,
    /// The resident size an allocation refused for the bound would have brought the process to.
    pub(super) needed: AtomicU64,
    /// Where partitions that fill their share of the bound go, for a table that goes to disk
    /// rather than stop (see `spill.rs`): each partition's runs, under its own lock's turn.
    pub(super) spill: Option<Spilling>,
}

/// A table's way to disk: the folder, and each partition's file of runs.
pub(super) struct Spilling {
    pub(super) scratch: Scratch,
    pub(super) runs: Vec<Mutex<Option<Runs>>>,
    /// A file could not be written: the workers stop, and the layer fails.
    pub(super) failed: AtomicBool,
    /// Why, the first failure.
    pub(super) error: Mutex<Option<DiskError>>,
}

impl Spilling {
    /// Keeps `e` as the reason the layer fails, where it is the first.
    pub(super) fn fail(&self, e: DiskError) {
        let mut first = self
            .error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        first.get_or_insert(e);
        self.failed.store(true, Ordering::Relaxed);
    }
}

/// The smallest partition the process's resident size sends to disk (smaller ones grow: a
/// bound the process's own memory nearly fills would otherwise write runs of a few states).
/// Partitions of a table under a small bound are small (512 of them): at 256 KiB none was
/// ever checked, and 6x10 open under 64M was resident in 70 MiB on one thread, 64 at 32 KiB
/// (7x7 open, unbounded, reads the resident size 8,600 times so: about 40 ms of its 13 s).
pub(super) const RESIDENT_SPILL: u64 = 32 << 10;

/// The smallest partition that goes to disk (or a 64th of the table's share, where that is
/// less): a smaller one grows past the share instead (a run of a few states costs a file's
/// opening, writing and closing).
pub(super) const MIN_RUN: u64 = 16 << 10;

impl<K: Key> Builder<K> {
    /// An empty table of entries of `shape` expecting about `expect` states, in the memory of
    /// `spare` where its partitions suit.
    pub(crate) fn new(
        expect: u64,
        shape: Shape,
        other: u64,
        bound: Bound,
        spare: Option<Layer<K>>,
    ) -> Builder<K> {
        Builder::make(expect, shape, other, bound, spare, None, 0)
    }

    /// [`Builder::new`] for a table that, past its share of the bound (`bound.tables` less
    /// `other`), writes its partitions to files in `scratch` and goes on in the memory they
    /// held, instead of failing: it never stops for memory, and whether it goes to disk
    /// depends on the states and the bound (the process's resident size, read only for large
    /// partitions, moves where). [`Builder::finish_node`] gives the layer.
    pub(crate) fn spilling(
        expect: u64,
        shape: Shape,
        other: u64,
        bound: Bound,
        spare: Option<Layer<K>>,
        scratch: Scratch,
    ) -> Builder<K> {
        Builder::make(expect, shape, other, bound, spare, Some(scratch), 0)
    }

    pub(super) fn make(
        expect: u64,
        shape: Shape,
        other: u64,
        bound: Bound,
        spare: Option<Layer<K>>,
        scratch: Option<Scratch>,
        skip: u32,
    ) -> Builder<K> {
        // partitions for a layer a few times larger (layers grow step by step), each sized for
        // its share of `expect` at 7/10 full (it grows past 4/5)
        let bits = part_bits(expect * 4);
        let mut per = (expect as usize >> bits) * 10 / 7 + MIN_CAP;
        // where the table would pass the process's bound, it starts small and each partition's
        // growth is checked as states come. The spare layer's memory is not counted as room: a
        // part too small to reuse stays with the allocator, resident, while a fresh one is made
        let planned = (per << bits) as u64 * shape.stride() as u64;
        let room = bound.tables.saturating_sub(other);
        let fits = match scratch {
            // a table that goes to disk counts its own bytes only
            Some(_) => planned <= room,
            None => crate::memory::fits(bound.process, planned),
        };
        if !fits {
            per = match scratch {
                // a half of its share to start with: the rest to grow in
                Some(_) => ((room / 2 / shape.stride() as u64) as usize >> bits).max(MIN_CAP),
                None => MIN_CAP,
            };
        }
        // the partitions are filled with the empty mark (and their pages touched) by all the
        // threads, not by one while the others wait (this, with one task a chunk in the steps,
        // kept 1.90 of two cores busy on 7x8 open instead of 1.87: `results/frontier.md`)
        let mut olds: Vec<Option<Part<K>>> = spare
            .map(|l| l.parts.into_iter().map(Some).collect())
            .unwrap_or_default();
        olds.truncate(1 << bits);
        olds.resize_with(1 << bits, || None);
        let parts: Vec<Mutex<Part<K>>> = olds
            .into_par_iter()
            .map(|old| {
                Mutex::new(
                    old.and_then(|p| p.reused(per, shape))
                        .unwrap_or_else(|| Part::with_capacity(per, shape)),
                )
            })
            .collect();
        let bytes = parts.iter().map(|p| p.lock().expect("new").bytes()).sum();
        let spill = scratch.map(|scratch| Spilling {
            scratch,
            runs: (0..parts.len()).map(|_| Mutex::new(None)).collect(),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
        });
        Builder {
            parts,
            bits,
            skip,
            shape,
            bytes: AtomicU64::new(bytes),
            other,
            bound,
            overflow: AtomicBool::new(false),
            memory: AtomicBool::new(spill.is_none() && bytes + other > bound.tables),
            needed: AtomicU64::new(0),
            spill,
        }
    }

    /// Bytes of this table and the one being read.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed) + self.other
    }

    /// Whether a sum passed the words of the table's counts (see [`Stopped::Overflow`]).
    pub(crate) fn overflowed(&self) -> bool {
        self.overflow.load(Ordering::Relaxed)
    }

    /// The words of the table's counts.
    pub(crate) fn limbs(&self) -> usize {
        self.shape.limbs
    }

    /// Whether filling has failed (overflow, memory or disk): workers stop early.
    pub(crate) fn failed(&self) -> bool {
        self.overflow.load(Ordering::Relaxed)
            || self.memory.load(Ordering::Relaxed)
            || self
                .spill
                .as_ref()
                .is_some_and(|s| s.failed.load(Ordering::Relaxed))
    }

    /// Whether some partition went to disk.
    pub(crate) fn spilled(&self) -> bool {
        self.spill.as_ref().is_some_and(|s| {
            s.runs
                .iter()
                .any(|r| r.lock().expect("no panic holding it").is_some())
        })
    }

    /// Writes partition `p` (held) to its runs and empties it; false where the file failed.
    pub(super) fn spill_part(&self, p: usize, part: &mut Part<K>) -> bool {
        let Some(sp) = &self.spill else {
            return false;
        };
        let mut held = sp.runs[p].lock().expect("no panic holding it");
        if held.is_none() {
            match Runs::new(&sp.scratch, self.shape.stride()) {
                Ok(r) => *held = Some(r),
                Err(e) => {
                    sp.fail(e);
                    return false;
                }
            }
        }
        let runs = held.as_mut().expect("made above");
        if let Err(e) = part.raw_runs(self.shape, RUN_WRITE, |bytes, _| runs.append(bytes)) {
            sp.fail(e);
            return false;
        }
        part.clear();
        true
    }

    /// Adds a batch of entries to partition `p`, waiting for its lock.
    pub(super) fn flush(&self, p: usize, keys: &[K], counts: &[u64]) {
        if keys.is_empty() || self.failed() {
            return;
        }
        let part = self.parts[p]
            .lock()
            .expect("no worker panics holding a lock");
        self.flush_into(part, p, keys, counts);
    }

    /// [`Builder::flush`] where partition `p`'s lock is free; false (nothing added) where
    /// another worker holds it.
    pub(super) fn try_flush(&self, p: usize, keys: &[K], counts: &[u64]) -> bool {
        if keys.is_empty() || self.failed() {
            return true;
        }
        let part = match self.parts[p].try_lock() {
            Ok(part) => part,
            Err(TryLockError::WouldBlock) => return false,
            Err(TryLockError::Poisoned(_)) => panic!("no worker panics holding a lock"),
        };
        self.flush_into(part, p, keys, counts);
        true
    }

    /// Adds a batch of entries to partition `p`, whose lock is `part`.
    fn flush_into(&self, mut part: MutexGuard<'_, Part<K>>, p: usize, keys: &[K], counts: &[u64]) {
        let shape = self.shape;
        let limbs = shape.limbs;
        while part.needs_room(keys.len()) {
            // the grown partition is allocated while the old one is still held: checked first
            let size = part.bytes() * 2;
            if self.spill.is_some() {
                // past the table's share, a partition with states goes to disk and is filled
                // again in its own memory (an empty one grows: a batch larger than it). The
                // process's resident size (the allocator's slack, what the count holds beside
                // its tables) sends a partition of some size to disk too: where a table goes
                // then depends on the moment, but never the count or whether it ends
                let now = self.bytes.load(Ordering::Relaxed) + self.other;
                let over = now + size / 2 > self.bound.tables
                    || (part.bytes() >= RESIDENT_SPILL
                        && !crate::memory::fits(self.bound.process, size));
                let least = MIN_RUN.min(self.bound.tables / 64);
                if part.len > 0 && part.bytes() >= least && over {
                    if !self.spill_part(p, &mut part) {
                        return;
                    }
                    continue;
                }
            } else if !crate::memory::fits(self.bound.process, size) {
                let at = crate::memory::needed(self.bound.process, size);
                // Relaxed: figures for the report; the flag only asks workers to stop
                self.needed.fetch_max(at, Ordering::Relaxed);
                self.memory.store(true, Ordering::Relaxed);
                return;
            }
            let grown = part.grown(shape);
            let delta = grown.bytes() - part.bytes();
            // Relaxed: a byte count for the bound and the report; the lock orders the table
            let now = self.bytes.fetch_add(delta, Ordering::Relaxed) + delta;
            if self.spill.is_none() && now + self.other > self.bound.tables {
                self.memory.store(true, Ordering::Relaxed);
                return;
            }
            *part = grown;
        }
        // each key's hash once, for its fetch ahead and its insert
        let mut hashes = [0u64; BATCH];
        for (keys, counts) in keys.chunks(BATCH).zip(counts.chunks(BATCH * limbs)) {
            for (h, k) in hashes.iter_mut().zip(keys) {
                *h = k.hash64();
            }
            let hashes = &hashes[..keys.len()];
            for &h in &hashes[..keys.len().min(AHEAD)] {
                part.prefetch(h, shape);
            }
            for (i, &k) in keys.iter().enumerate() {
                if let Some(&ahead) = hashes.get(i + AHEAD) {
                    part.prefetch(ahead, shape);
                }
                if part
                    .add(k, hashes[i], &counts[i * limbs..(i + 1) * limbs], shape)
                    .is_err()
                {
                    self.overflow.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// The finished layer, or why it failed.
    pub(crate) fn finish(self) -> Result<Layer<K>, Stopped> {
        match self.finish_node()? {
            Node::Mem(l) => Ok(l),
            Node::Disk(_) => unreachable!("finish is asked of tables that never go to disk"),
        }
    }

    /// The finished layer, in memory or, where partitions went to disk, in a file: the
    /// partitions kept in memory are written as they are, each partition that went to disk has
    /// its runs combined (in memory, a part of its states at a time where they are many) and
    /// written after them. Or why it failed.
    pub(crate) fn finish_node(self) -> Result<Node<K>, Stopped> {
        if self.overflow.load(Ordering::Relaxed) {
            return Err(Stopped::Overflow);
        }
        if self.memory.load(Ordering::Relaxed) {
            let needed = self.needed.load(Ordering::Relaxed);
            return Err(Stopped::Memory(self.bytes().max(needed)));
        }
        let spilled = self.spilled();
        let Builder {
            parts,
            bits,
            skip,
            shape,
            other,
            bound,
            spill,
            ..
        } = self;
        let parts = parts
            .into_iter()
            .map(|m| m.into_inner().expect("no worker panicked"));
        let (true, Some(sp)) = (spilled, spill) else {
            return Ok(Node::Mem(Layer {
                parts: parts.collect(),
                bits,
                skip,
                shape,
            }));
        };
        if let Some(e) = sp
            .error
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Err(Stopped::Disk(e));
        }
        let disk = Stopped::Disk;
        let mut out = SpillWriter::<K>::new(&sp.scratch, shape).map_err(disk)?;
        let mut runs: Vec<Runs> = Vec::new();
        for (part, r) in parts.zip(sp.runs) {
            match r.into_inner().expect("no worker panicked") {
                // a partition all in memory is whole: written as it is
                None => part
                    .raw_runs(shape, RUN_WRITE, |bytes, n| out.push(bytes, n))
                    .map_err(disk)?,
                Some(mut r) => {
                    part.raw_runs(shape, RUN_WRITE, |bytes, _| r.append(bytes))
                        .map_err(disk)?;
                    runs.push(r);
                }
            }
            // (the partition's memory goes back here)
        }
        let room = bound.tables.saturating_sub(other).max(1 << 20);
        for r in runs {
            combine::<K>(&r, shape, skip + bits, room, &mut out, 0, 0)?;
        }
        let spill = out.finish().map_err(disk)?;
        Ok(Node::Disk(std::sync::Arc::new(spill)))
    }
}

/// Adds up the runs of a partition whose states share their top `skip` hash bits, those whose
/// next `k` bits are `s` at a time, in a table of at most `room` bytes, and appends the sums to
/// `out`; a table that would pass `room` is made again as two, one bit more each.
pub(super) fn combine<K: Key>(
    runs: &Runs,
    shape: Shape,
    skip: u32,
    room: u64,
    out: &mut SpillWriter<K>,
    k: u32,
    s: usize,
) -> Result<(), Stopped> {
    let stride = shape.stride();
    let raw = runs.raw_bytes() / stride as u64;
    // the states are at most the entries of the runs (fewer where a state is in many)
    let expect = (raw >> k).min(room / 2 / stride as u64);
    let builder = Builder::make(
        expect,
        shape,
        0,
        Bound {
            tables: room,
            process: u64::MAX,
        },
        None,
        None,
        skip + k,
    );
    let read = runs.chunks(|bytes| {
        let per = (bytes.len() / stride / (rayon::current_num_threads() * 4)).max(1);
        bytes.par_chunks(per * stride).for_each(|part| {
            let mut batch = Batch::new(&builder);
            for (key, count) in entries::<K>(part, shape) {
                if bits_of(key.hash64(), skip, k) == s {
                    batch.push(key, count);
                }
            }
        });
    });
    read.map_err(Stopped::Disk)?;
    match builder.finish_node() {
        Ok(Node::Mem(layer)) => {
            for part in &layer.parts {
                part.raw_runs(shape, RUN_WRITE, |bytes, n| out.push(bytes, n))
                    .map_err(Stopped::Disk)?;
            }
            Ok(())
        }
        Ok(Node::Disk(_)) => unreachable!("a combining table never goes to disk"),
        // the sums of a run may pass their words: the layer is made again wider
        Err(Stopped::Overflow) => Err(Stopped::Overflow),
        Err(Stopped::Memory(_)) if k < 24 => {
            combine(runs, shape, skip, room, out, k + 1, 2 * s)?;
            combine(runs, shape, skip, room, out, k + 1, 2 * s + 1)
        }
        Err(e) => Err(e),
    }
}

/// One worker's entries waiting for their partitions' locks; flushed when dropped.
pub(crate) struct Batch<'b, K: Key> {
    pub(super) builder: &'b Builder<K>,
    pub(super) keys: Vec<Vec<K>>,
    pub(super) counts: Vec<Vec<u64>>,
}

impl<'b, K: Key> Batch<'b, K> {
    pub(crate) fn new(builder: &'b Builder<K>) -> Batch<'b, K> {
        let n = builder.parts.len();
        let limbs = builder.shape.limbs;
        // each partition's room for a whole batch at once, not grown as it fills
        Batch {
            builder,
            keys: (0..n).map(|_| Vec::with_capacity(BATCH)).collect(),
            counts: (0..n).map(|_| Vec::with_capacity(BATCH * limbs)).collect(),
        }
    }

    /// Queues `count` for `key`.
    #[inline]
    pub(crate) fn push(&mut self, key: K, count: Limbs<'_>) {
        debug_assert_eq!(
            count.words().count(),
            self.builder.shape.limbs,
            "a count as wide as the table's"
        );
        self.queue(key, |counts| match count.single() {
            Some(c) => counts.push(c),
            None => counts.extend(count.words()),
        });
    }

    /// Queues the count of words `words` for `key`.
    #[inline]
    pub(crate) fn push_words(&mut self, key: K, words: &[u64]) {
        debug_assert_eq!(
            words.len(),
            self.builder.shape.limbs,
            "a count as wide as the table's"
        );
        self.queue(key, |counts| counts.extend_from_slice(words));
    }

    /// Queues `key` in its partition's batch, `add` its count's words, and flushes the batch
    /// once it is full.
    #[inline]
    pub(super) fn queue(&mut self, key: K, add: impl FnOnce(&mut Vec<u64>)) {
        let (p, _) = place(key, self.builder.skip, self.builder.bits);
        self.keys[p].push(key);
        add(&mut self.counts[p]);
        let held = self.keys[p].len();
        // a batch whose partition another worker is filling grows instead of waiting, up to
        // `HELD` batches (the lock tried again each batch more)
        if held.is_multiple_of(BATCH) {
            let (keys, counts) = (&self.keys[p], &self.counts[p]);
            let flushed = if held >= HELD * BATCH {
                self.builder.flush(p, keys, counts);
                true
            } else {
                self.builder.try_flush(p, keys, counts)
            };
            if flushed {
                self.keys[p].clear();
                self.counts[p].clear();
            }
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

/// A number from its little-endian bytes (a table's count).
pub(crate) fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_le(bytes)
}
