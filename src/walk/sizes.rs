//! How a tree cut is sized (see `meet.rs`): the depth of its pieces, the states of its leaves,
//! the memory of the nodes held above a piece and the states the tree reads, each from figures
//! measured on the boards named beside them. The up-front projection (`mod.rs`) and the tree's
//! own line before the first piece read the same rules.

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
pub(crate) const ONE_PASS_STATES: u64 = 1 << 22;

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
/// the memory bound, and no larger than [`LEAF_STATES`]. (Sized from the tables' share of the
/// bound instead, half as large, 7x7 open took 24.4 s under 128M against 20.6, and 36 s under
/// 32M against 29: more leaves cost more than the walks through disk they save.)
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

/// The states a column reads for each it starts from, estimated before it is walked (the
/// up-front projection: a leaf's growth here, the pieces' reads in `growth::column_reads`) from
/// its growth `g`, its end's states over its start's, on a board `w` wide: 12 where the layers
/// stay level on boards 5 wide, half as much again for each square wider, and 1.8 more for each
/// time the column grows. Measured: 5x16 (growth 1.14)
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
/// bound `bound`: a 16th of the tables' share of it (see [`table_bytes`]), at least 1 MiB.
pub(crate) fn spill_bytes(bound: u64) -> u64 {
    (table_bytes(bound) / 16).max(1 << 20)
}

/// Whether a root table of `bytes` waits on disk under the memory bound `bound`: the roots are
/// read again for every piece, and one past an eighth of the tables' share is kept in a file
/// (an eighth of the whole bound, the two roots and the nodes above a piece left the walks
/// below them no room: 7x7 open under 64M was resident in 71 MiB).
pub(crate) fn root_on_disk(bytes: f64, bound: u64) -> bool {
    bytes > (table_bytes(bound) / 8) as f64
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
pub(crate) const CROSSING_READS: f64 = 6.0;

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
pub(crate) const COLUMN_TREE_STATES: u64 = 1 << 21;

/// The bytes the tables of a count may hold under the memory bound `bound`: what the process
/// holds besides them (its code, the threads' stacks and batches, the buffers of the files it
/// reads, the join's index, the allocator's slack) is kept back, half the bound and at least
/// 26 MiB (7x7 open under 32M was resident in 40 MiB with its tables held to 16 MiB, and in 36
/// with 8). A table that would pass its share goes to disk (see `layer::spill`).
pub(crate) fn table_bytes(bound: u64) -> u64 {
    if bound == u64::MAX {
        return u64::MAX;
    }
    bound.saturating_sub((bound / 2).max(26 << 20)).max(4 << 20)
}

/// [`table_bytes`] for a window of `window` squares in keys of `key_bytes` bytes: wider
/// windows keep more back, for what such a count holds beside its tables whatever the bound.
/// Keys of two words (boards 8 wide for the knight) 64 MiB more (8x8 closed: 140 to 175 MiB,
/// its index and the join's tables among it; under 256M with 128 MiB of tables it was resident
/// in 265 MiB); windows of 15 and 16 squares (7 wide) at least 32 MiB (7x7 open held about 30
/// MiB beside its tables: under 40M with 14 MiB of them it was resident in 44 MiB).
/// On `threads` threads each thread past the first holds [`THREAD_BYTES`] more beside the
/// tables, kept back too.
pub(crate) fn tables_for(bound: u64, window: u32, key_bytes: usize, threads: usize) -> u64 {
    let t = table_bytes(bound);
    if t == u64::MAX {
        return t;
    }
    let least = if key_bytes > 8 { 16 << 20 } else { 4 << 20 };
    let t = if key_bytes > 8 {
        t.saturating_sub(64 << 20)
    } else if window > 14 {
        t.min(bound.saturating_sub(32 << 20))
    } else {
        t
    };
    t.min(bound.saturating_sub(beside_tables(bound, window, key_bytes, threads)))
        .max(least)
}

/// What a count on `threads` threads holds beside its tables under the bound `bound`, at the
/// least: what one thread holds (see [`tables_for`]), and [`THREAD_BYTES`] for each more.
fn beside_tables(bound: u64, window: u32, key_bytes: usize, threads: usize) -> u64 {
    let one = bound - tables_for_one(bound, window, key_bytes).min(bound);
    one + THREAD_BYTES * threads.saturating_sub(1) as u64
}

/// [`tables_for`] on one thread.
fn tables_for_one(bound: u64, window: u32, key_bytes: usize) -> u64 {
    let t = table_bytes(bound);
    if key_bytes > 8 {
        t.saturating_sub(64 << 20).max(16 << 20)
    } else if window > 14 {
        t.min(bound.saturating_sub(32 << 20)).max(4 << 20)
    } else {
        t
    }
}

/// What the exact sampler met in the middle holds beyond a count's floor: the count's leaves,
/// its shared walk kept, the nodes above a leaf and a leaf's walks, each to disk past its share
/// of the tables' room but not below it. Measured (`/usr/bin/time`, `sample BOARD -n 20 --tables
/// meet -j 1`): 6x8 open under 40M, 48M and 64M took 46, 50 and 53 MiB; 7x7 open under 48M, 64M
/// and 96M 60, 72 and 93 MiB; every count's floor plus this kept within.
pub(crate) const SAMPLE_BYTES: u64 = 80 << 20;

/// The smallest bound the exact sampler met in the middle takes for a window of `window`
/// squares in keys of `key_bytes` bytes on `threads` threads: the count's floor and
/// [`SAMPLE_BYTES`].
pub(crate) fn sample_floor(window: u32, key_bytes: usize, threads: usize) -> u64 {
    min_bound(window, key_bytes, threads) + SAMPLE_BYTES
}

/// The most threads of `threads` a count (`sample`: the exact sampler) may run on under the
/// bound `bound` (at least one): each past the first holds [`THREAD_BYTES`] beside the tables.
pub(crate) fn threads_within(
    bound: u64,
    window: u32,
    key_bytes: usize,
    threads: usize,
    sample: bool,
) -> usize {
    let floor = |t: usize| {
        if sample {
            sample_floor(window, key_bytes, t)
        } else {
            min_bound(window, key_bytes, t)
        }
    };
    (1..=threads.max(1))
        .rev()
        .find(|&t| floor(t) <= bound)
        .unwrap_or(1)
}

/// What each worker thread past the first holds beside the tables at the least: its stack,
/// the allocator's pages of its own, its batches, the frames it makes and reads and their
/// compression's state. Measured under the floors (`/usr/bin/time`, 6x8 open under 32M: 27,
/// 33, 39 and 60 MiB resident at the most on 1, 2, 4 and 8 threads; 7x7 open under 40M: 31,
/// 38, 43 and 62): 4 to 7 MiB a thread.
pub(crate) const THREAD_BYTES: u64 = 7 << 20;

/// The smallest memory bound a frontier count takes, for a window of `window` squares in keys
/// of `key_bytes` bytes: what the process holds besides its tables, and a few MiB of tables.
/// Past it every count runs to its end, its tables through disk where they pass half the
/// bound. For the knight: 32M up to 6 wide (5x12 open under 32M was resident in 30 MiB, 6x8
/// open in 29), 40M 7 wide (7x7 open under 32M: 35 MiB), 192M wider (keys of two words; see
/// [`tables_for`]).
/// On `threads` threads, [`THREAD_BYTES`] more for each past the first: the floor is the whole
/// process's, as `/usr/bin/time` measures it.
pub(crate) fn min_bound(window: u32, key_bytes: usize, threads: usize) -> u64 {
    let one: u64 = if key_bytes > 8 {
        192 << 20
    } else if window > 14 {
        40 << 20
    } else {
        32 << 20
    };
    one + THREAD_BYTES * threads.saturating_sub(1) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    const GIB: f64 = (1u64 << 30) as f64;

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
}
