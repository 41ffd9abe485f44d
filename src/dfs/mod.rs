//! The bitboard DFS engine: counts Hamiltonian paths and cycles on boards of up to 64 squares by
//! a pruned depth-first search (see [`crate::search`]).
//!
//! A count is a [`Plan`] of root searches (one start square per symmetry orbit, closed tours
//! anchored at a square of least degree), split into numbered work units (subtrees, in an order
//! fixed by the board alone): the pieces the driver records, shards and merges. Rayon counts the
//! units in parallel, each thread with its own memo table.

pub mod plan;
pub mod units;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use num_bigint::BigUint;
use rayon::prelude::*;

pub use plan::{Plan, Root, Tally, Unit};
pub use units::{Counter, count_each, count_each_scoped};

use crate::board::Board;
use crate::engine::{
    Count, CountEngine, Host, Limits, Ran, Recorded, Request, RunError, Split, UnitTimes, WorkSpan,
    u64_counts,
};
use crate::error::{Error, Result};
use crate::hash::Fnv;
use crate::human::human_duration;

/// Work units a count is split into, whatever the number of threads.
pub const UNIT_TARGET: usize = 4096;

/// Boards of up to this many squares are counted in fewer units ([`SMALL_UNIT_TARGET`]), on the
/// calling thread first ([`count_each_scoped`]): their counts take a millisecond or two (5x5:
/// 1,728 tours), less than planning 4,096 units (half of `knights count 5x5`'s instructions) or
/// waking a pool of threads.
pub const SMALL_SQUARES: u64 = 25;

/// Work units of a board of up to [`SMALL_SQUARES`] squares.
pub const SMALL_UNIT_TARGET: usize = 64;

/// Closed counts of boards of up to this many squares are counted in [`SMALL_UNIT_TARGET`]
/// units (see [`unit_target`]). Open ones of more than [`SMALL_SQUARES`] were counted in 256
/// units, planned faster than 4,096; but 6x6 open's largest of them was a tenth of its work, so
/// no number of threads could pass 10 times one, where in 4,096 (7,229 units, the largest a 27th
/// of the work) the count's record projects 16 threads past 12 times one. The cost on two cores
/// is 3 ms of 70 (`knights count 6x6 --engine dfs`, 20 pairs, median 1.045 of the wall).
pub const MID_SQUARES: u64 = 36;

/// The unit target of a count: a rule of the board and the kind of tour alone, so every shard
/// and every resume of one version cuts alike (a log records its cut, see [`PAIR_CUT`]; shards
/// of two versions whose cuts differ are refused by `knights merge`). Closed counts of up to
/// [`MID_SQUARES`] squares take [`SMALL_UNIT_TARGET`]: counted from both ends they take a
/// millisecond or two. (Cut by the search from the start, as logs of earlier versions are,
/// below each unit the search from the far end started again, so fewer units were less work:
/// 6x6 closed, 115 units against 488, 1.41 against 1.60 ms of search on one thread. Cut by the
/// search from both ends, [`Plan::pair_units`], its 84 units took the same time as 20 or 1,092.)
#[must_use]
pub const fn unit_target(board: Board, closed: bool) -> usize {
    if board.squares() <= SMALL_SQUARES || (closed && board.squares() <= MID_SQUARES) {
        SMALL_UNIT_TARGET
    } else {
        UNIT_TARGET
    }
}

/// Search nodes one thread gets through in a second, by Knuth's estimate: measured 5e7 to 1.5e8
/// on this project's 2-core machines, taken low so that a count is refused only when clearly hopeless.
const NODES_PER_THREAD_SECOND: f64 = 3e7;

/// The longest count started without `--force`: 30 days.
pub const REACH_SECONDS: f64 = 30.0 * 86_400.0;

/// Estimated seconds a DFS count takes on `threads` threads (see [`Plan::estimate_nodes`]).
#[must_use]
pub fn estimate_seconds(plan: &Plan, threads: usize) -> f64 {
    plan.estimate_nodes(1000, 0x5EED) / (NODES_PER_THREAD_SECOND * threads.max(1) as f64)
}

/// Refuses a DFS count of `plan` whose estimated time exceeds [`REACH_SECONDS`].
pub fn check_reach_plan(plan: &Plan, board: Board, threads: usize) -> Result<f64> {
    // every board of up to 40 squares counts within seconds; skip the estimate's milliseconds
    if board.squares() <= 40 {
        return Ok(0.0);
    }
    let secs = estimate_seconds(plan, threads);
    if secs > REACH_SECONDS {
        return Err(Error::Invalid(format!(
            "counting these tours on {board} is out of reach: the search tree is estimated at {:.1e} nodes, about {} on {threads} thread{}; use --force to start anyway (with --checkpoint), or `knights estimate` for an estimate of the count in seconds",
            secs * NODES_PER_THREAD_SECOND * threads as f64,
            human_duration(secs),
            if threads == 1 { "" } else { "s" }
        )));
    }
    Ok(secs)
}

/// Turns the weighted sum of a plan into the reported pair `(directed, undirected)`.
#[must_use]
pub fn tally(kind: Tally, sum: u64, squares: u64) -> (u64, u64) {
    match kind {
        Tally::OpenAll if squares == 1 => (sum, sum),
        Tally::OpenAll => (sum, sum / 2),
        Tally::Fixed => (sum, sum),
        Tally::Cycles => (2 * sum, sum),
    }
}

/// Counts every unit of `units` of `plan`, in parallel on the current rayon pool; the result is
/// in unit order and does not depend on the number of threads.
#[must_use]
pub fn count_units(plan: &Plan, units: &[Unit]) -> Vec<u64> {
    let counter = Counter::new(plan);
    units
        .par_iter()
        .with_max_len(1)
        .map(|u| counter.count(u))
        .collect()
}

/// The weighted total of counted units.
#[must_use]
pub fn weigh(plan: &Plan, units: &[Unit], counts: &[u64]) -> u64 {
    units
        .iter()
        .zip(counts)
        .map(|(u, c)| plan.roots[u.root as usize].multiplier * c)
        .sum()
}

/// The figures of a plan from the counts of its units (0 for a unit not counted), with the
/// table by start square when `with_per_square`.
#[must_use]
pub fn figures(
    board: Board,
    plan: &Plan,
    units: &[Unit],
    counts: &[u64],
    with_per_square: bool,
    seconds: f64,
) -> Count {
    let (directed, undirected) = tally(plan.tally, weigh(plan, units, counts), board.squares());
    Count {
        directed: directed.into(),
        undirected: undirected.into(),
        how: plan.how.clone(),
        reason: None,
        per_square: with_per_square.then(|| per_square(board, plan, units, counts)),
        seconds,
        peak: None,
        work: None,
    }
}

/// Directed open tours by start square (row-major) from the counts of every unit of a plan made
/// with `per_square` set: each orbit's squares get its representative's count.
#[must_use]
pub fn per_square(board: Board, plan: &Plan, units: &[Unit], counts: &[u64]) -> Vec<u64> {
    let mut by_root = vec![0u64; plan.roots.len()];
    for (u, c) in units.iter().zip(counts) {
        by_root[u.root as usize] += c;
    }
    let mut table = vec![0u64; board.squares() as usize];
    for (orbit, root) in board.orbits().iter().filter_map(|o| {
        plan.roots
            .iter()
            .position(|r| r.start == o[0])
            .map(|i| (o, i))
    }) {
        for &s in orbit {
            table[s as usize] = by_root[root];
        }
    }
    table
}

/// The fingerprint of a plan's cut into units: its roots (start, weights, multiplier), its
/// tally and every unit, in order (a count a theorem settles has no plan and no units).
#[must_use]
pub fn fingerprint(plan: Option<&Plan>, units: &[Unit]) -> u64 {
    let mut h = Fnv::default();
    if let Some(plan) = plan {
        for r in &plan.roots {
            h.eat(&r.start.to_le_bytes());
            h.eat(&r.weight);
            h.eat(&r.multiplier.to_le_bytes());
        }
        h.eat(&[match plan.tally {
            Tally::OpenAll => 0,
            Tally::Fixed => 1,
            Tally::Cycles => 2,
        }]);
    }
    for u in units {
        h.eat(&u.root.to_le_bytes());
        h.eat(&u.free.0.to_le_bytes());
        h.eat(&u.cur.to_le_bytes());
        // (a unit of the search from the start as the versions before the other cut had it)
        if u.is_pair() {
            h.eat(&u.end.to_le_bytes());
            h.eat(&[u.weight]);
        }
    }
    h.value()
}

/// The DFS as an engine of the driver: one piece a work unit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dfs;

/// Marks, in the cut's param a checkpoint records, a count cut into units of the search from
/// both ends ([`Plan::pair_units`]); the rest of the param is the unit target. Without it the
/// units are those of the search from the start ([`Plan::units`]), as every log written before
/// this cut was, so that such a log resumes with its own units.
pub const PAIR_CUT: usize = 1 << 30;

/// The units of `plan` as the cut `param` names (see [`PAIR_CUT`]).
#[must_use]
pub fn cut_units(plan: &Plan, param: usize) -> Vec<Unit> {
    let target = param & !PAIR_CUT;
    if param & PAIR_CUT == 0 {
        return plan.units(target);
    }
    // (a plan that cannot be cut so is refused by the fingerprint: no units match it)
    plan.pair_units(target).unwrap_or_default()
}

/// The cut a fresh count of `plan` takes: from both ends where every root is counted so and
/// the count is one of a millisecond or two ([`SMALL_UNIT_TARGET`]: 6x6 closed, 1.27 against
/// 1.45 ms of search on one thread). A long count keeps the cut from the start: 6x8 closed in
/// 4,096 units of the search from both ends took 1.39 times as long on one thread (27 s
/// against 21 s), its units' counts sharing fewer entries of the memo table.
#[must_use]
pub fn fresh_param(plan: &Plan, board: Board, closed: bool) -> usize {
    let target = unit_target(board, closed);
    if target == SMALL_UNIT_TARGET && plan.counts_pairs() {
        target | PAIR_CUT
    } else {
        target
    }
}

impl Dfs {
    /// The plan and its units as a run with the cut `param` cuts them.
    fn cut(req: Request<'_>, param: usize) -> (Plan, Vec<Unit>) {
        let plan = Plan::new(req.board, req.piece, req.spec);
        let units = cut_units(&plan, param);
        (plan, units)
    }
}

impl CountEngine for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn run(&self, req: Request<'_>, limits: &Limits, host: &dyn Host) -> Result<Ran, RunError> {
        let began = (Instant::now(), crate::engine::cpu_seconds());
        let plan = Plan::new(req.board, req.piece, req.spec);
        if !limits.force {
            // shards run side by side, so the whole run's estimate is shared among them
            let threads = limits.threads * limits.shards.max(1) as usize;
            let secs = check_reach_plan(&plan, req.board, threads)?;
            if secs > 60.0 {
                host.observer().info(&format!(
                    "this count may take about {} (a rough estimate)",
                    human_duration(secs)
                ));
            }
        }
        // a resumed count takes the cut its log records (an earlier version's cut included),
        // where the log's param is one of the DFS's
        let param = host
            .recorded()
            .map(|r| r.param)
            .filter(|&p| (1..=UNIT_TARGET).contains(&(p & !PAIR_CUT)))
            .unwrap_or_else(|| fresh_param(&plan, req.board, req.spec.closed));
        let units = cut_units(&plan, param);
        let weights = units
            .iter()
            .map(|u| plan.roots[u.root as usize].multiplier)
            .collect();
        let split = Split {
            pieces: units.len(),
            param,
            fingerprint: fingerprint(Some(&plan), &units),
            weights,
        };
        let todo = host.start(&split)?;
        let error = Mutex::new(None);
        // each unit's seconds by unit, for the work–span record
        let seconds = Mutex::new(vec![None; units.len()]);
        let done = |u, c: u64, s: f64| {
            seconds.lock().expect("no worker panics holding the lock")[u] = Some(s);
            if let Err(e) = host.done(u, c.into()) {
                error
                    .lock()
                    .expect("no worker panics holding the lock")
                    .get_or_insert(e);
            }
        };
        // a count of a millisecond or two (those cut into few units) runs on this thread, other
        // threads called in only once it has run a while; the others on rayon's pool (6x6 open
        // and 5x6 open took 1.14 and 1.22 times as long on threads called in late)
        let (t0, c0) = (Instant::now(), crate::engine::cpu_seconds());
        let all = if unit_target(req.board, req.spec.closed) == SMALL_UNIT_TARGET {
            count_each_scoped(&plan, &units, &todo, host.stop(), limits.threads, done)
        } else {
            count_each(&plan, &units, &todo, host.stop(), done)
        };
        let counted = UnitTimes {
            wall: t0.elapsed().as_secs_f64(),
            cpu: crate::engine::cpu_since(c0),
            // in the order they were handed out: the pending ones in turn
            seconds: seconds
                .into_inner()
                .expect("the workers are done")
                .into_iter()
                .flatten()
                .collect(),
        };
        match error.into_inner().expect("the workers are done") {
            Some(e) => Err(e),
            None => Ok(Ran {
                // a record of the whole count only: a stopped one's figures are not its work
                work: all.then(|| {
                    Box::new(WorkSpan {
                        threads: limits.threads,
                        cores: crate::engine::cores(),
                        wall: began.0.elapsed().as_secs_f64(),
                        cpu: crate::engine::cpu_since(began.1),
                        phases: Default::default(),
                        units: Some(counted),
                    })
                }),
                ..Ran::default()
            }),
        }
    }

    fn total(
        &self,
        req: Request<'_>,
        cut: &Recorded,
        counts: &BTreeMap<usize, BigUint>,
        complete: bool,
    ) -> Result<Count, RunError> {
        let (plan, units) = Dfs::cut(req, cut.param);
        if fingerprint(Some(&plan), &units) != cut.fingerprint || units.len() != cut.pieces {
            return Err(Error::Invalid(format!(
                "the checkpoint's work units ({} of them, fingerprint {:016x}) differ from this program's; count or merge it with the version that wrote it",
                cut.pieces, cut.fingerprint
            ))
            .into());
        }
        let counts = u64_counts(counts, units.len());
        Ok(figures(
            req.board,
            &plan,
            &units,
            &counts,
            complete && req.spec.per_square,
            0.0,
        ))
    }
}
