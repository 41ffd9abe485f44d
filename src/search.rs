//! The exact bitboard search shared by counting and finding: the pruning rules, the memoised
//! counting kernel and a first-tour search, for boards of up to 64 squares.
//!
//! A search node is `(free, cur)`: the unvisited squares and the square the piece stands on. The
//! remaining path leaves `cur`, covers `free` exactly and must end on a square of `ends`.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::bitboard::Bitboard;
use crate::graph::SmallGraph;

/// One Hamiltonian-path problem on a small board: which end squares are allowed and what each
/// completed path is worth (the weight lets one search count both orientations of a path at once).
#[derive(Clone, Debug)]
pub struct Problem<'g> {
    pub g: &'g SmallGraph,
    /// Squares a path may end on.
    pub ends: Bitboard,
    /// `weight[sq]`: what a path ending on `sq` adds to the count (0 outside `ends`).
    pub weight: [u8; 64],
    /// Identifies the problem in a shared memo table.
    pub id: u64,
    /// When set, counting gives up (see [`Problem::with_stop`]).
    pub stop: Option<&'g AtomicBool>,
    /// Whether [`Problem::count`] counts from both ends (see [`BOTH_ENDS_MAX`]).
    pub both_ends: bool,
    /// The id under which counts between two fixed ends are memoised: they do not depend on the
    /// weights, so every problem on one graph may share them (see [`Problem::sharing`]).
    pub pair_id: u64,
}

/// Problems with at most this many end squares are counted from both ends: a path from `cur` to
/// an end `e` is a path between two fixed squares, and extending whichever end has fewer moves
/// (a forced move first) walks a much smaller tree than extending one end only: the closed tours
/// of 6x6 in 1.6 ms against 2.4 ms on one thread, 6x8 closed in 0.52 times the time. Open
/// counts, whose paths may end almost anywhere, keep the one-ended search.
pub const BOTH_ENDS_MAX: u32 = 8;

/// Marks the memo tags of counts between two ends, so that they never meet the tags of
/// one-ended counts (ids stay far below it).
const PAIR_TAG: u64 = 1 << 63;

/// Nodes with at least this many free squares look at the stop flag: they are few, and a long
/// unit stops within moments.
const STOP_CHECK_MIN: u32 = 16;

/// Below this many free squares the connectivity test costs more than it saves: the degree rules
/// and the memo table already cut most disconnected regions (measured in `results/tuning.md`).
const FLOOD_MIN: u32 = 28;

/// Nodes of [`Problem::each_path`] with at least this many free squares try their moves in
/// Warnsdorff's order: a tree that large may hold a dead subtree too large to walk before the
/// first path (an 8x8 board), while below it the order costs more than it saves.
const ORDER_MIN: u32 = 30;

/// Subtrees of [`Problem::each_path`] with at least this many free squares are remembered when
/// dead: below it they are cheaper to walk again than to look up.
const DEAD_MIN: u32 = 20;

impl<'g> Problem<'g> {
    /// A problem whose paths may end on any square of `ends`, each worth 1.
    #[must_use]
    pub fn new(g: &'g SmallGraph, ends: Bitboard, id: u64) -> Problem<'g> {
        let mut weight = [0u8; 64];
        for s in ends {
            weight[s as usize] = 1;
        }
        Problem::weighted(g, weight, id)
    }

    /// A problem with explicit weights; the ends are the squares of non-zero weight.
    #[must_use]
    pub fn weighted(g: &'g SmallGraph, weight: [u8; 64], id: u64) -> Problem<'g> {
        let ends = (0..g.n)
            .filter(|&s| weight[s as usize] > 0)
            .fold(Bitboard::EMPTY, Bitboard::with);
        Problem {
            g,
            ends,
            weight,
            id,
            stop: None,
            both_ends: ends.count() <= BOTH_ENDS_MAX,
            pair_id: id,
        }
    }

    /// Makes this problem keep its counts between two fixed ends under `pair_id`, shared with
    /// every other problem on the same graph given the same id (an id from
    /// [`fresh_ids`] that no problem on another graph uses).
    #[must_use]
    pub fn sharing(mut self, pair_id: u64) -> Problem<'g> {
        self.pair_id = pair_id;
        self
    }

    /// Makes [`Problem::count`] give up once `stop` is set: it then returns a wrong (smaller)
    /// count and may leave wrong entries under this problem's id in the memo table, so a caller
    /// that sets the flag must drop every result it sees after the flag is set, and this problem
    /// with it.
    #[must_use]
    pub fn with_stop(mut self, stop: &'g AtomicBool) -> Problem<'g> {
        self.stop = Some(stop);
        self
    }

    /// The moves from `(free, cur)` that can still lead to a complete path; empty when the node
    /// is dead. The rules, all bit-parallel over the degrees of the free squares within `free`:
    /// a free square with no free neighbour is dead; one with a single free neighbour (and not
    /// next to `cur`) must be the end, so at most one such square may exist and it must be an
    /// allowed end; such squares next to `cur` must be the next move unless they can be the end;
    /// and the free squares must form one connected region.
    #[must_use]
    #[inline]
    pub fn moves(&self, free: Bitboard, cur: u32) -> Bitboard {
        let g = self.g;
        let next = g.masks[cur as usize] & free;
        if next.is_empty() || (free & self.ends).is_empty() {
            return Bitboard::EMPTY;
        }
        if !free.more_than_one() {
            return next & self.ends;
        }
        let (one, two) = g.degree_at_least_1_2(free);
        if (free & !one).any() {
            return Bitboard::EMPTY;
        }
        let lone = free & !two;
        let far_lone = lone & !next;
        let near_lone = lone & next;
        let allowed = if far_lone.any() {
            // far_lone is the end, so every near_lone square must be entered now
            if far_lone.more_than_one()
                || (far_lone & !self.ends).any()
                || near_lone.more_than_one()
            {
                return Bitboard::EMPTY;
            }
            if near_lone.any() { near_lone } else { next }
        } else {
            let must_next = near_lone & !self.ends;
            if must_next.any() {
                if must_next.more_than_one() || (near_lone ^ must_next).more_than_one() {
                    return Bitboard::EMPTY;
                }
                must_next
            } else if near_lone.count() > 2 {
                return Bitboard::EMPTY;
            } else if near_lone.more_than_one() {
                // one of the two is next, the other the end
                near_lone
            } else {
                next
            }
        };
        if free.count() >= FLOOD_MIN
            && g.flood(Bitboard::from_square(free.first_square()), free) != free
        {
            return Bitboard::EMPTY;
        }
        allowed
    }

    /// Counts the weighted paths from `(free, cur)`, memoising mid-sized subtrees in `memo`.
    #[must_use]
    pub fn count(&self, free: Bitboard, cur: u32, memo: &mut Memo) -> u64 {
        if free.is_empty() {
            // the one-square path (1x1 board): it ends where it starts
            return u64::from(self.weight[cur as usize]);
        }
        if self.both_ends {
            return (free & self.ends)
                .iter()
                .map(|e| {
                    u64::from(self.weight[e as usize])
                        * self.count_between(free.without(e), cur, e, memo)
                })
                .sum();
        }
        let m = self.moves(free, cur);
        if m.is_empty() {
            return 0;
        }
        if !free.more_than_one() {
            return u64::from(self.weight[free.first_square() as usize]);
        }
        let k = free.count();
        // Relaxed: the flag guards no data; see `with_stop` for what a caller does after it
        if k >= STOP_CHECK_MIN && self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return 0;
        }
        let cached = k >= memo.lo && k <= memo.hi;
        if cached {
            if let Some(c) = memo.get(free, cur, self.id) {
                return c;
            }
        }
        let mut total = 0;
        for w in m {
            total += self.count(free.without(w), w, memo);
        }
        if cached {
            memo.put(free, cur, self.id, total, memo_bits(self.g.n));
        }
        total
    }

    /// One node of the search between two ends: its count where the rules settle it without a
    /// search, else the moves of the end it extends. Each node extends one end: one that must
    /// move to a square with no other way in, else the end with fewer moves. The rules: every
    /// square of `rest` needs two neighbours among `rest` and the ends; a square whose only two
    /// are an end and one other must be that end's next move, so an end may have one such
    /// square, and a square whose only two are both ends closes the path, so it must be the
    /// last; and `rest` must be connected (checked on large regions, as in [`Problem::moves`]).
    /// The count and the cut into units ([`crate::dfs::Plan::pair_units`]) both take their
    /// steps here, so that the units are nodes of the tree the count walks.
    #[must_use]
    #[inline(always)]
    pub fn pair_step(&self, rest: Bitboard, a: u32, b: u32) -> PairStep {
        let g = self.g;
        if rest.is_empty() {
            return PairStep::Settled(u64::from(g.masks[a as usize].contains(b)));
        }
        let next_a = g.masks[a as usize] & rest;
        let next_b = g.masks[b as usize] & rest;
        if next_a.is_empty() || next_b.is_empty() {
            return PairStep::Settled(0);
        }
        if !rest.more_than_one() {
            // the one square is next to both ends
            return PairStep::Settled(1);
        }
        let (two, three) =
            g.degree_at_least_2_3(rest | Bitboard::from_square(a) | Bitboard::from_square(b));
        if (rest & !two).any() {
            return PairStep::Settled(0);
        }
        let forced_a = next_a & !three;
        let forced_b = next_b & !three;
        if (forced_a & forced_b).any() || forced_a.more_than_one() || forced_b.more_than_one() {
            return PairStep::Settled(0);
        }
        if rest.count() >= FLOOD_MIN
            && g.flood(Bitboard::from_square(rest.first_square()), rest) != rest
        {
            return PairStep::Settled(0);
        }
        let (moves, from_a) = if forced_a.any() {
            (forced_a, true)
        } else if forced_b.any() {
            (forced_b, false)
        } else if next_a.count() <= next_b.count() {
            (next_a, true)
        } else {
            (next_b, false)
        };
        PairStep::Extend { moves, from_a }
    }

    /// The paths from `a` to `b` that pass every square of `rest` (which holds neither), each
    /// counted once whichever end it is read from: the search of [`Problem::pair_step`]'s tree,
    /// memoising mid-sized subtrees. What [`Problem::count`] sums over the ends when it counts
    /// from both, and what a unit of [`crate::dfs::Plan::pair_units`] counts.
    #[must_use]
    pub fn count_between(&self, rest: Bitboard, a: u32, b: u32, memo: &mut Memo) -> u64 {
        let (moves, from_a) = match self.pair_step(rest, a, b) {
            PairStep::Settled(c) => return c,
            PairStep::Extend { moves, from_a } => (moves, from_a),
        };
        let k = rest.count();
        // Relaxed: as in `count`
        if k >= STOP_CHECK_MIN && self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return 0;
        }
        let cached = k >= memo.lo && k <= memo.hi;
        if cached {
            if let Some(c) = memo.get_pair(rest, a, b, self.pair_id) {
                return c;
            }
        }
        let mut total = 0;
        for w in moves {
            let rest = rest.without(w);
            total += if from_a {
                self.count_between(rest, w, b, memo)
            } else {
                self.count_between(rest, a, w, memo)
            };
        }
        if cached {
            // a path and its reverse are one: the entry serves the ends in either order
            memo.put_pair(rest, a, b, self.pair_id, total, memo_bits(self.g.n));
        }
        total
    }

    /// Calls `visit` with every complete path from `(free, cur)`, in a fixed order (where many
    /// squares are free, fewest onward moves first, so that the first paths of a large tree come
    /// at once; below, lower squares first), so that walking a tree twice gives the same
    /// sequence. `walk.path[..len]` is the path so far, ending on `cur`; `visit` sees the whole
    /// path and returns `false` to stop. Subtrees found to hold no path are recorded in
    /// `walk.dead` (as count 0 under this problem's id, the same fact [`Problem::count`] would
    /// record) and skipped when met again: the walk's pruned tree is that of the count without
    /// its memoised counts. Each node entered takes one of `walk.budget`.
    ///
    /// Returns `None` when stopped (by `visit`, the stop flag or the budget), else whether any
    /// path was found. A subtree is recorded only once walked to its end, so what `dead` holds
    /// stays true however the walk stopped.
    pub fn each_path(
        &self,
        free: Bitboard,
        cur: u32,
        len: usize,
        walk: &mut PathWalk<'_>,
        visit: &mut impl FnMut(&[u8]) -> bool,
    ) -> Option<bool> {
        if walk.budget == 0 {
            return None;
        }
        walk.budget -= 1;
        if free.is_empty() {
            // a complete path: the last move was checked against the ends by `moves`, but the
            // one-square board's path is never moved through it
            if self.weight[cur as usize] == 0 {
                return Some(false);
            }
            return visit(&walk.path[..len]).then_some(true);
        }
        let k = free.count();
        // Relaxed: the flag guards no data; see `with_stop`
        if k >= STOP_CHECK_MIN && self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return None;
        }
        let remember = k >= DEAD_MIN;
        if remember && walk.dead.get(free, cur, self.id) == Some(0) {
            return Some(false);
        }
        let mut found = false;
        let m = self.moves(free, cur);
        if k >= ORDER_MIN {
            // fewest onward moves first (Warnsdorff), ties to the lower square
            let mut kids = [(0u8, 0u8); 64];
            let mut count = 0;
            for w in m {
                kids[count] = ((self.g.masks[w as usize] & free).count() as u8, w as u8);
                count += 1;
            }
            kids[..count].sort_unstable();
            for &(_, w) in &kids[..count] {
                walk.path[len] = w;
                let w = u32::from(w);
                found |= self.each_path(free.without(w), w, len + 1, walk, visit)?;
            }
        } else {
            for w in m {
                walk.path[len] = w as u8;
                found |= self.each_path(free.without(w), w, len + 1, walk, visit)?;
            }
        }
        if remember && !found {
            walk.dead.put(free, cur, self.id, 0, memo_bits(self.g.n));
        }
        Some(found)
    }

    /// The first complete path from `(free, cur)` in Warnsdorff order (fewest onward moves
    /// first, ties broken by `tie` when given, else to the lower square), found by an iterative
    /// depth-first search that records dead states in `dead` and skips those already there;
    /// `Some(None)` proves that none exists. `budget` caps the nodes visited (`None` once spent:
    /// the answer is unknown). Dead states are facts, so `dead` may be kept across restarts.
    #[must_use]
    pub fn first_path(
        &self,
        free: Bitboard,
        cur: u32,
        budget: &mut u64,
        dead: &mut Memo,
        mut tie: Option<&mut fastrand::Rng>,
    ) -> Option<Option<Vec<u32>>> {
        #[derive(Clone, Copy)]
        struct Frame {
            free: Bitboard,
            cur: u32,
            order: [u8; 64],
            len: u8,
            at: u8,
        }
        let g = self.g;
        let mut make = |free: Bitboard, cur: u32| -> Frame {
            let mut f = Frame {
                free,
                cur,
                order: [0; 64],
                len: 0,
                at: 0,
            };
            if free.is_empty() {
                return f;
            }
            let m = self.moves(free, cur);
            let mut keyed: [(u32, u32, u32); 64] = [(0, 0, 0); 64];
            let mut n = 0;
            for w in m {
                let r = tie.as_deref_mut().map_or(0, |t| t.u32(..));
                keyed[n] = ((g.masks[w as usize] & free).count(), r, w);
                n += 1;
            }
            keyed[..n].sort_unstable();
            for (i, &(_, _, w)) in keyed[..n].iter().enumerate() {
                f.order[i] = w as u8;
            }
            f.len = n as u8;
            f
        };
        let mut stack: Vec<Frame> = Vec::with_capacity(65);
        let mut path: Vec<u32> = vec![cur];
        stack.push(make(free, cur));
        while let Some(top) = stack.last_mut() {
            if top.free.is_empty() {
                return Some(Some(path));
            }
            if top.at == top.len {
                dead.put(top.free, top.cur, self.id, 0, memo_bits(self.g.n));
                stack.pop();
                path.pop();
                continue;
            }
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            let w = u32::from(top.order[top.at as usize]);
            top.at += 1;
            let child_free = top.free.without(w);
            if dead.get(child_free, w, self.id).is_some() {
                continue;
            }
            let child = make(child_free, w);
            path.push(w);
            stack.push(child);
        }
        Some(None)
    }
}

/// A node of the search between two ends, as [`Problem::pair_step`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairStep {
    /// The rules settle the node: this many paths (0 for a dead node).
    Settled(u64),
    /// The search goes on by moving the first end (`from_a`) or the second to each of `moves`.
    Extend { moves: Bitboard, from_a: bool },
}

/// What [`Problem::each_path`] carries down the tree.
pub struct PathWalk<'m> {
    /// The path so far: the start, then each square entered.
    pub path: [u8; 64],
    /// Subtrees known to hold no path (this thread's memo table, see [`with_memo`]).
    pub dead: &'m mut Memo,
    /// Nodes the walk may still enter (`u64::MAX`: as many as the tree has).
    pub budget: u64,
}

/// Entries of a thread's table at most (`2^MEMO_BITS`, 24 bytes each): larger tables measured
/// slower.
const MEMO_BITS: u32 = 18;
/// Boards of up to this many squares keep a thread's table at `2^SMALL_MEMO_BITS` entries
/// (768 KiB): `knights count 6x6` takes the same time with it as with `2^18` (0.084 s against
/// 0.083 s, whole process, both in huge pages) and is resident in 11 MiB instead of 29 (the
/// 6 MiB tables in small pages took 0.14 s); a larger table is worth its memory only on larger
/// boards.
const SMALL_MEMO_SQUARES: u32 = 36;
const SMALL_MEMO_BITS: u32 = 15;
/// Entries a thread's table starts with (`2^MEMO_START_BITS`): it grows eightfold each time it
/// has taken [`MEMO_FILLS`] times its size in counts, so a short count never allocates (and
/// faults in) the tables a long one wants.
const MEMO_START_BITS: u32 = 12;
/// Counts a table takes, in multiples of its size, before it grows: 64 keeps the 96 KiB table
/// for counts of a few milliseconds (`knights count 6x6 --closed` 0.65 times the time with 4,
/// `count 5x6` 0.60: a grown table's page faults cost more than its hits saved), while `count 6x6`
/// (the same time with 64 as with 4) and longer counts grow theirs within their first
/// hundredth.
const MEMO_FILLS: u64 = 64;
/// Smallest and largest number of free squares whose counts are memoised.
const MEMO_LO: u32 = 5;
const MEMO_HI: u32 = 40;

/// The size (as `2^bits` entries) a thread's table may grow to for a board of `squares` squares.
const fn memo_bits(squares: u32) -> u32 {
    if squares <= SMALL_MEMO_SQUARES {
        SMALL_MEMO_BITS
    } else {
        MEMO_BITS
    }
}

/// Hands out problem ids that are unique within the process, so a thread's memo table can be
/// shared by every search that thread runs.
#[must_use]
pub fn fresh_ids(n: u64) -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // Relaxed: only uniqueness matters, not ordering with other memory.
    NEXT.fetch_add(n, std::sync::atomic::Ordering::Relaxed)
}

thread_local! {
    static MEMO: std::cell::RefCell<Option<Memo>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's memo table, allocating it on first use.
pub fn with_memo<T>(f: impl FnOnce(&mut Memo) -> T) -> T {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        f(m.get_or_insert_with(Memo::growing))
    })
}

/// A fixed-size, lossy table of subtree counts keyed by `(free, cur, problem)`. Entries are only
/// ever exact counts, so a lost entry costs time, never correctness; one table per thread.
pub struct Memo {
    /// `[free, tag, count]` per slot, side by side so that a probe touches one cache line; all
    /// zeros when empty.
    slots: Vec<[u64; 3]>,
    mask: usize,
    /// Counts put since the table was last made, and the size it may grow to (`2^max_bits`).
    puts: u64,
    max_bits: u32,
    /// Smallest and largest number of free squares whose counts are memoised.
    lo: u32,
    hi: u32,
}

impl Memo {
    /// A table of `2^bits` entries (`bits <= 24`), of that size for good.
    #[must_use]
    pub fn new(bits: u32) -> Memo {
        let size = 1usize << bits.min(24);
        Memo {
            slots: written_zeros(size),
            mask: size - 1,
            puts: 0,
            max_bits: bits.min(24),
            lo: MEMO_LO,
            hi: MEMO_HI,
        }
    }

    /// A small table that grows as counts fill it, up to the size [`Memo::put`] is told.
    #[must_use]
    pub fn growing() -> Memo {
        Memo {
            max_bits: MEMO_BITS,
            ..Memo::new(MEMO_START_BITS)
        }
    }

    #[inline]
    fn slot(&self, free: Bitboard, tag: u64) -> usize {
        let h =
            (free.0 ^ tag.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (h >> 40) as usize & self.mask
    }

    #[inline]
    fn tag(cur: u32, id: u64) -> u64 {
        // never 0, the empty slot's tag
        (id + 1) << 6 | u64::from(cur)
    }

    /// The tag of the paths between `a` and `b` (in either order) under `pair_id`: its top bit
    /// keeps it apart from every tag of [`Memo::tag`].
    #[inline]
    fn pair_tag(a: u32, b: u32, pair_id: u64) -> u64 {
        PAIR_TAG | (pair_id + 1) << 12 | u64::from(a.min(b) << 6 | a.max(b))
    }

    #[inline]
    #[must_use]
    pub fn get(&self, free: Bitboard, cur: u32, id: u64) -> Option<u64> {
        self.get_tagged(free, Self::tag(cur, id))
    }

    /// The count recorded for the paths between `a` and `b` through `rest` (see
    /// [`Problem::sharing`]).
    #[inline]
    #[must_use]
    pub fn get_pair(&self, rest: Bitboard, a: u32, b: u32, pair_id: u64) -> Option<u64> {
        self.get_tagged(rest, Self::pair_tag(a, b, pair_id))
    }

    #[inline]
    fn get_tagged(&self, free: Bitboard, tag: u64) -> Option<u64> {
        let [f, t, v] = self.slots[self.slot(free, tag)];
        (f == free.0 && t == tag).then_some(v)
    }

    /// Records `val` for `(free, cur)` of problem `id`; a growing table (see [`Memo::growing`])
    /// may grow, to at most `2^grow_bits` entries.
    #[inline]
    pub fn put(&mut self, free: Bitboard, cur: u32, id: u64, val: u64, grow_bits: u32) {
        self.put_tagged(free, Self::tag(cur, id), val, grow_bits);
    }

    /// Records `val` for the paths between `a` and `b` through `rest`, as [`Memo::put`] does.
    #[inline]
    pub fn put_pair(
        &mut self,
        rest: Bitboard,
        a: u32,
        b: u32,
        pair_id: u64,
        val: u64,
        grow_bits: u32,
    ) {
        self.put_tagged(rest, Self::pair_tag(a, b, pair_id), val, grow_bits);
    }

    #[inline]
    fn put_tagged(&mut self, free: Bitboard, tag: u64, val: u64, grow_bits: u32) {
        let i = self.slot(free, tag);
        self.slots[i] = [free.0, tag, val];
        self.puts += 1;
        let max_bits = self.max_bits.min(grow_bits);
        if self.puts > MEMO_FILLS * self.slots.len() as u64 && self.slots.len() < 1 << max_bits {
            // a lossy table: the bigger one starts empty, and the counts lost cost time only.
            // Eight times larger each time: the allocator keeps each table given up for reuse,
            // and a doubling table left 2^12 + ... + 2^17 entries behind (6x6 open: 51 MiB
            // resident against 29 with one table of 2^18 from the start)
            let size = (self.slots.len() * 8).min(1 << max_bits);
            self.slots = written_zeros(size);
            self.mask = size - 1;
            self.puts = 0;
        }
    }
}

/// `size` empty slots, written rather than allocated as zeros: a table allocated zeroed is
/// mapped to the kernel's shared zero page, and the first count put after a lookup on each page
/// then takes a copy-on-write fault that flushes the other cores' TLBs (an interprocessor
/// interrupt each, a tenth of `knights count 6x6 --closed`'s time on a virtual machine). Writing
/// the slots faults each page in once, writable. The zero goes through `black_box` so that the
/// compiler cannot see the writes as an allocation of zeros and turn them back into one.
fn written_zeros(size: usize) -> Vec<[u64; 3]> {
    let mut slots = Vec::with_capacity(size);
    slots.resize(size, std::hint::black_box([0; 3]));
    slots
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::SmallGraph;

    /// Puts `n` distinct entries into `memo`, for a board of `squares` squares.
    fn fill(memo: &mut Memo, n: u64, squares: u32) {
        for i in 0..n {
            memo.put(Bitboard(i << 1 | 1), 3, 7, i, memo_bits(squares));
        }
    }

    /// Every start and end square (and a weighted set of ends, as the closed count's roots
    /// have) of a few boards and pieces: counting from both ends gives the one-ended search's
    /// count, with the memo table shared by all of a board's problems as a plan shares it.
    #[test]
    fn counting_from_both_ends_gives_the_one_ended_counts() {
        for (board, piece) in [
            ("5x6", "knight"),
            ("4x7", "knight"),
            ("4x4", "1,0"),
            ("3x5", "1,0+1,1"),
            ("5x5", "3,0+2,2"),
        ] {
            let piece: crate::piece::Piece = piece.parse().unwrap();
            let g = SmallGraph::new(board.parse().unwrap(), &piece).unwrap();
            let base = fresh_ids(1 + u64::from(g.n) * u64::from(g.n));
            let mut both_memo = Memo::growing();
            let mut one_memo = Memo::growing();
            let mut paths = 0;
            for start in 0..g.n {
                let free = g.all.without(start);
                let mut weight = [0u8; 64];
                for (i, e) in free.iter().enumerate().take(BOTH_ENDS_MAX as usize) {
                    weight[e as usize] = (i % 3) as u8;
                }
                // ids: one a problem (its one-ended counts depend on its weights); the
                // square pair (start, start) names no single-end problem, so it names this one
                let mut problems = vec![Problem::weighted(
                    &g,
                    weight,
                    base + 1 + u64::from(start * g.n + start),
                )];
                problems.extend(free.iter().map(|end| {
                    Problem::new(
                        &g,
                        Bitboard::from_square(end),
                        base + 1 + u64::from(start * g.n + end),
                    )
                }));
                for p in problems {
                    let p = p.sharing(base);
                    assert!(p.both_ends);
                    let one = Problem {
                        both_ends: false,
                        ..p.clone()
                    };
                    let want = one.count(free, start, &mut one_memo);
                    let got = p.count(free, start, &mut both_memo);
                    assert_eq!(got, want, "{board} from {start} to {:?}", p.ends);
                    paths += want;
                }
            }
            assert!(paths > 0, "{board}: no paths at all, nothing compared");
        }
    }

    #[test]
    fn a_growing_table_stays_small_for_a_short_count_and_a_small_board() {
        let start = 1usize << MEMO_START_BITS;
        let mut m = Memo::growing();
        // a short count: fewer puts than the growth takes
        fill(&mut m, MEMO_FILLS * start as u64, 64);
        assert_eq!(m.slots.len(), start);
        // a long count on a board of 36 squares grows to the small board's limit, no further
        let mut m = Memo::growing();
        fill(&mut m, MEMO_FILLS * (1 << (SMALL_MEMO_BITS + 1)), 36);
        assert_eq!(m.slots.len(), 1 << SMALL_MEMO_BITS);
        // on a larger board it grows past it; entries put after the last growth read back
        let mut m = Memo::growing();
        fill(&mut m, MEMO_FILLS * (1 << (SMALL_MEMO_BITS + 1)), 37);
        assert_eq!(m.slots.len(), 1 << MEMO_BITS);
        let last = MEMO_FILLS * (1 << (SMALL_MEMO_BITS + 1)) - 1;
        assert_eq!(m.get(Bitboard(last << 1 | 1), 3, 7), Some(last));
    }
}
