//! The `knights` command: output formats, round trips through `verify`, exit codes and messages.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn knights() -> Command {
    Command::cargo_bin("knights").unwrap()
}

/// Runs `knights ARGS`, expecting exit 0; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = knights()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Pipes `text` through `knights verify - EXTRA` and expects a valid tour.
fn verifies(text: &str, extra: &[&str]) {
    knights()
        .arg("verify")
        .arg("-")
        .args(extra)
        .write_stdin(text)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("valid"));
}

/// Bad input: exit 2, one line on stderr naming `value`.
fn usage_error(args: &[&str], value: &str) {
    let out = knights()
        .args(args)
        .assert()
        .code(2)
        .stdout("")
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(value),
        "{args:?}: stderr does not name {value:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn tour_json_follows_the_contract() {
    for (board, closed) in [
        ("8x8", false),
        ("8x8", true),
        ("5x7", false),
        ("3x4", false),
        ("12x10", true),
    ] {
        let mut args = vec!["tour", board, "--format", "json"];
        if closed {
            args.push("--closed");
        }
        let text = ok(&args);
        let v: Value = serde_json::from_str(&text).unwrap();
        let (r, c): (u64, u64) = {
            let (r, c) = board.split_once('x').unwrap();
            (r.parse().unwrap(), c.parse().unwrap())
        };
        assert_eq!(v["rows"], r);
        assert_eq!(v["cols"], c);
        assert_eq!(v["closed"], closed);
        let path = v["path"].as_array().unwrap();
        assert_eq!(path.len() as u64, r * c);
        let mut seen = vec![false; (r * c) as usize];
        let sq: Vec<(i64, i64)> = path
            .iter()
            .map(|p| {
                let p = p.as_array().unwrap();
                assert_eq!(p.len(), 2);
                (p[0].as_i64().unwrap(), p[1].as_i64().unwrap())
            })
            .collect();
        assert_eq!(sq[0], (0, 0), "default start a1 is [0, 0]");
        for &(row, col) in &sq {
            assert!((0..r as i64).contains(&row) && (0..c as i64).contains(&col));
            let i = (row as u64 * c + col as u64) as usize;
            assert!(!seen[i]);
            seen[i] = true;
        }
        let knight = |a: (i64, i64), b: (i64, i64)| {
            let (dr, dc) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
            (dr, dc) == (1, 2) || (dr, dc) == (2, 1)
        };
        assert!(sq.windows(2).all(|w| knight(w[0], w[1])));
        // "closed" says whether the last square is one move from the first
        assert_eq!(
            v["closed"].as_bool().unwrap(),
            knight(sq[0], sq[sq.len() - 1])
        );
        verifies(&text, if closed { &["--closed"] } else { &[] });
    }
}

#[test]
fn json_row_zero_is_rank_one() {
    let v: Value =
        serde_json::from_str(&ok(&["tour", "5x6", "--from", "b5", "--format", "json"])).unwrap();
    // b5: file b = col 1, rank 5 = row 4
    assert_eq!(v["path"][0], serde_json::json!([4, 1]));
    assert_eq!((v["rows"].as_u64(), v["cols"].as_u64()), (Some(5), Some(6)));
}

#[test]
fn moves_and_grid_round_trip_through_verify() {
    for args in [
        vec!["tour", "8x8"],
        vec!["tour", "6x6", "--closed"],
        vec!["tour", "3x10", "--from", "c2"],
        vec!["tour", "30x30"],
    ] {
        let moves = ok(&[&args[..], &["--format", "moves"]].concat());
        verifies(&moves, &[]);
        let grid = ok(&[&args[..], &["--format", "grid"]].concat());
        verifies(&grid, &[]);
        assert!(
            grid.contains("verified"),
            "the grid ends with the summary line"
        );
    }
    let first = ok(&["tour", "3x10", "--from", "c2", "--format", "moves"]);
    assert!(first.starts_with("c2 "));
    // other pieces: the verifier must be told the piece
    let giraffe = ok(&["tour", "10x10", "--piece", "giraffe", "--format", "moves"]);
    verifies(&giraffe, &["--piece", "giraffe", "--board", "10x10"]);
    knights()
        .args(["verify", "-"])
        .write_stdin(giraffe)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("not a move"));
    verifies(
        &ok(&["tour", "8x8", "--piece", "3,0+2,2", "--format", "grid"]),
        &["--piece", "3,0+2,2"],
    );
}

#[test]
fn svg_has_the_picture() {
    let svg = ok(&["tour", "8x8", "--format", "svg"]);
    assert!(svg.trim_start().starts_with("<svg"));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("<polyline"));
    assert_eq!(svg.matches("points=").count(), 1);
    // 64 squares: 64 points on the polyline
    let points = svg
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split_whitespace().count(), 64);
    assert!(svg.contains("class=\"start\""));
    assert!(svg.contains("class=\"end\""));
}

#[test]
fn format_none_prints_only_the_summary() {
    let out = ok(&["tour", "8x8", "--format", "none"]);
    assert_eq!(out.lines().count(), 1);
    assert!(out.contains("verified"));
}

#[test]
fn bad_input_is_a_usage_error_naming_the_value() {
    usage_error(&["tour", "0x5"], "0x5");
    usage_error(&["tour", "8x"], "8x");
    usage_error(&["tour", "abc"], "abc");
    usage_error(&["count", "abc"], "abc");
    usage_error(&["tour", "8x8", "--from", "z9"], "z9");
    usage_error(&["count", "5x5", "--from", "f1"], "f1");
    usage_error(&["tour", "8x8", "--from", "b0"], "b0");
    usage_error(&["tour", "8x8", "--piece", "0,0"], "0,0");
    usage_error(&["tour", "8x8", "--piece", "queen"], "queen");
    usage_error(&["count", "5x5", "--threads", "0"], "0");
    usage_error(&["count", "5x5", "--threads", "two"], "two");
    usage_error(&["tour", "8x8", "--format", "png"], "png");
    usage_error(&["count", "9x9"], "9x9");
    usage_error(&["count", "7x7", "--engine", "naive"], "7x7");
}

#[test]
fn too_large_count_says_so() {
    // the dfs engine stops at 64 squares and names the engine that goes further
    knights()
        .args(["count", "9x9", "--engine", "dfs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("64").and(predicate::str::contains("frontier")));
    // the frontier engine refuses a count its tables cannot hold, before it starts
    knights().args(["count", "9x9"]).assert().code(2).stderr(
        predicate::str::contains("out of reach")
            .and(predicate::str::contains("--force"))
            .and(predicate::str::contains("estimate")),
    );
    // a window too wide for the frontier engine
    knights()
        .args(["count", "30x30", "--engine", "frontier"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("window"));
    // any length: a 1x65 board is settled by a theorem (no moves)
    let out = ok(&["count", "1x65", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["directed"], 0);
    assert!(v["reason"].is_string(), "{out}");
}

#[test]
fn impossible_tours_exit_1_with_a_reason() {
    for (args, why) in [
        (vec!["tour", "4x4"], "no open tour"),
        (vec!["tour", "5x5", "--closed"], "odd"),
        (vec!["tour", "5x5", "--from", "b1"], "minority colour"),
        (vec!["tour", "3x8", "--closed"], "Schwenk"),
        (vec!["tour", "2x9"], "no open tour"),
    ] {
        knights()
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(why).and(predicate::str::contains("panicked").not()));
    }
}

#[test]
fn verify_names_the_first_bad_step() {
    // a1 c2 is a knight move, c2 c3 is not: step 3
    knights()
        .args(["verify", "-"])
        .write_stdin("a1 c2 c3")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("step 3").and(predicate::str::contains("c2 to c3")));
    // a revisit
    knights()
        .args(["verify", "-", "--board", "3x4"])
        .write_stdin("a1 c2 a1")
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("step 3").and(predicate::str::contains("already visited")),
        );
    // an open tour where a closed one is required
    let open = ok(&["tour", "5x5", "--format", "moves"]);
    knights()
        .args(["verify", "-", "--closed"])
        .write_stdin(open)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("open"));
    // a tampered JSON tour: swap the 11th square with a later one that is no move from the 10th
    let text = ok(&["tour", "6x6", "--format", "json"]);
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let path = v["path"].as_array_mut().unwrap();
    let at = |k: usize| (path[k][0].as_i64().unwrap(), path[k][1].as_i64().unwrap());
    let j = (12..36)
        .find(|&j| {
            let (a, b) = (at(9), at(j));
            let (dr, dc) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
            dr * dc != 2
        })
        .unwrap();
    path.swap(10, j);
    knights()
        .args(["verify", "-"])
        .write_stdin(v.to_string())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("step 11"));
}

#[test]
fn verify_rejects_garbage_as_usage() {
    knights()
        .args(["verify", "-"])
        .write_stdin("")
        .assert()
        .code(2);
    knights()
        .args(["verify", "/nonexistent/tour.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/nonexistent/tour.txt"));
}

#[test]
fn count_text_and_json() {
    let text = ok(&["count", "5x5"]);
    assert!(
        text.contains("1,728 directed") && text.contains("864 undirected"),
        "{text}"
    );
    let closed = ok(&["count", "6x6", "--closed"]);
    assert!(
        closed.contains("9,862") && closed.contains("19,724"),
        "{closed}"
    );
    for (args, board, directed, undirected, is_closed) in [
        (vec!["count", "5x5", "--json"], "5x5", 1728, 864, false),
        (
            vec!["count", "6x6", "--closed", "--json"],
            "6x6",
            19724,
            9862,
            true,
        ),
        (
            vec!["count", "3x10", "--closed", "--json", "--threads", "1"],
            "3x10",
            32,
            16,
            true,
        ),
        (
            vec!["count", "5x5", "--from", "a1", "--json"],
            "5x5",
            304,
            304,
            false,
        ),
        (
            vec!["count", "5x5", "--json", "--engine", "naive"],
            "5x5",
            1728,
            864,
            false,
        ),
        (
            vec!["count", "5x5", "--json", "--no-symmetry"],
            "5x5",
            1728,
            864,
            false,
        ),
        (vec!["count", "1x1", "--json"], "1x1", 1, 1, false),
    ] {
        let v: Value = serde_json::from_str(&ok(&args)).unwrap();
        assert_eq!(v["board"], board, "{args:?}");
        assert_eq!(v["directed"], directed, "{args:?}");
        assert_eq!(v["undirected"], undirected, "{args:?}");
        assert_eq!(v["closed"], is_closed, "{args:?}");
        assert!(v["seconds"].as_f64().unwrap() >= 0.0);
        assert!(v["reason"].is_null(), "{args:?}");
    }
}

#[test]
fn zero_counts_answer_0_with_a_reason() {
    for args in [
        vec!["count", "4x4"],
        vec!["count", "5x5", "--closed"],
        vec!["count", "3x8", "--closed"],
        vec!["count", "5x5", "--from", "b1"],
    ] {
        let text = ok(&args);
        assert!(text.contains(": 0"), "{args:?}: {text}");
        assert!(text.contains("reason:"), "{args:?}: {text}");
        let v: Value = serde_json::from_str(&ok(&[&args[..], &["--json"]].concat())).unwrap();
        assert_eq!(v["directed"], 0);
        assert!(
            v["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "{args:?}"
        );
    }
}

#[test]
fn count_per_square() {
    let v: Value = serde_json::from_str(&ok(&["count", "5x5", "--per-square", "--json"])).unwrap();
    let rows = v["per_square"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let table: Vec<Vec<u64>> = rows
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(table[0][0], 304);
    assert_eq!(table[4][4], 304);
    assert_eq!(table[2][2], 64);
    assert_eq!(table[0][1], 0);
    assert_eq!(table.iter().flatten().sum::<u64>(), 1728);
    let text = ok(&["count", "5x5", "--per-square"]);
    assert!(
        text.contains("by start square") && text.contains("304"),
        "{text}"
    );
    knights()
        .args(["count", "5x5", "--per-square", "--closed"])
        .assert()
        .code(2);
}

#[test]
fn closed_pipe_is_not_an_error() {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' tour 100x100 | head -c 10",
            assert_cmd::cargo::cargo_bin("knights").display()
        ))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 10);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe") && err.trim().is_empty(),
        "{err}"
    );
}

#[test]
fn help_and_version() {
    knights()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("tour"));
    knights().arg("--version").assert().success();
    knights().assert().code(2);
}

#[test]
fn large_boards_are_made_at_once_by_the_construction() {
    // the commands of issue 12 that used to run for minutes
    for args in [
        vec!["tour", "200x5000"],
        vec!["tour", "10000x400"],
        vec!["tour", "2000x2000", "--from", "1000,1000"],
        vec!["tour", "1000x1000", "--from", "250,750"],
        vec!["tour", "1000x1000", "--closed"],
        vec!["tour", "999x1001", "--from", "500,500"],
        vec!["tour", "4x10000", "--from", "5000,4"],
        vec!["tour", "3x9999", "--from", "5001,3"],
    ] {
        let mut args = args.clone();
        args.extend(["--format", "none"]);
        let out = ok(&args);
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
        assert!(
            out.contains("verified") && out.contains("construction"),
            "{args:?}: {out}"
        );
    }
}

#[test]
fn methods_are_chosen_and_named() {
    let summary = |args: &[&str]| {
        let mut v = args.to_vec();
        v.extend(["--format", "none"]);
        ok(&v)
    };
    assert!(summary(&["tour", "8x8", "--method", "construct"]).contains("construction"));
    assert!(summary(&["tour", "8x8", "--method", "warnsdorff"]).contains("Warnsdorff"));
    assert!(summary(&["tour", "6x6", "--method", "backtrack"]).contains("exact search"));
    assert!(summary(&["tour", "30x30", "--method", "backtrack"]).contains("backtracking"));
    assert!(summary(&["tour", "8x8", "--closed"]).starts_with("closed tour"));
    assert!(summary(&["tour", "8x8"]).starts_with("open tour"));
    usage_error(&["tour", "8x8", "--method", "magic"], "magic");
    usage_error(
        &["tour", "8x8", "--piece", "camel", "--method", "construct"],
        "construct",
    );
}

#[test]
fn limits_are_named_with_what_is_allowed() {
    // sides past 10000: the limit and the memory the tour would need
    usage_error(&["tour", "20000x20000"], "10000");
    usage_error(&["tour", "20000x20000"], "1.5 GiB");
    // pictures past 500x500
    usage_error(&["tour", "600x600", "--format", "svg"], "250000");
    // the searches past 4,000,000 squares
    usage_error(&["tour", "3000x3000", "--method", "warnsdorff"], "4000000");
}

#[test]
fn large_tours_stream_in_every_format() {
    // 300x300: 90,000 squares through grid, moves and JSON, read back by verify
    for format in ["grid", "moves", "json"] {
        let text = ok(&["tour", "300x300", "--closed", "--format", format]);
        verifies(&text, &["--closed"]);
    }
}
