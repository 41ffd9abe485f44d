//! `knights tally`: its shares against counts made another way, its comparison of two files, its
//! picture, and its refusals.

use std::fs;

use knights::count::{self, CountSpec, Engine};
use knights::{Board, Piece};
use serde_json::Value;

use crate::cli::knights;

fn write(dir: &tempfile::TempDir, name: &str, args: &[&str]) -> String {
    let out = knights().args(args).assert().success();
    let path = dir.path().join(name);
    fs::write(&path, &out.get_output().stdout).unwrap();
    path.to_string_lossy().into_owned()
}

/// Every closed tour of 6x6 listed, tallied: the share that uses a move is the number of open
/// tours between its ends (the DFS counter) over the 9,862 cycles, for every move of the board.
#[test]
fn tally_of_every_tour_gives_each_moves_share_from_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let all = write(
        &dir,
        "all.jsonl",
        &["list", "6x6", "--closed", "--format", "json"],
    );
    let out = knights()
        .args(["tally", &all, "--format", "json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let f = &v["files"][0];
    assert_eq!(f["tours"], 9862);
    let b: Board = "6x6".parse().unwrap();
    let moves = f["moves"].as_array().unwrap();
    // 6x6: 160 knight moves, of which 80 are pairs; a move once
    assert_eq!(moves.len(), 80);
    let mut used = 0.0;
    for m in moves {
        let (u, w) = (
            b.parse_square(m["from"].as_str().unwrap()).unwrap(),
            b.parse_square(m["to"].as_str().unwrap()).unwrap(),
        );
        let spec = CountSpec {
            from: Some(u),
            to: Some(w),
            ..CountSpec::default()
        };
        let paths = count::count(b, &Piece::knight(), &spec, Engine::Dfs)
            .unwrap()
            .directed;
        let paths = u64::try_from(&paths).unwrap();
        let share = m["share"].as_f64().unwrap();
        assert!(
            (share * 9862.0 - paths as f64).abs() < 1e-6,
            "{}-{}: {share} against {paths}",
            m["from"],
            m["to"]
        );
        used += share;
    }
    // a tour uses 36 moves
    assert!((used - 36.0).abs() < 1e-9, "{used}");
    // every statistic is a mean over the tours, with its spread
    assert!(f["crossings"]["mean"].as_f64().unwrap() > 0.0);
    assert!(f["straight"]["sd"].as_f64().unwrap() > 0.0);
}

/// Two files side by side: a file against itself differs nowhere; an exact sample against every
/// tour shows no move past the bound (which a uniform sample passes with probability 1e-3); the
/// picture has a board for each file and one for the difference.
#[test]
fn tally_compares_files_and_draws_them() {
    let dir = tempfile::tempdir().unwrap();
    let all = write(
        &dir,
        "all.jsonl",
        &["list", "6x6", "--closed", "--format", "json"],
    );
    let exact = write(
        &dir,
        "exact.txt",
        &[
            "sample", "6x6", "--closed", "-n", "3000", "--format", "moves", "-s", "4",
        ],
    );
    let svg = dir.path().join("heat.svg");
    let out = knights()
        .args([
            "tally", "--closed", &all, &exact, &all, "--format", "json", "--svg",
        ])
        .arg(&svg)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[1]["tours"], 3000);
    assert!(files[0].get("against_first").is_none());
    let same = &files[2]["against_first"];
    assert_eq!(same["beyond"], 0);
    assert_eq!(same["distance"], 0.0);
    assert_eq!(same["straight"]["difference"], 0.0);
    let sample = &files[1]["against_first"];
    assert_eq!(sample["beyond"], 0, "{sample}");
    assert!(sample["bound"].as_f64().unwrap() > 4.0);
    let picture = fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"));
    assert_eq!(picture.matches(r#"<g class="board">"#).count(), 5);
    assert_eq!(picture.matches(r#"<g class="difference">"#).count(), 2);
    // the text names the files, the statistics and the moves that differ most
    let out = knights()
        .args(["tally", &all, &exact, "--top", "3", "-c"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("straight moves") && text.contains("crossings"),
        "{text}"
    );
    assert!(text.contains("exact.txt against"), "{text}");
    assert_eq!(text.matches("% of tours against").count(), 3, "{text}");
}

#[test]
fn tally_refuses_what_is_not_a_set_of_tours() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        &dir,
        "a.txt",
        &["sample", "5x6", "-n", "3", "--format", "moves"],
    );
    let closed = write(
        &dir,
        "c.txt",
        &["sample", "6x6", "--closed", "-n", "3", "--format", "moves"],
    );
    let knight = write(
        &dir,
        "k.jsonl",
        &["sample", "4x8", "-n", "2", "--format", "json"],
    );
    let other = write(
        &dir,
        "p.jsonl",
        &[
            "sample", "4x8", "-n", "2", "--piece", "3,0+2,2", "--format", "json",
        ],
    );
    let bad = dir.path().join("bad.txt");
    fs::write(&bad, "a1 b3 c5\nnot a tour\n").unwrap();
    let empty = dir.path().join("empty.txt");
    fs::write(&empty, "\n\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![a.clone(), closed.clone()], "one board, kind and piece"),
        (vec![knight, other], "by the 0,3+2,2, but"),
        (
            vec!["--closed".into(), a.clone()],
            "a.txt line 1: not a tour",
        ),
        (vec![bad.to_string_lossy().into()], "bad.txt line 1"),
        (vec![empty.to_string_lossy().into()], "holds no tours"),
        (vec![missing.to_string_lossy().into()], "missing.txt"),
        (vec![dir.path().to_string_lossy().into()], "a directory"),
        (vec![a, "--top".into(), "x".into()], "--top"),
    ];
    for (args, want) in cases {
        let out = knights().arg("tally").args(&args).assert().code(2);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
