//! The homework's survey: run one heuristic from every start square (or a seeded sample of
//! them) and report, per start, whether it completed a tour, open or closed, and the totals,
//! with the number of distinct tours found as directed paths and up to reversal and symmetry.

use std::collections::HashSet;
use std::time::Instant;

use rayon::prelude::*;

use crate::board::{Board, Square};
use crate::error::{Error, Result};
use crate::graph::Geometry;
use crate::hash::mix;
use crate::heuristics::{Heuristic, Stop, Walker};
use crate::piece::Piece;
use crate::tour::Tour;

/// The largest board surveyed (the walker keeps a neighbour table of 8 words a square).
pub const MAX_SQUARES: u64 = 1_000_000;

/// The most work a survey takes, in nanoseconds of one core: start squares × squares × the
/// heuristic's cost per square (a minute, half that on two cores).
pub const MAX_WORK_NANOS: u64 = 60_000_000_000;

/// The backtracking's default node budget per start square.
pub const DEFAULT_BUDGET: u64 = 1_000_000;

/// What to survey.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurveyOptions {
    pub heuristic: Heuristic,
    /// Count only closed tours as found (the backtracking then looks for closed tours).
    pub closed: bool,
    pub seed: u64,
    /// Survey this many start squares drawn at random (seeded) instead of every square.
    pub sample: Option<u64>,
    /// Node budget of the backtracking, per start square.
    pub budget: u64,
}

impl SurveyOptions {
    #[must_use]
    pub fn new(heuristic: Heuristic) -> SurveyOptions {
        SurveyOptions {
            heuristic,
            closed: false,
            seed: 0,
            sample: None,
            budget: DEFAULT_BUDGET,
        }
    }
}

/// The result from one start square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartResult {
    pub from: Square,
    /// Every square visited.
    pub complete: bool,
    /// Complete, and the last square is one move from the first.
    pub closed: bool,
    /// Squares on the path (the longest one held, for backtracking that gave up).
    pub length: usize,
    /// Squares placed on the path, backtracked ones included.
    pub nodes: u64,
    pub stop: Stop,
}

/// The survey's totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    pub starts: usize,
    pub complete: usize,
    pub closed: usize,
    /// Tours found: complete ones, or closed ones when closed tours were asked for.
    pub found: usize,
    /// Distinct tours found as directed paths (closed tours asked for: as directed cycles,
    /// whatever square they were read from).
    pub distinct: usize,
    /// Distinct tours up to reversal and the board's symmetries.
    pub distinct_up_to_symmetry: usize,
    /// Squares placed over all starts.
    pub nodes: u64,
}

/// A survey's results.
#[derive(Clone, Debug)]
pub struct Survey {
    pub board: Board,
    pub options: SurveyOptions,
    /// One entry per start square surveyed, in square order (rank 1 first).
    pub starts: Vec<StartResult>,
    pub totals: Totals,
    /// Whether every square of the board was a start.
    pub every_square: bool,
    pub seconds: f64,
}

/// Two 64-bit hashes of a tour's canonical form: collisions among a million tours have a
/// chance below 2^-88.
type TourKey = (u64, u64);

/// Runs `opts.heuristic` from every start square (or the sample) of `board`, in parallel on the
/// current rayon pool; the results do not depend on the number of threads. Every tour found is
/// verified.
pub fn survey(board: Board, piece: &Piece, opts: &SurveyOptions) -> Result<Survey> {
    let t0 = Instant::now();
    check(board, piece, opts)?;
    let n = board.squares();
    let starts = start_squares(board, opts);
    let geo = Geometry::new(board, piece);
    let perms: Vec<Vec<u32>> = board
        .symmetries()
        .into_iter()
        .map(|s| board.permutation(s))
        .collect();
    let results: Vec<(StartResult, Option<(TourKey, TourKey)>)> = starts
        .par_iter()
        .map_init(
            || Walker::new(&geo),
            |w, &s| {
                let seed = walk_seed(opts.seed, s);
                let out = w.walk(opts.heuristic, s, seed, opts.budget, opts.closed);
                let complete = out.stop == Stop::Complete;
                let closed = complete && out.path.len() >= 3 && {
                    let (a, z) = (
                        board.square(out.path[0]),
                        board.square(out.path[n as usize - 1]),
                    );
                    piece.is_move(a.row, a.col, z.row, z.col)
                };
                let found = if opts.closed { closed } else { complete };
                let keys = if found {
                    // every tour counted is checked first
                    let path = out.path.iter().map(|&i| board.square(i)).collect();
                    Tour::verified(board, piece, path, opts.closed)
                        .map_err(|e| Error::Invalid(format!("internal error: {e}")))?;
                    Some(tour_keys(&out.path, &perms, opts.closed))
                } else {
                    None
                };
                Ok((
                    StartResult {
                        from: board.square(s),
                        complete,
                        closed,
                        length: out.reached,
                        nodes: out.nodes,
                        stop: out.stop,
                    },
                    keys,
                ))
            },
        )
        .collect::<Result<_>>()?;
    let mut directed = HashSet::new();
    let mut symmetric = HashSet::new();
    for (_, keys) in &results {
        if let Some((d, s)) = keys {
            directed.insert(*d);
            symmetric.insert(*s);
        }
    }
    let starts: Vec<StartResult> = results.into_iter().map(|(r, _)| r).collect();
    let totals = Totals {
        starts: starts.len(),
        complete: starts.iter().filter(|r| r.complete).count(),
        closed: starts.iter().filter(|r| r.closed).count(),
        found: starts
            .iter()
            .filter(|r| if opts.closed { r.closed } else { r.complete })
            .count(),
        distinct: directed.len(),
        distinct_up_to_symmetry: symmetric.len(),
        nodes: starts.iter().map(|r| r.nodes).sum(),
    };
    Ok(Survey {
        board,
        options: opts.clone(),
        every_square: starts.len() as u64 == n,
        starts,
        totals,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// One walk shown square by square (`knights survey BOARD --from SQ`): the homework's "print
/// out the partial tour it found and a message saying that it failed".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    pub board: Board,
    pub options: SurveyOptions,
    pub from: Square,
    /// The squares visited, in order: the tour when complete; where the walk stuck, the squares
    /// up to the one it stuck on; for backtracking that gave up, the path it held then.
    pub path: Vec<Square>,
    /// Every square visited.
    pub complete: bool,
    /// Complete, and the last square is one move from the first.
    pub closed: bool,
    /// The most squares the path held (more than its length only for backtracking).
    pub reached: usize,
    /// Squares placed on the path, backtracked ones included.
    pub nodes: u64,
    pub stop: Stop,
}

impl Walk {
    /// Whether the walk found what was asked: a tour, closed when closed tours were asked for.
    #[must_use]
    pub fn found(&self) -> bool {
        if self.options.closed {
            self.closed
        } else {
            self.complete
        }
    }
}

/// Runs `opts.heuristic` once from `from`: the walk the survey runs from that square (the same
/// seed for its random tie-breaks), kept whole. A complete tour is verified.
pub fn walk(board: Board, piece: &Piece, opts: &SurveyOptions, from: Square) -> Result<Walk> {
    let one = SurveyOptions {
        sample: Some(1),
        ..opts.clone()
    };
    check(board, piece, &one)?;
    let from = board.check_square(from)?;
    let geo = Geometry::new(board, piece);
    let s = board.index(from);
    let out = Walker::new(&geo).walk(
        opts.heuristic,
        s,
        walk_seed(opts.seed, s),
        opts.budget,
        opts.closed,
    );
    let path: Vec<Square> = out.path.iter().map(|&i| board.square(i)).collect();
    let complete = out.stop == Stop::Complete;
    let closed = if complete {
        Tour::verified(board, piece, path.clone(), false)
            .map_err(|e| Error::Invalid(format!("internal error: {e}")))?
            .closed
    } else {
        false
    };
    Ok(Walk {
        board,
        options: opts.clone(),
        from,
        path,
        complete,
        closed,
        reached: out.reached,
        nodes: out.nodes,
        stop: out.stop,
    })
}

/// The seed of the walk from start square `s`: the random tie-breaks of each start are their own
/// stream, whatever thread runs it.
#[must_use]
pub fn walk_seed(seed: u64, s: u32) -> u64 {
    mix(seed ^ mix(u64::from(s)))
}

/// Refuses surveys the walker cannot hold or that would take too long, naming the way out.
fn check(board: Board, piece: &Piece, opts: &SurveyOptions) -> Result<()> {
    let n = board.squares();
    if n > MAX_SQUARES {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: n,
            engine: "the survey",
            max: MAX_SQUARES,
            hint: "Use a smaller board.",
        });
    }
    if opts.heuristic == Heuristic::SquirrelCull && (board.rows != board.cols || !piece.is_knight())
    {
        return Err(Error::Invalid(format!(
            "the squirrel-cull rules are defined for the knight on square boards, not the {piece} on {board}"
        )));
    }
    if opts.sample == Some(0) {
        return Err(Error::Invalid(
            "--starts must be at least 1 (the number of start squares to sample)".into(),
        ));
    }
    let starts = opts.sample.map_or(n, |k| k.min(n));
    let per_start = if opts.heuristic == Heuristic::Naive {
        opts.budget
    } else {
        n
    }
    .saturating_mul(opts.heuristic.nanos_per_square());
    let work = starts.saturating_mul(per_start);
    if work > MAX_WORK_NANOS {
        let most = (MAX_WORK_NANOS / per_start.max(1)).max(1);
        return Err(Error::Invalid(format!(
            "a {} survey of {board} from {starts} start squares would take about {:.0} CPU-seconds (at most {} are allowed): sample at most {most} start squares with --starts N{}",
            opts.heuristic,
            work as f64 / 1e9,
            MAX_WORK_NANOS / 1_000_000_000,
            if opts.heuristic == Heuristic::Naive {
                " or lower --budget"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// The start squares: every square, or a seeded sample, in square order.
fn start_squares(board: Board, opts: &SurveyOptions) -> Vec<u32> {
    let n = board.squares() as u32;
    let mut all: Vec<u32> = (0..n).collect();
    if let Some(k) = opts.sample.filter(|&k| k < u64::from(n)) {
        let mut rng = fastrand::Rng::with_seed(opts.seed ^ 0x5A3F_1E77);
        // a partial Fisher–Yates shuffle: the first k are a uniform sample
        for i in 0..k as usize {
            let j = rng.usize(i..all.len());
            all.swap(i, j);
        }
        all.truncate(k as usize);
        all.sort_unstable();
    }
    all
}

/// A 64-bit hash of the sequence `at(0), at(1), ..., at(n - 1)`: the sum of the mixed
/// `(position, square)` pairs, so no sequence is copied to be hashed.
fn seq_hash(n: usize, salt: u64, at: impl Fn(usize) -> u32) -> u64 {
    (0..n).fold(0u64, |h, i| {
        h.wrapping_add(mix(salt ^ ((i as u64) << 32 | u64::from(at(i)))))
    })
}

/// The image of `path` under the permutation `p`, read forwards or backwards (a cycle: from its
/// smallest square), as a function of the position.
fn image<'a>(
    path: &'a [u32],
    p: &'a [u32],
    cycle: bool,
    forward: bool,
) -> impl Fn(usize) -> u32 + 'a {
    let n = path.len();
    let first = if cycle {
        (0..n)
            .min_by_key(|&i| p[path[i] as usize])
            .expect("non-empty")
    } else if forward {
        0
    } else {
        n - 1
    };
    move |i: usize| {
        let j = match (cycle, forward) {
            (_, true) => (first + i) % n,
            (true, false) => (first + n - i) % n,
            (false, false) => n - 1 - i,
        };
        p[path[j] as usize]
    }
}

/// The keys of a tour: as found (a path; a cycle read from its smallest square onwards), and of
/// the lexicographically least of its images under the board's symmetries (`perms`, the
/// identity first) read in both directions, which stands for its class.
fn tour_keys(path: &[u32], perms: &[Vec<u32>], cycle: bool) -> (TourKey, TourKey) {
    let n = path.len();
    let key = |p: &[u32], forward: bool| {
        let at = image(path, p, cycle, forward);
        (seq_hash(n, 0x0123, &at), seq_hash(n, 0x4567 << 40, &at))
    };
    // images compared square by square; they almost always differ within a few squares
    let mut best = (0, true);
    for (k, p) in perms.iter().enumerate() {
        for forward in [true, false] {
            let (a, b) = (
                image(path, &perms[best.0], cycle, best.1),
                image(path, p, cycle, forward),
            );
            if (0..n).map(&b).lt((0..n).map(&a)) {
                best = (k, forward);
            }
        }
    }
    (key(&perms[0], true), key(&perms[best.0], best.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(r: u32, c: u32) -> Board {
        Board { rows: r, cols: c }
    }

    #[test]
    fn totals_agree_with_the_entries() {
        for h in Heuristic::ALL {
            let mut o = SurveyOptions::new(h);
            o.budget = 20_000;
            let s = survey(board(6, 6), &Piece::knight(), &o).unwrap();
            assert_eq!(s.starts.len(), 36);
            assert!(s.every_square);
            let t = &s.totals;
            assert_eq!(
                t.complete,
                s.starts.iter().filter(|r| r.length == 36).count()
            );
            assert_eq!(t.closed, s.starts.iter().filter(|r| r.closed).count());
            assert_eq!(t.found, t.complete);
            assert!(t.distinct <= t.found && t.distinct_up_to_symmetry <= t.distinct);
            assert_eq!(t.nodes, s.starts.iter().map(|r| r.nodes).sum::<u64>());
            for r in &s.starts {
                assert_eq!(r.complete, r.stop == Stop::Complete, "{h}");
                assert!(!r.closed || r.complete);
            }
        }
    }

    /// The distinct counts recomputed the slow way, by sets of explicit square sequences: the
    /// least sequence among the 8 symmetric images of a tour and their reversals.
    #[test]
    fn distinct_counts_by_hand_on_5x5() {
        let b = board(5, 5);
        let k = Piece::knight();
        let geo = Geometry::new(b, &k);
        let perms: Vec<Vec<u32>> = b
            .symmetries()
            .into_iter()
            .map(|s| b.permutation(s))
            .collect();
        for h in [
            Heuristic::Warnsdorff,
            Heuristic::Random,
            Heuristic::Roth,
            Heuristic::Naive,
        ] {
            let s = survey(b, &k, &SurveyOptions::new(h)).unwrap();
            let mut w = Walker::new(&geo);
            let mut paths = HashSet::new();
            let mut classes = HashSet::new();
            for r in &s.starts {
                let i = b.index(r.from);
                let out = w.walk(h, i, walk_seed(0, i), DEFAULT_BUDGET, false);
                if out.stop != Stop::Complete {
                    continue;
                }
                let least = perms
                    .iter()
                    .flat_map(|p| {
                        let img: Vec<u32> = out.path.iter().map(|&x| p[x as usize]).collect();
                        let rev: Vec<u32> = img.iter().rev().copied().collect();
                        [img, rev]
                    })
                    .min()
                    .unwrap();
                classes.insert(least);
                paths.insert(out.path);
            }
            assert_eq!(s.totals.distinct, paths.len(), "{h}");
            assert_eq!(s.totals.distinct_up_to_symmetry, classes.len(), "{h}");
            if h == Heuristic::Naive {
                // no open tour starts on the 12 squares of the minority colour, and the
                // backtracking finds one from each of the 13 others
                assert_eq!((s.totals.complete, s.totals.distinct), (13, 13));
            }
        }
        // by hand: Warnsdorff completes 12 tours on 5x5, and exactly three pairs of them are
        // images of each other under a symmetry of the board (read off the 12 tours: the tour
        // from e3 is the one from c1 transposed and mirrored, likewise e5 and e1, and the one
        // from b4 is the one from d2 transposed), none a reversal of another
        let s = survey(b, &k, &SurveyOptions::new(Heuristic::Warnsdorff)).unwrap();
        assert_eq!(
            (s.totals.distinct, s.totals.distinct_up_to_symmetry),
            (12, 9)
        );
        let mut w = Walker::new(&geo);
        let mut tour = |sq: &str| {
            let i = b.index(b.parse_square(sq).unwrap());
            w.walk(Heuristic::Warnsdorff, i, 0, 0, false).path
        };
        for (x, y, sym) in [("c1", "e3", 6), ("e1", "e5", 6), ("d2", "b4", 4)] {
            let p = b.permutation(crate::board::Symmetry(sym));
            let image: Vec<u32> = tour(x).iter().map(|&q| p[q as usize]).collect();
            assert_eq!(image, tour(y), "{x} {y}");
        }
    }

    #[test]
    fn closed_tours_are_counted_as_cycles() {
        // the backtracking finds closed tours from 9 of the 36 squares of 6x6, but they are
        // only 4 cycles: every square of a cycle reads the same one
        let b = board(6, 6);
        let mut o = SurveyOptions::new(Heuristic::Naive);
        o.closed = true;
        let s = survey(b, &Piece::knight(), &o).unwrap();
        assert_eq!(s.totals.found, s.totals.closed);
        assert_eq!((s.totals.found, s.totals.distinct), (9, 4));
        assert!(s.totals.distinct_up_to_symmetry <= s.totals.distinct);
        // a cycle and its rotation have the same key; its reverse differs only up to symmetry
        let cycle: Vec<u32> = vec![0, 13, 26, 1];
        let perms = vec![(0..36).collect::<Vec<u32>>()];
        let rot: Vec<u32> = vec![26, 1, 0, 13];
        let rev: Vec<u32> = vec![1, 26, 13, 0];
        assert_eq!(
            tour_keys(&cycle, &perms, true),
            tour_keys(&rot, &perms, true)
        );
        assert_ne!(
            tour_keys(&cycle, &perms, true).0,
            tour_keys(&rev, &perms, true).0
        );
        assert_eq!(
            tour_keys(&cycle, &perms, true).1,
            tour_keys(&rev, &perms, true).1
        );
    }

    #[test]
    fn samples_and_refusals() {
        let b = board(400, 400);
        let k = Piece::knight();
        let err = survey(b, &k, &SurveyOptions::new(Heuristic::Warnsdorff)).unwrap_err();
        assert!(err.to_string().contains("--starts"), "{err}");
        let mut o = SurveyOptions::new(Heuristic::Warnsdorff);
        o.sample = Some(2);
        let s = survey(b, &k, &o).unwrap();
        assert_eq!(s.starts.len(), 2);
        assert!(!s.every_square);
        let mut sc = SurveyOptions::new(Heuristic::SquirrelCull);
        sc.sample = Some(1);
        assert!(survey(board(8, 9), &k, &sc).is_err());
        assert!(survey(board(8, 8), &"camel".parse().unwrap(), &sc).is_err());
    }

    #[test]
    fn same_answer_on_any_number_of_threads() {
        let o = SurveyOptions::new(Heuristic::Random);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let a = one.install(|| survey(board(8, 8), &Piece::knight(), &o).unwrap());
        let b = survey(board(8, 8), &Piece::knight(), &o).unwrap();
        assert_eq!(a.starts, b.starts);
        assert_eq!(a.totals, b.totals);
    }
}
