//! Exact uniform sampling inside a count met in the middle: boards whose plain layers are past
//! any memory (8x8 closed, 7x8 open), drawn from the structure the count itself uses.
//!
//! The count ([`crate::frontier::meet_leaves`]) cuts the board after `c` columns, carries the
//! left half across the boundary columns (the *crossing*), walks the right half (the same
//! forward walk, mirrored end to end) through its last column, and cuts both sides into the
//! leaves of a digit tree, each leaf a join of crossing states with right states whose counts
//! multiply. A tour is drawn in four steps, each in proportion to the tours below it:
//!
//! 1. a leaf, by the count the count recorded for it (a uniform rank below the total);
//! 2. within the leaf, made again from the roots with every layer kept (its nodes from the
//!    roots, one digit a step, then the rest of its walks), a pair of a crossing state and a
//!    right state that join, by the product of their counts (the same rank, read on);
//! 3. each side walked back to its root: at every step a predecessor and the choice that led
//!    from it, by the predecessor's count, from the sample's own random stream;
//! 4. each root walked back through the shared forward walk to the first square.
//!
//! A batch costs one pass over the layers it uses, not one a tour: the leaves a batch lands in
//! are made once each, in the tree's order so that the nodes above them are made once; the
//! samples wait at a node until it is let go, and are walked back through its parent's layer
//! together; the shared walk is walked back once for all of them.
//!
//! **Mirror images.** The forward walk merges each state with its mirror image (rows reversed)
//! at every column end. Walking back, a sample keeps a *flip*: its real state is the table's
//! state or its image. Where a predecessor's choice led to the image of the merged state, the
//! flip turns over, and the edges of the steps below are mirrored. A table path so read is
//! uniform over the real paths to the real state (two table paths a real one where the state
//! and its image differ, one where they are one), provided that a state which is its own image
//! takes either orientation by a fair coin: the path below it is real both ways round. The count makes one side of its roots *true*
//! (each state and its image apart, half the merged count each) and leaves the other merged, so
//! that a merged root stands for itself as it is: the sampler's tours are then those whose
//! merged side passes its root in the table's own orientation, each twice as likely, and none
//! of their mirror images. A fair coin mirrors the whole tour, which makes every tour equally
//! likely (the set of tours is closed under the mirror).
//!
//! Every leaf made again is joined again and checked against the count's record of it: a
//! difference stops the batch.
//!
//! **Memory.** A table's state takes 16 to 24 bytes with a count of one word (see
//! [`super::entry`]; two words where a count passes one, the batch made again so). The bound
//! governs what is kept (the shared walk past a quarter of it, the nodes above a leaf past a
//! quarter, a leaf's walks past a third, each then in a file of the system's temporary folder
//! with only its deepest table in memory) and the successors of a table being made (grouped
//! within what the process leaves of it); a table and the one it is made from are in memory
//! together.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::board::Board;
use crate::count::CountSpec;
use crate::count::report::human_bytes;
use crate::frontier::MeetLeaves;
use crate::frontier::join::{Boundary, SampleJoin, left_side, pair_joins, right_side};
use crate::piece::Piece;
use crate::walk::expand::{ANY, Choice, classes, expand_choices, expand_digit, unchanged_slots};
use crate::walk::layout::{self, Step, Walk};
use crate::walk::state::{Key, Perm};

use super::entry::{Count, Entry};
use super::fault::{Fault, fault};
use super::layers::Links;
use super::nodes::NodeStore;
use super::{Request, below_u128, tour_rng};

mod kept;
mod leaves_file;
mod ledger;
mod tables;
mod walk;
mod widen;

use kept::*;
use leaves_file::*;
pub(crate) use ledger::from_ledger;
use ledger::*;
use widen::*;

/// An exact sampler that draws a batch at a time.
pub(crate) trait Batch: Send + Sync {
    /// Tours `first..first + n` of the run of `seed`: each path as board square indices, and
    /// the coin that picks an open path's direction.
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault>;
    /// The tours drawn from (undirected: closed cycles, or open paths in one direction).
    fn total(&self) -> u128;
    /// The tables in a few words.
    fn describe(&self) -> String;
}

/// What a crossing state after its step `i` needs of the right over boundary squares `0..=i`
/// (square `j` in slot `i - j`), as a number in base 3 whose digit `j` is square `j`'s need: the
/// class of `Boundary::asks` modulo `3^(i + 1)`.
fn asks<K: Key>(k: K, i: usize) -> u64 {
    (0..=i).rev().fold(0, |c, j| {
        c * 3 + crate::walk::state::need(k.get((i - j) as u32))
    })
}

/// The first of `items` where `rank` falls, each weighing `weight` of the ranks in order
/// (`None` past their sum): how a rank picks a predecessor or a joining state by its count.
fn at_rank<T>(
    items: impl IntoIterator<Item = T>,
    mut rank: u128,
    weight: impl Fn(&T) -> u128,
) -> Option<T> {
    items.into_iter().find(|t| {
        let c = weight(t);
        if rank < c {
            true
        } else {
            rank -= c;
            false
        }
    })
}

/// A table: states sorted, each with its count.
type Table<K, C> = Vec<Entry<K, C>>;

/// The deepest node of a side's path (its roots pushed first, so never none).
fn deepest<K: Key, C: Count>(path: &Kept<K, C>) -> &Table<K, C> {
    path.last().expect("the path holds its root")
}

/// A table, with its name where it is a node kept in the [`NodeStore`].
type Named<K, C> = (Table<K, C>, Option<Vec<u8>>);

/// Bytes a state of a kept table takes.
fn entry_bytes<K: Key, C: Count>() -> u64 {
    std::mem::size_of::<Entry<K, C>>() as u64
}

/// One leaf of the count's digit tree.
struct Leaf {
    /// Its digits from the root (`0..=2` each).
    digits: Vec<u8>,
    count: u128,
    /// The leaves before it in the tree's order hold this many tours.
    start: u128,
}

struct Meet<K: Key, C: Count> {
    board: Board,
    walk: Walk,
    closed: bool,
    /// The shared forward walk's steps (merged at column ends) and every layer: `shared[t]`
    /// holds the states before square `t`, `t = 0..=end`.
    fwd: Vec<Step<K>>,
    shared: Kept<K, C>,
    xsteps: Vec<Step<K>>,
    ysteps: Vec<Step<K>>,
    lsq: usize,
    rq: usize,
    m: usize,
    w: usize,
    left_b: Boundary,
    right_b: Boundary,
    true_right: bool,
    leaves: Vec<Leaf>,
    total: u128,
    /// Bytes the sampler may hold: the whole process's bound.
    max_memory: u64,
    /// Bytes its tables may hold: the bound less what the process holds beside them (see
    /// `walk::sizes::tables_for`), of which its shares are taken.
    room: u64,
    /// Where layers go when they pass a part of the bound (`--scratch`).
    scratch: std::path::PathBuf,
    setup: String,
    /// Where the right half's nodes are kept between runs (`--nodes`).
    nodes: Option<Arc<NodeStore>>,
}

/// A sample on its way: its random stream and rank, the states of its two sides and where they
/// stand, and the edges chosen so far (board walk numbers).
struct Sample<K> {
    rng: fastrand::Rng,
    rank: u128,
    leaf: usize,
    side: [Walker<K>; 2],
    edges: Vec<(u32, u32)>,
}

/// One side of a sample: its state in the table it stands in, and whether its real state is
/// that state's mirror image.
#[derive(Clone, Copy, Default)]
struct Walker<K> {
    key: K,
    flip: bool,
}

/// The left side (the crossing's) and the right side of a sample.
const LEFT: usize = 0;
const RIGHT: usize = 1;

/// Builds the sampler: the count met in the middle, with its leaves, and the shared walk's
/// layers kept. An error says why it does not apply or does not fit.
pub(crate) fn build(board: Board, piece: &Piece, req: &Request) -> Result<Box<dyn Batch>, Fault> {
    if req.from.is_some() {
        return Err("a count met in the middle counts tours from every square".into());
    }
    let spec = CountSpec {
        closed: req.closed,
        symmetry: true,
        ..CountSpec::default()
    };
    // the walk of the count the tables are made by
    let walk = Walk::of(board, piece, &spec);
    if walk.window() > crate::frontier::MAX_WINDOW {
        return Err(fault!(
            "the frontier window of {board} is {} squares; its tables handle up to {}",
            walk.window(),
            crate::frontier::MAX_WINDOW
        ));
    }
    // for the fixed threads of the choice, whatever -j (the sampler then runs on those the
    // bound holds: `Sampler::new`), so that a seed's tours are the same with any
    crate::frontier::check_sample_floor(board, &walk, req.max_memory, super::CHOICE_THREADS)?;
    let t = std::time::Instant::now();
    let kept = req.leaves.as_deref().filter(|p| p.exists());
    // where the count's leaves or nodes will be written, checked before the count (a folder
    // this user may not write in failed only once it was done)
    if let Some(path) = req.leaves.as_deref().filter(|_| kept.is_none()) {
        crate::durable::writable(path).map_err(|e| {
            fault!(
                "cannot write the leaves file '{}' ({e}): give --leaves a path in a folder this user may write; nothing was counted",
                path.display()
            )
        })?;
    }
    if let Some(dir) = &req.nodes {
        std::fs::create_dir_all(dir)
            .and_then(|()| crate::durable::writable(&dir.join("node")))
            .map_err(|e| {
                fault!(
                    "cannot write in the nodes folder '{}' ({e}): give --nodes a folder this user may write; nothing was counted",
                    dir.display()
                )
            })?;
    }
    let (log, read) = match kept {
        Some(path) => (LeavesFile::read(path, board, piece, req.closed)?, true),
        None => {
            let log = crate::frontier::meet_leaves(board, piece, &spec, req.max_memory, None)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| {
                    format!("the frontier count of {board} does not meet in the middle")
                })?;
            if let Some(path) = &req.leaves {
                LeavesFile::write(path, board, piece, req.closed, &log)?;
            }
            (log, false)
        }
    };
    // the count's tables are freed: the allocator gives them back before the sampler makes its
    // own, since it keeps freed memory for minutes and the two together would pass the bound
    // (results/sampling.md, "What the sampler's choices rest on")
    crate::memory::give_back();
    let origin = match &req.leaves {
        Some(path) if read => format!("read from '{}'", path.display()),
        _ => format!("counted in {:.1} s", t.elapsed().as_secs_f64()),
    };
    let nodes = match &req.nodes {
        Some(dir) => Some(NodeStore::open(
            dir,
            fingerprint(board, piece, req.closed, &log)?,
            walk.key_bytes(),
            req.tell,
        )?),
        None => None,
    };
    make(board, walk, req, log, &origin, None, nodes)
}

/// What names a count met in the middle for its kept nodes: the CRC-32 of its board, piece,
/// kind, cut and rules (the nodes of a count depend on these alone).
fn fingerprint(board: Board, piece: &Piece, closed: bool, log: &MeetLeaves) -> Result<u32, Fault> {
    let what = serde_json::to_string(&(
        board.to_string(),
        piece.to_string(),
        closed,
        log.cut,
        log.true_right,
        &log.rules,
    ))
    .map_err(|e| e.to_string())?;
    Ok(crc32fast::hash(what.as_bytes()))
}

/// The sampler of the leaves `log` holds, keyed by the window's width.
fn make(
    board: Board,
    walk: Walk,
    req: &Request,
    log: MeetLeaves,
    origin: &str,
    ledger: Option<&Starts>,
    nodes: Option<NodeStore>,
) -> Result<Box<dyn Batch>, Fault> {
    let again = Again {
        board,
        walk,
        req: req.clone(),
        log,
        origin: origin.to_string(),
        ledger: ledger.cloned(),
        nodes: nodes.map(Arc::new),
    };
    if again.walk.window() <= u64::SLOTS {
        Ok(Box::new(Widening::<u64>::new(again)?))
    } else {
        Ok(Box::new(Widening::<u128>::new(again)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers that are nodes of a store are read back from it, not written to the file: the
    /// file holds only the others, and every layer reads back as it went in, after pops too.
    #[test]
    fn kept_nodes_read_back_from_their_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(NodeStore::open(dir.path(), 9, 8, None).unwrap());
        let layer = |n: u64, len: u64| -> Table<u64, u64> {
            (0..len).map(|i| Entry::new(i * 5 + n, i + n)).collect()
        };
        let layers: Vec<Table<u64, u64>> = (0..5).map(|n| layer(n, 2000 + 100 * n)).collect();
        // layers 1 and 3 are nodes [1] and [1, 0] of the store
        let names = [None, Some(vec![1]), None, Some(vec![1, 0]), None];
        for (l, name) in layers.iter().zip(&names) {
            if let Some(name) = name {
                assert!(store.write(name, l));
            }
        }
        let mut kept: Kept<u64, u64> = Kept::from_store(&std::env::temp_dir(), Some(store));
        for (i, (l, name)) in layers.iter().zip(&names).enumerate() {
            kept.push_named(l.clone(), i >= 2, name.clone()).unwrap();
        }
        let file = |k: &Kept<u64, u64>| k.disk.as_ref().unwrap().file.metadata().unwrap().len();
        // the file holds the frames of layers 0, 2 and 4 alone, smaller than their states
        let written = [0, 2, 4].map(|t| layers[t].len()).iter().sum::<usize>();
        let placed = &kept.disk.as_ref().unwrap().at;
        assert_eq!(
            placed.iter().flatten().map(|p| p.len).sum::<usize>(),
            written
        );
        assert_eq!(
            file(&kept),
            placed.iter().flatten().map(|p| p.bytes).sum::<u64>()
        );
        assert!(file(&kept) < (written * disk_entry::<u64, u64>()) as u64);
        for (t, l) in layers.iter().enumerate() {
            assert!(*kept.layer(t).unwrap() == *l, "layer {t}");
        }
        for n in (1..layers.len()).rev() {
            kept.pop().unwrap();
            assert!(kept.last().unwrap() == &layers[n - 1], "after a pop to {n}");
        }
        let placed = &kept.disk.as_ref().unwrap().at;
        assert_eq!(
            placed.iter().flatten().map(|p| p.len).sum::<usize>(),
            layers[0].len()
        );
        assert_eq!(
            file(&kept),
            placed.iter().flatten().map(|p| p.bytes).sum::<u64>()
        );
    }

    /// Layers kept read back as they went in, in memory or from a file (layers past the part a
    /// file is written in at a time among them), and a pop makes the layer before the last
    /// again, its bytes given back.
    #[test]
    fn kept_layers_read_back_and_pop_in_memory_and_on_disk() {
        let layers: Vec<Table<u64, u128>> = [3, 1000, 150_000, 0, 70_000]
            .iter()
            .enumerate()
            .map(|(n, &len)| {
                (0..len as u64)
                    .map(|i| Entry::new(i * 7 + n as u64, (u128::from(i) << 70) | n as u128))
                    .collect()
            })
            .collect();
        for disk_from in [None, Some(0), Some(2)] {
            let mut kept: Kept<u64, u128> = Kept::new(&std::env::temp_dir());
            for (i, l) in layers.iter().enumerate() {
                kept.push(l.clone(), disk_from.is_some_and(|d| i >= d))
                    .unwrap();
            }
            assert_eq!(kept.on_disk(), disk_from.is_some());
            for (t, l) in layers.iter().enumerate() {
                assert!(*kept.layer(t).unwrap() == *l, "layer {t}");
            }
            for n in (1..layers.len()).rev() {
                kept.pop().unwrap();
                assert_eq!(kept.len(), n);
                assert!(kept.last().unwrap() == &layers[n - 1], "after a pop to {n}");
                if let Some(d) = &kept.disk {
                    let states: usize = layers[..n].iter().map(Vec::len).sum();
                    assert_eq!(d.at.iter().flatten().map(|p| p.len).sum::<usize>(), states);
                    assert_eq!(
                        d.file.metadata().unwrap().len(),
                        d.at.iter().flatten().map(|p| p.bytes).sum::<u64>()
                    );
                    assert_eq!(kept.held(), layers[n - 1].len() as u64);
                }
            }
            // down another way: pushed after the pops, every layer reads back
            kept.push(layers[2].clone(), false).unwrap();
            kept.push(layers[0].clone(), false).unwrap();
            let now = [&layers[0], &layers[2], &layers[0]];
            for (t, l) in now.iter().enumerate() {
                assert!(*kept.layer(t).unwrap() == **l, "layer {t} pushed again");
            }
            if let Some(d) = &kept.disk {
                let states: usize = now.iter().map(|l| l.len()).sum();
                assert_eq!(d.at.iter().flatten().map(|p| p.len).sum::<usize>(), states);
                assert_eq!(
                    d.file.metadata().unwrap().len(),
                    d.at.iter().flatten().map(|p| p.bytes).sum::<u64>()
                );
            }
        }
    }
}
