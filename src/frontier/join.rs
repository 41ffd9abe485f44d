//! Meeting in the middle: the two halves of a symmetric board, walked from each end to a cut,
//! joined into tours.
//!
//! The left half is walked to the cut and then through a *crossing*: the first columns past the
//! cut (the boundary squares) are added with their edges to the left only, and may be declared
//! terminals. The right half is the same walk mirrored end to end, stopped where its window is
//! the boundary squares, so its states hold the boundary's edges among the right-hand squares.
//! A crossing state then fixes how many right-hand edges each boundary square needs (its
//! *class*): a square with no left edge needs two, a full one none, an end one. For each
//! crossing state the join looks up the right states of that class and keeps the pairs whose
//! pieces form one cycle (closed) or one path with two terminals (open).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use rayon::prelude::*;

use crate::durable::DiskError;
use crate::layer::spill::entries;
use crate::layer::{Batch, Bound, Builder, Layer, Src, big, big_words};
use crate::walk::state::Key;

use super::index::*;
pub(crate) use super::index::{Prefixes, RightIndex, SampleJoin};
use super::links::*;
pub(crate) use super::links::{
    Boundary, Links, MAX_BOUNDARY, NARROW, left_side, pair_joins, right_side,
};

/// [`join`] of crossing states in memory or on disk: a file is joined a chunk at a time, each
/// chunk's states made a small table of their own (the states of a file are all distinct, so
/// each pair is counted once). `Ok(None)` if `stop` was set; `Err` where the file could not be
/// read back whole (its checksum failed: nothing of it counts).
pub(crate) fn join_src<K: Key>(
    left: Src<'_, K>,
    boundary: &Boundary,
    right: &RightIndex,
    closed: bool,
    stop: &AtomicBool,
) -> Result<Option<BigUint>, DiskError> {
    match left {
        Src::Mem(l) => Ok(join(l, boundary, right, closed, stop)),
        Src::Disk(spill) => {
            let shape = spill.shape;
            let mut total = Some(BigUint::ZERO);
            spill.chunks(|bytes| {
                let Some(t) = total.as_mut() else {
                    return;
                };
                let n = (bytes.len() / shape.stride()) as u64;
                let builder = Builder::new(n, shape, 0, Bound::new(u64::MAX), None);
                bytes.par_chunks(shape.stride() * 4096).for_each(|part| {
                    let mut batch = Batch::new(&builder);
                    for (k, c) in entries::<K>(part, shape) {
                        batch.push(k, c);
                    }
                });
                let table = builder
                    .finish()
                    .expect("an unbounded table of distinct states");
                match join(&table, boundary, right, closed, stop) {
                    Some(c) => *t += c,
                    None => total = None,
                }
            })?;
            Ok(total)
        }
    }
}

/// Sums, over every crossing state of `left` and every right state of the class it asks for
/// whose pieces join into one tour, the product of their counts; `None` if `stop` was set.
///
/// The crossing states are taken in the order of the groups they ask for (a sort of 8-byte
/// keys), so that the crossing states of a group (a run of them in a worker's chunk) read its
/// right rows together, a block at a time while the block is in the cache, instead of each
/// fetching its group from memory (see [`run_sums`]; 8x10 closed's heaviest piece finished 1.7
/// times the leaves a minute so, against tiles of 16 each reading every row).
pub(crate) fn join<K: Key>(
    left: &Layer<K>,
    boundary: &Boundary,
    right: &RightIndex,
    closed: bool,
    stop: &AtomicBool,
) -> Option<BigUint> {
    // a large table is joined a run of its partitions at a time, so that the sort keys (8
    // bytes a state) are a small part of the table they sort
    let parts = left.part_count();
    let groups = if left.len() > JOIN_WHOLE {
        4.min(parts)
    } else {
        1
    };
    let mut total = BigUint::ZERO;
    for g in 0..groups {
        let range = g * parts / groups..(g + 1) * parts / groups;
        total += match right {
            RightIndex::Narrow(r) => join_parts(left, range, boundary, r, closed, stop)?,
            RightIndex::Wide(r) => join_parts(left, range, boundary, r, closed, stop)?,
        };
    }
    Some(total)
}

/// States of a table the join sorts at once.
pub(super) const JOIN_WHOLE: u64 = 1 << 20;

/// [`join`] of the states of `left`'s partitions `parts`.
pub(super) fn join_parts<K: Key, L: Links>(
    left: &Layer<K>,
    parts: std::ops::Range<usize>,
    boundary: &Boundary,
    right: &Index<L>,
    closed: bool,
    stop: &AtomicBool,
) -> Option<BigUint> {
    let m = boundary.slots.len();
    // closed: no terminals on either side; open: two in all
    let want: u32 = if closed { 0 } else { 2 };
    // the dense number of the group a state asks for (a group of 20 squares' classes is 34
    // bits, past what a sort key holds beside its place)
    let asks = |k: K| {
        let rt = want.checked_sub(boundary.terminals(k).count_ones())?;
        let g = group(boundary.asks(k, m), rt);
        right.classes.get(&g).map(|&id| u64::from(id))
    };
    let mut keys: Vec<u64> = parts
        .into_par_iter()
        .flat_map_iter(|p| {
            left.part_slots(p)
                .filter_map(move |(i, k, _)| asks(k).map(|g| sort_key(g, p, i)))
        })
        .collect();
    keys.par_sort_unstable();
    let total = Mutex::new(BigUint::ZERO);
    // a left state's links, terminals, ends (the squares with one edge on each side) and count
    let of = |key: u64| {
        let (p, i) = key_place(key);
        let (k, c) = left.at(p, i);
        let (lm, lt): (L, u32) = boundary.links(k);
        (lm, lt, boundary.ends(k), c)
    };
    keys.par_chunks(join_chunk(keys.len(), rayon::current_num_threads()))
        .for_each(|chunk| {
            // Relaxed: the flag only asks the workers to stop
            if stop.load(Ordering::Relaxed) {
                return;
            }
            // u128 while it fits; one-word counts multiply into a u128 each
            let mut small: u128 = 0;
            let mut big_sum = BigUint::ZERO;
            let mut add = |prod: u128| match small.checked_add(prod) {
                Some(s) => small = s,
                None => {
                    big_sum += small;
                    small = prod;
                }
            };
            let mut wide = BigUint::ZERO;
            let mut at = 0;
            while at < chunk.len() {
                // the run of left states asking the same group: each right row of the group is
                // read once a block of rows for the whole run, not once a left state (a group's
                // rows are often more than the caches hold)
                let g = key_group(chunk[at]);
                let mut end = at + 1;
                while end < chunk.len() && key_group(chunk[end]) == g {
                    end += 1;
                }
                let range = right.runs[g as usize];
                let run: Vec<_> = chunk[at..end].iter().map(|&k| of(k)).collect();
                if right.limbs == 1 && run.iter().all(|t| t.3.single().is_some()) {
                    let pieces: Vec<(L, u32)> = run.iter().map(|t| (t.0, t.1)).collect();
                    let rows = range.0..range.1;
                    let acc = run_sums(
                        &pieces,
                        run[0].2,
                        &right.states[rows.clone()],
                        &right.counts[rows],
                        closed,
                    );
                    for (x, t) in run.iter().enumerate() {
                        let c = u128::from(t.3.single().expect("one word"));
                        match acc[x].checked_mul(c) {
                            Some(prod) => add(prod),
                            None => wide += BigUint::from(acc[x]) * c,
                        }
                    }
                } else {
                    for t in &run {
                        let n = t.2.count_ones();
                        for i in range.0..range.1 {
                            let r = right.states[i];
                            if joins_paired(t.0, t.1, r.mates, r.term, t.2, n, closed) {
                                let rc = &right.counts[i * right.limbs..(i + 1) * right.limbs];
                                wide += big(t.3.bytes()) * big_words(rc);
                            }
                        }
                    }
                }
                at = end;
            }
            big_sum += small;
            big_sum += wide;
            if big_sum != BigUint::ZERO {
                *total.lock().expect("no worker panics holding the lock") += big_sum;
            }
        });
    (!stop.load(Ordering::Relaxed)).then(|| total.into_inner().expect("the workers are done"))
}
