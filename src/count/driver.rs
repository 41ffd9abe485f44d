//! The driver of a count, for every engine: checks the request, picks the engine, settles what a
//! theorem settles, and runs the count under a stop flag with checkpoints, shards and progress
//! events. `knights count` and `knights merge` only parse, call this and print.
//!
//! A DFS count is a list of numbered work units (see [`Plan::units`]); its checkpoint is the
//! append-only log of [`super::checkpoint`]. A frontier count is a sequence of layers; its
//! checkpoint is the last saved layer's state table (see [`crate::frontier::snapshot`]). Both stop
//! within moments of the flag being set and resume from their checkpoint with the same total.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use thiserror::Error;

use super::checkpoint::{self, Checkpoint, CheckpointError, CheckpointLock, RunId, Shard};
use super::plan::{CountSpec, Plan, Tally, Unit};
use super::report::{Report, group_u64};
use super::{Count, Engine, NAIVE_MAX_SQUARES, UNIT_TARGET};
use crate::board::Board;
use crate::error::Error;
use crate::frontier;
use crate::piece::Piece;

/// What to count and how.
#[derive(Clone, Debug)]
pub struct Job {
    pub board: Board,
    pub piece: Piece,
    pub spec: CountSpec,
    pub engine: Engine,
    /// Worker threads; `None` for every core (rayon's global pool).
    pub threads: Option<NonZeroUsize>,
    /// Where finished work is recorded and resumed from.
    pub checkpoint: Option<PathBuf>,
    /// Only this shard of the work units (DFS only).
    pub shard: Option<Shard>,
    /// Start even when the DFS is estimated to take more than [`super::REACH_SECONDS`].
    pub force: bool,
    /// The most memory the frontier engine's tables may take, in bytes.
    pub max_memory: u64,
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
            shard: None,
            force: false,
            max_memory: default_max_memory(),
        }
    }

    /// The threads the job runs on.
    #[must_use]
    pub fn thread_count(&self) -> usize {
        self.threads
            .map_or_else(rayon::current_num_threads, NonZeroUsize::get)
    }
}

/// Three quarters of the machine's memory (8 GiB where it cannot be read): a safe share.
#[must_use]
pub fn default_max_memory() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(8 << 30, |kb| kb * 1024);
    total / 4 * 3
}

/// Progress of a frontier count: one layer done.
#[derive(Clone, Debug)]
pub struct LayerProgress {
    /// Layers done, counting those resumed from a checkpoint.
    pub done: usize,
    pub total: usize,
    /// States in the layer just made.
    pub states: u64,
    /// Bytes the state tables hold now.
    pub bytes: u64,
    /// What the engine is doing (`forward`, `crossing`, `join`).
    pub phase: &'static str,
}

/// What a running count tells its caller; every method may be called from worker threads.
pub trait Observer: Sync {
    /// Something the user should see whatever the display (a damaged checkpoint line dropped).
    fn warn(&self, _message: &str) {}
    /// Something worth saying when a person watches (how long the count may take).
    fn info(&self, _message: &str) {}
    /// A unit count starts: `total` units of this process, `done` of them already counted,
    /// `tours` found in those.
    fn units(&self, _total: u64, _done: u64, _tours: u64) {}
    /// One unit counted, holding `tours` tours (weighted as the report shows them).
    fn unit_done(&self, _tours: u64) {}
    /// A frontier count starts (`total` layers, `done` resumed) or finished a layer.
    fn layer(&self, _progress: &LayerProgress) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

/// Errors of a count: bad requests and checkpoint trouble.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("cannot start {threads} threads: {why}")]
    Threads { threads: usize, why: String },
}

/// What a count found, and how much of its work is done.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The figures: the total, or the part counted so far.
    pub count: Count,
    /// The engine that ran (never [`Engine::Auto`]).
    pub engine: Engine,
    pub threads: usize,
    /// Work units of the whole run (layers for the frontier engine; 0 when a theorem settles it).
    pub units: usize,
    /// Units of this process's share that are counted.
    pub units_done: usize,
    /// Units of this process's share.
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
        self.finished && self.shard.count == 1
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
        let what = if self.engine == Engine::Frontier {
            "layers"
        } else {
            "units"
        };
        if !self.finished {
            r.scope = format!(
                ", interrupted after {} of {} {what}",
                group_u64(self.units_done as u64),
                group_u64(self.units_mine as u64)
            );
        }
        if self.shard.count > 1 {
            r.scope += &format!(
                ", shard {} ({} of {} unit{})",
                self.shard,
                group_u64(self.units_mine as u64),
                group_u64(self.units as u64),
                crate::render::plural(self.units as u64)
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
    let frontier_ok = frontier::supports(board, piece, spec).is_ok();
    if spec.per_square || (board.squares() <= 30 && board.is_small()) || !frontier_ok {
        return Engine::Dfs;
    }
    if !board.is_small() {
        return Engine::Frontier;
    }
    let nodes = Plan::new(board, piece, spec).estimate_nodes(200, 0x5EED);
    if nodes < DFS_AUTO_NODES {
        Engine::Dfs
    } else {
        Engine::Frontier
    }
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
    match engine {
        Engine::Frontier => {
            if spec.per_square {
                return Err(Error::Invalid(
                    "--per-square needs the dfs engine (the frontier engine counts all start squares at once); use --engine dfs on boards of up to 64 squares".into(),
                ));
            }
            if job.shard.is_some() {
                return Err(Error::Invalid(
                    "--shard splits the dfs engine's work units; the frontier engine runs on one machine (use --engine dfs to shard a count of up to 64 squares)".into(),
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
            if job.checkpoint.is_some() || job.shard.is_some() {
                return Err(Error::Invalid(
                    "--checkpoint and --shard split the count into work units, which the naive engine does not do; drop --engine naive".into(),
                ));
            }
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

/// The most worker threads a pool may have: 4 per core, and at least 64. More gain nothing, and
/// each costs a stack: tens of thousands of them exhaust the memory before any work is done.
#[must_use]
pub fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .saturating_mul(4)
        .max(64)
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
            choose(job.board, &job.piece, &job.spec)
        }
        e => e,
    };
    check(job, engine)?;
    // one run a checkpoint at a time, whichever engine writes it; held until the run returns
    let _lock = job
        .checkpoint
        .as_deref()
        .map(CheckpointLock::acquire)
        .transpose()?;
    let threads = job.thread_count();
    let t0 = Instant::now();
    if let Some(reason) = super::obstruction(job.board, &job.piece, &job.spec) {
        return settled(job, reason, threads, t0);
    }
    match engine {
        Engine::Naive => {
            let count = with_threads(job.threads, || {
                super::count_naive(job.board, &job.piece, &job.spec, t0, stop)
            })?;
            // stopped: the naive engine keeps no partial total worth reporting
            let finished = count.is_some();
            let count = count.unwrap_or_else(|| Count {
                directed: 0u32.into(),
                undirected: 0u32.into(),
                how: "backtracking, stopped before it finished".into(),
                reason: None,
                per_square: None,
                seconds: t0.elapsed().as_secs_f64(),
                peak: None,
            });
            Ok(Outcome {
                count,
                engine,
                threads,
                units: 1,
                units_done: usize::from(finished),
                units_mine: 1,
                shard: Shard::ALL,
                finished,
                checkpoint: None,
            })
        }
        Engine::Frontier => with_threads(job.threads, || frontier::run(job, stop, obs))?,
        Engine::Dfs | Engine::Auto => run_units(job, stop, obs, threads),
    }
}

/// A count a theorem settles at zero: no work, but the same run contract (a checkpoint file of
/// zero units, shard fields) so that shards of it merge like any other.
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
                None,
                UNIT_TARGET,
                &[],
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

/// What the DFS workers share while counting units.
struct Shared {
    done: BTreeMap<usize, u64>,
    checkpoint: Option<Checkpoint>,
    error: Option<CheckpointError>,
}

/// A DFS count split into work units, recorded in a checkpoint if asked, stopped by the flag.
fn run_units(
    job: &Job,
    stop: &AtomicBool,
    obs: &dyn Observer,
    threads: usize,
) -> Result<Outcome, RunError> {
    let (board, piece, spec) = (job.board, &job.piece, &job.spec);
    let t0 = Instant::now();
    let plan = Plan::new(board, piece, spec);
    if !job.force {
        // shards run side by side, so the whole run's estimate is shared among them
        let shards = job.shard.map_or(1, |s| s.count as usize);
        let secs = super::check_reach_plan(&plan, board, threads * shards)?;
        if secs > 60.0 {
            obs.info(&format!(
                "this count may take about {} (a rough estimate)",
                super::human_duration(secs)
            ));
        }
    }
    let units = plan.units(UNIT_TARGET);
    let shard = job.shard.unwrap_or(Shard::ALL);
    let id = RunId {
        shard,
        ..RunId::new(
            board,
            piece,
            spec,
            Engine::Dfs.name(),
            Some(&plan),
            UNIT_TARGET,
            &units,
        )
    };
    let (checkpoint, done) = match &job.checkpoint {
        Some(path) => {
            let (c, loaded) = Checkpoint::open(path, &id)?;
            if loaded.damaged > 0 {
                obs.warn(&format!(
                    "checkpoint '{}': {} damaged line{} dropped; {} counted again",
                    path.display(),
                    loaded.damaged,
                    if loaded.damaged == 1 { "" } else { "s" },
                    if loaded.damaged == 1 {
                        "its unit is"
                    } else {
                        "their units are"
                    }
                ));
            }
            (Some(c), loaded.done)
        }
        None => (None, BTreeMap::new()),
    };
    let mine = shard.units(units.len());
    let pending: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|u| !done.contains_key(u))
        .collect();
    let weight = |u: usize| plan.roots[units[u].root as usize].multiplier;
    let shown = |sum: u64| {
        let (d, u) = super::tally(plan.tally, sum, board.squares());
        if plan.tally == Tally::Cycles { u } else { d }
    };
    let sum0: u64 = done.iter().map(|(&u, &c)| weight(u) * c).sum();
    obs.units(mine.len() as u64, done.len() as u64, shown(sum0));
    let shared = Mutex::new(Shared {
        done,
        checkpoint,
        error: None,
    });
    with_threads(job.threads, || {
        super::count_each(&plan, &units, &pending, stop, |u, c| {
            // the lock also orders the checkpoint's lines; a write is short next to a unit
            let mut s = shared
                .lock()
                .expect("no worker panics while holding the lock");
            s.done.insert(u, c);
            if let Some(ck) = &mut s.checkpoint {
                if let Err(e) = ck.record(u, c) {
                    s.error.get_or_insert(e);
                    // Relaxed: the flag only asks the workers to stop; see `count_each`
                    stop.store(true, Ordering::Relaxed);
                }
            }
            drop(s);
            obs.unit_done(shown(weight(u) * c));
        })
    })?;
    let mut shared = shared.into_inner().expect("the workers are done");
    if let Some(e) = shared.error {
        return Err(e.into());
    }
    if let Some(ck) = &mut shared.checkpoint {
        ck.sync()?;
    }
    let done = shared.done;
    let units_done = mine.iter().filter(|u| done.contains_key(u)).count();
    let finished = units_done == mine.len();
    let counts: Vec<u64> = (0..units.len())
        .map(|u| done.get(&u).copied().unwrap_or(0))
        .collect();
    let count = Count::from_units(
        board,
        &plan,
        &units,
        &counts,
        finished && shard.count == 1 && spec.per_square,
        t0.elapsed().as_secs_f64(),
    );
    Ok(Outcome {
        count,
        engine: Engine::Dfs,
        threads,
        units: units.len(),
        units_done,
        units_mine: mine.len(),
        shard,
        finished,
        checkpoint: job.checkpoint.clone(),
    })
}

/// Shard checkpoints put together.
#[derive(Clone, Debug)]
pub enum Merged {
    /// Every unit is counted: the total.
    Total {
        job: Job,
        outcome: Outcome,
        /// The number of shards the run was split into.
        shards: u32,
    },
    /// Shards are missing or units unfinished: no total.
    Partial {
        job: Job,
        units: usize,
        units_done: usize,
        missing: Vec<Shard>,
        unfinished: usize,
    },
}

/// Puts the checkpoints of a sharded DFS count together (see [`checkpoint::merge`]).
pub fn merge(paths: &[PathBuf], obs: &dyn Observer) -> Result<Merged, RunError> {
    let t0 = Instant::now();
    let files = paths
        .iter()
        .map(|p| checkpoint::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    for f in files.iter().filter(|f| f.damaged > 0) {
        obs.warn(&format!(
            "checkpoint '{}': {} damaged line(s) dropped; their units count as unfinished",
            f.path.display(),
            f.damaged
        ));
    }
    let m = checkpoint::merge(&files)?;
    let shards = files.first().map_or(1, |f| f.id.shard.count);
    let id = &m.id;
    let (piece, spec) = id.request()?;
    let board = id.board;
    let job = Job::new(board, piece, spec, Engine::Dfs);
    check(&job, Engine::Dfs)?;
    let (piece, spec) = (&job.piece, &job.spec);
    let reason = super::obstruction(board, piece, spec);
    let plan = reason.is_none().then(|| Plan::new(board, piece, spec));
    let units: Vec<Unit> = plan.as_ref().map_or_else(Vec::new, |p| p.units(id.split));
    let ours = RunId::new(
        board,
        piece,
        spec,
        &id.engine,
        plan.as_ref(),
        id.split,
        &units,
    );
    if ours.fingerprint != id.fingerprint || ours.units != id.units {
        return Err(Error::Invalid(format!(
            "the checkpoints were written by knights {} whose work units differ from this program's ({}); merge them with that version",
            id.version, ours.version
        ))
        .into());
    }
    if !m.complete() {
        return Ok(Merged::Partial {
            units: id.units,
            units_done: m.done.len(),
            missing: m.missing,
            unfinished: m.unfinished,
            job,
        });
    }
    let seconds = t0.elapsed().as_secs_f64();
    let count = match (reason, &plan) {
        (Some(reason), _) => Count::settled(board, spec, reason, seconds),
        (None, Some(plan)) => {
            let counts: Vec<u64> = (0..units.len()).map(|u| m.done[&u]).collect();
            Count::from_units(board, plan, &units, &counts, spec.per_square, seconds)
        }
        (None, None) => unreachable!("a plan exists when no theorem settles the count"),
    };
    let outcome = Outcome {
        count,
        engine: Engine::Dfs,
        threads: 0,
        units: units.len(),
        units_done: units.len(),
        units_mine: units.len(),
        shard: Shard::ALL,
        finished: true,
        checkpoint: None,
    };
    Ok(Merged::Total {
        job,
        outcome,
        shards,
    })
}

impl Merged {
    /// The text `knights merge` prints.
    #[must_use]
    pub fn text(&self, files: usize) -> String {
        let from = format!(
            ", merged from {files} checkpoint{}",
            if files == 1 { "" } else { "s" }
        );
        match self {
            Merged::Total { job, outcome, .. } => {
                let mut r = outcome.report(job);
                r.scope = from;
                r.text(&outcome.count)
            }
            Merged::Partial {
                job,
                missing,
                unfinished,
                ..
            } => {
                let mut r = Report::new(job.board, &job.piece, &job.spec, "dfs", 0);
                r.scope = from;
                let mut s = format!("{}: no total, the run is not finished\n", r.describe());
                if !missing.is_empty() {
                    let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
                    s += &format!(
                        "missing shards: {} (their checkpoints were not given)\n",
                        names.join(", ")
                    );
                }
                if *unfinished > 0 {
                    s += &format!(
                        "unfinished units: {} in the shards given (run those shards again with the same command to finish them)\n",
                        group_u64(*unfinished as u64)
                    );
                }
                s
            }
        }
    }

    /// The JSON `knights merge --json` prints: the fields of `count --json` when complete.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        match self {
            Merged::Total {
                job,
                outcome,
                shards,
            } => {
                let mut v = outcome.json(job);
                v["shards"] = serde_json::json!(shards);
                v
            }
            Merged::Partial {
                job,
                units,
                units_done,
                missing,
                unfinished,
            } => {
                let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
                serde_json::json!({
                    "board": job.board.to_string(),
                    "rows": job.board.rows,
                    "cols": job.board.cols,
                    "piece": job.piece.to_string(),
                    "closed": job.spec.closed,
                    "from": job.spec.from.map(|s| job.board.name(s)),
                    "to": job.spec.to.map(|s| job.board.name(s)),
                    "engine": "dfs",
                    "complete": false,
                    "units": units,
                    "units_done": units_done,
                    "shard": null,
                    "checkpoint": null,
                    "missing_shards": missing,
                    "unfinished_units": unfinished,
                })
            }
        }
    }
}
