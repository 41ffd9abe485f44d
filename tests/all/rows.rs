//! `count ROWSxCOLS --lengths A..B`: every length of a row in one sweep, held against the
//! one-board counts (the frontier engine met in the middle, and the known counts of
//! `tests/data/counts.tsv`), resumed after a kill, and refused where it cannot run.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::thread::sleep;
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use knights::count::CountSpec;
use knights::count::row::{self, RowJob};
use knights::engine::{Observer, Order, Quiet};
use knights::frontier::{self, Method};
use knights::{Board, Piece};
use num_bigint::BigUint;
use serde_json::Value;

fn knights() -> Command {
    Command::cargo_bin("knights").unwrap()
}

fn job(width: u32, last: u32, piece: &str, closed: bool) -> RowJob {
    RowJob {
        width,
        lengths: 1..=last,
        piece: piece.parse().unwrap(),
        closed,
        order: Order::Tuned,
        sums: true,
        threads: None,
        max_memory: knights::memory::default_max_memory(),
        checkpoint: None,
        scratch: None,
        abandon: None,
    }
}

/// The row's lengths, each as `(cols, directed, undirected)`, in the order told.
fn lengths_of(job: &RowJob) -> Vec<(u32, BigUint, BigUint)> {
    let stop = AtomicBool::new(false);
    let mut told = Vec::new();
    let mut tell = |l: &row::Length, _: f64| {
        assert_eq!(l.rows, job.width);
        told.push((l.cols, l.directed.clone(), l.undirected.clone()));
    };
    let out = row::run(job, &stop, &Quiet, &mut tell).unwrap();
    assert!(out.finished);
    assert_eq!(out.lengths.len(), told.len());
    told
}

/// The one-board count of `board`, met in the middle where the board allows, else in one sweep
/// step by step (not by sums, which `Method::Auto` takes for a long board: the row's own
/// walk), each column walked straight (the rows walk it tuned: a second way to every state):
/// `(directed, undirected)`.
fn alone(board: Board, piece: &Piece, closed: bool) -> (BigUint, BigUint) {
    let spec = CountSpec {
        closed,
        order: Order::Straight,
        ..CountSpec::default()
    };
    let method = if frontier::meets(board, piece, &spec) {
        Method::Meet
    } else {
        Method::Sweep
    };
    let c = frontier::count(board, piece, &spec, method).unwrap();
    (c.directed, c.undirected)
}

/// Every length of a row equals the count of its board alone, told in order: widths 1 to 8 of
/// the knight, open and closed, as long as the tests' time allows (3 to 5 wide up to 14 or 16, 6
/// wide closed up to 10), and other leapers.
#[test]
fn every_length_of_a_row_equals_the_count_of_its_board_alone() {
    let cases: &[(u32, u32, &str, bool)] = &[
        (1, 4, "knight", false),
        (1, 3, "knight", true),
        (2, 8, "knight", false),
        (3, 16, "knight", false),
        (3, 16, "knight", true),
        (4, 16, "knight", false),
        (4, 16, "knight", true),
        (5, 14, "knight", false),
        (5, 16, "knight", true),
        (6, 7, "knight", false),
        (6, 10, "knight", true),
        (7, 5, "knight", false),
        (7, 7, "knight", true),
        (8, 4, "knight", false),
        (8, 5, "knight", true),
        (4, 10, "camel", false),
        (5, 8, "zebra", false),
        (6, 8, "giraffe", true),
        (4, 9, "(0,1)", true),
        (4, 8, "(3,0)+(2,2)", false),
    ];
    for &(w, last, piece, closed) in cases {
        let job = job(w, last, piece, closed);
        let told = lengths_of(&job);
        let ks: Vec<u32> = told.iter().map(|t| t.0).collect();
        assert_eq!(
            ks,
            (1..=last).collect::<Vec<_>>(),
            "{w}x1..{last}: in order"
        );
        let mut some = false;
        for (k, directed, undirected) in told {
            let board = Board::new(w, k).unwrap();
            let (d, u) = alone(board, &job.piece, closed);
            assert_eq!(
                (&directed, &undirected),
                (&d, &u),
                "{piece} {board} {}",
                if closed { "closed" } else { "open" }
            );
            some |= u > BigUint::ZERO;
        }
        // (no board 4 wide has a closed knight's tour; 1 and 2 wide, the one-square board's
        // open tour at most)
        if w > 2 && piece == "knight" {
            let none = w == 4 && closed;
            assert_eq!(some, !none, "{w}x1..{last} {piece}: tours found {some}");
        }
    }
}

/// The known counts of `tests/data/counts.tsv` (the fast tier's boards of the knight, with no
/// fixed ends) pass through the row mode: one row a width and kind, up to its longest known
/// board.
#[test]
fn the_known_counts_pass_through_the_row_mode() {
    let data = include_str!("../data/counts.tsv");
    let mut known: BTreeMap<(u32, bool), Known> = BTreeMap::new();
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 8 || f[0] == "board" || f[1] != "knight" || f[3] != "-" || f[4] != "-" {
            continue;
        }
        if f[7] != "fast" {
            continue;
        }
        let b: Board = f[0].parse().unwrap();
        let closed = f[2] == "closed";
        let slot = usize::from(f[5] == "undirected");
        let count: BigUint = f[6].parse().unwrap();
        // a board of the tests either way round: its short side the row's width
        let (w, k) = (b.rows.min(b.cols), b.rows.max(b.cols));
        if w > 6 || (w == 6 && !closed && k > 7) {
            continue;
        }
        known.entry((w, closed)).or_default().entry(k).or_default()[slot] = Some(count);
    }
    assert!(
        known.len() >= 8,
        "the data has rows of many widths: {known:?}"
    );
    let mut checked = 0;
    for ((w, closed), boards) in &known {
        let last = *boards.keys().last().unwrap();
        let told = lengths_of(&job(*w, last, "knight", *closed));
        for (k, [d, u]) in boards {
            let (_, directed, undirected) = &told[*k as usize - 1];
            if let Some(d) = d {
                assert_eq!(directed, d, "{w}x{k} closed={closed}");
                checked += 1;
            }
            if let Some(u) = u {
                assert_eq!(undirected, u, "{w}x{k} closed={closed}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "only {checked} known counts checked");
}

/// A row's known counts: length -> (directed, undirected), each where the data has it.
type Known = BTreeMap<u32, [Option<BigUint>; 2]>;

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn checkpoint_lengths(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count().saturating_sub(6))
}

/// A row killed with `kill -9` goes on from its checkpoint: the lengths it had counted are read
/// back (`resumed`), the rest counted, every one equal to the row counted at one go; run again
/// once finished, it counts nothing.
#[test]
fn a_row_killed_goes_on_from_its_checkpoint_and_equals_the_row_at_one_go() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("row.ckpt");
    let ck_s = ck.to_str().unwrap();
    let args = [
        "count",
        "5x16",
        "--lengths",
        "1..16",
        "--json",
        "--progress",
        "none",
        "--threads",
        "1",
    ];
    let whole = knights().args(args).output().unwrap();
    assert!(whole.status.success());
    let whole = json_lines(&whole.stdout);
    assert_eq!(whole.len(), 16);
    // paced after its fourth save (a save a length), so that it is killed running
    let mut child = knights()
        .args(args)
        .args(["--checkpoint", ck_s])
        .env(knights::failpoint::ENV, "saved=4*off->sleep(50)")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while checkpoint_lengths(&ck) < 4 {
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        assert!(
            t0.elapsed() < Duration::from_secs(600),
            "no length recorded"
        );
        sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = checkpoint_lengths(&ck);
    assert!((4..16).contains(&kept), "{kept} lengths kept");
    let again = knights()
        .args(args)
        .args(["--checkpoint", ck_s])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let again = json_lines(&again.stdout);
    assert_eq!(again.len(), 16);
    let mut resumed = 0;
    for (a, b) in whole.iter().zip(&again) {
        for key in ["rows", "cols", "directed", "undirected"] {
            assert_eq!(a[key], b[key], "{key}: {a} against {b}");
        }
        resumed += usize::from(b["resumed"] == true);
    }
    assert!(resumed >= kept, "{resumed} read back of {kept} kept");
    // finished: every length read back, none counted
    let done = knights()
        .args(args)
        .args(["--checkpoint", ck_s])
        .output()
        .unwrap();
    assert!(done.status.success());
    let done = json_lines(&done.stdout);
    assert!(done.iter().all(|l| l["resumed"] == true), "{done:?}");
    // no file of the run is left beside it but the checkpoint
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["row.ckpt".to_string()]);
}

/// A stop signal ends a row with the interrupted code, naming the checkpoint and the command
/// that resumes; a plot is drawn of the lengths counted.
#[test]
fn a_row_stopped_says_how_to_resume_and_a_finished_row_draws_its_plot() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("row.ckpt");
    let svg = dir.path().join("row.svg");
    let out = knights()
        .args(["count", "4x12", "--lengths", "2..12", "--closed", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4x12"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.trim_start().starts_with("4x"))
            .count(),
        11
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.starts_with("<svg") && picture.contains("closed"),
        "{picture}"
    );
    let mut child = knights()
        .args(["count", "5x16", "--lengths", "1..16", "--threads", "1"])
        .args(["--progress", "none", "--checkpoint"])
        .arg(&ck)
        .env(knights::failpoint::ENV, "saved=2*off->sleep(50)")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while checkpoint_lengths(&ck) < 2 {
        assert!(child.try_wait().unwrap().is_none(), "ended before the stop");
        assert!(
            t0.elapsed() < Duration::from_secs(600),
            "no length recorded"
        );
        sleep(Duration::from_millis(5));
    }
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("resume with:") && err.contains("--lengths"),
        "{err}"
    );
}

/// Bad lengths, a checkpoint of a one-board count, and rows the frontier cannot walk are
/// refused in one line with exit code 2, naming the bad value.
#[test]
fn bad_rows_are_refused_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let count_ck = dir.path().join("count.ckpt");
    let out = knights()
        .args(["count", "4x5", "--json", "--checkpoint"])
        .arg(&count_ck)
        .output()
        .unwrap();
    assert!(out.status.success());
    let ck = count_ck.to_str().unwrap();
    // a row's checkpoint given to status or to a one-board count is named as such
    let row_ck = dir.path().join("row.ckpt");
    let out = knights()
        .args(["count", "4x5", "--lengths", "1..5", "--checkpoint"])
        .arg(&row_ck)
        .output()
        .unwrap();
    assert!(out.status.success());
    let row_ck = row_ck.to_str().unwrap();
    for args in [
        vec!["status", row_ck],
        vec!["count", "4x5", "--checkpoint", row_ck],
    ] {
        let out = knights().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("the checkpoint of a row"), "{args:?}: {err}");
    }
    for (args, says) in [
        (vec!["count", "6x30", "--lengths", "0..3"], "--lengths 0..3"),
        (vec!["count", "6x30", "--lengths", "5..3"], "--lengths 5..3"),
        (
            vec!["count", "6x30", "--lengths", "1..31"],
            "--lengths 1..31",
        ),
        (vec!["count", "6x30", "--lengths", "a..b"], "'a..b'"),
        (vec!["count", "13x30", "--lengths", "1..30"], "13 rows"),
        (
            vec!["count", "6x30", "--lengths", "1..3", "--engine", "dfs"],
            "--engine",
        ),
        (
            vec!["count", "6x30", "--lengths", "1..3", "--from", "a1"],
            "--from",
        ),
        (
            vec!["count", "4x5", "--lengths", "1..5", "--checkpoint", ck],
            "one-board count",
        ),
        // a one-board count never sums its columns: the choice is refused, not ignored
        (vec!["count", "6x30", "--saturated", "steps"], "--lengths"),
        (
            vec!["count", "6x30", "--lengths", "1..3", "--saturated", "all"],
            "'all'",
        ),
    ] {
        let out = knights().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// A row given no `--threads` runs on the threads its memory bound holds, as a count does,
/// and says so: 5 wide under 40M holds two (32 MiB and 7 a thread past the first), not the 8
/// `RAYON_NUM_THREADS` gives; its lengths are the known ones.
#[test]
fn a_row_takes_the_threads_its_memory_bound_holds() {
    let out = knights()
        .args(["count", "5x8", "--lengths", "6..8", "--max-memory", "40M"])
        .args(["--progress", "plain"])
        .env("RAYON_NUM_THREADS", "8")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for n in ["37,568", "1,245,736", "36,122,108"] {
        assert!(text.contains(n), "{text}");
    }
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("counting on 2 threads of 8"), "{err}");
}

/// The row's outcome, its lengths told as `(cols, directed, undirected)`.
fn outcome_of(
    job: &RowJob,
    stop: &AtomicBool,
    obs: &dyn Observer,
) -> (row::RowOutcome, Vec<(u32, BigUint, BigUint)>) {
    let mut told = Vec::new();
    let mut tell = |l: &row::Length, _: f64| {
        told.push((l.cols, l.directed.clone(), l.undirected.clone()));
    };
    let out = row::run(job, stop, obs, &mut tell).unwrap();
    (out, told)
}

/// Where a row's states saturate, the columns after are walked as sums over them
/// (`--saturated sums`, the default): the same lengths as every step walked (`steps`), on
/// widths 3 to 6, open and closed, and another leaper; each of these rows does take the sums,
/// and counts some of its lengths from completions weighed over them.
#[test]
fn saturated_columns_walked_as_sums_give_the_rows_walked_step_by_step() {
    let cases: &[(u32, u32, &str, bool)] = &[
        (3, 30, "knight", false),
        (3, 30, "knight", true),
        (4, 30, "knight", false),
        (4, 20, "knight", true),
        (5, 24, "knight", false),
        (5, 24, "knight", true),
        (6, 20, "knight", true),
        (4, 30, "(0,1)", true),
    ];
    let stop = AtomicBool::new(false);
    for &(w, last, piece, closed) in cases {
        let mut summed = job(w, last, piece, closed);
        summed.threads = NonZeroUsize::new(2);
        let mut stepped = summed.clone();
        stepped.sums = false;
        let (a, told_a) = outcome_of(&summed, &stop, &Quiet);
        let (b, told_b) = outcome_of(&stepped, &stop, &Quiet);
        assert!(a.finished && b.finished);
        assert_eq!(told_a.len(), last as usize, "{w}x1..{last} {piece}");
        assert_eq!(told_a, told_b, "{w}x1..{last} {piece} closed={closed}");
        assert!(
            a.states_summed > 0,
            "{w}x1..{last} {piece}: no column summed"
        );
        // the lengths that part within the sums a period apart are counted from weights
        assert!(
            a.lengths_weighed > 0,
            "{w}x1..{last} {piece}: no length weighed"
        );
        assert_eq!((b.states_summed, b.lengths_weighed), (0, 0));
    }
}

/// Sets the stop flag once a layer past `at` steps is made.
struct StopAt<'a> {
    stop: &'a AtomicBool,
    at: usize,
}

impl Observer for StopAt<'_> {
    fn layer(&self, p: &knights::engine::LayerProgress) {
        if p.done >= self.at {
            self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// A row stopped while it walks its saturated columns as sums saves its states as a layer
/// beside the checkpoint, and goes on from it to the lengths of the row at one go.
#[test]
fn a_row_stopped_in_its_summed_columns_goes_on_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(5, 24, "knight", false);
    j.threads = NonZeroUsize::new(2);
    let (whole, told_whole) = outcome_of(&j, &AtomicBool::new(false), &Quiet);
    assert!(whole.finished && whole.states_summed > 0);
    j.checkpoint = Some(dir.path().join("row.ckpt"));
    let stop = AtomicBool::new(false);
    // column 18 of 24: past where 5 wide saturates, before the far end comes in sight
    let (cut, told_cut) = outcome_of(
        &j,
        &stop,
        &StopAt {
            stop: &stop,
            at: 5 * 18,
        },
    );
    assert!(!cut.finished, "the stop came");
    assert!(
        cut.states_summed > 0,
        "stopped before any column was summed"
    );
    assert!(told_cut.len() < 24);
    let (again, told_again) = outcome_of(&j, &AtomicBool::new(false), &Quiet);
    assert!(again.finished);
    assert_eq!(told_again, told_whole);
    assert!(again.lengths.iter().filter(|l| l.resumed).count() >= 1);
}

/// A long board counted alone (`count 5x24`, `Method::Auto`) is swept by sums, as the row's
/// longest length (one piece): the same count as met in the middle (an independent walk) and
/// as every step walked, on widths 3 to 6, open and closed, another leaper, and a transposed
/// board; the method says so; a board shorter than four columns a row is still met.
#[test]
fn a_long_board_alone_is_swept_by_sums_and_equals_the_meeting() {
    let cases: &[(u32, u32, &str, bool)] = &[
        (3, 24, "knight", false),
        (3, 24, "knight", true),
        (4, 30, "knight", false),
        (5, 24, "knight", false),
        (5, 30, "knight", true),
        (6, 24, "knight", true),
        (4, 24, "(0,1)", true),
    ];
    for &(w, len, name, closed) in cases {
        let piece: Piece = name.parse().unwrap();
        let spec = CountSpec {
            closed,
            symmetry: true,
            ..CountSpec::default()
        };
        for b in [Board::new(w, len).unwrap(), Board::new(len, w).unwrap()] {
            assert!(frontier::sums_sweep(b, &piece, &spec), "{b} {name}");
            assert!(!frontier::splits(b, &piece, &spec), "{b} {name}");
            let auto = frontier::count(b, &piece, &spec, Method::Auto).unwrap();
            assert!(
                auto.how.contains("walked as sums") && auto.how.contains("states read by sums"),
                "{b} {name}: {}",
                auto.how
            );
            let other = if frontier::meets(b, &piece, &spec) {
                Method::Meet
            } else {
                Method::Sweep
            };
            let met = frontier::count(b, &piece, &spec, other).unwrap();
            assert_eq!(
                (&auto.directed, &auto.undirected),
                (&met.directed, &met.undirected),
                "{b} {name} closed={closed} against {other:?}"
            );
            assert!(auto.directed > BigUint::ZERO || closed, "{b} {name}");
        }
    }
    // shorter than four columns a row (and a fixed end): met in the middle, or one plain sweep
    let k = Piece::knight();
    let whole = CountSpec {
        symmetry: true,
        ..CountSpec::default()
    };
    let short = Board::new(6, 20).unwrap();
    assert!(!frontier::sums_sweep(short, &k, &whole));
    assert!(frontier::splits(short, &k, &whole));
    let long = Board::new(5, 24).unwrap();
    assert!(frontier::sums_sweep(long, &k, &whole));
    let from = CountSpec {
        from: Some(long.square(0)),
        ..whole.clone()
    };
    assert!(!frontier::sums_sweep(long, &k, &from));
    assert!(!frontier::sums_sweep(long, &k, &CountSpec::default()));
    // 7 wide: closed only (measured: 7x28 closed 101 s swept, 400 s met), from 28 columns
    let closed = CountSpec {
        closed: true,
        ..whole.clone()
    };
    let seven = Board::new(7, 28).unwrap();
    assert!(frontier::sums_sweep(seven, &k, &closed));
    assert!(!frontier::sums_sweep(seven, &k, &whole));
    assert!(!frontier::sums_sweep(
        Board::new(7, 27).unwrap(),
        &k,
        &closed
    ));
    assert!(!frontier::sums_sweep(
        Board::new(8, 40).unwrap(),
        &k,
        &closed
    ));
}

/// A long board's count swept by sums, stopped in its summed columns, goes on from its
/// checkpoint (the work in progress saved beside it) to the count at one go.
#[test]
fn a_long_board_stopped_in_its_summed_columns_goes_on_from_its_checkpoint() {
    use knights::count::Engine;
    use knights::count::driver::{self, Job};
    let dir = tempfile::tempdir().unwrap();
    let b = Board::new(5, 30).unwrap();
    let spec = CountSpec {
        symmetry: true,
        ..CountSpec::default()
    };
    let mut job = Job::new(b, Piece::knight(), spec, Engine::Frontier);
    job.threads = NonZeroUsize::new(2);
    let whole = driver::run(&job, &AtomicBool::new(false), &Quiet).unwrap();
    assert!(whole.finished && whole.count.how.contains("states read by sums"));
    job.checkpoint = Some(dir.path().join("count.ckpt"));
    let stop = AtomicBool::new(false);
    // column 22 of 30: past where 5 wide saturates
    let cut = driver::run(
        &job,
        &stop,
        &StopAt {
            stop: &stop,
            at: 5 * 22,
        },
    )
    .unwrap();
    assert!(!cut.finished, "the stop came");
    let layers = knights::durable::beside(job.checkpoint.as_ref().unwrap(), ".layers");
    assert!(layers.exists(), "no work in progress saved");
    // `status` says what is saved: the sweep, by columns
    let out = knights()
        .arg("status")
        .arg(job.checkpoint.as_ref().unwrap())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("in progress: the sweep by sums: column ") && text.contains("1 piece"),
        "{text}"
    );
    let first = FirstLayer::default();
    let again = driver::run(&job, &AtomicBool::new(false), &first).unwrap();
    assert!(again.finished);
    assert_eq!(
        (again.count.directed, again.count.undirected),
        (whole.count.directed, whole.count.undirected)
    );
    // it went on from where it stood, not from the first column
    let from = first.0.lock().unwrap().expect("some layer shown");
    assert!(from > 5 * 10, "went on from square {from}");
    assert!(
        !layers.exists(),
        "the finished count keeps its work in progress"
    );
}

/// The first layer a count shows, in squares walked.
#[derive(Default)]
struct FirstLayer(std::sync::Mutex<Option<usize>>);

impl Observer for FirstLayer {
    fn layer(&self, p: &knights::engine::LayerProgress) {
        self.0.lock().unwrap().get_or_insert(p.done);
    }
}
