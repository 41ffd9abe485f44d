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

mod column;
mod index;
pub(crate) mod join;
mod leaves;
mod links;
mod meet;
mod pieces;
pub mod snapshot;
mod sums;
mod sweep;
mod tree;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use num_bigint::BigUint;

use crate::board::Board;
use crate::durable::{CheckpointError, beside};
use crate::engine::{
    Count, CountEngine, CountSpec, Host, LayerProgress, Limits, Observer, Order, Peak, Quiet, Ran,
    Recorded, Request, RunError, Split, TreeSize,
};
use crate::error::Error;
use crate::hash::Fnv;
use crate::human::{group_u64, human_bytes, human_duration, plural};
use crate::piece::Piece;

use crate::disk::scratch::Scratch;
use crate::layer::{Bound, Layer, Node, Src, Stopped};
use crate::walk::layout::{Rules, Step, Walk};
use crate::walk::state::Key;
use crate::walk::{growth, layout, sizes};
use cut::*;
use join::{Boundary, MAX_BOUNDARY, RightIndex};
pub(crate) use pieces::depth_of_param;
pub use pieces::{by_class, order as tree_order, piece_classes, project_left};
use projection::*;
pub use projection::{Reach, reach, reach_from, reach_sizes, shared_walk_seconds};
pub(crate) use projection::{reach_under, size_arg};
pub(crate) use run::scratch_dir;
use run::*;
use saver::*;
use snapshot::{RunName, Snapshot};
use sweep::Sweep;

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
    /// One sweep along the long side, the columns where its states have saturated walked as
    /// sums over them (see `sums.rs`): what `Auto` takes for a long board (see
    /// [`sums_sweep`]; symmetric counts only).
    Sums,
}

/// Whether the frontier engine can count this request: its window must fit.
pub fn supports(board: Board, piece: &Piece, spec: &CountSpec) -> Result<(), Error> {
    let walk = Walk::of(board, piece, spec);
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
/// middle (symmetric counts on boards long enough, not so long that it sweeps them by sums); a
/// count it walks in one sweep is one piece.
#[must_use]
pub fn splits(board: Board, piece: &Piece, spec: &CountSpec) -> bool {
    meets(board, piece, spec) && !sweeps_by_sums(&Walk::of(board, piece, spec), spec)
}

/// Whether `Method::Meet` can count this request, at the middle cut `Method::Auto` takes where
/// it meets (a long board `Auto` sweeps by sums can still be met so).
#[must_use]
pub fn meets(board: Board, piece: &Piece, spec: &CountSpec) -> bool {
    supports(board, piece, spec).is_ok()
        && auto_cut(&Walk::of(board, piece, spec), symmetric(spec)).is_some()
}

/// Whether `Method::Auto` counts this request in one sweep by sums (a long board: see
/// `Method::Sums`).
#[must_use]
pub fn sums_sweep(board: Board, piece: &Piece, spec: &CountSpec) -> bool {
    supports(board, piece, spec).is_ok() && sweeps_by_sums(&Walk::of(board, piece, spec), spec)
}

/// The boundary squares of the crossing where this count meets in the middle, if it does.
#[must_use]
pub fn crossing_squares(board: Board, piece: &Piece, spec: &CountSpec) -> Option<u32> {
    let walk = Walk::of(board, piece, spec);
    supports(board, piece, spec).ok()?;
    auto_cut(&walk, symmetric(spec)).map(|c| c.cross * walk.w)
}

/// The most boundary squares the exact sampler joins across (its join packs their links in a
/// `u64`; the count joins wider crossings, of up to 20 squares: `join::MAX_BOUNDARY`).
pub const SAMPLE_CROSSING: u32 = join::NARROW;

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

// after `keyed!`, which they use
mod cut;
mod projection;
mod row;
mod run;
mod saver;

pub use row::{RowRan, row, row_supported};

/// The order the work in progress saved at `path` (a count's or a row's `FILE.layers`) was
/// walked in: tuned where its header names a column's rows, straight where it names none;
/// `None` where there is no such file, or it does not read.
#[must_use]
pub fn saved_order(path: &Path) -> Option<Order> {
    let h = snapshot::read_header(path).ok()??;
    Some(if h.get("order").is_some() {
        Order::Tuned
    } else {
        Order::Straight
    })
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
    let walk = Walk::of(board, piece, spec);
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
    let walk = Walk::of(board, piece, spec);
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
        max_memory: crate::memory::default_max_memory(),
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

/// The bytes the tables of a count (or the exact sampler's) of `walk` may hold on `threads`
/// threads under the bound `max_memory`: the bound less what the process holds beside them.
pub(crate) fn tables_room(max_memory: u64, walk: &Walk, threads: usize) -> u64 {
    let (window, key_bytes) = walk.floor_shape();
    sizes::tables_for(max_memory, window, key_bytes, threads)
}

/// The most threads of `threads` (at least one) a frontier count of `board` runs on under the
/// bound `max_memory`: each thread past the first holds its own beside the tables
/// (`walk::sizes::THREAD_BYTES`), so on a machine of many cores a bound that holds one
/// thread's count may not hold one a core. `count` without `--threads` takes this many.
#[must_use]
pub fn threads_under(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    max_memory: u64,
    threads: usize,
) -> usize {
    let (window, key_bytes) = Walk::of(board, piece, spec).floor_shape();
    sizes::threads_within(max_memory, window, key_bytes, threads, false)
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
    let (window, key_bytes) = walk.floor_shape();
    let floor = sizes::min_bound(window, key_bytes, threads);
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
    let (window, key_bytes) = walk.floor_shape();
    let floor = sizes::sample_floor(window, key_bytes, threads.max(1));
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
    let (window, key_bytes) = walk.floor_shape();
    sizes::threads_within(max_memory, window, key_bytes, threads, true)
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
    let walk = Walk::of(board, piece, spec);
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
        let walk = Walk::of(req.board, req.piece, req.spec);
        let (directed, undirected) = if fixed(spec) || (!spec.closed && walk.n == 1) {
            (t.clone(), t)
        } else {
            (&t * 2u32, t)
        };
        let how = match auto_cut(&walk, symmetric(spec)) {
            // (a count of many pieces was met, whatever this build's rule: an older ledger's)
            _ if cut.pieces == 1 && sweeps_by_sums(&walk, spec) => sums_how(&walk),
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
            work: None,
        })
    }
}

/// How a sweep by sums is described.
fn sums_how(walk: &Walk) -> String {
    format!(
        "{}, the columns where its states saturate walked as sums over them",
        sweep_how(walk, true)
    )
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
    let walk = Walk::of(req.board, req.piece, req.spec);
    check_floor(req.board, &walk, limits.max_memory, limits.threads)?;
    let (stop, obs) = (host.stop(), host.observer());
    let method = match method {
        Method::Auto if sweeps_by_sums(&walk, req.spec) => Method::Sums,
        m => m,
    };
    keyed!(walk, K => Run::<K>::new(req, limits, walk, method, stop, obs)?.go(host))
}
