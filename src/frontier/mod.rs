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
//!
//! # Pieces
//!
//! A count that meets in the middle is cut into *pieces* (see `pieces.rs`) that the count driver
//! records, shards and merges like the DFS's work units. Every tour crosses the first column past
//! the cut in one pattern: how many of its edges each square there takes from the left. That
//! pattern never changes once the column is walked, so the crossing's states after that column
//! fall apart by pattern into sets whose later layers never meet; a piece is a set of patterns
//! (a pattern and its mirror image count as one), and its tables hold only its own states. The
//! walk to the cut and across that first column is shared by all pieces; the rest of the
//! crossing and the join, where the tables are largest, are the pieces'. Each piece counts a
//! whole number of tours, and the pieces' counts add up to the total exactly.

pub(crate) mod expand;
mod grid;
mod join;
pub(crate) mod layout;
mod leaves;
mod pieces;
pub mod snapshot;
pub(crate) mod state;
mod sweep;
mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use num_bigint::BigUint;

use crate::board::Board;
use crate::engine::{
    Count, CountEngine, CountSpec, GridSize, Host, LayerProgress, Limits, Observer, Peak, Quiet,
    Ran, Recorded, Request, RunError, Split,
};
use crate::error::Error;
use crate::hash::Fnv;
use crate::human::{group_u64, human_bytes, human_duration, plural};
use crate::piece::Piece;
use crate::store::{CheckpointError, TurnLock, beside};

pub(crate) use grid::grid_of_param;
pub use grid::{Grid, GridPiece, LEAF_STATES, MAX_DIGITS, MAX_PARTS};
use join::{Boundary, MAX_BOUNDARY, Prefixes, RightIndex};
use layout::{Rules, Step, Walk};
use pieces::Assignment;
use snapshot::{RunName, Snapshot};
use state::Key;
use sweep::Sweep;
use table::{Bound, Layer, Stopped};

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

/// Whether the frontier engine cuts this count into many pieces: it does where it meets in the
/// middle (symmetric counts on boards long enough); a count it walks in one sweep is one piece.
#[must_use]
pub fn splits(board: Board, piece: &Piece, spec: &CountSpec) -> bool {
    supports(board, piece, spec).is_ok()
        && auto_cut(&Walk::new(board, piece), symmetric(spec)).is_some()
}

/// Whether a count's tours have fixed ends, so that each is counted once with its direction.
fn fixed(spec: &CountSpec) -> bool {
    if spec.closed {
        spec.from.is_some() && spec.to.is_some()
    } else {
        spec.from.is_some() || spec.to.is_some()
    }
}

/// Whether a count is symmetric: the mirror merge and meeting in the middle apply.
fn symmetric(spec: &CountSpec) -> bool {
    spec.from.is_none() && spec.to.is_none() && spec.symmetry
}

/// `$body` with `$K` the key type the walk's window needs: `u64` where its squares' slots fit
/// one, `u128` beyond (a short side of 8 for the knight). Every entry point that makes a `Run`
/// chooses so.
macro_rules! keyed {
    ($walk:expr, $K:ident => $body:expr) => {
        if $walk.window() <= u64::SLOTS {
            type $K = u64;
            $body
        } else {
            type $K = u128;
            $body
        }
    };
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
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece);
    let limits = quiet_limits();
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Sweep, &stop, &Quiet)?.profile(max_states)))
}

/// Limits for a walk run outside the driver: every thread of the pool, the default memory bound.
fn quiet_limits() -> Limits {
    Limits {
        threads: rayon::current_num_threads(),
        max_memory: u64::MAX,
        force: true,
        pieces: None,
        shards: 1,
        checkpoint: None,
        split: None,
        grid: None,
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
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece);
    let limits = quiet_limits();
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?.reach()))
}

/// Counts with a chosen method (for cross-checks and benchmarks), in one piece.
pub fn count(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    method: Method,
) -> Result<Count, RunError> {
    count_with(board, piece, spec, method, Some(1))
}

/// Counts with a chosen method cut into `pieces` pieces (`None`: as many as the memory needs),
/// every piece counted here one after another: the split count, for the tests to hold against
/// the whole.
pub fn count_with(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    method: Method,
    pieces: Option<usize>,
) -> Result<Count, RunError> {
    let req = Request { board, piece, spec };
    let limits = Limits {
        pieces,
        force: false,
        max_memory: crate::engine::default_max_memory(),
        ..quiet_limits()
    };
    let host = Alone::default();
    let ran = run_method(req, &limits, method, &host)?;
    let (split, counts) = host.into_parts();
    let mut count = Frontier.total(req, &split, &counts, true)?;
    count.how = ran.how.unwrap_or(count.how);
    count.peak = ran.peak;
    Ok(count)
}

/// The walk of a grid entry point (`count_grid`, `grid_right_sizes`): the request checked, a
/// `Run` of the key width the board's window needs under `max_memory`, and `$go` on it.
macro_rules! grid_run {
    ($board:expr, $piece:expr, $spec:expr, $max_memory:expr, $obs:expr, |$run:ident| $go:expr) => {{
        supports($board, $piece, $spec)?;
        crate::engine::set_huge_pages(true);
        let req = Request {
            board: $board,
            piece: $piece,
            spec: $spec,
        };
        let walk = Walk::new($board, $piece);
        let limits = Limits {
            max_memory: $max_memory,
            ..quiet_limits()
        };
        let stop = AtomicBool::new(false);
        keyed!(walk, K => {
            let $run = Run::<K>::new(req, &limits, walk, Method::Auto, &stop, $obs)?;
            $go
        })
    }};
}

/// Counts the pieces `which` of a grid (see [`Grid`]) one after another, under `max_memory`,
/// telling `report` each piece as it is done (the walks all pieces share are made first) and
/// `obs` each stage of a piece.
#[allow(clippy::too_many_arguments)]
pub fn count_grid(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    grid: Grid,
    which: &[u64],
    max_memory: u64,
    obs: &dyn Observer,
    report: &mut dyn FnMut(&GridPiece),
) -> Result<(), RunError> {
    grid_run!(board, piece, spec, max_memory, obs, |run| run
        .grid(grid, which, report))
}

/// The grid piece whose finished leaves the file at `path` (`FILE.leaves` beside a checkpoint)
/// holds for the run of `fingerprint`, and how many: `(piece, leaves)`, the piece numbered from
/// 0. `None` where there is no such file or it is another run's.
#[must_use]
pub fn grid_leaves(path: &Path, fingerprint: u64) -> Option<(u64, usize)> {
    leaves::LeafLog::open(Some(path.to_path_buf()), fingerprint).held()
}

/// The right half's states at the cut by prefix of `digits` boundary digits (as a grid cuts
/// it), each prefix walked on its own: `(prefix, states, seconds)`, for measuring how even a
/// grid's pieces are before counting any.
pub fn grid_right_sizes(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    digits: u32,
    max_memory: u64,
) -> Result<Vec<(u32, u64, f64)>, RunError> {
    grid_run!(board, piece, spec, max_memory, &Quiet, |run| run
        .grid_right_sizes(digits))
}

/// The undirected count by every piece of a grid, summed: for the tests to hold against the
/// unsplit count.
pub fn count_by_grid(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    grid: Grid,
) -> Result<BigUint, RunError> {
    let which: Vec<u64> = (0..grid.pieces()).collect();
    let mut total = BigUint::ZERO;
    count_grid(
        board,
        piece,
        spec,
        grid,
        &which,
        crate::engine::default_max_memory(),
        &Quiet,
        &mut |p| total += &p.count,
    )?;
    Ok(total)
}

/// A host for a count run outside the driver: every piece, nothing recorded.
#[derive(Default)]
struct Alone {
    stop: AtomicBool,
    state: std::sync::Mutex<(Option<Recorded>, BTreeMap<usize, BigUint>)>,
}

impl Alone {
    fn into_parts(self) -> (Recorded, BTreeMap<usize, BigUint>) {
        let (split, counts) = self.state.into_inner().expect("no panic holding the lock");
        (split.expect("the engine tells its cut"), counts)
    }
}

impl Host for Alone {
    fn start(&self, split: &Split) -> Result<Vec<usize>, RunError> {
        self.state.lock().expect("no panic holding the lock").0 = Some(Recorded {
            pieces: split.pieces,
            param: split.param,
            fingerprint: split.fingerprint,
        });
        Ok((0..split.pieces).collect())
    }

    fn done(&self, i: usize, count: BigUint) -> Result<(), RunError> {
        self.state
            .lock()
            .expect("no panic holding the lock")
            .1
            .insert(i, count);
        Ok(())
    }

    fn recorded(&self) -> Option<Recorded> {
        None
    }

    fn stop(&self) -> &AtomicBool {
        &self.stop
    }

    fn observer(&self) -> &dyn Observer {
        &Quiet
    }
}

/// The frontier engine as an engine of the driver.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frontier;

impl CountEngine for Frontier {
    fn name(&self) -> &'static str {
        "frontier"
    }

    fn run(&self, req: Request<'_>, limits: &Limits, host: &dyn Host) -> Result<Ran, RunError> {
        run_method(req, limits, Method::Auto, host)
    }

    fn total(
        &self,
        req: Request<'_>,
        cut: &Recorded,
        counts: &BTreeMap<usize, BigUint>,
        _complete: bool,
    ) -> Result<Count, RunError> {
        let spec = req.spec;
        let t: BigUint = counts.values().sum();
        let walk = Walk::new(req.board, req.piece);
        let (directed, undirected) = if fixed(spec) || (!spec.closed && walk.n == 1) {
            (t.clone(), t)
        } else {
            (&t * 2u32, t)
        };
        let how = match auto_cut(&walk, symmetric(spec)) {
            Some(c) if grid_of_param(cut.param).is_some() => format!(
                "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns in a grid of {} pieces",
                c.left,
                c.right,
                c.cross,
                group_u64(cut.pieces as u64)
            ),
            Some(c) => format!(
                "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns in {} piece{}, mirror images merged",
                c.left,
                c.right,
                c.cross,
                group_u64(cut.pieces as u64),
                plural(cut.pieces as u64)
            ),
            None => sweep_how(&walk, symmetric(spec)),
        };
        Ok(Count {
            directed,
            undirected,
            how,
            reason: None,
            per_square: None,
            seconds: 0.0,
            peak: None,
        })
    }
}

/// How a sweep is described.
fn sweep_how(walk: &Walk, mirror: bool) -> String {
    format!(
        "frontier sweep along the {} squares of the long side, {} square{} a layer{}",
        walk.len,
        walk.w,
        plural(u64::from(walk.w)),
        if mirror { ", mirror images merged" } else { "" }
    )
}

fn run_method(
    req: Request<'_>,
    limits: &Limits,
    method: Method,
    host: &dyn Host,
) -> Result<Ran, RunError> {
    supports(req.board, req.piece, req.spec)?;
    // the tables grow large from small first layers: huge pages before any of them
    crate::engine::set_huge_pages(true);
    let walk = Walk::new(req.board, req.piece);
    let (stop, obs) = (host.stop(), host.observer());
    keyed!(walk, K => Run::<K>::new(req, limits, walk, method, stop, obs)?.go(host))
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

/// Why a count cannot meet in the middle, as the end of "meeting in the middle needs ...": a
/// symmetric count (mirror images are merged at the meeting), or a board long enough for two
/// halves and the crossing between them.
fn no_meeting(walk: &Walk, symmetric: bool, board: Board) -> String {
    let (h, w) = (walk.reach.max(1), walk.w);
    // the shortest long side with a left half of a column and a right half longer than the
    // crossing, met at `(len - 1) / 2` as `cut_for` is asked
    let fits = |len: u32| (len - 1) / 2 >= 1 && len - (len - 1) / 2 > h;
    if !symmetric {
        "a symmetric count (no --from, --to or --no-symmetry)".to_string()
    } else if !fits(walk.len) {
        let shortest = (walk.len..).find(|&n| fits(n)).unwrap_or(walk.len);
        format!(
            "a board of at least {shortest} columns along its long side, and {board} has {}",
            walk.len
        )
    } else if h * w > MAX_BOUNDARY {
        format!(
            "a crossing of at most {MAX_BOUNDARY} squares, and the piece's crossing on {board} has {}",
            h * w
        )
    } else {
        format!(
            "a crossing whose every square the piece reaches from the left half, and on {board} some it does not"
        )
    }
}

/// The cut `Method::Auto` meets at, for a symmetric count: the left half one column shorter
/// than the right on a board of even length (its crossing then starts from the smaller table:
/// 6x8 open takes 4.4 s so and 21 s with equal halves), as long as the right on an odd length;
/// but halves of equal length where the window is wider than a `u64` holds (a short side of 8
/// for the knight). There the right half's table, which the join keeps with its index, is too
/// large beside the walk that made it: 8x8 closed peaked at 16.7 GB resident meeting after
/// three columns, and at 9.7 GB after four, with the crossing's second column cut into pieces
/// (`results/eight.md`).
fn auto_cut(walk: &Walk, symmetric: bool) -> Option<Cut> {
    if !symmetric {
        return None;
    }
    let wide = walk.window() > u64::SLOTS;
    let left = if wide && walk.len % 2 == 0 {
        walk.len / 2
    } else {
        (walk.len - 1) / 2
    };
    cut_for(walk, left).or_else(|| cut_for(walk, (walk.len - 1) / 2))
}

/// Saves a checkpoint now and then: after a layer when the last save is at least
/// [`SAVE_RATIO`] times its own duration old (so saving costs at most 1/`SAVE_RATIO` of the
/// time), at the end of every stage, and when the count is interrupted.
struct Saver {
    /// The stage in progress: `FILE.layers` beside the checkpoint log.
    path: Option<PathBuf>,
    last: Instant,
    cost: Duration,
    /// Whether the last finished layer is saved.
    saved: bool,
}

const SAVE_RATIO: u32 = 20;

impl Saver {
    fn due(&self) -> bool {
        self.path.is_some() && self.last.elapsed() >= self.cost * SAVE_RATIO
    }

    fn save<K: Key>(
        &mut self,
        name: &RunName,
        stage: (&str, usize, usize, usize),
        tables: &[(&str, &Layer<K>)],
    ) -> Result<(), RunError> {
        if let Some(path) = &self.path {
            let t = Instant::now();
            let (phase, done, layer, layers) = stage;
            snapshot::save(path, name, phase, done, (layer, layers), tables)?;
            self.cost = t.elapsed();
            self.last = Instant::now();
        }
        self.saved = true;
        Ok(())
    }

    /// Forgets the stage saved (it is finished and recorded elsewhere).
    fn clear(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
        self.saved = false;
    }
}

/// What the right half's saved index adds to its split's name.
const INDEX_SUFFIX: &str = ".index";

/// One frontier count.
struct Run<'a, K: Key> {
    req: Request<'a>,
    limits: &'a Limits,
    walk: Walk,
    rules: Rules,
    cut: Option<Cut>,
    stop: &'a AtomicBool,
    obs: &'a dyn Observer,
    name: RunName,
    sweep: Sweep<'a, K>,
    saver: Saver,
    /// Where the work all pieces share is kept once done: `FILE.split` beside the log.
    split_path: Option<PathBuf>,
    /// The piece being counted, for progress: `(number, pieces)`.
    piece: Option<(usize, usize)>,
    /// Layers of the current stage (steps, plus one for a join).
    total: usize,
    /// Steps of the walk before the current stage's first (a piece's walk starts past the
    /// crossing's first column): subtracted from step numbers in progress and messages.
    offset: usize,
    /// How many headline tours a unit of this count stands for (2 for open tours in both
    /// directions counted once), for progress.
    scale: u64,
    /// A count settled before any walk (a path from a square to itself, non-adjacent ends).
    settled: Option<(BigUint, &'static str)>,
    /// Whether the reach check is still to come (see [`Run::check_reach`]).
    probe: bool,
    /// The forward walk's layer sizes at column ends: `(columns, states)`.
    sizes: Vec<(u32, u64)>,
    /// The grid the count is cut into, once it is.
    grid: Option<GridSize>,
    /// The finished leaves of the grid piece in progress (`FILE.leaves`).
    leaves: leaves::LeafLog,
    _key: std::marker::PhantomData<K>,
}

/// How a walk ended.
enum Walked<K: Key> {
    Done(Layer<K>, BigUint),
    /// Stopped by the flag.
    Interrupted,
}

/// What the work all pieces share leaves: the right half's table, the crossing's layer after
/// its first column (the split layer), and the rate the crossing went at (seconds a state, for
/// projecting the pieces' time).
struct Shared<K: Key> {
    /// The right half's table: `None` when its index was read instead.
    right: Option<Layer<K>>,
    /// States of the right half's table.
    right_len: u64,
    first: Layer<K>,
    rate: f64,
    /// The right half's index: the one the crossing's first column was walked with when this
    /// process made the split, or the one saved beside the split when it was read; `None`
    /// when a split was read without a usable index (its pieces index the right half again).
    index: Option<RightIndex>,
}

impl<'a, K: Key> Run<'a, K> {
    fn new(
        req: Request<'a>,
        limits: &'a Limits,
        walk: Walk,
        method: Method,
        stop: &'a AtomicBool,
        obs: &'a dyn Observer,
    ) -> Result<Run<'a, K>, RunError> {
        let spec = req.spec;
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
        let symmetric = symmetric(spec);
        rules.mirror = symmetric;
        let cut = match method {
            Method::Sweep => None,
            Method::Meet | Method::MeetAt(_) => {
                let (left, asked) = match method {
                    Method::MeetAt(c) => (c, true),
                    _ => ((walk.len - 1) / 2, false),
                };
                let c = cut_for(&walk, left).filter(|_| symmetric);
                if c.is_none() {
                    let h = walk.reach.max(1);
                    let why = if asked
                        && symmetric
                        && !(left >= 1 && walk.len - left.min(walk.len) > h)
                    {
                        // a cut asked for, not the middle `no_meeting` reasons about
                        format!(
                            "meeting after {left} columns needs a left half of at least one column and a right half of more than {h}, and {} has {} columns",
                            req.board, walk.len
                        )
                    } else {
                        format!(
                            "meeting in the middle needs {}",
                            no_meeting(&walk, symmetric, req.board)
                        )
                    };
                    return Err(Error::Invalid(why).into());
                }
                c
            }
            Method::Auto => auto_cut(&walk, symmetric),
        };
        let sq = |s: Option<crate::board::Square>| s.map_or("-".into(), |s| req.board.name(s));
        let name = RunName {
            fields: vec![
                ("version", env!("CARGO_PKG_VERSION").to_string()),
                ("board", req.board.to_string()),
                ("piece", req.piece.to_string()),
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
        let path = limits.checkpoint.as_deref();
        let walk_n = walk.n;
        Ok(Run {
            req,
            limits,
            walk,
            rules,
            cut,
            stop,
            obs,
            name,
            sweep: Sweep {
                closed,
                limit: Bound::new(limits.max_memory),
                stop,
                peak_bytes: 0,
                peak_states: 0,
                spare: None,
                growth: Vec::new(),
                older: Vec::new(),
                last_growth: 1.0,
                read: 0,
            },
            saver: Saver {
                path: path.map(|p| beside(p, ".layers")),
                last: Instant::now(),
                cost: Duration::ZERO,
                saved: false,
            },
            split_path: limits
                .split
                .clone()
                .or_else(|| path.map(|p| beside(p, ".split"))),
            piece: None,
            total: 0,
            offset: 0,
            scale: if fixed(spec) || closed || walk_n == 1 {
                1
            } else {
                2
            },
            settled,
            probe: false,
            sizes: Vec::new(),
            grid: None,
            leaves: leaves::LeafLog::default(),
            _key: std::marker::PhantomData,
        })
    }

    /// The cut of a count of one piece (a sweep, or a count settled before any walk).
    fn single(&self, what: &str) -> Split {
        let mut h = Fnv::default();
        h.eat(what.as_bytes());
        for (k, v) in &self.name.fields {
            h.eat(k.as_bytes());
            h.eat(v.as_bytes());
        }
        Split {
            pieces: 1,
            param: 0,
            fingerprint: h.value(),
            weights: vec![self.scale],
        }
    }

    fn go(mut self, host: &dyn Host) -> Result<Ran, RunError> {
        if let Some((n, why)) = self.settled.take() {
            let split = self.single("settled");
            if host.start(&split)?.contains(&0) {
                host.done(0, n)?;
            }
            return Ok(Ran {
                how: Some(why.to_string()),
                peak: None,
            });
        }
        let fresh = |p: &Option<PathBuf>| p.as_deref().is_none_or(|p| !p.exists());
        self.probe = !self.limits.force && fresh(&self.saver.path) && fresh(&self.split_path);
        let recorded = host.recorded().and_then(|r| grid_of_param(r.param));
        if let (Some(g), Some(n)) = (recorded, self.limits.pieces) {
            return Err(Error::Invalid(format!(
                "--pieces {n}: the checkpoint is of this count cut as a grid (--grid {g}); resume it with --grid {g} or without --pieces"
            ))
            .into());
        }
        match (self.cut, self.limits.grid.or(recorded)) {
            (_, Some(size)) => self.grid_go(size, host),
            (None, None) => self.sweep_all(host),
            (Some(cut), None) => self.meet(cut, host),
        }
    }

    /// See [`profile`]; a column cut short by the budget ends the list with the states reached
    /// (a lower bound on the column's).
    fn profile(&mut self, max_states: u64) -> Vec<(u32, u64)> {
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        let mut layer = Layer::single(K::ZERO, self.walk.key_bytes(), 1);
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
        let entry = (self.walk.key_bytes() + 8) as f64;
        // two tables at 3/4 full, plus the join's index and the batches
        let bytes = states * entry / 0.75 * 2.5;
        let threads = self.limits.threads.max(1) as f64;
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
        if r.bytes > self.limits.max_memory as f64 || r.seconds > crate::dfs::REACH_SECONDS {
            return Err(Error::Invalid(format!(
                "counting these tours on {} with the frontier engine is out of reach: its largest layer is estimated at {:.1e} states at least, about {} of tables and {} (a lower bound from the columns walked so far; the memory bound is {}, set with --max-memory); --force starts it anyway (it stops before the process passes the bound); `knights estimate` gives an estimate of the count",
                self.req.board,
                r.states,
                human_bytes(r.bytes as u64),
                human_duration(r.seconds),
                human_bytes(self.limits.max_memory)
            ))
            .into());
        }
        if r.seconds > 60.0 {
            self.obs.info(&format!(
                "this count may take about {} and {} of memory at least (a lower bound from the columns walked so far; the count stops before the process passes --max-memory)",
                human_duration(r.seconds),
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
            piece: self.piece,
        });
    }

    /// Walks `layer` through `steps[first..]` (step `i` is layer `base + i` of the stage),
    /// saving now and then `extra` with the current layer as `phase`.
    #[allow(clippy::too_many_arguments)]
    fn walk_steps(
        &mut self,
        mut layer: Layer<K>,
        steps: &[Step<K>],
        first: usize,
        base: usize,
        phase: &str,
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        extra: &[(&str, &Layer<K>)],
    ) -> Result<Walked<K>, RunError> {
        let mut tours = BigUint::ZERO;
        let shown: &'static str = match phase {
            "sweep" => "sweep",
            "forward" => "forward",
            _ => "crossing",
        };
        for (i, step) in steps.iter().enumerate().skip(first) {
            match self.sweep.step(&layer, step, |k| keep(i, k)) {
                Ok((next, t)) => {
                    tours += t;
                    let old = std::mem::replace(&mut layer, next);
                    self.sweep.recycle(old);
                    self.sweep.peak_states = self.sweep.peak_states.max(layer.len());
                    self.saver.saved = false;
                    self.progress(base + i + 1 - self.offset, &layer, shown);
                    if shown != "crossing" {
                        self.check_reach(i, &layer, i + 1 == steps.len())?;
                    }
                    if self.saver.due() && i + 1 < steps.len() {
                        self.saver.save(
                            &self.name,
                            (
                                phase,
                                i + 1,
                                (i + 1).saturating_sub(self.offset),
                                self.total,
                            ),
                            &with_current(extra, &layer),
                        )?;
                    }
                }
                Err(Stopped::Interrupted) => {
                    if !self.saver.saved {
                        self.saver.save(
                            &self.name,
                            (phase, i, (i).saturating_sub(self.offset), self.total),
                            &with_current(extra, &layer),
                        )?;
                    }
                    return Ok(Walked::Interrupted);
                }
                Err(Stopped::Memory(bytes)) => {
                    return Err(self.memory_error(bytes, base + i - self.offset));
                }
                Err(Stopped::Overflow) => unreachable!("a step widens its counts"),
            }
        }
        Ok(Walked::Done(layer, tours))
    }

    fn memory_error(&self, bytes: u64, at: usize) -> RunError {
        let piece = match self.piece {
            Some((i, n)) => format!(" in piece {} of {n}", i + 1),
            None => String::new(),
        };
        Error::Invalid(format!(
            "the frontier count of {} needs more than {} of memory at layer {} of {}{piece} (the bound on the whole process is {}; raise it with --max-memory SIZE{}{})",
            self.req.board,
            human_bytes(bytes),
            at + 1,
            self.total,
            human_bytes(self.limits.max_memory),
            match (self.grid.is_some(), self.cut.is_some()) {
                (true, _) => ", or cut it into a grid of more parts or digits with --grid PARTS,DIGITS",
                (false, true) => ", or cut the count into more pieces with --pieces N",
                (false, false) => "",
            },
            if self.req.board.squares() <= 64 {
                ", or count it with --engine dfs"
            } else {
                ""
            }
        ))
        .into()
    }

    /// One sweep from the first square to the last: one piece.
    fn sweep_all(&mut self, host: &dyn Host) -> Result<Ran, RunError> {
        let split = self.single("sweep");
        if host.start(&split)?.is_empty() {
            self.saver.clear();
            return Ok(Ran::default());
        }
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        self.total = steps.len();
        let resume = self.load_layers()?;
        let (layer, first) = match resume {
            Some(mut s) if s.phase == "sweep" => {
                let done = s.done;
                (s.take("current").ok_or_else(|| self.foreign_phase())?, done)
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (Layer::single(K::ZERO, self.walk.key_bytes(), 1), 0),
        };
        self.saver.saved = first > 0;
        self.progress(first, &layer, "sweep");
        let keep = |_: usize, _: K| true;
        match self.walk_steps(layer, &steps, first, 0, "sweep", &keep, &[])? {
            Walked::Done(_, tours) => {
                host.done(0, tours)?;
                self.saver.clear();
                Ok(Ran {
                    how: Some(sweep_how(&self.walk, self.rules.mirror)),
                    peak: Some(self.peak()),
                })
            }
            Walked::Interrupted => Ok(Ran::default()),
        }
    }

    fn load_layers(&self) -> Result<Option<Snapshot<K>>, RunError> {
        match &self.saver.path {
            Some(p) => Ok(snapshot::load::<K>(p, &self.name, self.walk.key_bytes())?),
            None => Ok(None),
        }
    }

    fn peak(&self) -> Peak {
        Peak {
            window: self.walk.window(),
            states: self.sweep.peak_states,
            bytes: self.sweep.peak_bytes,
        }
    }

    /// The cut of a meeting in the middle into `pieces` pieces: its fingerprint says how (the
    /// cut, the split after the crossing's first column, the rule that deals patterns out to
    /// pieces), so that shards of one run, which each make the split themselves, agree.
    fn meet_split(&self, cut: Cut, pieces: usize) -> Split {
        let mut h = Fnv::default();
        h.eat(pieces::RULE.as_bytes());
        for (k, v) in &self.name.fields {
            h.eat(k.as_bytes());
            h.eat(v.as_bytes());
        }
        for x in [cut.left, cut.right, cut.cross, self.walk.w] {
            h.eat(&x.to_le_bytes());
        }
        h.eat(&(pieces as u64).to_le_bytes());
        Split {
            pieces,
            param: self.walk.w as usize,
            fingerprint: h.value(),
            weights: vec![self.scale; pieces],
        }
    }

    /// Both halves to the cut and the crossing's first column (shared), then the pieces: each
    /// the rest of the crossing and the join.
    fn meet(&mut self, cut: Cut, host: &dyn Host) -> Result<Ran, RunError> {
        // a resumed run takes the pieces its log records, and skips the shared work when none
        // of them is left
        let mut todo = None;
        if let Some(rec) = host.recorded() {
            // (a cut unlike the log's is refused here, before any work)
            let split = self.meet_split(cut, self.limits.pieces.unwrap_or(rec.pieces));
            let left = host.start(&split)?;
            if left.is_empty() {
                self.saver.clear();
                self.clear_split();
                return Ok(Ran::default());
            }
            todo = Some((split, left));
        }
        let Some(mut shared) = self.shared(cut)? else {
            return Ok(Ran::default());
        };
        let w = self.walk.w as usize;
        let cross_steps = (cut.cross * self.walk.w) as usize;
        let boundary = Boundary {
            slots: (0..cross_steps as u32).rev().collect(),
        };
        let index = match (shared.index.take(), &shared.right) {
            (Some(i), _) => i,
            (None, Some(right)) => self.right_index(right, cut, &boundary, true)?,
            (None, None) => return Err(self.foreign_phase()),
        };
        let index_bytes = index.bytes();
        let right_len = shared.right_len;
        drop(shared.right);
        let first = shared.first;
        let assignment = Assignment::new(&first, w);
        let (split, todo) = match todo {
            Some(t) => t,
            None => {
                let pieces = self.limits.pieces.unwrap_or_else(|| {
                    self.auto_pieces(&first, index_bytes, cross_steps - w)
                        .max(self.limits.shards as usize)
                });
                let split = self.meet_split(cut, pieces);
                let todo = host.start(&split)?;
                (split, todo)
            }
        };
        let deal = assignment.deal(split.pieces);
        self.announce(&first, &deal, &split, shared.rate, cross_steps - w);
        let mut rules = self.rules.clone();
        let lsq = cut.left * self.walk.w;
        rules.cut = Some(lsq);
        let steps = layout::steps::<K>(&self.walk, &rules, lsq, lsq + cross_steps as u32);
        let prefixes = Prefixes::new(&index, cross_steps);
        // the index and the split layer stay while the pieces' tables come and go
        self.sweep.limit.tables = self
            .limits
            .max_memory
            .saturating_sub(index_bytes + first.bytes());
        let mut resume = self
            .load_layers()?
            .filter(|s| s.phase.starts_with("piece "));
        let mut final_states = 0;
        self.offset = w;
        self.total = cross_steps - w + 1;
        for &i in &todo {
            self.piece = Some((i, split.pieces));
            let phase = format!("piece {i}");
            let saved = resume
                .take_if(|s| s.phase == phase)
                .and_then(|mut s| Some((s.take("current")?, s.done)));
            let (start, done) = match saved {
                Some((layer, done)) if done >= w => (layer, done),
                Some(_) => return Err(self.foreign_phase()),
                None => {
                    let mine = |k: K| deal.piece_of(assignment.pattern(k)) == i;
                    match self.sweep.select(&first, deal.states[i], mine) {
                        Ok(l) => (l, w),
                        Err(Stopped::Memory(b)) => return Err(self.memory_error(b, w)),
                        Err(_) => return Ok(self.interrupted()),
                    }
                }
            };
            self.saver.saved = done > w;
            self.progress(done - w, &start, "crossing");
            let keep = |j: usize, k: K| prefixes.admits(j, k);
            let crossing = match self.walk_steps(start, &steps, done, 0, &phase, &keep, &[])? {
                Walked::Done(l, _) => l,
                Walked::Interrupted => return Ok(self.interrupted()),
            };
            self.sweep.peak_states = self.sweep.peak_states.max(crossing.len());
            self.sweep.peak_bytes = self
                .sweep
                .peak_bytes
                .max(crossing.bytes() + index_bytes + first.bytes());
            self.progress(self.total - 1, &crossing, "join");
            let Some(sum) = join::join(
                &crossing,
                &boundary,
                &index,
                self.req.spec.closed,
                self.stop,
            ) else {
                // the crossing is whole: keep it, and the join is all a resumed piece does
                if !self.saver.saved {
                    self.saver.save(
                        &self.name,
                        (
                            &phase,
                            cross_steps,
                            (cross_steps).saturating_sub(self.offset),
                            self.total,
                        ),
                        &[("current", &crossing)],
                    )?;
                }
                return Ok(self.interrupted());
            };
            final_states += crossing.len();
            host.done(i, sum)?;
            self.sweep.recycle(crossing);
        }
        self.saver.clear();
        self.clear_split();
        let how = format!(
            "frontier walks met in the middle: {} columns from one end, {} from the other, joined across {} columns in {} piece{} ({} crossing states and {} states of the other half here), mirror images merged",
            cut.left,
            cut.right,
            cut.cross,
            group_u64(split.pieces as u64),
            plural(split.pieces as u64),
            group_u64(final_states),
            group_u64(right_len)
        );
        Ok(Ran {
            how: Some(how),
            peak: Some(self.peak()),
        })
    }

    /// What an interrupted run reports: nothing, its finished pieces are with the driver.
    fn interrupted(&self) -> Ran {
        Ran {
            how: None,
            peak: Some(self.peak()),
        }
    }

    /// Removes the split once this process's pieces are done, unless other shards share it
    /// (`--split`): theirs may still be to come.
    fn clear_split(&self) {
        if let Some(p) = self
            .split_path
            .as_ref()
            .filter(|_| self.limits.split.is_none())
        {
            let _ = std::fs::remove_file(p);
            let _ = std::fs::remove_file(beside(p, INDEX_SUFFIX));
        }
    }

    /// The work every piece shares: both halves to the cut, and the crossing's first column.
    /// Resumes from the saved stage or the saved split; saves the split when done. `None` when
    /// interrupted.
    fn shared(&mut self, cut: Cut) -> Result<Option<Shared<K>>, RunError> {
        // one process makes a split the shards share, the others wait for it and read it; a
        // split of this run alone is guarded by the checkpoint's lock
        let shared = self
            .split_path
            .as_ref()
            .filter(|_| self.limits.split.is_some());
        let _turn = match shared {
            Some(p) => {
                let obs = self.obs;
                let waiting = || {
                    obs.info(&format!(
                        "waiting for '{}': another process is making it",
                        p.display()
                    ));
                };
                match TurnLock::wait(p, self.stop, waiting)? {
                    Some(t) => Some(t),
                    None => return Ok(None),
                }
            }
            None => None,
        };
        if let Some(p) = &self.split_path {
            if let Some(s) = self.read_split(p)? {
                return Ok(Some(s));
            }
        }
        let w = self.walk.w;
        let (lsq, rsq) = ((cut.left * w) as usize, (cut.right * w) as usize);
        let keep_all = |_: usize, _: K| true;
        let resume = self.load_layers()?;
        let (mut phase, mut done, mut resumed) = match resume {
            None => ("forward".to_string(), 0, None),
            Some(s) if s.phase == "forward" || s.phase == "crossing" => {
                (s.phase.clone(), s.done, Some(s))
            }
            Some(_) => ("forward".to_string(), 0, None),
        };
        self.saver.saved = resumed.is_some();
        self.total = lsq.max(rsq) + w as usize;
        let mut take = |name: &str| resumed.as_mut().and_then(|s| s.take(name));
        let (mut current, mut left, mut right) = (take("current"), take("left"), take("right"));
        if phase == "forward" {
            let fwd = layout::steps::<K>(&self.walk, &self.rules, 0, lsq.max(rsq) as u32);
            let mut layer = match current.take() {
                Some(l) => l,
                None if done == 0 => Layer::single(K::ZERO, self.walk.key_bytes(), 1),
                None => return Err(self.foreign_phase()),
            };
            self.progress(done, &layer, "forward");
            // the halves' tables are taken where the walk passes their column counts
            let (first, second) = (lsq.min(rsq), lsq.max(rsq));
            let first_name = if lsq <= rsq { "left" } else { "right" };
            if done < first {
                match self.walk_steps(layer, &fwd[..first], done, 0, "forward", &keep_all, &[])? {
                    Walked::Done(l, _) => layer = l,
                    Walked::Interrupted => return Ok(None),
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
                    Walked::Interrupted => return Ok(None),
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
            self.saver.save(
                &self.name,
                (&phase, 0, 0, self.total),
                &[("right", r), ("current", c)],
            )?;
        }
        let right = right.ok_or_else(|| self.foreign_phase())?;
        let crossing = current.take().ok_or_else(|| self.foreign_phase())?;
        // the crossing's first column, filtered by what the right half offers
        let cross_steps = (cut.cross * w) as usize;
        let boundary = Boundary {
            slots: (0..cross_steps as u32).rev().collect(),
        };
        let index = self.right_index(&right, cut, &boundary, true)?;
        let prefixes = Prefixes::new(&index, cross_steps);
        let index_bytes = index.bytes();
        let mut rules = self.rules.clone();
        rules.cut = Some(lsq as u32);
        let steps = layout::steps::<K>(&self.walk, &rules, lsq as u32, (lsq + w as usize) as u32);
        let keep = |i: usize, k: K| prefixes.admits(i, k);
        let base = lsq.max(rsq);
        self.progress(base + done, &crossing, "crossing");
        self.sweep.limit.tables = self
            .limits
            .max_memory
            .saturating_sub(index_bytes + right.bytes());
        let read0 = self.sweep.read;
        let t = Instant::now();
        let extra = [("right", &right)];
        let first =
            match self.walk_steps(crossing, &steps, done, base, "crossing", &keep, &extra)? {
                Walked::Done(l, _) => l,
                Walked::Interrupted => return Ok(None),
            };
        drop(prefixes);
        // seconds a state read by a crossing step costs here, for the pieces' projected time
        let rate = t.elapsed().as_secs_f64() / (self.sweep.read - read0).max(1) as f64;
        if let Some(p) = &self.split_path {
            let crc = snapshot::save(
                p,
                &self.name,
                "split",
                (rate * 1e12) as usize,
                (0, 0),
                &[("right", &right), ("first", &first)],
            )?;
            snapshot::save_index(&beside(p, INDEX_SUFFIX), &self.name, crc, &index)?;
            self.saver.clear();
        }
        Ok(Some(Shared {
            right_len: right.len(),
            right: Some(right),
            first,
            rate,
            index: Some(index),
        }))
    }

    /// The shared work saved at `p`, with the right half's index saved beside it when there is
    /// a usable one (the right half's table is then left unread); `None` when there is no file.
    fn read_split(&self, p: &Path) -> Result<Option<Shared<K>>, RunError> {
        let key = self.walk.key_bytes();
        let crc = snapshot::read_header(p)?.map(|h| h.crc);
        let ipath = beside(p, INDEX_SUFFIX);
        let mut index = crc.and_then(|c| snapshot::load_index(&ipath, &self.name, c));
        if index.is_none() && ipath.exists() {
            self.obs.info(&format!(
                "the index '{}' beside the split cannot be used (damaged, or made for another split or count): indexing the right half again",
                ipath.display()
            ));
        }
        let skip: &[&str] = if index.is_some() { &["right"] } else { &[] };
        let Some(mut s) = snapshot::load_without::<K>(p, &self.name, key, skip)? else {
            return Ok(None);
        };
        if index.is_some() && crc != Some(s.crc) {
            // another split was written between its header and its tables: read it whole
            index = None;
            match snapshot::load::<K>(p, &self.name, key)? {
                Some(whole) => s = whole,
                None => return Ok(None),
            }
        }
        let (right, first) = (s.take("right"), s.take("first"));
        let right_len = match (&right, s.skipped.first()) {
            (Some(r), _) => r.len(),
            (None, Some((name, len))) if name == "right" => *len as u64,
            _ => return Err(self.foreign_phase()),
        };
        match (s.phase.as_str(), first) {
            ("split", Some(first)) => Ok(Some(Shared {
                right,
                right_len,
                first,
                rate: s.done as f64 * 1e-12,
                index,
            })),
            _ => Err(self.foreign_phase()),
        }
    }

    /// Pieces enough that each one's tables fit the memory left by the right half's index and
    /// the split layer, and no piece starts from more than [`pieces::PIECE_STATES`] states.
    fn auto_pieces(&self, first: &Layer<K>, index_bytes: u64, steps: usize) -> usize {
        let kept = first.bytes() + index_bytes;
        let budget = self.limits.max_memory.saturating_sub(kept).max(1);
        let need = pieces::projected_bytes(first.len(), first.bytes(), steps);
        let by_memory = need.div_ceil(budget) as usize;
        let by_size = first.len().div_ceil(pieces::PIECE_STATES) as usize;
        by_memory.max(by_size).max(1)
    }

    /// Tells the user how the count is cut: pieces, projected memory and time.
    fn announce(
        &self,
        first: &Layer<K>,
        deal: &pieces::Deal,
        split: &Split,
        rate: f64,
        steps: usize,
    ) {
        let largest = deal.states.iter().copied().max().unwrap_or(0);
        let per_state = first.bytes() as f64 / first.len().max(1) as f64;
        let bytes = pieces::projected_bytes(largest, (largest as f64 * per_state) as u64, steps);
        let work = pieces::projected_work(first.len(), steps);
        let seconds = work as f64 * rate;
        self.obs.info(&format!(
            "{} {} tours: {} piece{} ({} states after the crossing's first column, the largest piece {}; projected {} of tables a piece besides the {} all pieces share, about {} for the pieces on {} thread{})",
            self.req.board,
            if self.req.spec.closed { "closed" } else { "open" },
            group_u64(split.pieces as u64),
            plural(split.pieces as u64),
            group_u64(first.len()),
            group_u64(largest),
            human_bytes(bytes),
            human_bytes(first.bytes()),
            human_duration(seconds),
            self.limits.threads,
            plural(self.limits.threads as u64)
        ));
    }

    /// The right half's table indexed as the left half's crossing sees it: mirror images
    /// expanded (a state and its image share the merged count), and the slots renumbered to the
    /// crossing's.
    ///
    /// `images`: the table is merged (each state stands for itself and its image); a table
    /// walked without merging (a grid piece's) is indexed as it is.
    fn right_index(
        &self,
        right: &Layer<K>,
        cut: Cut,
        boundary: &Boundary,
        images: bool,
    ) -> Result<RightIndex, RunError> {
        // the index takes about as much as the table it indexes: checked against the bound
        let need = right.bytes();
        if !crate::engine::fits(self.limits.max_memory, need) {
            let at = crate::engine::needed(self.limits.max_memory, need);
            return Err(self.memory_error(at, self.total.saturating_sub(1)));
        }
        let (w, h) = (self.walk.w as usize, cut.cross as usize);
        let m = w * h;
        let window = K::SLOTS as usize;
        let mirror: Vec<u8> = (0..window)
            .map(|s| {
                if s < m && images {
                    (s / w) * w + (w - 1 - s % w)
                } else {
                    s
                }
            } as u8)
            .collect();
        // right slot q*w + r is the square (cut.left + q, w - 1 - r): crossing slot (h-1-q)*w + r
        let remap: Vec<u8> = (0..window)
            .map(|s| if s < m { (h - 1 - s / w) * w + s % w } else { s } as u8)
            .collect();
        RightIndex::new(right, &mirror, &remap, m as u32, boundary).map_err(|_| {
            Error::Invalid(format!(
                "the frontier tables of {} hold a state whose merged count with its mirror image is odd, which no whole number of tours gives: the count cannot be trusted (a fault of the machine or the program; please report it)",
                self.req.board
            ))
            .into()
        })
    }

    fn foreign_phase(&self) -> RunError {
        let path = self.saver.path.clone().unwrap_or_default();
        CheckpointError::Damaged {
            path,
            why: "it stops at a point this run does not have".into(),
        }
        .into()
    }
}

/// The tables of a checkpoint: `extra`, then the current layer.
fn with_current<'t, K: Key>(
    extra: &[(&'t str, &'t Layer<K>)],
    layer: &'t Layer<K>,
) -> Vec<(&'t str, &'t Layer<K>)> {
    extra.iter().copied().chain([("current", layer)]).collect()
}
