//! Every tour, one by one: the count's bitboard search ([`crate::search`], split into the work
//! units of [`Plan`]) with each complete path turned into the tours it stands for, each checked,
//! written into its worker's buffer and the buffers written in work-unit order, so that the
//! output is the same on any number of threads.
//!
//! What is listed, each tour exactly once (the number is the figure `knights count` reports):
//! - **open tours from every square**, directed (every start, both directions). The search walks
//!   one start square per symmetry orbit, as the count does, and each path it finds stands for
//!   its images under the symmetries that take the orbit's first square to each square of the
//!   orbit; a path that ends in a later orbit also stands for the reverses of those images (the
//!   count's weights 1 and 2: the reverses are never searched for);
//! - **open tours from `from`** (and to `to`) as found; **to `to`** alone: searched from `to` and
//!   read backwards;
//! - **closed tours**, one per undirected cycle: the count's anchored paths (the anchor square,
//!   one of its neighbours, ..., the other), read around the cycle from `from` (else a1), or so
//!   that it ends on `to`; with both, the closed tours from `from` whose last square is `to`.

pub mod census;
pub mod report;
mod text;

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

pub use census::{Census, Filter, FilterError, Histogram, Property};

use crate::board::{Board, Square};
use crate::count::report::group_u64;
use crate::count::{self, CountSpec, Plan, UNIT_TARGET, Unit};
use crate::error::Error;
use crate::estimate::{EstimateSpec, estimate};
use crate::piece::Piece;
use crate::search::{PathWalk, Problem, fresh_ids, with_memo};
use crate::theory::Obstruction;
use text::Text;

/// How listed tours are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// One tour a line: algebraic squares separated by spaces.
    #[default]
    Moves,
    /// JSON Lines: one tour object a line (rows, cols, closed, path, piece, length, index).
    Json,
    /// Numbered boards separated by a blank line.
    Grid,
    /// Nothing but the summary (and the histogram): for timing and the census.
    None,
}

/// What to list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// Closed tours (undirected cycles) instead of open ones.
    pub closed: bool,
    pub from: Option<Square>,
    pub to: Option<Square>,
    /// Stop after this many tours (at least 1).
    pub limit: Option<u64>,
    /// Conditions every tour listed meets.
    pub filters: Vec<Filter>,
    /// The property whose distribution over the tours listed is counted.
    pub histogram: Option<Property>,
    pub format: Format,
}

impl ListOptions {
    /// The count of the same tours: its headline figure (directed open tours, closed tours as
    /// undirected cycles, or the tours between `from` and `to`) is the number listed.
    #[must_use]
    pub fn count_spec(&self) -> CountSpec {
        CountSpec {
            closed: self.closed,
            from: self.from,
            to: self.to,
            // closed tours are listed from the anchor's paths as found: the count's mirror
            // weighting (a path counted twice for its image) is not a listing
            symmetry: !self.closed,
            per_square: false,
            wide: false,
            // (the listing's searches have no walk to order)
            order: crate::engine::Order::default(),
        }
    }
}

/// The longest listing started without `--force`: a day.
pub const REACH_SECONDS: f64 = 86_400.0;

/// Nanoseconds of one core per square of each tour listed, by format, besides the search: what
/// the estimate of a listing's time adds for its output (measured on 5x7 and 6x6 on this
/// project's 2-core machines while busy, `results/list.md`, and rounded up).
const fn nanos_per_square(format: Format) -> f64 {
    match format {
        Format::None => 2.0,
        Format::Moves => 8.0,
        Format::Json => 16.0,
        Format::Grid => 60.0,
    }
}

/// Why tours cannot be listed.
#[derive(Debug, Error)]
pub enum ListError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error(
        "listing the {what} would take about {} on {threads} thread{}: about {tours:.1e} tours (Knuth's estimate) and {search} of search; use --limit N for the first N tours, `knights count` for how many there are, or --force to start anyway",
        count::human_duration(*seconds),
        crate::render::plural(*threads as u64),
        search = count::human_duration(*search_seconds)
    )]
    OutOfReach {
        what: String,
        seconds: f64,
        search_seconds: f64,
        tours: f64,
        threads: usize,
    },
    /// A path the listing made fails the check every tour passes before it is printed: a bug.
    #[error("internal error: the listing made a path that is not a tour: {0}")]
    NotATour(String),
    #[error("cannot write the tours")]
    Write(#[source] io::Error),
}

/// What a listing did.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Tours written (those meeting the conditions, up to the limit).
    pub listed: u64,
    /// Tours the search made before the conditions, in the work units written whole.
    pub examined: u64,
    /// Whether the listing stopped at the limit (then not every tour was examined).
    pub limited: bool,
    /// Work units written whole that ran out of their node budget (`--limit` only): where
    /// there are any, the tours listed are not the first of the whole listing.
    pub cut: u64,
    /// The distribution asked for, over the tours written.
    pub histogram: Option<Histogram>,
    /// The theorem that says there is no tour, when one does (nothing is searched).
    pub reason: Option<Obstruction>,
    pub seconds: f64,
}

/// A listing's estimated time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// Seconds in all, on the threads asked for.
    pub seconds: f64,
    /// Seconds of search ([`count::estimate_seconds`]: the count's estimate of its pruned tree,
    /// which is the listing's tree without the memoised counts).
    pub search_seconds: f64,
    /// Tours the search makes (the count's figure, by [`crate::estimate`]).
    pub tours: f64,
}

/// Where the square a closed tour is read from lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lead {
    /// The tour starts on it.
    First(u8),
    /// The tour ends on it.
    Last(u8),
}

/// How one root's paths become tours.
#[derive(Clone, Debug)]
enum Reading {
    /// The path is the tour.
    AsFound,
    /// The path read backwards is the tour.
    Reversed,
    /// The path's images under `perms`; those ending on a square of weight 2 read both ways.
    Images {
        perms: Vec<[u8; 64]>,
        weight: [u8; 64],
    },
    /// The anchor, then the path: a cycle, read from its lead square.
    Cycle { anchor: u8, lead: Lead },
}

/// The tours one work unit made: their text (a JSON object without its index's value), where
/// each ends in it, and their values of the histogram's property.
#[derive(Debug, Default)]
struct Chunk {
    text: Vec<u8>,
    ends: Vec<usize>,
    values: Vec<u8>,
    tours: u64,
    examined: u64,
    /// The unit ran out of its node budget (`--limit` only) before its end.
    cut: bool,
}

impl Chunk {
    /// The memory its buffers hold.
    fn bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * size_of::<usize>() + self.values.capacity()
    }

    /// The chunk with nothing in it, its buffers kept.
    fn emptied(mut self) -> Chunk {
        self.text.clear();
        self.ends.clear();
        self.values.clear();
        self.tours = 0;
        self.examined = 0;
        self.cut = false;
        self
    }
}

/// Work units a listing is split into: four times the count's, so that no unit's buffer holds
/// too large a share of the output (a 6x6 unit writes up to about 8 MB as moves).
const UNITS: usize = 4 * UNIT_TARGET;

/// Search nodes a work unit may take when `--limit` is given: a unit of a board out of reach
/// (8x8) can hold a dead subtree that no listing gets past, and the limit's tours must come from
/// the units after it. About a tenth of a second; no unit of a board of up to 36 squares takes a
/// thirtieth of it (131,104 nodes at most, on 6x6; `the_limit_takes_the_first_tours`).
const LIMIT_BUDGET: u64 = 4_000_000;

/// The most tours one path stands for: 8 symmetries, both ways.
const MAX_IMAGES: usize = 16;

/// A listing made ready: the plan, its work units with their paths, and how each root's paths
/// are read.
#[derive(Debug)]
pub struct Listing {
    board: Board,
    opts: ListOptions,
    plan: Plan,
    units: Vec<(Unit, Vec<u32>)>,
    readings: Vec<Reading>,
    census: Census,
    text: Text,
    reason: Option<Obstruction>,
    piece: Piece,
    /// Search nodes a unit may take under `--limit` ([`LIMIT_BUDGET`]; lower in tests).
    budget: u64,
}

impl Listing {
    /// Checks the request (a board of up to 64 squares, squares on it, a limit of at least 1)
    /// and prepares the listing.
    pub fn new(board: Board, piece: &Piece, opts: &ListOptions) -> Result<Listing, ListError> {
        if !board.is_small() {
            return Err(Error::TooLarge {
                board: board.to_string(),
                squares: board.squares(),
                engine: "the listing (the bitboard search)",
                max: 64,
                hint: "Use `knights count` for how many tours there are, or `knights sample` for some of them.",
            }
            .into());
        }
        let check = |s: Option<Square>| s.map(|s| board.check_square(s)).transpose();
        let (from, to) = (check(opts.from)?, check(opts.to)?);
        if opts.limit == Some(0) {
            return Err(Error::Invalid(
                "--limit 0 lists nothing: give at least 1 (or leave it out for every tour)".into(),
            )
            .into());
        }
        let opts = ListOptions {
            from,
            to,
            ..opts.clone()
        };
        let spec = opts.count_spec();
        let reason = count::obstruction(board, piece, &spec);
        let plan = Plan::new(board, piece, &spec);
        let units = if reason.is_some() {
            Vec::new()
        } else {
            plan.units_with_prefixes(UNITS)
        };
        let readings = plan
            .roots
            .iter()
            .map(|r| reading(board, &plan, r, &spec))
            .collect();
        Ok(Listing {
            board,
            census: Census::new(board, piece),
            text: Text::new(board, piece, opts.format),
            plan,
            units,
            readings,
            reason,
            piece: piece.clone(),
            opts,
            budget: LIMIT_BUDGET,
        })
    }

    /// What is listed, e.g. `open tours of 6x6 by the knight from a1`.
    #[must_use]
    pub fn describe(&self) -> String {
        self.describe_n(2)
    }

    /// [`Listing::describe`] for `n` tours: `1 open tour of ...`, without the number.
    fn describe_n(&self, n: u64) -> String {
        let b = self.board;
        let mut s = format!(
            "{} tour{} of {b} by the {}",
            if self.opts.closed { "closed" } else { "open" },
            crate::render::plural(n),
            self.piece
        );
        if let Some(f) = self.opts.from {
            s += &format!(" from {}", b.name(f));
        }
        if let Some(t) = self.opts.to {
            s += &format!(" to {}", b.name(t));
        }
        s
    }

    /// The summary line of a listing: how many tours of what, the conditions, the limit, the
    /// time and the rate.
    #[must_use]
    pub fn report(&self, s: &Summary) -> String {
        let b = self.board;
        let o = &self.opts;
        let reading = match (o.closed, o.from, o.to) {
            (false, None, None) => " (directed: every start square, both directions)".to_string(),
            (true, None, None) => " (one per undirected cycle, each read from a1)".to_string(),
            (true, Some(f), None) => {
                format!(" (one per undirected cycle, each read from {})", b.name(f))
            }
            (true, None, Some(t)) => {
                format!(
                    " (one per undirected cycle, each read to end on {})",
                    b.name(t)
                )
            }
            _ => String::new(),
        };
        let mut line = format!(
            "{} {}{reading}",
            group_u64(s.listed),
            self.describe_n(s.listed)
        );
        if !o.filters.is_empty() {
            let conditions: Vec<String> = o.filters.iter().map(ToString::to_string).collect();
            line += &format!(" where {}", conditions.join(" and "));
            if !s.limited {
                line += &format!(", of {} listed by the search", group_u64(s.examined));
            }
        }
        line += ", each checked";
        if let (true, Some(l)) = (s.limited, o.limit) {
            line += &format!("; stopped at --limit {l}");
        }
        if s.cut > 0 {
            line += &format!(
                "; {} work unit{} ran out of the {} search nodes a unit takes under --limit and {} left for the next, so these are not the first tours of the whole listing",
                group_u64(s.cut),
                crate::render::plural(s.cut),
                group_u64(self.budget),
                if s.cut == 1 { "was" } else { "were" }
            );
        }
        let rate = s.examined.max(s.listed) as f64 / s.seconds.max(1e-9);
        line + &format!("; {:.2} s ({} tours/s)", s.seconds, group_u64(rate as u64))
    }

    /// The estimated time of the listing on `threads` threads: the count's estimate of the
    /// search, plus the output of the estimated number of tours (scaled down to `--limit` when
    /// no condition may make the first tours rare).
    #[must_use]
    pub fn reach(&self, threads: usize) -> Reach {
        if self.units.is_empty() {
            return Reach {
                seconds: 0.0,
                search_seconds: 0.0,
                tours: 0.0,
            };
        }
        let search_seconds = count::estimate_seconds(&self.plan, threads);
        let spec = EstimateSpec {
            probes: 4000,
            ..EstimateSpec::new(self.opts.closed, self.opts.from.or(self.opts.to))
        };
        let tours = estimate(self.board, &self.piece, &spec).map_or(0.0, |e| e.estimate);
        let output = tours * self.board.squares() as f64 * nanos_per_square(self.opts.format)
            / 1e9
            / threads.max(1) as f64;
        let share = match self.opts.limit {
            Some(l) if self.opts.filters.is_empty() && tours > 0.0 => (l as f64 / tours).min(1.0),
            _ => 1.0,
        };
        Reach {
            seconds: (search_seconds + output) * share,
            search_seconds,
            tours,
        }
    }

    /// Refuses a listing estimated at more than [`REACH_SECONDS`] on `threads` threads.
    pub fn check_reach(&self, threads: usize) -> Result<Reach, ListError> {
        let r = self.reach(threads);
        if r.seconds > REACH_SECONDS {
            return Err(ListError::OutOfReach {
                what: self.describe(),
                seconds: r.seconds,
                search_seconds: r.search_seconds,
                tours: r.tours,
                threads,
            });
        }
        Ok(r)
    }

    /// Lists the tours into `out`, on the current rayon pool. The work units are listed in
    /// batches, each unit into its own buffer, while the batch before is written in unit order;
    /// the limit is applied as the buffers are written. A write that fails (a closed pipe)
    /// stops the search at once and is returned as [`ListError::Write`].
    pub fn run<W: Write + Send>(&self, out: &mut W) -> Result<Summary, ListError> {
        let t0 = Instant::now();
        let stop = AtomicBool::new(false);
        let base = fresh_ids(self.plan.roots.len() as u64);
        let problems: Vec<Problem<'_>> = (0..self.plan.roots.len())
            .map(|i| self.plan.problem(i, base).with_stop(&stop))
            .collect();
        let mut sink = Sink {
            out,
            text: &self.text,
            limit: self.opts.limit,
            written: 0,
            examined: 0,
            cut: 0,
            histogram: self.opts.histogram.map(|_| Histogram::default()),
        };
        // written chunks come back here, so that their buffers are reused rather than grown
        // again from fresh pages
        let spare: Mutex<Vec<Chunk>> = Mutex::new(Vec::new());
        let threads = rayon::current_num_threads();
        let total = self.units.len();
        // small batches first, so that the first tours (and `--limit`, and `| head`) come at
        // once; then larger ones, up to about BATCH_BYTES of text
        let mut size = 2 * threads;
        let mut at = 0;
        let mut pending: Vec<Chunk> = Vec::new();
        let mut limited = false;
        loop {
            let end = (at + size).min(total);
            let (wrote, made) = rayon::join(
                || sink.take_all(std::mem::take(&mut pending), &stop, &spare),
                || {
                    (at..end)
                        .into_par_iter()
                        .with_max_len(1)
                        .map(|i| self.list_unit(i, &problems, &spare))
                        .collect::<Result<Vec<Chunk>, ListError>>()
                },
            );
            if !wrote.map_err(ListError::Write)? {
                limited = true;
                break;
            }
            let made = made?;
            if at == total {
                break;
            }
            let bytes: usize = made.iter().map(|c| c.text.len()).sum();
            let per_unit = bytes / made.len().max(1) + 1;
            size = (size * 2)
                .min(BATCH_BYTES / per_unit)
                .clamp(threads, MAX_BATCH);
            pending = made;
            at = end;
        }
        sink.out.flush().map_err(ListError::Write)?;
        Ok(Summary {
            listed: sink.written,
            examined: sink.examined,
            limited,
            cut: sink.cut,
            histogram: sink.histogram,
            reason: self.reason.clone(),
            seconds: t0.elapsed().as_secs_f64(),
        })
    }

    /// Lists the tours of work unit `i` into a buffer: every path below the unit, each read as
    /// the tours it stands for, kept when it meets the conditions, checked and written. Stops
    /// at the limit (no unit needs more tours than the whole listing) and when the problems'
    /// stop flag is set.
    fn list_unit(
        &self,
        i: usize,
        problems: &[Problem<'_>],
        spare: &Mutex<Vec<Chunk>>,
    ) -> Result<Chunk, ListError> {
        let (unit, prefix) = &self.units[i];
        let root = unit.root as usize;
        let n = self.board.squares() as usize;
        let mut path = [0u8; 64];
        for (k, &s) in prefix.iter().enumerate() {
            path[k] = s as u8;
        }
        let mut chunk = spare
            .lock()
            .expect("no thread panics holding it")
            .pop()
            .map_or_else(Chunk::default, Chunk::emptied);
        let mut images = [[0u8; 64]; MAX_IMAGES];
        let mut bad: Option<Vec<u8>> = None;
        let cap = self.opts.limit.unwrap_or(u64::MAX);
        let keep_ends = self.text.per_tour() || self.opts.limit.is_some();
        let closed = self.opts.closed;
        let budget = if self.opts.limit.is_some() {
            self.budget
        } else {
            u64::MAX
        };
        let mut visit = |found: &[u8]| {
            let k = self.read(root, found, &mut images);
            chunk.examined += k as u64;
            // the census is the same for every image and reverse: see `census`
            let first = &images[0][..n];
            if !self.census.keeps(&self.opts.filters, first, closed) {
                return true;
            }
            let value = self
                .opts
                .histogram
                .map(|h| self.census.value(h, first, closed));
            for t in &images[..k] {
                let t = &t[..n];
                if !self.is_tour(t) {
                    bad = Some(t.to_vec());
                    return false;
                }
                let ends_meet = closed || self.census.closable(t);
                self.text.write(&mut chunk.text, t, ends_meet);
                if keep_ends {
                    chunk.ends.push(chunk.text.len());
                }
                if let Some(v) = value {
                    chunk.values.push(v as u8);
                }
                chunk.tours += 1;
                if chunk.tours >= cap {
                    return false;
                }
            }
            true
        };
        let spent = with_memo(|dead| {
            let mut walk = PathWalk { path, dead, budget };
            problems[root].each_path(unit.free, unit.cur, prefix.len(), &mut walk, &mut visit);
            walk.budget == 0
        });
        chunk.cut = spent;
        if let Some(t) = bad {
            let names: Vec<String> = t
                .iter()
                .map(|&s| self.board.name(self.board.square(u32::from(s))))
                .collect();
            return Err(ListError::NotATour(names.join(" ")));
        }
        Ok(chunk)
    }

    /// Writes the tours a path of root `root` stands for into `out`; returns how many.
    fn read(&self, root: usize, path: &[u8], out: &mut [[u8; 64]; MAX_IMAGES]) -> usize {
        let n = path.len();
        match &self.readings[root] {
            Reading::AsFound => {
                out[0][..n].copy_from_slice(path);
                1
            }
            Reading::Reversed => {
                for (i, &s) in path.iter().rev().enumerate() {
                    out[0][i] = s;
                }
                1
            }
            Reading::Images { perms, weight } => {
                let both = weight[path[n - 1] as usize] == 2;
                let mut k = 0;
                for p in perms {
                    for (i, &s) in path.iter().enumerate() {
                        out[k][i] = p[s as usize];
                    }
                    k += 1;
                    if both {
                        let (done, rest) = out.split_at_mut(k);
                        for (s, &q) in rest[0][..n].iter_mut().zip(done[k - 1][..n].iter().rev()) {
                            *s = q;
                        }
                        k += 1;
                    }
                }
                k
            }
            Reading::Cycle { anchor, lead } => {
                let n = n + 1;
                let at = |i: usize| if i == 0 { *anchor } else { path[i - 1] };
                let pos = |s: u8| {
                    (0..n)
                        .find(|&i| at(i) == s)
                        .expect("a cycle passes every square")
                };
                let start = match *lead {
                    Lead::First(s) => pos(s),
                    Lead::Last(s) => (pos(s) + 1) % n,
                };
                for (i, s) in out[0][..n].iter_mut().enumerate() {
                    *s = at((start + i) % n);
                }
                1
            }
        }
    }

    /// The check every tour passes before it is written, on the bitboard: every square once, and
    /// every step (and, for a closed tour, the step back to the start) a move of the piece.
    /// Branch-free over the squares: it runs on every tour printed.
    fn is_tour(&self, t: &[u8]) -> bool {
        let g = &self.plan.graph;
        let Some((&first, rest)) = t.split_first() else {
            return false;
        };
        // squares are below 64: they come from the board's permutations and the search
        let bit = |s: u8| 1u64.wrapping_shl(u32::from(s));
        let (mut seen, mut steps, mut prev) = (bit(first), 1u64, first);
        for &s in rest {
            steps &= g.masks[prev as usize & 63].0 >> (s & 63);
            seen |= bit(s);
            prev = s;
        }
        if self.opts.closed {
            steps &= g.masks[prev as usize & 63].0 >> (first & 63);
        }
        // as many squares as the board, all different: every square once
        t.len() == g.n as usize && seen == g.all.0 && steps & 1 == 1
    }
}

/// A batch of work units is cut to hold about this much text.
const BATCH_BYTES: usize = 8 << 20;

/// The most work units in a batch.
const MAX_BATCH: usize = 128;

/// How each root's paths are read, from the plan the count would make for `spec`.
fn reading(board: Board, plan: &Plan, root: &count::Root, spec: &CountSpec) -> Reading {
    let idx = |s: Square| board.index(s) as u8;
    if spec.closed {
        if spec.from.is_some() && spec.to.is_some() {
            return Reading::AsFound;
        }
        // the square the path leaves out besides its start: the anchor
        let anchor = (plan.graph.all.0 & !root.free.0 & !(1u64 << root.start)).trailing_zeros();
        let lead = match (spec.from, spec.to) {
            (Some(f), _) => Lead::First(idx(f)),
            (None, Some(t)) => Lead::Last(idx(t)),
            (None, None) => Lead::First(0),
        };
        return Reading::Cycle {
            anchor: anchor as u8,
            lead,
        };
    }
    match (spec.from, spec.to) {
        (Some(_), _) => Reading::AsFound,
        (None, Some(_)) => Reading::Reversed,
        (None, None) => {
            let orbit = board
                .orbits()
                .into_iter()
                .find(|o| o.contains(&root.start))
                .expect("every square has an orbit");
            let from = board.square(root.start);
            let syms = board.symmetries();
            let perms = orbit
                .iter()
                .map(|&s| {
                    let sym = syms
                        .iter()
                        .find(|&&g| board.apply(g, from) == board.square(s))
                        .expect("the orbit is the start's images");
                    let mut p = [0u8; 64];
                    for (i, q) in board.permutation(*sym).into_iter().enumerate() {
                        p[i] = q as u8;
                    }
                    p
                })
                .collect();
            Reading::Images {
                perms,
                weight: root.weight,
            }
        }
    }
}

/// The most bytes of buffers kept for reuse: past it a written chunk's buffers are freed (one
/// unit can write tens of megabytes, and keeping every buffer at its largest would hold the
/// whole output).
const SPARE_BYTES: usize = 32 << 20;

/// Keeps a written chunk's buffers for a later unit, within [`SPARE_BYTES`].
fn recycle(spare: &Mutex<Vec<Chunk>>, c: Chunk) {
    let mut spare = spare.lock().expect("no thread panics holding it");
    let held: usize = spare.iter().map(Chunk::bytes).sum();
    if held + c.bytes() <= SPARE_BYTES {
        spare.push(c);
    }
}

/// Writes the chunks in order, up to the limit, and adds up what they hold.
struct Sink<'a, W> {
    out: &'a mut W,
    text: &'a Text,
    limit: Option<u64>,
    written: u64,
    examined: u64,
    cut: u64,
    histogram: Option<Histogram>,
}

impl<W: Write> Sink<'_, W> {
    /// Writes `chunks` in order; `false` once the limit is reached. Sets `stop` when it stops
    /// the listing (the limit, or a write that failed), so that the search stops at once.
    fn take_all(
        &mut self,
        chunks: Vec<Chunk>,
        stop: &AtomicBool,
        spare: &Mutex<Vec<Chunk>>,
    ) -> io::Result<bool> {
        for c in chunks {
            match self.take(&c) {
                Ok(true) => recycle(spare, c),
                other => {
                    // Relaxed: the flag only asks the workers to stop; their results are dropped
                    stop.store(true, Ordering::Relaxed);
                    return other;
                }
            }
        }
        Ok(true)
    }

    /// Writes one chunk (as much of it as the limit allows); `false` once the limit is reached.
    fn take(&mut self, c: &Chunk) -> io::Result<bool> {
        let room = self.limit.map_or(u64::MAX, |l| l - self.written);
        let take = c.tours.min(room);
        if !self.text.per_tour() && take == c.tours {
            self.out.write_all(&c.text)?;
        } else {
            for j in 0..take as usize {
                let index = self.written + j as u64;
                let begin = if j == 0 { 0 } else { c.ends[j - 1] };
                self.text.start(self.out, index)?;
                self.out.write_all(&c.text[begin..c.ends[j]])?;
                self.text.finish(self.out, index)?;
            }
        }
        if let Some(h) = &mut self.histogram {
            for &v in &c.values[..take as usize] {
                h.add(u32::from(v));
            }
        }
        self.written += take;
        if take == c.tours {
            self.examined += c.examined;
            self.cut += u64::from(c.cut);
        }
        Ok(self.limit.is_none_or(|l| self.written < l))
    }
}

#[cfg(test)]
mod tests;
