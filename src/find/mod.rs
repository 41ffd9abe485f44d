//! Finding one tour: existence theorems first, then for the knight the linear-time construction
//! (`crate::construct`), then Warnsdorff with Pósa rotations and seeded restarts, then for other
//! leapers an exact search by SAT (`sat.rs`, boards of up to [`SAT_MAX_SQUARES`]) and for the
//! knight (on boards of up to 64 squares) an exact depth-first search, each of which either finds
//! a tour or proves there is none. Every search stops at a deadline.

mod backtrack;
mod sat;
mod warnsdorff;

use std::fmt;
use std::time::{Duration, Instant};

use crate::board::{Board, Square};
use crate::construct;
use crate::error::Error;
use crate::graph::{Geometry, SmallGraph};
use crate::piece::Piece;
use crate::search::{Memo, Problem};
use crate::theory::{self, Obstruction};
use crate::tour::{CompactTour, Tour};

/// The largest board the searches take (their memory grows by ~14 bytes a square); the
/// construction takes every board up to [`crate::board::MAX_SIDE`] a side.
pub const MAX_SQUARES: u64 = 4_000_000;

/// Bytes a square the construction needs: the successor array, plus a bit for the check.
pub const CONSTRUCTION_BYTES_PER_SQUARE: u64 = 4;

/// Bytes a square the searches need (path, positions, degrees, visited marks).
pub const SEARCH_BYTES_PER_SQUARE: u64 = 14;

/// Boards up to this many squares get the exact search by SAT when a piece other than the knight
/// defeats the walks: it settled every square board of the camel, zebra and giraffe up to 16x16
/// in under a second (`results/leapers.md`); its clauses grow with the board, its rounds too.
pub const SAT_MAX_SQUARES: u64 = 1024;

/// Which way to make a tour (`--method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// The construction where it applies (the knight; boards with both sides at least 5 and
    /// strips 3 or 4 wide), the searches elsewhere.
    #[default]
    Auto,
    /// Only the linear-time construction.
    Construct,
    /// Only Warnsdorff's rule with rotations (and steering to the start square).
    Warnsdorff,
    /// Only the exact search (boards of up to 64 squares) or randomised backtracking.
    Backtrack,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Auto => "auto",
            Strategy::Construct => "construct",
            Strategy::Warnsdorff => "warnsdorff",
            Strategy::Backtrack => "backtrack",
        })
    }
}

/// What to find.
#[derive(Clone, Debug, Default)]
pub struct FindOptions {
    pub closed: bool,
    /// Start square; a1 when not given.
    pub from: Option<Square>,
    pub seed: u64,
    /// Heuristic attempts before the exact search (small boards) or giving up.
    pub attempts: u32,
    /// Node budget of the exact search.
    pub exact_budget: u64,
    /// Which methods may run.
    pub strategy: Strategy,
    /// Every search gives up after this long (the construction needs no limit).
    pub time_limit: Duration,
}

impl FindOptions {
    #[must_use]
    pub fn new(closed: bool, from: Option<Square>, seed: u64) -> FindOptions {
        FindOptions {
            closed,
            from,
            seed,
            attempts: 16,
            exact_budget: 50_000_000,
            strategy: Strategy::Auto,
            time_limit: Duration::from_secs(10),
        }
    }

    /// The same, made by `strategy`.
    #[must_use]
    pub fn with_strategy(mut self, strategy: Strategy) -> FindOptions {
        self.strategy = strategy;
        self
    }
}

/// When the searches give up: checked in every loop of theirs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline(Instant);

impl Deadline {
    fn after(limit: Duration) -> Deadline {
        let now = Instant::now();
        Deadline(
            now.checked_add(limit)
                .unwrap_or(now + Duration::from_secs(86_400 * 365)),
        )
    }

    pub(crate) fn passed(self) -> bool {
        Instant::now() >= self.0
    }

    /// The time left, if any.
    pub(crate) fn left(self) -> Option<Duration> {
        self.0
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }
}

/// How a tour was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The linear-time construction from pieces.
    Construction,
    Warnsdorff {
        attempt: u32,
    },
    /// A path found from another square, rotated until the start is one of its ends.
    Steered {
        attempt: u32,
    },
    Exact,
    /// The exact search by SAT.
    Sat,
    Backtrack,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::Construction => f.write_str("construction from blocks"),
            Method::Warnsdorff { attempt } => {
                write!(f, "Warnsdorff with rotations (attempt {})", attempt + 1)
            }
            Method::Steered { attempt } => {
                write!(
                    f,
                    "a path from another square steered to start here (attempt {})",
                    attempt + 1
                )
            }
            Method::Exact => f.write_str("exact search"),
            Method::Sat => f.write_str("exact search by SAT"),
            Method::Backtrack => f.write_str("backtracking search"),
        }
    }
}

/// Why no tour is returned.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error("no {kind} tour on {board}: {reason}")]
    Impossible {
        kind: &'static str,
        board: Board,
        reason: Obstruction,
    },
    #[error("no {kind} tour on {board}: {reason}")]
    Graph {
        kind: &'static str,
        board: Board,
        reason: String,
    },
    #[error("no {kind} tour on {board} starts on {from}: an exhaustive search found none")]
    ProvedNone {
        kind: &'static str,
        board: Board,
        from: String,
    },
    /// The exact search by SAT proved that no tour exists (from `from`, when given: tours exist
    /// from other squares).
    #[error(
        "no {kind} tour on {board}{}: a SAT solver proved it (a tour takes two of every square's moves, one at each end of an open tour, and crosses every cut of the board; no choice of moves does both, {rounds} round{} of cuts)",
        from.as_ref().map(|f| format!(" starts on {f}")).unwrap_or_default(),
        if *rounds == 1 { "" } else { "s" }
    )]
    ProvedNoneBySat {
        kind: &'static str,
        board: Board,
        from: Option<String>,
        rounds: u32,
    },
    #[error("internal error: a search produced an invalid tour: {0}")]
    Internal(#[from] crate::tour::TourError),
    #[error(
        "no {kind} tour found on {board} from {from} after {attempts} attempts (no proof that none exists); try another --seed"
    )]
    GaveUp {
        kind: &'static str,
        board: Board,
        from: String,
        attempts: u32,
    },
    #[error(
        "no {kind} tour found on {board} from {from} within the {seconds} s limit (no proof that none exists); try another --seed"
    )]
    TimedOut {
        kind: &'static str,
        board: Board,
        from: String,
        seconds: f64,
    },
    #[error("--method {strategy} cannot make the {kind} tour of {board} from {from}: {why}")]
    Unsupported {
        strategy: Strategy,
        kind: &'static str,
        board: Board,
        from: String,
        why: &'static str,
    },
}

/// A found, verified tour and how it was found.
#[derive(Clone, Debug)]
pub struct Found {
    pub tour: Tour,
    pub method: Method,
}

/// A found, verified tour in compact form (4 bytes a square) and how it was found.
#[derive(Clone, Debug)]
pub struct FoundCompact {
    pub tour: CompactTour,
    pub method: Method,
}

fn kind(closed: bool) -> &'static str {
    if closed { "closed" } else { "open" }
}

/// Finds one tour of `piece` on `board`, verified before it is returned, as a list of squares
/// (8 bytes a square; [`find_compact`] keeps 4).
pub fn find_tour(board: Board, piece: &Piece, opts: &FindOptions) -> Result<Found, FindError> {
    let found = find_compact(board, piece, opts)?;
    Ok(Found {
        tour: found.tour.to_tour(),
        method: found.method,
    })
}

/// Finds one tour of `piece` on `board`, verified before it is returned: by the construction
/// where it applies and the strategy allows it, else by the searches (up to [`MAX_SQUARES`]).
pub fn find_compact(
    board: Board,
    piece: &Piece,
    opts: &FindOptions,
) -> Result<FoundCompact, FindError> {
    let k = kind(opts.closed);
    let theorem = if opts.closed {
        theory::closed_obstruction(board, piece)
    } else {
        theory::open_obstruction(board, piece, opts.from)
    };
    if let Some(reason) = theorem {
        return Err(FindError::Impossible {
            kind: k,
            board,
            reason,
        });
    }
    let from = opts.from.unwrap_or(Square::new(0, 0));
    if matches!(opts.strategy, Strategy::Auto | Strategy::Construct) {
        let plan = piece
            .is_knight()
            .then(|| construct::plan(board, opts.closed, from))
            .flatten();
        if let Some(plan) = plan {
            // a join that fails is a gap in the pieces (the sweeps say there is none): search
            if let Some(built) = plan.build() {
                let tour =
                    CompactTour::verified(board, piece, built.first, built.next, opts.closed)?;
                return Ok(FoundCompact {
                    tour,
                    method: Method::Construction,
                });
            }
        }
        if opts.strategy == Strategy::Construct {
            return Err(FindError::Unsupported {
                strategy: opts.strategy,
                kind: k,
                board,
                from: board.name(from),
                why: if piece.is_knight() {
                    "the construction covers boards with both sides at least 5 and strips 3 or 4 wide, from every start square a tour can have but a few on small boards (up to 9x13, or strips under 31 long); try --method auto"
                } else {
                    "the construction makes knight's tours only; try --method auto"
                },
            });
        }
    }
    if board.squares() > MAX_SQUARES {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "the tour searches",
            max: MAX_SQUARES,
            hint: "Larger boards, up to 10000x10000, are made by the construction (the knight, --method auto or construct).",
        }
        .into());
    }
    let (path, method) = search(board, piece, opts, from)?;
    Ok(FoundCompact {
        tour: CompactTour::from_path(board, piece, &path, opts.closed)?,
        method,
    })
}

/// The searches, within the deadline: a path of square indices and how it was found.
fn search(
    board: Board,
    piece: &Piece,
    opts: &FindOptions,
    from: Square,
) -> Result<(Vec<u32>, Method), FindError> {
    let k = kind(opts.closed);
    let deadline = Deadline::after(opts.time_limit);
    let timed_out = || FindError::TimedOut {
        kind: k,
        board,
        from: board.name(from),
        seconds: opts.time_limit.as_secs_f64(),
    };
    let geo = Geometry::new(board, piece);
    if let Some(reason) = theory::graph_obstruction(&geo, opts.closed) {
        return Err(FindError::Graph {
            kind: k,
            board,
            reason,
        });
    }
    let start = board.index(from);
    let adjacent = |a: u32, b: u32| {
        let (sa, sb) = (board.square(a), board.square(b));
        piece.is_move(sa.row, sa.col, sb.row, sb.col)
    };
    let n = board.squares() as usize;
    let walks = matches!(opts.strategy, Strategy::Auto | Strategy::Warnsdorff);
    for attempt in (0..opts.attempts).take_while(|_| walks) {
        let seed = opts
            .seed
            .wrapping_add(u64::from(attempt).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // a closed tour can be walked from anywhere and renumbered: after the requested square,
        // try a corner (where Warnsdorff's rule is at its best) and then random squares
        let origin = match attempt {
            _ if !opts.closed => start,
            0 => start,
            1 => 0,
            _ => fastrand::Rng::with_seed(seed).u32(..n as u32),
        };
        if deadline.passed() {
            return Err(timed_out());
        }
        let mut walk = warnsdorff::Walk::new(&geo, origin, seed, deadline);
        if !walk.complete() {
            continue;
        }
        if opts.closed && !walk.close(adjacent, 64 + 4 * n) {
            continue;
        }
        let mut path = walk.path;
        if opts.closed {
            // the cycle may be read from any square: renumber it to start on the requested one
            let at = path
                .iter()
                .position(|&s| s == start)
                .expect("tour covers the start");
            path.rotate_left(at);
        }
        return Ok((path, Method::Warnsdorff { attempt }));
    }
    if !piece.is_knight()
        && board.squares() <= SAT_MAX_SQUARES
        && matches!(opts.strategy, Strategy::Auto | Strategy::Backtrack)
    {
        // other leapers defeat the walks on some boards (the zebra's 12x12) that the
        // depth-first searches cannot settle either: the exact search by SAT does, both ways
        let no = |from: Option<String>, rounds: u32| FindError::ProvedNoneBySat {
            kind: k,
            board,
            from,
            rounds,
        };
        match sat::tour(&geo, opts.closed, Some(start), deadline) {
            sat::Answer::Tour(path) => return Ok((path, Method::Sat)),
            sat::Answer::None { rounds } if opts.closed => return Err(no(None, rounds)),
            sat::Answer::None { rounds } => {
                // none from this square: is there one from anywhere?
                return Err(match sat::tour(&geo, false, None, deadline) {
                    sat::Answer::None { rounds } => no(None, rounds),
                    sat::Answer::Tour(_) => no(Some(board.name(from)), rounds),
                    sat::Answer::Unknown => timed_out(),
                });
            }
            sat::Answer::Unknown => return Err(timed_out()),
        }
    }
    if !opts.closed && walks {
        // a walk from the start gets stuck: walk from elsewhere, then bend the path until the
        // start is one of its ends
        for attempt in 0..16u32 {
            if deadline.passed() {
                return Err(timed_out());
            }
            let seed = opts.seed ^ 0xC0FF_EE00 ^ u64::from(attempt);
            let mut rng = fastrand::Rng::with_seed(seed);
            // corners first: a tour can start there on every board that has one
            let mut origin = match attempt {
                0 => 0,
                1 => n as u32 - 1,
                _ => rng.u32(..n as u32),
            };
            // on an odd board a colour-switching piece's path starts and ends on a1's colour
            while piece.is_colour_switching()
                && n % 2 == 1
                && Board::colour(board.square(origin)) == 1
            {
                origin = rng.u32(..n as u32);
            }
            let mut walk = warnsdorff::Walk::new(&geo, origin, seed, deadline);
            if !walk.complete() {
                // where the walk fails from everywhere (4×n), a short backtracking run gives the
                // path to bend
                match backtrack::with_restarts(&geo, false, origin, seed, 1_000_000, deadline) {
                    Some(path) => walk = warnsdorff::Walk::from_path(&geo, path, seed, deadline),
                    None => continue,
                }
            }
            if walk.steer_start_to(start, (1024 * n).min(100_000_000 / n)) {
                return Ok((walk.path, Method::Steered { attempt }));
            }
        }
    }
    if opts.strategy == Strategy::Warnsdorff {
        return Err(if deadline.passed() {
            timed_out()
        } else {
            FindError::GaveUp {
                kind: k,
                board,
                from: board.name(from),
                attempts: opts.attempts,
            }
        });
    }
    if let Some(g) = SmallGraph::new(board, piece) {
        return exact(&g, board, opts, start, deadline).map(|p| (p, Method::Exact));
    }
    if let Some(path) = backtrack::with_restarts(
        &geo,
        opts.closed,
        start,
        opts.seed,
        opts.exact_budget,
        deadline,
    ) {
        return Ok((path, Method::Backtrack));
    }
    if deadline.passed() {
        return Err(timed_out());
    }
    Err(FindError::GaveUp {
        kind: k,
        board,
        from: board.name(from),
        attempts: opts.attempts,
    })
}

/// The exact search on a small board: short randomised runs with growing budgets (restarts cut
/// the heavy tail of depth-first search) that share one table of dead states, so every run
/// builds on what the earlier ones proved. Ends with a tour, a proof of none, or the budget spent.
fn exact(
    g: &SmallGraph,
    board: Board,
    opts: &FindOptions,
    start: u32,
    deadline: Deadline,
) -> Result<Vec<u32>, FindError> {
    let k = kind(opts.closed);
    let from = board.name(board.square(start));
    // a closed tour is searched from a square of least degree (fewest branches) and renumbered
    let origin = if opts.closed {
        (0..g.n)
            .min_by_key(|&s| g.masks[s as usize].count())
            .expect("a square")
    } else {
        start
    };
    let ends = if opts.closed {
        g.masks[origin as usize]
    } else {
        g.all
    };
    let problem = Problem::new(g, ends, 0);
    let mut dead = Memo::new(20);
    let mut rng = fastrand::Rng::with_seed(opts.seed);
    let mut run_budget = 50_000u64;
    let mut spent = 0u64;
    let mut run = 0u32;
    while spent < opts.exact_budget {
        if deadline.passed() {
            return Err(FindError::TimedOut {
                kind: k,
                board,
                from,
                seconds: opts.time_limit.as_secs_f64(),
            });
        }
        // runs stay short enough for the deadline to be checked between them
        let mut budget = run_budget.min(opts.exact_budget - spent).min(4_000_000);
        let given = budget;
        // the first run is plain Warnsdorff order; later ones break ties at random
        let tie = (run > 0).then_some(&mut rng);
        let answer = problem.first_path(g.all.without(origin), origin, &mut budget, &mut dead, tie);
        spent += given - budget;
        match answer {
            Some(Some(mut path)) => {
                let at = path
                    .iter()
                    .position(|&s| s == start)
                    .expect("tour covers the start");
                path.rotate_left(at);
                return Ok(path);
            }
            Some(None) => {
                return Err(FindError::ProvedNone {
                    kind: k,
                    board,
                    from,
                });
            }
            None if run % 2 == 1 => run_budget *= 2,
            None => {}
        }
        run += 1;
    }
    Err(FindError::GaveUp {
        kind: k,
        board,
        from,
        attempts: opts.attempts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(strategy: Strategy) -> Result<FoundCompact, FindError> {
        // no search starts a tour in the middle of a long 4-wide board quickly: they run
        // until the deadline
        let b = Board {
            rows: 4,
            cols: 10_000,
        };
        let mut opts =
            FindOptions::new(false, Some(Square::new(3, 4999)), 0).with_strategy(strategy);
        opts.time_limit = Duration::from_millis(300);
        find_compact(b, &Piece::knight(), &opts)
    }

    #[test]
    fn searches_stop_at_the_deadline() {
        for strategy in [Strategy::Warnsdorff, Strategy::Backtrack] {
            let r = timed(strategy);
            assert!(
                matches!(r, Err(FindError::TimedOut { .. })),
                "{strategy}: {:?}",
                r.map(|f| f.method)
            );
        }
        // the construction has no deadline to meet
        assert_eq!(timed(Strategy::Auto).unwrap().method, Method::Construction);
    }
}
