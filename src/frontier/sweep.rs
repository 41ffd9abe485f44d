//! Walking a layer of states through steps: every state expanded in parallel into the next layer,
//! counts widened when they outgrow their words, the memory bound and the stop flag honoured.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use rayon::prelude::*;

use super::expand::{ANY, expand, expand_digit};
use super::layout::Step;
use super::state::Key;
use super::table::{Batch, Bound, Builder, Layer, Limbs, Stopped, big};
use super::tree::{self, Src, entries};

/// What a walk keeps to itself between layers.
pub(crate) struct Sweep<'a, K: Key> {
    pub(crate) closed: bool,
    /// The most bytes the tables, and the whole process, may hold.
    pub(crate) limit: Bound,
    pub(crate) stop: &'a AtomicBool,
    /// The most bytes the tables held so far.
    pub(crate) peak_bytes: u64,
    /// The most states a layer held so far.
    pub(crate) peak_states: u64,
    /// A layer no longer needed, whose memory the next layer reuses.
    pub(crate) spare: Option<Layer<K>>,
    /// The growth (states after over states before) of the last step at each place in a column
    /// (see [`Step::row`]), for sizing the next table, and the one before it at that place.
    pub(crate) growth: Vec<f64>,
    pub(crate) older: Vec<f64>,
    /// The last step's growth, for a place not seen yet.
    pub(crate) last_growth: f64,
    /// States read by the steps so far (for the rate a state costs).
    pub(crate) read: u64,
}

impl<K: Key> Sweep<'_, K> {
    /// One step; on overflow the counts get one more word and the step is done again.
    /// Keeps `old` for the memory of a later layer.
    pub(crate) fn recycle(&mut self, old: Layer<K>) {
        self.spare = Some(old);
    }

    /// A table for about `expect` states made from `layer`, beside it, in the spare layer's
    /// memory where it suits, under the bound.
    fn builder(&mut self, layer: &Layer<K>, expect: u64) -> Builder<K> {
        Builder::new(
            expect,
            layer.shape(),
            layer.bytes(),
            self.limit,
            self.spare.take(),
        )
    }

    pub(crate) fn step(
        &mut self,
        layer: &Layer<K>,
        step: &Step<K>,
        keep: impl Fn(K) -> bool + Sync,
    ) -> Result<(Layer<K>, BigUint), Stopped> {
        let mut widened;
        let mut src = layer;
        loop {
            match self.try_step(src, step, &keep) {
                Ok(r) => return Ok(r),
                Err(Stopped::Overflow) => {
                    widened = src.widened(src.limbs() + 1);
                    src = &widened;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The children of a node of a digit tree (see `tree.rs`): its states walked through
    /// `step` and dealt by the new square's digit into three layers (`which` = `None`, one
    /// pass over the node), or only the child of digit `which` (made alone, without making the
    /// others: the node stays while each of its children is made in turn). States `keep`
    /// refuses are dropped. `expect` states in all are expected (0: as the steps before grew).
    /// On overflow the counts get one more word and the step is done again.
    pub(crate) fn children(
        &mut self,
        node: Src<'_, K>,
        step: &Step<K>,
        which: Option<usize>,
        expect: u64,
        keep: impl Fn(K) -> bool + Sync,
    ) -> Result<Vec<Layer<K>>, Stopped> {
        let mut limbs = node.shape().limbs;
        loop {
            match self.try_routed(node, limbs, step, which, expect, &keep) {
                Ok(r) => return Ok(r),
                Err(Stopped::Overflow) => limbs += 1,
                Err(e) => return Err(e),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn try_routed(
        &mut self,
        node: Src<'_, K>,
        limbs: usize,
        step: &Step<K>,
        which: Option<usize>,
        expect: u64,
        keep: &(impl Fn(K) -> bool + Sync),
    ) -> Result<Vec<Layer<K>>, Stopped> {
        let n = if which.is_some() { 1 } else { 3 };
        let digit = which.unwrap_or(ANY);
        let expect = if expect > 0 {
            expect
        } else {
            (node.len() as f64 * (self.last_growth * 1.1).clamp(0.25, 4.0)) as u64
        };
        // a child of three gets about a third of the states
        let each = expect / 3 + 1;
        let shape = node.shape().with_limbs(limbs);
        let held = node.bytes();
        let builders: Vec<Builder<K>> = (0..n)
            .map(|_| Builder::new(each, shape, held, self.limit, self.spare.take()))
            .collect();
        self.read += node.len();
        let (closed, stop) = (self.closed, self.stop);
        // the states of one task: expanded into its own batches; counts widened where the
        // step is done again with more words. The flags are read between runs of states (a
        // partition, a chunk of the file), not for each state.
        let failed = || stop.load(Ordering::Relaxed) || builders.iter().any(Builder::failed);
        let work = |batches: &mut [Batch<'_, K>], wide: &mut [u64], key: K, count: Limbs<'_>| {
            let words: &[u64] = if count.len() == limbs {
                &[]
            } else {
                wide.fill(0);
                for (w, c) in wide.iter_mut().zip(count.words()) {
                    *w = c;
                }
                wide
            };
            expand_digit(key, step, closed, digit, |next| {
                if !keep(next) {
                    return;
                }
                let d = if n == 1 { 0 } else { tree::digit(next.get(0)) };
                if words.is_empty() {
                    batches[d].push(next, count);
                } else {
                    batches[d].push_words(next, words);
                }
            });
        };
        let batches = || -> Vec<Batch<'_, K>> { builders.iter().map(Batch::new).collect() };
        match node {
            Src::Mem(layer) => {
                part_chunks(layer.part_count()).for_each(|chunk| {
                    let (mut batches, mut wide) = (batches(), vec![0u64; limbs]);
                    for p in chunk {
                        if failed() {
                            return;
                        }
                        for (key, count) in layer.part(p) {
                            work(&mut batches, &mut wide, key, count);
                        }
                    }
                });
            }
            Src::Disk(spill) => {
                let stride = spill.shape.stride();
                let read = spill.chunks(|bytes| {
                    let per = (bytes.len() / stride / (rayon::current_num_threads() * 4)).max(1);
                    bytes.par_chunks(per * stride).for_each(|part| {
                        let (mut batches, mut wide) = (batches(), vec![0u64; limbs]);
                        // a part of a file chunk is large: the flags every partition's worth
                        for run in part.chunks(4096 * stride) {
                            if failed() {
                                return;
                            }
                            for (key, count) in entries::<K>(run, spill.shape) {
                                work(&mut batches, &mut wide, key, count);
                            }
                        }
                    });
                });
                if read.is_err() {
                    return Err(Stopped::Disk);
                }
            }
        }
        // each builder counts the node read beside its own table: counted once here
        let made: u64 = builders.iter().map(|b| b.bytes() - held).sum::<u64>() + held;
        self.peak_bytes = self.peak_bytes.max(made);
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped::Interrupted);
        }
        let mut out = Vec::with_capacity(n);
        let mut failed = None;
        for b in builders {
            match b.finish() {
                Ok(l) => out.push(l),
                Err(e) => failed = Some(failed.map_or(e, |f| worse(f, e))),
            }
        }
        let total: u64 = out.iter().map(Layer::len).sum();
        if failed.is_none() && n == 3 {
            self.last_growth = total as f64 / node.len().max(1) as f64;
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    fn try_step(
        &mut self,
        layer: &Layer<K>,
        step: &Step<K>,
        keep: &(impl Fn(K) -> bool + Sync),
    ) -> Result<(Layer<K>, BigUint), Stopped> {
        // a table sized for the layer to come rarely has to grow (growing rehashes a partition
        // into fresh memory); its growth is guessed from the step at the same place in the
        // column before, scaled by how the last step compared with its own counterpart there
        let row = step.row as usize;
        let guess = match (self.growth.get(row), row.checked_sub(1)) {
            (Some(&same), Some(r)) if r < self.older.len() && self.older[r] > 0.0 => {
                same * (self.last_growth / self.older[r]).clamp(0.5, 2.0)
            }
            (Some(&same), _) => same,
            (None, _) => self.last_growth,
        };
        let expect = (layer.len() as f64 * (guess * 1.1).clamp(0.25, 4.0)) as u64;
        let builder = self.builder(layer, expect);
        self.read += layer.len();
        let tours = Mutex::new(BigUint::ZERO);
        let (closed, stop) = (self.closed, self.stop);
        part_chunks(layer.part_count()).for_each(|chunk| {
            let mut batch = Batch::new(&builder);
            let mut done = BigUint::ZERO;
            for p in chunk {
                // Relaxed: the flag only asks the workers to stop; nothing else hangs on it
                if stop.load(Ordering::Relaxed) || builder.failed() {
                    return;
                }
                for (key, count) in layer.part(p) {
                    let finished = expand(key, step, closed, |next| {
                        if keep(next) {
                            batch.push(next, count);
                        }
                    });
                    if finished > 0 {
                        done += big(count.bytes()) * finished;
                    }
                }
            }
            if done != BigUint::ZERO {
                *tours.lock().expect("no worker panics holding the lock") += done;
            }
        });
        self.peak_bytes = self.peak_bytes.max(builder.bytes());
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped::Interrupted);
        }
        let next = builder.finish()?;
        let growth = next.len() as f64 / layer.len().max(1) as f64;
        if self.growth.len() <= row {
            self.growth.resize(row + 1, growth);
            self.older.resize(row + 1, 0.0);
        }
        self.older[row] = std::mem::replace(&mut self.growth[row], growth);
        self.last_growth = growth;
        Ok((next, tours.into_inner().expect("the workers are done")))
    }
}

/// The partitions of a layer of `parts` dealt out for a step: a few chunks a thread, each with
/// its own batches, for balance, and each chunk a task of its own (left to itself, the pool ran
/// a quarter of them as one task, and a thread that started one late left the other idle at
/// the step's end).
fn part_chunks(parts: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    let chunk = (parts / (rayon::current_num_threads() * 8)).clamp(1, parts);
    (0..parts.div_ceil(chunk))
        .into_par_iter()
        .with_max_len(1)
        .map(move |c| c * chunk..((c + 1) * chunk).min(parts))
}

/// Of two reasons a routed step failed, the one to act on: an overflow is redone wider before a
/// memory stop is reported, and a memory stop names the larger figure.
fn worse(a: Stopped, b: Stopped) -> Stopped {
    match (a, b) {
        (Stopped::Overflow, _) | (_, Stopped::Overflow) => Stopped::Overflow,
        (Stopped::Memory(x), Stopped::Memory(y)) => Stopped::Memory(x.max(y)),
        (Stopped::Memory(x), _) | (_, Stopped::Memory(x)) => Stopped::Memory(x),
        (Stopped::Disk, _) | (_, Stopped::Disk) => Stopped::Disk,
        _ => Stopped::Interrupted,
    }
}
