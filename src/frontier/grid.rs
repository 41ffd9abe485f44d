//! Pieces cut on both sides of the middle (a *grid*), for counts whose shared part does not fit
//! one machine: 8×8 open, whose walk to the middle alone passes 20 GiB.
//!
//! The pieces of `pieces.rs` share the walk to the cut and the crossing's first column, and
//! every one of them holds the whole right half's index. A grid piece `(a, b)` shares only the
//! walks to one column before the cut:
//!
//! - **the left side, by part `a`**: the states of the left half's walk one column before the
//!   cut (mirror images merged) are dealt into `left_parts` parts by a hash of the state; part
//!   `a` walks the last column to the cut alone (merged at its end). The count is linear in the
//!   layer, so the parts add up to the whole left half.
//! - **the right side, by prefix `b`**: the right half is walked *without* merging mirror
//!   images, so its table is the true one, and in its last column (the crossing's first, seen
//!   from the other side) each square's edges among the right-hand squares are final as it is
//!   walked. Piece `b` keeps the right states whose first `digits` boundary squares offer the
//!   digits of `b` (none, one or two edges: base 3), so the right half's index and, through
//!   the prefix test the crossing already runs, the crossing's layers hold only states that
//!   can meet prefix `b`.
//!
//! The crossing is walked without merging mirror images (a state's image may belong to another
//! prefix). Why the sum over every `(a, b)` is the count: the left side summed over `a` is the
//! merged left half, `M(S) = D(S) + D(mS)` over one state of each mirror pair; the right side
//! summed over `b` is the true right half `D`, which the board's mirror symmetry makes
//! symmetric, so what a left state is worth against it is the same for `S` and `mS`, and the
//! merged left half counts each pair once at the weight of both. Each piece's count is a whole
//! number (counts times counts), not the number of tours of some kind; the pieces add up to
//! the total exactly, which the tests check against the unsplit count.

use std::time::Instant;

use num_bigint::BigUint;

use super::join::{self, Boundary, Prefixes, has, need};
use super::layout::{self, Step};
use super::leaves::LeafLog;
use super::state::Key;
use super::table::{Layer, Stopped};
use super::{Cut, Run};
use crate::engine::{GridSize, Host, Ran, RunError, Split};
use crate::error::Error;
use crate::human::{group_u64, human_bytes, human_duration, plural};

/// How a count is cut on both sides of the middle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Parts of the left half (by a hash of its states one column before the cut).
    pub left_parts: u32,
    /// Boundary squares whose right-hand digits cut the right half (`3^digits` prefixes).
    pub digits: u32,
    /// The most states a crossing layer may hold to be walked to the end as one leaf of the
    /// prefix tree: a larger one is split by its next square's digit into three (see
    /// [`Run::grid_node`]).
    pub leaf_states: u64,
}

/// The most boundary digits a grid cuts by (3^8 = 6,561 prefixes).
pub const MAX_DIGITS: u32 = 8;

/// The most left parts a grid takes: each part walks the last column to the middle again from
/// the shared layer, so past a few thousand parts that repeated work is most of the count.
pub const MAX_PARTS: u64 = 4096;

impl Grid {
    /// The number of pieces: `left_parts * 3^digits`.
    #[must_use]
    pub fn pieces(&self) -> u64 {
        self.size().pieces()
    }

    /// Piece `i` as `(a, b)`: left part `a = i mod left_parts`, right prefix
    /// `b = i / left_parts`. A shard `K/N` of a run whose `N` is a multiple of the parts has
    /// pieces of one left part alone, and walks it once.
    #[must_use]
    pub fn piece(&self, i: u64) -> (u32, u32) {
        let parts = u64::from(self.left_parts);
        ((i % parts) as u32, (i / parts) as u32)
    }

    /// The grid of `size`, with leaves of [`LEAF_STATES`].
    #[must_use]
    pub fn of(size: GridSize) -> Grid {
        Grid {
            left_parts: size.left_parts,
            digits: size.digits,
            leaf_states: LEAF_STATES,
        }
    }

    /// Its size, without the leaves (which change how a piece is counted, not what).
    #[must_use]
    pub fn size(&self) -> GridSize {
        GridSize {
            left_parts: self.left_parts,
            digits: self.digits,
        }
    }
}

/// The crossing states of a leaf of a piece's prefix tree, by default: on 8x8 open a leaf of
/// 4 million states grows to some tens of millions by the end of the crossing, so a piece's
/// leaves stay well below its head (66.7 million states in the piece measured).
pub const LEAF_STATES: u64 = 1 << 22;

/// Table entries a state of a left part at the cut needs in a grid piece: its own, and the
/// head of the crossing (the part's first steps, walked before the tree splits; 66.7 million
/// states against a part of 70.8 million on 8x8 open), each in a table kept below full.
const LEFT_ENTRIES: f64 = 4.0;

/// States at the cut walked from a share `f` of a shared layer, as `n * (f * every)^alpha`:
/// a layer a column on holds many states reached from many states a column before, so the
/// states grow far slower than the share (on 8x8 open a left part of 1/16 held 70.8 million,
/// one of 1/8 98.9 million: `alpha` about 0.5). `alpha` is measured between two samples of
/// `1/(2 every)` and `1/every` of the layer, where it is larger than between larger shares, so
/// the projection errs high (a part of 1/16 of 8x8 open: 87.9 million projected, 70.8 measured).
#[derive(Clone, Copy, Debug)]
struct Growth {
    every: u64,
    n: f64,
    alpha: f64,
}

impl Growth {
    fn of(every: u64, smaller: u64, larger: u64) -> Growth {
        let alpha = if smaller == 0 || larger == 0 {
            1.0
        } else {
            (larger as f64 / smaller as f64).log2().clamp(0.05, 1.0)
        };
        Growth {
            every,
            n: larger as f64,
            alpha,
        }
    }

    fn at(&self, f: f64) -> f64 {
        self.n * (f * self.every as f64).powf(self.alpha)
    }
}

/// Thread-seconds a grid piece took per state of its left part at the cut (1,183 s on two
/// threads for 70.7 million states, 8x8 open): the projection before the first piece is done.
const SECONDS_PER_LEFT_STATE: f64 = 3.4e-5;

/// A grid piece's `param` in the checkpoint (the cut's parameter): this flag, the parts and
/// the digits, where a meeting in the middle's param is the short side.
const GRID_PARAM: usize = 1 << 24;

/// The param recorded for a grid of `size`.
pub(crate) fn grid_param(size: GridSize) -> usize {
    GRID_PARAM | (size.left_parts as usize) << 8 | size.digits as usize
}

/// The grid a recorded param names, if it names one.
pub(crate) fn grid_of_param(param: usize) -> Option<GridSize> {
    (param & GRID_PARAM != 0).then_some(GridSize {
        left_parts: ((param & (GRID_PARAM - 1)) >> 8) as u32,
        digits: (param & 0xff) as u32,
    })
}

/// The slots of a right state at the cut that hold boundary squares `0..m`, in that order.
fn class_slots(cut: Cut, w: usize) -> Vec<u32> {
    let (h, m) = (cut.cross as usize, cut.cross as usize * w);
    (0..m)
        .map(|j| ((h - 1 - (m - 1 - j) / w) * w + (m - 1 - j) % w) as u32)
        .collect()
}

/// A right state's class: the digits its boundary squares offer, square 0 the most
/// significant, so that the classes of one prefix of squares are a range.
fn class<K: Key>(slots: &[u32], k: K) -> u64 {
    slots.iter().fold(0u64, |c, &s| c * 3 + has(k.get(s)))
}

/// What one grid piece counted and needed.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPiece {
    /// The piece's number (see [`Grid::piece`]).
    pub index: u64,
    /// Its share of the undirected count (a whole number; the shares add up to the count).
    pub count: BigUint,
    /// States of its left part at the cut.
    pub left_states: u64,
    /// States of the right half with its prefix.
    pub right_states: u64,
    /// Leaves of its prefix tree (each a crossing walked to its end and joined), and leaves
    /// that ran out of memory and were split again.
    pub leaves: u32,
    pub retries: u32,
    /// Leaves counted before the piece stopped, read from `FILE.leaves` (see [`LeafLog`]).
    pub resumed: u32,
    /// States of the crossing's largest layer, and at its end (all ranges).
    pub crossing_peak: u64,
    pub crossing_end: u64,
    /// Bytes its tables and index held at the most (the left part and the shared walks
    /// included).
    pub table_bytes: u64,
    /// Seconds its left part took to walk to the cut (0 when the piece before had the same
    /// part), its right half with its index, its crossing, its join, and all of it (the shared
    /// walks not included).
    pub left_seconds: f64,
    pub right_seconds: f64,
    pub crossing_seconds: f64,
    pub join_seconds: f64,
    pub seconds: f64,
}

/// The walks every grid piece starts from, made once.
pub(crate) struct GridShared<K: Key> {
    /// The left half's walk one column before the cut, mirror images merged.
    left: Layer<K>,
    /// The right half's walk one column before its end, mirror images not merged.
    right: Layer<K>,
}

impl<K: Key> Run<'_, K> {
    /// The cut a grid needs: a meeting in the middle, with a column before it on each side.
    pub(crate) fn grid_cut(&self, grid: Grid) -> Result<Cut, RunError> {
        let cut = self.cut.ok_or_else(|| {
            Error::Invalid(format!(
                "a grid of pieces needs a count that meets in the middle, and meeting in the middle needs {}",
                super::no_meeting(&self.walk, self.rules.mirror, self.req.board)
            ))
        })?;
        if !(1..=MAX_PARTS).contains(&u64::from(grid.left_parts))
            || grid.digits > MAX_DIGITS.min(self.walk.w)
        {
            return Err(Error::Invalid(format!(
                "a grid of {} left parts and {} digits: the parts must be 1 to {MAX_PARTS} and the digits at most {} on {}",
                grid.left_parts,
                grid.digits,
                MAX_DIGITS.min(self.walk.w),
                self.req.board
            ))
            .into());
        }
        Ok(cut)
    }

    /// Walks `start` through `steps`, keeping what `keep(step, state)` keeps (`start` itself
    /// is left as it is: a grid keeps its left part for the next piece).
    fn walk_plain(
        &mut self,
        start: &Layer<K>,
        steps: &[Step<K>],
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        at: (&'static str, usize),
    ) -> Result<Layer<K>, RunError> {
        self.walk_raw(start, steps, keep, at)
            .map_err(|(e, at)| self.grid_stopped(e, at))
    }

    /// A grid walk stopped by the memory bound (at step `at`) or the stop flag, as an error.
    fn grid_stopped(&self, e: Stopped, at: usize) -> RunError {
        match e {
            Stopped::Memory(b) => self.memory_error(b, at),
            _ => Error::Invalid("the count was interrupted".into()).into(),
        }
    }

    /// [`Run::walk_plain`], stopped as the sweep stops, with the step of the stage it stopped
    /// at (`base + i` for step `i`).
    ///
    /// Step `i` is shown in progress as layer `base + i + 1` of the stage, in `phase` (the
    /// left half, the right half, a left part, the crossing ...).
    fn walk_raw(
        &mut self,
        start: &Layer<K>,
        steps: &[Step<K>],
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        (phase, base): (&'static str, usize),
    ) -> Result<Layer<K>, (Stopped, usize)> {
        let mut layer: Option<Layer<K>> = None;
        for (i, step) in steps.iter().enumerate() {
            let from = layer.as_ref().unwrap_or(start);
            let next = match self.sweep.step(from, step, |k| keep(i, k)) {
                Ok((next, _)) => next,
                Err(e) => {
                    self.sweep.spare = None;
                    return Err((e, base + i));
                }
            };
            self.sweep.peak_states = self.sweep.peak_states.max(next.len());
            self.progress(base + i + 1, &next, phase);
            if let Some(old) = layer.replace(next) {
                self.sweep.recycle(old);
            }
        }
        self.sweep.spare = None;
        Ok(layer.unwrap_or_else(|| start.clone()))
    }

    /// The walks to one column before the cut on both sides.
    pub(crate) fn grid_shared(&mut self, cut: Cut) -> Result<GridShared<K>, RunError> {
        let w = self.walk.w;
        let bytes = self.walk.key_bytes();
        let start = || Layer::single(K::ZERO, bytes, 1);
        let all = |_: usize, _: K| true;
        let fwd = layout::steps::<K>(&self.walk, &self.rules, 0, (cut.left - 1) * w);
        self.total = ((cut.left + cut.right - 2) * w) as usize;
        let left = self.walk_plain(&start(), &fwd, &all, ("left half", 0))?;
        let mut plain = self.rules.clone();
        plain.mirror = false;
        let base = fwd.len();
        let fwd = layout::steps::<K>(&self.walk, &plain, 0, (cut.right - 1) * w);
        let right = self.walk_plain(&start(), &fwd, &all, ("right half", base))?;
        Ok(GridShared { left, right })
    }

    /// Left part `a` of `parts` at the cut: the states of `shared.left` whose hash falls in
    /// part `a`, walked through the last column (mirror images merged at its end).
    fn grid_left(
        &mut self,
        shared: &GridShared<K>,
        cut: Cut,
        parts: u32,
        a: u32,
    ) -> Result<Layer<K>, RunError> {
        let w = self.walk.w;
        let mine = |k: K| k.hash64() % u64::from(parts) == u64::from(a);
        let expect = shared.left.len() / u64::from(parts) + 1;
        let steps = layout::steps::<K>(&self.walk, &self.rules, (cut.left - 1) * w, cut.left * w);
        self.total = steps.len();
        let start = self
            .sweep
            .select(&shared.left, expect, mine)
            .map_err(|e| self.grid_stopped(e, 0))?;
        self.walk_plain(&start, &steps, &|_, _| true, ("left part", 0))
    }

    /// The right half's states whose first `digits` boundary squares offer prefix `b`: its
    /// last column walked from `shared.right`, mirror images not merged, each square's digit
    /// checked as it is walked (square `y` of that column is boundary square `y`).
    fn grid_right(
        &mut self,
        shared: &GridShared<K>,
        cut: Cut,
        digits: u32,
        b: u32,
    ) -> Result<Layer<K>, RunError> {
        let w = self.walk.w;
        let mut plain = self.rules.clone();
        plain.mirror = false;
        let steps = layout::steps::<K>(&self.walk, &plain, (cut.right - 1) * w, cut.right * w);
        let digit = |y: usize| u64::from(b) / 3u64.pow(y as u32) % 3;
        let keep = |y: usize, k: K| y >= digits as usize || has(k.get(0)) == digit(y);
        self.total = steps.len();
        self.walk_plain(&shared.right, &steps, &keep, ("right prefix", 0))
    }

    /// Counts grid piece `i`, with the left part of the piece before (`cache`) when it is the
    /// same part, and leaves this piece's left part there.
    pub(crate) fn grid_piece(
        &mut self,
        shared: &GridShared<K>,
        cut: Cut,
        grid: Grid,
        i: u64,
        cache: &mut Option<(u32, Layer<K>)>,
    ) -> Result<GridPiece, RunError> {
        let t = Instant::now();
        let (a, b) = grid.piece(i);
        let w = self.walk.w;
        self.sweep.peak_bytes = 0;
        let resumed = self.leaves.begin(i)?;
        if resumed > 0 {
            self.obs.info(&format!(
                "piece {}: {resumed} lea{} counted before it stopped, read back from beside the log; going on from there",
                i + 1,
                if resumed == 1 { "f" } else { "ves" }
            ));
        }
        let shared_bytes = shared.left.bytes() + shared.right.bytes();
        let mut left_seconds = 0.0;
        if cache.as_ref().is_none_or(|c| c.0 != a) {
            *cache = None;
            self.sweep.limit.tables = self.limits.max_memory.saturating_sub(shared_bytes);
            let l = self.grid_left(shared, cut, grid.left_parts, a)?;
            left_seconds = t.elapsed().as_secs_f64();
            if left_seconds >= SLOW_SECONDS {
                self.obs.info(&format!(
                    "left part {a}: {} states at the cut, {left_seconds:.1} s",
                    group_u64(l.len())
                ));
            }
            *cache = Some((a, l));
        }
        let left = &cache.as_ref().expect("made above").1;
        let kept = shared_bytes + left.bytes();
        let tr = Instant::now();
        self.sweep.limit.tables = self.limits.max_memory.saturating_sub(kept);
        let right = self.grid_right(shared, cut, grid.digits, b)?;
        let right_seconds = tr.elapsed().as_secs_f64();
        let mut piece = GridPiece {
            index: i,
            count: BigUint::ZERO,
            left_states: left.len(),
            right_states: right.len(),
            leaves: 0,
            retries: 0,
            resumed: 0,
            crossing_peak: 0,
            crossing_end: 0,
            table_bytes: 0,
            left_seconds,
            right_seconds,
            crossing_seconds: 0.0,
            join_seconds: 0.0,
            seconds: 0.0,
        };
        let mut index_bytes = 0;
        if left.len() > 0 && right.len() > 0 {
            // the right states by class, square 0's digit the most significant, so that the
            // classes of one prefix of squares are a range
            let (w, m) = (w as usize, (cut.cross * w) as usize);
            let slots = class_slots(cut, w);
            let class_of = |k: K| class(&slots, k);
            let mut sorted: Vec<(u64, u32, u32)> = (0..right.part_count())
                .flat_map(|p| {
                    right
                        .part_slots(p)
                        .map(move |(i, k, _)| (class_of(k), p as u32, i as u32))
                })
                .collect();
            sorted.sort_unstable();
            // distinct classes, each with the states up to and including it
            let mut classes: Vec<(u64, u64)> = Vec::new();
            for (n, &(c, _, _)) in sorted.iter().enumerate() {
                match classes.last_mut() {
                    Some(last) if last.0 == c => last.1 = n as u64 + 1,
                    _ => classes.push((c, n as u64 + 1)),
                }
            }
            let mut rules = self.rules.clone();
            rules.mirror = false;
            let lsq = cut.left * w as u32;
            rules.cut = Some(lsq);
            let steps = layout::steps::<K>(&self.walk, &rules, lsq, lsq + m as u32);
            let boundary = Boundary {
                slots: (0..m as u32).rev().collect(),
            };
            // which prefixes of the crossing some right state of this piece meets (indexed as
            // the crossing's stage begins: a memory stop here is told as its first layer)
            self.total = m + 1;
            let index = self.right_index(&right, cut, &boundary, false)?;
            let prefixes = Prefixes::new(&index, m);
            index_bytes = index.bytes();
            drop(index);
            let ctx = Tree {
                steps,
                boundary,
                prefixes,
                classes,
                sorted,
                m,
                leaf_states: grid.leaf_states,
                started: t,
            };
            // the crossing's first `digits` steps, whose squares' digits the prefix fixes
            let d = grid.digits as usize;
            let tc = Instant::now();
            self.sweep.limit.tables = self
                .limits
                .max_memory
                .saturating_sub(kept + right.bytes() + index_bytes);
            self.sweep.peak_states = 0;
            let p = (0..d).fold(0u64, |p, y| p * 3 + u64::from(b) / 3u64.pow(y as u32) % 3);
            if let Some(count) = self.leaves.get(d, p) {
                // the whole piece was one leaf, counted before it stopped
                piece.count += count;
                piece.leaves += 1;
                piece.resumed += 1;
            } else {
                let head_owned;
                let head = if d == 0 {
                    left
                } else {
                    head_owned = self.walk_plain(
                        left,
                        &ctx.steps[..d],
                        &|j, k| ctx.prefixes.admits(j, k),
                        ("crossing", 0),
                    )?;
                    &head_owned
                };
                piece.crossing_peak = self.sweep.peak_states;
                piece.crossing_seconds += tc.elapsed().as_secs_f64();
                self.grid_node(&ctx, &right, head, d, p, &mut piece)?;
            }
        }
        // (otherwise nothing to join on one side: the piece counts nothing)
        piece.table_bytes = self.sweep.peak_bytes + index_bytes + kept;
        piece.seconds = t.elapsed().as_secs_f64();
        Ok(piece)
    }
}

impl<K: Key> Run<'_, K> {
    /// See [`super::grid_right_sizes`].
    pub(crate) fn grid_right_sizes(
        mut self,
        digits: u32,
    ) -> Result<Vec<(u32, u64, f64)>, RunError> {
        let cut = self.grid_cut(Grid::of(GridSize {
            left_parts: 1,
            digits,
        }))?;
        let shared = self.grid_shared(cut)?;
        (0..3u32.pow(digits))
            .map(|b| {
                let t = Instant::now();
                let n = self.grid_right(&shared, cut, digits, b)?.len();
                Ok((b, n, t.elapsed().as_secs_f64()))
            })
            .collect()
    }

    /// Counts grid pieces `which` in their order (pieces of one left part in a row share its
    /// walk), telling `report` each one.
    pub(crate) fn grid(
        mut self,
        grid: Grid,
        which: &[u64],
        report: &mut dyn FnMut(&GridPiece),
    ) -> Result<(), RunError> {
        let cut = self.grid_cut(grid)?;
        if let Some(&i) = which.iter().find(|&&i| i >= grid.pieces()) {
            return Err(Error::Invalid(format!(
                "piece {i} of a grid of {} pieces: the pieces are numbered 0 to {}",
                grid.pieces(),
                grid.pieces() - 1
            ))
            .into());
        }
        self.open_leaves(self.grid_split(cut, grid.size()).fingerprint);
        let shared = self.grid_shared(cut)?;
        let mut cache = None;
        for &i in which {
            report(&self.grid_piece(&shared, cut, grid, i, &mut cache)?);
        }
        Ok(())
    }
}

/// A stage of a grid piece that takes at least this many seconds is told on stderr (its left
/// part, its leaves, the piece itself): a count of small pieces says nothing per piece.
const SLOW_SECONDS: f64 = 10.0;

/// The dealing rule's name: part of a grid's fingerprint (a new rule makes new pieces).
const RULE: &str = "grid-1: left parts by hash64 one column before the cut, right prefixes by the boundary digits, piece i = (i mod parts, i / parts)";

/// States of the left half one column before the cut that [`Run::grid_choose`] walks on to
/// the cut, to project the left parts' size: one in `len / SAMPLE_STATES` of them.
const SAMPLE_STATES: u64 = 1 << 16;

impl<K: Key> Run<'_, K> {
    /// A count cut as grid `size`, as an engine of the driver. Finished pieces go to the
    /// driver one by one, and the finished leaves of the piece in progress to `FILE.leaves`
    /// (see [`LeafLog`]): a piece stopped midway goes on from its last finished leaf.
    pub(crate) fn grid_go(&mut self, size: GridSize, host: &dyn Host) -> Result<Ran, RunError> {
        let grid = Grid::of(size);
        let cut = self.grid_cut(grid)?;
        self.grid = Some(size);
        let split = self.grid_split(cut, size);
        self.open_leaves(split.fingerprint);
        // a resumed run learns its pieces first, and does nothing when none is left
        let mut todo = match host.recorded() {
            Some(_) => Some(host.start(&split)?),
            None => None,
        };
        if todo.as_ref().is_some_and(Vec::is_empty) {
            self.leaves.clear();
            return Ok(Ran::default());
        }
        let shared = match self.grid_shared(cut) {
            Ok(s) => s,
            Err(e) => return self.grid_ended(e),
        };
        let growth = match self.grid_sample(&shared, cut) {
            Ok(g) => g,
            Err(e) => return self.grid_ended(e),
        };
        let projected = self.grid_announce(&shared, grid, &growth);
        let mut todo = match todo.take() {
            Some(t) => t,
            None => {
                if !self.limits.force {
                    self.grid_reach(grid, projected)?;
                }
                host.start(&split)?
            }
        };
        if todo.is_empty() {
            self.leaves.clear();
            return Ok(Ran::default());
        }
        // pieces of one left part in a row share its walk to the cut
        todo.sort_by_key(|&i| grid.piece(i as u64));
        let mut cache = None;
        let t = Instant::now();
        let (mut ends, mut pieces_done) = (0u64, 0usize);
        // the largest table of any piece, and the most bytes a piece held
        let (mut peak_states, mut peak_bytes) = (0u64, 0u64);
        for &i in &todo {
            self.piece = Some((i, split.pieces));
            let p = match self.grid_piece(&shared, cut, grid, i as u64, &mut cache) {
                Ok(p) => p,
                Err(e) => return self.grid_ended(e),
            };
            ends += p.crossing_end;
            pieces_done += 1;
            peak_states = peak_states
                .max(p.crossing_peak)
                .max(p.left_states)
                .max(p.right_states);
            peak_bytes = peak_bytes.max(p.table_bytes);
            if p.seconds >= SLOW_SECONDS {
                let (a, b) = grid.piece(i as u64);
                let rate = t.elapsed().as_secs_f64() / pieces_done as f64;
                self.obs.info(&format!(
                    "piece {} of {} (left part {a}, right prefix {b}) counted in {}: {} left states, {} right, {} leaves; the {} left projected at {} at this rate",
                    i + 1,
                    split.pieces,
                    human_duration(p.seconds),
                    group_u64(p.left_states),
                    group_u64(p.right_states),
                    p.leaves,
                    todo.len() - pieces_done,
                    human_duration(rate * (todo.len() - pieces_done) as f64)
                ));
            }
            host.done(i, p.count)?;
        }
        self.leaves.clear();
        let how = format!(
            "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns in {} ({} piece{}; {} crossing states here)",
            cut.left,
            cut.right,
            cut.cross,
            size.describe(),
            group_u64(grid.pieces()),
            plural(grid.pieces()),
            group_u64(ends)
        );
        self.sweep.peak_states = peak_states;
        self.sweep.peak_bytes = peak_bytes;
        Ok(Ran {
            how: Some(how),
            peak: Some(self.peak()),
        })
    }

    /// Opens the leaves file beside the checkpoint (`FILE.leaves`, none without one) for the
    /// grid whose cut has `fingerprint`.
    fn open_leaves(&mut self, fingerprint: u64) {
        let path = self.limits.checkpoint.as_deref();
        self.leaves = LeafLog::open(
            path.map(|p| crate::store::beside(p, ".leaves")),
            fingerprint,
        );
    }

    /// A grid count stopped by `e`: interrupted (the finished pieces are with the driver) when
    /// the stop flag is set, else the error.
    fn grid_ended(&self, e: RunError) -> Result<Ran, RunError> {
        if self.stopped() {
            Ok(self.interrupted())
        } else {
            Err(e)
        }
    }

    /// Whether the stop flag is set.
    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The cut of a count into the pieces of grid `size`: its fingerprint says how (the rule,
    /// the count, the cut, the grid), so that shards of one run agree.
    fn grid_split(&self, cut: Cut, size: GridSize) -> Split {
        let mut h = crate::hash::Fnv::default();
        h.eat(RULE.as_bytes());
        for (k, v) in &self.name.fields {
            h.eat(k.as_bytes());
            h.eat(v.as_bytes());
        }
        for x in [cut.left, cut.right, cut.cross, self.walk.w] {
            h.eat(&x.to_le_bytes());
        }
        h.eat(&size.left_parts.to_le_bytes());
        h.eat(&size.digits.to_le_bytes());
        let pieces = size.pieces() as usize;
        Split {
            pieces,
            param: grid_param(size),
            fingerprint: h.value(),
            weights: vec![self.scale; pieces],
        }
    }

    /// How the left parts' states at the cut grow with their share of the shared left layer,
    /// from two samples of it (states chosen by a hash independent of the parts') walked on to
    /// the cut: see [`Growth`].
    fn grid_sample(&mut self, shared: &GridShared<K>, cut: Cut) -> Result<Growth, RunError> {
        let w = self.walk.w;
        let layer = &shared.left;
        let every = (layer.len() / SAMPLE_STATES).max(1);
        let steps = layout::steps::<K>(&self.walk, &self.rules, (cut.left - 1) * w, cut.left * w);
        let mut sizes = [0u64; 2];
        self.total = steps.len();
        for (n, e) in [2 * every, every].into_iter().enumerate() {
            let mine = |k: K| (k.hash64() >> 40) % e == 0;
            let start = self
                .sweep
                .select(layer, layer.len() / e + 1, mine)
                .map_err(|err| self.grid_stopped(err, 0))?;
            sizes[n] = self
                .walk_plain(&start, &steps, &|_, _| true, ("left sample", 0))?
                .len();
        }
        Ok(Growth::of(every, sizes[0], sizes[1]))
    }

    /// Bytes of a table entry of this count: its key and one count word.
    fn entry_bytes(&self) -> f64 {
        (self.walk.key_bytes() + 8) as f64
    }

    /// Tells the user how the count is cut, and returns the projection: bytes a piece (its
    /// left part and the crossing's head; its right half and leaves come on top), seconds for
    /// all.
    fn grid_announce(&self, shared: &GridShared<K>, grid: Grid, growth: &Growth) -> (u64, f64) {
        let per_part = growth.at(1.0 / f64::from(grid.left_parts)) as u64;
        let bytes = (per_part as f64 * LEFT_ENTRIES * self.entry_bytes()) as u64
            + shared.left.bytes()
            + shared.right.bytes();
        let threads = self.limits.threads.max(1) as f64;
        // this process's share of the pieces
        let shards = f64::from(self.limits.shards.max(1));
        let seconds =
            grid.pieces() as f64 / shards * per_part as f64 * SECONDS_PER_LEFT_STATE / threads;
        self.obs.info(&format!(
            "{} {} tours: {}, {} piece{} (about {} left states a part at the middle; projected {} a piece at least, about {} for {} on {} thread{}, a rough figure until the first pieces are done)",
            self.req.board,
            if self.req.spec.closed { "closed" } else { "open" },
            grid.size().describe(),
            group_u64(grid.pieces()),
            plural(grid.pieces()),
            group_u64(per_part),
            human_bytes(bytes),
            human_duration(seconds),
            if shards > 1.0 { "this shard" } else { "all" },
            self.limits.threads,
            plural(self.limits.threads as u64)
        ));
        (bytes, seconds)
    }

    /// Refuses a grid count whose pieces are projected past the memory bound or whose whole is
    /// projected past 30 days, as every count (`--force` starts it anyway).
    fn grid_reach(&self, grid: Grid, (bytes, seconds): (u64, f64)) -> Result<(), RunError> {
        if bytes <= self.limits.max_memory && seconds <= crate::dfs::REACH_SECONDS {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "counting these tours on {} as a grid of {} pieces is projected at about {} of memory a piece and {} on {} thread{} (the memory bound is {}, set with --max-memory): --force starts it anyway; with --checkpoint FILE it stops and resumes piece by piece, and --shard K/N spreads the pieces over many machines (a grid with more parts, --grid PARTS,DIGITS, makes the pieces smaller)",
            self.req.board,
            group_u64(grid.pieces()),
            human_bytes(bytes),
            human_duration(seconds),
            self.limits.threads,
            plural(self.limits.threads as u64),
            human_bytes(self.limits.max_memory)
        ))
        .into())
    }
}

/// What the prefix tree of one grid piece shares.
struct Tree<K: Key> {
    /// The crossing's steps.
    steps: Vec<Step<K>>,
    boundary: Boundary,
    /// The prefixes the piece's right states meet, for every step.
    prefixes: Prefixes,
    /// The piece's right classes, sorted, each with the states up to and including it.
    classes: Vec<(u64, u64)>,
    /// The piece's right states by class, each as its place in the right table (part, row):
    /// a leaf's states are a run of it.
    sorted: Vec<(u64, u32, u32)>,
    /// Boundary squares.
    m: usize,
    leaf_states: u64,
    /// When the piece started, to say how its leaves go once it runs long.
    started: Instant,
}

impl<K: Key> Tree<K> {
    /// The classes whose first `j` digits are `p`: a range of [`Tree::classes`].
    fn range(&self, j: usize, p: u64) -> (usize, usize) {
        let shift = 3u64.pow((self.m - j) as u32);
        let lo = self.classes.partition_point(|c| c.0 / shift < p);
        let hi = self.classes.partition_point(|c| c.0 / shift <= p);
        (lo, hi)
    }

    /// Right states of classes `lo..hi`.
    fn states(&self, lo: usize, hi: usize) -> u64 {
        self.classes[hi - 1].1 - if lo == 0 { 0 } else { self.classes[lo - 1].1 }
    }
}

impl<K: Key> Run<'_, K> {
    /// One node of a grid piece's prefix tree: the crossing `layer` after `j` steps, whose
    /// squares' digits are `p`. Small enough (at most [`Grid::leaf_states`] states) or with every
    /// digit fixed, it is a leaf: the right states of its classes are indexed, and the rest of
    /// the crossing walked and joined. Otherwise (or when the leaf's walk passes the memory
    /// bound) its next step is walked three times, once for each digit of the square it adds,
    /// and each child is a node in turn: every layer is read three times, where counting the
    /// piece's classes in ranges read the whole crossing again for each range.
    fn grid_node(
        &mut self,
        ctx: &Tree<K>,
        right: &Layer<K>,
        layer: &Layer<K>,
        j: usize,
        p: u64,
        piece: &mut GridPiece,
    ) -> Result<(), RunError> {
        let (lo, hi) = ctx.range(j, p);
        if lo == hi || layer.len() == 0 {
            return Ok(());
        }
        // a node with a leaf below it counted before is split as that run split it
        let resumed = j < ctx.m && self.leaves.below(j, p);
        if !resumed && (layer.len() <= ctx.leaf_states || j == ctx.m) {
            match self.grid_leaf(ctx, right, layer, (j, p), (lo, hi), piece)? {
                true => return Ok(()),
                false if j < ctx.m => piece.retries += 1,
                false => {
                    return Err(self.memory_error(self.limits.max_memory, j));
                }
            }
        }
        for c in 0..3 {
            let q = p * 3 + c;
            let (clo, chi) = ctx.range(j + 1, q);
            if clo == chi {
                continue;
            }
            if let Some(count) = self.leaves.get(j + 1, q) {
                piece.count += count;
                piece.leaves += 1;
                piece.resumed += 1;
                continue;
            }
            let tc = Instant::now();
            // (a state of another digit would be dropped by the leaf's own prefix test and
            // join nothing: filtering here keeps each child to its third)
            let keep = |_: usize, k: K| ctx.prefixes.admits(j, k) && need(k.get(0)) == c;
            let child = self.walk_plain(layer, &ctx.steps[j..=j], &keep, ("crossing", j))?;
            piece.crossing_peak = piece.crossing_peak.max(child.len());
            piece.crossing_seconds += tc.elapsed().as_secs_f64();
            self.grid_node(ctx, right, &child, j + 1, q, piece)?;
        }
        Ok(())
    }

    /// A leaf of the prefix tree (see [`Run::grid_node`]), node `(j, p)`: `false` when its walk
    /// passed the memory bound (nothing counted). Its count is recorded in the leaves file
    /// before it is added to the piece's.
    fn grid_leaf(
        &mut self,
        ctx: &Tree<K>,
        right: &Layer<K>,
        layer: &Layer<K>,
        (j, p): (usize, u64),
        (lo, hi): (usize, usize),
        piece: &mut GridPiece,
    ) -> Result<bool, RunError> {
        // the leaf's right states, a run of the sorted ones, in a table of their own
        let from = if lo == 0 { 0 } else { ctx.classes[lo - 1].1 } as usize;
        let states = &ctx.sorted[from..from + ctx.states(lo, hi) as usize];
        let bits = (states.len() as u64 >> 16)
            .next_power_of_two()
            .trailing_zeros();
        let mut sub = Layer::with_parts(bits, right.shape());
        for &(_, p, i) in states {
            let (k, c) = right.at(p as usize, i as usize);
            let count: Vec<u64> = c.words().collect();
            sub.insert(k, &count);
        }
        let cut = self.cut.expect("a grid meets in the middle");
        // (a leaf whose index does not fit is split like one whose walk does not)
        let Ok(index) = self.right_index(&sub, cut, &ctx.boundary, false) else {
            return Ok(false);
        };
        drop(sub);
        let prefixes = Prefixes::new(&index, ctx.m);
        let tc = Instant::now();
        let admits = |i: usize, k: K| prefixes.admits(i + j, k);
        let walked = self.walk_raw(layer, &ctx.steps[j..], &admits, ("crossing", j));
        piece.crossing_seconds += tc.elapsed().as_secs_f64();
        let crossing = match walked {
            Ok(c) => c,
            Err((Stopped::Memory(_), _)) => return Ok(false),
            Err((e, at)) => return Err(self.grid_stopped(e, at)),
        };
        piece.leaves += 1;
        piece.crossing_peak = piece
            .crossing_peak
            .max(self.sweep.peak_states.max(crossing.len()));
        piece.crossing_end += crossing.len();
        let tj = Instant::now();
        let count = join::join(
            &crossing,
            &ctx.boundary,
            &index,
            self.req.spec.closed,
            self.stop,
        )
        .ok_or_else(|| self.grid_stopped(Stopped::Interrupted, j))?;
        self.leaves.record(j, p, &count)?;
        piece.count += count;
        piece.join_seconds += tj.elapsed().as_secs_f64();
        if piece.leaves.is_power_of_two() && ctx.started.elapsed().as_secs_f64() >= SLOW_SECONDS {
            self.obs.info(&format!(
                "piece {}: {} leaves done (this one {} right states after {j} steps: {} crossing states, {:.1} s)",
                piece.index + 1,
                piece.leaves,
                ctx.states(lo, hi),
                crossing.len(),
                tc.elapsed().as_secs_f64()
            ));
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece whose leaves file holds some of its leaves (as a piece stopped midway leaves it)
    /// adds them and walks only the rest, to the same count, whatever leaf size either run had.
    #[test]
    fn a_piece_stopped_midway_goes_on_from_its_finished_leaves() {
        use crate::engine::{CountSpec, Quiet, Request};
        use crate::{Board, Piece};
        let dir = tempfile::tempdir().unwrap();
        let board: Board = "5x6".parse().unwrap();
        let piece = Piece::default();
        let spec = CountSpec {
            symmetry: true,
            ..CountSpec::default()
        };
        let req = Request {
            board,
            piece: &piece,
            spec: &spec,
        };
        let limits = super::super::Limits {
            checkpoint: Some(dir.path().join("run.ckpt")),
            ..super::super::quiet_limits()
        };
        let leaves = dir.path().join("run.ckpt.leaves");
        let stop = std::sync::atomic::AtomicBool::new(false);
        let count = |leaf_states: u64, which: u64| {
            let run = Run::<u64>::new(
                req,
                &limits,
                super::super::Walk::new(board, &piece),
                super::super::Method::Auto,
                &stop,
                &Quiet,
            )
            .unwrap();
            let grid = Grid {
                left_parts: 1,
                digits: 1,
                leaf_states,
            };
            let mut out = Vec::new();
            run.grid(grid, &[which], &mut |p| out.push(p.clone()))
                .unwrap();
            out.pop().unwrap()
        };
        let mut checked = 0;
        for which in 0..3 {
            let whole = count(0, which);
            let lines: Vec<String> = std::fs::read_to_string(&leaves)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            assert_eq!(lines.len() as u32, whole.leaves + 1, "piece {which}");
            if whole.leaves < 4 {
                continue;
            }
            // the header and every other leaf, as if the rest were still to come
            for leaf_states in [0, 30, u64::MAX] {
                let kept: Vec<&str> = std::iter::once(lines[0].as_str())
                    .chain(lines[1..].iter().step_by(2).map(String::as_str))
                    .collect();
                std::fs::write(&leaves, kept.join("\n") + "\n").unwrap();
                let again = count(leaf_states, which);
                assert_eq!(
                    again.count, whole.count,
                    "piece {which}, leaves of {leaf_states}"
                );
                assert_eq!(again.resumed as usize, kept.len() - 1);
                checked += 1;
            }
        }
        assert!(checked >= 3, "no piece had leaves enough");
    }

    #[test]
    fn a_grid_param_names_its_grid_and_no_meeting_param_names_one() {
        for (left_parts, digits) in [(1, 0), (16, 2), (MAX_PARTS as u32, MAX_DIGITS), (7, 5)] {
            let size = GridSize { left_parts, digits };
            assert_eq!(grid_of_param(grid_param(size)), Some(size));
        }
        // a meeting in the middle records its short side (at most 16)
        for w in 0..=16 {
            assert_eq!(grid_of_param(w), None);
        }
    }

    #[test]
    fn pieces_are_numbered_part_first() {
        let grid = Grid::of(GridSize {
            left_parts: 4,
            digits: 2,
        });
        assert_eq!(grid.pieces(), 36);
        let all: std::collections::BTreeSet<(u32, u32)> =
            (0..grid.pieces()).map(|i| grid.piece(i)).collect();
        assert_eq!(all.len(), 36);
        assert!(all.iter().all(|&(a, b)| a < 4 && b < 9));
        // shard K/N with N a multiple of the parts holds one part alone
        assert!((0..36).filter(|i| i % 8 == 5).all(|i| grid.piece(i).0 == 1));
    }

    #[test]
    fn growth_follows_the_power_between_its_samples() {
        // twice the share, 1.5 times the states: alpha = log2(1.5)
        let g = Growth::of(8, 1000, 1500);
        assert!((g.alpha - 1.5f64.log2()).abs() < 1e-12);
        assert!((g.at(1.0 / 8.0) - 1500.0).abs() < 1e-9);
        assert!((g.at(1.0) - 1500.0 * 8f64.powf(g.alpha)).abs() < 1e-6);
        // no growth measurable: as the share (never less than the sample)
        assert_eq!(Growth::of(4, 0, 0).at(1.0), 0.0);
        assert!((Growth::of(4, 10, 20).at(0.5) - 40.0).abs() < 1e-9);
    }
}
