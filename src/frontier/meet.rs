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

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use num_bigint::BigUint;
use rayon::prelude::*;

use super::join::{self, Boundary, Prefixes, RightIndex};
use super::layout::{self, Step};
use super::snapshot;
use super::state::{Key, Perm};
use super::table::{Batch, Builder, Layer, Stopped};
use super::tree::{Node, Spill};
use super::{Cut, Run};
use crate::engine::{Host, Made, Ran, RunError, Split};
use crate::error::Error;
use crate::human::{group_u64, human_bytes, human_duration, plural};
use crate::store::TurnLock;

/// The rule that cuts and numbers the pieces: part of a cut's fingerprint (a new rule makes
/// new pieces, and a checkpoint of another rule is not resumed).
const RULE: &str = "tree-1: the first boundary column's digits on both sides, the left side true, pieces the nodes of one depth, a shard's pieces one run of them";

/// The flag of a tree cut's param in the checkpoint log; the depth of its pieces below it.
const TREE_PARAM: usize = 1 << 25;

/// The depth of the pieces a recorded param names, if it names a tree cut.
pub(crate) fn depth_of_param(param: usize) -> Option<u32> {
    (param & TREE_PARAM != 0).then_some((param & 0xff) as u32)
}

/// The class of each piece of a tree cut recorded as `param`, in `pieces` pieces numbered for
/// `shards` shards: how many of its digits are 1, the boundary squares where the path crosses
/// from one side to the other. A piece's cost follows its class far more than its number: the
/// 8x8 open pieces of class 0 took 15 s of CPU on average, those of class 4 1,288 s
/// (`results/eight.md`), so a projection of the pieces left takes each at its class's mean.
/// `None` where `param` names no tree cut of that many pieces.
#[must_use]
pub fn piece_classes(param: usize, pieces: usize, shards: u32) -> Option<Vec<u8>> {
    let depth = depth_of_param(param)?;
    if 3usize.checked_pow(depth) != Some(pieces) {
        return None;
    }
    Some(
        order(pieces, shards as usize)
            .into_iter()
            .map(|mut p| {
                let mut ones = 0;
                for _ in 0..depth {
                    ones += u8::from(p % 3 == 1);
                    p /= 3;
                }
                ones
            })
            .collect(),
    )
}

/// A run of at least this many pieces counts one piece of each class first (see
/// [`sample_first`]).
const SAMPLE_PIECES: usize = 27;

/// Moves one piece of each class among `todo` (drawn at random, `seed` fixing the draw) to its
/// front, where it holds at least [`SAMPLE_PIECES`] pieces of more than one class; how many it
/// moved. The tree's order puts like pieces together (8x8 open's first 40 pieces hold none of
/// its heaviest classes), so a projection from the first pieces counted errs by the classes it
/// has not seen; a piece of each class, the heaviest included, projects the rest by class (see
/// `examples/ledger_projection.rs`: on the 8x8 open ledger, one piece of each class drawn at
/// random projected the whole within 0.7 to 1.4 times its CPU time in 9 draws of 10, twelve
/// pieces drawn from all within 0.3 to 2.5).
///
/// The pieces are drawn under one node of the first depth where it can be done (`order` gives
/// each piece's tree position, under a tree of depth `depth`): the subtree of the first digit
/// that holds the most classes (a first digit 1 holds every class but 0), its draws in the
/// tree's order and then the rest of that subtree, so that its node is made once for all of
/// them; a class it lacks is drawn from the others and counted first. Drawn from anywhere,
/// each piece made its whole path from the roots again: 8x10 closed's six drawn pieces took
/// 23.5 minutes so and 21.8 this way (the heaviest piece's own work is 18 of them).
pub(crate) fn sample_first(
    todo: &mut Vec<usize>,
    classes: &[u8],
    order: &[u64],
    depth: usize,
    seed: u64,
) -> usize {
    if todo.len() < SAMPLE_PIECES || depth == 0 {
        return 0;
    }
    let all: std::collections::BTreeSet<u8> = todo
        .iter()
        .filter_map(|&i| classes.get(i).copied())
        .collect();
    if all.len() < 2 {
        return 0;
    }
    let top = 3u64.pow(depth as u32 - 1);
    let first = |i: usize| order.get(i).map_or(3, |&p| p / top);
    // the first digit whose subtree holds the most classes (1 where it ties)
    let home = [1, 0, 2]
        .into_iter()
        .max_by_key(|&d| {
            let held: std::collections::BTreeSet<u8> = (todo.iter())
                .filter(|&&i| first(i) == d)
                .filter_map(|&i| classes.get(i).copied())
                .collect();
            // ties go to 1, then 0
            (held.len(), u8::from(d == 1) * 2 + u8::from(d == 0))
        })
        .expect("three digits");
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut draw = |pool: &[usize]| -> BTreeMap<u8, usize> {
        let mut by: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
        for &i in pool {
            if let Some(&c) = classes.get(i) {
                by.entry(c).or_default().push(i);
            }
        }
        by.into_iter()
            .map(|(c, v)| (c, v[rng.usize(..v.len())]))
            .collect()
    };
    let (inside, outside): (Vec<usize>, Vec<usize>) = todo.iter().partition(|&&i| first(i) == home);
    let drawn = draw(&inside);
    let elsewhere: Vec<usize> = outside
        .iter()
        .copied()
        .filter(|i| classes.get(*i).is_some_and(|c| !drawn.contains_key(c)))
        .collect();
    let away = draw(&elsewhere);
    let by_position = |v: &mut Vec<usize>| v.sort_by_key(|&i| order.get(i).copied());
    let mut front: Vec<usize> = away.values().copied().collect();
    by_position(&mut front);
    let mut home_drawn: Vec<usize> = drawn.values().copied().collect();
    by_position(&mut home_drawn);
    let moved = front.len() + home_drawn.len();
    front.extend(home_drawn);
    let taken: std::collections::BTreeSet<usize> = front.iter().copied().collect();
    let mut rest_home: Vec<usize> = inside.into_iter().filter(|i| !taken.contains(i)).collect();
    by_position(&mut rest_home);
    let rest = outside.into_iter().filter(|i| !taken.contains(i));
    *todo = front.into_iter().chain(rest_home).chain(rest).collect();
    moved
}

/// The seconds of the pieces `left`, each at the mean of the pieces of its class (`classes`,
/// by piece) that `secs` holds, or at the mean of all of them where its class has none; and how
/// many were taken so. `None` where `secs` is empty.
pub fn by_class(
    secs: &BTreeMap<usize, f64>,
    classes: &[u8],
    left: impl IntoIterator<Item = usize>,
) -> Option<(f64, usize)> {
    if secs.is_empty() {
        return None;
    }
    let mut sums: BTreeMap<u8, (f64, usize)> = BTreeMap::new();
    for (&piece, &c) in secs {
        if let Some(&k) = classes.get(piece) {
            let e = sums.entry(k).or_default();
            e.0 += c;
            e.1 += 1;
        }
    }
    let all = secs.values().sum::<f64>() / secs.len() as f64;
    let (mut total, mut unmeasured) = (0.0, 0);
    for piece in left {
        match classes.get(piece).and_then(|k| sums.get(k)) {
            Some(&(sum, n)) => total += sum / n as f64,
            None => {
                total += all;
                unmeasured += 1;
            }
        }
    }
    Some((total, unmeasured))
}

/// States of the shared tables a piece stands for when the count chooses its pieces: 8x8 open
/// (214 million) in 243 pieces of a few minutes on two cores, 7x8 open (11 million) in 27,
/// 7x7 open in 3. More pieces cost little (a shard makes their common nodes once), and a
/// piece is what a stop loses at worst when no leaf is recorded.
const PIECE_STATES: u64 = 1 << 20;

/// The fewest pieces a count is cut into where its first boundary column allows: a small
/// count's pieces cost nothing more, and a stop loses a ninth of it at most.
const MIN_PIECES: u64 = 9;

/// A node whose sides hold at most this many states together is walked to its end as one
/// leaf (by default; a smaller memory bound makes leaves smaller): small tables stay in the
/// processor's caches, and 7x7 open took 59 s so against 69 s with leaves eight times larger.
pub(crate) const LEAF_STATES: u64 = 1 << 18;

/// A node larger than this makes its children one at a time, each while the node stays (in a
/// file where it is large), instead of all three at once beside it.
const ONE_PASS_STATES: u64 = 1 << 22;

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

/// States the digit tree reads, projected from its roots' states: the right half's last column
/// about as many for each of its states as the forward walk's last column read for each of its
/// own (`per`, where that column stands for it; else 19 on a short side of 5, nearly twice as
/// many for each square more: 40, 65 and 135 measured on sides of 6, 7 and 8), the crossing
/// about six times that for each of its states (4.6 to 6.7 measured: its squares never leave its
/// window, over two columns).
pub(crate) fn reads(w: u32, x: u64, y: u64, per: Option<f64>) -> f64 {
    let per = per.unwrap_or_else(|| 19.0 * 1.9f64.powi(w as i32 - 5));
    per * (CROSSING_READS * x as f64 + y as f64)
}

/// The states of a leaf of the digit tree under `limits`, for tables of `entry` bytes a state:
/// the size the limits set (`TreeSize`), else, since a leaf's walk holds some hundreds of times
/// its states' table at its largest (see [`leaf_growth`]), leaves small enough for that under
/// the memory bound, and no larger than [`LEAF_STATES`].
pub(crate) fn leaf_states(limits: &crate::engine::Limits, entry: u64) -> u64 {
    limits
        .tree
        .leaf_states
        .unwrap_or_else(|| (limits.max_memory / entry / 1000).clamp(256, LEAF_STATES))
        .max(1)
}

/// The bytes a leaf's walk holds at its largest, for leaves of `leaf` states where the roots
/// hold `roots` states in all (a small count's nodes are smaller than its leaves), growing
/// `growth` times (see [`leaf_growth`]).
pub(crate) fn leaf_bytes(leaf: u64, roots: u64, entry: u64, growth: f64) -> f64 {
    growth * (leaf as f64).min(roots as f64 / 9.0) * entry as f64
}

/// How many times its own states' table a leaf's walk holds at its largest on a board `w` wide,
/// where the forward walk's last column read `per` states for each it started from (see
/// [`reads`]): a leaf walks the columns of the right half, which grow as that column did, so
/// [`leaf_per_read`] times that, at most [`LEAF_GROWTH_MAX`]; [`LEAF_GROWTH`] where no column
/// was measured (one that started from fewer than [`COLUMN_MEASURED`] states). On long boards
/// the layers have stopped growing (5x16's last column read 14 states for each, 7x7's 700),
/// and a leaf's walk holds a small part of what the short boards' does.
pub(crate) fn leaf_growth(per: Option<f64>, w: u32) -> f64 {
    per.map_or(LEAF_GROWTH, |p| (leaf_per_read(w) * p).min(LEAF_GROWTH_MAX))
}

/// A leaf's growth for each state the forward walk's last column read for each it started
/// from (see [`leaf_growth`]), on a board `w` wide: `w - 2`. The leaf's peak, less the resident
/// size before the pieces and the nodes above, was 2.3 to 4.8 times that figure on boards 5
/// wide (5x10 to 5x16), 2.9 to 4.2 on 6 wide (6x8, 6x9, 6x10 and 6x12 closed) and 6.8 to 6.9 on
/// 7 wide (7x8 open and closed), with the allocator's version 2 (`results/estimates.md`): a
/// wider board's crossing reads more states for each of the column's.
fn leaf_per_read(w: u32) -> f64 {
    (f64::from(w) - 2.0).max(1.0)
}

/// The states the forward walk's last column reads for each it starts from, estimated before it
/// is walked (the up-front projection) from its growth `g`, its end's states over its start's,
/// on a board `w` wide: 12 where the layers stay level on boards 5 wide, half as much again for
/// each square wider, and 1.8 more for each time the column grows. Measured: 5x16 (growth 1.14)
/// read 13.7, 5x10 (4.3) 19.6, 6x12 closed (1.9) 21.2, 6x8 (10.4) 37.7, 7x8 open (13.6) 59.2,
/// 7x8 closed (19.0) 66.3, 6x6 (223) 390.
pub(crate) fn column_reads_from_growth(w: u32, g: f64) -> f64 {
    12.0 * 1.5f64.powi(w as i32 - 5) + 1.8 * g
}

/// A column whose reads stand for the next (the right half's last): one that starts from at
/// least this many states. Smaller ones (6x6 starts its last forward column from 136 states,
/// 7x7 from 528) grow by more than their leaves' walks do.
pub(crate) const COLUMN_MEASURED: u64 = 10_000;

/// The bytes of the nodes above a piece, kept while its leaves are walked, for the heaviest
/// piece (every digit 1: its class takes the most time, and is drawn first), under roots of
/// `x` crossing and `y` right states (made true) at `depth`, a state taking `state` bytes in
/// its table; a side of a node larger than `spill` bytes waits on disk. Along that piece's way
/// the crossing side stays about the roots' size (its steps grow it as its digits cut it) and
/// the right side keeps nine tenths a digit: 8x9 closed's piece 13 at depth 3 held 4.7 and 8.0
/// million states under roots of 4.0 and 7.9, 8x10 closed's piece 121 at depth 5 8.0 and 48.2
/// under 7.9 and 80.8 (`results/estimates.md`). A third a digit, as for the mean piece, took
/// 8x9 closed's nodes above at 123 MiB where they held 1.1 GiB.
///
/// A side that waits on disk is made in memory first, beside the nodes held: the largest such
/// side counts once. Without it 8x10 closed was projected at 4.1 GiB and peaked at 5.7 to 6.5
/// (its first right side of 72 million states, 1.6 GiB, made beside up to 3.9 GiB held).
pub(crate) fn above_bytes(x: u64, y: u64, depth: usize, state: f64, spill: f64) -> f64 {
    let (held, made) = above_parts(x, y, depth, state, spill);
    held + made
}

/// [`above_bytes`] in its two parts: the sides held in memory, and the largest side made in
/// memory before it waits on disk.
pub(crate) fn above_parts(x: u64, y: u64, depth: usize, state: f64, spill: f64) -> (f64, f64) {
    let (mut held, mut made) = (0.0, 0.0f64);
    for k in 1..=depth {
        for side in [x as f64, y as f64 * ABOVE_KEPT.powi(k as i32)] {
            let b = side * state;
            if b <= spill {
                held += b;
            } else {
                made = made.max(b);
            }
        }
    }
    (held, made)
}

/// The share of its right states a node on the heaviest piece's way keeps a digit (see
/// [`above_bytes`]).
const ABOVE_KEPT: f64 = 0.9;

/// The bytes past which a node waits on disk while its children are made, under the memory
/// bound `bound`: a 16th of it, at least 1 MiB.
pub(crate) fn spill_bytes(bound: u64) -> u64 {
    (bound / 16).max(1 << 20)
}

/// Whether a root table of `bytes` waits on disk under the memory bound `bound`: the roots are
/// read again for every piece, and one past an eighth of the bound is kept in a file.
pub(crate) fn root_on_disk(bytes: f64, bound: u64) -> bool {
    bytes > (bound / 8) as f64
}

/// The depth of the pieces for shared tables of `states` states on a board `w` wide cut for
/// `shards` shards: enough pieces that each stands for about [`PIECE_STATES`] states, and at
/// least one a shard; at most the first column's squares.
pub(crate) fn depth_for(states: u64, shards: usize, w: u32) -> usize {
    let want = (states / PIECE_STATES).max(shards as u64).max(MIN_PIECES);
    let mut d = 0;
    while 3u64.pow(d as u32) < want && d < w as usize {
        d += 1;
    }
    d
}

/// Whether the right side is the one made true, for merged tables of `left` and `right` states
/// (see [`TRUE_RIGHT`]).
pub(crate) fn true_right(left: u64, right: u64) -> bool {
    (right as f64) < TRUE_RIGHT * left as f64
}

/// How many times the right half's last column the crossing reads for each state it starts from.
const CROSSING_READS: f64 = 6.0;

/// How many times its own states' table a leaf's walk holds at its largest, with the index and
/// the nodes above it, where no column of the count's own was measured (see [`leaf_growth`]):
/// the counts whose last forward column starts small, 5x8, 6x6, 6x7, 7x6, 7x7 and 6x8 closed,
/// peaked at 270 to 550 times a leaf's table over what they held before their pieces.
const LEAF_GROWTH: f64 = 350.0;

/// The most [`leaf_growth`] takes from a measured column: on the boards whose columns still
/// grow fast, a leaf's peak with the memory the allocator keeps beside it (7x8 closed's
/// resident peak, less what was resident before the pieces, 520 times a leaf's table; 6x7's
/// 490; 7x7's 290).
const LEAF_GROWTH_MAX: f64 = 400.0;

/// The right side is made true where its merged table holds fewer than this many times the
/// left's states: the crossing reads about 290 states for each state of its start (two columns,
/// its squares never leaving), the right's last column about 64 (7x7 and 7x8 open, 8x8 closed),
/// and the side made true is read twice over. 7x7 open reads 280 million states so, against
/// 430 million with the left made true.
const TRUE_RIGHT: f64 = 4.5;

/// A forward column is cut into a digit tree once it starts from more states than this (its
/// layers then grow to tens of millions); a smaller one is walked whole.
const COLUMN_TREE_STATES: u64 = 1 << 21;

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

/// The seconds the nodes above the pieces `left` (by tree position, in `order`, under a tree
/// of depth `depth`) will take to make, each at the mean time of the nodes made at its depth
/// (`made`, as [`PieceFigures::above`]): a node is made once for the pieces under it that come
/// one after another in the tree's order, and `kept` (the path of nodes now held, by depth)
/// are made already. A piece drawn at random makes its whole path from the roots, the pieces
/// after it in the tree's order share theirs: their times are projected without their paths,
/// and the paths still to make are added here once (8x8 open's lightest pieces took four times
/// their own work when drawn, reading a third of the roots' 128 million states and on down).
pub(crate) fn above_left(
    order: &[u64],
    depth: usize,
    left: &[usize],
    kept: &[u64],
    made: &[(f64, usize)],
) -> f64 {
    let mut total = 0.0;
    for j in 1..depth {
        let Some(&(secs, n)) = made.get(j - 1).filter(|m| m.1 > 0) else {
            continue;
        };
        let scale = 3u64.pow((depth - j) as u32);
        let mut held = kept.get(j - 1).copied();
        let mut nodes = 0usize;
        for &i in left {
            let q = order[i] / scale;
            if held != Some(q) {
                nodes += 1;
                held = Some(q);
            }
        }
        total += nodes as f64 * secs / n as f64;
    }
    total
}

/// Each recorded piece's own seconds (its record's `secs`, less the nodes above it that it
/// made, by `time`: a piece's own node, of depth `depth`, is its own work) and the seconds and
/// number of the nodes made at each depth (index 0: the roots' children), from records of
/// `(piece, secs, nodes above it made)`; the one place both projections of the pieces left (a
/// run's own as it goes on, `knights status`'s) take a piece's shared work out of its time. A
/// record whose nodes are not known (`None`: written before records said them) holds its
/// path's time as well: it is left out where its class has records that say theirs, so that
/// the paths still to make are not counted twice (once in the class's mean, once apart).
pub(crate) fn own_times<'a>(
    records: impl IntoIterator<Item = (usize, f64, Option<&'a [Made]>)>,
    depth: usize,
    classes: &[u8],
    time: fn(&Made) -> f64,
) -> (BTreeMap<usize, f64>, Vec<(f64, usize)>) {
    let records: Vec<_> = records.into_iter().collect();
    let said: BTreeSet<u8> = (records.iter())
        .filter(|r| r.2.is_some())
        .filter_map(|r| classes.get(r.0).copied())
        .collect();
    let mut made = vec![(0.0, 0usize); depth.saturating_sub(1)];
    let mut own = BTreeMap::new();
    for (piece, secs, above) in records {
        let Some(above) = above else {
            if !classes.get(piece).is_some_and(|k| said.contains(k)) {
                own.insert(piece, secs);
            }
            continue;
        };
        let mut path = 0.0;
        for m in above.iter().filter(|m| (1..depth).contains(&m.depth)) {
            made[m.depth - 1].0 += time(m);
            made[m.depth - 1].1 += 1;
            path += time(m);
        }
        own.insert(piece, (secs - path).max(0.0));
    }
    (own, made)
}

/// The CPU seconds the pieces `left` of a tree cut recorded as `param` (`pieces` pieces
/// numbered for `shards` shards) will take, from the records of the pieces counted: each piece
/// at the mean of its class's own times (`cpu`, less the nodes above it that it made:
/// `above`, as [`Host::above`] gives them), and the nodes above the pieces left at the mean of
/// their depth's, each made once for the pieces under it (a process that resumes keeps none);
/// and how many pieces were taken at the mean of all for want of a record of their class. The
/// count's own projection as it goes (see [`above_left`]), for `knights status`. `None` where
/// the cut is not a tree or no record has its time.
pub fn project_left(
    param: usize,
    pieces: usize,
    shards: u32,
    cpu: &BTreeMap<usize, f64>,
    above: &BTreeMap<usize, Vec<Made>>,
    left: &[usize],
) -> Option<(f64, usize)> {
    let depth = depth_of_param(param)? as usize;
    let classes = piece_classes(param, pieces, shards)?;
    let records = cpu
        .iter()
        .map(|(&p, &c)| (p, c, above.get(&p).map(Vec::as_slice)));
    let (own, made) = own_times(records, depth, &classes, |m| m.cpu);
    let (secs, unmeasured) = by_class(&own, &classes, left.iter().copied())?;
    let order = order(pieces, shards as usize);
    let mut left = left.to_vec();
    left.retain(|&i| i < pieces);
    left.sort_by_key(|&i| order[i]);
    Some((
        secs + above_left(&order, depth, &left, &[], &made),
        unmeasured,
    ))
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
        if let Some(p) = &self.limits.checkpoint {
            super::tree::remove_stale(p);
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
        if crate::engine::resident_bytes().is_some_and(|r| r > spill_bytes(self.limits.max_memory))
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
            if let Some(r) = self.read_roots(&p, cut)? {
                return Ok(Some(r));
            }
        }
        let w = self.walk.w as usize;
        let (lsq, rq) = (cut.left as usize * w, (cut.right as usize - 1) * w);
        let end = lsq.max(rq);
        let fwd = layout::steps::<K>(&self.walk, &self.rules, 0, end as u32);
        self.total = end;
        let resume = self.load_layers()?;
        let (mut layer, mut done, mut left, mut right) = match resume {
            Some(mut s) if s.phase == "forward" && s.done % w == 0 && s.done <= end => {
                let done = s.done;
                let current = s.take("current").ok_or_else(|| self.foreign_phase())?;
                (current, done, s.take("left"), s.take("right"))
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (
                Layer::single(K::ZERO, self.walk.key_bytes(), 1),
                0,
                None,
                None,
            ),
        };
        self.saver.saved = done > 0;
        self.progress(done, &layer, "forward");
        let mut rate = 0.0;
        while done < end {
            let t = Instant::now();
            let read0 = self.sweep.read;
            let leaf = if layer.len() > COLUMN_TREE_STATES && self.walk.column_free() {
                LEAF_STATES
            } else {
                u64::MAX
            };
            let next = match self.column(&layer, &fwd[done..done + w], leaf, done) {
                Ok(l) => l,
                Err(_) if self.stopped() => {
                    if !self.saver.saved {
                        self.save_forward(done, end, &layer, left.as_ref(), right.as_ref())?;
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
            if self.saver.due() && done < end {
                self.save_forward(done, end, &layer, left.as_ref(), right.as_ref())?;
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
        if let Some(p) = &self.split_path {
            let mut tables = vec![("left", &left)];
            if let Some(r) = &right {
                tables.push(("right", r));
            }
            snapshot::save(
                p,
                &self.name,
                "split",
                (rate * 1e12) as usize,
                (0, 0),
                &tables,
            )?;
            self.saver.clear();
        }
        self.make_roots(left, right, rate).map(Some)
    }

    fn save_forward(
        &mut self,
        done: usize,
        end: usize,
        layer: &Layer<K>,
        left: Option<&Layer<K>>,
        right: Option<&Layer<K>>,
    ) -> Result<(), RunError> {
        let mut tables = Vec::new();
        if let Some(l) = left {
            tables.push(("left", l));
        }
        if let Some(r) = right {
            tables.push(("right", r));
        }
        tables.push(("current", layer));
        self.saver
            .save(&self.name, ("forward", done, done, end), &tables)
    }

    /// The shared tables saved at `p`, if there is such a file.
    fn read_roots(&mut self, p: &std::path::Path, cut: Cut) -> Result<Option<Roots<K>>, RunError> {
        let Some(mut s) = snapshot::load::<K>(p, &self.name, self.walk.key_bytes())? else {
            return Ok(None);
        };
        let w = self.walk.w;
        if s.phase != "split" {
            return Err(self.foreign_phase());
        }
        let left = s.take("left").ok_or_else(|| self.foreign_phase())?;
        let right = s.take("right");
        if right.is_some() == (cut.left == cut.right - 1) {
            return Err(self.foreign_phase());
        }
        let _ = w;
        self.make_roots(left, right, s.done as f64 * 1e-12)
            .map(Some)
    }

    /// The roots of the tree from the forward walk's tables (the left's own table where the
    /// two are one): the side walked less below the root made true (see [`TRUE_RIGHT`]), the
    /// right kept on disk where it is large.
    fn make_roots(
        &mut self,
        left: Layer<K>,
        right: Option<Layer<K>>,
        rate: f64,
    ) -> Result<Roots<K>, RunError> {
        self.relieve();
        let right = match right {
            Some(r) => r,
            None => left.clone(),
        };
        let (left_merged, right_len) = (left.len(), right.len());
        let true_right = true_right(left_merged, right_len);
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
            let right = self.unmerged(&right, &perm, width)?;
            (left, right)
        } else {
            let (perm, width) = mirror(cut.left);
            (self.unmerged(&left, &perm, width)?, right)
        };
        let keep = |l: Layer<K>| -> Result<Node<K>, RunError> {
            if root_on_disk(l.bytes() as f64, self.limits.max_memory) {
                Ok(Node::Disk(Spill::write(&l, &self.spill_prefix())?))
            } else {
                Ok(Node::Mem(l))
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
    fn unmerged(&self, layer: &Layer<K>, perm: &Perm<K>, width: u32) -> Result<Layer<K>, RunError> {
        let builder = Builder::new(
            layer.len() * 2,
            layer.shape(),
            layer.bytes(),
            self.sweep.limit,
            None,
        );
        let odd = AtomicBool::new(false);
        (0..layer.part_count()).into_par_iter().for_each(|p| {
            let mut batch = Batch::new(&builder);
            let mut half = Vec::new();
            for (k, c) in layer.part(p) {
                let m = perm.apply(k, width);
                if m == k {
                    batch.push(k, c);
                    continue;
                }
                let words: Vec<u64> = c.words().collect();
                // Relaxed: read once all workers are done
                if words[0] & 1 == 1 {
                    odd.store(true, Ordering::Relaxed);
                }
                half.clear();
                for (i, w) in words.iter().enumerate() {
                    let next = words.get(i + 1).copied().unwrap_or(0);
                    half.push((w >> 1) | (next << 63));
                }
                batch.push_words(k, &half);
                batch.push_words(m, &half);
            }
        });
        if odd.load(Ordering::Relaxed) {
            return Err(Error::Invalid(format!(
                "the frontier tables of {} hold a state whose merged count with its mirror image is odd, which no whole number of tours gives: the count cannot be trusted (a fault of the machine or the program; please report it)",
                self.req.board
            ))
            .into());
        }
        builder.finish().map_err(|e| self.tree_stopped(e, 0))
    }

    /// Removes the files of a finished count: the leaves, the saved stage, and the shared
    /// tables unless other shards share them (`--split`).
    fn finish_files(&mut self) {
        self.leaves.clear();
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

    /// The depth of the pieces: enough of them that each stands for about [`PIECE_STATES`]
    /// states of the shared tables, and at least one a shard; at most the first column's
    /// squares.
    fn choose_depth(&self, roots: &Roots<K>, shards: usize) -> usize {
        depth_for(roots.left.len() + roots.right.len(), shards, self.walk.w)
    }

    fn plan(&self, cut: Cut, depth: usize) -> Plan<K> {
        let w = self.walk.w as usize;
        let m = cut.cross as usize * w;
        let lsq = cut.left * self.walk.w;
        let rq = (cut.right - 1) * self.walk.w;
        let mut xrules = self.rules.clone();
        xrules.mirror = false;
        xrules.cut = Some(lsq);
        let mut yrules = self.rules.clone();
        yrules.mirror = false;
        let leaf_states = leaf_states(self.limits, (self.walk.key_bytes() + 8) as u64);
        Plan {
            cut,
            xsteps: layout::steps(&self.walk, &xrules, lsq, lsq + m as u32),
            ysteps: layout::steps(&self.walk, &yrules, rq, rq + w as u32),
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
            if shards > 1 {
                format!("this shard's {mine}")
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
        let pieces = crate::engine::resident_bytes().unwrap_or(0) as f64
            + above
            + leaf_bytes(
                plan.leaf_states,
                roots_states,
                entry,
                leaf_growth(self.column_reads_measured(), self.walk.w),
            );
        let bytes = pieces.max(crate::engine::peak_resident_bytes().unwrap_or(0) as f64);
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
            let cpu = match (cpu, crate::engine::cpu_seconds()) {
                (Some(a), Some(b)) => b - a,
                _ => 0.0,
            };
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
        self.node(plan, d, p, x, Side::Open(y), &mut count, figures)?;
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
    ) -> Result<Layer<K>, RunError> {
        let keep = |k: K| admits.is_none_or(|i| i.prefixes.admits(j, k));
        let mut kids = self
            .sweep
            .children(node.src(), step, Some(digit), 0, keep)
            .map_err(|e| self.tree_stopped(e, j))?;
        Ok(kids.pop().expect("one child"))
    }

    /// A node kept on disk where it is large (its children read it back one at a time).
    fn maybe_spill(&self, plan: &Plan<K>, layer: Layer<K>) -> Result<Node<K>, RunError> {
        if layer.bytes() > plan.spill_bytes {
            Ok(Node::Disk(Spill::write(&layer, &self.spill_prefix())?))
        } else {
            Ok(Node::Mem(layer))
        }
    }

    /// Where nodes wait on disk: beside the checkpoint (`FILE.node.N`, under its lock), or in
    /// the system's temporary folder (named for the process).
    fn spill_prefix(&self) -> PathBuf {
        match self.limits.checkpoint.as_deref() {
            Some(p) => crate::store::beside(p, super::tree::NODE_SUFFIX),
            None => std::env::temp_dir().join(format!(".knights-node.{}.", std::process::id())),
        }
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
        if let Side::Done(fin) = y {
            if !must_split && (j == plan.m || x.len() <= plan.leaf_states) {
                match self.leaf(plan, j, x, fin) {
                    Ok(c) => {
                        self.leaves.record(j, p, &c)?;
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
        if x.len() + ylen <= ONE_PASS_STATES
            && crate::engine::fits(self.limits.max_memory, children)
        {
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
            let mut ys = match y {
                Side::Open(node) => {
                    self.progress_of(j + 1, node.len(), node.bytes(), "right half");
                    self.sweep
                        .children(node.src(), &plan.ysteps[j], None, 0, |_| true)
                        .map_err(|e| self.tree_stopped(e, j))?
                        .into_iter()
                        .map(|l| Some(Node::Mem(l)))
                        .collect()
                }
                Side::Done(_) => Vec::new(),
            };
            // a crossing state's square needs from the right what a right state's has: the
            // crossing's child of digit 2 - c meets the right's child of digit c
            for (c, xc) in xs.into_iter().rev().enumerate() {
                let q = p * 3 + c as u64;
                let xc = Node::Mem(xc);
                match (ys.get_mut(c).and_then(Option::take), fin) {
                    (Some(yc), _) => {
                        self.node(plan, j + 1, q, &xc, Side::Open(&yc), count, figures)?;
                    }
                    (None, Some(f)) => {
                        self.node(plan, j + 1, q, &xc, Side::Done(f), count, figures)?;
                    }
                    (None, None) => unreachable!("a node's right side is open or indexed"),
                }
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
        let bound = self.limits.max_memory;
        if bound != u64::MAX && crate::engine::resident_bytes().is_some_and(|r| r > bound / 2) {
            give_back();
        }
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
        let end = match node {
            Node::Mem(l) => self.walk_all(l, &plan.ysteps[j..], j, "right half")?,
            Node::Disk(spill) => {
                let l = spill.load()?;
                self.walk_all(&l, &plan.ysteps[j..], j, "right half")?
            }
        };
        let index = self.right_index(end, plan.cut)?;
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
        let loaded;
        let x = match x {
            Node::Mem(l) => l,
            Node::Disk(spill) => {
                loaded = spill.load()?;
                &loaded
            }
        };
        let keep = |i: usize, k: K| fin.prefixes.admits(j + i, k);
        let end = self.walk_kept(x, &plan.xsteps[j..], j, "crossing", &keep)?;
        self.progress(plan.m + 1, &end, "join");
        join::join(
            &end,
            &plan.boundary,
            &fin.index,
            self.req.spec.closed,
            self.stop,
        )
        .ok_or_else(|| self.tree_stopped(Stopped::Interrupted, plan.m))
    }
}

/// Asks every thread's allocator, and this one's, to give back the memory it keeps freed (at a
/// point where no table is being filled).
fn give_back() {
    rayon::broadcast(|_| crate::engine::give_back_freed_memory());
    crate::engine::give_back_freed_memory();
}

/// The tree position of each piece: shard `k` of `shards` counts the pieces `k`, `k + shards`,
/// ..., and they are its run of positions, so that a shard makes the nodes above its pieces
/// once.
#[must_use]
pub fn order(pieces: usize, shards: usize) -> Vec<u64> {
    let shards = shards.clamp(1, pieces.max(1));
    let mut start = vec![0usize; shards + 1];
    for k in 0..shards {
        // pieces i < pieces with i = k mod shards
        start[k + 1] = start[k] + (pieces + shards - 1 - k) / shards;
    }
    (0..pieces)
        .map(|i| (start[i % shards] + i / shards) as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    const GIB: f64 = (1u64 << 30) as f64;

    #[test]
    fn a_piece_class_counts_the_ones_among_its_digits() {
        // 9 pieces, one shard: piece p is the node p, digits (p / 3, p % 3)
        assert_eq!(
            piece_classes(TREE_PARAM | 2, 9, 1),
            Some(vec![0, 1, 0, 1, 2, 1, 0, 1, 0])
        );
        // two shards: shard 0 counts pieces 0, 2, 4, 6, 8 (nodes 0 to 4), shard 1 the others
        // (nodes 5 to 8)
        let two = piece_classes(TREE_PARAM | 2, 9, 2).unwrap();
        let nodes = order(9, 2);
        let one = piece_classes(TREE_PARAM | 2, 9, 1).unwrap();
        for (i, &p) in nodes.iter().enumerate() {
            assert_eq!(two[i], one[p as usize], "piece {i} is node {p}");
        }
        assert_eq!(nodes, [0, 5, 1, 6, 2, 7, 3, 8, 4]);
        // 243 pieces: the one all of whose digits are 1 is node 121
        let five = piece_classes(TREE_PARAM | 5, 243, 1).unwrap();
        assert_eq!(five.iter().position(|&c| c == 5), Some(121));
        assert_eq!(five.iter().filter(|&&c| c == 0).count(), 32);
        // not a tree cut, or not its number of pieces
        assert_eq!(piece_classes(2, 9, 1), None);
        assert_eq!(piece_classes(TREE_PARAM | 2, 10, 1), None);
    }

    #[test]
    fn the_nodes_above_the_pieces_left_are_projected_once_each() {
        // a tree of depth 3 (27 pieces, one shard: piece i is node i); a node of depth 1 took
        // 6 s to make, one of depth 2 took 1 s; the pieces' own nodes (depth 3) are theirs
        let order = order(27, 1);
        let made = [(12.0, 2), (3.0, 3), (100.0, 1)];
        // every piece left and nothing held: 3 nodes of depth 1 and 9 of depth 2
        let all: Vec<usize> = (0..27).collect();
        assert_eq!(above_left(&order, 3, &all, &[], &made), 3.0 * 6.0 + 9.0);
        // the pieces 4 to 26 with the path to piece 3 held (nodes 0 and 1 of depths 1 and 2,
        // kept for pieces 4 and 5): nodes 1 and 2 of depth 1, and 2 to 8 of depth 2
        let left: Vec<usize> = (4..27).collect();
        assert_eq!(above_left(&order, 3, &left, &[0, 1, 3], &made), 12.0 + 7.0);
        // pieces drawn out of order make their paths again: 26, then 0, then 25
        assert_eq!(
            above_left(&order, 3, &[26, 0, 25], &[], &made),
            3.0 * 6.0 + 3.0
        );
        // a depth with no node made yet is not projected
        assert_eq!(above_left(&order, 3, &all, &[], &made[..1]), 3.0 * 6.0);
    }

    #[test]
    fn a_long_run_counts_one_piece_of_each_class_first() {
        let order = order(27, 1);
        let classes = piece_classes(TREE_PARAM | 3, 27, 1).unwrap();
        let mut todo: Vec<usize> = (0..27).collect();
        assert_eq!(sample_first(&mut todo, &classes, &order, 3, 7), 4);
        // one of each class 0 to 3: class 0 (no digit 1) from outside the subtree of first
        // digit 1 (pieces 9 to 17), first; classes 1 to 3 under it, in the tree's order
        let mut first: Vec<u8> = todo[..4].iter().map(|&i| classes[i]).collect();
        assert_eq!(first[0], 0);
        assert!(todo[0] < 9 || todo[0] >= 18, "{todo:?}");
        assert!(todo[1..4].iter().all(|i| (9..18).contains(i)), "{todo:?}");
        assert!(todo[1..4].is_sorted(), "{todo:?}");
        first.sort_unstable();
        assert_eq!(first, [0, 1, 2, 3]);
        // then the rest of that subtree, then the others, each in the tree's order
        let home: Vec<usize> = (9..18).filter(|i| !todo[..4].contains(i)).collect();
        assert_eq!(todo[4..10], home[..], "{todo:?}");
        let others: Vec<usize> = (0..9).chain(18..27).filter(|&i| i != todo[0]).collect();
        assert_eq!(todo[10..], others[..], "{todo:?}");
        // another seed draws other pieces of the same classes
        let draws: std::collections::BTreeSet<Vec<usize>> = (0..20)
            .map(|seed| {
                let mut t: Vec<usize> = (0..27).collect();
                sample_first(&mut t, &classes, &order, 3, seed);
                t[..4].to_vec()
            })
            .collect();
        assert!(draws.len() > 1, "{draws:?}");
        // short runs, and runs of one class, keep their order
        let mut short: Vec<usize> = (0..26).collect();
        assert_eq!(sample_first(&mut short, &classes, &order, 3, 7), 0);
        assert_eq!(short, (0..26).collect::<Vec<_>>());
        let zeros: Vec<usize> = (0..27).filter(|&i| classes[i] == 0).collect();
        let mut one = zeros.repeat(4);
        assert_eq!(sample_first(&mut one, &classes, &order, 3, 7), 0);
        // a shard holds part of the subtrees: shard 0 of 2 of a tree of depth 4 holds
        // positions 0 to 40 (first digits 0, and 1 down to 1111)
        let two = super::order(81, 2);
        let classes2 = piece_classes(TREE_PARAM | 4, 81, 2).unwrap();
        let mut mine: Vec<usize> = (0..81).step_by(2).collect();
        mine.sort_by_key(|&i| two[i]);
        let n = sample_first(&mut mine, &classes2, &two, 4, 3);
        assert_eq!(n, 5, "{mine:?}");
        let mut seen: Vec<u8> = mine[..n].iter().map(|&i| classes2[i]).collect();
        assert!(two[mine[0]] < 27 && mine[1..n].iter().all(|&i| two[i] >= 27));
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        let mut all = mine.clone();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..81).step_by(2).collect::<Vec<_>>(),
            "every piece once"
        );
    }

    #[test]
    fn status_projects_the_pieces_left_without_the_paths_their_records_made() {
        let param = TREE_PARAM | 2;
        // piece 0 (class 0) made both nodes of its path, piece 1 (class 1) its own node only
        let cpu: BTreeMap<usize, f64> = [(0, 20.0), (1, 15.0)].into();
        let made = |depth, cpu| Made {
            depth,
            wall: cpu / 2.0,
            cpu,
        };
        let above: BTreeMap<usize, Vec<Made>> = [
            (0, vec![made(1, 6.0), made(2, 1.0)]),
            (1, vec![made(2, 1.0)]),
        ]
        .into();
        let left: Vec<usize> = (2..9).collect();
        // their own times, less the nodes above them (depth 1; those of depth 2 are the pieces'
        // own): 14 s and 15 s. Classes of pieces 2 to 8: 0, 1, 2, 1, 0, 1, 0; at 14 s, 15 s
        // and (class 2, none counted) the mean 14.5 s: 101.5 s; then nodes 0, 1 and 2 of
        // depth 1 at 6 s
        assert_eq!(
            project_left(param, 9, 1, &cpu, &above, &left),
            Some((101.5 + 18.0, 1))
        );
        // records of a build that wrote no such note: their whole times, no node apart
        let plain = by_class(&cpu, &piece_classes(param, 9, 1).unwrap(), 2..9);
        assert_eq!(
            project_left(param, 9, 1, &cpu, &BTreeMap::new(), &left),
            plain
        );
        // not a tree's cut, or no record timed
        assert_eq!(project_left(2, 9, 1, &cpu, &above, &left), None);
        assert_eq!(
            project_left(param, 9, 1, &BTreeMap::new(), &above, &left),
            None
        );
    }

    #[test]
    fn a_record_that_does_not_say_its_path_is_left_out_where_its_class_has_one_that_does() {
        let made = |depth, wall, cpu| Made { depth, wall, cpu };
        // classes 0, 1, 0, 1, 2 under a tree of depth 3: pieces 0 and 1 say their paths (0
        // made two nodes above it, 1 none: a sibling made its path), 2 and 4 do not
        let classes = [0, 1, 0, 1, 2];
        let zero = [made(1, 3.0, 5.0), made(2, 1.0, 2.0), made(3, 9.0, 9.0)];
        let records = [
            (0, 20.0, Some(&zero[..])),
            (1, 50.0, Some(&[][..])),
            (2, 40.0, None),
            (4, 30.0, None),
        ];
        let (own, nodes) = own_times(records, 3, &classes, |m| m.wall);
        // piece 0 less its depth 1 and 2 nodes (its own, of depth 3, stays); piece 2's time
        // holds a path no note separates and its class has piece 0: left out; piece 4 is the
        // only one of its class: kept whole
        assert_eq!(own, [(0, 16.0), (1, 50.0), (4, 30.0)].into());
        assert_eq!(nodes, vec![(3.0, 1), (1.0, 1)]);
        let (own, nodes) = own_times(records, 3, &classes, |m| m.cpu);
        assert_eq!(own[&0], 13.0);
        assert_eq!(nodes, vec![(5.0, 1), (2.0, 1)]);
        // a log written before any note: every record whole
        let old = [(0, 20.0, None), (2, 40.0, None)];
        let (own, nodes) = own_times(old, 3, &classes, |m| m.wall);
        assert_eq!(own, [(0, 20.0), (2, 40.0)].into());
        assert_eq!(nodes, vec![(0.0, 0), (0.0, 0)]);
    }

    #[test]
    fn a_leaf_grows_as_the_column_measured_and_no_more_than_the_cap() {
        // no column measured: the factor fitted to whole counts
        assert_eq!(leaf_growth(None, 6), LEAF_GROWTH);
        // a long board's column reads few states for each (5x16: 14), a leaf grows as little
        assert_eq!(leaf_growth(Some(14.0), 5), 14.0 * 3.0);
        assert!(leaf_growth(Some(14.0), 5) < leaf_growth(None, 5) / 3.0);
        // a wider board's leaf grows more for each state read (7x8 open: 59 a state)
        assert!(leaf_growth(Some(59.0), 7) > leaf_growth(Some(59.0), 6));
        // a short board's column grows fast (7x7: 700): capped
        assert_eq!(leaf_growth(Some(700.0), 7), LEAF_GROWTH_MAX);
        let bytes = |per| leaf_bytes(1000, 90_000, 24, leaf_growth(per, 6));
        assert!(bytes(Some(14.0)) < bytes(Some(40.0)) && bytes(Some(40.0)) < bytes(Some(700.0)));
        // a small count's leaves are its roots' ninth
        assert_eq!(leaf_bytes(1 << 18, 9_000, 24, 100.0), 100.0 * 1000.0 * 24.0);
    }

    #[test]
    fn the_reads_estimated_from_a_columns_growth_are_near_those_measured() {
        // (width, growth of the forward walk's last column, states it read for each it started
        // from), measured (`results/estimates.md`): the estimate within 1.3 times
        for (w, g, per) in [
            (5, 1.14, 13.7),
            (5, 4.33, 19.6),
            (6, 1.87, 21.2),
            (6, 10.4, 37.7),
            (7, 13.6, 59.2),
            (7, 19.0, 66.3),
            (6, 223.0, 390.4),
        ] {
            let est = column_reads_from_growth(w, g);
            assert!(
                est / per < 1.3 && per / est < 1.3,
                "{w} {g}: {est} for {per}"
            );
        }
    }

    #[test]
    fn the_depth_of_the_pieces_follows_the_shared_states_and_the_shards() {
        // small tables: nine pieces at least
        assert_eq!(depth_for(1_000, 1, 7), 2);
        // 8x8 open's 214 million states: 204 pieces of a million, depth 5 (243)
        assert_eq!(depth_for(214_000_000, 1, 8), 5);
        // more shards than that: one piece a shard
        assert_eq!(depth_for(1_000, 100, 7), 5);
        // no deeper than the column's squares
        assert_eq!(depth_for(u64::MAX, 1, 5), 5);
    }

    #[test]
    fn the_nodes_above_the_heaviest_piece_are_held_unless_they_wait_on_disk() {
        // a state of 10 bytes: 100 crossing states at each of two depths, and 1000 right
        // states kept nine tenths a digit
        let b = above_bytes(100, 1000, 2, 10.0, 1e9);
        assert!((b - (2000.0 + 9000.0 + 8100.0)).abs() < 1e-6, "{b}");
        // a right side past the spill waits on disk, made in memory first (the larger, 9000
        // bytes, counted once); the crossing side stays
        assert!((above_bytes(100, 1000, 2, 10.0, 5000.0) - (2000.0 + 9000.0)).abs() < 1e-6);
        // 8x9 closed's piece 13 (depth 3, 17-byte states, the default bound's spill): near the
        // 1.1 GiB its nodes above held
        let b = above_bytes(3_969_876, 7_939_752, 3, 17.0 / 0.7, 1.1 * GIB);
        assert!(b > 0.6 * GIB && b < 1.5 * GIB, "{}", b / GIB);
        // 8x10 closed's heaviest piece (depth 5): up to 3.9 GiB held at its nodes (roots and
        // what the forward walk left included), and a right side of 1.6 GiB made beside
        let b = above_bytes(7_939_752, 80_757_438, 5, 17.0 / 0.7, 1.1 * GIB);
        assert!(b > 2.5 * GIB && b < 5.0 * GIB, "{}", b / GIB);
    }

    #[test]
    fn pieces_left_are_projected_at_their_class_mean() {
        // classes 0, 1, 0, 1, 2: pieces 0 and 1 counted (10 s and 100 s)
        let classes = [0, 1, 0, 1, 2];
        let secs: BTreeMap<usize, f64> = [(0, 10.0), (1, 100.0)].into();
        // piece 2 at 10 s, piece 3 at 100 s, piece 4 (class 2, none counted) at the mean, 55 s
        assert_eq!(by_class(&secs, &classes, 2..5), Some((165.0, 1)));
        assert_eq!(by_class(&secs, &classes, [2, 3]), Some((110.0, 0)));
        assert_eq!(by_class(&secs, &classes, []), Some((0.0, 0)));
        assert_eq!(by_class(&BTreeMap::new(), &classes, 2..5), None);
    }
}
