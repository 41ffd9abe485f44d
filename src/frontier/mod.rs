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

pub(crate) mod entry;
pub(crate) mod expand;
mod growth;
pub(crate) mod join;
pub(crate) mod layout;
mod leaves;
mod meet;
mod pieces;
mod sizes;
pub mod snapshot;
pub(crate) mod state;
pub(crate) mod store;
mod sweep;
pub(crate) mod table;
mod tree;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use num_bigint::BigUint;

use crate::board::Board;
use crate::engine::{
    Count, CountEngine, CountSpec, Host, LayerProgress, Limits, Observer, Peak, Quiet, Ran,
    Recorded, Request, RunError, Split, TreeSize,
};
use crate::error::Error;
use crate::hash::Fnv;
use crate::human::{group_u64, human_bytes, human_duration, plural};
use crate::piece::Piece;
use crate::store::{CheckpointError, beside};

use join::{Boundary, MAX_BOUNDARY, RightIndex};
use layout::{Rules, Step, Walk};
pub(crate) use meet::{give_back, relieve};
pub(crate) use pieces::depth_of_param;
pub use pieces::{by_class, order as tree_order, piece_classes, project_left};
use snapshot::{RunName, Snapshot};
use state::Key;
use store::Scratch;
use sweep::Sweep;
use table::{Bound, Layer, Node, Src, Stopped};

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
pub fn supports(board: Board, piece: &Piece, spec: &CountSpec) -> Result<(), Error> {
    let walk = Walk::new(board, piece, spec.wide);
    let window = walk.window();
    if window > MAX_WINDOW {
        return Err(Error::Invalid(format!(
            "the frontier engine cannot count the {piece} on {board}: walking the {} side, a square's farthest neighbour comes {} squares later, a window of {window} squares; it handles windows of up to {MAX_WINDOW} (for the knight, a side across of up to 12{})",
            if spec.wide { "short" } else { "long" },
            window - 1,
            if spec.wide {
                "; --window narrow walks the long side"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// Whether the frontier engine cuts this count into many pieces: it does where it meets in the
/// middle (symmetric counts on boards long enough); a count it walks in one sweep is one piece.
#[must_use]
pub fn splits(board: Board, piece: &Piece, spec: &CountSpec) -> bool {
    supports(board, piece, spec).is_ok()
        && auto_cut(&Walk::new(board, piece, spec.wide), symmetric(spec)).is_some()
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
    let walk = Walk::new(board, piece, spec.wide);
    let limits = quiet_limits();
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Sweep, &stop, &Quiet)?.profile(max_states)))
}

/// The forward walk's layer size after every square (the first is the empty start, 1 state),
/// walked until a layer passes `max_states` states or the board ends: what the reach estimate
/// reads, for studying its growth model.
pub fn profile_squares(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    max_states: u64,
) -> Result<Vec<u64>, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece, spec.wide);
    let limits = quiet_limits();
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Sweep, &stop, &Quiet)?.squares(max_states, false, usize::MAX)))
}

/// Limits for a walk run outside the driver: every thread of the pool, the default memory bound.
fn quiet_limits() -> Limits {
    Limits {
        threads: rayon::current_num_threads(),
        max_memory: u64::MAX,
        force: true,
        shards: 1,
        checkpoint: None,
        split: None,
        scratch: None,
        tree: TreeSize::default(),
        abandon: None,
    }
}

/// What a frontier count is estimated to need at its largest layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    pub states: f64,
    pub bytes: f64,
    /// The pieces' time (a meeting's), or the whole sweep's.
    pub seconds: f64,
    /// A meeting's shared walk: the forward walk to the tables every piece starts from, which
    /// a run makes first unless it reads them from a split file (0 for a sweep).
    pub shared_seconds: f64,
}

/// Bytes the join's index of the right half holds a state at its largest (see `right_index`).
const INDEX_BYTES: u64 = 64;

/// How many times longer a count takes whose tables pass the bound and go through disk (7x7
/// open under 128M and 8x8 closed under 256M took 1.3 and 1.4 times their time in memory).
const DISK_SLOWDOWN: f64 = 1.5;

/// What a count needs under its bound, projected (see `Run::disk_plan`).
/// States of a saved stage past which reading it back is announced (a few seconds' reading).
const LOAD_NOTE_STATES: u64 = 10_000_000;

struct DiskPlan {
    seconds: f64,
    disk: f64,
    free: Option<u64>,
    dir: PathBuf,
    /// Bytes a save of the largest layer takes beside the checkpoint while it replaces the
    /// last (two saves' frames), where there is a checkpoint.
    saves: f64,
}

/// A size as `--max-memory` takes it, rounded up to whole MiB (or GiB past 10 GiB).
pub(crate) fn size_arg(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes > 10 << 30 {
        format!("{}G", bytes.div_ceil(1 << 30))
    } else {
        format!("{}M", bytes.div_ceil(MIB).max(1))
    }
}

/// The longest frontier count started without a checkpoint (unless `--force`): an hour.
const UNSAVED_SECONDS: f64 = 3600.0;

/// What the process holds besides its tables: its code, the allocator's first arenas and the
/// threads' stacks (6 to 9 MiB resident for counts of a few thousand states).
const BASE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// What the forward walk of a meeting leaves resident, for each column it walks, in tables of
/// its last column's end: its layers inside a column are larger than at its ends, and the
/// allocator keeps what they freed for the tables to come. Before their pieces 5x10 to 5x16,
/// 6x8 to 6x12 closed, 7x7 and 7x8 open and closed held 0.6 to 1.9 times such a table a
/// column, beyond the process's start.
const FORWARD_KEPT: f64 = 1.1;

/// States the reach probe walks to (about a second).
const PROBE_STATES: u64 = 2_000_000;

/// Time a state costs at a layer, on one thread, for the estimate (measured 0.1 to 0.3 µs).
const SECONDS_PER_STATE: f64 = 3e-7;

/// Time a state read by a step of the digit tree costs, on one thread (0.23 to 0.28 µs measured
/// on boards 5 to 7 wide, the joins included).
const SECONDS_PER_READ: f64 = 2.5e-7;

/// How many times [`SECONDS_PER_READ`] a read costs where a state takes two words (boards 8
/// wide): as the up-front projection counts reads, 8x8 closed took 0.64 µs a read, 8x9 closed
/// 0.77 and 8x8 open (its ledger's CPU time) 0.5. Their keys and entries are twice and one and a
/// half times as wide, and their joins pair more states for each read (a sixth of the time of
/// 8x9 closed in a profile, against a fortieth of 7x7's).
const WIDE_READ_COST: f64 = 2.5;

/// The cost of a read relative to [`SECONDS_PER_READ`] for keys of type `K`.
fn read_cost<K: Key>() -> f64 {
    if K::BYTES > 8 { WIDE_READ_COST } else { 1.0 }
}

/// Estimates the largest layer of a frontier count, its memory and its time from a probe: the
/// real walk to about `PROBE_STATES` (2,000,000) states or the forward walk's end, then the
/// model of `growth.rs` (columns not walked grow by a power of the growth before them, and the
/// pieces read states in proportion to the columns they walk), the tree's parts under the
/// default memory bound, as `knights count` prints them.
pub fn reach(board: Board, piece: &Piece, spec: &CountSpec) -> Result<Reach, RunError> {
    // under the default bound, as `knights count` prints it: the bound sets what waits on disk
    reach_under(
        board,
        piece,
        spec,
        rayon::current_num_threads(),
        crate::engine::default_max_memory(),
    )
}

/// [`reach`] on `threads` threads under the memory bound `max_memory` (the exact sampler's
/// choice, which must not depend on the machine's threads).
pub(crate) fn reach_under(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    threads: usize,
    max_memory: u64,
) -> Result<Reach, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece, spec.wide);
    let limits = Limits {
        threads,
        max_memory,
        ..quiet_limits()
    };
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?.reach()))
}

/// The time of the walk a meeting's pieces share (the forward walk to the tables they start
/// from), as the count's own first projection gives it under the default memory bound on every
/// thread, longer where its tables go through disk: for `knights status`, so that it says what
/// the command it suggests will say. `None` where the count does not meet in the middle.
pub fn shared_walk_seconds(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
) -> Result<Option<f64>, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece, spec.wide);
    let limits = Limits {
        max_memory: crate::engine::default_max_memory(),
        ..quiet_limits()
    };
    let stop = AtomicBool::new(false);
    keyed!(walk, K => {
        let mut run = Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?;
        let r = run.reach();
        let plan = run.disk_plan(&r);
        let slow = plan.seconds / (r.seconds + r.shared_seconds).max(f64::MIN_POSITIVE);
        Ok((r.shared_seconds > 0.0).then_some(r.shared_seconds * slow))
    })
}

/// The forward walk's layer sizes the estimate of [`reach`] reads: `(squares walked, states)`,
/// at every square of a sweep and at every column end of a meeting, walked until a layer passes
/// `PROBE_STATES` (2,000,000) states or the board ends.
pub fn reach_sizes(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
) -> Result<Vec<(usize, u64)>, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece, spec.wide);
    let limits = quiet_limits();
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?.probe_sizes()))
}

/// The estimate of [`reach`] from the layer sizes `sizes` of [`reach_sizes`], on `threads`
/// threads under the memory bound `max_memory`: the projection alone, which walks nothing and
/// reads nothing of the machine (its cost of a read is a constant), so that it can be checked
/// on recorded sizes.
pub fn reach_from(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    sizes: &[(usize, u64)],
    threads: usize,
    max_memory: u64,
) -> Result<Reach, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let walk = Walk::new(board, piece, spec.wide);
    let limits = Limits {
        threads,
        max_memory,
        ..quiet_limits()
    };
    let stop = AtomicBool::new(false);
    keyed!(walk, K => Ok(Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?.estimate(sizes)))
}

/// Counts with a chosen method (for cross-checks and benchmarks), in one piece.
pub fn count(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    method: Method,
) -> Result<Count, RunError> {
    count_with(board, piece, spec, method, TreeSize::default())
}

/// Counts with a chosen method, a meeting in the middle cut by a digit tree of the sizes `tree`
/// (the engine's own where `None`), every piece counted here one after another: the split
/// count, for the tests to hold against the whole.
pub fn count_with(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    method: Method,
    tree: TreeSize,
) -> Result<Count, RunError> {
    let req = Request { board, piece, spec };
    let limits = Limits {
        tree,
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

/// The bytes the tables of a count (or the exact sampler's) of a window of `window` squares in
/// keys of `key_bytes` bytes may hold on `threads` threads under the bound `max_memory`: the
/// bound less what the process holds beside them.
pub(crate) fn tables_room(max_memory: u64, window: u32, key_bytes: usize, threads: usize) -> u64 {
    sizes::tables_for(max_memory, window, key_bytes, threads)
}

/// The smallest bound a count (or the exact sampler) of `board` takes on `threads` threads: an
/// error naming it as `--max-memory` writes it, where `max_memory` is below it.
pub(crate) fn check_floor(
    board: Board,
    walk: &Walk,
    max_memory: u64,
    threads: usize,
) -> Result<(), Error> {
    let threads = threads.max(1);
    let floor = sizes::min_bound(walk.window(), walk.key_bytes(), threads);
    if max_memory < floor {
        return Err(Error::Invalid(format!(
            "--max-memory {} is below what a frontier count of {board} holds besides its tables on {threads} thread{} (the program, its threads, the buffers of the files it reads and writes, the join's index): the smallest bound it takes is --max-memory {} (a thread fewer takes {} less), past which every count runs to its end, its tables through disk where they pass half the bound",
            human_bytes(max_memory),
            plural(threads as u64),
            size_arg(floor),
            human_bytes(sizes::THREAD_BYTES),
        )));
    }
    Ok(())
}

/// The smallest bound the exact sampler met in the middle takes on `board` (walked as `walk`) on
/// `threads` threads: an error naming it, where `max_memory` is below it.
pub(crate) fn check_sample_floor(
    board: Board,
    walk: &Walk,
    max_memory: u64,
    threads: usize,
) -> Result<(), String> {
    let floor = sizes::sample_floor(walk.window(), walk.key_bytes(), threads.max(1));
    if max_memory < floor {
        return Err(format!(
            "exact sampling inside the count met in the middle of {board} holds the count's tables and its own beside them: under --max-memory {} it does not fit, the smallest bound it takes is --max-memory {}",
            human_bytes(max_memory),
            size_arg(floor)
        ));
    }
    Ok(())
}

/// The threads of `threads` the exact sampler met in the middle of `walk` runs on under the
/// bound `max_memory`: those the bound holds (each thread holds its own beside the tables).
pub(crate) fn sample_threads(walk: &Walk, max_memory: u64, threads: usize) -> usize {
    sizes::threads_within(max_memory, walk.window(), walk.key_bytes(), threads, true)
}

/// What a meeting in the middle tells the exact sampler (`sample::meet`): how it was cut, which
/// side it made true below the tree's root, and every leaf of its digit tree with its count.
/// A leaf `(j, p)` is the node of depth `j` whose digits, read as a number in base 3 with the
/// first digit the most significant, are `p`: the sampler makes its states again from the roots
/// alone, and checks its join against the count recorded here.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeetLeaves {
    /// Columns of the left half, of the right half, and of the crossing.
    pub(crate) cut: (u32, u32, u32),
    pub(crate) true_right: bool,
    pub(crate) leaves: Vec<(usize, u64, BigUint)>,
    pub(crate) rules: layout::Rules,
    /// Each piece counted, with its count (the engine's unit, as a ledger records it).
    pub(crate) pieces: BTreeMap<usize, BigUint>,
}

/// Pieces of a count an earlier run cut (a ledger's): the cut it recorded, and the pieces to
/// count of it. A run whose cut differs (another build's rule, another cut) is refused.
#[derive(Clone, Debug)]
pub(crate) struct Chosen {
    pub(crate) recorded: Recorded,
    pub(crate) pieces: Vec<usize>,
}

/// A symmetric count met in the middle, every piece counted here (or the pieces `chosen` of a
/// cut an earlier run recorded), and its leaves told (`None` where the count does not meet in
/// the middle). The count runs within `max_memory`, its tables through disk where they pass
/// it, as `count` would.
pub(crate) fn meet_leaves(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    max_memory: u64,
    chosen: Option<Chosen>,
) -> Result<Option<MeetLeaves>, RunError> {
    supports(board, piece, spec)?;
    let req = Request { board, piece, spec };
    let limits = Limits {
        max_memory,
        force: true,
        ..quiet_limits()
    };
    let walk = Walk::new(board, piece, spec.wide);
    // the count and the sampler after it keep to the same floor
    check_floor(board, &walk, max_memory, limits.threads)?;
    let host = Alone {
        chosen,
        ..Alone::default()
    };
    let (stop, obs) = (host.stop(), host.observer());
    keyed!(walk, K => {
        // the engine's own cut where it meets, else the middle where a meeting is possible
        let mut run = Run::<K>::new(req, &limits, walk.clone(), Method::Auto, stop, obs)?;
        if run.cut.is_none() {
            match Run::<K>::new(req, &limits, walk, Method::Meet, stop, obs) {
                Ok(r) => run = r,
                Err(_) => return Ok(None),
            }
        }
        let Some(cut) = run.cut.filter(|_| run.settled.is_none()) else {
            return Ok(None);
        };
        run.sink = Some(std::sync::Mutex::new(MeetLeaves {
            cut: (cut.left, cut.right, cut.cross),
            rules: run.rules.clone(),
            ..MeetLeaves::default()
        }));
        run.sweep.scratch.remove_stale();
        run.meet(cut, &host)?;
        let mut log = run.sink.take().expect("set above").into_inner().expect("no panic holding the lock");
        log.pieces = host.into_parts().1;
        Ok(Some(log))
    })
}

/// The piece whose finished leaves the file at `path` (`FILE.leaves` beside a checkpoint)
/// holds for the run of `fingerprint`, and how many: `(piece, leaves)`, the piece numbered from
/// 0. `None` where there is no such file or it is another run's.
#[must_use]
pub fn piece_leaves(path: &Path, fingerprint: u64) -> Option<(u64, usize)> {
    leaves::LeafLog::open(Some(path.to_path_buf()), fingerprint).held()
}

/// A host for a count run outside the driver: every piece (or those chosen of a recorded
/// cut), nothing recorded.
#[derive(Default)]
struct Alone {
    stop: AtomicBool,
    state: std::sync::Mutex<(Option<Recorded>, BTreeMap<usize, BigUint>)>,
    chosen: Option<Chosen>,
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
        match &self.chosen {
            None => Ok((0..split.pieces).collect()),
            Some(c) => {
                let r = &c.recorded;
                if (split.pieces, split.param, split.fingerprint)
                    != (r.pieces, r.param, r.fingerprint)
                {
                    return Err(Error::Invalid(format!(
                        "this build cuts the count into {} pieces (fingerprint {:016x}), the record into {} ({:016x}): its pieces are not this build's",
                        split.pieces, split.fingerprint, r.pieces, r.fingerprint
                    ))
                    .into());
                }
                Ok(c.pieces.clone())
            }
        }
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
        self.chosen.as_ref().map(|c| c.recorded.clone())
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
        let walk = Walk::new(req.board, req.piece, req.spec.wide);
        let (directed, undirected) = if fixed(spec) || (!spec.closed && walk.n == 1) {
            (t.clone(), t)
        } else {
            (&t * 2u32, t)
        };
        let how = match auto_cut(&walk, symmetric(spec)) {
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
        "frontier sweep along the {} squares of the {} side, {} square{} a layer{}",
        walk.len,
        if walk.len >= walk.w { "long" } else { "short" },
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
    let walk = Walk::new(req.board, req.piece, req.spec.wide);
    check_floor(req.board, &walk, limits.max_memory, limits.threads)?;
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

/// The cut [`auto_cut`] makes on a board `len` columns long whose piece crosses `cross`
/// columns, where the board's width allows one: the left half `(len - 1) / 2` columns, and a
/// right half of at least one column more than the crossing.
fn middle(len: u32, cross: u32) -> Option<Cut> {
    let left = len.saturating_sub(1) / 2;
    let right = len - left;
    (left >= 1 && right > cross).then_some(Cut { left, right, cross })
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
/// than the right on a board of even length, as long as the right on an odd length. The
/// crossing, whose squares never leave its window, reads some hundreds of states for each state
/// it starts from, and the right half's last column some tens (see `meet.rs`), so the crossing
/// starts from the smaller table: 8x8 closed read 690 million states so, against 1.2 billion
/// meeting after four columns (6x8 open took 4.4 s against 21 s in the engine before the tree).
fn auto_cut(walk: &Walk, symmetric: bool) -> Option<Cut> {
    if !symmetric {
        return None;
    }
    cut_for(walk, (walk.len - 1) / 2)
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
    /// Saves skipped for want of disk (the user is told at the first).
    skipped: u64,
    /// Set to give up a save as the count stops (see [`Limits::abandon`]).
    abandon: Option<std::sync::Arc<AtomicBool>>,
}

const SAVE_RATIO: u32 = 20;

impl Saver {
    fn due(&self) -> bool {
        self.path.is_some() && self.last.elapsed() >= self.cost * SAVE_RATIO
    }

    /// Saves `tables` as `stage`. A save is written beside the last one before it replaces it;
    /// where the checkpoint's disk lacks room for it (twice the frames its states are projected
    /// at) or fills while it is written, the last save stays, the count goes on, and `obs` is
    /// told at the first such save: a stop then loses the layers since the last save, where a
    /// count of hours stopped for want of disk for a save would lose everything since too.
    fn save<K: Key>(
        &mut self,
        name: &RunName,
        stage: (&str, usize, usize, usize),
        tables: &[(&str, Src<'_, K>)],
        obs: &dyn Observer,
    ) -> Result<(), RunError> {
        if let Some(path) = &self.path {
            let bytes: u64 = tables
                .iter()
                .map(|(_, t)| t.len() * t.shape().stride() as u64)
                .sum();
            let need = 2.0 * bytes as f64 / store::FRAME_SHRINK;
            let dir = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let free = scratch_free(dir);
            let t = Instant::now();
            let (phase, done, layer, layers) = stage;
            let full = if free.is_some_and(|f| (f as f64) < need) {
                true
            } else {
                match snapshot::save(
                    path,
                    name,
                    phase,
                    done,
                    (layer, layers),
                    tables,
                    self.abandon.as_deref(),
                ) {
                    Err(CheckpointError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::StorageFull =>
                    {
                        true
                    }
                    // given up at a second stop signal: the last save stays, and the count ends
                    Err(CheckpointError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::Interrupted
                            && self
                                .abandon
                                .as_ref()
                                .is_some_and(|a| a.load(Ordering::Relaxed)) =>
                    {
                        return Ok(());
                    }
                    r => {
                        r?;
                        false
                    }
                }
            };
            self.cost = t.elapsed();
            self.last = Instant::now();
            if full {
                let states: u64 = tables.iter().map(|(_, t)| t.len()).sum();
                if self.skipped == 0 {
                    obs.warn(&format!(
                        "the layer of {} state{} could not be saved: '{}' has {} free, and the save needs about {}; the last save is kept and the count goes on (a stop now loses the layers since), and later saves are tried as usual",
                        group_u64(states),
                        plural(states),
                        dir.display(),
                        human_bytes(free.unwrap_or(0)),
                        human_bytes(need as u64),
                    ));
                }
                self.skipped += 1;
                return Ok(());
            }
        }
        self.saved = true;
        Ok(())
    }

    /// [`Saver::save`] of the work in progress as the count stops: said first, for a large
    /// layer takes a while to write, and given up at a second stop signal.
    fn save_stopping<K: Key>(
        &mut self,
        name: &RunName,
        stage: (&str, usize, usize, usize),
        tables: &[(&str, Src<'_, K>)],
        obs: &dyn Observer,
    ) -> Result<(), RunError> {
        if let Some(path) = &self.path {
            let states: u64 = tables.iter().map(|(_, t)| t.len()).sum();
            obs.info(&format!(
                "stopping: saving the work in progress ({} state{}) to '{}' so that the count resumes from it; a second stop signal stops without it (the last save is kept)",
                group_u64(states),
                plural(states),
                path.display()
            ));
        }
        self.save(name, stage, tables, obs)
    }

    /// Forgets the stage saved (it is finished and recorded elsewhere).
    fn clear(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
        self.saved = false;
    }
}

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
    /// What this run will count, where the driver knows it before the cut (see
    /// [`Host::expected`]).
    expected: Option<crate::engine::Expected>,
    /// The forward walk's layer sizes so far: `(squares walked, states)`, at every square where
    /// the walk goes a square at a time, at column ends where it goes a column at a time.
    sizes: Vec<(usize, u64)>,
    /// States the forward walk's last column read for each state it started from (for the
    /// projection of the pieces' time).
    column_reads: f64,
    /// The states that column started from.
    column_start: u64,
    /// The finished leaves of the grid piece in progress (`FILE.leaves`).
    leaves: leaves::LeafLog,
    /// Where a meeting's leaves are told as they are joined (the exact sampler's, see
    /// [`meet_leaves`]); `None` for a count.
    sink: Option<std::sync::Mutex<MeetLeaves>>,
    _key: std::marker::PhantomData<K>,
}

/// How a walk ended.
enum Walked {
    Done(BigUint),
    /// Stopped by the flag.
    Interrupted,
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
        rules.ends_on_majority = !closed && walk.ends_on_majority();
        rules.ends_differ = !closed && walk.ends_differ();
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
        let mut name = RunName {
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
        // (a narrow walk's name is what it always was: the files of earlier runs stay its own)
        if spec.wide {
            name.fields.push(("window", "wide".to_string()));
        }
        let path = limits.checkpoint.as_deref();
        let walk_n = walk.n;
        let (window, key_bytes) = (walk.window(), walk.key_bytes());
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
                limit: Bound {
                    tables: (limits.tree.tables).unwrap_or_else(|| {
                        sizes::tables_for(limits.max_memory, window, key_bytes, limits.threads)
                    }),
                    process: limits.max_memory,
                },
                scratch: Scratch::new(scratch_dir(limits)),
                beside: 0,
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
                skipped: 0,
                abandon: limits.abandon.clone(),
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
            expected: None,
            sizes: vec![(0, 1)],
            column_reads: 0.0,
            column_start: 0,
            leaves: leaves::LeafLog::default(),
            sink: None,
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
        // the files a killed count left in the scratch folder go before this one makes its own
        self.sweep.scratch.remove_stale();
        let fresh = |p: &Option<PathBuf>| p.as_deref().is_none_or(|p| !p.exists());
        // (with --force too: it refuses nothing then, but says what the count may take)
        self.probe = fresh(&self.saver.path) && fresh(&self.split_path);
        self.expected = host.expected();
        match self.cut {
            None => self.sweep_all(host),
            Some(cut) => self.meet(cut, host),
        }
    }

    /// See [`profile`]; a column cut short by the budget ends the list with the states reached
    /// (a lower bound on the column's).
    fn profile(&mut self, max_states: u64) -> Vec<(u32, u64)> {
        let w = self.walk.w as usize;
        let squares = self.squares(max_states, false, usize::MAX);
        let last = squares.len() - 1;
        (1..=last)
            .filter(|&s| s % w == 0 || (s == last && squares[s] > max_states))
            .map(|s| (s.div_ceil(w) as u32, squares[s]))
            .collect()
    }

    /// See [`profile_squares`].
    /// With `whole`, the walk stops only at a column's end; it stops after `upto` squares.
    fn squares(&mut self, max_states: u64, whole: bool, upto: usize) -> Vec<u64> {
        let w = self.walk.w as usize;
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        let mut layer = Node::Mem(Layer::single(K::ZERO, self.walk.key_bytes(), 1));
        let mut out = vec![1];
        for step in &steps[..steps.len() - 1] {
            match self.sweep.step(layer.src(), step, |_| true) {
                Ok((next, _)) => layer = next,
                Err(_) => break,
            }
            out.push(layer.len());
            if out.len() > upto || layer.len() > max_states && (!whole || (out.len() - 1) % w == 0)
            {
                break;
            }
        }
        out
    }

    /// See [`reach`].
    fn reach(&mut self) -> Reach {
        let sizes = self.probe_sizes();
        self.estimate(&sizes)
    }

    /// See [`reach_sizes`].
    fn probe_sizes(&mut self) -> Vec<(usize, u64)> {
        // as the count checks: a square at a time in a sweep, a column at a time before a
        // meeting, whose walk ends at the forward walk's end
        let w = self.walk.w as usize;
        let end = self
            .cut
            .map_or(usize::MAX, |c| c.left.max(c.right - 1) as usize * w);
        self.squares(PROBE_STATES, self.cut.is_some(), end)
            .into_iter()
            .enumerate()
            .filter(|(s, _)| self.cut.is_none() || (s % w == 0 && *s <= end))
            .collect()
    }

    /// The estimate of [`reach`] from the forward walk's layer sizes `sizes` (see [`Run::sizes`]).
    ///
    /// A meeting is projected at no less than a shorter board of its width would be from the
    /// same walk (its sizes cut at that board's forward end): so a longer board, whose walk
    /// begins as the shorter one's does, is never projected at less time or memory, even where a
    /// column the shorter board projected is measured on the longer one and holds fewer states
    /// than projected (see [`growth::project_columns`]).
    fn estimate(&self, sizes: &[(usize, u64)]) -> Reach {
        let len = self.walk.len;
        let Some(cut) = self.cut else {
            return self.estimate_at(len, None, sizes);
        };
        // the sizes the count's walk gives a board cut as `c`: to its forward walk's end, or
        // to the first column past `PROBE_STATES`
        let walked = |c: Cut| {
            let end = c.left.max(c.right - 1) as usize * self.walk.w as usize;
            let mut part = Vec::new();
            for &(s, states) in sizes.iter().take_while(|x| x.0 <= end) {
                part.push((s, states));
                if states > PROBE_STATES {
                    break;
                }
            }
            part
        };
        let mut r = self.estimate_at(len, Some(cut), &walked(cut));
        for n in 1..len {
            if let Some(c) = middle(n, cut.cross) {
                let shorter = self.estimate_at(n, Some(c), &walked(c));
                r.states = r.states.max(shorter.states);
                r.bytes = r.bytes.max(shorter.bytes);
                r.seconds = r.seconds.max(shorter.seconds);
                r.shared_seconds = r.shared_seconds.max(shorter.shared_seconds);
            }
        }
        r
    }

    /// The estimate of [`Run::estimate`] for a board of this width `len` columns long, cut as
    /// `cut`, from the forward walk's layer sizes `sizes`.
    fn estimate_at(&self, len: u32, cut: Option<Cut>, sizes: &[(usize, u64)]) -> Reach {
        let w = self.walk.w;
        let col = growth::project_columns(w as usize, len as usize, sizes);
        let entry = (self.walk.key_bytes() + 8) as f64;
        let threads = self.limits.threads.max(1) as f64;
        let per_read = SECONDS_PER_READ * read_cost::<K>() / threads;
        let mut shared_seconds = 0.0;
        let (states, bytes, seconds) = match cut {
            Some(cut) => {
                // the largest table the digit tree needs in memory is the forward walk's last
                // column end (the roots wait on disk where they are large, and the tree's nodes
                // are cut to the bound)
                let (l, r) = (col[cut.left as usize], col[cut.right as usize - 1]);
                let states = l.max(r);
                // one side made true: twice its states
                let (x, y) = if sizes::true_right(l as u64, r as u64) {
                    (l, 2.0 * r)
                } else {
                    (2.0 * l, r)
                };
                // as the tree's line before the first piece (`meet::Run::projection`), its
                // parts estimated: what the forward walk leaves resident, the nodes above a
                // piece, and a leaf's walk at its largest, growing as the forward walk's last
                // column is projected to
                let roots = (x + y) as u64;
                let last = cut.left.max(cut.right.saturating_sub(1)) as usize;
                let start = col[last.saturating_sub(1)];
                let per = (start >= sizes::COLUMN_MEASURED as f64)
                    .then(|| sizes::column_reads_from_growth(w, col[last] / start.max(1.0)));
                let reads = growth::meeting_reads(w, cut.left as usize, cut.right as usize, &col);
                shared_seconds = growth::forward_reads(w, last, &col) * per_read;
                let depth = sizes::depth_for(roots, self.limits.shards as usize, w);
                let leaf = sizes::leaf_states(self.limits, entry as u64);
                // the forward walk's tables: what the allocator keeps of each column's while the
                // roots stay in memory, one table where they wait on disk (a root made true, of
                // twice the states, there: 8x8 open)
                let table = states * entry / 0.7;
                let kept = if sizes::root_on_disk(table * 2.0, self.limits.max_memory) {
                    1.0
                } else {
                    last as f64 * FORWARD_KEPT
                };
                let (held, made) = sizes::above_parts(
                    x as u64,
                    y as u64,
                    depth,
                    entry / 0.7,
                    sizes::spill_bytes(self.limits.max_memory) as f64,
                );
                let needed = table * kept
                    + held
                    + sizes::leaf_bytes(leaf, roots, entry as u64, sizes::leaf_growth(per, w));
                // the side made before it waits on disk is counted up to the bound, not past
                // it: the tree makes it beside memory it gives back near the bound (8x8 open,
                // 15.4 GiB projected under the default bound, took 9.3 GiB at most under
                // --max-memory 10G). The rest must fit (8x10 closed, 4.1 GiB without that side,
                // stopped making its roots under 4G)
                let room = (self.limits.max_memory as f64 - BASE_BYTES).max(0.0);
                (
                    states,
                    (needed + made).min(room).max(needed),
                    reads * per_read,
                )
            }
            None => {
                let states = col[(len as usize * 3).div_ceil(4)];
                // two tables at 3/4 full, plus the batches
                let bytes = states * entry / 0.75 * 2.5;
                (
                    states,
                    bytes,
                    states * f64::from(2 * w) * SECONDS_PER_STATE / threads,
                )
            }
        };
        Reach {
            states,
            bytes: bytes + BASE_BYTES,
            seconds,
            shared_seconds,
        }
    }

    /// The reach check, on the count's own forward walk (no separate probe): once a layer passes
    /// [`PROBE_STATES`] states, or at the end of the walk, the column sizes so far give the
    /// estimate of [`reach`]; a count far out of reach stops there with the estimate, unless
    /// `--force`.
    fn check_reach(&mut self, square: usize, layer: &Node<K>, end: bool) -> Result<(), RunError> {
        if !self.probe {
            return Ok(());
        }
        self.sizes.push((square + 1, layer.len()));
        if !(end || layer.len() > PROBE_STATES) {
            return Ok(());
        }
        self.probe = false;
        let r = self.estimate(&self.sizes);
        let mut plan = self.disk_plan(&r);
        // (the fail point sets the whole count's time, for the tests of what a long count says)
        if let Some(secs) =
            fail::eval("projected-seconds", |s| s.and_then(|s| s.parse().ok())).flatten()
        {
            plan.seconds = secs;
        }
        let threads = self.limits.threads.max(1);
        let estimate = if self.req.board.squares() <= 64 {
            ", or `knights estimate` for an estimate of the count in seconds"
        } else {
            ""
        };
        // what this run will count, where the records or --only say before the cut: the walk
        // its pieces share, then those pieces at the mean piece's share of the whole (a
        // projection by class follows from the records once the count is cut)
        let slow = plan.seconds / (r.seconds + r.shared_seconds).max(f64::MIN_POSITIVE);
        let part = self
            .expected
            .filter(|e| self.cut.is_some() && e.of.is_none_or(|of| e.pieces < of));
        let seconds = match part {
            None => plan.seconds,
            Some(e) => {
                let share = e.of.map_or(0.0, |of| e.pieces as f64 / of.max(1) as f64);
                (r.shared_seconds + r.seconds * share) * slow
            }
        };
        // a board 9 or 10 wide is swept in one piece, projected from its narrow first columns,
        // which grow more slowly than those past them (9x10 closed: more than 50 hours measured
        // against 2.7 projected)
        let lower =
            self.cut.is_none() && self.rules.mirror && self.walk.reach * self.walk.w > MAX_BOUNDARY;
        let basis = if lower {
            "projected from the growth of the columns walked so far, which on a board this wide is a lower bound: its later columns grow faster"
        } else {
            "projected from the growth of the columns walked so far, which may err a few times either way"
        };
        let force = self.limits.force;
        if seconds > crate::dfs::REACH_SECONDS && !force {
            return Err(Error::Refused(format!(
                "counting these tours on {} with the frontier engine is out of reach: its largest layer is projected at {:.1e} states, about {} of tables, and the count at {} on {} thread{} ({basis}); that is more than 30 days on this machine: it needs many more cores{estimate}; --force starts it anyway",
                self.req.board,
                r.states,
                human_bytes(r.bytes as u64),
                human_duration(seconds),
                threads,
                plural(threads as u64),
            ))
            .into());
        }
        if let Some(free) = plan.free.filter(|&f| (f as f64) < plan.disk && !force) {
            return Err(Error::Refused(format!(
                "counting these tours on {} needs about {} of disk for the tables that pass the memory bound ({} of tables projected, the bound {}) and about {} on {} thread{} ({basis}), and the scratch folder '{}' has {} free: give a folder on a larger disk with --scratch DIR, or a larger --max-memory; --force starts it anyway",
                self.req.board,
                human_bytes(plan.disk as u64),
                human_bytes(r.bytes as u64),
                human_bytes(self.limits.max_memory),
                human_duration(seconds),
                threads,
                plural(threads as u64),
                plan.dir.display(),
                human_bytes(free),
            ))
            .into());
        }
        let unsaved = seconds > UNSAVED_SECONDS && self.saver.path.is_none();
        if unsaved && !force {
            return Err(Error::Refused(format!(
                "counting these tours on {} would take about {} on {} thread{} and {} of memory ({basis}), and nothing would be kept if it stopped: add --checkpoint FILE so that a stop loses at most the part in progress (or --force to start it without one){estimate}",
                self.req.board,
                human_duration(seconds),
                threads,
                plural(threads as u64),
                human_bytes((r.bytes as u64).min(self.limits.max_memory))
            ))
            .into());
        }
        if unsaved {
            self.obs.warn(&format!(
                "started with --force and no --checkpoint: nothing of this count is kept if it stops (about {} projected); with --checkpoint FILE a stop loses at most the part in progress",
                human_duration(seconds)
            ));
        }
        // (a run of a part says so where the whole is long, however short its part)
        if seconds > 60.0 || (part.is_some() && plan.seconds > 60.0) {
            let disk = if plan.disk > 0.0 {
                format!(
                    " and about {} of disk in '{}' for the tables past the bound ({} of tables projected; a bound of {} would keep them in memory)",
                    human_bytes(plan.disk as u64),
                    plan.dir.display(),
                    human_bytes(r.bytes as u64),
                    size_arg(r.bytes as u64 * 2),
                )
            } else {
                String::new()
            };
            // the saves of the largest layers where they and the tables on disk may not both fit
            // (a save without room is skipped, and the count goes on: see `Saver::save`)
            let saves = match plan.free {
                Some(free) if plan.saves > 0.0 && plan.disk + plan.saves > free as f64 => format!(
                    "; its saves of the largest layers take about {} more beside the checkpoint, and where the disk lacks room for one it is skipped (a stop then loses the layers since the last save)",
                    human_bytes(plan.saves as u64)
                ),
                _ => String::new(),
            };
            let memory = human_bytes((r.bytes as u64).min(self.limits.max_memory));
            let time = if lower {
                format!("at least {}", human_duration(seconds))
            } else {
                format!("about {}", human_duration(seconds))
            };
            let what = match part {
                None => format!("this count may take {time}"),
                Some(e) => {
                    let pieces = format!(
                        "{} piece{}",
                        group_u64(e.pieces as u64),
                        plural(e.pieces as u64)
                    );
                    let then = match e.of {
                        Some(of) => format!(
                            "then the {pieces} of its {} left to count at the mean piece's share (pieces differ by their class: the records project them once the count is cut)",
                            group_u64(of as u64)
                        ),
                        None => format!(
                            "then the {pieces} --only names, projected once the count is cut into pieces"
                        ),
                    };
                    format!(
                        "this run may take {time}: the walk every piece shares first (about {}), {then}; the whole count, about {}",
                        human_duration(r.shared_seconds * slow),
                        human_duration(plan.seconds)
                    )
                }
            };
            self.obs.info(&format!(
                "{what}, and {memory} of memory{disk} ({basis}){saves}"
            ));
        }
        Ok(())
    }

    /// What a count of reach `r` needs under the bound: its time (longer where tables go to
    /// disk), the disk for what passes the bound, and the scratch folder's free space.
    fn disk_plan(&self, r: &Reach) -> DiskPlan {
        let dir = scratch_dir(self.limits);
        let spills = r.bytes > self.sweep.limit.tables as f64;
        let entry = (self.walk.key_bytes() + 8) as f64;
        // the pieces and the walk they share
        let seconds = r.seconds + r.shared_seconds;
        DiskPlan {
            seconds: if spills {
                seconds * DISK_SLOWDOWN
            } else {
                seconds
            },
            // a layer read from disk, the next written as runs, and their sum: three of the
            // largest layer at the most, in frames a few times smaller than the entries
            disk: if spills {
                3.0 * r.states * entry / store::FRAME_SHRINK
            } else {
                0.0
            },
            free: scratch_free(&dir),
            dir,
            saves: if self.saver.path.is_some() {
                2.0 * r.states * entry / store::FRAME_SHRINK
            } else {
                0.0
            },
        }
    }

    fn progress(&self, done: usize, layer: &Node<K>, phase: &'static str) {
        self.progress_of(done, layer.len(), layer.bytes(), phase);
    }

    /// [`Run::progress`] of a layer of `states` in `bytes`.
    fn progress_of(&self, done: usize, states: u64, bytes: u64, phase: &'static str) {
        self.obs.layer(&LayerProgress {
            done,
            total: self.total,
            states,
            bytes,
            phase,
            piece: self.piece,
        });
    }

    /// Walks `layer` through `steps[first..]` (step `i` is layer `base + i` of the stage),
    /// saving now and then `extra` with the current layer as `phase`.
    #[allow(clippy::too_many_arguments)]
    fn walk_steps(
        &mut self,
        mut layer: Node<K>,
        steps: &[Step<K>],
        first: usize,
        base: usize,
        phase: &str,
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        extra: &[(&str, Src<'_, K>)],
    ) -> Result<Walked, RunError> {
        let mut tours = BigUint::ZERO;
        let shown: &'static str = match phase {
            "sweep" => "sweep",
            "forward" => "forward",
            _ => "crossing",
        };
        for (i, step) in steps.iter().enumerate().skip(first) {
            match self.sweep.step(layer.src(), step, |k| keep(i, k)) {
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
                            self.obs,
                        )?;
                    }
                }
                Err(Stopped::Interrupted) => {
                    if !self.saver.saved {
                        self.saver.save_stopping(
                            &self.name,
                            (phase, i, (i).saturating_sub(self.offset), self.total),
                            &with_current(extra, &layer),
                            self.obs,
                        )?;
                    }
                    return Ok(Walked::Interrupted);
                }
                Err(Stopped::Memory(bytes)) => {
                    return Err(self.memory_error(bytes, base + i - self.offset));
                }
                Err(Stopped::Overflow) => unreachable!("a step widens its counts"),
                Err(Stopped::Disk(e)) => return Err(e.into()),
            }
        }
        Ok(Walked::Done(tours))
    }

    fn memory_error(&self, bytes: u64, at: usize) -> RunError {
        let piece = match self.piece {
            Some((i, n)) => format!(" in piece {} of {n}", i + 1),
            None => String::new(),
        };
        Error::Invalid(format!(
            "the frontier count of {} needs more than {} of memory at layer {} of {}{piece} (the bound on the whole process is {}; raise it with --max-memory SIZE)",
            self.req.board,
            human_bytes(bytes),
            at + 1,
            self.total,
            human_bytes(self.limits.max_memory),
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
        let resume = match self.load_layers() {
            // stopped while the saved layer was read back: it stays as it was
            Err(_) if self.stopped() => return Ok(Ran::default()),
            r => r?,
        };
        let (layer, first) = match resume {
            Some(mut s) if s.phase == "sweep" => {
                let done = s.done;
                (s.take("current").ok_or_else(|| self.foreign_phase())?, done)
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (
                Node::Mem(Layer::single(K::ZERO, self.walk.key_bytes(), 1)),
                0,
            ),
        };
        self.saver.saved = first > 0;
        self.progress(first, &layer, "sweep");
        let keep = |_: usize, _: K| true;
        match self.walk_steps(layer, &steps, first, 0, "sweep", &keep, &[])? {
            Walked::Done(tours) => {
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

    /// Where a table read back from a file goes past the tables' share of the bound.
    fn spill_to(&self) -> Option<(&Scratch, u64)> {
        Some((&self.sweep.scratch, self.sweep.limit.tables))
    }

    fn load_layers(&self) -> Result<Option<Snapshot<K>>, RunError> {
        match &self.saver.path {
            Some(p) => {
                self.announce_load(p);
                Ok(snapshot::load_to::<K>(
                    p,
                    &self.name,
                    self.walk.key_bytes(),
                    self.spill_to(),
                    Some(self.stop),
                )?)
            }
            None => Ok(None),
        }
    }

    /// Says that a large saved stage is being read back, which takes minutes (9x10 closed's
    /// layer 40, 1.3 billion states in 9.5 GB of frames: 205 s) while progress has nothing
    /// else to show; a small one, or a file that will not read, says nothing here.
    fn announce_load(&self, path: &Path) {
        let Ok(Some(h)) = snapshot::read_header(path) else {
            return;
        };
        let states: u64 = h.tables().iter().map(|t| t.1 as u64).sum();
        if states < LOAD_NOTE_STATES {
            return;
        }
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        let at = h
            .layer()
            .map_or(String::new(), |(a, b)| format!(" at layer {a} of {b}"));
        self.obs.info(&format!(
            "reading back the saved stage{at}: {} states in {} ('{}'); the count goes on from there",
            group_u64(states),
            human_bytes(bytes),
            path.display()
        ));
    }

    fn peak(&self) -> Peak {
        Peak {
            window: self.walk.window(),
            states: self.sweep.peak_states,
            bytes: self.sweep.peak_bytes,
            // the count's own figures, not the process's (see `store::DiskFigures`)
            disk_written: self.sweep.scratch.figures().written(),
            disk_peak: self.sweep.scratch.figures().peak(),
        }
    }

    /// Whether the count was asked to stop.
    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Opens the leaves file of the run with `fingerprint` beside the checkpoint.
    fn open_leaves(&mut self, fingerprint: u64) {
        let path = self.limits.checkpoint.as_deref();
        self.leaves = leaves::LeafLog::open(path.map(|p| beside(p, ".leaves")), fingerprint);
    }

    /// What an interrupted run reports: nothing, its finished pieces are with the driver.
    fn interrupted(&self) -> Ran {
        Ran {
            how: None,
            peak: Some(self.peak()),
        }
    }

    /// The right half's table at the cut indexed as the crossing sees it: boundary square `j`
    /// read from the right state's slot for it (the right half numbers a column's squares from
    /// its last, and its columns from the cut: crossing slot `(h-1-q)*w + r` is its slot
    /// `q*w + r`).
    fn right_index(&self, right: Node<K>, cut: Cut, may_cut: bool) -> Result<RightIndex, RunError> {
        // the index holds a row of 40 bytes a state while it is sorted, then 24 a state, beside
        // the table it is made from: checked against the tables' share of the bound, where the
        // tree can cut the side again (at the column's end it cannot, and it is made anyway,
        // from the file where the side went to disk)
        let need = right.bytes() + INDEX_BYTES * right.len();
        let room = self.sweep.limit.tables.saturating_sub(self.sweep.beside);
        if may_cut && need > room {
            return Err(self.memory_error(need + self.sweep.beside, self.total.saturating_sub(1)));
        }
        let (w, h) = (self.walk.w, cut.cross);
        let m = w * h;
        let slots = Boundary {
            slots: (0..m)
                .map(|j| {
                    let c = m - 1 - j;
                    (h - 1 - c / w) * w + c % w
                })
                .collect(),
        };
        match right {
            Node::Mem(l) => Ok(RightIndex::new(l, &slots)),
            Node::Disk(s) => Ok(RightIndex::from_file(&s, &slots)?),
        }
    }

    /// The saved stage (`FILE.layers`) stops at a point this run does not have.
    fn foreign_phase(&self) -> RunError {
        let path = self.saver.path.clone().unwrap_or_default();
        Self::foreign_phase_of(&path)
    }

    /// The saved stage at `path` (the checkpoint's layers, or the split) stops at a point this
    /// run does not have.
    fn foreign_phase_of(path: &Path) -> RunError {
        CheckpointError::Damaged {
            path: path.into(),
            why: "it stops at a point this run does not have".into(),
        }
        .into()
    }
}

/// The free space of the scratch folder `dir`; the fail point `scratch-free` sets it for tests
/// (`KNIGHTS_FAILPOINTS=scratch-free=return(BYTES)`), so that a refusal for want of disk is the
/// same on a machine with any disk.
fn scratch_free(dir: &Path) -> Option<u64> {
    fail::fail_point!("scratch-free", |bytes| bytes.and_then(|b| b.parse().ok()));
    fs4::available_space(dir).ok()
}

/// The folder where a count's tables go when they pass the bound: `--scratch`, else the
/// checkpoint's folder, else the system's temporary folder.
pub(crate) fn scratch_dir(limits: &Limits) -> PathBuf {
    if let Some(d) = &limits.scratch {
        return d.clone();
    }
    match limits.checkpoint.as_deref().and_then(Path::parent) {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => std::env::temp_dir(),
    }
}

/// The tables of a checkpoint: `extra`, then the current layer.
fn with_current<'t, K: Key>(
    extra: &[(&'t str, Src<'t, K>)],
    layer: &'t Node<K>,
) -> Vec<(&'t str, Src<'t, K>)> {
    extra
        .iter()
        .copied()
        .chain([("current", layer.src())])
        .collect()
}
