//! Meeting in the middle, cut by a digit tree: how a symmetric count is split into pieces that
//! each fit any memory bound, what work they share, and how each one is counted.
//!
//! The board is cut after `c` columns. The left half is walked to the cut and on through the
//! *crossing*, the `h` columns past it whose squares take edges from the left only (see
//! `join.rs`); the right half is the same walk mirrored end to end, `r = len - c` columns. The
//! crossing's first column and the right half's last are the same squares, and each square's
//! digit there (edges taken from its own side: none, one, two) is final as soon as it is walked,
//! on either side. A left state and a right state join only where their digits agree (the left
//! needs what the right has), so both sides are cut by the same *digit tree* (see `tree.rs`):
//! node `(j, p)` holds the crossing's states after `j` steps and the right half's after `j`
//! steps of its last column whose first `j` squares have the digits `p`, and the count is the
//! sum over the tree's leaves of each leaf's crossing joined with its right states.
//!
//! - **Shared**: the forward walk to `max(c, r - 1)` columns (one walk serves both halves), cut
//!   by columns into digit trees where its layers are large. It leaves the left table at the
//!   cut and the right table one column before it, kept in the split file beside the checkpoint.
//! - **Pieces**: the nodes of depth `d` (`3^d` pieces, `d` from the shared tables' size and the
//!   number of shards), numbered so that each shard's pieces are one run of the tree and its
//!   nodes above them are made once a process. A long run begun afresh counts one piece of each
//!   *class* first (how many of its digits are 1, which sets its time), drawn at random under
//!   one node of the first depth where they can be, and projects the rest by class
//!   ([`sample_first`], [`by_class`]); the nodes above the drawn pieces are made for them, and
//!   those of the first depth once where they share one.
//! - **In a piece**: a node is cut again, and only that node, while it is too large for memory
//!   or for a quick leaf; large nodes make their children one at a time and wait on disk while
//!   they do. A leaf walks the right half's last column to its end, indexes it, walks the
//!   crossing to its end against that index and joins. A node can be cut further on the
//!   crossing alone (the second column's digits) once its right side is indexed. Each leaf's
//!   count is recorded beside the checkpoint as it is joined (`leaves.rs`), so a piece stopped
//!   midway goes on from its last leaf.
//!
//! How the pieces are numbered, drawn and projected is in `pieces.rs`; how large the pieces,
//! leaves and nodes are made, from the figures measured, in `sizes.rs`.
//!
//! **Mirror images.** The forward walk merges each state with its mirror image (rows reversed)
//! at every column end, which halves it; the digits of a column do not survive the mirror (it
//! reverses them), so below the tree's root nothing is merged. One side is made *true* again
//! for the join: the left table at the cut is expanded into each state and its image with half
//! the merged count each, and the crossing walks that. The right table one column before the
//! cut stays merged and its last column is walked without merging, so each right state stands
//! for itself and its image's walk at once; against a true left side, which the board's
//! symmetry makes symmetric, a state's image's walk joins exactly as the state's own does, so
//! the sum is the count. Which side is made true is the one walked less after the root: the
//! crossing starts from the smaller table.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use num_bigint::BigUint;

use super::join::{self, Boundary, Prefixes, RightIndex};
use super::pieces::{
    TREE_PARAM, above_left, by_class, depth_of_param, order, own_times, piece_classes, sample_first,
};
use super::snapshot;
use super::{Cut, Run};
use crate::disk::scratch::Scratch;
use crate::durable::TurnLock;
use crate::engine::{Host, Made, Ran, RunError, Split};
use crate::error::Error;
use crate::human::{group_u64, human_bytes, human_duration, plural};
use crate::layer::{Batch, Node, Src, Stopped};
use crate::memory::{give_back, relieve};
use crate::walk::layout::{self, Step};
use crate::walk::sizes::{
    COLUMN_MEASURED, COLUMN_TREE_STATES, LEAF_STATES, ONE_PASS_STATES, above_bytes, depth_for,
    leaf_bytes, leaf_growth, leaf_states, reads, root_on_disk, spill_bytes, true_right,
};
use crate::walk::state::{Key, Perm};

/// The rule that cuts and numbers the pieces: part of a cut's fingerprint (a new rule makes
/// new pieces, and a checkpoint of another rule is not resumed).
const RULE: &str = "tree-1: the first boundary column's digits on both sides, the left side true, pieces the nodes of one depth, a shard's pieces one run of them";

/// The tables every piece starts from.
pub(crate) struct Roots<K: Key> {
    /// The left table at the cut (merged, or the true one: each state and its image), in
    /// memory or on disk.
    left: Node<K>,
    /// The right table one column before the cut (true, or merged), in memory or on disk.
    right: Node<K>,
    /// States of the two as the forward walk left them (merged).
    left_merged: u64,
    right_len: u64,
    /// Whether the right side is the one made true (the left then stays merged).
    true_right: bool,
    /// Seconds a state read took in the forward walk's last column, on all threads.
    rate: f64,
}

/// What every piece walks: the crossing's steps, the right half's last column, the boundary.
pub(crate) struct Plan<K: Key> {
    cut: Cut,
    xsteps: Vec<Step<K>>,
    ysteps: Vec<Step<K>>,
    boundary: Boundary,
    /// Boundary squares (the crossing's steps) and the first column's (the right's steps).
    m: usize,
    w: usize,
    /// The depth of the pieces.
    depth: usize,
    /// Leaves: the most states of a node walked to its end.
    leaf_states: u64,
    /// Nodes larger than this wait on disk while their children are made.
    spill_bytes: u64,
}

/// A node's right side: still to be walked, or walked to its end and indexed.
enum Side<'a, K: Key> {
    Open(&'a Node<K>),
    Done(&'a Indexed),
}

/// A right side walked to its end: its index for the join, and what its classes admit.
struct Indexed {
    index: RightIndex,
    prefixes: Prefixes,
}

/// What a piece took, for its report.
#[derive(Default)]
struct PieceFigures {
    leaves: u64,
    resumed: u64,
    retries: u64,
    /// The seconds spent making the nodes above the pieces, and how many, by depth (index 0:
    /// the roots' children).
    above: Vec<(f64, usize)>,
    /// The nodes above the piece in progress that it made, by depth (index 0: the roots'
    /// children), for its record (see [`Host::above`]).
    made: Vec<Option<Made>>,
}

impl PieceFigures {
    fn above_secs(&self) -> f64 {
        self.above.iter().map(|&(s, _)| s).sum()
    }

    /// A node of `depth` (from 1) made in `secs`.
    fn add_above(&mut self, depth: usize, secs: f64) {
        if self.above.len() < depth {
            self.above.resize(depth, (0.0, 0));
        }
        self.above[depth - 1].0 += secs;
        self.above[depth - 1].1 += 1;
    }
}

impl<K: Key> Run<'_, K> {
    /// A meeting in the middle cut by the digit tree: the shared walk, then the pieces this
    /// process counts, each reported as it is done.
    pub(crate) fn meet(&mut self, cut: Cut, host: &dyn Host) -> Result<Ran, RunError> {
        let shards = self.limits.shards.max(1) as usize;
        // a resumed run takes the depth its log records, and skips the shared work when none
        // of its pieces is left
        let mut todo = None;
        if let Some(rec) = host.recorded() {
            if let Some(d) = depth_of_param(rec.param) {
                let split = self.tree_split(cut, d as usize, shards);
                let left = host.start(&split)?;
                if left.is_empty() {
                    self.finish_files();
                    return Ok(Ran::default());
                }
                todo = Some((split, left));
            }
        }
        let Some(roots) = self.roots(cut)? else {
            return Ok(self.interrupted());
        };
        // the forward walk's freed tables go back to the system before the pieces (and before
        // the line that projects them reads the resident size) where they are past a node's
        // spill: the allocator keeps freed memory for the next tables (`src/allocator.rs`), and
        // the tree's are of other sizes (8x10 closed was resident in 3.7 GiB here with 184 MiB
        // held, and its line said 7.4 GiB for a peak of 5.7). Not on smaller counts, whose
        // tree reuses it (7x8 closed peaked at 267 MiB with it given back, 240 without)
        if crate::memory::resident_bytes().is_some_and(|r| r > spill_bytes(self.limits.max_memory))
        {
            give_back();
        }
        // a run whose log records no cut yet (begun now, or kept in a ledger alone): it may
        // count a sample of every class first
        let fresh = todo.is_none();
        let (split, mut todo) = match todo {
            Some(t) => t,
            None => {
                let d = match self.limits.tree.depth {
                    // a piece with moves within a column has no digits on the right side
                    _ if !self.walk.column_free() => 0,
                    Some(d) => (d as usize).min(self.walk.w as usize),
                    None => self.choose_depth(&roots, shards),
                };
                let split = self.tree_split(cut, d, shards);
                let todo = host.start(&split)?;
                (split, todo)
            }
        };
        let depth = depth_of_param(split.param).expect("a tree cut") as usize;
        let plan = self.plan(cut, depth);
        self.announce(&roots, &plan, &split, todo.len());
        // a piece's layers, as progress and messages number them: the crossing's steps and
        // the join
        self.total = plan.m + 1;
        self.open_leaves(split.fingerprint);
        let order = order(split.pieces, shards);
        todo.sort_by_key(|&i| order[i]);
        // each piece's seconds, for the rest's projection by class (pieces differ by their class
        // far more than by anything else: 8x8 open's 5 s to an hour)
        let classes = piece_classes(split.param, split.pieces, shards as u32).unwrap_or_default();
        // the piece a stop left half done goes first, whatever the order it was begun in (a
        // sample's): beginning another would drop its leaves
        let mut half_done = false;
        if let Some((i, _)) = self.leaves.held() {
            if let Some(at) = todo.iter().position(|&t| t as u64 == i) {
                let i = todo.remove(at);
                todo.insert(0, i);
                half_done = true;
            }
        }
        let sampled = if fresh && !half_done {
            sample_first(&mut todo, &classes, &order, plan.depth, split.fingerprint)
        } else {
            0
        };
        if sampled > 0 {
            self.obs.rest(None);
            self.obs.info(&format!(
                "the first {sampled} pieces are drawn at random, one of each class (how many of a piece's digits are 1, which sets its time), so that the projection of the rest stands on every class, the heaviest included; drawn under one node of the tree where they can be, so that it is made once for them, and then the rest of that node's pieces and the others in the tree's order"
            ));
        }
        let mut path: Vec<(u64, Node<K>, Node<K>)> = Vec::new();
        host.pieces_begin();
        let t = Instant::now();
        let mut figures = PieceFigures::default();
        let mut done = 0usize;
        // pieces that do not fit the bound, left for more memory: where the pieces counted are
        // kept (a checkpoint, a ledger), the others are counted first
        let mut left: Vec<(usize, RunError)> = Vec::new();
        let mut took: BTreeMap<usize, f64> = BTreeMap::new();
        // a run that goes on takes the times its log records (each piece's own, the nodes above
        // it apart), so that the pieces left are projected from the start
        let earlier = host.earlier();
        let records = (earlier.iter())
            .filter(|t| t.piece < split.pieces)
            .map(|t| (t.piece, t.wall, t.above.as_deref()));
        let (own, made) = own_times(records, plan.depth, &classes, |m| m.wall);
        took.extend(own);
        figures.above = made;
        if let Some((secs, 0)) = by_class(&took, &classes, todo.iter().copied())
            .filter(|_| !todo.is_empty() && !earlier.is_empty())
        {
            let rest = secs + above_left(&order, plan.depth, &todo, &[], &figures.above);
            self.obs.rest(Some(rest));
            self.obs.info(&format!(
                "the {} piece{} left projected at {} from the times of the {} the log records (each piece at the mean time of those of its class, and the nodes above them to make at the mean of their depth)",
                todo.len(),
                plural(todo.len() as u64),
                human_duration(rest),
                group_u64(took.len() as u64)
            ));
        }
        for (n, &i) in todo.iter().enumerate() {
            if self.stopped() {
                return Ok(self.interrupted());
            }
            self.piece = Some((i, split.pieces));
            let p = order[i];
            let began = t.elapsed().as_secs_f64();
            let above_before = figures.above_secs();
            figures.made.clear();
            let resumed = self.leaves.begin(i as u64)?;
            if resumed > 0 {
                host.resumed(i, resumed);
                self.obs.info(&format!(
                    "piece {}: {resumed} lea{} counted before it stopped, read back from beside the log; going on from there",
                    i + 1,
                    if resumed == 1 { "f" } else { "ves" }
                ));
            }
            let count = match self.piece_count(&plan, &roots, &mut path, p, &mut figures) {
                Ok(c) => c,
                Err(_) if self.stopped() => return Ok(self.interrupted()),
                Err(e) if self.limits.checkpoint.is_some() && self.out_of_memory(&e) => {
                    self.obs.warn(&format!(
                        "{e}; piece {} is left for more memory, and the count goes on with the next",
                        i + 1
                    ));
                    host.left(i);
                    path.clear();
                    self.relieve();
                    left.push((i, e));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let made: Vec<Made> = figures.made.iter().flatten().copied().collect();
            host.above(i, &made);
            host.done(i, count)?;
            done += 1;
            let spent = t.elapsed().as_secs_f64();
            // a piece resumed from its leaves is not a piece's whole time; the nodes above it
            // are projected apart (see `above_left`)
            if resumed == 0 {
                took.insert(i, spent - began - (figures.above_secs() - above_before));
            }
            let kept: Vec<u64> = path.iter().map(|n| n.0).collect();
            let (rest, unmeasured) = by_class(&took, &classes, todo[n + 1..].iter().copied())
                .map(|(secs, u)| {
                    let above =
                        above_left(&order, plan.depth, &todo[n + 1..], &kept, &figures.above);
                    (secs + above, u)
                })
                .unwrap_or((spent / done as f64 * (todo.len() - done) as f64, 0));
            // while classes are still unseen (the sample's heavier pieces to come), the
            // projection would take them at the lighter ones' time: none is given
            if unmeasured == 0 {
                self.obs.rest(Some(rest));
            }
            if spent < 10.0 || done == todo.len() {
                // a short count, or its end: nothing to say
            } else if n + 1 < sampled {
                // the sample's pieces are said as the others are, without a projection
                self.obs.info(&format!(
                    "piece {} of {} counted, {} of the {sampled} drawn first, in {}",
                    i + 1,
                    split.pieces,
                    n + 1,
                    human_duration(spent)
                ));
            } else if n + 1 == sampled {
                self.obs.info(&format!(
                    "the {sampled} pieces drawn, one of each class, took {}; the other {} projected at {}, each at the time of its class's piece without the nodes above it, which are made once for the pieces under them",
                    human_duration(spent),
                    todo.len() - sampled,
                    human_duration(rest)
                ));
            } else {
                self.obs.info(&format!(
                    "piece {} of {} counted; {} of this process's {} done in {}, the rest projected at {} (each piece at the mean time of the pieces counted of its class, and the nodes above them still to make at the mean of their depth)",
                    i + 1,
                    split.pieces,
                    done,
                    todo.len(),
                    human_duration(spent),
                    human_duration(rest)
                ));
            }
        }
        drop(path);
        if let Some((_, first)) = left.first() {
            let pieces: Vec<String> = left.iter().map(|(i, _)| i.to_string()).collect();
            return Err(RunError::Input(Error::Invalid(format!(
                "{first}; {} of this run's {} pieces did not fit and {} left (--only {}); the others are counted and kept: run the same command under a larger --max-memory, here or on a machine with more memory, to count {}",
                left.len(),
                todo.len(),
                if left.len() == 1 { "is" } else { "are" },
                pieces.join(","),
                if left.len() == 1 { "it" } else { "them" },
            ))));
        }
        self.finish_files();
        let how = format!(
            "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns in {} piece{} (a digit tree of the first boundary column, {} leaves here{})",
            cut.left,
            cut.right,
            cut.cross,
            group_u64(split.pieces as u64),
            plural(split.pieces as u64),
            group_u64(figures.leaves),
            if figures.resumed > 0 {
                format!(
                    ", {} read back from a stopped run",
                    group_u64(figures.resumed)
                )
            } else {
                String::new()
            }
        );
        Ok(Ran {
            how: Some(how),
            peak: Some(self.peak()),
            work: Some(Box::new(self.work())),
        })
    }

    /// The work every piece shares: the forward walk to the tables at the cut, or the split
    /// file that holds them (made by this process before, or by another shard). `None` when
    /// interrupted (the walk so far saved beside the checkpoint).
    fn roots(&mut self, cut: Cut) -> Result<Option<Roots<K>>, RunError> {
        // one process makes a split the shards share, the others wait for it and read it; a
        // split of this run alone is guarded by the checkpoint's lock
        let shared = self
            .split_path
            .clone()
            .filter(|_| self.limits.split.is_some());
        let _turn = match &shared {
            Some(p) => {
                let obs = self.obs;
                let waiting = || {
                    obs.info(&format!(
                        "waiting for '{}': another process is making it",
                        p.display()
                    ));
                };
                match TurnLock::wait(p, self.stop, waiting)? {
                    Some(t) => Some(t),
                    None => return Ok(None),
                }
            }
            None => None,
        };
        if let Some(p) = self.split_path.clone() {
            if let Some(r) = self.tables_timed(|run| run.read_roots(&p, cut))? {
                return Ok(Some(r));
            }
        }
        let w = self.walk.w as usize;
        let (lsq, rq) = (cut.left as usize * w, (cut.right as usize - 1) * w);
        let end = lsq.max(rq);
        let fwd = layout::steps::<K>(&self.walk, &self.rules, 0, end as u32);
        self.total = end;
        let resume = match self.tables_timed(|run| run.load_layers()) {
            // stopped while the saved layer was read back: it stays as it was
            Err(_) if self.stopped() => return Ok(None),
            r => r?,
        };
        let (mut layer, mut done, mut left, mut right) = match resume {
            Some(mut s) if s.phase == "forward" && s.done % w == 0 && s.done <= end => {
                let done = s.done;
                let current = s.take("current").ok_or_else(|| self.foreign_phase())?;
                (current, done, s.take("left"), s.take("right"))
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (self.first_layer(), 0, None, None),
        };
        self.saver.saved = done > 0;
        self.progress(done, &layer, "forward");
        let mut rate = 0.0;
        while done < end {
            let t = Instant::now();
            let read0 = self.sweep.read;
            let tree = self.limits.tree;
            let leaf = if layer.len() > tree.column_states.unwrap_or(COLUMN_TREE_STATES)
                && self.walk.column_free()
            {
                tree.leaf_states.unwrap_or(LEAF_STATES)
            } else {
                u64::MAX
            };
            // the roots already made wait in memory beside the walk's tables, within the bound
            // (6x10 open under 64M on 2 threads held its left root, 9.9 MiB, uncounted, and was
            // resident in 91 MiB)
            let beside = self.sweep.beside;
            self.sweep.beside += [&left, &right]
                .iter()
                .filter_map(|r| r.as_ref())
                .map(Node::bytes)
                .sum::<u64>();
            let next = self.column(&layer, &fwd[done..done + w], leaf, done);
            self.sweep.beside = beside;
            let next = match next {
                Ok(l) => l,
                Err(_) if self.stopped() => {
                    if !self.saver.saved {
                        self.save_forward(done, end, &layer, left.as_ref(), right.as_ref(), true)?;
                    }
                    return Ok(None);
                }
                Err(e) => return Err(e),
            };
            let reads = self.sweep.read - read0;
            rate = t.elapsed().as_secs_f64() / reads.max(1) as f64;
            self.column_reads = reads as f64 / layer.len().max(1) as f64;
            self.column_start = layer.len();
            layer = next;
            done += w;
            self.saver.saved = false;
            self.check_reach(done - 1, &layer, done == end)?;
            // the last column's table where it waits on disk: moved to its half below, not
            // copied (a copy at the walk's largest table held it twice: 8x10 closed 2.9 GiB
            // more); a smaller one is copied, which packs it (7x8 closed peaked at 267 MiB
            // with its table moved, 240 copied)
            if done == end && root_on_disk(layer.bytes() as f64, self.limits.max_memory) {
                break;
            }
            if done == lsq {
                left = Some(layer.clone());
            }
            if done == rq && rq != lsq {
                right = Some(layer.clone());
            }
            // a column whose leaves were recorded is saved at its end before they go (the
            // last column's end is saved as the split below)
            let leaves = self.column_log.any();
            if (leaves || self.saver.due()) && done < end {
                self.save_forward(done, end, &layer, left.as_ref(), right.as_ref(), false)?;
            }
            if leaves && done < end && self.saver.saved {
                self.column_log.clear();
            }
        }
        if done == lsq && left.is_none() {
            left = Some(layer);
        } else if done == rq && rq != lsq && right.is_none() {
            right = Some(layer);
        } else {
            drop(layer);
        }
        let left = left.ok_or_else(|| self.foreign_phase())?;
        self.tables_timed(|run| {
            if let Some(p) = &run.split_path {
                let mut tables = vec![("left", left.src())];
                if let Some(r) = &right {
                    tables.push(("right", r.src()));
                }
                snapshot::save(
                    p,
                    &run.name,
                    "split",
                    (rate * 1e12) as usize,
                    (0, 0),
                    &tables,
                    None,
                )?;
                run.saver.clear();
                run.column_log.clear();
            }
            run.make_roots(left, right, rate).map(Some)
        })
    }

    /// `f` on this run, its time recorded as the tables' phase (`sweep::TABLES`): the forward
    /// walk's tables written, read back and made into roots, which the threads share (the
    /// states inserted and mirrored on every thread) but which ran outside every phase before.
    fn tables_timed<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let (t0, c0) = (Instant::now(), crate::engine::cpu_seconds());
        let r = f(self);
        self.sweep.add_time(super::sweep::TABLES, t0, c0);
        r
    }

    fn save_forward(
        &mut self,
        done: usize,
        end: usize,
        layer: &Node<K>,
        left: Option<&Node<K>>,
        right: Option<&Node<K>>,
        stopping: bool,
    ) -> Result<(), RunError> {
        let mut tables = Vec::new();
        if let Some(l) = left {
            tables.push(("left", l.src()));
        }
        if let Some(r) = right {
            tables.push(("right", r.src()));
        }
        tables.push(("current", layer.src()));
        let stage = ("forward", done, done, end);
        self.tables_timed(|run| {
            if stopping {
                run.saver.save_stopping(&run.name, stage, &tables, run.obs)
            } else {
                run.saver.save(&run.name, stage, &tables, run.obs)
            }
        })
    }

    /// The shared tables saved at `p`, if there is such a file.
    fn read_roots(&mut self, p: &std::path::Path, cut: Cut) -> Result<Option<Roots<K>>, RunError> {
        let Some(mut s) =
            snapshot::load_to::<K>(p, &self.name, self.walk.key_bytes(), self.spill_to(), None)?
        else {
            return Ok(None);
        };
        let w = self.walk.w;
        if s.phase != "split" {
            return Err(Self::foreign_phase_of(p));
        }
        let left = s.take("left").ok_or_else(|| Self::foreign_phase_of(p))?;
        let right = s.take("right");
        if right.is_some() == (cut.left == cut.right - 1) {
            return Err(Self::foreign_phase_of(p));
        }
        let _ = w;
        self.make_roots(left, right, s.done as f64 * 1e-12)
            .map(Some)
    }

    /// The roots of the tree from the forward walk's tables (the left's own table where the
    /// two are one): the side walked less below the root made true (see `TRUE_RIGHT` in
    /// `sizes.rs`), the right kept on disk where it is large.
    fn make_roots(
        &mut self,
        left: Node<K>,
        right: Option<Node<K>>,
        rate: f64,
    ) -> Result<Roots<K>, RunError> {
        self.relieve();
        let right = match right {
            Some(r) => r,
            None => left.clone(),
        };
        let (left_merged, right_len) = (left.len(), right.len());
        let true_right = true_right(left_merged, right_len);
        if let Some(s) = &self.sink {
            s.lock().expect("no panic holding the lock").true_right = true_right;
        }
        let mirror = |cols: u32| {
            let steps = layout::steps::<K>(
                &self.walk,
                &self.rules,
                cols * self.walk.w - 1,
                cols * self.walk.w,
            );
            let step = steps.into_iter().next().expect("one step");
            (
                step.mirror
                    .expect("a symmetric count merges mirror images at column ends"),
                step.width,
            )
        };
        let cut = self.cut.expect("a meeting");
        let (left, right) = if true_right {
            let (perm, width) = mirror(cut.right - 1);
            let right = self.unmerged(right.src(), &perm, width)?;
            (left, right)
        } else {
            let (perm, width) = mirror(cut.left);
            (self.unmerged(left.src(), &perm, width)?, right)
        };
        let keep = |l: Node<K>| -> Result<Node<K>, RunError> {
            match l {
                Node::Mem(l) if root_on_disk(l.bytes() as f64, self.limits.max_memory) => {
                    Ok(Node::Disk(Arc::new(l.spill(self.scratch())?)))
                }
                l => Ok(l),
            }
        };
        let (left, right) = (keep(left)?, keep(right)?);
        Ok(Roots {
            left,
            right,
            left_merged,
            right_len,
            true_right,
            rate,
        })
    }

    /// The true table of a merged one: each state and its mirror image (by `perm` over
    /// `width` slots) with half the merged count each.
    fn unmerged(&self, layer: Src<'_, K>, perm: &Perm<K>, width: u32) -> Result<Node<K>, RunError> {
        let builder = self
            .sweep
            .new_table(layer.len() * 2, layer.shape(), layer.bytes(), 1);
        let odd = AtomicBool::new(false);
        let read = layer.par_each(
            &|| builder.failed(),
            &|| (Batch::new(&builder), Vec::new()),
            &|(batch, half): &mut (Batch<'_, K>, Vec<u64>), k, c| {
                let m = perm.apply(k, width);
                if m == k {
                    batch.push(k, c);
                    return;
                }
                // Relaxed: read once all workers are done
                if c.get(0) & 1 == 1 {
                    odd.store(true, Ordering::Relaxed);
                }
                half.clear();
                for i in 0..c.len() {
                    let next = if i + 1 < c.len() { c.get(i + 1) } else { 0 };
                    half.push((c.get(i) >> 1) | (next << 63));
                }
                batch.push_words(k, half);
                batch.push_words(m, half);
            },
            &drop,
        );
        read?;
        if odd.load(Ordering::Relaxed) {
            return Err(Error::Invalid(format!(
                "the frontier tables of {} hold a state whose merged count with its mirror image is odd, which no whole number of tours gives: the count cannot be trusted (a fault of the machine or the program; please report it)",
                self.req.board
            ))
            .into());
        }
        builder.finish_node().map_err(|e| self.tree_stopped(e, 0))
    }

    /// Removes the files of a finished count: the leaves, the saved stage, and the shared
    /// tables unless other shards share them (`--split`).
    fn finish_files(&mut self) {
        self.leaves.clear();
        self.column_log.clear();
        self.saver.clear();
        if let Some(p) = self
            .split_path
            .as_ref()
            .filter(|_| self.limits.split.is_none())
        {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The cut into the `3^depth` nodes of depth `depth`, numbered for `shards` shards: its
    /// fingerprint says how (the rule, the run, the cut, the depth, the shards), so that the
    /// shards of one run, each making the shared tables itself, agree.
    pub(crate) fn tree_split(&self, cut: Cut, depth: usize, shards: usize) -> Split {
        let mut h = crate::hash::Fnv::default();
        h.eat(RULE.as_bytes());
        for (k, v) in &self.name.fields {
            h.eat(k.as_bytes());
            h.eat(v.as_bytes());
        }
        for x in [cut.left, cut.right, cut.cross, self.walk.w] {
            h.eat(&x.to_le_bytes());
        }
        h.eat(&(depth as u64).to_le_bytes());
        h.eat(&(shards as u64).to_le_bytes());
        let pieces = 3usize.pow(depth as u32);
        Split {
            pieces,
            param: TREE_PARAM | depth,
            fingerprint: h.value(),
            weights: vec![self.scale; pieces],
        }
    }

    /// The depth of the pieces: enough of them that each stands for about `PIECE_STATES`
    /// (`sizes.rs`) states of the shared tables, and at least one a shard; at most the first
    /// column's squares.
    fn choose_depth(&self, roots: &Roots<K>, shards: usize) -> usize {
        depth_for(roots.left.len() + roots.right.len(), shards, self.walk.w)
    }

    fn plan(&self, cut: Cut, depth: usize) -> Plan<K> {
        let w = self.walk.w as usize;
        let m = cut.cross as usize * w;
        let (xsteps, ysteps) =
            layout::meet_steps(&self.walk, &self.rules, (cut.left, cut.right, cut.cross));
        let leaf_states = leaf_states(self.limits, (self.walk.key_bytes() + 8) as u64);
        Plan {
            cut,
            xsteps,
            ysteps,
            boundary: Boundary {
                slots: (0..m as u32).rev().collect(),
            },
            m,
            w,
            depth,
            leaf_states,
            spill_bytes: spill_bytes(self.limits.max_memory),
        }
    }

    /// Tells the user how the count is cut and what it is projected to take.
    fn announce(&self, roots: &Roots<K>, plan: &Plan<K>, split: &Split, mine: usize) {
        let (seconds, bytes) = self.projection(roots, plan);
        let shards = self.limits.shards.max(1);
        self.obs.info(&format!(
            "{} {} tours: {} piece{} (the digits of the first {} boundary square{}; the tables they share hold {} and {} states, the {} made true); projected about {} for {} on {} thread{}, {} of memory at the most",
            self.req.board,
            if self.req.spec.closed { "closed" } else { "open" },
            group_u64(split.pieces as u64),
            plural(split.pieces as u64),
            plan.depth,
            plural(plan.depth as u64),
            group_u64(roots.left_merged),
            group_u64(roots.right_len),
            if roots.true_right { "right" } else { "left" },
            human_duration(seconds * mine as f64 / split.pieces as f64),
            if mine < split.pieces {
                format!(
                    "{}the {mine} to count (at the mean piece's share)",
                    if shards > 1 { "this shard's part, " } else { "" }
                )
            } else {
                "all".to_string()
            },
            self.limits.threads,
            plural(self.limits.threads as u64),
            human_bytes(bytes)
        ));
    }

    /// The whole count's time after the shared walk, and its peak memory, projected from the
    /// forward walk's rate and the tables the pieces start from.
    pub(crate) fn projection(&self, roots: &Roots<K>, plan: &Plan<K>) -> (f64, u64) {
        let reads = reads(
            self.walk.w,
            roots.left.len(),
            roots.right.len(),
            self.column_reads_measured(),
        );
        // a state read by the tree costs about what one read by the forward walk's last column
        // did (0.12 to 0.14 µs on two threads, the joins included, against 0.10 to 0.17)
        let rate = if roots.rate > 0.0 {
            roots.rate
        } else {
            super::SECONDS_PER_READ / self.limits.threads.max(1) as f64
        };
        // a leaf's walk at its largest: leaves of leaf_states states, or the largest node a
        // small count has
        let entry = self.walk.key_bytes() as u64 + 8;
        let roots_states = roots.left.len() + roots.right.len();
        let above = above_bytes(
            roots.left.len(),
            roots.right.len(),
            plan.depth,
            entry as f64 / 0.7,
            plan.spill_bytes as f64,
        );
        // the pieces' part on what is resident now (the forward walk's freed memory given back,
        // see `meet`), or the forward walk's peak where that was more
        let pieces = crate::memory::resident_bytes().unwrap_or(0) as f64
            + above
            + leaf_bytes(
                plan.leaf_states,
                roots_states,
                entry,
                leaf_growth(self.column_reads_measured(), self.walk.w),
            );
        let bytes = pieces.max(crate::memory::peak_resident_bytes().unwrap_or(0) as f64);
        (reads * rate, (bytes as u64).min(self.limits.max_memory))
    }

    /// The states the forward walk's last column read for each it started from, where it
    /// started from enough of them to stand for the next column (the right half's last).
    fn column_reads_measured(&self) -> Option<f64> {
        (self.column_start >= COLUMN_MEASURED).then_some(self.column_reads)
    }

    /// The count of the piece at node `(depth, p)`: its node made from the roots along `path`
    /// (the nodes above kept from the piece before where they lie on its way), then its subtree.
    fn piece_count(
        &mut self,
        plan: &Plan<K>,
        roots: &Roots<K>,
        path: &mut Vec<(u64, Node<K>, Node<K>)>,
        p: u64,
        figures: &mut PieceFigures,
    ) -> Result<BigUint, RunError> {
        let d = plan.depth;
        if let Some(c) = self.leaves.get(d, p) {
            figures.resumed += 1;
            return Ok(c.clone());
        }
        // the nodes kept: those on the way to (d, p)
        let on_way = |j: usize, q: u64| q == p / 3u64.pow((d - j) as u32);
        let keep = path
            .iter()
            .enumerate()
            .take_while(|(j, n)| on_way(j + 1, n.0))
            .count();
        path.truncate(keep);
        for j in keep..d {
            let q = p / 3u64.pow((d - j - 1) as u32);
            let (x, y) = match path.last() {
                Some((_, x, y)) => (x, y),
                None => (&roots.left, &roots.right),
            };
            if x.len() == 0 || y.len() == 0 {
                return Ok(BigUint::ZERO);
            }
            let began = Instant::now();
            let cpu = crate::engine::cpu_seconds();
            let (xc, yc) = self.child(plan, j, x, y, (q % 3) as usize)?;
            let wall = began.elapsed().as_secs_f64();
            let cpu = crate::engine::cpu_since(cpu);
            path.push((q, xc, yc));
            // the piece's own node is its own work, of its class; those above it are shared
            if j + 1 == d {
                continue;
            }
            figures.add_above(j + 1, wall);
            if figures.made.len() <= j {
                figures.made.resize(j + 1, None);
            }
            let m = figures.made[j].get_or_insert(Made {
                depth: j + 1,
                wall: 0.0,
                cpu: 0.0,
            });
            m.wall += wall;
            m.cpu += cpu;
        }
        let (x, y) = match path.last() {
            Some((_, x, y)) => (x, y),
            None => (&roots.left, &roots.right),
        };
        let mut count = BigUint::ZERO;
        // the nodes above, and the roots, held beside the piece's walks
        let held = path
            .iter()
            .map(|(_, x, y)| x.bytes() + y.bytes())
            .sum::<u64>()
            + roots.left.bytes()
            + roots.right.bytes();
        self.sweep.beside = held;
        let counted = self.node(plan, d, p, x, Side::Open(y), &mut count, figures);
        self.sweep.beside = 0;
        counted?;
        Ok(count)
    }

    /// The child of digit `c` of a node at depth `j` whose right side is not yet indexed: its
    /// crossing states (whose square needs from the right what the right's has: the crossing's
    /// child of digit `2 - c`) and its right states, each kept on disk where it is large.
    fn child(
        &mut self,
        plan: &Plan<K>,
        j: usize,
        x: &Node<K>,
        y: &Node<K>,
        c: usize,
    ) -> Result<(Node<K>, Node<K>), RunError> {
        self.progress_of(j + 1, x.len(), x.bytes(), "crossing");
        let xc = self.one_child(x, &plan.xsteps[j], 2 - c, None, j)?;
        let xc = self.maybe_spill(plan, xc)?;
        self.progress_of(j + 1, y.len(), y.bytes(), "right half");
        let yc = self.one_child(y, &plan.ysteps[j], c, None, j)?;
        let yc = self.maybe_spill(plan, yc)?;
        Ok((xc, yc))
    }

    /// The child of digit `digit` of `node` by `step`, the states `admits` admits after step
    /// `j` (where the right side is indexed).
    fn one_child(
        &mut self,
        node: &Node<K>,
        step: &Step<K>,
        digit: usize,
        admits: Option<&Indexed>,
        j: usize,
    ) -> Result<Node<K>, RunError> {
        let keep = |k: K| admits.is_none_or(|i| i.prefixes.admits(j, k));
        let mut kids = self
            .sweep
            .children(node.src(), step, Some(digit), 0, keep)
            .map_err(|e| self.tree_stopped(e, j))?;
        Ok(kids.pop().expect("one child"))
    }

    /// A node kept on disk where it is large (its children read it back one at a time).
    fn maybe_spill(&self, plan: &Plan<K>, layer: Node<K>) -> Result<Node<K>, RunError> {
        match layer {
            Node::Mem(l) if l.bytes() > plan.spill_bytes => {
                Ok(Node::Disk(Arc::new(l.spill(self.scratch())?)))
            }
            l => Ok(l),
        }
    }

    /// Where tables wait on disk (see [`super::scratch_dir`]).
    fn scratch(&self) -> &Scratch {
        &self.sweep.scratch
    }

    /// Counts the subtree of node `(j, p)` into `count`: a leaf where it is small (or its
    /// digits are all fixed), its three children otherwise.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        plan: &Plan<K>,
        j: usize,
        p: u64,
        x: &Node<K>,
        y: Side<'_, K>,
        count: &mut BigUint,
        figures: &mut PieceFigures,
    ) -> Result<(), RunError> {
        if x.len() == 0 {
            return Ok(());
        }
        if self.stopped() {
            return Err(self.tree_stopped(Stopped::Interrupted, j));
        }
        if let Some(c) = self.leaves.get(j, p) {
            *count += c;
            figures.resumed += 1;
            return Ok(());
        }
        let must_split = self.leaves.below(j, p);
        self.relieve();
        let indexed;
        let mut made_here = false;
        let y = match y {
            Side::Open(node) => {
                if node.len() == 0 {
                    return Ok(());
                }
                let last = j == plan.w || !self.walk.column_free();
                if last || node.len() <= plan.leaf_states {
                    match self.finish_right(plan, j, node) {
                        Ok(i) => {
                            indexed = i;
                            made_here = true;
                            Side::Done(&indexed)
                        }
                        // too large for memory: cut again
                        Err(e) if !last && !self.stopped() && self.out_of_memory(&e) => {
                            figures.retries += 1;
                            Side::Open(node)
                        }
                        Err(e) => return Err(e),
                    }
                } else {
                    Side::Open(node)
                }
            }
            done => done,
        };
        // what this node holds while its subtree is walked: its own sides, and the index it
        // made, beside the walks below
        let held = x.bytes()
            + match y {
                Side::Open(n) => n.bytes(),
                Side::Done(f) if made_here => f.index.bytes(),
                Side::Done(_) => 0,
            };
        self.sweep.beside += held;
        let below = self.below(plan, j, p, x, y, must_split, count, figures);
        self.sweep.beside -= held;
        below
    }

    /// [`Run::node`] once its right side is open or indexed: a leaf, or its children.
    #[allow(clippy::too_many_arguments)]
    fn below(
        &mut self,
        plan: &Plan<K>,
        j: usize,
        p: u64,
        x: &Node<K>,
        y: Side<'_, K>,
        must_split: bool,
        count: &mut BigUint,
        figures: &mut PieceFigures,
    ) -> Result<(), RunError> {
        if let Side::Done(fin) = y {
            if !must_split && (j == plan.m || x.len() <= plan.leaf_states) {
                match self.leaf(plan, j, x, fin) {
                    Ok(c) => {
                        self.leaves.record(j, p, &c)?;
                        if let Some(s) = &self.sink {
                            let mut s = s.lock().expect("no panic holding the lock");
                            s.leaves.push((j, p, c.clone()));
                        }
                        *count += c;
                        figures.leaves += 1;
                        return Ok(());
                    }
                    Err(e) if j == plan.m || self.stopped() || !self.out_of_memory(&e) => {
                        return Err(e);
                    }
                    // too large for memory: cut again
                    Err(_) => figures.retries += 1,
                }
            }
        }
        let ylen = match y {
            Side::Open(n) => n.len(),
            Side::Done(_) => 0,
        };
        // the three children at once beside the node where they fit (about twice its states,
        // in tables below full), one at a time otherwise
        let entry = (self.walk.key_bytes() + 8) as u64;
        let children = (x.len() + ylen) * entry * 3;
        let room = (self.sweep.limit.tables).saturating_sub(self.sweep.beside + x.bytes());
        if x.len() + ylen <= ONE_PASS_STATES && children <= room {
            let fin = match y {
                Side::Done(f) => Some(f),
                Side::Open(_) => None,
            };
            let admits = |k: K| fin.is_none_or(|i| i.prefixes.admits(j, k));
            self.progress_of(j + 1, x.len(), x.bytes(), "crossing");
            let xs = self
                .sweep
                .children(x.src(), &plan.xsteps[j], None, 0, admits)
                .map_err(|e| self.tree_stopped(e, j))?;
            let ys = match y {
                Side::Open(node) => {
                    self.progress_of(j + 1, node.len(), node.bytes(), "right half");
                    self.sweep
                        .children(node.src(), &plan.ysteps[j], None, 0, |_| true)
                        .map_err(|e| self.tree_stopped(e, j))?
                        .into_iter()
                        .map(Some)
                        .collect()
                }
                Side::Done(_) => Vec::new(),
            };
            // a crossing state's square needs from the right what a right state's has: the
            // crossing's child of digit 2 - c meets the right's child of digit c
            // the children wait for their turn on disk where they are large, as one at a time
            let mut xs: Vec<Option<Node<K>>> = xs
                .into_iter()
                .rev()
                .map(|n| self.maybe_spill(plan, n).map(Some))
                .collect::<Result<_, _>>()?;
            let mut ys: Vec<Option<Node<K>>> = ys
                .into_iter()
                .map(|n| n.map(|n| self.maybe_spill(plan, n)).transpose())
                .collect::<Result<_, _>>()?;
            for c in 0..xs.len() {
                let q = p * 3 + c as u64;
                let xc = xs[c].take().expect("each child once");
                let yc = ys.get_mut(c).and_then(Option::take);
                // the children still to walk wait in memory beside this one's walks
                let rest: u64 = xs.iter().chain(&ys).flatten().map(Node::bytes).sum();
                self.sweep.beside += rest;
                let walked = match (yc, fin) {
                    (Some(yc), _) => {
                        self.node(plan, j + 1, q, &xc, Side::Open(&yc), count, figures)
                    }
                    (None, Some(f)) => {
                        self.node(plan, j + 1, q, &xc, Side::Done(f), count, figures)
                    }
                    (None, None) => unreachable!("a node's right side is open or indexed"),
                };
                self.sweep.beside -= rest;
                walked?;
            }
            return Ok(());
        }
        // one child at a time, the node staying (on disk where it is large)
        for c in 0..3 {
            let q = p * 3 + c as u64;
            match y {
                Side::Open(node) => {
                    let (xc, yc) = self.child(plan, j, x, node, c)?;
                    self.node(plan, j + 1, q, &xc, Side::Open(&yc), count, figures)?;
                }
                Side::Done(f) => {
                    self.progress_of(j + 1, x.len(), x.bytes(), "crossing");
                    let xc = self.one_child(x, &plan.xsteps[j], 2 - c, Some(f), j)?;
                    let xc = self.maybe_spill(plan, xc)?;
                    self.node(plan, j + 1, q, &xc, Side::Done(f), count, figures)?;
                }
            }
        }
        Ok(())
    }

    /// Where the process holds more than half its bound, asks every thread's allocator to give
    /// back the memory it keeps freed (at a point where no table is being filled).
    fn relieve(&self) {
        relieve(self.limits.max_memory);
    }

    /// Whether an error is a memory stop (a leaf too large, cut again).
    fn out_of_memory(&self, e: &RunError) -> bool {
        matches!(e, RunError::Input(Error::Invalid(m)) if m.contains("needs more than"))
    }

    /// A right node at depth `j` walked to its column's end and indexed for the join.
    fn finish_right(
        &mut self,
        plan: &Plan<K>,
        j: usize,
        node: &Node<K>,
    ) -> Result<Indexed, RunError> {
        let may_cut = j < plan.w && self.walk.column_free();
        let end = self.walk_all(node.src(), &plan.ysteps[j..], j, "right half")?;
        // a side that went to disk on its way is larger than memory allows for an index: cut
        // again where it can be (at the column's end it cannot: indexed from its file)
        if let (Node::Disk(s), true) = (&end, may_cut) {
            return Err(self.memory_error(s.raw_bytes(), self.total.saturating_sub(1)));
        }
        let index = self.right_index(end, plan.cut, may_cut)?;
        let prefixes = Prefixes::new(&index, plan.m);
        Ok(Indexed { index, prefixes })
    }

    /// A leaf: the crossing from node depth `j` walked to its end against the indexed right
    /// side, and joined.
    fn leaf(
        &mut self,
        plan: &Plan<K>,
        j: usize,
        x: &Node<K>,
        fin: &Indexed,
    ) -> Result<BigUint, RunError> {
        let keep = |i: usize, k: K| fin.prefixes.admits(j + i, k);
        let end = self.walk_kept(x.src(), &plan.xsteps[j..], j, "crossing", &keep)?;
        self.progress(plan.m + 1, &end, "join");
        let joined = self.sweep.timed(super::sweep::JOIN, || {
            join::join_src(
                end.src(),
                &plan.boundary,
                &fin.index,
                self.req.spec.closed,
                self.stop,
            )
        });
        match joined {
            Ok(Some(c)) => Ok(c),
            Ok(None) => Err(self.tree_stopped(Stopped::Interrupted, plan.m)),
            Err(e) => Err(e.into()),
        }
    }
}
