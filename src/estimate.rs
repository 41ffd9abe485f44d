//! Estimating how many tours there are where no exact count is within reach: Knuth's random
//! probes (1975) down the counting engine's pruned search tree. A probe walks from the root to a
//! leaf, picking each move at random; the product of the inverse probabilities of its choices,
//! counted at a complete tour, is an unbiased estimate of the number of tours, and the mean of
//! many probes converges to it. The tree is the one [`Plan`] gives the exact count (one start
//! square per symmetry orbit, the anchor's neighbour pairs for closed tours) with the same
//! pruning, so a probe rarely walks into a dead end the count would not enter either.
//!
//! Four things cut the variance without bias (measured in `results/estimate.md`):
//! - **Importance sampling**: a move to a square with `d` onward moves is picked with weight
//!   `bias^-d` (Warnsdorff's preference; `bias` 1 is Knuth's uniform choice), and the estimate
//!   divides by the probability of the move taken.
//! - **One move of look-ahead**: moves after which the pruning rules already see a dead end are
//!   never picked (they lead to no tour, so leaving them out changes no expectation).
//! - **Exact tails**: with `tail` free squares or fewer left, the probe counts the rest of its
//!   subtree exactly with the memoised counter.
//!
//! - **Stratification with Neyman allocation**: the roots are strata; a pilot of a tenth of the
//!   probes measures each root's spread, and the rest are shared in proportion to multiplier ×
//!   spread (the corner's root carries most of the variance on most boards). The pilot only
//!   steers: the estimate uses the other probes, so the allocation cannot bias it.
//!
//! The estimate is the stratified sum. Its 95 % interval allows for the skew of the estimate's
//! distribution (a rare probe can carry much of the total, so a run that missed such probes is
//! low and believes its spread too small): each root's spread is at least the one its pilot
//! measured (independently) plus its largest probe counted once more; Hall's transformation
//! removes the skewness the probes' third moments show; and the quantile is that of a 97.5 %
//! normal interval, for the tails no moment sees. Against exact counts it covered 2,163 of 2,200
//! runs (98.3 %; every board and probe count 95 times in 100 or more) where the plain normal
//! interval covered 93.8 % (90 % on some boards; `results/estimate.md`), and
//! [`Estimate::max_share`] still flags runs where one probe dominates.

use std::time::Instant;

use rayon::prelude::*;

use crate::bitboard::Bitboard;
use crate::board::{Board, Square};
use crate::count::{self, CountSpec, Plan};
use crate::error::{Error, Result};
use crate::hash::mix;
use crate::piece::Piece;
use crate::search::{Problem, fresh_ids, with_memo};
use crate::theory::{self, Obstruction};

/// The probes `knights estimate` takes by default.
pub const DEFAULT_PROBES: u64 = 200_000;

/// The most probes one estimate takes.
pub const MAX_PROBES: u64 = 1_000_000_000;

/// The quantile the interval is built at: that of a two-sided 97.5 % normal interval. The
/// estimate's distribution has heavier tails than the corrections below can see from the probes
/// (their spread is itself uncertain), and with the 95 % quantile the corrected interval covered
/// 95.3 to 98 % of 300 seeds per board; with this margin, 98 to 99.3 %, so that it is a 95 %
/// interval at least (`results/estimate.md`).
pub const Z_INTERVAL: f64 = 2.241_402_727_604_947;

/// A root whose pilot reaches fewer tours than this has an unknown spread: it gets at least an
/// even share of the probes.
const PILOT_HITS: u64 = 10;

/// How the probes walk. The defaults are the ones measured best in `results/estimate.md`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    /// A move to a square with `d` onward moves is picked with weight `bias^-d` (at least 1;
    /// 1 is Knuth's uniform choice).
    pub bias: f64,
    /// With this many free squares or fewer left, the subtree is counted exactly (0: never).
    pub tail: u32,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler {
            bias: 1.5,
            tail: 16,
        }
    }
}

/// What to estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimateSpec {
    pub closed: bool,
    pub from: Option<Square>,
    pub probes: u64,
    pub seed: u64,
    pub sampler: Sampler,
}

impl EstimateSpec {
    #[must_use]
    pub fn new(closed: bool, from: Option<Square>) -> EstimateSpec {
        EstimateSpec {
            closed,
            from,
            probes: DEFAULT_PROBES,
            seed: 0,
            sampler: Sampler::default(),
        }
    }
}

/// Which figure an estimate is of (the headline figure of `knights count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Open tours from every square: every start and both directions.
    Directed,
    /// Open tours from (or to) a given square: each counted once.
    Fixed,
    /// Closed tours: undirected cycles.
    Cycles,
}

impl Figure {
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Figure::Directed => "directed open tours",
            Figure::Fixed => "open tours from the square",
            Figure::Cycles => "closed tours (undirected cycles)",
        }
    }
}

/// An estimate with its 95 % interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub figure: Figure,
    pub estimate: f64,
    /// The interval's ends; `high` is `None` when no probe reached a tour (the spread then says
    /// nothing about how many there are).
    pub low: f64,
    pub high: Option<f64>,
    pub std_error: f64,
    pub probes: u64,
    /// Probes that reached at least one tour.
    pub hits: u64,
    /// The share of the estimate that its largest probe carries: near 1 / hits when the probes
    /// agree, much more when one probe dominates (then the spread, and the interval, are not to
    /// be trusted: take more probes).
    pub max_share: f64,
    /// The theorem that makes the count zero, when one does (no probes are then taken).
    pub reason: Option<Obstruction>,
    pub seconds: f64,
}

impl Estimate {
    /// Half the interval's width over the estimate: 0.1 is "within 10 %".
    #[must_use]
    pub fn relative_half_width(&self) -> Option<f64> {
        (self.estimate > 0.0).then(|| match self.high {
            Some(high) => (high - self.low) / 2.0 / self.estimate,
            None => Z_INTERVAL * self.std_error / self.estimate,
        })
    }
}

/// The running statistics of one root's probes: count, mean, sums of squared and cubed
/// deviations (Welford's updates extended to the third moment and merged by Pébay's formulas, so
/// no large sums cancel), hits and the largest.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    n: u64,
    mean: f64,
    m2: f64,
    m3: f64,
    hits: u64,
    max: f64,
}

impl Sums {
    fn add(self, x: f64) -> Sums {
        self.merge(Sums {
            n: 1,
            mean: x,
            m2: 0.0,
            m3: 0.0,
            hits: u64::from(x > 0.0),
            max: x,
        })
    }

    fn merge(self, o: Sums) -> Sums {
        if self.n == 0 {
            return o;
        }
        if o.n == 0 {
            return self;
        }
        let (na, nb) = (self.n as f64, o.n as f64);
        let n = na + nb;
        let d = o.mean - self.mean;
        Sums {
            n: self.n + o.n,
            mean: self.mean + d * nb / n,
            m2: self.m2 + o.m2 + d * d * na * nb / n,
            m3: self.m3
                + o.m3
                + d * d * d * na * nb * (na - nb) / (n * n)
                + 3.0 * d * (na * o.m2 - nb * self.m2) / n,
            hits: self.hits + o.hits,
            max: self.max.max(o.max),
        }
    }

    fn mean(&self) -> f64 {
        self.mean
    }

    /// The sample variance of the probes.
    fn variance(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        (self.m2 / (self.n - 1) as f64).max(0.0)
    }

    /// The third central moment of the probes.
    fn third_moment(&self) -> f64 {
        if self.n < 3 {
            return 0.0;
        }
        self.m3 / self.n as f64
    }
}

/// Probes per chunk: each chunk has its own random stream, so the answer does not depend on the
/// number of threads.
const CHUNK: u64 = 256;

/// Estimates the number of tours as `spec` asks, in parallel on the current rayon pool.
pub fn estimate(board: Board, piece: &Piece, spec: &EstimateSpec) -> Result<Estimate> {
    let t0 = Instant::now();
    let cspec = CountSpec {
        closed: spec.closed,
        from: spec.from.map(|s| board.check_square(s)).transpose()?,
        to: None,
        symmetry: true,
        per_square: false,
        wide: false,
        // (the DFS has no walk to order)
        order: crate::engine::Order::default(),
    };
    if !board.is_small() {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "the estimate",
            max: 64,
            hint: "It probes the counting engine's search tree, which holds boards of up to 64 squares.",
        });
    }
    if spec.probes == 0 || spec.probes > MAX_PROBES {
        return Err(Error::Invalid(format!(
            "--probes {} is out of range (allowed: 1 to {MAX_PROBES})",
            spec.probes
        )));
    }
    if !(spec.sampler.bias >= 1.0 && spec.sampler.bias.is_finite()) {
        return Err(Error::Invalid(format!(
            "bias {} is out of range (allowed: 1 or more)",
            spec.sampler.bias
        )));
    }
    let figure = match (spec.closed, spec.from) {
        (true, _) => Figure::Cycles,
        (false, Some(_)) => Figure::Fixed,
        (false, None) => Figure::Directed,
    };
    if let Some(reason) = count::obstruction(board, piece, &cspec) {
        return Ok(Estimate {
            figure,
            estimate: 0.0,
            low: 0.0,
            high: Some(0.0),
            std_error: 0.0,
            probes: 0,
            hits: 0,
            max_share: 0.0,
            reason: Some(reason),
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    let plan = Plan::new(board, piece, &cspec);
    let roots = plan.roots.len();
    // a root whose start square a theorem rules out (the middle lines of a 4-wide board) has no
    // tour: it gets no probes, which would only die there
    let live: Vec<bool> = plan
        .roots
        .iter()
        .map(|r| {
            spec.closed
                || theory::open_obstruction(board, piece, Some(board.square(r.start))).is_none()
        })
        .collect();
    let alive = live.iter().filter(|&&l| l).count().max(1) as u64;
    let id_base = fresh_ids(roots as u64);
    let run = |alloc: &[u64], stream: u64| {
        run_probes(&plan, alloc, mix(spec.seed) ^ stream, spec.sampler, id_base)
    };
    // a pilot of a tenth of the probes, split evenly, measures each root's spread; the rest go
    // where they cut the variance most (Neyman: in proportion to multiplier × spread), with a
    // floor so that no root goes unwatched, and at least an even share to a root whose pilot
    // reached too few tours for its spread to mean anything (on 4x9 the corner, which holds most
    // tours, reaches one in a hundred probes: a pilot that missed it left it 18 probes, and the
    // estimate lost most of the total with a narrow interval). The pilot's probes only steer:
    // the estimate is made from the main probes alone, so it stays unbiased.
    let pilot_each = (spec.probes / 10 / alive).max(2);
    let pilot = run(
        &live
            .iter()
            .map(|&l| if l { pilot_each } else { 0 })
            .collect::<Vec<_>>(),
        1,
    );
    let main = spec.probes.saturating_sub(pilot.iter().map(|s| s.n).sum());
    let floor = (main / alive / 100).max(2);
    let spread: Vec<f64> = plan
        .roots
        .iter()
        .zip(&pilot)
        .map(|(r, s)| r.multiplier as f64 * s.variance().sqrt())
        .collect();
    let sum: f64 = spread.iter().sum();
    let alloc: Vec<u64> = spread
        .iter()
        .zip(&pilot)
        .zip(&live)
        .map(|((&w, p), &l)| {
            if !l {
                return 0;
            }
            let share = if sum > 0.0 {
                w / sum
            } else {
                1.0 / alive as f64
            };
            let even = if p.hits < PILOT_HITS { main / alive } else { 0 };
            ((main as f64 * share) as u64).max(floor).max(even)
        })
        .collect();
    let by_root = run(&alloc, 2);
    let (mut total, mut var, mut third, mut largest) = (0.0, 0.0, 0.0, 0.0f64);
    for ((root, s), p) in plan.roots.iter().zip(&by_root).zip(&pilot) {
        if s.n == 0 {
            continue;
        }
        let (m, n) = (root.multiplier as f64, s.n as f64);
        total += m * s.mean();
        // the spread: at least the pilot's (an independent measure, so a main sample that
        // missed the rare large probes is not also believed about its spread), and the largest
        // probe once more (wider where the largest probes carry much of the total)
        var += m * m * (s.variance().max(p.variance()) / n + (s.max / n).powi(2));
        third += m * m * m * s.third_moment() / (n * n);
        largest = largest.max(m * s.max / n);
    }
    // the plan's weighted sum is the reported figure of every kind (see `count::tally`)
    let se = var.sqrt();
    let skew = if var > 0.0 {
        third / var.powf(1.5)
    } else {
        0.0
    };
    let (low, high) = interval(total, se, skew);
    let hits: u64 = by_root.iter().chain(&pilot).map(|s| s.hits).sum();
    Ok(Estimate {
        figure,
        estimate: total,
        low: low.max(0.0),
        high: (hits > 0).then_some(high),
        std_error: se,
        probes: by_root.iter().chain(&pilot).map(|s| s.n).sum(),
        hits,
        max_share: if total > 0.0 { largest / total } else { 0.0 },
        reason: None,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The interval around `total` with standard error `se` and skewness `skew` (of the estimate,
/// not of one probe): Hall's (1992) transformation of the studentised statistic, which removes
/// its skewness, `g(t) = t + a t² + a² t³ / 3 + skew / 6` with `a = skew / 3`, inverted at the
/// ± [`Z_INTERVAL`] quantiles. For a right-skewed estimate it moves both ends up: a sample that
/// missed the rare large probes is low, and so is its spread.
fn interval(total: f64, se: f64, skew: f64) -> (f64, f64) {
    let a = skew / 3.0;
    let inverse = |y: f64| {
        let y = y - skew / 6.0;
        if a.abs() < 1e-9 {
            y
        } else {
            ((1.0 + 3.0 * a * y).cbrt() - 1.0) / a
        }
    };
    (
        total - se * inverse(Z_INTERVAL),
        total - se * inverse(-Z_INTERVAL),
    )
}

/// Runs `alloc[r]` probes from each root `r` of `plan`, in chunks with random streams of their
/// own (derived from `seed`), so that the sums do not depend on the number of threads.
fn run_probes(plan: &Plan, alloc: &[u64], seed: u64, sampler: Sampler, id_base: u64) -> Vec<Sums> {
    let chunks: Vec<(usize, u64, u64)> = alloc
        .iter()
        .enumerate()
        .flat_map(|(r, &n)| (0..n.div_ceil(CHUNK)).map(move |c| (r, c, CHUNK.min(n - c * CHUNK))))
        .collect();
    let sums: Vec<(usize, Sums)> = chunks
        .par_iter()
        .map(|&(r, c, size)| {
            let p = plan.problem(r, id_base);
            let root = &plan.roots[r];
            let mut rng = fastrand::Rng::with_seed(mix(seed ^ mix((r as u64) << 32 | c)));
            let s = with_memo(|memo| {
                (0..size).fold(Sums::default(), |s, _| {
                    s.add(probe(&p, root.free, root.start, sampler, &mut rng, memo))
                })
            });
            (r, s)
        })
        .collect();
    let mut by_root = vec![Sums::default(); alloc.len()];
    for (r, s) in sums {
        by_root[r] = by_root[r].merge(s);
    }
    by_root
}

/// The moves a probe may take from `(free, cur)` (with more than `sampler.tail` squares free)
/// and the weight of each: the pruned moves, less those after which the pruning rules already
/// see a dead end, weighted `bias^-(onward moves)`. Returns how many were written to `out`.
fn choices(
    p: &Problem<'_>,
    free: Bitboard,
    cur: u32,
    sampler: Sampler,
    out: &mut [(u32, f64); 64],
) -> usize {
    let mut k = 0;
    for w in p.moves(free, cur) {
        let rest = free.without(w);
        // a move with no way on adds nothing: never take it
        if rest.count() > sampler.tail && p.moves(rest, w).is_empty() {
            continue;
        }
        let onward = (p.g.masks[w as usize] & rest).count();
        out[k] = (w, sampler.bias.powi(-(onward as i32)));
        k += 1;
    }
    k
}

/// One probe from `(free, cur)`: the weighted number of tours it reaches (counted exactly once
/// `sampler.tail` squares are left) over the probability of the moves it took; 0 where it dies.
fn probe(
    p: &Problem<'_>,
    mut free: Bitboard,
    mut cur: u32,
    sampler: Sampler,
    rng: &mut fastrand::Rng,
    memo: &mut crate::search::Memo,
) -> f64 {
    let mut factor = 1.0f64;
    let mut kids = [(0u32, 0.0f64); 64];
    loop {
        if free.count() <= sampler.tail {
            return factor * p.count(free, cur, memo) as f64;
        }
        let k = choices(p, free, cur, sampler, &mut kids);
        if k == 0 {
            return 0.0;
        }
        let total: f64 = kids[..k].iter().map(|c| c.1).sum();
        let mut x = rng.f64() * total;
        let mut pick = k - 1;
        for (i, &(_, s)) in kids[..k].iter().enumerate() {
            if x < s {
                pick = i;
                break;
            }
            x -= s;
        }
        factor *= total / kids[pick].1;
        cur = kids[pick].0;
        free = free.without(cur);
    }
}

#[cfg(test)]
#[path = "../tests/data/known.rs"]
mod known_counts;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::Engine;
    use crate::search::Memo;

    /// Known counts as test data (never read by the engine).
    fn known(board: &str, closed: bool) -> f64 {
        known_counts::known(board, closed).expect("a row of counts.tsv")
    }

    /// The exact figure by the project's DFS (boards where it takes well under a second).
    fn exact(b: Board, closed: bool, from: Option<Square>) -> f64 {
        let spec = CountSpec {
            closed,
            from,
            symmetry: true,
            ..CountSpec::default()
        };
        let c = count::count(b, &Piece::knight(), &spec, Engine::Dfs).unwrap();
        let n = if closed { c.undirected } else { c.directed };
        n.to_string().parse().unwrap()
    }

    fn run(b: Board, closed: bool, from: Option<Square>, probes: u64, seed: u64) -> Estimate {
        let mut s = EstimateSpec::new(closed, from);
        s.probes = probes;
        s.seed = seed;
        estimate(b, &Piece::knight(), &s).unwrap()
    }

    fn covers(e: &Estimate, x: f64) -> bool {
        e.low <= x && x <= e.high.unwrap_or(f64::INFINITY)
    }

    /// The expectation of a probe, by following every choice with its probability: it must be
    /// the exact count, which checks that the look-ahead drops only moves without tours and
    /// that the weights make the estimate unbiased.
    #[test]
    fn a_probe_is_unbiased() {
        fn expect(p: &Problem<'_>, free: Bitboard, cur: u32, s: Sampler, memo: &mut Memo) -> f64 {
            if free.count() <= s.tail {
                return p.count(free, cur, memo) as f64;
            }
            let mut kids = [(0u32, 0.0f64); 64];
            let k = choices(p, free, cur, s, &mut kids);
            let total: f64 = kids[..k].iter().map(|c| c.1).sum();
            kids[..k]
                .iter()
                .map(|&(w, weight)| {
                    let prob = weight / total;
                    prob * (1.0 / prob) * expect(p, free.without(w), w, s, memo)
                })
                .sum()
        }
        for (b, closed) in [
            ("3x4", false),
            ("4x5", false),
            ("5x5", false),
            ("5x6", true),
        ] {
            let board: Board = b.parse().unwrap();
            let plan = Plan::new(
                board,
                &Piece::knight(),
                &CountSpec {
                    closed,
                    symmetry: true,
                    ..CountSpec::default()
                },
            );
            let sampler = Sampler { bias: 1.5, tail: 0 };
            let mut memo = Memo::new(10);
            let e: f64 = plan
                .roots
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let p = plan.problem(i, fresh_ids(1));
                    r.multiplier as f64 * expect(&p, r.free, r.start, sampler, &mut memo)
                })
                .sum();
            let want = exact(board, closed, None);
            assert!((e - want).abs() <= 1e-9 * want, "{b}: {e} against {want}");
        }
    }

    /// Each interval is a nominal 95 % one. At seed 1 and 20,000 probes every one of these
    /// covers (checked when the test was written); over 100 seeds the coverage measures 90 to
    /// 97 % per board (`results/estimate.md`), so with another seed about one board in ten
    /// would miss: this test pins the seed, it does not sample it.
    #[test]
    fn intervals_cover_exact_counts_at_a_fixed_seed() {
        let cases: [(&str, bool, Option<&str>); 8] = [
            ("5x5", false, None),
            ("6x6", false, None),
            ("6x6", true, None),
            ("5x6", true, None),
            ("5x8", true, None),
            ("3x12", false, None),
            ("4x9", false, None),
            ("6x6", false, Some("a1")),
        ];
        for (b, closed, from) in cases {
            let board: Board = b.parse().unwrap();
            let from = from.map(|s| board.parse_square(s).unwrap());
            let want = exact(board, closed, from);
            let e = run(board, closed, from, 20_000, 1);
            assert!(
                covers(&e, want),
                "{b} closed={closed}: {e:?} against {want}"
            );
        }
        // boards whose DFS count takes seconds (5x8 open) or more, against the known values
        // (test data from the OEIS)
        for (b, closed) in [("5x8", false), ("6x7", true), ("7x7", false)] {
            let e = run(b.parse().unwrap(), closed, None, 20_000, 1);
            let want = known(b, closed);
            assert!(covers(&e, want), "{b}: {e:?} against {want}");
        }
    }

    /// Coverage over 40 fixed seeds on 5x5 at 2,000 probes: at least 32 intervals must cover.
    /// Were the intervals at 95 % (they measure more), 40 independent seeds would fail this
    /// with probability 7e-4 (binomial).
    #[test]
    fn coverage_over_forty_seeds() {
        let b: Board = "5x5".parse().unwrap();
        let want = exact(b, false, None);
        let covered = (100..140)
            .filter(|&seed| covers(&run(b, false, None, 2_000, seed), want))
            .count();
        assert!(covered >= 32, "{covered} of 40");
    }

    /// The skewed boards where the normal interval covered least (4x9 open: the pilot could miss
    /// the corner, which holds most tours; 5x8 closed: one root, heavy tail), 100 fixed seeds
    /// each at 20,000 probes, as in `results/estimate.md`: at least 95 must cover. Before the
    /// fix these seeds gave 93 and 90. An interval that covers 98.5 % of the time (as measured
    /// over 300 seeds) fails one board with probability 3e-3 (binomial, 6 misses or more).
    #[test]
    fn skewed_boards_cover_95_in_100() {
        for (b, closed) in [("4x9", false), ("5x8", true)] {
            let board: Board = b.parse().unwrap();
            let want = exact(board, closed, None);
            let covered = (0..100)
                .filter(|&seed| covers(&run(board, closed, None, 20_000, seed), want))
                .count();
            assert!(covered >= 95, "{b} closed={closed}: {covered} of 100");
        }
    }

    /// The bar: with the default probes, 6x6 within a factor of 2, covering.
    #[test]
    fn default_6x6_is_narrow() {
        let b: Board = "6x6".parse().unwrap();
        let e = estimate(b, &Piece::knight(), &EstimateSpec::new(false, None)).unwrap();
        let high = e.high.unwrap();
        assert!(high / e.low < 2.0, "{e:?}");
        assert!(covers(&e, 6_637_920.0), "{e:?}");
    }

    #[test]
    fn same_estimate_on_any_number_of_threads() {
        let b: Board = "6x6".parse().unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let a = one.install(|| run(b, true, None, 3_000, 7));
        let c = run(b, true, None, 3_000, 7);
        assert_eq!((a.estimate, a.low, a.high), (c.estimate, c.low, c.high));
        let d = run(b, true, None, 3_000, 8);
        assert_ne!(a.estimate, d.estimate);
    }

    #[test]
    fn theorems_and_bad_requests() {
        let e = run("7x7".parse().unwrap(), true, None, 10, 0);
        assert_eq!((e.estimate, e.high, e.probes), (0.0, Some(0.0), 0));
        assert!(e.reason.is_some());
        let b5: Board = "5x5".parse().unwrap();
        let e = run(b5, false, Some(b5.parse_square("b1").unwrap()), 10, 0);
        assert_eq!(e.estimate, 0.0);
        let mut s = EstimateSpec::new(false, None);
        assert!(estimate("9x9".parse().unwrap(), &Piece::knight(), &s).is_err());
        s.probes = 0;
        assert!(estimate(b5, &Piece::knight(), &s).is_err());
        s.probes = 10;
        s.sampler.bias = 0.5;
        assert!(estimate(b5, &Piece::knight(), &s).is_err());
    }
}
