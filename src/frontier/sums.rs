//! Saturated columns as sparse sums: where a long walk's states stop changing (the same states
//! at the same place in each column, and steps that differ only in where they stand), the steps
//! of a period are one fixed linear map from counts to counts. Made once, by expanding every
//! state of the period and numbering the states it leads to, each further period is a sum over
//! numbered states a step: no rules, no hashing, no table.
//!
//! The rules of a step depend on the window alone, except where the board's ends are in sight
//! (the look-ahead at a far end, the last square, fixed ends): in the middle of a long board,
//! step `i + m` is step `i` moved on by `m` squares (`m` a column, or two where the colours of the
//! columns alternate: see [`Step::moved`]). The states of a layer are then those of the layer a
//! period before once they saturate (6 wide open from about column 11), and the states the
//! period leads to are among those it started from; [`Sums::make`] checks both and gives up
//! otherwise.
//!
//! A state's successors are summed into it by pulling (each state after a step adds up the counts
//! of the states that lead to it, numbered in the order first reached), so that the threads
//! never write to one place and the reads run through the layer before almost in order.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use num_bigint::BigUint;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::walk::expand::expand;
use crate::walk::layout::Step;
use crate::walk::state::Key;

/// States a task expands or sums at a time.
pub(super) const CHUNK: usize = 1 << 12;

/// The steps of a period compiled.
pub(crate) struct Sums<K: Key> {
    /// The states before each step of the period, in their numbering (the first step's again
    /// after the last).
    keys: Vec<Vec<K>>,
    /// For each step, each state after it: where its sources start in `from` (one more at the
    /// end).
    starts: Vec<Vec<u32>>,
    /// For each step, the sources of the states after it, numbered as the states before it.
    from: Vec<Vec<u32>>,
    /// For each step, the most sources of one state after it (a count of `limbs` words can grow
    /// by that factor in one step: see [`Sums::needs_wider`]).
    most: Vec<u64>,
}

/// Why [`Sums::make`] gave up.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotMade {
    /// The period led to a state it did not start from: the states have not saturated.
    NotFixed,
    /// It would pass its room.
    Room,
    /// A stop was asked for.
    Stopped,
}

impl<K: Key> Sums<K> {
    /// Compiles `steps` (a period: the states after the last are among those before the first)
    /// from the states `start`, in the order given; stops past `room` bytes.
    pub(crate) fn make(
        start: Vec<K>,
        steps: &[Step<K>],
        closed: bool,
        room: u64,
        stop: &AtomicBool,
    ) -> Result<Sums<K>, NotMade> {
        let m = steps.len();
        let index0: FxHashMap<K, u32> = start
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, u32::try_from(i).expect("fewer than 2^32 states")))
            .collect();
        let mut sums = Sums {
            keys: vec![start],
            starts: Vec::with_capacity(m),
            from: Vec::with_capacity(m),
            most: Vec::with_capacity(m),
        };
        let map_bytes = |n: usize| n as u64 * (std::mem::size_of::<(K, u32)>() as u64 + 8);
        for (s, step) in steps.iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                return Err(NotMade::Stopped);
            }
            let last = s + 1 == m;
            let src = &sums.keys[s];
            let made = if last {
                numbered(src, step, closed, sums.keys[0].len(), |k| {
                    index0.get(&k).copied()
                })
            } else {
                numbered_fresh(src, step, closed)
            };
            let (order, starts, from, most) = made.ok_or(NotMade::NotFixed)?;
            if u32::try_from(from.len()).is_err() {
                return Err(NotMade::Room);
            }
            sums.starts.push(starts);
            sums.from.push(from);
            sums.most.push(u64::from(most.max(1)));
            if !last {
                sums.keys.push(order);
            }
            if sums.bytes() + map_bytes(sums.keys[0].len()) > room {
                return Err(NotMade::Room);
            }
        }
        Ok(sums)
    }

    /// Steps in the period.
    pub(crate) fn period(&self) -> usize {
        self.starts.len()
    }

    /// The states before step `s` of the period, in their numbering.
    pub(crate) fn keys(&self, s: usize) -> &[K] {
        &self.keys[s % self.period()]
    }

    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> u64 {
        let k: usize = self.keys.iter().map(|v| v.len() * K::BYTES).sum();
        let s: usize = self.starts.iter().map(|v| v.len() * 4).sum();
        let f: usize = self.from.iter().map(|v| v.len() * 4).sum();
        (k + s + f) as u64
    }

    /// Whether counts of `limbs` words (`counts`, before step `s`) could overflow in the step:
    /// a state's count is at most its sources' number times the largest before.
    pub(crate) fn needs_wider(&self, s: usize, counts: &[u64], limbs: usize) -> bool {
        let top = counts
            .par_chunks(CHUNK * limbs)
            .map(|c| c.iter().skip(limbs - 1).step_by(limbs).copied().max())
            .max()
            .flatten()
            .unwrap_or(0);
        (u128::from(top) + 1) * u128::from(self.most[s % self.period()]) > 1 << 64
    }

    /// The counts after step `s` of the period from `counts` before it (`limbs` words a state,
    /// which [`Sums::needs_wider`] says suffice).
    #[cfg(test)]
    pub(crate) fn step(&self, s: usize, counts: &[u64], limbs: usize) -> Vec<u64> {
        let mut out = Vec::new();
        self.step_into(s, counts, limbs, &mut out);
        out
    }

    /// [`Sums::step`] into `out`, whose memory it reuses (fresh pages for every step cost the
    /// kernel's clearing them: a twelfth of a summed column's time on 6x40 open).
    pub(crate) fn step_into(&self, s: usize, counts: &[u64], limbs: usize, out: &mut Vec<u64>) {
        let s = s % self.period();
        let (starts, from) = (&self.starts[s], &self.from[s]);
        let targets = starts.len() - 1;
        out.resize(targets * limbs, 0);
        out.par_chunks_mut(CHUNK * limbs)
            .enumerate()
            .for_each(|(c, o)| {
                let first = c * CHUNK;
                match limbs {
                    1 => {
                        for (t, o) in o.iter_mut().enumerate() {
                            let j = first + t;
                            let mut sum = 0u64;
                            for e in starts[j] as usize..starts[j + 1] as usize {
                                ahead(counts, from, e, 1);
                                sum += counts[from[e] as usize];
                            }
                            *o = sum;
                        }
                    }
                    2 => {
                        for (t, o) in o.chunks_exact_mut(2).enumerate() {
                            let j = first + t;
                            let mut sum = 0u128;
                            for e in starts[j] as usize..starts[j + 1] as usize {
                                ahead(counts, from, e, 2);
                                let a = 2 * from[e] as usize;
                                sum += u128::from(counts[a]) | u128::from(counts[a + 1]) << 64;
                            }
                            o[0] = sum as u64;
                            o[1] = (sum >> 64) as u64;
                        }
                    }
                    _ => {
                        for (t, o) in o.chunks_exact_mut(limbs).enumerate() {
                            let j = first + t;
                            o.fill(0);
                            for e in starts[j] as usize..starts[j + 1] as usize {
                                ahead(counts, from, e, limbs);
                                let a = from[e] as usize;
                                let c = &counts[a * limbs..(a + 1) * limbs];
                                let mut carry = false;
                                for (o, &c) in o.iter_mut().zip(c) {
                                    let (x, c1) = o.overflowing_add(c);
                                    let (x, c2) = x.overflowing_add(u64::from(carry));
                                    *o = x;
                                    carry = c1 || c2;
                                }
                                debug_assert!(!carry, "the counts were widened first");
                            }
                        }
                    }
                }
            });
    }
}

/// Edges ahead whose source's count a sum asks the cache for (the sources of a shard's states
/// are spread over the whole layer before).
const AHEAD: usize = 16;

/// Asks the cache for the count of the source `AHEAD` edges after edge `e`.
#[inline]
fn ahead(counts: &[u64], from: &[u32], e: usize, limbs: usize) {
    if let Some(&a) = from.get(e + AHEAD) {
        if let Some(c) = counts.get(a as usize * limbs) {
            crate::layer::prefetch(c);
        }
    }
}

/// Shards the states after a step are numbered in (by their hash), each on its own: a shard's
/// table stays in the cache, and the shards are numbered in parallel.
const SHARD_BITS: u32 = 8;

/// A step's successors turned about: the states after it (in their numbering), each one's
/// sources (`starts`, `from`), and the most sources of one state.
type Numbered<K> = (Vec<K>, Vec<u32>, Vec<u32>, u32);

/// A chunk of sources' successors, dealt into shards: what each keeps, and its source.
type Shards<T> = Vec<Vec<(T, u32)>>;

/// A shard's edges `(target in the shard, source)` and its number of targets.
type ShardEdges = (Vec<(u32, u32)>, usize);

/// The sources of `src` chunk by chunk, each chunk's successors dealt by `deal` into shards:
/// `deal(successor, source)` gives the shard and what to keep, or `None` to give up.
fn dealt<K: Key, T: Send>(
    src: &[K],
    step: &Step<K>,
    closed: bool,
    shards: usize,
    deal: impl Fn(K) -> Option<(usize, T)> + Sync,
) -> Option<Vec<Shards<T>>> {
    let per = (src.len() / (rayon::current_num_threads() * 8)).max(CHUNK);
    src.par_chunks(per)
        .enumerate()
        .map(|(c, ch)| {
            let mut buckets: Vec<Vec<(T, u32)>> = (0..shards).map(|_| Vec::new()).collect();
            let mut fail = false;
            for (i, &k) in ch.iter().enumerate() {
                let a = (c * per + i) as u32;
                let done = expand(k, step, closed, |n| match deal(n) {
                    Some((sh, t)) => buckets[sh].push((t, a)),
                    None => fail = true,
                });
                debug_assert_eq!(done, 0, "no tour ends inside a period");
            }
            (!fail).then_some(buckets)
        })
        .collect()
}

/// Each shard's edges `(target in the shard, source)` (sources ascending) and its number of
/// targets made into one array of sources a target, the shards' targets one after another.
fn turned(shards: Vec<ShardEdges>) -> (Vec<u32>, Vec<u32>, u32) {
    let parts: Vec<(Vec<u32>, Vec<u32>, u32)> = shards
        .into_par_iter()
        .map(|(edges, targets)| {
            let mut starts = vec![0u32; targets + 1];
            for &(j, _) in &edges {
                starts[j as usize + 1] += 1;
            }
            let most = starts.iter().copied().max().unwrap_or(0);
            for j in 0..targets {
                starts[j + 1] += starts[j];
            }
            let mut fill = starts.clone();
            let mut from = vec![0u32; edges.len()];
            for &(j, a) in &edges {
                from[fill[j as usize] as usize] = a;
                fill[j as usize] += 1;
            }
            (starts, from, most)
        })
        .collect();
    let mut starts = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum::<usize>() + 1);
    let mut from = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    let mut most = 0;
    for (s, f, m) in parts {
        let base = from.len() as u32;
        starts.extend(s[..s.len() - 1].iter().map(|&x| x + base));
        from.extend_from_slice(&f);
        most = most.max(m);
    }
    starts.push(from.len() as u32);
    (starts, from, most)
}

/// The successors of `src` numbered afresh, each shard (by hash) in the order first reached.
fn numbered_fresh<K: Key>(src: &[K], step: &Step<K>, closed: bool) -> Option<Numbered<K>> {
    let shards = 1usize << SHARD_BITS;
    let buckets = dealt(src, step, closed, shards, |k: K| {
        Some(((k.hash64() >> (64 - SHARD_BITS)) as usize, k))
    })?;
    let numbered: Vec<(Vec<K>, ShardEdges)> = (0..shards)
        .into_par_iter()
        .map(|sh| {
            let mut map: FxHashMap<K, u32> = FxHashMap::default();
            let mut keys = Vec::new();
            let mut edges = Vec::new();
            for chunk in &buckets {
                for &(k, a) in &chunk[sh] {
                    let n = keys.len() as u32;
                    let j = *map.entry(k).or_insert_with(|| {
                        keys.push(k);
                        n
                    });
                    edges.push((j, a));
                }
            }
            let t = keys.len();
            (keys, (edges, t))
        })
        .collect();
    drop(buckets);
    let mut order = Vec::with_capacity(numbered.iter().map(|n| n.0.len()).sum());
    let mut shards_edges = Vec::with_capacity(shards);
    for (keys, e) in numbered {
        order.extend_from_slice(&keys);
        shards_edges.push(e);
    }
    let (starts, from, most) = turned(shards_edges);
    Some((order, starts, from, most))
}

/// The successors of `src` numbered by `index`, `targets` states in all (`None`: a successor
/// it does not number).
fn numbered<K: Key>(
    src: &[K],
    step: &Step<K>,
    closed: bool,
    targets: usize,
    index: impl Fn(K) -> Option<u32> + Sync,
) -> Option<Numbered<K>> {
    // the targets' numbers are known: shards are ranges of them
    let n = targets.max(1) as u64;
    let shift = (64 - (n - 1).leading_zeros()).saturating_sub(SHARD_BITS);
    let shards = (((n - 1) >> shift) + 1) as usize;
    let buckets = dealt(src, step, closed, shards, |k| {
        let j = index(k)?;
        Some(((j >> shift) as usize, j & ((1 << shift) - 1)))
    })?;
    let edges: Vec<ShardEdges> = (0..shards)
        .into_par_iter()
        .map(|sh| {
            let edges: Vec<(u32, u32)> =
                buckets.iter().flat_map(|c| c[sh].iter().copied()).collect();
            let first = (sh as u64) << shift;
            let targets = (n.min(first + (1 << shift)) - first) as usize;
            (edges, targets)
        })
        .collect();
    drop(buckets);
    let (starts, from, most) = turned(edges);
    Some((Vec::new(), starts, from, most))
}

/// The tours each state of `start` finishes through `steps` from one way to stand there: the
/// last steps of a board shorter than the lane's, from where its walk parts from the lane's.
/// That board's count is then the lane's counts times these, summed ([`dot`]): no layer made
/// or walked. A fork a whole period later takes the same steps moved on from the same states
/// (the lane's, numbered alike a period apart), so one weighing serves the forks of a phase.
///
/// Each step's successors are numbered as a period's are ([`numbered_fresh`]); the weights then
/// run back from the tours the last step finishes, each state gaining those of the states it
/// leads to. `NotMade::Room` past `room` bytes, or where a weight would pass 64 bits.
pub(crate) fn completions<K: Key>(
    start: &[K],
    steps: &[Step<K>],
    closed: bool,
    room: u64,
    stop: &AtomicBool,
) -> Result<Vec<u64>, NotMade> {
    let (last, before) = steps.split_last().expect("a fork takes a step");
    // each step's states after it, with their sources; and the states before each step
    let mut levels: Vec<(Vec<u32>, Vec<u32>)> = Vec::with_capacity(before.len());
    let mut sizes = vec![start.len()];
    let mut keys: Vec<K> = Vec::new();
    let mut bytes = 0u64;
    for step in before {
        if stop.load(Ordering::Relaxed) {
            return Err(NotMade::Stopped);
        }
        let src = if levels.is_empty() { start } else { &keys };
        let (order, starts, from, _) =
            numbered_fresh(src, step, closed).expect("every successor is numbered afresh");
        bytes +=
            (4 * (starts.len() + from.len()) + 8 * order.len() + K::BYTES * order.len()) as u64;
        if bytes > room || u32::try_from(from.len()).is_err() {
            return Err(NotMade::Room);
        }
        sizes.push(order.len());
        levels.push((starts, from));
        keys = order;
    }
    let src = if levels.is_empty() { start } else { &keys };
    let mut w: Vec<u64> = src
        .par_iter()
        .with_min_len(CHUNK)
        .map(|&k| u64::from(expand(k, last, closed, |_| {})))
        .collect();
    drop(keys);
    let over = AtomicBool::new(false);
    for ((starts, from), &n) in levels.iter().zip(&sizes).rev() {
        if stop.load(Ordering::Relaxed) {
            return Err(NotMade::Stopped);
        }
        let acc: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        w.par_iter()
            .enumerate()
            .with_min_len(CHUNK)
            .filter(|&(_, &wy)| wy != 0)
            .for_each(|(y, &wy)| {
                for &x in &from[starts[y] as usize..starts[y + 1] as usize] {
                    let old = acc[x as usize].fetch_add(wy, Ordering::Relaxed);
                    // of adds whose sum passes 2^64, the one that crosses it sees it
                    if old.checked_add(wy).is_none() {
                        over.store(true, Ordering::Relaxed);
                    }
                }
            });
        if over.load(Ordering::Relaxed) {
            return Err(NotMade::Room);
        }
        w = acc.into_iter().map(AtomicU64::into_inner).collect();
    }
    Ok(w)
}

/// The sum of `counts` (`limbs` words a state) times `weights`, state by state.
pub(crate) fn dot(counts: &[u64], limbs: usize, weights: &[u64]) -> BigUint {
    counts
        .par_chunks(CHUNK * limbs)
        .zip(weights.par_chunks(CHUNK))
        .map(|(c, w)| {
            // a chunk's sum of products of limbs + 1 words each (2^12 of them) fits limbs + 2
            let mut acc = vec![0u64; limbs + 2];
            for (c, &w) in c.chunks_exact(limbs).zip(w).filter(|&(_, &w)| w != 0) {
                let mut carry = 0u128;
                for (a, &c) in acc.iter_mut().zip(c) {
                    let t = u128::from(*a) + u128::from(c) * u128::from(w) + carry;
                    *a = t as u64;
                    carry = t >> 64;
                }
                for a in &mut acc[limbs..] {
                    let t = u128::from(*a) + carry;
                    *a = t as u64;
                    carry = t >> 64;
                }
                debug_assert_eq!(carry, 0, "a chunk's sum fits its words");
            }
            BigUint::from_slice(
                &acc.iter()
                    .flat_map(|&a| [a as u32, (a >> 32) as u32])
                    .collect::<Vec<u32>>(),
            )
        })
        .reduce(|| BigUint::ZERO, |a, b| a + b)
}

/// `counts` of `limbs` words a state with one word more each.
pub(crate) fn widened(counts: &[u64], limbs: usize) -> Vec<u64> {
    let mut out = vec![0u64; counts.len() / limbs * (limbs + 1)];
    out.par_chunks_mut(CHUNK * (limbs + 1))
        .zip(counts.par_chunks(CHUNK * limbs))
        .for_each(|(o, c)| {
            for (o, c) in o.chunks_exact_mut(limbs + 1).zip(c.chunks_exact(limbs)) {
                o[..limbs].copy_from_slice(c);
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three states before a step and two after: state 0 after sums states 0, 1 and 2; state 1
    /// after sums state 2 alone.
    fn toy() -> Sums<u64> {
        Sums {
            keys: vec![vec![1, 2, 3], vec![4, 5]],
            starts: vec![vec![0, 3, 4], vec![0, 1, 2]],
            from: vec![vec![0, 1, 2, 2], vec![0, 1]],
            most: vec![3, 1],
        }
    }

    fn big(words: &[u64]) -> BigUint {
        words
            .iter()
            .rev()
            .fold(BigUint::ZERO, |acc, &w| (acc << 64) + BigUint::from(w))
    }

    /// The sums of counts of one, two and three words equal the sums of the numbers they
    /// write, carries across words included; a count the step could overflow asks for a word
    /// more, and widening keeps every count.
    #[test]
    fn sums_of_many_words_carry_and_widen_before_they_overflow() {
        let t = toy();
        for limbs in 1..=3 {
            let counts: Vec<u64> = (0..3 * limbs)
                .map(|i| {
                    if i % limbs == limbs - 1 {
                        1 << 61
                    } else {
                        u64::MAX - i as u64
                    }
                })
                .collect();
            assert!(!t.needs_wider(0, &counts, limbs), "3 times under 2^62 fits");
            let out = t.step(0, &counts, limbs);
            let c = |s: usize| big(&counts[s * limbs..(s + 1) * limbs]);
            assert_eq!(big(&out[..limbs]), c(0) + c(1) + c(2), "{limbs} words");
            assert_eq!(big(&out[limbs..]), c(2), "{limbs} words");
            let mut full = counts.clone();
            full[limbs - 1] = u64::MAX / 2;
            assert!(t.needs_wider(0, &full, limbs));
            let wide = widened(&full, limbs);
            assert!(!t.needs_wider(0, &wide, limbs + 1));
            for s in 0..3 {
                assert_eq!(
                    big(&wide[s * (limbs + 1)..(s + 1) * (limbs + 1)]),
                    big(&full[s * limbs..(s + 1) * limbs])
                );
            }
            assert_eq!(t.keys(2), &[1, 2, 3], "the period comes round");
        }
    }

    /// A fork's tours as a sum of counts times weights equal the sum of the products taken one
    /// by one, over more states than a chunk, with counts of one to three words near their top
    /// and weights near 2^64.
    #[test]
    fn counts_times_weights_sum_exactly_across_words_and_chunks() {
        let n = CHUNK + 77;
        for limbs in 1..=3 {
            let counts: Vec<u64> = (0..n * limbs).map(|i| u64::MAX - (i as u64 % 5)).collect();
            let weights: Vec<u64> = (0..n as u64)
                .map(|i| if i % 3 == 0 { 0 } else { u64::MAX - i })
                .collect();
            let want = (0..n).fold(BigUint::ZERO, |acc, s| {
                acc + big(&counts[s * limbs..(s + 1) * limbs]) * BigUint::from(weights[s])
            });
            assert_eq!(dot(&counts, limbs, &weights), want, "{limbs} words");
        }
    }
}
