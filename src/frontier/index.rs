//! The right side's index for the join: its states grouped by the class their boundary squares
//! need and the terminals they hold ([`RightIndex`]), and the sampler's join of one crossing
//! state against it ([`SampleJoin`], [`Prefixes`]).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::durable::DiskError;
use crate::layer::Layer;
use crate::layer::spill::{Spill, entries};
use crate::walk::state::{Key, byte_table, need};

use super::links::*;

/// Bits of a sort key that hold where its state is (its part, then its place there); the group
/// is above them. The right half's index and the join both sort states by group this way.
pub(super) const ROW_BITS: u32 = 36;
/// Bits of a state's place that number it within its part.
pub(super) const PART_ROW_BITS: u32 = 26;

/// The sort key of the state at place `row` of part `part` in group `g`.
#[inline]
pub(super) fn sort_key(g: u64, part: usize, row: usize) -> u64 {
    assert!(
        row < 1 << PART_ROW_BITS && part < 1 << (ROW_BITS - PART_ROW_BITS),
        "a table of {row} states a part is past any memory"
    );
    g << ROW_BITS | (part << PART_ROW_BITS | row) as u64
}

/// The group of a sort key.
#[inline]
pub(super) fn key_group(key: u64) -> u64 {
    key >> ROW_BITS
}

/// The part and the place of a sort key's state.
#[inline]
pub(super) fn key_place(key: u64) -> (usize, usize) {
    let place = (key & ((1 << ROW_BITS) - 1)) as usize;
    (place >> PART_ROW_BITS, place & ((1 << PART_ROW_BITS) - 1))
}

/// Where each group's rows run, in rows sorted by group (`group_of(i)`, the group of row `i`).
pub(super) fn group_runs(
    len: usize,
    group_of: impl Fn(usize) -> u64,
) -> FxHashMap<u64, (usize, usize)> {
    let mut runs = FxHashMap::default();
    let mut start = 0;
    for i in 1..=len {
        if i == len || group_of(i) != group_of(start) {
            runs.insert(group_of(start), (start, i));
            start = i;
        }
    }
    runs
}

/// The right half's states grouped by class and terminals, their links packed as the
/// crossing's width needs (see [`Links`]).
pub(crate) enum RightIndex {
    /// Up to [`NARROW`] boundary squares.
    Narrow(Index<u64>),
    /// Up to [`MAX_BOUNDARY`].
    Wide(Index<u128>),
}

impl RightIndex {
    /// Indexes the right half's table `right` (see [`Index::new`]).
    pub(crate) fn new<K: Key>(right: Layer<K>, slots: &Boundary) -> RightIndex {
        if slots.slots.len() as u32 <= NARROW {
            RightIndex::Narrow(Index::new(right, slots))
        } else {
            RightIndex::Wide(Index::new(right, slots))
        }
    }

    /// Indexes the right half's table in a file (see [`Index::from_file`]).
    pub(crate) fn from_file<K: Key>(
        right: &Spill<K>,
        slots: &Boundary,
    ) -> Result<RightIndex, DiskError> {
        Ok(if slots.slots.len() as u32 <= NARROW {
            RightIndex::Narrow(Index::from_file(right, slots)?)
        } else {
            RightIndex::Wide(Index::from_file(right, slots)?)
        })
    }

    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            RightIndex::Narrow(i) => i.bytes(),
            RightIndex::Wide(i) => i.bytes(),
        }
    }

    /// The groups its states are in.
    pub(super) fn groups(&self) -> Vec<u64> {
        match self {
            RightIndex::Narrow(i) => i.classes.keys().copied().collect(),
            RightIndex::Wide(i) => i.classes.keys().copied().collect(),
        }
    }

    /// Bytes an index holds for each state of a table of the right half with `squares`
    /// boundary squares while it is made: a row while the rows are sorted, then the state's
    /// links and first count word, beside the table it is made from.
    pub(crate) fn bytes_per_state(squares: u32) -> u64 {
        if squares <= NARROW {
            (std::mem::size_of::<Row<u64>>() + std::mem::size_of::<Right<u64>>() + 8) as u64
        } else {
            (std::mem::size_of::<Row<u128>>() + std::mem::size_of::<Right<u128>>() + 8) as u64
        }
    }
}

/// The right half's states grouped by class and terminals (see [`group`]): each group a dense
/// number (`classes`) and the run of its rows (`runs`).
pub(crate) struct Index<L> {
    pub(super) classes: FxHashMap<u64, u32>,
    pub(super) runs: Vec<(usize, usize)>,
    pub(super) states: Vec<Right<L>>,
    pub(super) counts: Vec<u64>,
    pub(super) limbs: usize,
}

impl<L: Links> Index<L> {
    /// Bytes it holds.
    pub(crate) fn bytes(&self) -> u64 {
        (self.states.len() * std::mem::size_of::<Right<L>>()
            + self.counts.len() * 8
            + self.classes.len() * 40) as u64
    }

    /// Indexes the right half's table `right` as the crossing sees it: boundary square `j` is
    /// in slot `slots.slots[j]` of a right state (its own numbering, the crossing's reversed
    /// column by column), each state one row.
    ///
    /// One pass over the table's parts, in parallel, gives each state its row (group, links,
    /// terminals, first count word and place), read straight from its slots (no renumbered copy
    /// of the state); one sort by group makes the groups runs. Counts of more than one word are
    /// read back from the table by place. (Before the digit tree, rows were made twice, as sort
    /// keys and then read back from the table at random: 8x8 closed spent 43 of its 267 s so.)
    pub(crate) fn new<K: Key>(right: Layer<K>, slots: &Boundary) -> Index<L> {
        let limbs = right.limbs();
        // every row in one allocation of the table's size, each part filling its own run: a
        // collect of unknown length held its pieces and their copy at once, with room to
        // spare (7x8 closed: a right table of 1.4 million states peaked at 204 MiB so, most of
        // the count's peak)
        let mut rows = vec![Row::default(); right.len() as usize];
        let mut runs = Vec::with_capacity(right.part_count());
        let mut rest = rows.as_mut_slice();
        for p in 0..right.part_count() {
            let (run, after) = rest.split_at_mut(right.part_len(p));
            runs.push(run);
            rest = after;
        }
        runs.into_par_iter().enumerate().for_each(|(p, run)| {
            let mut filled = 0;
            for (row, (i, k, c)) in run.iter_mut().zip(right.part_slots(p)) {
                let (mates, term) = slots.links(k);
                *row = Row {
                    group: group(slots.offers(k), term.count_ones()),
                    mates,
                    term,
                    first: c.get(0),
                    place: (p as u64) << 32 | i as u64,
                };
                filled += 1;
            }
            assert_eq!(filled, run.len(), "a part holds as many states as it says");
        });
        // one-word counts are in the rows: the table is let go before the index is made
        let right = (limbs > 1).then_some(right);
        Index::of_rows(rows, limbs, |r| match &right {
            None => vec![r.first],
            Some(right) => {
                let (_, c) = right.at((r.place >> 32) as usize, (r.place & 0xFFFF_FFFF) as usize);
                c.words().collect()
            }
        })
    }

    /// [`RightIndex::new`] of a table in a file, its rows read from it a chunk at a time (no
    /// table of it is made: the file's states are distinct, and a table beside the rows was the
    /// largest moment of 8x8 closed under 256M); Err where the file cannot be read back whole.
    pub(crate) fn from_file<K: Key>(
        right: &Spill<K>,
        slots: &Boundary,
    ) -> Result<Index<L>, DiskError> {
        let limbs = right.shape.limbs;
        let mut rows = Vec::with_capacity(right.len as usize);
        let mut wide: Vec<u64> = Vec::new();
        right.chunks(|bytes| {
            for (k, c) in entries::<K>(bytes, right.shape) {
                let (mates, term) = slots.links(k);
                rows.push(Row {
                    group: group(slots.offers(k), term.count_ones()),
                    mates,
                    term,
                    first: c.get(0),
                    place: rows.len() as u64,
                });
                if limbs > 1 {
                    wide.extend(c.words());
                }
            }
        })?;
        Ok(Index::of_rows(rows, limbs, |r| {
            if limbs == 1 {
                vec![r.first]
            } else {
                let at = r.place as usize * limbs;
                wide[at..at + limbs].to_vec()
            }
        }))
    }

    /// The index of `rows`, sorted by group here, whose counts of `limbs` words `count` gives.
    pub(super) fn of_rows(
        mut rows: Vec<Row<L>>,
        limbs: usize,
        count: impl Fn(&Row<L>) -> Vec<u64> + Sync,
    ) -> Index<L> {
        rows.par_sort_unstable_by_key(|r| r.group);
        let mut runs: Vec<(u64, (usize, usize))> = group_runs(rows.len(), |i| rows[i].group)
            .into_iter()
            .collect();
        runs.sort_unstable();
        assert!(
            runs.len() < 1 << (64 - ROW_BITS),
            "{} groups of right states are past what a sort key numbers",
            runs.len()
        );
        let classes = (runs.iter().enumerate())
            .map(|(id, &(g, _))| (g, id as u32))
            .collect();
        let runs = runs.into_iter().map(|(_, r)| r).collect();
        let states = rows
            .par_iter()
            .map(|r| Right {
                mates: r.mates,
                term: r.term,
            })
            .collect();
        let counts = if limbs == 1 {
            rows.par_iter().map(|r| r.first).collect()
        } else {
            rows.par_iter().flat_map_iter(&count).collect()
        };
        Index {
            classes,
            runs,
            states,
            counts,
            limbs,
        }
    }
}

/// A leaf's right states grouped as [`RightIndex`] groups them, for the exact sampler: each
/// row keeps its place in the sampler's table, and the rows of a group are in table order, so
/// that the states joining a crossing state come in the order the sampler draws among them.
pub(crate) struct SampleJoin {
    pub(super) classes: FxHashMap<u64, (usize, usize)>,
    pub(super) states: Vec<Right<u64>>,
    pub(super) counts: Vec<u64>,
    pub(super) places: Vec<u32>,
    pub(super) want: u32,
    pub(super) closed: bool,
}

impl SampleJoin {
    /// The rows of `right` (each a state and its count, as `entry` reads it), boundary square
    /// `j` in slot `slots.slots[j]`; `None` where a count passes one word (the sampler then
    /// joins pair by pair).
    pub(crate) fn new<K: Key, E: Sync>(
        right: &[E],
        entry: impl Fn(&E) -> (K, u128) + Sync,
        slots: &Boundary,
        closed: bool,
    ) -> Option<SampleJoin> {
        let mut rows: Vec<(u64, u32, Right<u64>, u64)> = right
            .par_iter()
            .enumerate()
            .map(|(i, e)| {
                let (k, c) = entry(e);
                let (mates, term) = slots.links(k);
                let g = group(slots.offers(k), term.count_ones());
                Some((g, i as u32, Right { mates, term }, u64::try_from(c).ok()?))
            })
            .collect::<Option<_>>()?;
        rows.par_sort_unstable_by_key(|r| (r.0, r.1));
        Some(SampleJoin {
            classes: group_runs(rows.len(), |i| rows[i].0),
            states: rows.iter().map(|r| r.2).collect(),
            counts: rows.iter().map(|r| r.3).collect(),
            places: rows.iter().map(|r| r.1).collect(),
            want: if closed { 0 } else { 2 },
            closed,
        })
    }

    /// The classes the right states offer (each group's, its terminals left out).
    pub(crate) fn classes(&self) -> impl Iterator<Item = u64> + '_ {
        self.classes.keys().map(|g| g >> 2)
    }

    /// A crossing state as the join reads it: its group's rows, its links and terminals, and
    /// its ends; `None` where no right state can join it.
    pub(super) fn read<K: Key>(
        &self,
        b: &Boundary,
        k: K,
    ) -> Option<((usize, usize), u64, u32, u32)> {
        let (g, lm, lt, ends) = left_side(b, k, self.want)?;
        Some((*self.classes.get(&g)?, lm, lt, ends))
    }

    /// For each crossing state of `left` (its state as `key` reads it; boundary square `j` in
    /// slot `b.slots[j]`), the sum of the counts of the right states that join it into one
    /// tour: by runs of a group, as the count joins ([`join`]; the sampler's pair by pair walk
    /// took a fifth of 8x8 closed's draws).
    pub(crate) fn sums<K: Key, E: Sync>(
        &self,
        left: &[E],
        key: impl Fn(&E) -> K + Sync,
        b: &Boundary,
    ) -> Vec<u128> {
        // each state read once: its group's rows, its place, its links and terminals, and its
        // ends (the same for the whole group)
        struct Asking {
            rows: (usize, usize),
            place: u32,
            piece: (u64, u32),
            ends: u32,
        }
        let mut keys: Vec<Asking> = left
            .par_iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let (rows, lm, lt, ends) = self.read(b, key(e))?;
                Some(Asking {
                    rows,
                    place: i as u32,
                    piece: (lm, lt),
                    ends,
                })
            })
            .collect();
        keys.par_sort_unstable_by_key(|k| (k.rows.0, k.place));
        let mut runs = Vec::new();
        let mut at = 0;
        while at < keys.len() {
            let mut end = at + 1;
            while end < keys.len() && keys[end].rows == keys[at].rows {
                end += 1;
            }
            // a long run in pieces, so that the threads share it
            let mut from = at;
            while from < end {
                let to = (from + JOIN_CHUNK).min(end);
                runs.push(from..to);
                from = to;
            }
            at = end;
        }
        let parts: Vec<Vec<(u32, u128)>> = runs
            .into_par_iter()
            .map(|run| {
                let run = &keys[run];
                let (start, end) = run[0].rows;
                let pieces: Vec<(u64, u32)> = run.iter().map(|k| k.piece).collect();
                let acc = run_sums(
                    &pieces,
                    run[0].ends,
                    &self.states[start..end],
                    &self.counts[start..end],
                    self.closed,
                );
                run.iter().map(|k| k.place).zip(acc).collect()
            })
            .collect();
        let mut out = vec![0u128; left.len()];
        for (i, s) in parts.into_iter().flatten() {
            out[i as usize] = s;
        }
        out
    }

    /// The right states that join crossing state `k` into one tour, in table order: each
    /// one's place in the table and its count.
    pub(crate) fn joining<K: Key>(&self, b: &Boundary, k: K) -> Vec<(usize, u128)> {
        let Some((rows, lm, lt, ends)) = self.read(b, k) else {
            return Vec::new();
        };
        let n = ends.count_ones();
        (rows.0..rows.1)
            .filter(|&i| {
                let r = self.states[i];
                joins_paired(lm, lt, r.mates, r.term, ends, n, self.closed)
            })
            .map(|i| (self.places[i] as usize, u128::from(self.counts[i])))
            .collect()
    }
}

/// A right state's row while the index is made.
#[derive(Clone, Copy, Default)]
pub(super) struct Row<L> {
    pub(super) group: u64,
    pub(super) mates: L,
    pub(super) term: u32,
    /// The count's first word, and where the state is in its table (part, place).
    pub(super) first: u64,
    pub(super) place: u64,
}

/// For each crossing step `i` (boundary squares `0..=i` walked, square `j` in slot `i - j`),
/// which needs of those squares some class of the right half meets: a crossing state whose
/// needs are in none cannot be joined. One bit per need pattern, read as a number in base 3
/// (what square `j` needs is digit `j`), so the test is a few nibble reads and one bit.
pub(crate) struct Prefixes {
    pub(super) bits: Vec<Patterns>,
    /// Steps at which every need pattern occurs (the test would pass every state: skipped).
    pub(super) full: Vec<bool>,
    /// For step `i`, byte `b` of a state and its value `v`: the digits its two slots add,
    /// at `digits[i][b * 256 + v]` (eight lookups read a pattern instead of sixteen slots).
    pub(super) digits: Vec<Vec<u32>>,
}

impl Prefixes {
    /// The prefixes of `index`'s classes over `squares` boundary squares.
    pub(crate) fn new(index: &RightIndex, squares: usize) -> Prefixes {
        let mut bits: Vec<Patterns> = (0..squares)
            .map(|i| Patterns::new(3u64.pow(i as u32 + 1)))
            .collect();
        for key in index.groups() {
            // the class over squares 0..=j is the class modulo 3^(j+1)
            let c = key >> 2;
            let mut pow = 1;
            for b in &mut bits {
                pow *= 3;
                b.insert(c % pow);
            }
        }
        let full = bits
            .iter()
            .enumerate()
            .map(|(i, b)| b.len() == 3u64.pow(i as u32 + 1))
            .collect();
        let digits = (0..squares)
            .map(|i| {
                byte_table((i + 2) / 2, |s, code, d: &mut u32| {
                    if s as usize <= i {
                        *d += need(code) as u32 * 3u32.pow(i as u32 - s);
                    }
                })
            })
            .collect();
        Prefixes { bits, full, digits }
    }

    /// Whether a crossing state `k` after step `i` asks what some class offers.
    #[inline]
    pub(crate) fn admits<K: Key>(&self, i: usize, k: K) -> bool {
        if self.full[i] {
            return true;
        }
        // square j is in slot i - j, digit j
        let d = &self.digits[i];
        let t = (0..d.len() / 256).fold(0, |t, b| t + d[b * 256 + k.byte(b)]) as usize;
        debug_assert_eq!(
            t,
            (0..=i as u32).fold(0usize, |t, s| t * 3 + need(k.get(s)) as usize)
        );
        self.bits[i].has(t as u64)
    }
}

/// The need patterns of some boundary squares that some class meets: a bit each where the
/// patterns are few enough (up to 3^16, 5 MiB), else a set of those met (3^20 bits would be
/// 436 MB, and a right half holds some millions of classes at most).
pub(crate) enum Patterns {
    Bits(Vec<u64>, u64),
    Set(rustc_hash::FxHashSet<u64>),
}

impl Patterns {
    fn new(patterns: u64) -> Patterns {
        if patterns <= 3u64.pow(16) {
            Patterns::Bits(vec![0; patterns.div_ceil(64) as usize], 0)
        } else {
            Patterns::Set(rustc_hash::FxHashSet::default())
        }
    }

    fn insert(&mut self, t: u64) {
        match self {
            Patterns::Bits(b, n) => {
                let w = &mut b[(t / 64) as usize];
                *n += u64::from(*w >> (t % 64) & 1 == 0);
                *w |= 1 << (t % 64);
            }
            Patterns::Set(s) => {
                s.insert(t);
            }
        }
    }

    /// Patterns met.
    fn len(&self) -> u64 {
        match self {
            Patterns::Bits(_, n) => *n,
            Patterns::Set(s) => s.len() as u64,
        }
    }

    #[inline]
    fn has(&self, t: u64) -> bool {
        match self {
            Patterns::Bits(b, _) => b[(t / 64) as usize] >> (t % 64) & 1 != 0,
            Patterns::Set(s) => s.contains(&t),
        }
    }
}
