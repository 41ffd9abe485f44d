//! The driver of a count, for every engine: checks the request, picks the engine, settles what a
//! theorem settles, and runs the engine under a stop flag. `knights count` and `knights merge`
//! only parse, call this and print.
//!
//! Every engine cuts its count into numbered pieces (see [`crate::engine`]); the driver owns what
//! is the same for all of them: which pieces this process counts (`--shard K/N`: the pieces whose
//! number is K modulo N), the checkpoint log of finished pieces (see [`super::checkpoint`]; a
//! finished piece is never counted again), the lock on the checkpoint, progress, and the total
//! put together from the pieces, here or from many machines' checkpoints ([`merge`]).

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use num_bigint::BigUint;

use super::checkpoint::{self, Checkpoint, RunId, Shard};
use super::report::Report;
use super::{Count, Engine, obstruction};
use crate::board::Board;
use crate::dfs::{Dfs, Plan};
use crate::durable::{CheckpointError, CheckpointLock};
use crate::engine::{
    CountEngine, CountSpec, Host, Limits, Made, Order, Recorded, Request, Split, Timed, TreeSize,
};
use crate::error::Error;
use crate::frontier::{self, Frontier};
use crate::human::{group_u64, plural};
use crate::naive::{NAIVE_MAX_SQUARES, Naive};
use crate::piece::Piece;

pub(crate) use super::shards::merge_read;
pub use super::shards::{Merged, merge};

pub use crate::engine::{LayerProgress, Observer, Quiet, RunError};
pub use crate::memory::default_max_memory;

/// What to count and how.
#[derive(Clone, Debug)]
pub struct Job {
    pub board: Board,
    pub piece: Piece,
    pub spec: CountSpec,
    pub engine: Engine,
    /// Worker threads; `None` for every core (rayon's global pool).
    pub threads: Option<NonZeroUsize>,
    /// Where finished pieces are recorded and resumed from.
    pub checkpoint: Option<PathBuf>,
    /// A folder of finished pieces kept apart (see [`super::ledger`]): the pieces it holds are
    /// not counted again, and each piece this run finishes is written there too.
    pub ledger: Option<PathBuf>,
    /// Only these pieces of the cut (numbered from 0, as the records name them): to count one
    /// piece again, say, and compare it with its record.
    pub only: Option<Vec<usize>>,
    /// Only this shard of the pieces.
    pub shard: Option<Shard>,
    /// Start even when the engine's estimate says the count is out of reach.
    pub force: bool,
    /// The most memory the frontier engine's tables may take, in bytes.
    pub max_memory: u64,
    /// Where the frontier engine keeps the work a run's pieces share, for all its shards.
    pub split: Option<PathBuf>,
    /// Where the frontier engine puts tables that pass the memory bound (`--scratch`);
    /// `None`: beside the checkpoint, else the system's temporary folder.
    pub scratch: Option<PathBuf>,
    /// How the frontier engine's digit tree is sized (every size the engine's own by
    /// default; tests and measurements set them).
    pub tree: TreeSize,
    /// Set to give up the save a stopping run makes of its work in progress (a second stop
    /// signal): see [`Limits::abandon`].
    pub abandon: Option<std::sync::Arc<AtomicBool>>,
}

impl Job {
    /// A job with the defaults: every core, no checkpoint, no shard, [`default_max_memory`].
    #[must_use]
    pub fn new(board: Board, piece: Piece, spec: CountSpec, engine: Engine) -> Job {
        Job {
            board,
            piece,
            spec,
            engine,
            threads: None,
            checkpoint: None,
            ledger: None,
            only: None,
            shard: None,
            force: false,
            max_memory: default_max_memory(),
            split: None,
            scratch: None,
            tree: TreeSize::default(),
            abandon: None,
        }
    }

    /// The threads the job runs on.
    #[must_use]
    pub fn thread_count(&self) -> usize {
        self.threads.map_or_else(default_threads, NonZeroUsize::get)
    }

    /// The request as an engine sees it.
    #[must_use]
    pub fn request(&self) -> Request<'_> {
        Request {
            board: self.board,
            piece: &self.piece,
            spec: &self.spec,
        }
    }

    /// Where the frontier engine's tables that pass the memory bound go: `--scratch`, else the
    /// checkpoint's folder, else the system's temporary folder.
    #[must_use]
    pub fn scratch_dir(&self) -> PathBuf {
        frontier::scratch_dir(&self.limits())
    }

    fn limits(&self) -> Limits {
        Limits {
            threads: self.thread_count(),
            max_memory: self.max_memory,
            force: self.force,
            shards: self.shard.map_or(1, |s| s.count),
            checkpoint: self.checkpoint.clone(),
            split: self.split.clone(),
            scratch: self.scratch.clone(),
            tree: self.tree,
            abandon: self.abandon.clone(),
        }
    }
}

/// What a count found, and how much of its work is done.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The figures: the total, or the part counted so far.
    pub count: Count,
    /// The engine that ran (never [`Engine::Auto`]).
    pub engine: Engine,
    pub threads: usize,
    /// Pieces of the whole run (0 when a theorem settles it).
    pub units: usize,
    /// Pieces of this process's share that are counted.
    pub units_done: usize,
    /// Pieces of this process's share.
    pub units_mine: usize,
    pub shard: Shard,
    /// Whether this process counted all of its share (false: stopped by the flag).
    pub finished: bool,
    pub checkpoint: Option<PathBuf>,
}

impl Outcome {
    /// Whether the figures are the whole total.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.finished && self.shard.count == 1 && self.units_mine == self.units
    }

    /// What the engine's pieces are called in messages.
    #[must_use]
    pub fn piece_name(&self) -> &'static str {
        piece_name(self.engine)
    }

    /// The report of this outcome, saying which part of the run it is.
    #[must_use]
    pub fn report<'a>(&'a self, job: &'a Job) -> Report<'a> {
        let mut r = Report::new(
            job.board,
            &job.piece,
            &job.spec,
            self.engine.name(),
            self.threads,
        );
        let what = self.piece_name();
        if !self.finished {
            r.scope = format!(
                ", interrupted after {} of {} {what}s",
                group_u64(self.units_done as u64),
                group_u64(self.units_mine as u64)
            );
        }
        if self.shard.count == 1 && self.units_mine < self.units {
            r.scope += &format!(
                ", {} of {} {what}{} (--only)",
                group_u64(self.units_mine as u64),
                group_u64(self.units as u64),
                plural(self.units as u64)
            );
            r.notes
                .push("the pieces asked for only, not the total".to_string());
        }
        if self.shard.count > 1 {
            r.scope += &format!(
                ", shard {} ({} of {} {what}{})",
                self.shard,
                group_u64(self.units_mine as u64),
                group_u64(self.units as u64),
                plural(self.units as u64)
            );
            r.notes.push(format!(
                "shard {} only, not the total: put the shards' checkpoints together with `knights merge FILE...`",
                self.shard
            ));
        }
        r
    }

    /// The JSON object of `knights count --json`: the report's fields and the run's.
    #[must_use]
    pub fn json(&self, job: &Job) -> serde_json::Value {
        let mut v = self.report(job).json(&self.count);
        v["units"] = serde_json::json!(self.units);
        v["units_done"] = serde_json::json!(self.units_done);
        v["pieces"] = serde_json::json!(self.units);
        v["shard"] = serde_json::json!((self.shard.count > 1).then(|| self.shard.to_string()));
        v["complete"] = serde_json::json!(self.complete());
        v["checkpoint"] = serde_json::json!(
            self.checkpoint
                .as_ref()
                .map(|p: &PathBuf| p.display().to_string())
        );
        v
    }
}

/// What an engine's pieces are called: the DFS's are work units.
#[must_use]
pub fn piece_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Frontier => "piece",
        _ => "unit",
    }
}

/// Which engine `Auto` runs: the DFS where its pruned tree is small, the frontier engine
/// otherwise.
///
/// The rule, measured in `results/frontier.md`: boards of up to 30 squares and any `--per-square`
/// request go to the DFS (it answers those in milliseconds and gives per-square tables); boards
/// of more than 64 squares go to the frontier engine (the DFS cannot take them); between, the DFS
/// runs when Knuth's estimate of its tree (a few milliseconds of probes) is under
/// [`DFS_AUTO_NODES`] nodes, the frontier engine otherwise, as long as the board is one the
/// frontier engine takes. So 6x6 open (1.8e7 nodes) goes to the DFS (0.07 s against the
/// frontier's 0.6 s), 4x10 and 5x8 open (3.9e7 and 9.0e7) to the frontier engine (0.04 s and
/// 0.3 s against the DFS's 0.9 s and 2.5 s).
#[must_use]
pub fn choose(board: Board, piece: &Piece, spec: &CountSpec) -> Engine {
    if spec.wide {
        // the frontier engine's walk alone has a window to widen
        return Engine::Frontier;
    }
    let frontier_ok = frontier::supports(board, piece, spec).is_ok();
    if spec.per_square || (board.squares() <= 30 && board.is_small()) || !frontier_ok {
        return Engine::Dfs;
    }
    if !board.is_small() {
        return Engine::Frontier;
    }
    let plan = Plan::new(board, piece, spec);
    // a few probes settle a tree far below the threshold (6x6 closed, 2.5e5 nodes: a count of
    // milliseconds that 200 probes took a tenth of), and the full estimate decides the others
    if plan.estimate_nodes(FIRST_PROBES, 0x5EED) < DFS_AUTO_NODES / CLEAR_MARGIN
        || plan.estimate_nodes(200, 0x5EED) < DFS_AUTO_NODES
    {
        Engine::Dfs
    } else {
        Engine::Frontier
    }
}

/// Probes of Knuth's estimate made first by [`choose`], and how far below [`DFS_AUTO_NODES`]
/// their estimate must be to settle the choice: on 6x6 closed, five seeds of 25 probes gave
/// 9.2e4 to 5.9e5 nodes (200 probes: 1.5e5 to 3.1e5), on 6x6 open 4.6e6 to 3.2e7, which the full
/// estimate then decides as before.
const FIRST_PROBES: u32 = 25;
const CLEAR_MARGIN: f64 = 30.0;

/// [`choose`] for a job: a sharded count goes to an engine that cuts it into many pieces where
/// that pays. The frontier engine cuts a count into pieces at the middle of the board; one it
/// walks in a single sweep (`--from`/`--to`, boards too short to meet in the middle) is one
/// piece, so such a count goes to the DFS when the board is one it takes and each shard's
/// share of the DFS's tree is small enough that the DFS would have been picked for it (under
/// [`DFS_AUTO_NODES`]); otherwise the frontier engine counts it in one piece, in shard 0, and
/// the other shards have nothing to do (`4x12 --from a1` takes it 0.04 s, and the DFS 100 s).
#[must_use]
pub fn choose_for(job: &Job) -> Engine {
    let pick = choose(job.board, &job.piece, &job.spec);
    let shards = job.shard.map_or(1, |s| s.count);
    if shards > 1
        && pick == Engine::Frontier
        && job.board.is_small()
        && !frontier::splits(job.board, &job.piece, &job.spec)
    {
        let nodes = Plan::new(job.board, &job.piece, &job.spec).estimate_nodes(200, 0x5EED);
        if nodes / f64::from(shards) < DFS_AUTO_NODES {
            return Engine::Dfs;
        }
    }
    pick
}

/// The DFS tree size below which `Auto` takes the DFS (between 6x6 open, 1.8e7 nodes, which the
/// DFS counts ten times faster than the frontier engine, and 4x10 open, 3.9e7, which it counts
/// twenty times slower).
pub const DFS_AUTO_NODES: f64 = 3e7;

/// Checks a request against an engine (never `Auto`): board size, squares, options.
pub fn check(job: &Job, engine: Engine) -> Result<(), Error> {
    let (board, spec) = (job.board, &job.spec);
    if spec.per_square && (spec.closed || spec.from.is_some() || spec.to.is_some()) {
        return Err(Error::Invalid(
            "--per-square counts open tours from every square; it cannot be combined with --closed, --from or --to".into(),
        ));
    }
    if spec.wide && engine != Engine::Frontier {
        return Err(Error::Invalid(format!(
            "--window wide is the frontier engine's way to walk the board; the {} engine has no window: drop --window or use --engine frontier",
            if engine == Engine::Naive {
                "naive"
            } else {
                "dfs"
            }
        )));
    }
    match engine {
        Engine::Frontier => {
            if spec.per_square {
                return Err(Error::Invalid(
                    "--per-square needs the dfs engine (the frontier engine counts all start squares at once); use --engine dfs on boards of up to 64 squares".into(),
                ));
            }
            frontier::supports(board, &job.piece, spec)
        }
        Engine::Dfs | Engine::Auto => {
            if !board.is_small() {
                let hint = match frontier::supports(board, &job.piece, spec) {
                    Ok(()) => "The frontier engine counts it: use --engine frontier (or auto).",
                    Err(_) => {
                        "Counts past 64 squares need the frontier engine, which takes boards with a short side of up to 8 (16 for some pieces) and any length."
                    }
                };
                return Err(Error::TooLarge {
                    board: board.to_string(),
                    squares: board.squares(),
                    engine: "the dfs engine",
                    max: 64,
                    hint,
                });
            }
            Ok(())
        }
        Engine::Naive => {
            if board.squares() > NAIVE_MAX_SQUARES {
                return Err(Error::TooLarge {
                    board: board.to_string(),
                    squares: board.squares(),
                    engine: "the naive engine",
                    max: NAIVE_MAX_SQUARES,
                    hint: "Use --engine dfs.",
                });
            }
            Ok(())
        }
    }
}

/// The engine that runs `engine` (never `Auto`).
pub(crate) fn engine_for(engine: Engine) -> &'static dyn CountEngine {
    match engine {
        Engine::Frontier => &Frontier,
        Engine::Naive => &Naive,
        Engine::Dfs | Engine::Auto => &Dfs,
    }
}

/// The threads rayon's global pool has or will have (`RAYON_NUM_THREADS`, else one a core),
/// without starting it: a count small enough for one thread never starts the pool.
#[must_use]
pub fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(crate::engine::cores)
}

/// The most worker threads a pool may have: 4 per core, and at least 64. More gain nothing, and
/// each costs a stack: tens of thousands of them exhaust the memory before any work is done.
#[must_use]
pub fn max_threads() -> usize {
    crate::engine::cores().saturating_mul(4).max(64)
}

/// Runs `f` on a pool of `threads` workers (at most [`max_threads`]), or on rayon's global pool
/// (every core).
pub fn with_threads<T: Send>(
    threads: Option<NonZeroUsize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, RunError> {
    match threads {
        None => Ok(f()),
        Some(n) if n.get() > max_threads() => Err(RunError::Threads {
            threads: n.get(),
            why: format!(
                "at most {} are allowed on this machine (4 per core, or 64 where that is more)",
                max_threads()
            ),
        }),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n.get())
                .build()
                .map_err(|e| RunError::Threads {
                    threads: n.get(),
                    why: e.to_string(),
                })?;
            Ok(pool.install(f))
        }
    }
}

/// Counts what `job` asks, stopping early (with the part counted so far) once `stop` is set.
pub fn run(job: &Job, stop: &AtomicBool, obs: &dyn Observer) -> Result<Outcome, RunError> {
    let engine = match job.engine {
        Engine::Auto => {
            check(job, Engine::Dfs).or_else(|e| check(job, Engine::Frontier).map_err(|_| e))?;
            choose_for(job)
        }
        e => e,
    };
    check(job, engine)?;
    let fitted = fit_threads(job, engine, obs);
    let job = fitted.as_ref().unwrap_or(job);
    // one run a checkpoint at a time, whichever engine writes it; held until the run returns
    let _lock = job
        .checkpoint
        .as_deref()
        .map(CheckpointLock::acquire)
        .transpose()?;
    // before anything that may refuse the run: the files runs that ended left beside the
    // checkpoint and in the scratch folder (temporaries of a write cut short, the tables of a
    // count killed while they were on disk) are of no use now, whoever's they were
    if job.checkpoint.is_some() || job.scratch.is_some() {
        crate::durable::sweep(&frontier::scratch_dir(&job.limits()));
    }
    if let Some(path) = &job.checkpoint {
        crate::durable::sweep_beside(path);
    }
    let threads = job.thread_count();
    let t0 = Instant::now();
    if let Some(reason) = obstruction(job.board, &job.piece, &job.spec) {
        return settled(job, reason, threads, t0);
    }
    let counter = engine_for(engine);
    if let Some(path) = &job.checkpoint {
        check_log(job, path, counter.name())?;
    }
    let runner = Runner {
        job,
        engine: counter.name(),
        stop,
        obs,
        shard: job.shard.unwrap_or(Shard::ALL),
        state: Mutex::new(State::default()),
    };
    // the files this run makes: a count refused before it starts leaves none of them
    let before = job
        .checkpoint
        .as_deref()
        .map(crate::durable::run_files)
        .unwrap_or_default();
    let ran = match with_threads(job.threads, || {
        counter.run(job.request(), &job.limits(), &runner)
    }) {
        Ok(Ok(ran)) => ran,
        Ok(Err(e)) => {
            if let (RunError::Input(Error::Refused(_)), Some(path)) = (&e, &job.checkpoint) {
                drop(runner);
                for f in crate::durable::run_files(path) {
                    if !before.contains(&f) && !f.to_string_lossy().ends_with(".lock") {
                        let _ = std::fs::remove_file(f);
                    }
                }
            }
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    let mut state = runner.state.into_inner().expect("the workers are done");
    if let Some(log) = &mut state.log {
        log.sync()?;
    }
    let Some(split) = state.split else {
        // stopped before the engine had cut the count: nothing counted yet
        if !stop.load(Ordering::Relaxed) {
            return Err(Error::Invalid("the engine stopped before it cut the count".into()).into());
        }
        return Ok(Outcome {
            count: Count {
                directed: BigUint::ZERO,
                undirected: BigUint::ZERO,
                how: "interrupted before the count was cut into pieces".into(),
                reason: None,
                per_square: None,
                seconds: t0.elapsed().as_secs_f64(),
                peak: ran.peak,
                work: ran.work,
            },
            engine,
            threads,
            units: 0,
            units_done: 0,
            units_mine: 0,
            shard: runner.shard,
            finished: false,
            checkpoint: job.checkpoint.clone(),
        });
    };
    let units_done = state
        .mine
        .iter()
        .filter(|u| state.done.contains_key(u))
        .count();
    let finished = units_done == state.mine.len();
    let shard = runner.shard;
    let cut = Recorded {
        pieces: split.pieces,
        param: split.param,
        fingerprint: split.fingerprint,
    };
    let complete = finished && shard.count == 1 && state.mine.len() == split.pieces;
    let mut count = counter.total(job.request(), &cut, &state.done, complete)?;
    if let Some(how) = ran.how.filter(|_| finished) {
        count.how = how;
    }
    count.peak = ran.peak.or(count.peak);
    count.work = ran.work.or(count.work);
    count.seconds = t0.elapsed().as_secs_f64();
    Ok(Outcome {
        count,
        engine,
        threads,
        units: split.pieces,
        units_done,
        units_mine: state.mine.len(),
        shard,
        finished,
        checkpoint: job.checkpoint.clone(),
    })
}

/// `job` on fewer threads than one a core, where it asked for none and is a frontier count whose
/// memory bound holds fewer (see [`threads_held`]). `None` where the job runs as it is.
fn fit_threads(job: &Job, engine: Engine, obs: &dyn Observer) -> Option<Job> {
    if job.threads.is_some() || engine != Engine::Frontier {
        return None;
    }
    let n = threads_held(
        job.board,
        &job.piece,
        &job.spec,
        job.limits().max_memory,
        obs,
    )?;
    Some(Job {
        threads: Some(n),
        ..job.clone()
    })
}

/// The threads a frontier count of `board` given no `--threads` runs on under the bound
/// `bound`, where that is fewer than one a core: each thread holds its own buffers beside the
/// tables, so on a machine of many cores a bound that fits the count on a few threads would
/// refuse it on all of them. Said on `obs`; `None` where every core fits.
pub(super) fn threads_held(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    bound: u64,
    obs: &dyn Observer,
) -> Option<NonZeroUsize> {
    let all = default_threads();
    let n = frontier::threads_under(board, piece, spec, bound, all);
    if n >= all {
        return None;
    }
    obs.info(&format!(
        "counting on {n} thread{} of {all}: --max-memory {} holds what {n} thread{} hold beside the tables ({} more for each); give more memory, or --threads to choose",
        plural(n as u64),
        crate::human::human_bytes(bound),
        plural(n as u64),
        crate::human::human_bytes(crate::walk::sizes::THREAD_BYTES),
    ));
    NonZeroUsize::new(n)
}

/// The order the files of `job` were made in, for a count given none: its checkpoint's, where
/// it has one that reads; else its shared tables' (`--split FILE`), where they are saved; else
/// that of the first record in its ledger of the same request (its board, piece, kind, ends and
/// window); else `None`, a new count. A count of hours goes on as
/// it began, whichever order this build takes by default: the pieces of a ledger are numbered
/// by the cut of the walk that made them.
#[must_use]
pub fn order_of_files(job: &Job) -> Option<Order> {
    if let Some(l) = job
        .checkpoint
        .as_deref()
        .filter(|p| p.exists())
        .and_then(|p| checkpoint::read(p).ok())
    {
        return Some(l.id.order);
    }
    if let Some(o) = job.split.as_deref().and_then(frontier::saved_order) {
        return Some(o);
    }
    let dir = job.ledger.as_deref()?;
    let ours = RunId::new(
        job.board,
        &job.piece,
        &job.spec,
        Engine::Frontier.name(),
        0,
        0,
        0,
    );
    super::ledger::log_files(dir)
        .ok()?
        .iter()
        .filter_map(|p| checkpoint::read(p).ok())
        .find(|l| l.ledger && l.id.same_request(&ours))
        .map(|l| l.id.order)
}

/// Refuses, before any work, a checkpoint log of another run (the cut is checked when the
/// engine tells it). A log that cannot be read is refused too; none at all is fine.
fn check_log(job: &Job, path: &std::path::Path, engine: &str) -> Result<(), RunError> {
    if !path.exists() {
        return Ok(());
    }
    let loaded = checkpoint::read(path)?;
    let ours = RunId {
        shard: job.shard.unwrap_or(Shard::ALL),
        ..RunId::new(job.board, &job.piece, &job.spec, engine, 0, 0, 0)
    };
    match loaded.id.differs_in_request(&ours) {
        Some((field, file, run)) => Err(CheckpointError::Mismatch {
            path: path.into(),
            field,
            file,
            run,
        }
        .into()),
        None => Ok(()),
    }
}

/// A count a theorem settles at zero: no work, but the same run contract (a checkpoint file of
/// zero pieces, shard fields) so that shards of it merge like any other.
fn settled(
    job: &Job,
    reason: crate::theory::Obstruction,
    threads: usize,
    t0: Instant,
) -> Result<Outcome, RunError> {
    let shard = job.shard.unwrap_or(Shard::ALL);
    if let Some(path) = &job.checkpoint {
        let id = RunId {
            shard,
            ..RunId::new(
                job.board,
                &job.piece,
                &job.spec,
                Engine::Dfs.name(),
                crate::dfs::UNIT_TARGET,
                0,
                crate::dfs::fingerprint(None, &[]),
            )
        };
        let (mut c, _) = Checkpoint::open(path, &id)?;
        c.sync()?;
    }
    Ok(Outcome {
        count: Count::settled(job.board, &job.spec, reason, t0.elapsed().as_secs_f64()),
        engine: Engine::Dfs,
        threads,
        units: 0,
        units_done: 0,
        units_mine: 0,
        shard,
        finished: true,
        checkpoint: job.checkpoint.clone(),
    })
}

/// What the driver knows of a run in progress.
#[derive(Default)]
struct State {
    /// The engine's cut, once it has told it.
    split: Option<Split>,
    /// The pieces of this process's shard.
    mine: Vec<usize>,
    /// The pieces of this shard counted, by this process or an earlier one.
    done: BTreeMap<usize, BigUint>,
    log: Option<Checkpoint>,
    /// The run, for the ledger's records.
    id: Option<RunId>,
    /// The piece in progress, measured for the ledger's records or the checkpoint's.
    meter: Option<super::ledger::Meter>,
    /// The piece in progress where it goes on from parts an earlier run counted, and how many.
    resumed: Option<(usize, usize)>,
    /// The piece about to be done and the nodes above it that it made (see [`Host::above`]).
    above: Option<(usize, Vec<Made>)>,
    /// The pieces the checkpoint resumed records with their times (see [`Host::earlier`]).
    earlier: Vec<Timed>,
    /// The pieces left for more memory (see [`Host::left`]), noted beside the checkpoint.
    left: Vec<usize>,
}

/// The driver's side of a run (see [`Host`]): the shard, the checkpoint log and progress.
struct Runner<'a> {
    job: &'a Job,
    engine: &'static str,
    stop: &'a AtomicBool,
    obs: &'a dyn Observer,
    shard: Shard,
    state: Mutex<State>,
}

impl Runner<'_> {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .expect("no worker panics holding the lock")
    }
}

impl Host for Runner<'_> {
    fn start(&self, split: &Split) -> Result<Vec<usize>, RunError> {
        let job = self.job;
        let id = RunId {
            shard: self.shard,
            ..RunId::new(
                job.board,
                &job.piece,
                &job.spec,
                self.engine,
                split.param,
                split.pieces,
                split.fingerprint,
            )
        };
        let mut earlier = Vec::new();
        let mut logged_notes = BTreeMap::new();
        let (log, done) = match &job.checkpoint {
            Some(path) => {
                if let Some(old) = checkpoint::read(path)
                    .ok()
                    .filter(|l| l.id.units != id.units || l.id.fingerprint != id.fingerprint)
                {
                    let frontier = self.engine == Engine::Frontier.name();
                    let how = if frontier && frontier::depth_of_param(old.id.split).is_none() {
                        "it was cut by an earlier version of knights, whose frontier engine cut counts otherwise: finish it with that version, or delete it to count again".to_string()
                    } else if frontier {
                        "resume it with the --shard K/N it was started with (the pieces are numbered for the number of shards), or give another file".to_string()
                    } else {
                        "resume it with the options it was started with, or give another file"
                            .to_string()
                    };
                    return Err(Error::Invalid(format!(
                        "checkpoint '{}' is of this count cut into {} {}{} (fingerprint {:016x}), this run cuts it into {} (fingerprint {:016x}): {how}",
                        path.display(),
                        group_u64(old.id.units as u64),
                        piece_name(Engine::from_name(self.engine).unwrap_or(Engine::Dfs)),
                        plural(old.id.units as u64),
                        old.id.fingerprint,
                        group_u64(id.units as u64),
                        id.fingerprint,
                    ))
                    .into());
                }
                let (c, loaded) = Checkpoint::open(path, &id)?;
                if loaded.damaged > 0 {
                    self.obs.warn(&format!(
                        "checkpoint '{}': {} damaged line{} dropped; {} counted again",
                        path.display(),
                        loaded.damaged,
                        plural(loaded.damaged as u64),
                        if loaded.damaged == 1 {
                            "its piece is"
                        } else {
                            "their pieces are"
                        }
                    ));
                }
                earlier = super::ledger::NoteFigures::of(&loaded.notes).timed();
                logged_notes = loaded.notes;
                (Some(c), loaded.done)
            }
            None => (None, BTreeMap::new()),
        };
        let mut done = done;
        if let Some(dir) = &job.ledger {
            let super::ledger::Held {
                done: kept,
                from,
                files,
                other,
                timed,
            } = super::ledger::read(dir, &id)?;
            // the records' times too, for the projection of the pieces left (a checkpoint's
            // own, where it has the piece, come first)
            let known: std::collections::BTreeSet<usize> =
                earlier.iter().map(|t| t.piece).collect();
            earlier.extend(timed.into_iter().filter(|t| !known.contains(&t.piece)));
            let new = kept.keys().filter(|u| !done.contains_key(u)).count();
            // the pieces the checkpoint holds and the ledger lacks (a record deleted as damaged,
            // a ledger given later): written to it, so that the ledger is whole where the
            // checkpoint is
            let lacking: Vec<usize> = done
                .keys()
                .copied()
                .filter(|u| !kept.contains_key(u))
                .collect();
            for &u in &lacking {
                let mut notes: Vec<(&str, String)> = logged_notes
                    .get(&u)
                    .map(|n| n.iter().map(|(k, v)| (k.as_str(), v.clone())).collect())
                    .unwrap_or_default();
                notes.push((super::ledger::FROM_CHECKPOINT_NOTE, "yes".to_string()));
                checkpoint::write_ledger(dir, &id, u, &done[&u], &notes)?;
            }
            if !lacking.is_empty() {
                self.obs.info(&format!(
                    "ledger '{}': {} {}{} the checkpoint holds and the ledger lacked written to it ({})",
                    dir.display(),
                    group_u64(lacking.len() as u64),
                    piece_name(Engine::from_name(self.engine).unwrap_or(Engine::Dfs)),
                    plural(lacking.len() as u64),
                    crate::human::list_short(&lacking),
                ));
            }
            for (u, c) in kept {
                if let (Some(a), Some(log)) = (done.get(&u), &job.checkpoint) {
                    if *a != c {
                        return Err(CheckpointError::Disagree {
                            unit: u,
                            first: log.clone(),
                            a: a.to_string(),
                            second: from.get(&u).cloned().unwrap_or_else(|| dir.clone()),
                            b: c.to_string(),
                        }
                        .into());
                    }
                }
                done.insert(u, c);
            }
            self.obs.info(&format!(
                "ledger '{}': {} {}{} of this run in {} file{} ({} not in the checkpoint){}",
                dir.display(),
                group_u64(done.len() as u64),
                piece_name(Engine::from_name(self.engine).unwrap_or(Engine::Dfs)),
                plural(done.len() as u64),
                group_u64(files as u64),
                plural(files as u64),
                group_u64(new as u64),
                if other.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} file{} of other runs left aside",
                        other.len(),
                        plural(other.len() as u64)
                    )
                }
            ));
        }
        let mut mine = self.shard.units(split.pieces);
        if let Some(only) = &job.only {
            if let Some(&bad) = only.iter().find(|&&u| u >= split.pieces) {
                return Err(Error::Invalid(format!(
                    "--only {bad}: this count is cut into {} {}{}, numbered 0 to {}",
                    group_u64(split.pieces as u64),
                    piece_name(Engine::from_name(self.engine).unwrap_or(Engine::Dfs)),
                    plural(split.pieces as u64),
                    split.pieces.saturating_sub(1)
                ))
                .into());
            }
            mine.retain(|u| only.contains(u));
        }
        let todo: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|u| !done.contains_key(u))
            .collect();
        let tours: BigUint = done.iter().map(|(&i, c)| split.shown(i, c)).sum();
        self.obs
            .units(mine.len() as u64, (mine.len() - todo.len()) as u64, &tours);
        let mut s = self.state();
        *s = State {
            split: Some(split.clone()),
            mine,
            done,
            log,
            // a ledger's records carry the piece's figures, a checkpoint's its time (the
            // frontier engine's pieces only: they run one at a time, the DFS's units side by
            // side)
            meter: if job.ledger.is_some() {
                Some(super::ledger::Meter::start())
            } else {
                (job.checkpoint.is_some() && self.engine == Engine::Frontier.name())
                    .then(super::ledger::Meter::timing)
            },
            id: Some(id),
            resumed: None,
            above: None,
            earlier,
            left: Vec::new(),
        };
        Ok(todo)
    }

    fn done(&self, i: usize, count: BigUint) -> Result<(), RunError> {
        let mut s = self.state();
        let resumed = s.resumed.take().filter(|&(p, _)| p == i);
        // its figures are the part after the resume where it went on from parts an earlier run
        // counted: said, so that no projection takes them for a whole piece's
        let resumed_note =
            resumed.map(|(_, leaves)| (super::ledger::RESUMED_NOTE, leaves.to_string()));
        // and the work it shares with the pieces under the same nodes, which the projections
        // of `knights status` take apart
        let above_note = s
            .above
            .take()
            .filter(|(p, _)| *p == i)
            .map(|(_, made)| super::ledger::above_note(&made));
        // the lock also orders the log's lines; a write is short next to a piece. With a
        // ledger, the checkpoint's line carries the record's whole figures (the machine's too):
        // a record lost to a kill between the two is written again from that line
        let mut notes = match &s.meter {
            Some(m) if self.job.ledger.is_some() => m.notes(self.job.thread_count()),
            Some(m) => m.time_notes(),
            None => Vec::new(),
        };
        notes.extend(resumed_note);
        if s.meter.is_some() {
            notes.extend(above_note);
        }
        if let Some(log) = &mut s.log {
            if let Err(e) = log.record(i, &count, &notes) {
                // Relaxed: the flag only asks the workers to stop
                self.stop.store(true, Ordering::Relaxed);
                return Err(e.into());
            }
        }
        if let (Some(dir), Some(id), Some(_)) = (&self.job.ledger, &s.id, &s.meter) {
            if let Err(e) = checkpoint::write_ledger(dir, id, i, &count, &notes) {
                self.stop.store(true, Ordering::Relaxed);
                return Err(e.into());
            }
        }
        s.meter = s.meter.as_ref().map(super::ledger::Meter::restarted);
        let shown = s
            .split
            .as_ref()
            .map_or(BigUint::ZERO, |sp| sp.shown(i, &count));
        s.done.insert(i, count);
        drop(s);
        self.obs.unit_done(&shown);
        Ok(())
    }

    fn expected(&self) -> Option<crate::engine::Expected> {
        let job = self.job;
        // the request as the records name it (the cut is not compared)
        let id = RunId {
            shard: self.shard,
            ..RunId::new(job.board, &job.piece, &job.spec, self.engine, 0, 0, 0)
        };
        let mut cut: Option<(usize, std::collections::BTreeSet<usize>)> = None;
        if let Some(l) = job
            .checkpoint
            .as_deref()
            .and_then(|p| checkpoint::read(p).ok())
            .filter(|l| l.id.engine == self.engine && l.id.differs_in_request(&id).is_none())
        {
            cut = Some((l.id.units, l.done.keys().copied().collect()));
        }
        if let Some((units, done)) = job
            .ledger
            .as_deref()
            .and_then(|d| super::ledger::peek(d, &id))
        {
            match &mut cut {
                Some((u, d)) if *u == units => d.extend(done),
                Some(_) => {}
                None => cut = Some((units, done)),
            }
        }
        let Some((units, done)) = cut else {
            return job.only.as_ref().map(|o| crate::engine::Expected {
                pieces: o.len(),
                of: None,
            });
        };
        let mut mine = self.shard.units(units);
        if let Some(only) = &job.only {
            mine.retain(|u| only.contains(u));
        }
        mine.retain(|u| !done.contains(u));
        Some(crate::engine::Expected {
            pieces: mine.len(),
            of: Some(units),
        })
    }

    fn recorded(&self) -> Option<Recorded> {
        let path = self.job.checkpoint.as_deref()?;
        let loaded = checkpoint::read(path).ok()?;
        (loaded.id.engine == self.engine).then_some(Recorded {
            pieces: loaded.id.units,
            param: loaded.id.split,
            fingerprint: loaded.id.fingerprint,
        })
    }

    fn stop(&self) -> &AtomicBool {
        self.stop
    }

    fn observer(&self) -> &dyn Observer {
        self.obs
    }

    fn left(&self, i: usize) {
        let mut s = self.state();
        s.meter = s.meter.as_ref().map(super::ledger::Meter::restarted);
        s.left.push(i);
        if let (Some(path), Some(split)) = (&self.job.checkpoint, &s.split) {
            let note = checkpoint::LeftForMemory {
                fingerprint: split.fingerprint,
                max_memory: self.job.max_memory,
                pieces: s.left.clone(),
            };
            // only a note for `knights status`: the count goes on where it cannot be written
            if let Err(e) = note.write(path) {
                self.obs.warn(&e.to_string());
            }
            // and one for `knights status DIR`, beside the piece's record-to-be
            if let Some(dir) = &self.job.ledger {
                if let Err(e) = note.write_in_ledger(dir, i) {
                    self.obs.warn(&e.to_string());
                }
            }
        }
    }

    fn resumed(&self, i: usize, leaves: usize) {
        self.state().resumed = Some((i, leaves));
    }

    fn above(&self, i: usize, made: &[Made]) {
        self.state().above = Some((i, made.to_vec()));
    }

    fn earlier(&self) -> Vec<Timed> {
        self.state().earlier.clone()
    }

    fn pieces_begin(&self) {
        let mut s = self.state();
        s.meter = s.meter.as_ref().map(super::ledger::Meter::restarted);
        // the pieces an earlier run left for more memory are tried again
        s.left.clear();
        if let Some(path) = &self.job.checkpoint {
            checkpoint::LeftForMemory::clear(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run will count is known before the cut from the records of the same cut (a
    /// checkpoint's and a ledger's) and `--only`, so that the engine's first projection is of
    /// those pieces and the walk they share, not of the whole count; and `knights status` of a
    /// ledger with a piece left says that walk, at the time the count itself projects.
    #[test]
    fn the_pieces_a_run_will_count_are_known_before_the_cut() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger");
        let spec = CountSpec {
            closed: true,
            symmetry: true,
            ..CountSpec::default()
        };
        let mut job = Job::new(
            "6x8".parse().unwrap(),
            Piece::knight(),
            spec,
            Engine::Frontier,
        );
        job.ledger = Some(ledger.clone());
        let stop = AtomicBool::new(false);
        let runner = |job| Runner {
            job,
            engine: Engine::Frontier.name(),
            stop: &stop,
            obs: &Quiet,
            shard: Shard::ALL,
            state: Mutex::new(State::default()),
        };
        // nothing recorded: the whole count (nothing known), or what --only names
        assert_eq!(runner(&job).expected(), None);
        let mut only = job.clone();
        only.only = Some(vec![3, 4]);
        let e = runner(&only).expected();
        assert_eq!(
            e,
            Some(crate::engine::Expected {
                pieces: 2,
                of: None
            })
        );
        let out = run(&job, &stop, &Quiet).unwrap();
        let pieces = out.units;
        assert!(pieces > 3);
        std::fs::remove_file(checkpoint::ledger_path(&ledger, 3)).unwrap();
        let e = runner(&job).expected();
        assert_eq!(
            e,
            Some(crate::engine::Expected {
                pieces: 1,
                of: Some(pieces)
            })
        );
        let e = runner(&only).expected();
        assert_eq!(
            e,
            Some(crate::engine::Expected {
                pieces: 1,
                of: Some(pieces)
            })
        );
        let folder = super::super::folder::status(&ledger).unwrap();
        let walk = crate::frontier::shared_walk_seconds(job.board, &job.piece, &job.spec)
            .unwrap()
            .unwrap();
        assert!(walk > 0.0);
        assert_eq!(folder.shared_walk(), Some(walk));
        let said = folder.text();
        assert!(
            said.contains("the walk every piece shares: about")
                && said.contains(
                    "unfinished pieces: 1 (no record holds them: the count's command with --ledger DIR counts only the pieces the folder lacks)"
                ),
            "{said}"
        );
        assert!(!said.contains("shards"), "{said}");
    }

    /// A piece the engine leaves for more memory is noted beside the checkpoint, and `knights
    /// status` says that it needs a larger bound: not "run the command again", which stops at
    /// it again, nor a time left at the log's rate (issue 52). No run of the engine can be made
    /// to leave a piece at will (its tables go to disk past the bound), so the engine's side,
    /// [`Host::left`], is called as the engine calls it, after a real count of the others.
    #[test]
    fn a_piece_left_for_more_memory_is_said_to_need_a_larger_bound() {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("run.ckpt");
        let spec = CountSpec {
            symmetry: true,
            ..CountSpec::default()
        };
        let mut job = Job::new(
            "5x8".parse().unwrap(),
            Piece::knight(),
            spec,
            Engine::Frontier,
        );
        job.checkpoint = Some(ck.clone());
        let ledger = dir.path().join("ledger");
        job.ledger = Some(ledger.clone());
        job.threads = std::num::NonZeroUsize::new(1);
        job.max_memory = 48 << 20;
        let stop = AtomicBool::new(false);
        run(&job, &stop, &Quiet).unwrap();
        // the log without its last piece, which the engine then leaves for more memory
        let log = checkpoint::read(&ck).unwrap();
        let last = log.id.units - 1;
        let text = std::fs::read_to_string(&ck).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(&format!("{last} ")))
            .collect();
        std::fs::write(&ck, kept.join("\n") + "\n").unwrap();
        std::fs::remove_file(checkpoint::ledger_path(&ledger, last)).unwrap();
        let split = Split {
            pieces: log.id.units,
            param: log.id.split,
            fingerprint: log.id.fingerprint,
            weights: Vec::new(),
        };
        let runner = |job| Runner {
            job,
            engine: Engine::Frontier.name(),
            stop: &stop,
            obs: &Quiet,
            shard: Shard::ALL,
            state: Mutex::new(State::default()),
        };
        let r = runner(&job);
        assert_eq!(r.start(&split).unwrap(), [last]);
        r.pieces_begin();
        r.left(last);
        drop(r);
        let st = super::super::status::status(&ck).unwrap();
        let said = st.text();
        assert!(
            said.contains(&format!(
                "1 piece did not fit under the memory bound of 48.0 MiB (--only {last})"
            )) && said.contains("with a larger --max-memory"),
            "{said}"
        );
        assert!(!said.contains("run the count's command again"), "{said}");
        assert!(
            said.contains("time left: unknown (the piece left needs a larger --max-memory)"),
            "{said}"
        );
        assert_eq!(st.json()["left_for_memory"]["pieces"][0], last);
        // `knights status DIR` says it of the ledger too
        let folder = super::super::folder::status(&ledger).unwrap();
        let said = folder.text();
        assert!(
            said.contains(&format!(
                "left for more memory: 1 of them (--only {last}) did not fit under a memory bound of 48.0 MiB"
            )),
            "{said}"
        );
        assert_eq!(
            folder.json()["ledger"]["pieces_left_for_memory"][0],
            last,
            "{said}"
        );
        // and `knights merge DIR/*` takes the note for what it is, not for a damaged record
        let all: Vec<PathBuf> = std::fs::read_dir(&ledger)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(all.contains(&checkpoint::LeftForMemory::in_ledger(&ledger, last)));
        assert!(matches!(
            merge(&all, &Quiet),
            Ok(Merged::Partial { units_done, .. }) if units_done == last
        ));
        // a run that tries the pieces again (under a larger bound, say) clears the note
        let r = runner(&job);
        r.start(&split).unwrap();
        r.pieces_begin();
        drop(r);
        let said = super::super::status::status(&ck).unwrap().text();
        assert!(said.contains("run the count's command again"), "{said}");
        // and the piece once counted is no longer left in the ledger
        run(&job, &stop, &Quiet).unwrap();
        assert!(!checkpoint::LeftForMemory::in_ledger(&ledger, last).exists());
        let said = super::super::folder::status(&ledger).unwrap().text();
        assert!(!said.contains("left for more memory"), "{said}");
    }
}
