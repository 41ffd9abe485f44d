//! Digit trees: a layer's states split by the digits of the squares a column's steps add, so
//! that a walk too large for memory is cut into parts that never meet again, without doing any
//! step twice.
//!
//! A square's *digit* is how many of its edges a walk has chosen when it is added: none, one or
//! two (an end of the path counts as one). A step adds one square with each choice of its edges
//! to squares already walked, and in a column whose squares have no edges to each other (the
//! knight's, and every leaper's whose moves all change the column) no later step of that
//! column changes it. So the states after `j` steps of a column fall apart by the digits of its
//! first `j` squares, a base-3 number `p` (the first square the most significant): the node
//! `(j, p)`. Its children are the states of its next step by that square's digit; a node's
//! states are walked on alone, and the nodes of one depth add up to the whole layer.
//!
//! Nodes larger than memory allows beside the walk below them are kept in a file ([`Spill`])
//! and read back a chunk at a time when a child is made. The forward walk cuts a column this
//! way when its layers are large ([`Run::column`]), the leaves' states going into one table at
//! the column's end; the meeting in the middle cuts its first boundary column on both sides at
//! once (see `meet.rs`).

use super::Run;
use super::column::ColumnLog;
use crate::engine::RunError;
use crate::error::Error;
use crate::human::group_u64;
use crate::layer::{Batch, Builder, Node, Src, Stopped};
use crate::walk::layout::Step;
use crate::walk::state::{Key, has};

/// `kids` each with its share of `weight`, by their states (all alike where none has any).
fn weighed<K: Key>(kids: Vec<Node<K>>, weight: f64) -> Vec<(Node<K>, f64)> {
    let n = kids.len().max(1) as f64;
    let states: u64 = kids.iter().map(Node::len).sum();
    kids.into_iter()
        .map(|k| {
            let share = if states == 0 {
                1.0 / n
            } else {
                k.len() as f64 / states as f64
            };
            (k, weight * share)
        })
        .collect()
}

/// The digit a square's code gives: the edges it has (an end of the path has one).
#[inline]
pub(crate) fn digit(code: u8) -> usize {
    has(code) as usize
}

impl<K: Key> Run<'_, K> {
    /// Walks `layer` through one column of the forward walk (`steps`, the last merging mirror
    /// images where the count does), cut as a digit tree where a node holds more than
    /// `leaf_states` states: the leaves' states go into one table (with half the tables' share
    /// of the bound where tables may go to disk, the walks below the other half).
    pub(crate) fn column(
        &mut self,
        layer: &Node<K>,
        steps: &[Step<K>],
        leaf_states: u64,
        base: usize,
    ) -> Result<Node<K>, RunError> {
        if layer.len() <= leaf_states {
            return self.walk_all(layer.src(), steps, base, "forward");
        }
        // a leaf's walk widens its own counts where they pass their words, and the leaves'
        // sums may pass them at the column's end: the column is then gathered again, as wide
        // as needed (6x26 open's counts pass 64 bits in a column cut so)
        let mut limbs = layer.src().shape().limbs;
        loop {
            match self.column_of(layer, steps, leaf_states, base, limbs)? {
                Ok(end) => return Ok(end),
                Err(wider) => limbs = wider,
            }
        }
    }

    /// [`Run::column`] gathered into a table of counts `limbs` words wide, or the words it
    /// needs where they do not suffice.
    fn column_of(
        &mut self,
        layer: &Node<K>,
        steps: &[Step<K>],
        leaf_states: u64,
        base: usize,
        limbs: usize,
    ) -> Result<Result<Node<K>, usize>, RunError> {
        let expect = layer.len() * 4;
        let half = self.sweep.limit.tables / 2;
        let bound = crate::layer::Bound {
            tables: half,
            process: self.sweep.limit.process,
        };
        let scratch = self.sweep.scratch.clone();
        let shape = crate::walk::entry::Shape {
            limbs,
            ..layer.src().shape()
        };
        let out = Builder::spilling(expect, shape, 0, bound, None, scratch);
        // the leaves a stopped run finished, and those this one finishes, beside the checkpoint
        self.column_log = ColumnLog::open(self.limits.checkpoint.as_deref(), base);
        self.column_wider = 0;
        self.sweep.beside += half;
        let walked = self.column_kids(&out, layer, steps, leaf_states, base);
        self.sweep.beside -= half;
        if walked.is_err() && self.column_wider > limbs {
            return Ok(Err(self.column_wider));
        }
        walked?;
        debug_assert!(
            (self.column_log.walked - 1.0).abs() < 1e-6,
            "the leaves' weights add up to {}",
            self.column_log.walked
        );
        if self.column_log.resumed > 0 {
            self.obs.info(&format!(
                "the column from layer {} went on from its finished leaves: {} of them read back from a stopped run",
                base - self.offset,
                group_u64(self.column_log.resumed)
            ));
        }
        let stopped = out.failed();
        let bytes = out.bytes();
        let end = match out.finish_node() {
            Ok(end) => end,
            Err(Stopped::Overflow) => return Ok(Err(limbs + 1)),
            Err(e) => return Err(self.tree_stopped(e, base + steps.len())),
        };
        self.sweep.peak_bytes = self.sweep.peak_bytes.max(bytes);
        debug_assert!(!stopped);
        Ok(Ok(end))
    }

    /// The leaves of `layer`'s tree gathered into `out`.
    fn column_kids(
        &mut self,
        out: &Builder<K>,
        layer: &Node<K>,
        steps: &[Step<K>],
        leaf_states: u64,
        base: usize,
    ) -> Result<(), RunError> {
        let kids = self
            .sweep
            .children(layer.src(), &steps[0], None, 0, |_| true)
            .map_err(|e| self.tree_stopped(e, base))?;
        for (d, (kid, weight)) in weighed(kids, 1.0).into_iter().enumerate() {
            self.column_node(out, kid, weight, steps, (1, d as u64), leaf_states, base)?;
        }
        Ok(())
    }

    /// Node `(j, p)` of the column's tree, `layer` its states, gathered into `out`: read back
    /// where a stopped run recorded it, walked to the column's end where it is a leaf (and
    /// recorded), else split by the next square's digit.
    #[allow(clippy::too_many_arguments)]
    fn column_node(
        &mut self,
        out: &Builder<K>,
        layer: Node<K>,
        weight: f64,
        steps: &[Step<K>],
        (j, p): (usize, u64),
        leaf_states: u64,
        base: usize,
    ) -> Result<(), RunError> {
        let mut log = std::mem::take(&mut self.column_log);
        let key_bytes = self.walk.key_bytes();
        let whole = log.read_complete::<K>(j, p, &self.name, key_bytes, self.spill_to());
        let saved = match whole {
            Ok(None) => log.read::<K>(j, p, &self.name, key_bytes, self.spill_to()),
            _ => Ok(None),
        };
        self.column_log = log;
        if let Some(leaves) = whole? {
            drop(layer);
            self.column_log.finished(weight, true, base, self.obs);
            for end in leaves {
                self.gather(out, end, base + steps.len())?;
            }
            return Ok(());
        }
        let saved = saved?;
        if let Some(end) = saved {
            drop(layer);
            self.column_log.finished(weight, true, base, self.obs);
            return self.gather(out, end, base + steps.len());
        }
        if layer.len() == 0 {
            self.column_log.finished(weight, false, base, self.obs);
            return Ok(());
        }
        let split = self.column_log.below(j, p);
        if !split && (layer.len() <= leaf_states || j + 1 >= steps.len()) {
            let end = self.walk_all(layer.src(), &steps[j..], base + j, "forward")?;
            drop(layer);
            self.column_log
                .record(j, p, end.src(), &self.name, self.obs)?;
            self.column_log.finished(weight, false, base, self.obs);
            return self.gather(out, end, base + steps.len());
        }
        let kids = self
            .sweep
            .children(layer.src(), &steps[j], None, 0, |_| true)
            .map_err(|e| self.tree_stopped(e, base + j))?;
        drop(layer);
        for (d, (kid, w)) in weighed(kids, weight).into_iter().enumerate() {
            let at = (j + 1, p * 3 + d as u64);
            self.column_node(out, kid, w, steps, at, leaf_states, base)?;
        }
        // every leaf below recorded: a resumed run reads them back without this node's walk
        self.column_log.record_complete(j, p)
    }

    /// A leaf's table at the column's end (layer `at`) added to `out`, its counts made as wide
    /// as the table's. Where they are wider, or their sums pass the table's words, the words
    /// needed are left in `column_wider` and the column stops (gathered again wider).
    fn gather(&mut self, out: &Builder<K>, end: Node<K>, at: usize) -> Result<(), RunError> {
        let (have, want) = (end.src().shape().limbs, out.limbs());
        let wider = |run: &mut Self, limbs: usize| {
            run.column_wider = limbs;
            Err(Error::Invalid(format!("the column's counts need {limbs} words")).into())
        };
        if have > want {
            return wider(self, have);
        }
        let read = end.src().par_each(
            &|| out.failed(),
            &|| (Batch::new(out), vec![0u64; want]),
            &|(batch, words), k, c| {
                if have == want {
                    batch.push(k, c);
                } else {
                    // the words past the leaf's stay zero
                    for (w, c) in words.iter_mut().zip(c.words()) {
                        *w = c;
                    }
                    batch.push_words(k, words);
                }
            },
            &drop,
        );
        if let Err(e) = read {
            return Err(e.into());
        }
        if out.overflowed() {
            return wider(self, want + 1);
        }
        if out.failed() {
            return Err(self.tree_stopped(Stopped::Memory(out.bytes() + end.bytes()), at));
        }
        Ok(())
    }

    /// Walks `layer` through `steps`, every state kept; progress as layers `base + 1, ...`.
    pub(crate) fn walk_all(
        &mut self,
        layer: Src<'_, K>,
        steps: &[Step<K>],
        base: usize,
        phase: &'static str,
    ) -> Result<Node<K>, RunError> {
        self.walk_kept(layer, steps, base, phase, &|_, _| true)
    }

    /// Walks `start` through `steps`, keeping the states `keep(i, state)` keeps after step
    /// `i`; progress as layers `base + 1, ...` of the stage.
    pub(crate) fn walk_kept(
        &mut self,
        start: Src<'_, K>,
        steps: &[Step<K>],
        base: usize,
        phase: &'static str,
        keep: &(impl Fn(usize, K) -> bool + Sync),
    ) -> Result<Node<K>, RunError> {
        let mut layer: Option<Node<K>> = None;
        for (i, step) in steps.iter().enumerate() {
            let from = layer.as_ref().map_or(start, Node::src);
            let next = match self.sweep.step(from, step, |k| keep(i, k)) {
                Ok((next, _)) => next,
                Err(e) => {
                    self.sweep.spare = None;
                    return Err(self.tree_stopped(e, base + i));
                }
            };
            self.sweep.peak_states = self.sweep.peak_states.max(next.len());
            self.progress(base + i + 1, &next, phase);
            if let Some(old) = layer.replace(next) {
                self.sweep.recycle(old);
            }
        }
        self.sweep.spare = None;
        Ok(layer.unwrap_or_else(|| start.to_node()))
    }

    /// The error for a walk stopped at layer `at` of its stage: the memory needed, or the
    /// stop flag ([`Run::stopped`] tells them apart for the caller).
    pub(crate) fn tree_stopped(&self, e: Stopped, at: usize) -> RunError {
        match e {
            Stopped::Memory(b) => self.memory_error(b, at),
            Stopped::Disk(e) => e.into(),
            _ => Error::Invalid("the count was interrupted".into()).into(),
        }
    }
}
