//! Finding one tour: existence theorems first, then Warnsdorff with Pósa rotations and seeded
//! restarts, then (on boards of up to 64 squares) an exact search that either finds a tour or
//! proves there is none from the start square.

mod backtrack;
mod warnsdorff;

use std::fmt;

use crate::board::{Board, Square};
use crate::error::Error;
use crate::graph::{Geometry, SmallGraph};
use crate::piece::Piece;
use crate::search::{Memo, Problem};
use crate::theory::{self, Obstruction};
use crate::tour::Tour;

/// The largest board the heuristic search takes (memory grows by ~14 bytes a square).
pub const MAX_SQUARES: u64 = 4_000_000;

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
        }
    }
}

/// How a tour was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Warnsdorff {
        attempt: u32,
    },
    /// A path found from another square, rotated until the start is one of its ends.
    Steered {
        attempt: u32,
    },
    Exact,
    Backtrack,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
}

/// A found, verified tour and how it was found.
#[derive(Clone, Debug)]
pub struct Found {
    pub tour: Tour,
    pub method: Method,
}

fn kind(closed: bool) -> &'static str {
    if closed { "closed" } else { "open" }
}

/// Finds one tour of `piece` on `board`, verified before it is returned.
pub fn find_tour(board: Board, piece: &Piece, opts: &FindOptions) -> Result<Found, FindError> {
    let k = kind(opts.closed);
    if board.squares() > MAX_SQUARES {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "the tour search",
            max: MAX_SQUARES,
            hint: "Boards that large need a linear-time construction, which is not built yet.",
        }
        .into());
    }
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
    let geo = Geometry::new(board, piece);
    if let Some(reason) = theory::graph_obstruction(&geo, opts.closed) {
        return Err(FindError::Graph {
            kind: k,
            board,
            reason,
        });
    }
    let from = opts.from.unwrap_or(Square::new(0, 0));
    let start = board.index(from);
    let adjacent = |a: u32, b: u32| {
        let (sa, sb) = (board.square(a), board.square(b));
        piece.is_move(sa.row, sa.col, sb.row, sb.col)
    };
    let n = board.squares() as usize;
    for attempt in 0..opts.attempts {
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
        let mut walk = warnsdorff::Walk::new(&geo, origin, seed);
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
        let tour = verify(board, piece, &path, opts.closed)?;
        return Ok(Found {
            tour,
            method: Method::Warnsdorff { attempt },
        });
    }
    if !opts.closed {
        // a walk from the start gets stuck: walk from elsewhere, then bend the path until the
        // start is one of its ends
        for attempt in 0..16u32 {
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
            let mut walk = warnsdorff::Walk::new(&geo, origin, seed);
            if !walk.complete() {
                // where the walk fails from everywhere (4×n), a short backtracking run gives the
                // path to bend
                match backtrack::with_restarts(&geo, false, origin, seed, 1_000_000) {
                    Some(path) => walk = warnsdorff::Walk::from_path(&geo, path, seed),
                    None => continue,
                }
            }
            if walk.steer_start_to(start, (1024 * n).min(100_000_000 / n)) {
                let tour = verify(board, piece, &walk.path, false)?;
                return Ok(Found {
                    tour,
                    method: Method::Steered { attempt },
                });
            }
        }
    }
    if let Some(g) = SmallGraph::new(board, piece) {
        return exact(&g, board, piece, opts, start);
    }
    if let Some(path) =
        backtrack::with_restarts(&geo, opts.closed, start, opts.seed, opts.exact_budget)
    {
        return Ok(Found {
            tour: verify(board, piece, &path, opts.closed)?,
            method: Method::Backtrack,
        });
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
    piece: &Piece,
    opts: &FindOptions,
    start: u32,
) -> Result<Found, FindError> {
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
        let mut budget = run_budget.min(opts.exact_budget - spent);
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
                return Ok(Found {
                    tour: verify(board, piece, &path, opts.closed)?,
                    method: Method::Exact,
                });
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

/// Every path handed out goes through the tour checker; a failure here is a bug in a search.
fn verify(board: Board, piece: &Piece, path: &[u32], closed: bool) -> Result<Tour, FindError> {
    let squares = path.iter().map(|&i| board.square(i)).collect();
    Ok(Tour::verified(board, piece, squares, closed)?)
}
