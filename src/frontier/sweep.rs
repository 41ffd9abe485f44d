//! Walking a layer of states through steps: every state expanded in parallel into the next layer,
//! counts widened when they outgrow their words, the memory bound and the stop flag honoured.
//! A layer is read from memory or from disk alike (see `crate::layer::spill`), and where a scratch folder
//! is given, a table that passes its share of the bound goes to disk instead of stopping.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;

use super::tree;
use crate::disk::scratch::Scratch;
use crate::engine::{PHASES, PhaseTime, cpu_seconds, cpu_since};
use crate::layer::{Batch, Bound, Builder, Layer, Node, Src, Stopped, big};
use crate::walk::entry::{Limbs, Shape};
use crate::walk::expand::{ANY, expand, expand_digit};
use crate::walk::layout::Step;
use crate::walk::state::Key;

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
    /// Of those, the states read by sums over saturated columns (`sums.rs`).
    pub(crate) summed: u64,
    /// Lengths of a row counted from completions weighed (`row.rs`).
    pub(crate) weighed: u64,
    /// Where tables that pass their share of the bound go.
    pub(crate) scratch: Scratch,
    /// Bytes the caller holds in memory beside the walk (the nodes above it, a table being
    /// gathered), taken from the tables' share of the bound.
    pub(crate) beside: u64,
    /// The wall and CPU time of the count's kinds of parallel work so far (`engine::PHASES`).
    pub(crate) phases: Mutex<[PhaseTime; PHASES.len()]>,
}

/// The steps' place in `engine::PHASES`.
pub(crate) const STEP: usize = 0;
/// The right side's index's.
pub(crate) const INDEX: usize = 1;
/// The joins'.
pub(crate) const JOIN: usize = 2;
/// The meeting's forward tables saved, read back and made into roots.
pub(crate) const TABLES: usize = 3;

/// A step's worker: its batches into the tables being made, the tours it finished, and room to
/// widen a count.
type Worker<'b, K> = (Vec<Batch<'b, K>>, BigUint, Vec<u64>);

impl<K: Key> Sweep<'_, K> {
    /// `f`, its wall and CPU time added to phase `phase` (the CPU time is the process's, all
    /// its threads: nothing else runs while a phase does).
    pub(crate) fn timed<T>(&self, phase: usize, f: impl FnOnce() -> T) -> T {
        let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
        let r = f();
        self.add_time(phase, t0, c0);
        r
    }

    /// Adds the time since `t0` (and the process's CPU time since `c0`) to phase `phase`.
    pub(crate) fn add_time(&self, phase: usize, t0: std::time::Instant, c0: Option<f64>) {
        let cpu = cpu_since(c0);
        let mut p = self.phases.lock().expect("no panic holding the lock");
        p[phase].wall += t0.elapsed().as_secs_f64();
        p[phase].cpu += cpu;
        p[phase].calls += 1;
    }

    /// Keeps `old` for the memory of a later layer (where it is in memory).
    pub(crate) fn recycle(&mut self, old: Node<K>) {
        if let Node::Mem(l) = old {
            self.spare = Some(l);
        }
    }

    /// A table of entries of `shape` for about `expect` states, beside `other` bytes read, with
    /// a `share` of the tables' bound (1 for all of it), in the spare layer's memory where it
    /// suits: one that goes to disk past its share where the walk has a scratch folder.
    pub(super) fn table(
        &mut self,
        expect: u64,
        shape: Shape,
        other: u64,
        share: u64,
    ) -> Builder<K> {
        let spare = self.spare.take();
        self.made(expect, shape, other, share, spare)
    }

    /// [`Sweep::table`] in fresh memory.
    pub(crate) fn new_table(
        &self,
        expect: u64,
        shape: Shape,
        other: u64,
        share: u64,
    ) -> Builder<K> {
        self.made(expect, shape, other, share, None)
    }

    fn made(
        &self,
        expect: u64,
        shape: Shape,
        other: u64,
        share: u64,
        spare: Option<Layer<K>>,
    ) -> Builder<K> {
        // at least an eighth of the tables' share, whatever is held beside: a builder left a
        // few KiB by the nodes above it wrote runs of a few states (6x8 open under 32M made
        // 640,000 runs of a KiB, half its time in system calls)
        let room = (self.limit.tables.saturating_sub(other + self.beside))
            .max(self.limit.tables / 8)
            / share.max(1);
        let bound = Bound {
            tables: room + other,
            process: self.limit.process,
        };
        Builder::spilling(expect, shape, other, bound, spare, self.scratch.clone())
    }

    /// One step from `src` (its finished tours counted); on overflow the counts get one more
    /// word and the step is done again.
    pub(crate) fn step(
        &mut self,
        src: Src<'_, K>,
        step: &Step<K>,
        keep: impl Fn(K) -> bool + Sync,
    ) -> Result<(Node<K>, BigUint), Stopped> {
        let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
        let mut limbs = src.shape().limbs;
        let r = loop {
            match self.try_step(src, limbs, step, &keep) {
                Ok(r) => break Ok(r),
                Err(Stopped::Overflow) => limbs += 1,
                Err(e) => break Err(e),
            }
        };
        self.add_time(STEP, t0, c0);
        r
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
    ) -> Result<Vec<Node<K>>, Stopped> {
        let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
        let mut limbs = node.shape().limbs;
        let r = loop {
            match self.try_routed(node, limbs, step, which, expect, &keep) {
                Ok(r) => break Ok(r),
                Err(Stopped::Overflow) => limbs += 1,
                Err(e) => break Err(e),
            }
        };
        self.add_time(STEP, t0, c0);
        r
    }

    /// Walks `src` through `step` into `n` tables (a state goes to `route(state)`), counts of
    /// `limbs` words: the tables' builders, and the tours finished.
    #[allow(clippy::too_many_arguments)]
    fn walk_into(
        &mut self,
        src: Src<'_, K>,
        limbs: usize,
        n: usize,
        expect: u64,
        each_step: &(impl Expand<K> + Sync),
        route: &(impl Fn(K) -> usize + Sync),
    ) -> Result<(Vec<Builder<K>>, BigUint), Stopped> {
        let shape = src.shape().with_limbs(limbs);
        // a layer read from disk holds its chunk's buffers instead (see `frames::READ_HELD`)
        let held = match src {
            Src::Mem(l) => l.bytes(),
            Src::Disk(_) => crate::disk::frames::READ_HELD,
        };
        let each = expect / n as u64 + 1;
        let builders: Vec<Builder<K>> = (0..n)
            .map(|_| self.table(each, shape, held, n as u64))
            .collect();
        self.read += src.len();
        let stop = self.stop;
        let tours = Mutex::new(BigUint::ZERO);
        // the flags are read between runs of states (a partition, a part of a file chunk)
        let failed = || stop.load(Ordering::Relaxed) || builders.iter().any(Builder::failed);
        let init = || -> Worker<'_, K> {
            (
                builders.iter().map(Batch::new).collect(),
                BigUint::ZERO,
                vec![0u64; limbs],
            )
        };
        let work = |w: &mut Worker<'_, K>, key: K, count: Limbs<'_>| {
            let (batches, done, wide) = w;
            // counts widened where the step is done again with more words
            let words: &[u64] = if count.len() == limbs {
                &[]
            } else {
                wide.fill(0);
                for (w, c) in wide.iter_mut().zip(count.words()) {
                    *w = c;
                }
                wide
            };
            let finished = each_step.each(key, |next| {
                let d = if n == 1 { 0 } else { route(next) };
                if words.is_empty() {
                    batches[d].push(next, count);
                } else {
                    batches[d].push_words(next, words);
                }
            });
            if finished > 0 {
                *done += big(count.bytes()) * finished;
            }
        };
        let end = |w: Worker<'_, K>| {
            let (batches, done, _) = w;
            drop(batches);
            if done != BigUint::ZERO {
                *tours.lock().expect("no worker panics holding the lock") += done;
            }
        };
        let read = src.par_each(&failed, &init, &work, &end);
        // each builder counts the layer read beside its own table: counted once here
        let made: u64 = builders.iter().map(|b| b.bytes() - held).sum::<u64>() + held;
        self.peak_bytes = self.peak_bytes.max(made + self.beside);
        if let Err(e) = read {
            return Err(Stopped::Disk(e));
        }
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped::Interrupted);
        }
        Ok((builders, tours.into_inner().expect("the workers are done")))
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
    ) -> Result<Vec<Node<K>>, Stopped> {
        let n = if which.is_some() { 1 } else { 3 };
        let digit = which.unwrap_or(ANY);
        let expect = if expect > 0 {
            expect
        } else {
            (node.len() as f64 * (self.last_growth * 1.1).clamp(0.25, 4.0)) as u64
        };
        let each_step = Digit {
            step,
            closed: self.closed,
            digit,
            keep,
        };
        let route = |next: K| tree::digit(next.get(0));
        let (builders, _) = self.walk_into(node, limbs, n, expect, &each_step, &route)?;
        let mut out = Vec::with_capacity(n);
        let mut failed = None;
        for b in builders {
            match b.finish_node() {
                Ok(l) => out.push(l),
                Err(e) => {
                    failed = Some(match failed {
                        Some(f) => worse(f, e),
                        None => e,
                    });
                }
            }
        }
        let total: u64 = out.iter().map(Node::len).sum();
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
        src: Src<'_, K>,
        limbs: usize,
        step: &Step<K>,
        keep: &(impl Fn(K) -> bool + Sync),
    ) -> Result<(Node<K>, BigUint), Stopped> {
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
        let expect = (src.len() as f64 * (guess * 1.1).clamp(0.25, 4.0)) as u64;
        let each_step = Whole {
            step,
            closed: self.closed,
            keep,
        };
        let (mut builders, tours) = self.walk_into(src, limbs, 1, expect, &each_step, &|_| 0)?;
        let next = builders.pop().expect("one table").finish_node()?;
        let growth = next.len() as f64 / src.len().max(1) as f64;
        if self.growth.len() <= row {
            self.growth.resize(row + 1, growth);
            self.older.resize(row + 1, 0.0);
        }
        self.older[row] = std::mem::replace(&mut self.growth[row], growth);
        self.last_growth = growth;
        Ok((next, tours))
    }
}

/// How a step expands a state into the states it leads to (a generic, so that the expansion is
/// compiled into the step's loop): the tours it finishes returned.
pub(crate) trait Expand<K: Key> {
    fn each(&self, key: K, f: impl FnMut(K)) -> u64;
}

/// Every choice of the step's square.
struct Whole<'s, K: Key, F> {
    step: &'s Step<K>,
    closed: bool,
    keep: &'s F,
}

impl<K: Key, F: Fn(K) -> bool + Sync> Expand<K> for Whole<'_, K, F> {
    #[inline]
    fn each(&self, key: K, mut f: impl FnMut(K)) -> u64 {
        u64::from(expand(key, self.step, self.closed, |next| {
            if (self.keep)(next) {
                f(next);
            }
        }))
    }
}

/// The choices of the step's square that give it digit `digit` (or any: [`ANY`]).
struct Digit<'s, K: Key, F> {
    step: &'s Step<K>,
    closed: bool,
    digit: usize,
    keep: &'s F,
}

impl<K: Key, F: Fn(K) -> bool + Sync> Expand<K> for Digit<'_, K, F> {
    #[inline]
    fn each(&self, key: K, mut f: impl FnMut(K)) -> u64 {
        expand_digit(key, self.step, self.closed, self.digit, |next| {
            if (self.keep)(next) {
                f(next);
            }
        });
        0
    }
}

/// Of two reasons a routed step failed, the one to act on: an overflow is redone wider before a
/// memory stop is reported, and a memory stop names the larger figure.
fn worse(a: Stopped, b: Stopped) -> Stopped {
    match (a, b) {
        (Stopped::Overflow, _) | (_, Stopped::Overflow) => Stopped::Overflow,
        (Stopped::Memory(x), Stopped::Memory(y)) => Stopped::Memory(x.max(y)),
        (Stopped::Memory(x), _) | (_, Stopped::Memory(x)) => Stopped::Memory(x),
        (Stopped::Disk(e), _) | (_, Stopped::Disk(e)) => Stopped::Disk(e),
        _ => Stopped::Interrupted,
    }
}
