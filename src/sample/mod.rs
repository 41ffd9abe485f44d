//! Random tours: exactly uniform where the tours can be counted, from a Markov chain beyond.
//!
//! - **Exact** (`Method::Exact`): every tour asked for (directed open tours, those from a start
//!   square, or closed tours as undirected cycles) has the same probability. A uniform integer
//!   below the number of tours is drawn and the tour of that rank is built by walking a counting
//!   engine's tables: the bitboard search on boards of up to 64 squares (`dfs.rs`), the frontier
//!   engine's layers on long boards (`layers.rs`).
//! - **Chain** (`Method::Chain`): backbite moves on a Hamiltonian path from a tour the finder
//!   makes ([`chain`]); its stationary distribution is uniform, but how close a finite run gets is
//!   measured, not proved.
//!
//! Tour `j` of a run depends on the seed and `j` only (exact: its own random stream; chain: a
//! fixed number of chains, tour `j` from chain `j mod CHAINS`), never on the number of threads.
//! Every tour is checked by [`Tour::verified`] before it is returned.

pub mod chain;
mod dfs;
mod entry;
mod fault;
use fault::Fault;
mod layers;
mod meet;
mod nodes;
pub mod stats;

use std::time::Instant;

use num_bigint::BigUint;
use rayon::prelude::*;
use thiserror::Error;

use crate::board::{Board, Square};
use crate::count::CountSpec;
use crate::error::Error;
use crate::find::{self, FindError, FindOptions};
use crate::hash::mix;
use crate::piece::Piece;
use crate::tour::{Tour, TourError};

/// How tours are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Exact where the tables fit the memory bound and the count is quick, the chain otherwise.
    #[default]
    Auto,
    /// Exactly uniform, from the counting tables (an error where they do not fit).
    Exact,
    /// Exactly uniform from the frontier engine's layers, on any board they hold (the search's
    /// tables are never used: a cross-check of one exact sampler against the other, and the
    /// sampler of long boards; an error where the layers do not fit).
    Frontier,
    /// A Markov chain (backbites and two-edge exchanges): approximately uniform, any board a tour
    /// can be found on.
    Chain,
}

/// Which tables an exact sampler walks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Tables {
    /// The layers on boards with a short side of at most 5 and past 64 squares, the search
    /// otherwise (the faster on each, as measured in `results/sampling.md`).
    #[default]
    Auto,
    /// The counting search's subtree counts (boards of up to 64 squares).
    Search,
    /// The frontier engine's layers.
    Layers,
    /// The frontier count met in the middle: its digit tree's leaves, each made again with its
    /// layers kept where a batch lands in it (`meet.rs`).
    Meet,
}

impl Tables {
    /// The name `--tables` takes for it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Tables::Auto => "auto",
            Tables::Search => "search",
            Tables::Layers => "layers",
            Tables::Meet => "meet",
        }
    }
}

/// What to sample.
#[derive(Clone, Debug)]
pub struct Options {
    pub closed: bool,
    /// Only tours starting on this square (closed tours are printed from it).
    pub from: Option<Square>,
    pub seed: u64,
    pub method: Method,
    /// The most memory the exact sampler's tables may take, in bytes.
    pub max_memory: u64,
    /// Chain: moves between two samples (closed tours: closable paths visited); `None` for the
    /// default, [`chain_thin`].
    pub thin: Option<u64>,
    /// Chain: moves before the first sample; `None` for the default, [`chain_burn_in`].
    pub burn_in: Option<u64>,
    /// Exact: which tables (a cross-check of one against the other).
    pub tables: Tables,
    /// Told what a setup of minutes is doing before it starts (the command line prints it on
    /// stderr); `None`: nothing is told.
    pub tell: Option<fn(&str)>,
    /// Exact, by way of a ledger of the count met in the middle (`count --ledger DIR`): tours
    /// drawn from the pieces its records hold, each batch counting again the pieces it lands
    /// in (8x8 open, a count of hours).
    pub ledger: Option<std::path::PathBuf>,
    /// Exact, inside the count met in the middle: the count's leaves read from this file where
    /// it exists (written by an earlier run of the same board, piece and kind), the count
    /// skipped; where it does not, counted and written there for the next run.
    pub leaves: Option<std::path::PathBuf>,
    /// Exact, inside the count met in the middle: the right half's nodes of its digit tree kept
    /// in this folder, made once (those it lacks) and read by every batch after, instead of
    /// made again (8x8 closed: about 9 GB).
    pub nodes: Option<std::path::PathBuf>,
    /// Where the exact sampler's tables go when they pass a part of the bound (`--scratch`);
    /// `None`: the system's temporary folder.
    pub scratch: Option<std::path::PathBuf>,
}

impl Options {
    /// Open tours, automatic method, seed 0, the default memory bound.
    #[must_use]
    pub fn new(closed: bool, from: Option<Square>, seed: u64) -> Options {
        Options {
            closed,
            from,
            seed,
            method: Method::Auto,
            max_memory: crate::count::driver::default_max_memory(),
            thin: None,
            burn_in: None,
            tables: Tables::Auto,
            tell: None,
            ledger: None,
            leaves: None,
            nodes: None,
            scratch: None,
        }
    }

    #[must_use]
    pub fn with_method(mut self, method: Method) -> Options {
        self.method = method;
        self
    }
}

/// What the samplers need to know of a request.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub(crate) tables: Tables,
    pub(crate) closed: bool,
    pub(crate) from: Option<Square>,
    pub(crate) max_memory: u64,
    /// The folder of the tables that go to disk.
    pub(crate) scratch: std::path::PathBuf,
    /// Auto: give up on exact tables projected to take longer than this (a projection from the
    /// states counted, never the clock).
    pub(crate) seconds: Option<f64>,
    /// See [`Options::tell`].
    pub(crate) tell: Option<fn(&str)>,
    /// See [`Options::ledger`].
    pub(crate) ledger: Option<std::path::PathBuf>,
    /// See [`Options::leaves`].
    pub(crate) leaves: Option<std::path::PathBuf>,
    /// See [`Options::nodes`].
    pub(crate) nodes: Option<std::path::PathBuf>,
}

/// Why no tours are drawn.
#[derive(Debug, Error)]
pub enum SampleError {
    #[error(transparent)]
    Input(#[from] Error),
    /// No tour exists (exit 1).
    #[error("no {kind} tour on {board}{from}: {reason}")]
    NoTour {
        kind: &'static str,
        board: Board,
        from: String,
        reason: String,
    },
    /// Exact sampling asked for where it is out of reach (exit 2).
    #[error("{0}")]
    OutOfReach(String),
    /// A file of the exact sampler's failed (its layers past the bound, a kept node, the
    /// leaves file): the machine's failure (exit 3), not the request's.
    #[error(transparent)]
    Disk(#[from] crate::durable::DiskError),
    /// The chain could not start: the finder found no tour.
    #[error("the chain needs a tour to start from: {0}")]
    Find(#[from] FindError),
    #[error("internal error: a sampled path is not a tour: {0}")]
    Internal(#[from] TourError),
}

/// Chains a run keeps, whatever the number of threads (tour `j` comes from chain `j mod CHAINS`).
pub const CHAINS: usize = 8;

/// The chain's default thinning: moves between two samples of open tours on an `n`-square
/// board, `32 n` (2,048 on 8x8), at most 65,536; for closed tours, closable paths visited between
/// two samples, `2 n`. On 8x8 (and 6x6) the measured autocorrelations of the statistics in
/// `results/sampling.md` are below 0.05 at these lags.
#[must_use]
pub fn chain_thin(squares: u64, closed: bool) -> u64 {
    if closed {
        (squares * 2).clamp(4, 1 << 16)
    } else {
        (squares * 32).clamp(16, 1 << 16)
    }
}

/// The chain's default burn-in, in the thinning's units: 20 thinning intervals, from a tour
/// the construction or a heuristic made (a start far from typical).
#[must_use]
pub fn chain_burn_in(squares: u64, closed: bool) -> u64 {
    20 * chain_thin(squares, closed)
}

/// The summary line of a sampler met in the middle, made from its description.
type Says = Box<dyn Fn(&str) -> String + Send + Sync>;

/// The engine drawing the tours.
enum Engine {
    Dfs(Box<dfs::Dfs>),
    Layers(Box<dyn layers::Draw>),
    /// A sampler met in the middle, and how the summary says it from its description (which
    /// changes where a batch makes it again with wider counts).
    Meet(Box<dyn meet::Batch>, Says),
    Chain {
        chains: Vec<chain::Chain>,
        moves: chain::Moves,
        thin: u64,
        burn_in: u64,
        burnt: bool,
    },
}

/// A sampler: its tables (or chains), built once, then batches of tours drawn from it.
pub struct Sampler {
    board: Board,
    piece: Piece,
    opts: Options,
    engine: Engine,
    /// Tours drawn so far (the index of the next).
    drawn: u64,
    how: String,
    note: Option<String>,
    total: Option<BigUint>,
    build_seconds: f64,
    /// The threads the exact sampler runs on where the memory bound holds fewer than the pool
    /// has (each holds its own beside the tables); `None`: the pool's.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

/// `f` on `pool`, or on the caller's pool where there is none.
fn on_pool<T: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

impl Sampler {
    /// Checks the request and builds the tables (exact) or finds the chains' first tour.
    pub fn new(board: Board, piece: &Piece, opts: &Options) -> Result<Sampler, SampleError> {
        let t0 = Instant::now();
        if let Some(s) = opts.from {
            board.check_square(s)?;
        }
        let kind = if opts.closed { "closed" } else { "open" };
        let spec = CountSpec {
            closed: opts.closed,
            from: opts.from,
            ..CountSpec::default()
        };
        let no_tour = |reason: String| SampleError::NoTour {
            kind,
            board,
            from: opts
                .from
                .filter(|_| !opts.closed)
                .map(|s| format!(" from {}", board.name(s)))
                .unwrap_or_default(),
            reason,
        };
        if let Some(reason) = crate::count::obstruction(board, piece, &spec) {
            return Err(no_tour(reason.to_string()));
        }
        let req = Request {
            tables: if opts.method == Method::Frontier {
                Tables::Layers
            } else {
                opts.tables
            },
            closed: opts.closed,
            from: opts.from,
            max_memory: opts.max_memory,
            scratch: opts.scratch.clone().unwrap_or_else(std::env::temp_dir),
            seconds: (opts.method == Method::Auto).then_some(AUTO_SECONDS),
            tell: opts.tell,
            ledger: opts.ledger.clone(),
            leaves: opts.leaves.clone(),
            nodes: opts.nodes.clone(),
        };
        if opts.ledger.is_some()
            && (matches!(opts.method, Method::Chain | Method::Frontier)
                || matches!(opts.tables, Tables::Search | Tables::Layers))
        {
            return Err(Error::Invalid(
                "--ledger draws exactly inside the count met in the middle: use it with --method auto or exact and --tables auto or meet".into(),
            )
            .into());
        }
        let meet_only = |what: &str| -> Result<(), SampleError> {
            if opts.ledger.is_some()
                || matches!(opts.method, Method::Chain | Method::Frontier)
                || matches!(opts.tables, Tables::Search | Tables::Layers)
            {
                return Err(Error::Invalid(format!(
                    "{what} of the count met in the middle: use it with --method auto or exact, --tables auto or meet, and without --ledger"
                ))
                .into());
            }
            Ok(())
        };
        // the tables asked for must be the method's: none is overridden or ignored in silence
        match (opts.method, opts.tables) {
            (Method::Frontier, Tables::Search | Tables::Meet) => {
                return Err(Error::Invalid(format!(
                    "--method frontier draws from the frontier engine's layers, and --tables {} asks for other tables: drop --tables (or give --tables layers), or use --method exact with it",
                    opts.tables.name()
                ))
                .into());
            }
            (Method::Chain, t) if t != Tables::Auto => {
                return Err(Error::Invalid(format!(
                    "--tables {} chooses the exact sampler's tables, and --method chain draws by the Markov chain, from no tables: drop one of them",
                    t.name()
                ))
                .into());
            }
            _ => {}
        }
        if opts.leaves.is_some() {
            meet_only("--leaves keeps the leaves")?;
        }
        if opts.nodes.is_some() {
            meet_only("--nodes keeps the right half's nodes")?;
        }
        // the exact sampler met in the middle on the threads its bound holds (fewer than the
        // pool's where each would pass it), its tours the same on any
        let walk = crate::walk::layout::Walk::of(board, piece, &spec);
        let threads = rayon::current_num_threads();
        let fit = crate::frontier::sample_threads(&walk, opts.max_memory, threads);
        let pool = if fit < threads && walk.window() <= crate::frontier::MAX_WINDOW {
            Some(std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(fit)
                    .build()
                    .map_err(|e| Error::Invalid(format!("cannot start {fit} threads: {e}")))?,
            ))
        } else {
            None
        };
        let mut s = Sampler {
            board,
            piece: piece.clone(),
            opts: opts.clone(),
            engine: Engine::Layers(Box::new(layers::Empty)),
            drawn: 0,
            how: String::new(),
            note: None,
            total: None,
            build_seconds: 0.0,
            pool: pool.clone(),
        };
        let exact = match opts.method {
            Method::Chain => Err(Fault::Why(String::new())),
            Method::Exact | Method::Auto | Method::Frontier => {
                on_pool(pool.as_deref(), || exact_engine(board, piece, &req))
            }
        };
        match exact {
            Ok((engine, how, total)) => {
                if pool.is_some() {
                    s.note = Some(format!(
                        "a memory bound of {} holds {fit} of the {threads} threads (each holds its own beside the tables): the tours are drawn on {fit}, the same tours",
                        crate::human::human_bytes(opts.max_memory)
                    ));
                }
                s.engine = engine;
                s.how = how;
                s.total = Some(total);
            }
            // a file of the sampler's that failed stops it, whatever the method: the chain is
            // no answer to a full disk
            Err(Fault::Disk(d)) => return Err(SampleError::Disk(d)),
            Err(why)
                if matches!(opts.method, Method::Exact | Method::Frontier)
                    || opts.ledger.is_some()
                    || opts.leaves.is_some()
                    || opts.nodes.is_some() =>
            {
                return Err(SampleError::OutOfReach(why.to_string()));
            }
            Err(why) => {
                if opts.method == Method::Auto {
                    s.note = Some(format!(
                        "exact sampling is out of reach ({why}): the chain instead"
                    ));
                }
                s.start_chain()?;
            }
        }
        if s.total.as_ref().is_some_and(|t| *t == BigUint::ZERO) {
            return Err(no_tour("the exact count is 0".into()));
        }
        s.build_seconds = t0.elapsed().as_secs_f64();
        Ok(s)
    }

    fn start_chain(&mut self) -> Result<(), SampleError> {
        let (board, closed) = (self.board, self.opts.closed);
        let found = find::find_compact(
            board,
            &self.piece,
            &FindOptions::new(closed, self.opts.from, self.opts.seed),
        )?;
        let path: Vec<u32> = found.tour.squares().collect();
        let n = board.squares();
        let thin = self
            .opts
            .thin
            .unwrap_or_else(|| chain_thin(n, closed))
            .max(1);
        let burn_in = self
            .opts
            .burn_in
            .unwrap_or_else(|| chain_burn_in(n, closed));
        let pinned = !closed && self.opts.from.is_some();
        let chains = (0..CHAINS as u64)
            .map(|c| chain::Chain::new(path.clone(), closed, pinned, mix(self.opts.seed ^ mix(c))))
            .collect();
        self.how = format!(
            "Markov chain of backbites and two-edge exchanges{}: {CHAINS} chains from a tour by {}, burn-in {burn_in} {unit}, then a sample every {thin} {unit}",
            if closed {
                " on open paths, sampled where they close"
            } else {
                ""
            },
            found.method,
            unit = if closed { "closable paths" } else { "moves" },
        );
        self.engine = Engine::Chain {
            chains,
            moves: chain::Moves::new(board, &self.piece),
            thin,
            burn_in,
            burnt: false,
        };
        Ok(())
    }

    /// Tours best drawn at a time: enough for every thread, few enough to print as they come;
    /// inside a count met in the middle, where a batch costs a pass over the leaves it lands in
    /// whatever its size, as many as memory keeps at ease.
    #[must_use]
    pub fn batch(&self) -> u64 {
        match self.engine {
            Engine::Meet(..) => 1 << 16,
            _ => 4096,
        }
    }

    /// `"exact"` or `"chain"`.
    #[must_use]
    pub fn method(&self) -> &'static str {
        if self.uniform() { "exact" } else { "chain" }
    }

    /// Whether every tour is drawn with exactly the same probability.
    #[must_use]
    pub fn uniform(&self) -> bool {
        !matches!(self.engine, Engine::Chain { .. })
    }

    /// How the tours are drawn, in one line.
    #[must_use]
    pub fn how(&self) -> &str {
        &self.how
    }

    /// Why `auto` took the chain, or why the exact sampler draws on fewer threads than asked
    /// for, if it does.
    #[must_use]
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The number of tours drawn from (exact only): directed open tours (from the start square,
    /// if one is given) or closed tours as undirected cycles.
    #[must_use]
    pub fn total(&self) -> Option<&BigUint> {
        self.total.as_ref()
    }

    /// Seconds spent building the tables (or finding the chains' start).
    #[must_use]
    pub fn build_seconds(&self) -> f64 {
        self.build_seconds
    }

    pub fn board(&self) -> Board {
        self.board
    }

    /// The tours of ranks `ranks` (exact samplers only; `None` for the chain), each verified:
    /// the map from ranks to tours that a draw applies to a uniform rank, for enumerating every
    /// tour of a small board. Each is read in its first direction (closed tours from `--from` or
    /// a1), so with the search's tables every directed open tour has one rank.
    pub fn every(&mut self, ranks: std::ops::Range<u64>) -> Option<Vec<Tour>> {
        let (board, closed, from) = (self.board, self.opts.closed, self.opts.from);
        let paths: Vec<Vec<u32>> = match &self.engine {
            Engine::Dfs(d) => ranks.into_par_iter().map(|r| d.unrank(r)).collect(),
            Engine::Layers(l) => ranks
                .into_par_iter()
                .map(|r| l.unrank(&BigUint::from(r), false))
                .collect(),
            Engine::Meet(..) | Engine::Chain { .. } => return None,
        };
        let piece = &self.piece;
        paths
            .into_par_iter()
            .map(|p| {
                let p = orient(board, p, closed, from, false, false);
                let squares = p.into_iter().map(|i| board.square(i)).collect();
                Tour::verified(board, piece, squares, closed).ok()
            })
            .collect()
    }

    /// The next `n` tours, each verified; in parallel on the current rayon pool, the same for
    /// any number of threads.
    pub fn draw(&mut self, n: usize) -> Result<Vec<Tour>, SampleError> {
        let pool = self.pool.clone();
        on_pool(pool.as_deref(), || self.draw_here(n))
    }

    /// [`Sampler::draw`] on the current pool.
    fn draw_here(&mut self, n: usize) -> Result<Vec<Tour>, SampleError> {
        let first = self.drawn;
        self.drawn += n as u64;
        let (board, closed, from, seed) =
            (self.board, self.opts.closed, self.opts.from, self.opts.seed);
        let paths: Vec<(Vec<u32>, bool)> = match &mut self.engine {
            Engine::Dfs(d) => (0..n)
                .into_par_iter()
                .with_max_len(1)
                .map(|j| {
                    let mut rng = tour_rng(seed, first + j as u64);
                    let r = below_u128(&mut rng, u128::from(d.total()));
                    (d.unrank(r as u64), rng.bool())
                })
                .collect(),
            Engine::Layers(l) => (0..n)
                .into_par_iter()
                .with_max_len(64)
                .map(|j| {
                    let mut rng = tour_rng(seed, first + j as u64);
                    let r = below(&mut rng, l.bound());
                    let coin = rng.bool();
                    (l.unrank(&r, coin), coin)
                })
                .collect(),
            Engine::Meet(b, says) => {
                let drawn = b.draw(seed, first, n).map_err(|e| match e {
                    Fault::Disk(d) => SampleError::Disk(d),
                    e => SampleError::OutOfReach(e.to_string()),
                })?;
                // a sampler made again in the batch (counts past a word) says so in the summary
                self.how = says(&b.describe());
                drawn
            }
            Engine::Chain {
                chains,
                moves,
                thin,
                burn_in,
                burnt,
            } => {
                let (thin, burn) = (*thin, std::mem::replace(burnt, true));
                let burn_in = *burn_in;
                let moves = &*moves;
                // tour j comes from chain j mod CHAINS: chain c gives the tours of this batch
                // with that remainder, in order
                let per: Vec<Vec<(Vec<u32>, bool)>> = chains
                    .par_iter_mut()
                    .enumerate()
                    .map(|(c, ch)| {
                        if !burn {
                            ch.advance(moves, burn_in);
                        }
                        (first..first + n as u64)
                            .filter(|j| j % CHAINS as u64 == c as u64)
                            .map(|_| {
                                ch.advance(moves, thin);
                                (ch.path().to_vec(), ch.coin())
                            })
                            .collect()
                    })
                    .collect();
                let mut iters: Vec<_> = per.into_iter().map(Vec::into_iter).collect();
                (first..first + n as u64)
                    .map(|j| {
                        iters[(j % CHAINS as u64) as usize]
                            .next()
                            .expect("one a tour")
                    })
                    .collect()
            }
        };
        let piece = &self.piece;
        let chain = !self.uniform();
        paths
            .into_par_iter()
            .map(|(path, coin)| {
                let path = orient(board, path, closed, from, coin, chain);
                let squares = path.into_iter().map(|i| board.square(i)).collect();
                Ok(Tour::verified(board, piece, squares, closed)?)
            })
            .collect()
    }
}

/// A drawn path as a tour. A closed tour is read from `from` (or a1) in the direction a fair
/// coin picks (the samplers give cycles in an arbitrary one). The chain's open paths are
/// reversed on the coin too: its moves never change the colour of either end (the new end is
/// two moves from the old one), so on a board with an even number of squares it keeps every
/// path in one of its two directions, and only the coin makes each direction equally likely.
fn orient(
    board: Board,
    mut path: Vec<u32>,
    closed: bool,
    from: Option<Square>,
    coin: bool,
    chain: bool,
) -> Vec<u32> {
    if closed {
        let start = from.map_or(0, |s| board.index(s));
        let at = path
            .iter()
            .position(|&s| s == start)
            .expect("a tour passes every square");
        path.rotate_left(at);
        if coin {
            path[1..].reverse();
        }
    } else if chain && from.is_none() && coin {
        path.reverse();
    }
    path
}

/// The random stream of tour `j`.
fn tour_rng(seed: u64, j: u64) -> fastrand::Rng {
    fastrand::Rng::with_seed(mix(mix(seed) ^ mix(j.wrapping_add(0x5A4D_504C))))
}

/// A uniform integer below `n` (`n > 0`): random bits as many as `n - 1` has, drawn until the
/// number is below `n` (fewer than two draws on average), so no value is favoured.
pub(crate) fn below_u128(rng: &mut fastrand::Rng, n: u128) -> u128 {
    debug_assert!(n > 0);
    let bits = 128 - (n - 1).leading_zeros();
    if bits == 0 {
        return 0;
    }
    loop {
        let x = rng.u128(..) >> (128 - bits);
        if x < n {
            return x;
        }
    }
}

/// [`below_u128`] for numbers of any size.
pub(crate) fn below(rng: &mut fastrand::Rng, n: &BigUint) -> BigUint {
    if let Ok(small) = u128::try_from(n) {
        return below_u128(rng, small).into();
    }
    let bits = (n - 1u32).bits();
    let words = bits.div_ceil(64) as usize;
    loop {
        let mut w: Vec<u64> = (0..words).map(|_| rng.u64(..)).collect();
        let spare = words as u64 * 64 - bits;
        if spare > 0 {
            *w.last_mut().expect("a word") >>= spare;
        }
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        let x = BigUint::from_bytes_le(&bytes);
        if x < *n {
            return x;
        }
    }
}

/// `auto` and `exact` take the count met in the middle where its count is projected at no
/// more than this (8x8 closed: about two minutes on two cores); `--tables meet` at any length.
pub const MEET_SECONDS: f64 = 900.0;

/// The sampler inside a count met in the middle (`meet.rs`), or why not; `before` says why the
/// other tables were out of reach.
fn meet_engine(
    board: Board,
    piece: &Piece,
    req: &Request,
    before: Option<String>,
) -> Result<(Engine, String, BigUint), Fault> {
    let kind = if req.closed { "closed" } else { "open" };
    let and = |why: String| match &before {
        Some(b) => format!("{b}; {why}"),
        None => why,
    };
    let and_fault = |f: Fault| f.after(before.as_deref());
    let spec = CountSpec {
        closed: req.closed,
        from: req.from,
        symmetry: true,
        ..CountSpec::default()
    };
    narrow_crossing(board, piece, &spec).map_err(and_fault)?;
    let secs = crate::frontier::reach_under(board, piece, &spec, CHOICE_THREADS, req.max_memory)
        .map_err(|e| and(e.to_string()))?
        .seconds;
    if before.is_some() && secs > MEET_SECONDS {
        return Err(and(format!(
            "the count met in the middle is projected at {}: --ledger DIR draws exactly from a ledger of it (`knights count {board}{} --ledger DIR` writes one, a piece at a time)",
            crate::count::human_duration(secs),
            if req.closed { " --closed" } else { "" }
        ))
        .into());
    }
    let kept = req.leaves.as_ref().filter(|p| p.exists());
    if let (Some(tell), Some(path)) = (req.tell, kept) {
        tell(&format!(
            "exact sampling of {kind} tours of {board} draws inside the frontier count met in the middle: its leaves are read from '{}' (the count is not made again), then each batch of tours makes again the leaves of the count it lands in",
            path.display()
        ));
    } else if let Some(tell) = req.tell.filter(|_| secs > 10.0) {
        tell(&format!(
            "exact sampling of {kind} tours of {board} draws inside the frontier count met in the middle: it counts them first (projected about {}), then each batch of tours makes again the leaves of the count it lands in",
            crate::count::human_duration(secs)
        ));
    }
    let b = meet::build(board, piece, req).map_err(and_fault)?;
    Ok(meet_described(b, req.closed, |d| {
        format!("({d}; each batch makes again the leaves it lands in, with their layers)")
    }))
}

/// A sampler inside a count met in the middle, with the words that say how it draws (`how` of
/// its description, after "met in the middle") and its total of tours (open tours: both
/// directions).
fn meet_described(
    b: Box<dyn meet::Batch>,
    closed: bool,
    how: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (Engine, String, BigUint) {
    let undirected = BigUint::from(b.total());
    let (total, kind, cycles) = if closed {
        (undirected, "closed", " (undirected cycles)")
    } else {
        (undirected * 2u32, "open", "")
    };
    let shown = total.clone();
    let says: Says = Box::new(move |described| {
        format!(
            "exact: a uniform rank below {shown} {kind} tours{cycles}, drawn inside the frontier count met in the middle {}",
            how(described)
        )
    });
    let how = says(&b.describe());
    (Engine::Meet(b, says), how, total)
}

/// Why the exact sampler cannot draw inside the count met in the middle of `board`: a crossing
/// of more boundary squares than its join takes.
fn narrow_crossing(board: Board, piece: &Piece, spec: &CountSpec) -> Result<(), Fault> {
    match crate::frontier::crossing_squares(board, piece, spec) {
        Some(m) if m > crate::frontier::SAMPLE_CROSSING => Err(fault::fault!(
            "exact sampling inside a count met in the middle joins crossings of at most {} squares, and the crossing of {board} has {m}: --method chain draws from a Markov chain instead",
            crate::frontier::SAMPLE_CROSSING
        )),
        _ => Ok(()),
    }
}

/// The sampler by way of the ledger in `dir` (`meet.rs`), or why not.
fn ledger_engine(
    board: Board,
    piece: &Piece,
    req: &Request,
    dir: &std::path::Path,
) -> Result<(Engine, String, BigUint), Fault> {
    let spec = CountSpec {
        closed: req.closed,
        from: req.from,
        symmetry: true,
        ..CountSpec::default()
    };
    narrow_crossing(board, piece, &spec)?;
    let whole = crate::count::folder::whole(dir).map_err(|e| e.to_string())?;
    let b = meet::from_ledger(board, piece, req, whole, &dir.display().to_string())?;
    Ok(meet_described(b, req.closed, str::to_string))
}

/// The threads the projections that choose the exact sampler's tables are made for, whatever
/// `-j` and the machine: the choice sets the tours a seed draws, and the same seed draws the
/// same tours on any machine and any number of threads (two: the machine the thresholds were
/// set on).
pub(crate) const CHOICE_THREADS: usize = 2;

/// DFS estimates beyond this many seconds leave exact sampling to the frontier tables.
const DFS_SECONDS: f64 = 120.0;

/// `auto` takes exact sampling only where its tables are projected (from their states) to take at most
/// this long to build; `exact` waits as long as it takes, within the memory bound.
pub const AUTO_SECONDS: f64 = 30.0;

/// The exact engine for the request, or why there is none.
fn exact_engine(
    board: Board,
    piece: &Piece,
    req: &Request,
) -> Result<(Engine, String, BigUint), Fault> {
    let n = board.squares();
    let kind = if req.closed { "closed" } else { "open" };
    if let Some(dir) = &req.ledger {
        return ledger_engine(board, piece, req, dir);
    }
    if req.leaves.is_some() || req.nodes.is_some() {
        return meet_engine(board, piece, req, None);
    }
    let layers_first = match req.tables {
        Tables::Auto => n > 1 && layers::preferred(board, piece, req),
        Tables::Search => false,
        Tables::Layers | Tables::Meet => true,
    };
    if req.tables == Tables::Search && !board.is_small() {
        return Err(fault::fault!(
            "the search's tables take boards of up to 64 squares; {board} has {n}"
        ));
    }
    if board.is_small() && !layers_first {
        let spec = CountSpec {
            closed: req.closed,
            from: req.from,
            symmetry: true,
            per_square: false,
            wide: false,
            to: None,
            // (the DFS's plan has no walk to order)
            order: crate::engine::Order::default(),
        };
        let plan = crate::count::Plan::new(board, piece, &spec);
        let secs = if n <= 40 {
            0.0
        } else {
            crate::count::estimate_seconds(&plan, CHOICE_THREADS)
        };
        if secs <= req.seconds.unwrap_or(DFS_SECONDS) || req.tables == Tables::Search {
            let d = dfs::Dfs::new(board, piece, req);
            let total = BigUint::from(d.total());
            let how = format!(
                "exact: a uniform rank below {total} {kind} tours{}, unranked down the counting search ({}; the subtree counts of the first {} moves in tables, {} nodes)",
                if req.closed {
                    " (undirected cycles)"
                } else {
                    ""
                },
                d.roots_described(),
                d.depth(),
                d.held()
            );
            return Ok((Engine::Dfs(Box::new(d)), how, total));
        }
        if !layers::fits(board, piece) {
            return Err(fault::fault!(
                "counting {kind} tours on {board} by search is estimated at {}",
                crate::count::human_duration(secs)
            ));
        }
    }
    let l = match req.tables {
        Tables::Meet => return meet_engine(board, piece, req, None),
        Tables::Layers => layers::build(board, piece, req)?,
        Tables::Auto | Tables::Search => match layers::build(board, piece, req) {
            Ok(l) => l,
            // why the layers do not apply, said before why the meeting does not either
            Err(Fault::Why(why)) => return meet_engine(board, piece, req, Some(why)),
            Err(f) => return Err(f),
        },
    };
    // open tours from any square: the layers count undirected paths, each drawn in a direction
    // a fair coin picks
    let total = if req.closed || req.from.is_some() {
        l.bound().clone()
    } else {
        l.bound() * 2u32
    };
    let how = format!(
        "exact: a uniform rank below {total} {kind} tours{}, unranked through the frontier engine's layers ({})",
        if req.closed {
            " (undirected cycles)"
        } else {
            ""
        },
        l.describe()
    );
    Ok((Engine::Layers(l), how, total))
}
