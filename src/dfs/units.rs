//! Counting work units in parallel: counts chosen work units of a plan and reports each one as it
//! finishes, so a long count can be recorded, shown and stopped unit by unit.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::plan::{Plan, Unit};
use crate::search::{Problem, fresh_ids, with_memo};

/// Counts single work units of one plan; shared by every worker thread.
pub struct Counter<'p> {
    problems: Vec<Problem<'p>>,
}

impl<'p> Counter<'p> {
    /// The root problems of `plan`, under ids no other counter in the process uses (each thread's
    /// memo table outlives a count, so ids must not repeat).
    #[must_use]
    pub fn new(plan: &'p Plan) -> Counter<'p> {
        let base = fresh_ids(plan.roots.len() as u64);
        Counter {
            problems: (0..plan.roots.len())
                .map(|i| plan.problem(i, base))
                .collect(),
        }
    }

    /// Like [`Counter::new`], with every search giving up once `stop` is set.
    #[must_use]
    pub fn with_stop(plan: &'p Plan, stop: &'p AtomicBool) -> Counter<'p> {
        let mut c = Counter::new(plan);
        c.problems = c.problems.into_iter().map(|p| p.with_stop(stop)).collect();
        c
    }

    /// Counts `units[i]` and hands it to `done` with the seconds it took, unless `stop` is set
    /// before it starts or while it runs (then it is not reported: a unit that saw the flag may
    /// have given up part way, and is counted again on resume). Whether it was counted.
    fn count_unless_stopped(
        &self,
        units: &[Unit],
        i: usize,
        stop: &AtomicBool,
        done: &impl Fn(usize, u64, f64),
    ) -> bool {
        // Relaxed: the flag only asks workers to stop taking units and guards no other data;
        // the results reach the caller through `done` and rayon's join, which synchronise.
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let t0 = Instant::now();
        let c = self.count(&units[i]);
        let secs = t0.elapsed().as_secs_f64();
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        done(i, c, secs);
        true
    }

    /// The number of paths below `unit` with the root's weights (not its multiplier), with
    /// this thread's memo table.
    #[must_use]
    pub fn count(&self, unit: &Unit) -> u64 {
        let p = &self.problems[unit.root as usize];
        with_memo(|memo| {
            if unit.is_pair() {
                u64::from(unit.weight) * p.count_between(unit.free, unit.cur, unit.end, memo)
            } else {
                p.count(unit.free, unit.cur, memo)
            }
        })
    }
}

/// Counts the units `units[i]` for every `i` in `pending`, in parallel on the current rayon pool,
/// calling `done(i, count, seconds)` as each one finishes (from the worker thread, in no fixed
/// order; `seconds` the unit's time on its thread, for the count's work–span record).
///
/// Once `stop` is set no new unit starts and the units already running give up; only units that
/// finished before the flag was seen are reported (the others are counted again on resume).
/// Returns `true` when every pending unit was counted.
pub fn count_each<F>(
    plan: &Plan,
    units: &[Unit],
    pending: &[usize],
    stop: &AtomicBool,
    done: F,
) -> bool
where
    F: Fn(usize, u64, f64) + Sync,
{
    let counter = Counter::with_stop(plan, stop);
    pending
        .par_iter()
        .with_max_len(1)
        .map(|&i| counter.count_unless_stopped(units, i, stop, &done))
        .filter(|&counted| !counted)
        .count()
        == 0
}

/// How long [`count_each_scoped`] counts on the calling thread alone before it calls in the
/// other threads: starting and waking a thread took 0.1 to 0.5 ms on this project's virtual
/// machines, more than a count of a millisecond or two gains from a second core (6x6 closed:
/// 1.3 ms of search on one thread, 0.8 to 1.9 ms on two).
pub const ALONE: Duration = Duration::from_millis(2);

/// [`count_each`] on threads of its own, taking the pending units in order: the calling thread
/// alone until a unit ends past [`ALONE`], then `threads` threads (it one of them) until every
/// unit is counted. For a count of a millisecond or two, where waking rayon's pool (its
/// registry and its threads, the calling thread waiting idle) costs as much as the count; a
/// long count loses at most its first long unit's time to one thread.
pub fn count_each_scoped<F>(
    plan: &Plan,
    units: &[Unit],
    pending: &[usize],
    stop: &AtomicBool,
    threads: usize,
    done: F,
) -> bool
where
    F: Fn(usize, u64, f64) + Sync,
{
    let counter = Counter::with_stop(plan, stop);
    let next = AtomicUsize::new(0);
    let missed = AtomicBool::new(false);
    // Relaxed: the index only hands out units; the counts reach the caller through `done` and
    // the scope's join
    let take = || pending.get(next.fetch_add(1, Ordering::Relaxed)).copied();
    let count = |i| {
        if !counter.count_unless_stopped(units, i, stop, &done) {
            missed.store(true, Ordering::Relaxed);
        }
    };
    let t0 = Instant::now();
    std::thread::scope(|s| {
        let mut alone = threads > 1;
        while let Some(i) = take() {
            count(i);
            // (a thread that cannot start leaves its share to the others: the count is the same)
            if alone && t0.elapsed() >= ALONE && next.load(Ordering::Relaxed) < pending.len() {
                alone = false;
                for _ in 1..threads {
                    let helper = std::thread::Builder::new().spawn_scoped(s, || {
                        while let Some(i) = take() {
                            count(i);
                        }
                    });
                    if helper.is_err() {
                        break;
                    }
                }
            }
        }
    });
    !missed.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::board::Board;
    use crate::dfs::count_units;
    use crate::engine::CountSpec;
    use crate::piece::Piece;

    #[test]
    fn each_unit_matches_count_units() {
        let board: Board = "5x6".parse().unwrap();
        let plan = Plan::new(
            board,
            &Piece::knight(),
            &CountSpec {
                symmetry: true,
                ..CountSpec::default()
            },
        );
        let units = plan.units(256);
        let all = count_units(&plan, &units);
        let pending: Vec<usize> = (0..units.len()).filter(|i| i % 3 != 1).collect();
        let got = Mutex::new(vec![None; units.len()]);
        let stop = AtomicBool::new(false);
        assert!(count_each(&plan, &units, &pending, &stop, |i, c, s| {
            assert!(s >= 0.0);
            got.lock().unwrap()[i] = Some(c);
        }));
        let got = got.into_inner().unwrap();
        for i in 0..units.len() {
            assert_eq!(got[i], pending.contains(&i).then_some(all[i]), "unit {i}");
        }
    }

    /// Each pending unit reported once with its count, whether the count stays on the calling
    /// thread (6x6 closed, about a millisecond optimised) or calls in helpers after [`ALONE`]
    /// (5x6 open, tens of milliseconds).
    #[test]
    fn scoped_counting_reports_each_pending_unit_once() {
        for (board, closed) in [("5x6", false), ("6x6", true)] {
            let board: Board = board.parse().unwrap();
            let spec = CountSpec {
                closed,
                symmetry: true,
                ..CountSpec::default()
            };
            let plan = Plan::new(board, &Piece::knight(), &spec);
            let units = crate::dfs::cut_units(&plan, crate::dfs::fresh_param(&plan, board, closed));
            let all = count_units(&plan, &units);
            let pending: Vec<usize> = (0..units.len()).filter(|i| i % 4 != 2).collect();
            for threads in [1, 3] {
                let got = Mutex::new(vec![None; units.len()]);
                let stop = AtomicBool::new(false);
                assert!(count_each_scoped(
                    &plan,
                    &units,
                    &pending,
                    &stop,
                    threads,
                    |i, c, _| {
                        let mut g = got.lock().unwrap();
                        assert!(g[i].is_none(), "unit {i} reported twice");
                        g[i] = Some(c);
                    }
                ));
                let got = got.into_inner().unwrap();
                for i in 0..units.len() {
                    assert_eq!(
                        got[i],
                        pending.contains(&i).then_some(all[i]),
                        "{board} unit {i}"
                    );
                }
            }
            let stop = AtomicBool::new(true);
            assert!(!count_each_scoped(
                &plan,
                &units,
                &pending,
                &stop,
                2,
                |_, _, _| panic!("no unit may start")
            ));
        }
    }

    #[test]
    fn a_set_stop_flag_counts_nothing() {
        let board: Board = "5x6".parse().unwrap();
        let plan = Plan::new(board, &Piece::knight(), &CountSpec::default());
        let units = plan.units(64);
        let pending: Vec<usize> = (0..units.len()).collect();
        let stop = AtomicBool::new(true);
        assert!(!count_each(
            &plan,
            &units,
            &pending,
            &stop,
            |_, _, _| panic!("no unit may start")
        ));
    }
}
