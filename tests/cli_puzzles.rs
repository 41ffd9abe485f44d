//! The puzzle commands `hunt`, `survey` and `estimate`: output contracts (JSON parsed, never
//! compared as strings), exit codes and one-line errors.

use assert_cmd::Command;
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

/// Runs `knights ARGS`, expecting exit `code` with nothing on stdout and one line on stderr that
/// names `value`; returns that line.
fn fails(args: &[&str], code: i32, value: &str) -> String {
    let out = knights()
        .args(args)
        .assert()
        .code(code)
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
    err
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

fn pair(v: &Value) -> (i64, i64) {
    (v[0].as_i64().unwrap(), v[1].as_i64().unwrap())
}

#[test]
fn hunt_weekly_challenge() {
    let v = json(&[
        "hunt",
        "--from",
        "a8",
        "--visit",
        "e6,c4,b3,a2,b2,b1",
        "--format",
        "json",
    ]);
    assert_eq!(v["moves"], 11);
    let path: Vec<(i64, i64)> = v["path"].as_array().unwrap().iter().map(pair).collect();
    assert_eq!(path.len(), 12);
    assert_eq!(path[0], (7, 0));
    for w in path.windows(2) {
        let (dr, dc) = ((w[0].0 - w[1].0).abs(), (w[0].1 - w[1].1).abs());
        assert!((dr, dc) == (1, 2) || (dr, dc) == (2, 1), "{w:?}");
    }
    // the targets, in the order reached: each on the path, at increasing positions
    let targets: Vec<(i64, i64)> = v["targets"].as_array().unwrap().iter().map(pair).collect();
    let mut want = vec![(5, 4), (3, 2), (2, 1), (1, 0), (1, 1), (0, 1)];
    let mut got = targets.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    let at: Vec<usize> = targets
        .iter()
        .map(|t| path.iter().position(|p| p == t).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");

    let text = ok(&[
        "hunt",
        "8x8",
        "--from",
        "a8",
        "--visit",
        "e6",
        "--visit",
        "c4 b3,a2,b2,b1",
    ]);
    assert!(text.contains("11 moves from a8"), "{text}");
    let grid = ok(&[
        "hunt",
        "--from",
        "a8",
        "--visit",
        "e6,c4,b3,a2,b2,b1",
        "--format",
        "grid",
    ]);
    assert!(grid.contains("order: 1. e6 (move 2)"), "{grid}");
    let svg = ok(&[
        "hunt",
        "--from",
        "a8",
        "--visit",
        "e6,c4,b3,a2,b2,b1",
        "--format",
        "svg",
    ]);
    assert!(svg.starts_with("<svg"));
}

#[test]
fn hunt_other_pieces_and_numeric_squares() {
    let v = json(&[
        "hunt",
        "12x12",
        "--from",
        "1,1",
        "--visit",
        "12,12;1,12 12,1",
        "--piece",
        "zebra",
        "--format",
        "json",
    ]);
    assert_eq!(v["targets"].as_array().unwrap().len(), 3);
    assert!(v["moves"].as_u64().unwrap() >= 3);
}

#[test]
fn hunt_unreachable_is_an_answer() {
    let err = fails(
        &[
            "hunt", "--from", "a1", "--visit", "c3,a2", "--piece", "camel",
        ],
        1,
        "a2",
    );
    assert!(err.contains("colour"), "{err}");
}

#[test]
fn hunt_bad_input() {
    let base = ["hunt", "--from", "a1", "--visit"];
    let with = |v: &str| {
        let mut a = base.to_vec();
        a.push(v);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    for (visit, named) in [
        ("c3,c3", "c3"),
        ("i9", "i9"),
        ("", "no squares"),
        ("x", "'x'"),
        (
            "a2,a3,a4,a5,a6,a7,a8,b1,b2,b3,b4,b5,b6,b7,b8,c1,c2,c3,c4,c5,c6",
            "21 targets",
        ),
    ] {
        let args = with(visit);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, 2, named);
    }
    fails(&["hunt", "--from", "z1", "--visit", "a2"], 2, "z1");
    fails(&["hunt", "--visit", "a2"], 2, "--from");
}
