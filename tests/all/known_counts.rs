//! Known-answer counts from `tests/data/counts.tsv`, checked through the library.
//!
//! Rows of tier `fast` run in every `cargo test`; `slow` rows (seconds to a few minutes each on
//! two cores) run with `cargo test --profile test-release known_counts -- --ignored`. Rows of tier
//! `out-of-reach` (hours to centuries for an exhaustive search) are kept as a record of the
//! oracle values and only checked for consistency with the other rows, never counted.

use std::collections::HashMap;

use knights::count::{self, CountSpec, Engine};
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
        per_square: false,
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
