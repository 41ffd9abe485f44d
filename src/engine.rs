//! The interface between the count driver and the engines that count: what is asked, what a
//! running engine tells, and the numbered pieces every count is cut into.
//!
//! Every engine cuts its count into *pieces* whose counts add up to the total: the DFS's work
//! units (subtrees of its search), the frontier engine's pieces (sets of the ways a tour can
//! cross the middle of the board), the naive engine's single piece. The driver
//! ([`crate::count::driver`]) decides which pieces a process counts (its shard), records each
//! finished piece in the checkpoint log, shows progress, and puts the pieces' counts together,
//! also from many machines (`knights merge`). An engine only counts the pieces it is handed and
//! reports each one as it is done; what it keeps of a piece in progress is its own affair.
//!
//! The engines sit below the driver and import nothing from it: a count runs down from the
//! driver into an engine and comes back up through the [`Host`] the driver lends it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use num_bigint::BigUint;
use thiserror::Error;

use crate::board::{Board, Square};
use crate::durable::CheckpointError;
use crate::error::Error;
use crate::piece::Piece;
use crate::theory;

/// What a count asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CountSpec {
    pub closed: bool,
    pub from: Option<Square>,
    pub to: Option<Square>,
    /// Count only one start square per symmetry orbit and weight by orbit size.
    pub symmetry: bool,
    /// Keep the counts of every start square (open tours only).
    pub per_square: bool,
    /// Walk the board along its short side, with a window as wide as the long side (the
    /// frontier engine only): far larger tables, the same count. A second way to every count,
    /// for tests and comparisons: it reaches the 8-wide engine from boards of 8 by 5 to 7.
    pub wide: bool,
    /// The order the frontier engine takes the squares of each column in (the frontier engine
    /// only; the others ignore it): the same count either way.
    pub order: Order,
}

/// The order the frontier engine's walk takes the squares of a column in.
///
/// A knight's square needs its edges from the two columns after its own, so while a column is
/// walked the window holds the column before it too. Walked from one side to the other, the
/// column before keeps squares that wait for edges from the far side of the new column; in a
/// tuned order they are served first and leave the window sooner, and the layers in the middle
/// of a column hold a half to a third as many states (6x9 open: 71 million read against 124
/// million; `results/order.md`). The count is the same either way, and so are the rules; only
/// the states differ, and with them every table a count keeps (a checkpoint, a ledger, a
/// split file is read by the order it was made in: see `count::driver::order_of_files`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Each column from its first square to its last: the walk of every count before the tuned
    /// orders, and the one their files are read by.
    Straight,
    /// The order measured to hold the fewest states, one for each width of the knight's board
    /// from 3 to 8 (`walk::order`); straight for other pieces and widths.
    #[default]
    Tuned,
}

impl Order {
    /// Its name in a checkpoint's header and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Order::Straight => "straight",
            Order::Tuned => "tuned",
        }
    }

    /// The order of a name (see [`Order::name`]).
    #[must_use]
    pub fn from_name(s: &str) -> Option<Order> {
        [Order::Straight, Order::Tuned]
            .into_iter()
            .find(|o| o.name() == s)
    }
}

/// A count request as an engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub board: Board,
    pub piece: &'a Piece,
    pub spec: &'a CountSpec,
}

/// The bounds a run works within.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Worker threads of the pool the engine runs on.
    pub threads: usize,
    /// The most memory the engine's tables may take, in bytes.
    pub max_memory: u64,
    /// Start even when the engine's estimate says the count is out of reach.
    pub force: bool,
    /// How many shards the run is split into (an engine cuts at least this many pieces where it
    /// can, so that every shard has work).
    pub shards: u32,
    /// Where the driver keeps the checkpoint log: an engine that saves work in progress keeps
    /// its own files beside it (`FILE.` plus a suffix of its own).
    pub checkpoint: Option<PathBuf>,
    /// Where the work all of a run's pieces share is kept, for every shard of the run to read
    /// (the frontier engine's split); `None`: beside the checkpoint, for this process alone.
    pub split: Option<PathBuf>,
    /// Where the frontier engine puts the tables that pass the memory bound (`--scratch`);
    /// `None`: beside the checkpoint, else in the system's temporary folder.
    pub scratch: Option<PathBuf>,
    /// How the frontier engine's digit tree is sized, where the caller sets it (tests and
    /// measurements); the engine sizes it itself otherwise.
    pub tree: TreeSize,
    /// Set (by a second stop signal) to give up the save of the work in progress that a run
    /// makes as it stops: the last save stays, and the run ends at once.
    pub abandon: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// The sizes of the frontier engine's digit tree (see `frontier::meet`), each chosen by the
/// engine where it is `None`: from the shared tables and the shards for the pieces, from the
/// memory bound for the leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeSize {
    /// The depth of the pieces: `3^depth` of them (at most the short side).
    pub depth: Option<u32>,
    /// The most states of a node walked to its end as one leaf (at least 1).
    pub leaf_states: Option<u64>,
    /// The most states a column of the forward walk starts from and is still walked whole,
    /// not cut as a digit tree (by default `walk::sizes::COLUMN_TREE_STATES`): the tests set it
    /// small to cut a small board's columns, and stop and resume inside one.
    pub column_states: Option<u64>,
    /// The bytes the tables may hold in memory before they go to disk (by default half the
    /// memory bound, see `walk::sizes::table_bytes`): the tests set it small to send every
    /// layer through disk.
    pub tables: Option<u64>,
}

/// The CPU seconds (user and system) of the process so far.
#[must_use]
pub fn cpu_seconds() -> Option<f64> {
    // SAFETY: getrusage fills the struct it is given and has no other effect
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &raw mut u) } != 0 {
        return None;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(secs(u.ru_utime) + secs(u.ru_stime))
}

/// The process's CPU seconds since `c0`, an earlier [`cpu_seconds`] (0 where either could not
/// be read).
#[must_use]
pub fn cpu_since(c0: Option<f64>) -> f64 {
    match (c0, cpu_seconds()) {
        (Some(a), Some(b)) => (b - a).max(0.0),
        _ => 0.0,
    }
}

/// The processors this process may use (1 where that cannot be read), read once: the standard
/// library reads the cgroup's quota files on every call, about a tenth of a millisecond here,
/// and a count asked it three times before it started.
#[must_use]
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// How an engine cut a count: told to the driver once, before any piece is counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The number of pieces.
    pub pieces: usize,
    /// What the cut depends on besides the request (the DFS's unit target, with a flag for
    /// units of the search from both ends; the frontier engine's split layer or grid): written
    /// in the checkpoint log.
    pub param: usize,
    /// A fingerprint of the cut: two runs with equal fingerprints have the same pieces.
    pub fingerprint: u64,
    /// How many tours of the report's headline figure a unit of piece `i`'s count stands for
    /// (empty: one each), for progress.
    pub weights: Vec<u64>,
}

impl Split {
    /// The headline tours a count of piece `i` stands for.
    #[must_use]
    pub fn shown(&self, i: usize, count: &BigUint) -> BigUint {
        count * self.weights.get(i).copied().unwrap_or(1)
    }
}

/// What an earlier run recorded in the checkpoint log this run resumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub pieces: usize,
    pub param: usize,
    pub fingerprint: u64,
}

/// The driver's side of a run: an engine tells it how the count is cut, learns which pieces to
/// count, and reports each one counted. Every method may be called from worker threads.
pub trait Host: Sync {
    /// The cut: returns the pieces this process counts and has not counted yet, in order.
    fn start(&self, split: &Split) -> Result<Vec<usize>, RunError>;
    /// Piece `i` is counted: `count` tours (in the engine's own unit; see [`CountEngine::total`]).
    fn done(&self, i: usize, count: BigUint) -> Result<(), RunError>;
    /// The cut an earlier run recorded in the checkpoint, if this run resumes one.
    fn recorded(&self) -> Option<Recorded>;
    /// Set when the count should stop (Ctrl-C, SIGTERM, a failed write): the engine returns
    /// within moments, reporting only pieces it finished.
    fn stop(&self) -> &AtomicBool;
    /// Where progress and messages go.
    fn observer(&self) -> &dyn Observer;
    /// Piece `i` did not fit the memory bound and is left uncounted; the engine goes on with
    /// the next (the time spent on it is no later piece's).
    fn left(&self, _i: usize) {}
    /// Piece `i` goes on from `leaves` parts counted by an earlier run (the digit tree's
    /// leaves): the time and memory this run measures for it are its rest's only.
    fn resumed(&self, _i: usize, _leaves: usize) {}
    /// Piece `i`, about to be reported done, made these nodes of a digit tree above it: the
    /// work it shares with the pieces under the same nodes, which a projection of the pieces
    /// left takes apart from theirs (see [`crate::frontier::project_left`]).
    fn above(&self, _i: usize, _made: &[Made]) {}
    /// The pieces of this count an earlier run recorded with their times (a resumed
    /// checkpoint's), so that the pieces left are projected from the start of the run that
    /// goes on, not after its first piece.
    fn earlier(&self) -> Vec<Timed> {
        Vec::new()
    }
    /// What this run will count, where the driver knows it before the engine cuts the count
    /// (the records of an earlier run's cut, `--only`): for the engine's first projection,
    /// which then projects those pieces and the walk they share, not the whole count.
    fn expected(&self) -> Option<Expected> {
        None
    }
    /// The work the pieces share is done (read back or made) and the pieces begin: the first
    /// piece's time counts from here, not from [`Host::start`] (a resumed run reads its
    /// shared tables after it learns its pieces).
    fn pieces_begin(&self) {}
}

/// What a run will count of its cut, known before the engine cuts it (see [`Host::expected`]):
/// `pieces` of the cut's `of` (`None` where no record gives the cut yet: the pieces `--only`
/// names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub pieces: usize,
    pub of: Option<usize>,
}

/// A node of a digit tree that a piece made on its way from the roots (see [`Host::above`]): its
/// depth (1: the roots' children) and the wall and CPU seconds it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Made {
    pub depth: usize,
    pub wall: f64,
    pub cpu: f64,
}

/// A piece an earlier run of the same count recorded with its wall seconds and the nodes above
/// it that it made (see [`Host::earlier`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    pub piece: usize,
    pub wall: f64,
    /// `None` where the record does not say (written before records said them).
    pub above: Option<Vec<Made>>,
}

/// What a run found besides its pieces' counts.
#[derive(Clone, Debug, Default)]
pub struct Ran {
    /// How the count was made, when the run knows more than [`CountEngine::total`] can say.
    pub how: Option<String>,
    /// The frontier engine's largest layer.
    pub peak: Option<Peak>,
    /// Where the count's time went in this process (see [`WorkSpan`]; the frontier's and the DFS's).
    pub work: Option<Box<WorkSpan>>,
}

/// The kinds of parallel work a frontier count records the time of (see [`WorkSpan`]): its
/// steps (a layer's states expanded into the next layer's tables, to disk past the bound), the
/// right side's index for a join, the joins, and the tables of a meeting's forward walk saved,
/// read back (`--split`, a stopped count's) and made into the digit tree's roots.
pub const PHASES: [&str; 4] = ["step", "index", "join", "tables"];

/// The wall and CPU time of one kind of parallel work, summed over its calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTime {
    pub wall: f64,
    pub cpu: f64,
    pub calls: u64,
}

/// Where a count's time went in this process, recorded as it ran: the wall and CPU seconds of
/// the whole run and of each kind of the frontier's parallel work ([`PHASES`]), or of each of
/// the DFS's work units ([`UnitTimes`]), on `threads` threads and `cores` processors. What ran
/// outside them (the digit tree's bookkeeping, saves, reading back, the barriers between
/// layers; the DFS's plan and cut) is taken as serial.
///
/// The model, for the frontier: a phase's CPU seconds are its work `W`; run on
/// `c = min(threads, cores)` cores in wall time `w`, the part of it that kept one core alone is
/// `S = (c w - W) / (c - 1)` (between 0 and `w`), the rest was spread over all `c`. At `p`
/// threads the count then takes the time outside the phases plus, for each phase,
/// `S + (W - S) / p`: Amdahl's law phase by phase, from one run. For the DFS: the time outside
/// its units plus the time `p` threads take to count the units as measured, each handed in turn
/// to the thread free first (at least the work over `p`, at least the largest unit: a count
/// whose largest unit is a tenth of its work cannot pass 10 times). Memory bandwidth is not in
/// it: the frontier's step runs about 20 times above this machine's bandwidth on one thread
/// (`results/rows.md`), so the model stops holding once about 20 threads share one memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkSpan {
    pub threads: usize,
    pub cores: usize,
    pub wall: f64,
    pub cpu: f64,
    pub phases: [PhaseTime; PHASES.len()],
    /// The DFS's units (`None` for the frontier).
    pub units: Option<UnitTimes>,
}

/// The DFS's work units as they were counted: the wall and CPU time of the whole parallel
/// part, and each unit's seconds on its thread, in the order the units were handed out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitTimes {
    pub wall: f64,
    pub cpu: f64,
    pub seconds: Vec<f64>,
}

impl UnitTimes {
    /// The units' seconds in all: the work.
    #[must_use]
    pub fn work(&self) -> f64 {
        self.seconds.iter().sum()
    }

    /// The largest unit's seconds: the span no number of threads goes below.
    #[must_use]
    pub fn largest(&self) -> f64 {
        self.seconds.iter().copied().fold(0.0, f64::max)
    }

    /// The seconds `threads` threads take to count the units, each handed in turn to the
    /// thread that is free first (list scheduling, as the DFS's workers take them).
    #[must_use]
    pub fn schedule(&self, threads: usize) -> f64 {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let p = threads.clamp(1, self.seconds.len().max(1));
        // the threads' finishing times in nanoseconds (an integer, so that the heap orders them)
        let mut free: BinaryHeap<Reverse<u64>> = (0..p).map(|_| Reverse(0)).collect();
        let mut end = 0;
        for &s in &self.seconds {
            let Reverse(t) = free.pop().expect("at least one thread");
            let t = t + (s.max(0.0) * 1e9).round() as u64;
            end = end.max(t);
            free.push(Reverse(t));
        }
        end as f64 / 1e9
    }
}

impl WorkSpan {
    /// The cores the run had: its threads, at most the machine's processors.
    fn used(&self) -> usize {
        self.threads.min(self.cores).max(1)
    }

    /// The part of phase `i` that kept one core alone (all of it where the run had one core:
    /// one run on one core cannot tell its parallel part).
    #[must_use]
    pub fn serial(&self, i: usize) -> f64 {
        let (w, work) = (self.phases[i].wall, self.phases[i].cpu);
        let c = self.used() as f64;
        if c <= 1.0 {
            return w;
        }
        ((c * w - work) / (c - 1.0)).clamp(0.0, w)
    }

    /// The wall time outside every phase, taken as serial.
    #[must_use]
    pub fn outside(&self) -> f64 {
        let inside: f64 = self.phases.iter().map(|p| p.wall).sum::<f64>()
            + self.units.as_ref().map_or(0.0, |u| u.wall);
        (self.wall - inside).max(0.0)
    }

    /// The seconds the model projects at `threads` threads (see [`WorkSpan`]); `None` where
    /// a frontier run had one core, which cannot tell a phase's parallel part from its serial
    /// one (the DFS's units tell their own times on any number of cores).
    #[must_use]
    pub fn projected(&self, threads: usize) -> Option<f64> {
        if let Some(u) = &self.units {
            return Some(self.outside() + u.schedule(threads));
        }
        if self.used() < 2 {
            return None;
        }
        let p = threads.max(1) as f64;
        let phases: f64 = (0..PHASES.len())
            .map(|i| {
                let s = self.serial(i);
                let work = self.phases[i].cpu.max(s);
                s + (work - s) / p
            })
            .sum();
        Some(self.outside() + phases)
    }
}

/// A counting engine.
pub trait CountEngine: Sync {
    /// The name printed in reports and written in checkpoints.
    fn name(&self) -> &'static str;

    /// Counts `req`: tells `host` the cut, then counts the pieces it hands back, reporting each.
    /// Returns once they are all counted or the stop flag is set.
    fn run(&self, req: Request<'_>, limits: &Limits, host: &dyn Host) -> Result<Ran, RunError>;

    /// The figures of the pieces counted (`counts`, by piece, of the `pieces` of the cut that
    /// `param` made); a piece not in `counts` counts 0. `complete` says every piece is there
    /// (tables by start square are given only then).
    fn total(
        &self,
        req: Request<'_>,
        cut: &Recorded,
        counts: &BTreeMap<usize, BigUint>,
        complete: bool,
    ) -> Result<Count, RunError>;
}

/// Recorded counts by piece as 64-bit words, 0 for a piece not recorded, for an engine whose
/// pieces count in 64 bits (the DFS's units, the naive engine's start squares); a recorded count
/// past 64 bits, which such an engine never writes, saturates.
#[must_use]
pub fn u64_counts(counts: &BTreeMap<usize, BigUint>, pieces: usize) -> Vec<u64> {
    (0..pieces)
        .map(|i| {
            counts
                .get(&i)
                .map_or(0, |c| u64::try_from(c).unwrap_or(u64::MAX))
        })
        .collect()
}

/// The answer to a count.
#[derive(Clone, Debug, PartialEq)]
pub struct Count {
    /// Directed tours (open: every start and both directions; closed: twice the cycles).
    pub directed: BigUint,
    /// Undirected tours (open: directed / 2; closed: cycles).
    pub undirected: BigUint,
    /// How the total was assembled.
    pub how: String,
    /// The theorem that settles the count at zero, if one does.
    pub reason: Option<theory::Obstruction>,
    /// Directed open tours by start square (row-major), when asked for.
    pub per_square: Option<Vec<u64>>,
    pub seconds: f64,
    /// What the frontier engine needed at its largest layer (`None` for the other engines).
    pub peak: Option<Peak>,
    /// Where the count's time went in this process (the frontier's and the DFS's whole runs; `None`
    /// for the other engines and for a count of no work).
    pub work: Option<Box<WorkSpan>>,
}

impl Count {
    /// The zero count a theorem settles.
    #[must_use]
    pub fn settled(
        board: Board,
        spec: &CountSpec,
        reason: theory::Obstruction,
        seconds: f64,
    ) -> Count {
        Count {
            directed: BigUint::ZERO,
            undirected: BigUint::ZERO,
            how: "settled by a theorem".into(),
            per_square: spec.per_square.then(|| vec![0; board.squares() as usize]),
            reason: Some(reason),
            seconds,
            peak: None,
            work: None,
        }
    }
}

/// The frontier engine's largest layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Peak {
    /// Squares in the frontier window.
    pub window: u32,
    /// States in the largest layer.
    pub states: u64,
    /// Bytes the state tables held at most.
    pub bytes: u64,
    /// Bytes of tables written to disk, where they passed the memory bound, and the most held
    /// there at once (both 0 where everything fitted).
    pub disk_written: u64,
    pub disk_peak: u64,
}

/// Progress of a count made of layers (the frontier engine): one layer done.
#[derive(Clone, Debug)]
pub struct LayerProgress {
    /// Layers done in the current stage, counting those resumed from a checkpoint.
    pub done: usize,
    /// Layers of the current stage.
    pub total: usize,
    /// States in the layer just made.
    pub states: u64,
    /// Bytes the state tables hold now.
    pub bytes: u64,
    /// What the engine is doing (`forward`, `crossing`, `join`, ...).
    pub phase: &'static str,
    /// The piece being counted, as `(number, pieces)`; `None` for the work all pieces share.
    pub piece: Option<(usize, usize)>,
}

/// What a running count tells its caller; every method may be called from worker threads.
pub trait Observer: Sync {
    /// Something the user should see whatever the display (a damaged checkpoint line dropped).
    fn warn(&self, _message: &str) {}
    /// Something worth saying when a person watches (how long the count may take).
    fn info(&self, _message: &str) {}
    /// The pieces are known: `total` pieces for this process, `done` of them already counted,
    /// `tours` found in those.
    fn units(&self, _total: u64, _done: u64, _tours: &BigUint) {}
    /// One piece counted, holding `tours` tours (weighted as the report shows them).
    fn unit_done(&self, _tours: &BigUint) {}
    /// A layered count made a layer (or starts a stage, with `done` resumed).
    fn layer(&self, _progress: &LayerProgress) {}
    /// The engine's projection of the time this process has left, in seconds from now, where
    /// it knows better than the pieces' mean rate (pieces that differ by their class); `None`
    /// where it has none yet and the mean rate would mislead (the pieces of each class drawn
    /// first: the lightest come first, the heaviest last).
    fn rest(&self, _seconds: Option<f64>) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

/// Errors of a count: bad requests, checkpoint trouble, a pool that cannot start.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A file the count keeps while it runs (its tables past the memory bound) failed: the
    /// machine's disk, not the request.
    #[error(transparent)]
    Disk(#[from] crate::durable::DiskError),
    #[error("cannot start {threads} threads: {why}")]
    Threads { threads: usize, why: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(wall: f64, cpu: f64) -> PhaseTime {
        PhaseTime {
            wall,
            cpu,
            calls: 1,
        }
    }

    /// A run of 2 threads on 2 cores: 1 s outside the phases; a step that kept both cores busy
    /// (10 s wall, 20 s CPU), an index that kept one alone (4 s, 4 s), a join half and half
    /// (3 s wall: 2 s of one core alone, then 2 s of work on two).
    fn measured() -> WorkSpan {
        WorkSpan {
            threads: 2,
            cores: 2,
            wall: 18.0,
            cpu: 29.0,
            phases: [
                phase(10.0, 20.0),
                phase(4.0, 4.0),
                phase(3.0, 4.0),
                phase(0.0, 0.0),
            ],
            units: None,
        }
    }

    #[test]
    fn a_phase_splits_into_its_serial_part_and_the_work_spread_over_the_cores() {
        let w = measured();
        assert!((w.outside() - 1.0).abs() < 1e-9);
        assert!(w.serial(0).abs() < 1e-9);
        assert!((w.serial(1) - 4.0).abs() < 1e-9);
        assert!((w.serial(2) - 2.0).abs() < 1e-9);
        // the run itself, then one thread (all the work in turn), then Amdahl phase by phase
        assert!((w.projected(2).unwrap() - 18.0).abs() < 1e-9);
        assert!((w.projected(1).unwrap() - (1.0 + 20.0 + 4.0 + 4.0)).abs() < 1e-9);
        let at8 = 1.0 + 20.0 / 8.0 + 4.0 + (2.0 + 2.0 / 8.0);
        assert!((w.projected(8).unwrap() - at8).abs() < 1e-9);
        // never below the serial parts, however many threads
        assert!(w.projected(1 << 20).unwrap() >= 1.0 + 4.0 + 2.0);
    }

    #[test]
    fn a_run_on_one_core_projects_nothing() {
        // two threads on one core, or one thread anywhere: no phase tells its parallel part
        for (threads, cores) in [(2, 1), (1, 16)] {
            let w = WorkSpan {
                threads,
                cores,
                ..measured()
            };
            assert_eq!(w.projected(4), None);
            assert!((w.serial(0) - 10.0).abs() < 1e-9);
        }
    }

    #[test]
    fn measurements_outside_the_model_are_clamped() {
        // CPU time read coarsely: more than the cores could give (all parallel), or less than
        // the wall (all serial)
        let w = WorkSpan {
            phases: [
                phase(1.0, 2.5),
                phase(1.0, 0.5),
                phase(0.0, 0.0),
                phase(0.0, 0.0),
            ],
            ..measured()
        };
        assert!(w.serial(0).abs() < 1e-9);
        assert!((w.serial(1) - 1.0).abs() < 1e-9);
        assert!(w.projected(4).unwrap().is_finite());
    }

    /// A DFS count: 0.5 s outside its units; units of 4, 1, 1, 1 and 1 s counted in 5 s on two
    /// threads.
    fn units() -> WorkSpan {
        WorkSpan {
            threads: 2,
            cores: 2,
            wall: 5.5,
            cpu: 8.5,
            phases: [PhaseTime::default(); PHASES.len()],
            units: Some(UnitTimes {
                wall: 5.0,
                cpu: 8.0,
                seconds: vec![4.0, 1.0, 1.0, 1.0, 1.0],
            }),
        }
    }

    #[test]
    fn the_units_are_handed_to_the_thread_free_first() {
        let w = units();
        let u = w.units.as_ref().unwrap();
        assert!((u.work() - 8.0).abs() < 1e-9);
        assert!((u.largest() - 4.0).abs() < 1e-9);
        // one thread: all in turn; two: the first takes 4 s while the other takes the four
        // of 1 s; more: the largest unit bounds it
        assert!((u.schedule(1) - 8.0).abs() < 1e-9);
        assert!((u.schedule(2) - 4.0).abs() < 1e-9);
        assert!((u.schedule(64) - 4.0).abs() < 1e-9);
        assert!((w.outside() - 0.5).abs() < 1e-9);
        assert!((w.projected(1).unwrap() - 8.5).abs() < 1e-9);
        assert!((w.projected(16).unwrap() - 4.5).abs() < 1e-9);
        // in order, not sorted: the largest last is the worst case of list scheduling
        let late = UnitTimes {
            seconds: vec![1.0, 1.0, 1.0, 1.0, 4.0],
            ..u.clone()
        };
        assert!((late.schedule(2) - 6.0).abs() < 1e-9);
        // one thread's record projects too: each unit tells its own time
        let one = WorkSpan {
            threads: 1,
            ..units()
        };
        assert!((one.projected(2).unwrap() - 4.5).abs() < 1e-9);
    }
}
