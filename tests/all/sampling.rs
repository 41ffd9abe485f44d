//! Statistical tests of `knights sample` at fixed seeds. Each test names the probability that a
//! correct sampler fails it: chi-square tests reject at an upper tail of 1e-6 (the critical value
//! by Wilson and Hilferty's approximation, `Z` below), so with every seed fixed a pass is
//! reproducible and a correct sampler would have failed with probability about 1e-6 per test.
//! The chain's samples are not independent: its tests allow twice the variance of independent
//! draws (the statistic is halved before the comparison), which the measured autocorrelations at
//! the default thinning (below 0.05, `results/sampling.md`) leave ample room for.

use std::collections::HashMap;

use knights::count::{self, CountSpec, Engine};
use knights::sample::stats::{chi_square, chi_square_critical, cycle_key, straight_triples};
use knights::sample::{Method, Options, Sampler, Tables};
use knights::tally::Tally;
use knights::tour::verify;
use knights::{Board, Piece, Square, Tour};

/// The upper normal quantile of 1e-6.
const Z: f64 = 4.753;

fn board(s: &str) -> Board {
    s.parse().unwrap()
}

fn sampler(b: Board, closed: bool, from: Option<&str>, seed: u64, method: Method) -> Sampler {
    let from = from.map(|s| b.parse_square(s).unwrap());
    let opts = Options::new(closed, from, seed).with_method(method);
    Sampler::new(b, &Piece::knight(), &opts).unwrap()
}

fn with_tables(b: Board, closed: bool, seed: u64, tables: Tables) -> Sampler {
    let mut opts = Options::new(closed, None, seed).with_method(Method::Exact);
    opts.tables = tables;
    Sampler::new(b, &Piece::knight(), &opts).unwrap()
}

/// Directed open tours by start square (row-major), by the DFS counter (once a board: the
/// tests share them).
fn per_square(b: Board) -> Vec<u64> {
    static DONE: std::sync::Mutex<Vec<(Board, Vec<u64>)>> = std::sync::Mutex::new(Vec::new());
    if let Some((_, v)) = DONE.lock().unwrap().iter().find(|(x, _)| *x == b) {
        return v.clone();
    }
    let spec = CountSpec {
        symmetry: true,
        per_square: true,
        ..CountSpec::default()
    };
    let v = count::count(b, &Piece::knight(), &spec, Engine::Dfs)
        .unwrap()
        .per_square
        .unwrap();
    DONE.lock().unwrap().push((b, v.clone()));
    v
}

fn draw(s: &mut Sampler, n: usize) -> Vec<Tour> {
    let tours = s.draw(n).unwrap();
    for t in &tours {
        // every tour is verified by the sampler; check again here
        let closed = verify(t.board, &Piece::knight(), &t.path).unwrap();
        assert!(!t.closed || closed);
    }
    tours
}

/// Chi-square of start-square frequencies against `counts`, with `df` = squares that can start
/// a tour, less one; the statistic divided by `inflation` (1 for exact samples).
fn start_squares_agree(b: Board, tours: &[Tour], counts: &[u64], inflation: f64) {
    let mut seen = vec![0u64; counts.len()];
    for t in tours {
        seen[b.index(t.path[0]) as usize] += 1;
    }
    let total: u64 = counts.iter().sum();
    let expected: Vec<f64> = counts
        .iter()
        .map(|&c| c as f64 * tours.len() as f64 / total as f64)
        .collect();
    for (i, (&o, &e)) in seen.iter().zip(&expected).enumerate() {
        assert!(e > 0.0 || o == 0, "square {i} starts no tour but was drawn");
    }
    let df = counts.iter().filter(|&&c| c > 0).count() as f64 - 1.0;
    let x = chi_square(&seen, &expected) / inflation;
    let crit = chi_square_critical(df, Z);
    assert!(x < crit, "{b}: chi-square {x:.1} over {crit:.1} (df {df})");
}

#[test]
fn exact_5x5_open_is_uniform_over_all_1728_tours() {
    // both tables: the frontier layers (what auto takes on 5x5) and the search's counts
    for (tables, seed) in [(Tables::Layers, 1), (Tables::Search, 2)] {
        let b = board("5x5");
        let mut s = with_tables(b, false, seed, tables);
        assert_eq!(s.total().unwrap(), &1728u32.into());
        assert!(s.uniform());
        let n = 50_000;
        let mut seen: HashMap<Vec<Square>, u64> = HashMap::new();
        for t in draw(&mut s, n) {
            *seen.entry(t.path).or_default() += 1;
        }
        // each tour expected 28.9 times: one missing has probability e^-28.9 (3e-13) per tour
        assert_eq!(seen.len(), 1728, "{tables:?}: every tour drawn");
        let obs: Vec<u64> = seen.values().copied().collect();
        let x = chi_square(&obs, &vec![n as f64 / 1728.0; 1728]);
        let crit = chi_square_critical(1727.0, Z);
        assert!(x < crit, "{tables:?}: chi-square {x:.1} over {crit:.1}");
    }
}

#[test]
fn exact_6x6_closed_is_uniform_over_all_9862_cycles() {
    let b = board("6x6");
    let mut s = sampler(b, true, None, 3, Method::Exact);
    assert_eq!(s.total().unwrap(), &9862u32.into());
    let n = 50_000;
    let mut seen: HashMap<Vec<u32>, u64> = HashMap::new();
    for t in draw(&mut s, n) {
        assert!(t.closed);
        assert_eq!(t.path[0], Square::new(0, 0), "read from a1");
        *seen.entry(cycle_key(b, &t.path)).or_default() += 1;
    }
    assert!(seen.len() <= 9862);
    let mut obs: Vec<u64> = seen.values().copied().collect();
    obs.resize(9862, 0);
    let x = chi_square(&obs, &vec![n as f64 / 9862.0; 9862]);
    let crit = chi_square_critical(9861.0, Z);
    assert!(x < crit, "chi-square {x:.1} over {crit:.1}");
}

#[test]
fn exact_6x6_open_start_squares_match_the_counts_by_square() {
    let b = board("6x6");
    let mut s = sampler(b, false, None, 4, Method::Exact);
    let tours = draw(&mut s, 20_000);
    start_squares_agree(b, &tours, &per_square(b), 1.0);
}

#[test]
fn exact_5x8_and_3x12_start_squares_match_the_counts_by_square() {
    for (name, seed) in [("5x8", 5), ("3x12", 6)] {
        let b = board(name);
        let mut s = sampler(b, false, None, seed, Method::Exact);
        let tours = draw(&mut s, 20_000);
        start_squares_agree(b, &tours, &per_square(b), 1.0);
    }
}

#[test]
fn exact_from_a_square_and_long_boards_agree_with_the_counts() {
    // --from: every tour starts there, and the total is the count from it
    let b = board("6x6");
    let s = sampler(b, false, Some("c2"), 7, Method::Exact);
    let spec = CountSpec {
        from: Some(b.parse_square("c2").unwrap()),
        ..CountSpec::default()
    };
    let want = count::count(b, &Piece::knight(), &spec, Engine::Dfs).unwrap();
    assert_eq!(s.total().unwrap(), &want.directed);
    let mut s = s;
    for t in draw(&mut s, 200) {
        assert_eq!(b.name(t.path[0]), "c2");
    }
    // the layers on boards past 64 squares, against the frontier counter's figures
    for (name, closed) in [
        ("3x40", false),
        ("4x20", false),
        ("3x40", true),
        ("5x14", true),
    ] {
        let b = board(name);
        let mut s = sampler(b, closed, None, 8, Method::Exact);
        let spec = CountSpec {
            closed,
            symmetry: true,
            ..CountSpec::default()
        };
        let c = count::count(b, &Piece::knight(), &spec, Engine::Frontier).unwrap();
        let want = if closed { c.undirected } else { c.directed };
        assert_eq!(s.total().unwrap(), &want, "{name} closed={closed}");
        // every draw verified (in `draw`), closed where closed tours were asked for (an open
        // tour may close too); and 100 draws from over 1.4e12 tours are all distinct but with
        // probability under 100^2/2/1.4e12 < 4e-9
        let tours = draw(&mut s, 100);
        assert!(tours.iter().all(|t| t.closed || !closed), "{name}");
        let distinct: std::collections::HashSet<&Vec<Square>> =
            tours.iter().map(|t| &t.path).collect();
        assert_eq!(distinct.len(), 100, "{name} closed={closed}");
    }
}

#[test]
fn both_exact_tables_give_the_same_tours_counts() {
    // the same totals from the search and the layers, open and closed, on small boards
    for (name, closed) in [
        ("5x6", false),
        ("3x10", false),
        ("6x6", true),
        ("5x6", true),
    ] {
        let b = board(name);
        let a = with_tables(b, closed, 1, Tables::Search);
        let l = with_tables(b, closed, 1, Tables::Layers);
        assert_eq!(a.total(), l.total(), "{name} closed={closed}");
    }
}

/// Every directed open tour of `b`, by unranking every rank of the exact sampler's search: the
/// exact distribution of any statistic.
fn every_tour(b: Board) -> Vec<Tour> {
    let mut s = with_tables(b, false, 0, Tables::Search);
    let n = u64::try_from(s.total().unwrap()).unwrap();
    let tours = s.every(0..n).unwrap();
    assert_eq!(tours.len() as u64, n);
    tours
}

#[test]
fn chain_matches_the_exact_distribution_on_5x6_and_6x6() {
    // 5x6: start squares against the counts, straight triples against every tour's
    let b = board("5x6");
    let all = every_tour(b);
    let mut distinct: Vec<&Vec<Square>> = all.iter().map(|t| &t.path).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), all.len(), "unranking is one to one");
    let mut s = sampler(b, false, None, 9, Method::Chain);
    assert!(!s.uniform());
    let tours = draw(&mut s, 20_000);
    start_squares_agree(b, &tours, &per_square(b), 2.0);
    let hist = |ts: &[Tour]| {
        let mut h = vec![0u64; 64];
        for t in ts {
            h[straight_triples(&t.path, false) as usize] += 1;
        }
        h
    };
    let exact = hist(&all);
    let got = hist(&tours);
    // bins with fewer than 5 expected are pooled into their neighbour
    let mut obs = Vec::new();
    let mut exp = Vec::new();
    let (mut o, mut e) = (0u64, 0f64);
    for (&x, &y) in got.iter().zip(&exact) {
        o += x;
        e += y as f64 * tours.len() as f64 / all.len() as f64;
        if e >= 5.0 {
            obs.push(o);
            exp.push(e);
            (o, e) = (0, 0.0);
        }
    }
    *obs.last_mut().unwrap() += o;
    *exp.last_mut().unwrap() += e;
    let x = chi_square(&obs, &exp) / 2.0;
    let crit = chi_square_critical(obs.len() as f64 - 1.0, Z);
    assert!(
        x < crit,
        "straight triples: chi-square {x:.1} over {crit:.1}"
    );

    // 6x6: start squares against the counts, the mean of straight triples against exact draws
    let b = board("6x6");
    let mut s = sampler(b, false, None, 10, Method::Chain);
    let chain = draw(&mut s, 20_000);
    start_squares_agree(b, &chain, &per_square(b), 2.0);
    let mut e = sampler(b, false, None, 11, Method::Exact);
    let exact = draw(&mut e, 10_000);
    let stats = |ts: &[Tour]| {
        let v: Vec<f64> = ts
            .iter()
            .map(|t| f64::from(straight_triples(&t.path, false)))
            .collect();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        (m, var / v.len() as f64)
    };
    let ((m1, v1), (m2, v2)) = (stats(&chain), stats(&exact));
    // the chain's variance doubled, as above; |z| beyond 4.89 has probability 1e-6
    let z = (m1 - m2) / (2.0 * v1 + v2).sqrt();
    assert!(
        z.abs() < 4.89,
        "straight triples: means {m1:.3} and {m2:.3}, z {z:.2}"
    );
}

#[test]
fn closed_chain_matches_the_cycles_on_6x6() {
    // closed tours from the chain: every cycle equally likely in the limit; the straight triples
    // of 20,000 samples against those of the 9,862 cycles, enumerated
    let b = board("6x6");
    let mut all = with_tables(b, true, 0, Tables::Search);
    let cycles = all.every(0..9862).unwrap();
    let mut s = sampler(b, true, Some("d4"), 12, Method::Chain);
    let tours = draw(&mut s, 20_000);
    let mut seen: HashMap<Vec<u32>, u64> = HashMap::new();
    for t in &tours {
        assert!(t.closed);
        assert_eq!(b.name(t.path[0]), "d4");
        *seen.entry(cycle_key(b, &t.path)).or_default() += 1;
    }
    let mean = |v: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = v.collect();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (
            m,
            v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64,
        )
    };
    let (me, var) = mean(
        &mut cycles
            .iter()
            .map(|t| f64::from(straight_triples(&t.path, true))),
    );
    let (mc, _) = mean(
        &mut tours
            .iter()
            .map(|t| f64::from(straight_triples(&t.path, true))),
    );
    let z = (mc - me) / (2.0 * var / tours.len() as f64).sqrt();
    assert!(
        z.abs() < 4.89,
        "means {mc:.3} (chain) and {me:.3} (all cycles), z {z:.2}"
    );
    // 20,000 draws over 9,862 cycles reach most of them (about 87 % if uniform)
    assert!(seen.len() > 8200, "{} cycles reached", seen.len());
}

#[test]
fn seeds_and_threads() {
    let run = |b: &str, closed: bool, seed: u64, method: Method, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut s = sampler(board(b), closed, None, seed, method);
            // two batches: the second goes on where the first stopped
            let mut t = s.draw(10).unwrap();
            t.extend(s.draw(7).unwrap());
            t.into_iter().map(|t| t.path).collect::<Vec<_>>()
        })
    };
    for (b, closed, method) in [
        ("6x6", false, Method::Exact),
        ("6x6", true, Method::Exact),
        ("3x20", false, Method::Exact),
        ("6x6", true, Method::Frontier),
        ("5x6", false, Method::Frontier),
        ("8x8", false, Method::Chain),
        ("8x8", true, Method::Chain),
    ] {
        let one = run(b, closed, 1, method, 1);
        assert_eq!(one, run(b, closed, 1, method, 2), "{b}: threads");
        assert_eq!(one, run(b, closed, 1, method, 3), "{b}: threads");
        assert_ne!(one, run(b, closed, 2, method, 2), "{b}: seeds");
        let mut d = one.clone();
        d.sort();
        d.dedup();
        assert!(d.len() > 10, "{b}: tours differ from one another");
    }
}

#[test]
fn out_of_reach_and_no_tour() {
    let b = board("8x8");
    let mut opts = Options::new(false, None, 0).with_method(Method::Exact);
    opts.max_memory = 1 << 30;
    let e = Sampler::new(b, &Piece::knight(), &opts).err().unwrap();
    assert!(e.to_string().contains("--max-memory"), "{e}");
    let s = sampler(b, false, None, 0, Method::Auto);
    assert!(!s.uniform());
    assert!(s.note().unwrap().contains("the chain instead"));
    let e = Sampler::new(board("5x5"), &Piece::knight(), &Options::new(true, None, 0)).err();
    assert!(matches!(
        e,
        Some(knights::sample::SampleError::NoTour { .. })
    ));
}

fn knights() -> assert_cmd::Command {
    crate::cli::knights()
}

#[test]
fn cli_prints_verified_tours_in_every_format() {
    // JSON Lines: one object a line, parsed, each with the method and whether it is uniform
    let out = knights()
        .args([
            "sample", "6x6", "-n", "50", "--format", "json", "--seed", "3",
        ])
        .assert()
        .success();
    let o = out.get_output();
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 50);
    for (i, l) in lines.iter().enumerate() {
        let j: knights::render::json::SampledJson = serde_json::from_str(l).unwrap();
        assert_eq!(
            (j.method.as_str(), j.uniform, j.index),
            ("exact", true, i as u64)
        );
        let b = Board {
            rows: j.rows,
            cols: j.cols,
        };
        let path: Vec<Square> = j.path.iter().map(|&[r, c]| Square::new(r, c)).collect();
        verify(b, &Piece::knight(), &path).unwrap();
    }
    let err = String::from_utf8(o.stderr.clone()).unwrap();
    assert!(err.contains("method: exact (exactly uniform)"), "{err}");
    // moves: one a line, each read back by verify
    let out = knights()
        .args(["sample", "5x6", "-n", "5", "--closed", "--format", "moves"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 5);
    for l in text.lines() {
        knights()
            .args(["verify", "-", "--board", "5x6", "--closed"])
            .write_stdin(l)
            .assert()
            .success();
    }
    // grid: boards separated by a blank line
    let out = knights()
        .args(["sample", "5x5", "-n", "3", "--from", "a1"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.split("\n\n").count(), 3);
    // the same seed gives the same tours on any number of threads
    let run = |threads: &str, seed: &str| {
        let o = knights()
            .args([
                "sample", "8x8", "-n", "20", "--format", "moves", "-j", threads, "-s", seed,
            ])
            .assert()
            .success();
        o.get_output().stdout.clone()
    };
    assert_eq!(run("1", "5"), run("2", "5"));
    assert_ne!(run("2", "5"), run("2", "6"));
}

#[test]
fn cli_says_which_method_and_refuses_bad_input() {
    let out = knights()
        .args(["sample", "8x8", "-n", "100", "--format", "none"])
        .assert()
        .success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("the chain instead"), "{err}");
    assert!(
        err.contains("method: chain (approximately uniform, not exact)"),
        "{err}"
    );
    let out = knights()
        .args(["sample", "8x8", "--method", "exact", "--max-memory", "1G"])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--max-memory") && err.lines().count() == 1,
        "{err}"
    );
    // the exact sampler met in the middle joins crossings of at most 16 squares; a leaper of
    // reach 3 on a board 6 wide crosses 18, and asking for it is refused in one line that says
    // what works instead (the count itself joins 20: issue 68)
    let out = knights()
        .args([
            "sample", "6x7", "--closed", "--piece", "3,0+2,2", "--tables", "meet", "--method",
            "exact",
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("at most 16 squares")
            && err.contains("has 18")
            && err.contains("--method chain")
            && err.lines().count() == 1,
        "{err}"
    );
    for (args, needle) in [
        (vec!["sample", "6x6", "-n", "x"], "'x'"),
        (vec!["sample", "6x6", "--method", "fast"], "fast"),
        (vec!["sample", "6x6", "--from", "z9"], "z9"),
        (vec!["sample", "6x6", "--thin", "0"], "'0'"),
        (vec!["sample", "6x6", "--max-memory", "lots"], "lots"),
        (vec!["sample", "6y6"], "6y6"),
    ] {
        let out = knights().args(&args).assert().code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // no tour: exit 1 with the theorem
    let out = knights()
        .args(["sample", "5x5", "--closed"])
        .assert()
        .code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("no closed tour on 5x5"), "{err}");
}

/// `--method frontier` (issue 50): the frontier engine's layers forced on boards whose every tour
/// can be told apart, drawn `draws` times from seed `seed`: every tour's frequency against the
/// uniform by chi-square over all `tours` of them (those never drawn count as 0), rejecting at
/// the upper tail 1e-6 of `Z` (a correct sampler fails with probability about 1e-6 a board).
fn frontier_is_uniform(b: &str, piece: &str, closed: bool, tours: u64, draws: usize, seed: u64) {
    let b = board(b);
    let piece: Piece = piece.parse().unwrap();
    let opts = Options::new(closed, None, seed).with_method(Method::Frontier);
    let mut s = Sampler::new(b, &piece, &opts).unwrap();
    assert_eq!(s.total().unwrap(), &tours.into(), "{b} {piece}");
    assert!(s.uniform() && s.method() == "exact", "{}", s.how());
    assert!(s.how().contains("frontier engine's layers"), "{}", s.how());
    let mut seen: HashMap<Vec<u32>, u64> = HashMap::new();
    for t in s.draw(draws).unwrap() {
        let is_closed = verify(b, &piece, &t.path).unwrap();
        assert!(
            !closed || is_closed,
            "{b}: an open path drawn for a closed tour"
        );
        let key = if closed {
            cycle_key(b, &t.path)
        } else {
            t.path.iter().map(|&q| b.index(q)).collect()
        };
        *seen.entry(key).or_default() += 1;
    }
    assert!(
        seen.len() as u64 <= tours,
        "{b}: more distinct tours than there are"
    );
    let mut obs: Vec<u64> = seen.values().copied().collect();
    obs.resize(tours as usize, 0);
    let x = chi_square(&obs, &vec![draws as f64 / tours as f64; tours as usize]);
    let crit = chi_square_critical(tours as f64 - 1.0, Z);
    assert!(x < crit, "{b} {piece}: chi-square {x:.1} over {crit:.1}");
}

#[test]
fn the_frontier_sampler_forced_is_uniform_over_every_tour() {
    // 5x6 open: 37,568 directed tours, 10.6 draws each
    frontier_is_uniform("5x6", "knight", false, 37_568, 400_000, 11);
    // 6x6 closed: 9,862 undirected cycles (the search's tables are what exact takes there)
    frontier_is_uniform("6x6", "knight", true, 9_862, 60_000, 12);
    // 3xn and 4xn
    frontier_is_uniform("3x10", "knight", false, 6_096, 60_000, 13);
    frontier_is_uniform("4x7", "knight", false, 12_756, 120_000, 14);
    // another leaper: the (3,0)+(2,2) piece's 144 directed tours of 4x5
    frontier_is_uniform("4x5", "3,0+2,2", false, 144, 14_400, 15);
}

/// `--method frontier` where the layers do not fit is refused (exit 2) with the tables' size,
/// never the chain in its place.
#[test]
fn the_frontier_sampler_forced_where_the_layers_do_not_fit_is_refused() {
    let out = knights()
        .args(["sample", "8x8", "--closed", "--method", "frontier"])
        .args(["--max-memory", "1G"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("knights: the frontier tables for 8x8 are projected at ")
            && err.contains("over the memory bound of 1.0 GiB"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// The sampler inside the count met in the middle (`--tables meet`, what 8x8 closed and 7x8
/// open take): every tour of a board small enough to see them all, drawn uniformly.
#[test]
fn meet_sampler_is_uniform_over_every_tour() {
    // 6x6 closed: 9,862 cycles; 5x6 open: 37,568 directed; 3x14 closed: 1,536 cycles; the
    // (3,0)+(2,2) piece's 364 directed open tours of 4x8 (a crossing of three columns)
    for (name, piece, closed, total, n, seed) in [
        ("6x6", "knight", true, 9862u32, 60_000, 12),
        ("5x6", "knight", false, 37_568, 120_000, 13),
        ("3x14", "knight", true, 1536, 15_360, 14),
        ("4x8", "3,0+2,2", false, 364, 7_280, 15),
    ] {
        let b = board(name);
        let piece: Piece = piece.parse().unwrap();
        let mut opts = Options::new(closed, None, seed).with_method(Method::Exact);
        opts.tables = Tables::Meet;
        let mut s = Sampler::new(b, &piece, &opts).unwrap();
        assert_eq!(s.total().unwrap(), &total.into(), "{name}");
        assert!(s.how().contains("met in the middle"), "{}", s.how());
        let mut seen: HashMap<Vec<u32>, u64> = HashMap::new();
        for t in s.draw(n).unwrap() {
            assert!(verify(b, &piece, &t.path).unwrap() || !closed, "{name}");
            let key = if closed {
                cycle_key(b, &t.path)
            } else {
                t.path.iter().map(|&q| b.index(q)).collect()
            };
            *seen.entry(key).or_default() += 1;
        }
        assert!(seen.len() <= total as usize, "{name}");
        let mut obs: Vec<u64> = seen.values().copied().collect();
        obs.resize(total as usize, 0);
        let cells = f64::from(total);
        let x = chi_square(&obs, &vec![n as f64 / cells; total as usize]);
        let crit = chi_square_critical(cells - 1.0, Z);
        assert!(x < crit, "{name}: chi-square {x:.1} over {crit:.1}");
    }
}

/// `--tables meet` from the command line: the same seed gives the same tours on one thread and
/// two, and the shared walk's layers read back from a file (sent there by a fail point, as a
/// small `--max-memory` would), with every leaf joined pair by pair, give those same tours; so
/// do tables of two-word counts, made so from the start, or again in the middle of the batch
/// where a one-word count passes its word (made to, by a fail point).
#[test]
fn meet_sampler_draws_the_same_tours_on_any_threads_and_from_disk() {
    let run = |threads: &str, points: Option<&str>| {
        let mut cmd = knights();
        cmd.args([
            "sample", "6x6", "--closed", "--tables", "meet", "--method", "exact",
        ])
        .args(["-n", "40", "--format", "moves", "-s", "7", "-j", threads]);
        if let Some(points) = points {
            cmd.env(knights::failpoint::ENV, points);
        }
        let o = cmd.assert().success();
        let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
        assert!(err.contains("met in the middle"), "{err}");
        (o.get_output().stdout.clone(), err)
    };
    let (one, err) = run("1", None);
    assert_eq!(String::from_utf8_lossy(&one).lines().count(), 40);
    assert!(err.contains("counts of 64 bits, 16 bytes a state"), "{err}");
    assert!(!err.contains("on disk"), "{err}");
    assert_eq!(one, run("2", None).0);
    // the shared layers and the nodes above a leaf on disk, every table made in groups of
    // buckets (as large ones are, each group expanded again from the whole layer), and every
    // leaf joined pair by pair (as where a count passes a word)
    let (disk, err) = run(
        "2",
        Some(
            "sample-shared-disk=return;sample-child-groups=return;sample-path-disk=return;sample-join-pairwise=return",
        ),
    );
    assert!(err.contains("on disk"), "{err}");
    assert_eq!(one, disk);
    // a count past the word from the first table, and at the 25th, in the batch (the shared
    // walk makes 18 tables): the summary says the counts the tours were drawn with
    for (point, when) in [
        ("sample-narrow-full=return", "passes 64 bits: they"),
        (
            "sample-narrow-full=24*off->return",
            "passes 64 bits in the batch, which is drawn again: they",
        ),
    ] {
        let (wide, err) = run("2", Some(point));
        assert!(err.contains(when), "{point}: {err}");
        assert!(err.contains("made again with counts of 128 bits"), "{err}");
        assert!(err.contains("the shared walk's 19 layers"), "{err}");
        assert!(
            err.contains("counts of 128 bits, 24 bytes a state"),
            "{err}"
        );
        assert!(!err.contains("counts of 64 bits"), "{point}: {err}");
        assert_eq!(one, wide, "{point}");
    }
}

/// `--leaves FILE`: the first run counts and writes the count's leaves, a second reads them
/// and does not count again, and both draw the tours the sampler draws without the file; a
/// file whose check fails, one of another board, or an endless one stops the run with exit 2
/// and says why.
#[test]
fn meet_sampler_reads_the_leaves_an_earlier_run_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("6x8-closed.leaves");
    let run = |extra: &[&str]| {
        let o = knights()
            .args([
                "sample", "6x8", "--closed", "--method", "exact", "--tables", "meet",
            ])
            .args(["-n", "30", "--format", "moves", "-s", "11"])
            .args(extra)
            .assert()
            .success();
        let out = o.get_output();
        (
            out.stdout.clone(),
            String::from_utf8(out.stderr.clone()).unwrap(),
        )
    };
    let path = file.to_str().unwrap();
    let (plain, _) = run(&[]);
    assert_eq!(String::from_utf8_lossy(&plain).lines().count(), 30);
    let (first, err) = run(&["--leaves", path]);
    assert!(err.contains("counted in"), "{err}");
    assert!(file.exists());
    let (second, err) = run(&["--leaves", path]);
    assert!(err.contains("read from"), "{err}");
    assert!(!err.contains("counted in"), "{err}");
    assert_eq!(first, plain);
    assert_eq!(second, plain);
    // another board, then a count changed by one: refused, never drawn from
    let refused = |board: &str| {
        let o = knights()
            .args(["sample", board, "--closed", "--leaves", path])
            .assert()
            .code(2);
        String::from_utf8(o.get_output().stderr.clone()).unwrap()
    };
    let err = refused("6x6");
    assert!(err.contains("not closed tours of 6x6"), "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find("\"]").unwrap() - 1;
    let digit = text.as_bytes()[at];
    let other = if digit == b'1' { '2' } else { '1' };
    let damaged = format!("{}{other}{}", &text[..at], &text[at + 1..]);
    std::fs::write(&file, damaged).unwrap();
    let err = refused("6x8");
    assert!(err.contains("is damaged (its check fails)"), "{err}");
    // a path to something endless: read no further than a leaves file goes, then refused
    let o = knights()
        .args(["sample", "6x8", "--closed", "--leaves", "/dev/zero"])
        .assert()
        .code(2);
    let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
    assert!(err.contains("larger than a leaves file can be"), "{err}");
}

/// The share of drawn tours that use a move agrees with the exact share from counts: the closed
/// tours through a move are the open tours between its ends, counted from one to the other. On
/// 6x8 closed (55,488,142 cycles, too many to see each one drawn) by the sampler inside the
/// count met in the middle, a move by a corner (b1-d2) and one in the middle (d3-e5): a
/// two-sided binomial test each, failing with probability 1e-6 where the sampler is uniform.
#[test]
fn meet_sampler_uses_each_move_as_often_as_the_counts_say() {
    let b = board("6x8");
    let knight = Piece::knight();
    let mut opts = Options::new(true, None, 21).with_method(Method::Exact);
    opts.tables = Tables::Meet;
    let mut s = Sampler::new(b, &knight, &opts).unwrap();
    let closed = CountSpec {
        closed: true,
        symmetry: true,
        ..CountSpec::default()
    };
    let total = count::count(b, &knight, &closed, Engine::Frontier)
        .unwrap()
        .undirected;
    assert_eq!(s.total().unwrap(), &total);
    let n = 20_000;
    let mut tally = Tally::new(b, &knight, true).unwrap();
    for t in s.draw(n).unwrap() {
        tally.add(b, true, &t.path).unwrap();
    }
    assert_eq!(tally.tours, n as u64);
    for (u, v) in [("b1", "d2"), ("d3", "e5")] {
        let (u, v) = (b.parse_square(u).unwrap(), b.parse_square(v).unwrap());
        let spec = CountSpec {
            from: Some(u),
            to: Some(v),
            ..CountSpec::default()
        };
        let through = count::count(b, &knight, &spec, Engine::Frontier)
            .unwrap()
            .directed;
        let word = |c: &num_bigint::BigUint| u64::try_from(c).unwrap() as f64;
        let p = word(&through) / word(&total);
        assert!(p > 0.05 && p < 0.95, "{p}");
        let x = tally.uses(u, v).unwrap() as f64;
        let nf = n as f64;
        let z = (x - nf * p) / (nf * p * (1.0 - p)).sqrt();
        // the two-sided normal quantile of 1e-6
        assert!(
            z.abs() < 4.892,
            "{}-{}: {x} of {n} against {p:.5}: z {z:.2}",
            b.name(u),
            b.name(v)
        );
    }
}

/// `--ledger`: tours drawn by way of a ledger of the count met in the middle (what 8x8 open
/// takes) are the very tours the whole count's sampler draws with the same seed, on a closed
/// and two open boards: a piece by its record, then only the pieces the batch lands in counted
/// again, each leaf placed among the ranks at its piece's start. Each batch says what it
/// lands in and its projected cost first.
#[test]
fn ledger_sampler_draws_what_the_whole_count_draws() {
    for (b, closed, n) in [
        ("6x8", true, "200"),
        ("5x6", false, "300"),
        ("5x8", false, "40"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger");
        let mut count = knights();
        count
            .args(["count", b, "--engine", "frontier", "--ledger"])
            .arg(&ledger);
        if closed {
            count.arg("--closed");
        }
        count.assert().success();
        let run = |extra: &[&str]| {
            let mut cmd = knights();
            cmd.args(["sample", b, "-n", n, "-s", "11", "--format", "moves"])
                .args(extra);
            if closed {
                cmd.arg("--closed");
            }
            let o = cmd.assert().success();
            let out = o.get_output();
            (
                out.stdout.clone(),
                String::from_utf8(out.stderr.clone()).unwrap(),
            )
        };
        let (whole, _) = run(&["--tables", "meet", "--method", "exact"]);
        let (by_ledger, err) = run(&["--ledger", ledger.to_str().unwrap(), "-j", "1"]);
        assert_eq!(
            String::from_utf8_lossy(&whole).lines().count(),
            n.parse::<usize>().unwrap()
        );
        assert_eq!(whole, by_ledger, "{b}");
        assert!(
            err.contains("lands in") && err.contains("projected"),
            "{err}"
        );
        assert!(err.contains("by way of the ledger"), "{err}");
    }
}

/// A ledger counted straight (as the 8x8 open ledger of `results/open8` was, before the tuned
/// orders) is drawn from in its own order: each piece a batch lands in is counted again as its
/// record was, and equals it (in another order the pieces are other sets of tours, and the
/// batch would stop on the first that differs).
#[test]
fn a_ledger_counted_straight_is_drawn_from_in_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    knights()
        .args([
            "count", "5x8", "--engine", "frontier", "--order", "straight",
        ])
        .arg("--ledger")
        .arg(&ledger)
        .assert()
        .success();
    let o = knights()
        .args([
            "sample", "5x8", "-n", "30", "-s", "5", "--format", "moves", "-j", "1",
        ])
        .arg("--ledger")
        .arg(&ledger)
        .assert()
        .success();
    let out = o.get_output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("each equal to its record"), "{err}");
    let b = board("5x8");
    let knight = Piece::knight();
    let mut tours = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let path: Vec<Square> = line
            .split(' ')
            .map(|s| b.parse_square(s).unwrap())
            .collect();
        // a tour (Err otherwise); open or closed alike
        verify(b, &knight, &path).unwrap();
        tours += 1;
    }
    assert_eq!(tours, 30);
}

#[test]
fn ledger_sampler_refuses_what_it_cannot_draw_from() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("l");
    knights()
        .args(["count", "5x6", "--engine", "frontier", "--ledger"])
        .arg(&ledger)
        .assert()
        .success();
    let l = ledger.to_str().unwrap().to_string();
    let missing = dir.path().join("none").to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["6x6", "--ledger", &l], "counts open tours of 5x6"),
        (
            vec!["5x6", "--closed", "--ledger", &l],
            "not closed tours of 5x6",
        ),
        (
            vec!["5x6", "--ledger", &l, "--method", "chain"],
            "--ledger draws exactly",
        ),
        (
            vec!["5x6", "--ledger", &l, "--tables", "search"],
            "--ledger draws exactly",
        ),
        (vec!["5x6", "--ledger", &missing], "does not exist"),
    ];
    for (args, want) in cases {
        let o = knights().arg("sample").args(&args).assert().code(2);
        let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // a ledger of shards, and one of the long side's window: refused, saying so
    let sharded = dir.path().join("s");
    for k in ["0/2", "1/2"] {
        knights()
            .args([
                "count", "5x6", "--engine", "frontier", "--shard", k, "--ledger",
            ])
            .arg(&sharded)
            .assert()
            .success();
    }
    let wide = dir.path().join("w");
    knights()
        .args([
            "count", "5x6", "--engine", "frontier", "--window", "wide", "--ledger",
        ])
        .arg(&wide)
        .assert()
        .success();
    for (l, want) in [(&sharded, "2 shards"), (&wide, "--window wide")] {
        let o = knights()
            .args(["sample", "5x6", "--ledger"])
            .arg(l)
            .assert()
            .code(2);
        let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
        assert!(err.contains(want), "{err}");
    }
    // a piece missing from the ledger: refused, naming how many it holds
    std::fs::remove_file(ledger.join("piece-00004.log")).unwrap();
    let o = knights()
        .args(["sample", "5x6", "--ledger", &l])
        .assert()
        .code(2);
    let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
    assert!(err.contains("8 of the 9 pieces"), "{err}");
}

/// `--nodes DIR`: the first run makes the right half's nodes and keeps them, later runs read
/// them, and every run draws the tours the sampler draws without them (closed 6x8 and open 5x8
/// in one folder); a node file damaged or removed is made again, the same bytes; a disk with no
/// room stops the writing, says so, and the tours are still drawn.
#[test]
fn meet_sampler_reads_the_nodes_an_earlier_run_kept() {
    let dir = tempfile::tempdir().unwrap();
    let nodes = dir.path().join("nodes");
    let path = nodes.to_str().unwrap().to_string();
    let run = |board: &str, kind: &[&str], extra: &[&str], env: Option<&str>| {
        let mut cmd = knights();
        cmd.args(["sample", board, "--method", "exact", "--tables", "meet"])
            .args(kind)
            .args(["-n", "30", "--format", "moves", "-s", "5"])
            .args(extra);
        if let Some(e) = env {
            cmd.env("KNIGHTS_FAILPOINTS", e);
        }
        let o = cmd.assert().success();
        let out = o.get_output();
        (
            out.stdout.clone(),
            String::from_utf8(out.stderr.clone()).unwrap(),
        )
    };
    let files = || {
        let mut v: Vec<_> = std::fs::read_dir(&nodes)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let closed: &[&str] = &["--closed"];
    let (plain, _) = run("6x8", closed, &[], None);
    // a disk with no room: nothing kept, the same tours
    let (full, err) = run(
        "6x8",
        closed,
        &["--nodes", &path],
        Some("sample-nodes-full=return"),
    );
    assert_eq!(full, plain);
    assert!(err.contains("less than a node and a reserve"), "{err}");
    assert!(files().is_empty());
    // a file a run killed while writing left (its lock gone with it) is removed
    std::fs::create_dir_all(&nodes).unwrap();
    let stale = nodes.join(".knights-part.00000000000000ff.y-00000000-0.node");
    std::fs::write(&stale, b"half").unwrap();
    let (first, err) = run("6x8", closed, &["--nodes", &path], None);
    assert!(!stale.exists());
    assert!(err.contains("(12 of 12 to make)"), "{err}");
    assert!(err.contains("the right half's 12 nodes kept in"), "{err}");
    assert_eq!(first, plain);
    let kept = files();
    assert_eq!(kept.len(), 12);
    let (second, err) = run("6x8", closed, &["--nodes", &path], None);
    assert!(!err.contains("to make"), "{err}");
    assert_eq!(second, plain);
    // the nodes above a leaf on disk: those kept read back from the folder, not written again
    let (on_disk, _) = run(
        "6x8",
        closed,
        &["--nodes", &path],
        Some("sample-path-disk=return"),
    );
    assert_eq!(on_disk, plain);
    // the largest file with a byte changed, and another removed: made again, the same bytes
    let largest = kept
        .iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let bytes = std::fs::read(largest).unwrap();
    let mut damaged = bytes.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x10;
    std::fs::write(largest, &damaged).unwrap();
    let removed = kept.iter().find(|p| *p != largest).unwrap();
    let removed_bytes = std::fs::read(removed).unwrap();
    std::fs::remove_file(removed).unwrap();
    let (third, err) = run("6x8", closed, &["--nodes", &path], None);
    assert!(err.contains("(1 of 12 to make)"), "{err}");
    assert_eq!(third, plain);
    assert_eq!(std::fs::read(largest).unwrap(), bytes);
    assert_eq!(std::fs::read(removed).unwrap(), removed_bytes);
    // open tours of another board in the same folder
    let (open_plain, _) = run("5x8", &[], &[], None);
    let (open_kept, _) = run("5x8", &[], &["--nodes", &path], None);
    let (open_read, err) = run("5x8", &[], &["--nodes", &path], None);
    assert!(!err.contains("to make"), "{err}");
    assert_eq!(open_kept, open_plain);
    assert_eq!(open_read, open_plain);
    assert_eq!(files().len(), 24);
    // --nodes belongs to the count met in the middle
    let o = knights()
        .args([
            "sample", "6x8", "--closed", "--method", "chain", "--nodes", &path,
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(o.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("--nodes keeps the right half's nodes"),
        "{err}"
    );
}

/// A run killed while it makes the nodes it keeps (`--nodes DIR`) leaves whole files only, and
/// the next run makes only the others and draws the tours a run without them draws: the fail
/// point `saved` holds the run after its fifth node, so the kill finds it there on a machine
/// of any speed.
#[test]
fn nodes_a_killed_run_made_are_kept_for_the_next() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let nodes = dir.path().join("nodes");
    let path = nodes.to_str().unwrap().to_string();
    let args = [
        "sample", "6x8", "--closed", "--method", "exact", "--tables", "meet", "-n", "20",
        "--format", "moves", "-s", "8",
    ];
    // the nodes written whole (a temporary being written ends in `.node` too)
    let kept = || {
        std::fs::read_dir(&nodes).map_or(0, |d| {
            d.filter(|e| {
                e.as_ref().is_ok_and(|e| {
                    e.file_name().to_string_lossy().starts_with("y-")
                        && e.path().extension().is_some_and(|x| x == "node")
                })
            })
            .count()
        })
    };
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("knights"))
        .args(args)
        .args(["--nodes", &path])
        .env(knights::failpoint::ENV, "saved=4*off->sleep(600000)")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while kept() < 5 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "it ended before its fifth node"
        );
        assert!(t0.elapsed().as_secs() < 600, "no fifth node in 10 minutes");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    assert_eq!(child.wait().unwrap().signal(), Some(9), "it had ended");
    assert_eq!(kept(), 5);
    let plain = knights().args(args).assert().success();
    let again = knights()
        .args(args)
        .args(["--nodes", &path])
        .assert()
        .success();
    let err = String::from_utf8_lossy(&again.get_output().stderr).to_string();
    assert!(err.contains("(7 of 12 to make)"), "{err}");
    assert_eq!(again.get_output().stdout, plain.get_output().stdout);
    assert_eq!(kept(), 12);
    // nothing half-written is left: the nodes alone
    let names: Vec<String> = std::fs::read_dir(&nodes)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("y-") && n.ends_with(".node")),
        "{names:?}"
    );
}
