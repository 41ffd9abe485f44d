//! Counting work units in parallel: counts chosen work units of a plan and reports each one as it
//! finishes, so a long count can be recorded, shown and stopped unit by unit.

use std::sync::atomic::{AtomicBool, Ordering};

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

    /// Counts `units[i]` and hands it to `done`, unless `stop` is set before it starts or
    /// while it runs (then it is not reported: a unit that saw the flag may have given up part
    /// way, and is counted again on resume). Whether it was counted.
    fn count_unless_stopped(
        &self,
        units: &[Unit],
        i: usize,
        stop: &AtomicBool,
        done: &impl Fn(usize, u64),
    ) -> bool {
        // Relaxed: the flag only asks workers to stop taking units and guards no other data;
        // the results reach the caller through `done` and rayon's join, which synchronise.
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let c = self.count(&units[i]);
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        done(i, c);
        true
    }

    /// The unweighted number of paths below `unit`, with this thread's memo table.
    #[must_use]
    pub fn count(&self, unit: &Unit) -> u64 {
        with_memo(|memo| self.problems[unit.root as usize].count(unit.free, unit.cur, memo))
    }
}

/// Counts the units `units[i]` for every `i` in `pending`, in parallel on the current rayon pool,
/// calling `done(i, count)` as each one finishes (from the worker thread, in no fixed order).
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
    F: Fn(usize, u64) + Sync,
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

/// [`count_each`] on the calling thread alone, in unit order (a small count: no pool is started).
pub fn count_each_here<F>(
    plan: &Plan,
    units: &[Unit],
    pending: &[usize],
    stop: &AtomicBool,
    done: F,
) -> bool
where
    F: Fn(usize, u64),
{
    let counter = Counter::with_stop(plan, stop);
    pending
        .iter()
        .all(|&i| counter.count_unless_stopped(units, i, stop, &done))
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
        assert!(count_each(&plan, &units, &pending, &stop, |i, c| got
            .lock()
            .unwrap()[i] =
            Some(c)));
        let got = got.into_inner().unwrap();
        for i in 0..units.len() {
            assert_eq!(got[i], pending.contains(&i).then_some(all[i]), "unit {i}");
        }
    }

    #[test]
    fn a_set_stop_flag_counts_nothing() {
        let board: Board = "5x6".parse().unwrap();
        let plan = Plan::new(board, &Piece::knight(), &CountSpec::default());
        let units = plan.units(64);
        let pending: Vec<usize> = (0..units.len()).collect();
        let stop = AtomicBool::new(true);
        assert!(!count_each(&plan, &units, &pending, &stop, |_, _| panic!(
            "no unit may start"
        )));
    }
}
