//! Known-answer counts from `tests/data/counts.tsv`, checked through the library.
//!
//! Rows of tier `fast` run in every `cargo test`; `slow` rows (seconds to a few minutes each on
//! two cores) run with `cargo test --profile test-release known_counts -- --ignored`. Rows of tier
//! `out-of-reach` (hours to centuries for an exhaustive search) are kept as a record of the
//! oracle values and only checked for consistency with the other rows, never counted.

use std::collections::HashMap;

use knights::count::{self, CountSpec, Engine};
use knights::engine::TreeSize;
use knights::{Board, Piece};
use num_bigint::BigUint;

#[derive(Debug, Clone)]
struct Row {
    line: usize,
    board: Board,
    piece: Piece,
    closed: bool,
    from: Option<String>,
    to: Option<String>,
    directed: bool,
    count: BigUint,
    tier: String,
}

const DATA: &str = include_str!("../data/counts.tsv");

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for (i, line) in DATA.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            f.len(),
            8,
            "line {line_no}: expected 8 tab-separated columns: {line:?}"
        );
        if f[0] == "board" {
            continue; // header
        }
        let opt = |s: &str| (s != "-").then(|| s.to_string());
        let row = Row {
            line: line_no,
            board: f[0]
                .parse()
                .unwrap_or_else(|e| panic!("line {line_no}: {e}")),
            piece: f[1]
                .parse()
                .unwrap_or_else(|e| panic!("line {line_no}: {e}")),
            closed: match f[2] {
                "open" => false,
                "closed" => true,
                k => panic!("line {line_no}: kind must be open or closed, not {k:?}"),
            },
            from: opt(f[3]),
            to: opt(f[4]),
            directed: match f[5] {
                "directed" => true,
                "undirected" => false,
                k => panic!("line {line_no}: figure must be directed or undirected, not {k:?}"),
            },
            count: f[6]
                .parse()
                .unwrap_or_else(|e| panic!("line {line_no}: count {:?}: {e}", f[6])),
            tier: f[7].to_string(),
        };
        assert!(
            matches!(row.tier.as_str(), "fast" | "slow" | "out-of-reach"),
            "line {line_no}: unknown tier {:?}",
            row.tier
        );
        out.push(row);
    }
    out
}

/// Counts one row through the library; `Err` describes a mismatch.
fn check(row: &Row) -> Result<(), String> {
    let b = row.board;
    let sq = |s: &Option<String>| {
        s.as_ref()
            .map(|s| b.parse_square(s).expect("square on the board"))
    };
    let spec = CountSpec {
        closed: row.closed,
        from: sq(&row.from),
        to: sq(&row.to),
        symmetry: true,
        ..CountSpec::default()
    };
    let c = count::count(b, &row.piece, &spec, Engine::Auto)
        .map_err(|e| format!("line {}: {e}", row.line))?;
    let got = if row.directed {
        &c.directed
    } else {
        &c.undirected
    };
    if *got == row.count {
        Ok(())
    } else {
        Err(format!(
            "line {}: {row:?}: counted {got} (directed {}, undirected {})",
            row.line, c.directed, c.undirected
        ))
    }
}

fn run_tier(tier: &str) -> usize {
    let rows: Vec<Row> = rows().into_iter().filter(|r| r.tier == tier).collect();
    let failures: Vec<String> = rows.iter().filter_map(|r| check(r).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} {tier} rows wrong:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    rows.len()
}

#[test]
fn fast_rows() {
    assert!(
        run_tier("fast") >= 40,
        "the fast tier should cover the small oracle values"
    );
}

#[test]
#[ignore = "slow: seconds to a few minutes per row; run with --ignored"]
fn slow_rows() {
    assert!(run_tier("slow") > 0);
}

/// Counts one row with the frontier engine's digit tree, twice: in one run of 9 pieces with
/// every node split to its last digit, and as the engine cuts it by 3 shards, each a run with
/// its own checkpoint, merged; `Ok(false)` when the
/// engine does not cut this row's count (a sweep, a board it does not take, a count a theorem
/// settles before any engine runs).
fn check_by_pieces(row: &Row) -> Result<bool, String> {
    use knights::count::driver::{self, Job, Merged, Quiet};
    use std::sync::atomic::AtomicBool;
    let b = row.board;
    let spec = CountSpec {
        closed: row.closed,
        symmetry: true,
        ..CountSpec::default()
    };
    if row.from.is_some()
        || row.to.is_some()
        || !knights::frontier::splits(b, &row.piece, &spec)
        || count::obstruction(b, &row.piece, &spec).is_some()
    {
        return Ok(false);
    }
    let figure = |c: &count::Count| {
        if row.directed {
            c.directed.clone()
        } else {
            c.undirected.clone()
        }
    };
    let stop = AtomicBool::new(false);
    let mut job = Job::new(b, row.piece.clone(), spec, Engine::Frontier);
    // 9 pieces, every node split to its last digit
    job.tree = TreeSize {
        depth: Some(2),
        leaf_states: Some(1),
        tables: None,
        column_states: None,
    };
    let whole = driver::run(&job, &stop, &Quiet).map_err(|e| format!("line {}: {e}", row.line))?;
    if figure(&whole.count) != row.count || whole.units != 9 {
        return Err(format!(
            "line {}: {b} in 9 pieces: {} in {} pieces",
            row.line,
            figure(&whole.count),
            whole.units
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for k in 0..3 {
        let path = dir.path().join(format!("shard-{k}.ckpt"));
        job.tree = TreeSize::default();
        job.shard = Some(format!("{k}/3").parse().unwrap());
        job.checkpoint = Some(path.clone());
        let o = driver::run(&job, &stop, &Quiet).map_err(|e| format!("line {}: {e}", row.line))?;
        assert!(o.finished && !o.complete(), "line {}: shard {k}", row.line);
        files.push(path);
    }
    match driver::merge(&files, &Quiet).map_err(|e| format!("line {}: {e}", row.line))? {
        Merged::Total { outcome, .. } if figure(&outcome.count) == row.count => Ok(true),
        m => Err(format!("line {}: {b} by shards: {m:?}", row.line)),
    }
}

fn run_tier_by_pieces(tier: &str) -> usize {
    let rows: Vec<Row> = rows().into_iter().filter(|r| r.tier == tier).collect();
    let results: Vec<Result<bool, String>> = rows.iter().map(check_by_pieces).collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    results.iter().filter(|r| matches!(r, Ok(true))).count()
}

/// The fast rows the frontier engine cuts into pieces, by pieces and by merged shards.
#[test]
fn fast_rows_by_pieces_and_shards() {
    let n = run_tier_by_pieces("fast");
    assert!(n >= 20, "only {n} fast rows were cut into pieces");
}

/// The slow rows (7x8 closed, 6x10 closed, 5x12 open, ...) by pieces and by merged shards.
#[test]
#[ignore = "slow: minutes; run with --ignored"]
fn slow_rows_by_pieces_and_shards() {
    assert!(run_tier_by_pieces("slow") > 0);
}

/// Counts the rows of `boards` (kind `closed`, both figures) with the frontier engine walking the
/// short side, its window across the long one (`CountSpec::wide`): on boards 8 long, the 8-wide
/// engine (u128 keys, a window past the 16 slots of a u64), which no narrow count short of 8x8
/// reaches. The known answers are the file's rows.
fn check_wide(boards: &[(&str, bool)]) {
    let rows = rows();
    for &(name, closed) in boards {
        let b: Board = name.parse().unwrap();
        let spec = CountSpec {
            closed,
            symmetry: true,
            wide: true,
            ..CountSpec::default()
        };
        let c = count::count(b, &Piece::knight(), &spec, Engine::Frontier)
            .unwrap_or_else(|e| panic!("{name} closed={closed}: {e}"));
        let window = c.peak.as_ref().map(|p| p.window);
        assert!(window.is_some_and(|w| w > 16), "{name}: window {window:?}");
        let mut checked = 0;
        for r in rows.iter().filter(|r| {
            (r.board == b || (r.board.rows, r.board.cols) == (b.cols, b.rows))
                && r.closed == closed
                && r.from.is_none()
                && r.to.is_none()
                && r.piece == Piece::knight()
        }) {
            let got = if r.directed {
                &c.directed
            } else {
                &c.undirected
            };
            assert_eq!(*got, r.count, "line {}: {name} by the wide window", r.line);
            checked += 1;
        }
        // the board and its transpose, directed and undirected, where the file has them
        assert!(
            checked >= 2,
            "{name} closed={closed}: {checked} rows in the data file"
        );
    }
}

/// 5x8 and 6x8 closed by the 8-wide engine, in seconds.
#[test]
fn the_eight_wide_engine_counts_known_boards() {
    check_wide(&[("5x8", true), ("6x8", true)]);
}

/// 5x8 open (half a minute) and 7x8 closed (minutes) by the 8-wide engine.
#[test]
#[ignore = "slow: minutes; run with --ignored"]
fn the_eight_wide_engine_counts_known_boards_slowly() {
    check_wide(&[("5x8", false), ("7x8", true)]);
}

/// Windows of 9 and 10 squares (the boards of issue 51 are 9 and 10 wide): 3x9 and 3x10 open
/// and 3x10 closed walked along their short side, in a fraction of a second.
#[test]
fn nine_and_ten_wide_windows_count_known_boards() {
    check_wide(&[("3x9", false), ("3x10", false), ("3x10", true)]);
}

/// 5x9 open through a window of 9 squares, the width of 9x10's (3.4 minutes on 2 cores, 6.5 GiB
/// resident: `results/beyond.md`, where 6x9 closed, 21 minutes, is too).
#[test]
#[ignore = "slow: minutes and gigabytes; run with --ignored"]
fn nine_wide_windows_count_known_boards_slowly() {
    check_wide(&[("5x9", false)]);
}

/// 5x10 closed (a minute, 4.4 GiB) and 4x10 open (a minute and a half, 2.5 GiB) through a window
/// of 10 squares.
#[test]
#[ignore = "slow: minutes and gigabytes; run with --ignored"]
fn ten_wide_windows_count_known_boards_slowly() {
    check_wide(&[("5x10", true), ("4x10", false)]);
}

/// rows, cols, piece, closed, from, to, directed
type Key = (u32, u32, String, bool, Option<String>, Option<String>, bool);

/// The file itself: every row fits an exact counter (the DFS up to 64 squares, the frontier
/// engine past), the directed and undirected figures of a
/// board agree (directed = 2 x undirected except on 1x1), and a board and its transpose agree.
#[test]
fn data_file_is_consistent() {
    let rows = rows();
    let mut figures: HashMap<Key, BigUint> = HashMap::new();
    for r in &rows {
        let spec = CountSpec {
            closed: r.closed,
            symmetry: true,
            ..CountSpec::default()
        };
        assert!(
            r.board.is_small() || knights::frontier::supports(r.board, &r.piece, &spec).is_ok(),
            "line {}: {} is past 64 squares and not a board the frontier engine takes",
            r.line,
            r.board
        );
        for s in r.from.iter().chain(&r.to) {
            r.board
                .parse_square(s)
                .unwrap_or_else(|e| panic!("line {}: {e}", r.line));
        }
        let key = (
            r.board.rows,
            r.board.cols,
            r.piece.to_string(),
            r.closed,
            r.from.clone(),
            r.to.clone(),
            r.directed,
        );
        if let Some(old) = figures.insert(key, r.count.clone()) {
            assert_eq!(old, r.count, "line {}: contradicts an earlier row", r.line);
        }
    }
    for r in rows.iter().filter(|r| r.from.is_none() && r.to.is_none()) {
        let get = |rows: u32, cols: u32, directed: bool| {
            figures
                .get(&(
                    rows,
                    cols,
                    r.piece.to_string(),
                    r.closed,
                    None,
                    None,
                    directed,
                ))
                .cloned()
        };
        let factor = if r.board.squares() == 1 && !r.closed {
            1u32
        } else {
            2
        };
        if let (Some(d), Some(u)) = (
            get(r.board.rows, r.board.cols, true),
            get(r.board.rows, r.board.cols, false),
        ) {
            assert_eq!(
                d,
                u * factor,
                "line {}: directed and undirected rows of {} disagree",
                r.line,
                r.board
            );
        }
        if let Some(t) = get(r.board.cols, r.board.rows, r.directed) {
            assert_eq!(
                t, r.count,
                "line {}: {} and its transpose disagree",
                r.line, r.board
            );
        }
    }
    let slow_or_fast = rows.iter().filter(|r| r.tier != "out-of-reach").count();
    assert!(
        slow_or_fast >= 60,
        "only {slow_or_fast} rows are ever counted"
    );
}
