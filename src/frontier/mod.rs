//! The frontier counter: dynamic programming over a moving frontier of the board (the
//! transfer-matrix method), for boards of any length whose short side keeps the window small.
//!
//! The squares are walked along the long side, one at a time. A *state* describes what the path
//! edges chosen among the walked squares look like from the squares still to come: for every
//! walked square that still has a neighbour ahead (the *window*, about twice the short side for
//! the knight), whether it has no edge yet, is full, or is the end of a piece and which other
//! square ends that piece (see `state.rs`). Each layer maps the states after a step to the number
//! of ways to reach them; a step adds one square with each choice of its edges (see `expand.rs`).
//! Tours are counted at the last square, exactly, with as many 64-bit words as the counts need.
//!
//! Symmetric counts (no `--from`/`--to`) merge every state with its mirror image at the end of
//! each column, and on boards that are not too long *meet in the middle* (see `join.rs`): both
//! halves are the same walk from either end, so one walk to the middle does both.

pub(crate) mod expand;
mod join;
pub(crate) mod layout;
pub mod snapshot;
pub(crate) mod state;
mod sweep;
mod table;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use num_bigint::BigUint;

use crate::board::Board;
use crate::count::checkpoint::{CheckpointError, Shard};
use crate::count::driver::{Job, LayerProgress, Observer, Outcome, RunError};
use crate::count::report::human_bytes;
use crate::count::{Count, CountSpec, Engine, Peak};
use crate::error::Error;
use crate::piece::Piece;

use join::{Boundary, MAX_BOUNDARY, Prefixes, RightIndex};
use layout::{Rules, Step, Walk};
use snapshot::{RunName, Snapshot};
use state::Key;
use sweep::Sweep;
use table::{Layer, Stopped};

/// The largest window: thirteen pieces' labels fit the 4-bit codes.
pub const MAX_WINDOW: u32 = 26;

/// How the frontier engine walks the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// Meet in the middle where it applies and pays, one sweep otherwise.
    #[default]
    Auto,
    /// One sweep from one end to the other.
    Sweep,
    /// Both halves to the middle, then joined (symmetric counts only).
    Meet,
    /// Meeting with the cut after this many columns of the long side.
    MeetAt(u32),
}

/// Whether the frontier engine can count this request: its window must fit.
pub fn supports(board: Board, piece: &Piece, _spec: &CountSpec) -> Result<(), Error> {
    let walk = Walk::new(board, piece);
    let window = walk.window();
    if window > MAX_WINDOW {
        return Err(Error::Invalid(format!(
            "the frontier engine cannot count the {piece} on {board}: walking the long side, a square's farthest neighbour comes {} squares later, a window of {window} squares; it handles windows of up to {MAX_WINDOW} (for the knight, a short side of up to 12)",
            window - 1
        )));
    }
    Ok(())
}

/// The forward walk's layer sizes at the end of each column, walked until a layer passes
/// `max_states` states or the board ends: `(columns walked, states)`. Symmetric counts merge
/// mirror images, as the count does.
pub fn profile(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    max_states: u64,
) -> Result<Vec<(u32, u64)>, RunError> {
    supports(board, piece, spec)?;
    let job = Job::new(board, piece.clone(), spec.clone(), Engine::Frontier);
    let stop = AtomicBool::new(false);
    let walk = Walk::new(board, piece);
    let obs = &crate::count::driver::Quiet;
    if walk.window() <= u64::SLOTS {
        Ok(Run::<u64>::new(&job, walk, Method::Sweep, &stop, obs)?.profile(max_states))
    } else {
        Ok(Run::<u128>::new(&job, walk, Method::Sweep, &stop, obs)?.profile(max_states))
    }
}

/// What a frontier count is estimated to need at its largest layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    pub states: f64,
    pub bytes: f64,
    pub seconds: f64,
}

/// States the reach probe walks to (about a second).
const PROBE_STATES: u64 = 2_000_000;

/// How much larger than the left half's table the crossing grows (35 to 38 times on 6x6 and
/// 7x7 open, `results/frontier.md`).
const CROSSING_GROWTH: f64 = 40.0;

/// Time a state costs at a layer, on one thread, for the estimate (measured 0.1 to 0.3 µs).
const SECONDS_PER_STATE: f64 = 3e-7;

/// Estimates the largest layer of a frontier count from a probe: the real walk to about
/// `PROBE_STATES` (2,000,000) states, then per column each growth ratio the square root of the last (the
/// knight's layers on 7x7 grow 1,272 times from column 2 to 3, then 15 times), no growth past
/// `w + 2` columns (where long boards level off), and the crossing 40 times the left half. It
/// errs low: it is for refusing counts far out of reach before they start, not for planning.
pub fn reach(board: Board, piece: &Piece, spec: &CountSpec) -> Result<Reach, RunError> {
    supports(board, piece, spec)?;
    let job = Job::new(board, piece.clone(), spec.clone(), Engine::Frontier);
    let stop = AtomicBool::new(false);
    let walk = Walk::new(board, piece);
    let obs = &crate::count::driver::Quiet;
    if walk.window() <= u64::SLOTS {
        Ok(Run::<u64>::new(&job, walk, Method::Auto, &stop, obs)?.reach())
    } else {
        Ok(Run::<u128>::new(&job, walk, Method::Auto, &stop, obs)?.reach())
    }
}

/// Counts `job` with the frontier engine on the current rayon pool.
pub fn run(job: &Job, stop: &AtomicBool, obs: &dyn Observer) -> Result<Outcome, RunError> {
    run_method(job, Method::Auto, stop, obs)
}

/// Counts with a chosen method (for cross-checks and benchmarks).
pub fn count(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    method: Method,
) -> Result<Count, RunError> {
    let job = Job::new(board, piece.clone(), spec.clone(), Engine::Frontier);
    let stop = AtomicBool::new(false);
    run_method(&job, method, &stop, &crate::count::driver::Quiet).map(|o| o.count)
}

fn run_method(
    job: &Job,
    method: Method,
    stop: &AtomicBool,
    obs: &dyn Observer,
) -> Result<Outcome, RunError> {
    supports(job.board, &job.piece, &job.spec)?;
    let walk = Walk::new(job.board, &job.piece);
    if walk.window() <= u64::SLOTS {
        Run::<u64>::new(job, walk, method, stop, obs)?.go()
    } else {
        Run::<u128>::new(job, walk, method, stop, obs)?.go()
    }
}

/// How a symmetric count is split for meeting in the middle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cut {
    /// Columns of the left half.
    left: u32,
    /// Columns of the right half (the walk from the other end).
    right: u32,
    /// Columns of the crossing (the piece's reach).
    cross: u32,
}

/// Whether meeting in the middle applies: room for the crossing, a column past it (so every tour
/// crosses the cut: no tour fits the left half and the crossing alone), boundary squares the
/// join handles, and each with a move into the left half (so that the right half's walk, which
/// ends there, still has every boundary square in its window).
fn cut_for(walk: &Walk, left: u32) -> Option<Cut> {
    let h = walk.reach;
    let right = walk.len.saturating_sub(left);
    let (first, w) = (left * walk.w, walk.w);
    let reaches_left = (first..(left + h).min(walk.len) * w)
        .all(|v| walk.nb[v as usize].iter().any(|&u| u < first));
    (h >= 1 && left >= 1 && right > h && h * walk.w <= MAX_BOUNDARY && reaches_left).then_some(
        Cut {
            left,
            right,
            cross: h,
        },
    )
}

/// Saves a checkpoint now and then: after a layer when the last save is at least
/// [`SAVE_RATIO`] times its own duration old (so saving costs at most 1/`SAVE_RATIO` of the
/// time), at the end of every phase, and when the count is interrupted.
struct Saver<'p> {
    path: Option<&'p Path>,
    last: Instant,
    cost: Duration,
    /// Whether the last finished layer is saved.
    saved: bool,
}

const SAVE_RATIO: u32 = 20;

impl Saver<'_> {
    fn due(&self) -> bool {
        self.path.is_some() && self.last.elapsed() >= self.cost * SAVE_RATIO
    }

    fn save<K: Key>(
        &mut self,
        name: &RunName,
        phase: &str,
        done: usize,
        tables: &[(&str, &Layer<K>)],
    ) -> Result<(), RunError> {
        if let Some(path) = self.path {
            let t = Instant::now();
            snapshot::save(path, name, phase, done, tables)?;
            self.cost = t.elapsed();
            self.last = Instant::now();
        }
        self.saved = true;
        Ok(())
    }
}

/// One frontier count.
struct Run<'a, K: Key> {
    job: &'a Job,
    walk: Walk,
    rules: Rules,
    cut: Option<Cut>,
    stop: &'a AtomicBool,
    obs: &'a dyn Observer,
    name: RunName,
    sweep: Sweep<'a, K>,
    saver: Saver<'a>,
    t0: Instant,
    /// Layers of the whole run (steps, plus one for a join).
    total: usize,
    /// A count settled before any walk (a path from a square to itself, non-adjacent ends).
    settled: Option<(BigUint, &'static str)>,
    /// Whether the reach check is still to come (see [`Run::check_reach`]).
    probe: bool,
    /// The forward walk's layer sizes at column ends: `(columns, states)`.
    sizes: Vec<(u32, u64)>,
    _key: std::marker::PhantomData<K>,
}

/// How a walk ended.
enum Walked<K: Key> {
    Done(Layer<K>, BigUint),
    /// Stopped by the flag after `done` steps of the phase.
    Interrupted(usize),
}

impl<'a, K: Key> Run<'a, K> {
    fn new(
        job: &'a Job,
        walk: Walk,
        method: Method,
        stop: &'a AtomicBool,
        obs: &'a dyn Observer,
    ) -> Result<Run<'a, K>, RunError> {
        let spec = &job.spec;
        let closed = spec.closed;
        let number = |s| walk.number(s);
        let mut rules = Rules::default();
        let mut settled = None;
        match (spec.from.map(number), spec.to.map(number)) {
            (Some(a), Some(b)) if a == b && walk.n > 1 => {
                settled = Some((
                    BigUint::ZERO,
                    "a tour of more than one square cannot start and end on the same square",
                ));
            }
            (Some(a), Some(b)) if closed => {
                if walk.nb[a as usize].contains(&b) {
                    rules.forced_edge = Some((a, b));
                } else {
                    settled = Some((
                        BigUint::ZERO,
                        "a closed tour ends a move away from its start, and these squares are not",
                    ));
                }
            }
            (a, b) if !closed => rules.terminals = a.into_iter().chain(b).collect(),
            _ => {}
        }
        if walk.n == 1 {
            let one = if closed { 0u32 } else { 1 };
            settled = Some((BigUint::from(one), "a board of one square"));
        }
        let symmetric = spec.from.is_none() && spec.to.is_none() && spec.symmetry;
        rules.mirror = symmetric;
        let cut = match method {
            Method::Sweep => None,
            Method::Meet | Method::MeetAt(_) => {
                let left = match method {
                    Method::MeetAt(c) => c,
                    _ => (walk.len - 1) / 2,
                };
                let c = cut_for(&walk, left).filter(|_| symmetric);
                if c.is_none() {
                    return Err(Error::Invalid(format!(
                        "meeting in the middle needs a symmetric count (no --from/--to) and a board of at least {} columns along its long side",
                        2 * walk.reach.max(1)
                    ))
                    .into());
                }
                c
            }
            Method::Auto => cut_for(&walk, (walk.len - 1) / 2).filter(|_| symmetric),
        };
        let total = match cut {
            None => walk.n as usize,
            Some(c) => ((c.left.max(c.right) + c.cross) * walk.w) as usize + 1,
        };
        let sq = |s: Option<crate::board::Square>| s.map_or("-".into(), |s| job.board.name(s));
        let name = RunName {
            fields: vec![
                ("version", env!("CARGO_PKG_VERSION").to_string()),
                ("board", job.board.to_string()),
                ("piece", job.piece.to_string()),
                ("kind", if closed { "closed" } else { "open" }.to_string()),
                ("from", sq(spec.from)),
                ("to", sq(spec.to)),
                (
                    "symmetry",
                    if spec.symmetry { "yes" } else { "no" }.to_string(),
                ),
                (
                    "mode",
                    match cut {
                        None => "sweep".to_string(),
                        Some(c) => format!("meet-in-the-middle {}", c.left),
                    },
                ),
            ],
        };
        Ok(Run {
            job,
            walk,
            rules,
            cut,
            stop,
            obs,
            name,
            sweep: Sweep {
                closed,
                limit: job.max_memory,
                stop,
                peak_bytes: 0,
                peak_states: 0,
                spare: None,
                growth: Vec::new(),
                older: Vec::new(),
                last_growth: 1.0,
            },
            saver: Saver {
                path: job.checkpoint.as_deref(),
                last: Instant::now(),
                cost: Duration::ZERO,
                saved: false,
            },
            t0: Instant::now(),
            total,
            settled,
            probe: false,
            sizes: Vec::new(),
            _key: std::marker::PhantomData,
        })
    }

    fn go(mut self) -> Result<Outcome, RunError> {
        if let Some((n, why)) = self.settled.take() {
            return Ok(self.outcome(Some(n), why.to_string(), 0));
        }
        self.probe = !self.job.force && self.job.checkpoint.as_deref().is_none_or(|p| !p.exists());
        let resume = match self.job.checkpoint.as_deref() {
            Some(p) => snapshot::load::<K>(p, &self.name)?,
            None => None,
        };
        match self.cut {
            None => self.sweep_all(resume),
            Some(cut) => self.meet(cut, resume),
        }
    }

    /// See [`profile`]; a column cut short by the budget ends the list with the states reached
    /// (a lower bound on the column's).
    fn profile(&mut self, max_states: u64) -> Vec<(u32, u64)> {
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        let mut layer = Layer::single(K::ZERO, 1);
        let mut out = Vec::new();
        let w = self.walk.w;
        for (i, step) in steps[..steps.len() - 1].iter().enumerate() {
            match self.sweep.step(&layer, step, |_| true) {
                Ok((next, _)) => layer = next,
                Err(_) => break,
            }
            let col = i as u32 / w + 1;
            if (i as u32 + 1) % w == 0 || layer.len() > max_states {
                out.push((col, layer.len()));
            }
            if layer.len() > max_states {
                break;
            }
        }
        out
    }

    /// See [`reach`].
    fn reach(&mut self) -> Reach {
        let sizes = self.profile(PROBE_STATES);
        self.estimate(&sizes)
    }

    /// The estimate of [`reach`] from the forward walk's column sizes `sizes`.
    fn estimate(&self, sizes: &[(u32, u64)]) -> Reach {
        let (w, len) = (self.walk.w, self.walk.len);
        let known = |c: u32| sizes.iter().find(|s| s.0 == c).map(|s| s.1 as f64);
        // column sizes: measured, then each growth ratio the square root of the last, with no
        // growth past w + 2 columns (where long boards level off)
        let mut col = vec![1.0f64; len as usize + 1];
        let mut ratio = 1.0f64;
        for c in 1..=len as usize {
            col[c] = match known(c as u32) {
                Some(x) => {
                    ratio = (x / col[c - 1].max(1.0)).max(1.0);
                    x
                }
                None if c as u32 > w + 2 => col[c - 1],
                None => {
                    ratio = ratio.sqrt();
                    col[c - 1] * ratio
                }
            };
        }
        let states = match self.cut {
            Some(cut) => col[cut.right as usize].max(CROSSING_GROWTH * col[cut.left as usize]),
            None => col[(len as usize * 3).div_ceil(4)],
        };
        let entry = (K::BYTES + 8) as f64;
        // two tables at 3/4 full, plus the join's index and the batches
        let bytes = states * entry / 0.75 * 2.5;
        let threads = self.job.thread_count().max(1) as f64;
        let seconds = states * f64::from(2 * w) * SECONDS_PER_STATE / threads;
        Reach {
            states,
            bytes,
            seconds,
        }
    }

    /// The reach check, on the count's own forward walk (no separate probe): once a layer passes
    /// [`PROBE_STATES`] states, or at the end of the walk, the column sizes so far give the
    /// estimate of [`reach`]; a count far out of reach stops there with the estimate, unless
    /// `--force`.
    fn check_reach(&mut self, square: usize, layer: &Layer<K>, end: bool) -> Result<(), RunError> {
        let w = self.walk.w as usize;
        if (square + 1) % w == 0 {
            self.sizes
                .push(((square + 1) as u32 / w as u32, layer.len()));
        }
        if !self.probe || !(end || layer.len() > PROBE_STATES) {
            return Ok(());
        }
        self.probe = false;
        let mut sizes = self.sizes.clone();
        if layer.len() > PROBE_STATES && (square + 1) % w != 0 {
            // a column cut short: its states so far are a lower bound on the column's
            sizes.push(((square / w + 1) as u32, layer.len()));
        }
        let r = self.estimate(&sizes);
        if r.bytes > self.job.max_memory as f64 || r.seconds > crate::count::REACH_SECONDS {
            return Err(Error::Invalid(format!(
                "counting these tours on {} with the frontier engine is out of reach: its largest layer is estimated at {:.1e} states, about {} of tables and {} (the memory bound is {}, set with --max-memory); --force starts it anyway (it stops when the tables pass the bound); `knights estimate` gives an estimate of the count",
                self.job.board,
                r.states,
                human_bytes(r.bytes as u64),
                crate::count::human_duration(r.seconds),
                human_bytes(self.job.max_memory)
            ))
            .into());
        }
        if r.seconds > 60.0 {
            self.obs.info(&format!(
                "this count may take about {} and {} of memory (a rough estimate)",
                crate::count::human_duration(r.seconds),
                human_bytes(r.bytes as u64)
            ));
        }
        Ok(())
    }

    fn progress(&self, done: usize, layer: &Layer<K>, phase: &'static str) {
        self.obs.layer(&LayerProgress {
            done,
            total: self.total,
            states: layer.len(),
            bytes: layer.bytes(),
            phase,
        });
    }

    /// Walks `layer` through `steps[first..]` (step `i` of the phase is layer `base + i` of the
    /// run), saving now and then `extra` with the current layer as `phase`.
    #[allow(clippy::too_many_arguments)]
    fn walk_steps(
        &mut self,
        mut layer: Layer<K>,
        steps: &[Step<K>],
        first: usize,
        base: usize,
        phase: &'static str,
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        extra: &[(&str, &Layer<K>)],
    ) -> Result<Walked<K>, RunError> {
        let mut tours = BigUint::ZERO;
        for (i, step) in steps.iter().enumerate().skip(first) {
            match self.sweep.step(&layer, step, |k| keep(i, k)) {
                Ok((next, t)) => {
                    tours += t;
                    let old = std::mem::replace(&mut layer, next);
                    self.sweep.recycle(old);
                    self.sweep.peak_states = self.sweep.peak_states.max(layer.len());
                    self.saver.saved = false;
                    self.progress(base + i + 1, &layer, phase);
                    if phase != "crossing" {
                        self.check_reach(i, &layer, i + 1 == steps.len())?;
                    }
                    if self.saver.due() && i + 1 < steps.len() {
                        self.saver
                            .save(&self.name, phase, i + 1, &with_current(extra, &layer))?;
                    }
                }
                Err(Stopped::Interrupted) => {
                    if !self.saver.saved {
                        self.saver
                            .save(&self.name, phase, i, &with_current(extra, &layer))?;
                    }
                    return Ok(Walked::Interrupted(base + i));
                }
                Err(Stopped::Memory(bytes)) => return Err(self.memory_error(bytes, base + i)),
                Err(Stopped::Overflow) => unreachable!("a step widens its counts"),
            }
        }
        Ok(Walked::Done(layer, tours))
    }

    fn memory_error(&self, bytes: u64, at: usize) -> RunError {
        Error::Invalid(format!(
            "the frontier tables for {} need more than {} at layer {} of {} (the bound is {}; raise it with --max-memory SIZE, or count boards of up to 64 squares with --engine dfs)",
            self.job.board,
            human_bytes(bytes),
            at + 1,
            self.total,
            human_bytes(self.job.max_memory)
        ))
        .into()
    }

    /// One sweep from the first square to the last.
    fn sweep_all(mut self, resume: Option<Snapshot<K>>) -> Result<Outcome, RunError> {
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        let (layer, first) = match resume {
            Some(mut s) if s.phase == "sweep" => {
                let done = s.done;
                (s.take("current").ok_or_else(|| self.foreign_phase())?, done)
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (Layer::single(K::ZERO, 1), 0),
        };
        self.saver.saved = first > 0;
        self.progress(first, &layer, "sweep");
        let keep = |_: usize, _: K| true;
        match self.walk_steps(layer, &steps, first, 0, "sweep", &keep, &[])? {
            Walked::Done(_, tours) => {
                let how = format!(
                    "frontier sweep along the {} squares of the long side, {} square{} a layer{}",
                    self.walk.len,
                    self.walk.w,
                    crate::render::plural(self.walk.w as u64),
                    if self.rules.mirror {
                        ", mirror images merged"
                    } else {
                        ""
                    }
                );
                Ok(self.outcome(Some(tours), how, self.total))
            }
            Walked::Interrupted(done) => Ok(self.outcome(None, String::new(), done)),
        }
    }

    /// Both halves to the cut, the crossing, and the join.
    fn meet(mut self, cut: Cut, resume: Option<Snapshot<K>>) -> Result<Outcome, RunError> {
        let w = self.walk.w;
        let (lsq, rsq) = ((cut.left * w) as usize, (cut.right * w) as usize);
        let cross_end = ((cut.left + cut.cross) * w) as usize;
        let cross_steps = cross_end - lsq;
        let keep_all = |_: usize, _: K| true;
        let (mut phase, mut done, mut resumed) = match resume {
            None => ("forward".to_string(), 0, None),
            Some(s) => (s.phase.clone(), s.done, Some(s)),
        };
        self.saver.saved = resumed.is_some();
        let mut take = |name: &str| resumed.as_mut().and_then(|s| s.take(name));
        let (mut current, mut left, mut right) = (take("current"), take("left"), take("right"));
        if phase == "forward" {
            let fwd = layout::steps::<K>(&self.walk, &self.rules, 0, lsq.max(rsq) as u32);
            let mut layer = match current.take() {
                Some(l) => l,
                None if done == 0 => Layer::single(K::ZERO, 1),
                None => return Err(self.foreign_phase()),
            };
            self.progress(done, &layer, "forward");
            // the halves' tables are taken where the walk passes their column counts
            let (first, second) = (lsq.min(rsq), lsq.max(rsq));
            let first_name = if lsq <= rsq { "left" } else { "right" };
            if done < first {
                match self.walk_steps(layer, &fwd[..first], done, 0, "forward", &keep_all, &[])? {
                    Walked::Done(l, _) => layer = l,
                    Walked::Interrupted(d) => return Ok(self.outcome(None, String::new(), d)),
                }
                done = first;
            }
            let early = match if lsq <= rsq {
                left.take()
            } else {
                right.take()
            } {
                Some(t) => t,
                None if done == first => layer.clone(),
                None => return Err(self.foreign_phase()),
            };
            if done < second {
                let extra = [(first_name, &early)];
                match self.walk_steps(layer, &fwd, done, 0, "forward", &keep_all, &extra)? {
                    Walked::Done(r, _) => layer = r,
                    Walked::Interrupted(d) => return Ok(self.outcome(None, String::new(), d)),
                }
            }
            let (l, r) = if lsq <= rsq {
                (early, layer)
            } else {
                (layer, early)
            };
            right = Some(r);
            current = Some(l);
            phase = "crossing".into();
            done = 0;
            let (r, c) = (right.as_ref().expect("set"), current.as_ref().expect("set"));
            self.saver
                .save(&self.name, &phase, 0, &[("right", r), ("current", c)])?;
        }
        let right = right.ok_or_else(|| self.foreign_phase())?;
        let boundary = Boundary {
            slots: (0..cross_steps as u32).rev().collect(),
        };
        let index = self.right_index(&right, cut, &boundary);
        let index_bytes = index.bytes();
        let base = lsq.max(rsq);
        let mut crossing = current.take().ok_or_else(|| self.foreign_phase())?;
        if phase == "crossing" {
            let mut rules = self.rules.clone();
            rules.cut = Some(lsq as u32);
            let steps = layout::steps::<K>(&self.walk, &rules, lsq as u32, cross_end as u32);
            let prefixes = Prefixes::new(&index, cross_steps);
            let keep = |i: usize, k: K| prefixes.admits(i, k);
            self.progress(base + done, &crossing, "crossing");
            self.sweep.limit = self.job.max_memory.saturating_sub(index_bytes);
            let extra = [("right", &right)];
            match self.walk_steps(crossing, &steps, done, base, "crossing", &keep, &extra)? {
                Walked::Done(l, _) => crossing = l,
                Walked::Interrupted(d) => return Ok(self.outcome(None, String::new(), d)),
            }
            self.saver.save(
                &self.name,
                "join",
                0,
                &[("right", &right), ("current", &crossing)],
            )?;
        } else if phase != "join" {
            return Err(self.foreign_phase());
        }
        drop(right);
        self.sweep.peak_states = self.sweep.peak_states.max(crossing.len());
        self.sweep.peak_bytes = self.sweep.peak_bytes.max(crossing.bytes() + index_bytes);
        self.progress(self.total - 1, &crossing, "join");
        let Some(sum) = join::join(
            &crossing,
            &boundary,
            &index,
            self.job.spec.closed,
            self.stop,
        ) else {
            return Ok(self.outcome(None, String::new(), self.total - 1));
        };
        let how = format!(
            "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns ({} and {} states), mirror images merged",
            cut.left,
            cut.right,
            cut.cross,
            crossing.len(),
            index.len()
        );
        Ok(self.outcome(Some(sum), how, self.total))
    }

    /// The right half's table indexed as the left half's crossing sees it: mirror images
    /// expanded (a state and its image share the merged count), and the slots renumbered to the
    /// crossing's.
    fn right_index(&self, right: &Layer<K>, cut: Cut, boundary: &Boundary) -> RightIndex {
        let (w, h) = (self.walk.w as usize, cut.cross as usize);
        let m = w * h;
        let window = K::SLOTS as usize;
        let mirror: Vec<u8> = (0..window)
            .map(|s| if s < m { (s / w) * w + (w - 1 - s % w) } else { s } as u8)
            .collect();
        // right slot q*w + r is the square (cut.left + q, w - 1 - r): crossing slot (h-1-q)*w + r
        let remap: Vec<u8> = (0..window)
            .map(|s| if s < m { (h - 1 - s / w) * w + s % w } else { s } as u8)
            .collect();
        RightIndex::new(right, &mirror, &remap, m as u32, boundary)
    }

    fn foreign_phase(&self) -> RunError {
        let path = self.job.checkpoint.clone().unwrap_or_default();
        CheckpointError::Damaged {
            path,
            why: "it stops at a point this run does not have".into(),
        }
        .into()
    }

    fn outcome(&self, tours: Option<BigUint>, how: String, done: usize) -> Outcome {
        let spec = &self.job.spec;
        let finished = tours.is_some();
        let t = tours.unwrap_or_default();
        let fixed = if spec.closed {
            spec.from.is_some() && spec.to.is_some()
        } else {
            spec.from.is_some() || spec.to.is_some()
        };
        let (directed, undirected) = if fixed || (!spec.closed && self.walk.n == 1) {
            (t.clone(), t)
        } else {
            (&t * 2u32, t)
        };
        let how = if finished {
            how
        } else {
            "interrupted: the frontier engine counts tours at its last layer, so there is no partial count".into()
        };
        Outcome {
            count: Count {
                directed,
                undirected,
                how,
                reason: None,
                per_square: None,
                seconds: self.t0.elapsed().as_secs_f64(),
                peak: Some(Peak {
                    window: self.walk.window(),
                    states: self.sweep.peak_states,
                    bytes: self.sweep.peak_bytes,
                }),
            },
            engine: Engine::Frontier,
            threads: self.job.thread_count(),
            units: self.total,
            units_done: done,
            units_mine: self.total,
            shard: Shard::ALL,
            finished,
            checkpoint: self.job.checkpoint.clone(),
        }
    }
}

/// The tables of a checkpoint: `extra`, then the current layer.
fn with_current<'t, K: Key>(
    extra: &[(&'t str, &'t Layer<K>)],
    layer: &'t Layer<K>,
) -> Vec<(&'t str, &'t Layer<K>)> {
    extra.iter().copied().chain([("current", layer)]).collect()
}
