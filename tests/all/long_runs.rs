//! Long counts: checkpoints survive kill -9 and SIGTERM, damaged or foreign checkpoints are never
//! trusted, and shards counted by separate processes merge to the exact total.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

const OPEN_5X8: u64 = 36_122_108;
/// Directed open tours of 6x8 (OEIS A165134's table).
const OPEN_6X8: u64 = 49_929_787_608;
const OPEN_6X6: u64 = 6_637_920;
const CLOSED_6X8: u64 = 55_488_142;
/// Lines before the first unit record in a checkpoint: its header, to the checksum line (15 for
/// most runs, a line more where the header names the order of a frontier walk's columns).
fn header_lines(text: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with("crc "))
        .map_or(0, |i| i + 1)
}

/// The unit records of a checkpoint's text: its lines after the header.
fn record_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().skip(header_lines(text))
}

fn knights() -> Command {
    Command::cargo_bin("knights").unwrap()
}

fn spawn(args: &[&str]) -> Child {
    knights()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `knights ARGS` that runs at full speed until it has saved `n` times and then pauses 50 ms
/// after every save (the fail point `saved`, see `knights::failpoint`): a test that waits for
/// `n` saves and then kills or stops it finds it running on a machine of any speed (what is left
/// of the count takes at least its saves' pauses), with its files at a known point.
fn spawn_paced(args: &[&str], n: usize) -> Child {
    knights()
        .args(args)
        .env(knights::failpoint::ENV, format!("saved={n}*off->sleep(50)"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Kills `child` with SIGKILL and asserts that the kill is what ended it: it was running.
fn kill_9(mut child: Child) {
    use std::os::unix::process::ExitStatusExt;
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "it had ended before the kill");
}

/// Starts shards `0/n` to `n-1/n` of `args` together, each with `--json` and its own checkpoint
/// `shard-K.ckpt` in `dir`: the checkpoints' paths and the running processes.
fn spawn_shards(dir: &Path, n: usize, args: &[&str]) -> (Vec<String>, Vec<Child>) {
    let files: Vec<String> = (0..n)
        .map(|k| path_str(&dir.join(format!("shard-{k}.ckpt"))).to_string())
        .collect();
    let children = (0..n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let mut all = args.to_vec();
            all.extend(["--json", "--shard", &shard, "--checkpoint", &files[k]]);
            spawn(&all)
        })
        .collect();
    (files, children)
}

/// Units recorded in a checkpoint so far (0 while it does not exist).
fn records(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |t| t.lines().count().saturating_sub(header_lines(&t)))
}

/// How long a wait for a count's progress may last before it is taken for a hang: not a measure
/// of speed, a limit for a machine loaded many times over.
const HANG: Duration = Duration::from_secs(600);

/// Waits until `path` holds at least `n` records or the child has exited; true if it is running.
fn wait_for_records(child: &mut Child, path: &Path, n: usize) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < HANG {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if records(path) >= n {
            return true;
        }
        sleep(Duration::from_millis(5));
    }
    panic!("no progress in {HANG:?}");
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Asserts that a finished `knights` exited with 0, showing its stderr when not.
fn assert_succeeded(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `args` to the end and returns its JSON.
fn finish(args: &[&str]) -> Value {
    let out = knights().args(args).arg("--json").output().unwrap();
    assert_succeeded(&out);
    json_of(&out)
}

/// Runs `knights merge FILES --json`, expecting success, and returns its JSON.
fn merge_json(files: &[String]) -> Value {
    let out = knights()
        .arg("merge")
        .args(files)
        .arg("--json")
        .output()
        .unwrap();
    assert_succeeded(&out);
    json_of(&out)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A count of 5x8 open tours on one thread with the checkpoint `ck`, and `option` `value`.
fn one_thread_5x8<'a>(option: &'a str, value: &'a str, ck: &'a Path) -> [&'a str; 8] {
    [
        "count",
        "5x8",
        option,
        value,
        "--threads",
        "1",
        "--checkpoint",
        path_str(ck),
    ]
}

/// The DFS counting 5x8 open tours on one thread with the checkpoint `ck`.
fn dfs_5x8_with(ck: &Path) -> [&str; 8] {
    one_thread_5x8("--engine", "dfs", ck)
}

#[test]
fn kill_9_at_several_moments_then_resume_gives_the_exact_count() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = dfs_5x8_with(&ck);
    // at once (maybe before the file exists), then after a few, many and most units: each run
    // is paced past its mark, so that the kill finds it running
    for at in [0, 1, 500, 3000, 6000] {
        let mut child = spawn_paced(&args, at);
        if at > 0 {
            assert!(wait_for_records(&mut child, &ck, at), "ended at {at}");
        }
        kill_9(child);
        assert!(records(&ck) >= at, "{} of {at} kept", records(&ck));
    }
    let v = finish(&args);
    assert_eq!(v["directed"], OPEN_5X8);
    assert_eq!(v["complete"], true);
    assert_eq!(v["units_done"], v["units"]);
}

#[test]
fn sigterm_saves_prints_the_partial_count_and_exits_130_then_resume_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = dfs_5x8_with(&ck);
    let mut child = spawn_paced(&args, 200);
    assert!(
        wait_for_records(&mut child, &ck, 200),
        "finished before the signal"
    );
    signal(&child, "-TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("interrupted after"), "{stdout}");
    assert!(
        stderr.contains("resume with:") && stderr.contains("--checkpoint"),
        "{stderr}"
    );
    let saved = records(&ck);
    assert!(saved >= 200, "{saved} units saved");
    let v = finish(&args);
    assert_eq!(v["directed"], OPEN_5X8);
}

#[test]
fn ctrl_c_without_a_checkpoint_exits_130_with_the_partial_count() {
    stopped_without_a_checkpoint("-INT");
}

#[test]
fn a_closed_terminal_stops_a_count_as_ctrl_c_does() {
    stopped_without_a_checkpoint("-HUP");
}

/// Stops a count that has no checkpoint with the signal `sig`: it exits 130 with the partial
/// count and says the work is lost. 7x7 open by the DFS on one thread is a count of days, so the
/// signal always comes first; it is sent once the first progress line is out, which the count
/// prints only after its handlers are in place (a signal sent after a fixed wait could come
/// before them on a loaded machine, and kill the process instead of stopping it).
fn stopped_without_a_checkpoint(sig: &str) {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    let mut child = knights()
        .args([
            "count",
            "7x7",
            "--engine",
            "dfs",
            "--threads",
            "1",
            "--force",
            "--json",
            "--progress",
            "plain",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.contains(" units"), "{first}");
    signal(&child, sig);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{first}{rest}");
    let v = json_of(&out);
    assert_eq!(v["complete"], false);
    assert!(v["units_done"].as_u64().unwrap() < v["units"].as_u64().unwrap());
    assert!(rest.contains("lost"), "{rest}");
}

/// A finished 6x6 checkpoint in `dir`.
fn finished_6x6(dir: &Path) -> std::path::PathBuf {
    let ck = dir.join("6x6.ckpt");
    assert_eq!(
        finish(&["count", "6x6", "--checkpoint", path_str(&ck)])["directed"],
        OPEN_6X6
    );
    ck
}

const CLOSED_6X6: u64 = 9_862;

/// A closed count is cut into units of the search from both ends; a log written by the versions
/// before that cut (units of the search from the start, `tests/data/checkpoints`, 60 of its 115
/// units recorded) resumes with its own units to the exact count and keeps its cut, and a log
/// of the new cut cut short resumes too.
#[test]
fn a_closed_count_resumes_a_log_of_either_cut() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.ckpt");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/checkpoints/6x6-closed-one-ended.ckpt");
    fs::copy(&fixture, &old).unwrap();
    let header = |p: &Path| -> Vec<String> {
        let text = fs::read_to_string(p).unwrap();
        text.lines()
            .take(header_lines(&text))
            .map(String::from)
            .collect()
    };
    let before = header(&old);
    assert_eq!(records(&old), 60);
    let v = finish(&["count", "6x6", "--closed", "--checkpoint", path_str(&old)]);
    assert_eq!(v["undirected"], CLOSED_6X6);
    assert_eq!(records(&old), 115);
    // the header's cut (split, units, fingerprint) is the old one's
    assert_eq!(header(&old)[10..13], before[10..13]);

    let new = dir.path().join("new.ckpt");
    let v = finish(&["count", "6x6", "--closed", "--checkpoint", path_str(&new)]);
    assert_eq!(v["undirected"], CLOSED_6X6);
    let fresh = header(&new);
    assert_ne!(
        fresh[10..13],
        before[10..13],
        "a fresh count takes the new cut"
    );
    let text = fs::read_to_string(&new).unwrap();
    let all = records(&new);
    let keep: Vec<&str> = text.lines().take(header_lines(&text) + all / 2).collect();
    fs::write(&new, keep.join("\n") + "\n").unwrap();
    let v = finish(&["count", "6x6", "--closed", "--checkpoint", path_str(&new)]);
    assert_eq!(v["undirected"], CLOSED_6X6);
    assert_eq!(records(&new), all);
}

#[test]
fn a_damaged_record_is_dropped_and_counted_again() {
    let dir = tempfile::tempdir().unwrap();
    let ck = finished_6x6(dir.path());
    let text = fs::read(&ck).unwrap();
    let header_end = text.windows(5).position(|w| w == b"\ncrc ").unwrap() + 15;
    // a flipped bit in a record, and a file cut in the middle of its last line
    let mut flipped = text.clone();
    flipped[header_end + 40] ^= 0x04;
    let mut cut = text.clone();
    cut.truncate(text.len() - 7);
    for bad in [flipped, cut] {
        fs::write(&ck, &bad).unwrap();
        // status says the damage and what resume will do, with exit 2 (damage is never exit 0)
        let st = knights().args(["status", path_str(&ck)]).output().unwrap();
        assert_eq!(st.status.code(), Some(2));
        let text = String::from_utf8_lossy(&st.stdout);
        assert!(
            text.contains("damaged: 1 line dropped") && text.contains("counted again"),
            "{text}"
        );
        let out = knights()
            .args(["count", "6x6", "--json", "--checkpoint", path_str(&ck)])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(json_of(&out)["directed"], OPEN_6X6);
        assert!(String::from_utf8_lossy(&out.stderr).contains("damaged"));
    }
}

#[test]
fn a_damaged_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = finished_6x6(dir.path());
    let text = fs::read(&ck).unwrap();
    let mut flipped = text.clone();
    flipped[40] ^= 0x01;
    let cut = text[..60].to_vec();
    for bad in [flipped, cut, b"not a checkpoint\n".to_vec()] {
        fs::write(&ck, &bad).unwrap();
        let out = knights()
            .args(["count", "6x6", "--checkpoint", path_str(&ck)])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("6x6.ckpt"), "{err}");
    }
}

#[test]
fn a_checkpoint_of_another_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = finished_6x6(dir.path());
    for (args, field) in [
        (vec!["count", "5x6", "--engine", "dfs"], "board"),
        (vec!["count", "6x6", "--engine", "dfs", "--closed"], "kind"),
        (
            vec!["count", "6x6", "--engine", "dfs", "--piece", "zebra"],
            "piece",
        ),
        (
            vec!["count", "6x6", "--engine", "dfs", "--no-symmetry"],
            "symmetry",
        ),
        (
            vec!["count", "6x6", "--engine", "dfs", "--shard", "0/2"],
            "shard",
        ),
    ] {
        let out = knights()
            .args(&args)
            .args(["--checkpoint", path_str(&ck)])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("different run") && err.contains(field),
            "{err}"
        );
    }
}

/// A count walked the wide way (`--window wide`, its pieces cut across the other side) is
/// another run than the narrow one: neither resumes the other's checkpoint, and the field that
/// differs is named. Only the frontier engine has a window.
#[test]
fn a_wide_walk_and_a_narrow_one_keep_their_checkpoints_apart() {
    let dir = tempfile::tempdir().unwrap();
    for (first, second) in [("wide", "narrow"), ("narrow", "wide")] {
        let ck = dir.path().join(format!("{first}.ckpt"));
        let args = |window: &'static str| {
            let mut a = vec!["count", "5x8", "--closed", "--engine", "frontier"];
            a.extend(["--window", window, "--checkpoint", path_str(&ck)]);
            a
        };
        assert_eq!(finish(&args(first))["undirected"], 44_202);
        let out = knights().args(args(second)).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("different run")
                && err.contains(&format!(
                    "window (--window) is {first}, this run's is {second}"
                )),
            "{err}"
        );
        // the run it belongs to still reads it
        assert_eq!(finish(&args(first))["undirected"], 44_202);
    }
    for engine in ["dfs", "naive"] {
        let out = knights()
            .args(["count", "5x6", "--window", "wide", "--engine", engine])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--window wide") && err.contains(engine),
            "{err}"
        );
    }
}

#[test]
fn shards_run_as_separate_processes_merge_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3;
    let (files, children) = spawn_shards(dir.path(), n, &["count", "6x6", "--threads", "1"]);
    let mut sum = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success());
        let v = json_of(&out);
        assert_eq!(v["complete"], false);
        assert!(v["shard"].as_str().unwrap().ends_with("/3"));
        sum += v["directed"].as_u64().unwrap();
    }
    assert_eq!(sum, OPEN_6X6);
    let v = merge_json(&files);
    assert_eq!(
        (v["directed"].as_u64(), v["complete"].as_bool()),
        (Some(OPEN_6X6), Some(true))
    );
    let out = knights().arg("merge").args(&files).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("6,637,920 directed"));

    // a missing shard and an unfinished one: reported, and no total claimed
    let text = fs::read_to_string(&files[2]).unwrap();
    let kept: Vec<&str> = text.lines().take(header_lines(&text) + 3).collect();
    fs::write(&files[2], kept.join("\n") + "\n").unwrap();
    for json in [false, true] {
        let mut cmd = knights();
        cmd.arg("merge").args(&files[1..]);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        if json {
            let v = json_of(&out);
            assert_eq!(v["complete"], false);
            assert_eq!(v["missing_shards"][0], "0/3");
            assert!(v["unfinished_units"].as_u64().unwrap() > 0);
            assert!(v.get("directed").is_none());
        } else {
            let s = String::from_utf8_lossy(&out.stdout);
            assert!(
                s.contains("missing shards: 0/3")
                    && s.contains("unfinished units")
                    && s.contains("no total"),
                "{s}"
            );
        }
    }

    // a checkpoint of another run is reported (and left out), and no total claimed
    let other = dir.path().join("other.ckpt");
    let out = knights()
        .args([
            "count",
            "5x6",
            "--shard",
            "1/3",
            "-q",
            "--checkpoint",
            path_str(&other),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = knights()
        .arg("merge")
        .arg(&files[0])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("is not of this run") && s.contains("board") && s.contains("no total"),
        "{s}"
    );
    // and so is a shard given twice
    let copy = dir.path().join("copy.ckpt");
    fs::copy(&files[0], &copy).unwrap();
    let out = knights()
        .arg("merge")
        .args(&files)
        .arg(&copy)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["duplicated_shards"][0]["shard"], "0/3");
    assert!(v.get("directed").is_none(), "{v}");
}

/// A count a theorem settles keeps the run contract: the JSON fields of every count, a checkpoint
/// file per shard, and shards that merge to the total (0, with the theorem).
#[test]
fn counts_settled_by_a_theorem_keep_the_run_contract() {
    let v = finish(&["count", "5x5", "--closed"]);
    assert_eq!(v["directed"], 0);
    assert_eq!(
        (&v["units"], &v["units_done"], &v["complete"]),
        (&Value::from(0), &Value::from(0), &Value::from(true))
    );
    assert!(v["shard"].is_null() && v["checkpoint"].is_null(), "{v}");
    assert!(
        v["reason"].as_str().is_some_and(|r| r.contains("odd")),
        "{v}"
    );
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..2)
        .map(|k| {
            let f = dir.path().join(format!("s{k}.ckpt"));
            let shard = format!("{k}/2");
            let v = finish(&[
                "count",
                "5x5",
                "--closed",
                "--shard",
                &shard,
                "--checkpoint",
                path_str(&f),
            ]);
            assert_eq!(
                (v["shard"].as_str(), v["complete"].as_bool()),
                (Some(shard.as_str()), Some(false))
            );
            assert!(f.exists(), "shard {shard} wrote no checkpoint");
            path_str(&f).to_string()
        })
        .collect();
    let v = merge_json(&files);
    assert_eq!(
        (v["directed"].as_u64(), v["complete"].as_bool()),
        (Some(0), Some(true))
    );
    assert!(v["reason"].as_str().is_some(), "{v}");
    // the same command again resumes its (empty) checkpoint
    let again = finish(&[
        "count",
        "5x5",
        "--closed",
        "--shard",
        "0/2",
        "--checkpoint",
        &files[0],
    ]);
    assert_eq!(again["directed"], 0);
}

#[test]
fn bad_shards_are_refused_in_one_line() {
    for bad in ["3/3", "0/0", "x", "1/2/3", "-1/2"] {
        let out = knights()
            .args(["count", "5x5", "--shard", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{bad}"
        );
    }
    // every engine cuts its count into pieces the driver records: the naive one too
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("naive.ckpt");
    let args = [
        "count",
        "5x5",
        "--engine",
        "naive",
        "--checkpoint",
        path_str(&ck),
    ];
    let v = finish(&args);
    assert_eq!(
        (v["directed"].as_u64(), v["units"].as_u64()),
        (Some(1728), Some(25))
    );
    assert_eq!(records(&ck), 25, "one piece a start square");
    assert_eq!(finish(&args)["directed"], 1728, "resumed from the log");
}

/// The acceptance run: kill -9 the 6x8 closed count twice, then finish it (about a minute
/// on two cores; run with `cargo test --profile test-release -- --ignored`).
#[test]
#[ignore = "slow: counts 6x8 closed tours"]
fn closed_6x8_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "6x8",
        "--closed",
        "--engine",
        "dfs",
        "--checkpoint",
        path_str(&ck),
    ];
    for at in [300, 3000] {
        let mut child = spawn_paced(&args, at);
        assert!(wait_for_records(&mut child, &ck, at), "ended at {at}");
        kill_9(child);
    }
    assert_eq!(finish(&args)["undirected"], CLOSED_6X8);
}

// The frontier engine: its checkpoint is the state table after a whole layer, written atomically.

/// A file beside the checkpoint `ck` (`ck` with `suffix` appended).
fn beside(ck: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = ck.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// The phase and layers done a saved frontier stage (`FILE.layers`, `FILE.split`) names.
fn stage_of(path: &Path) -> Option<(String, usize)> {
    let bytes = fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(600)]).into_owned();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
    };
    Some((field("phase ")?, field("done ")?.parse().ok()?))
}

/// Where a frontier count with the checkpoint log `ck` stands, in an order that only grows while
/// it runs: pieces recorded in the log, whether the work the pieces share is saved (`ck.split`),
/// the leaves of the piece in progress recorded beside the log (`ck.leaves`: lines after its
/// header, which names the piece; the leaves of a piece the log holds are stale, and go when
/// the next piece begins), and the forward walk's layers saved in `ck.layers`.
fn frontier_mark(ck: &Path) -> [usize; 5] {
    let log = fs::read_to_string(ck).unwrap_or_default();
    let done: Vec<&str> = record_lines(&log)
        .filter_map(|l| l.split(' ').next())
        .collect();
    let pieces = done.len();
    let split = usize::from(beside(ck, ".split").exists());
    let leaves = fs::read_to_string(beside(ck, ".leaves")).map_or(0, |t| {
        let piece = t.lines().next().and_then(|h| h.split(' ').nth(2));
        if piece.is_some_and(|p| done.contains(&p)) {
            0
        } else {
            t.lines().count().saturating_sub(1)
        }
    });
    let done = match stage_of(&beside(ck, ".layers")) {
        Some((phase, done)) => match phase.as_str() {
            "sweep" | "forward" => done,
            _ => panic!("unknown phase {phase}"),
        },
        None => 0,
    };
    [pieces, split, 0, leaves, done]
}

/// Waits until the frontier count with the checkpoint `ck` is past `after`; the mark, or None
/// if the child exited first.
fn wait_for_mark(child: &mut Child, ck: &Path, after: Option<[usize; 5]>) -> Option<[usize; 5]> {
    let t0 = Instant::now();
    while t0.elapsed() < HANG {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        let m = frontier_mark(ck);
        if m != [0; 5] && after.is_none_or(|a| m > a) {
            return Some(m);
        }
        sleep(Duration::from_millis(2));
    }
    panic!("no frontier progress in {HANG:?}");
}

/// A one-thread frontier count of 6x6 open tours (9 pieces) with the checkpoint `ck`.
fn frontier_6x6(ck: &Path) -> [&str; 8] {
    [
        "count",
        "6x6",
        "--engine",
        "frontier",
        "--threads",
        "1",
        "--checkpoint",
        path_str(ck),
    ]
}

#[test]
fn frontier_kill_9_then_resume_goes_on_from_the_saved_layer() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("frontier.ckpt");
    let args = frontier_6x6(&ck);
    // kill -9 each process as soon as it has saved a layer or a piece past the last one seen:
    // every restart must go on from the files (a restart from scratch would save an earlier
    // layer first, and a finished piece is never counted again)
    // (each process paced after its first save, so that it is always killed running)
    let mut last: Option<[usize; 5]> = None;
    for _ in 0..3 {
        let mut child = spawn_paced(&args, 1);
        let mark = wait_for_mark(&mut child, &ck, last).expect("ended before the kill");
        kill_9(child);
        // the files the killed process left are whole and at least as far as the mark
        let now = frontier_mark(&ck);
        assert!(now >= mark, "{now:?} < {mark:?}");
        last = Some(now);
    }
    // a temporary file of a writer killed between its write and its rename (its run's lock
    // gone with it), as kill -9 leaves one: status lists it, the resumed count removes it
    let leftover = dir
        .path()
        .join(".knights-tmp.00000000000000ab.0.frontier.ckpt.layers");
    fs::write(&leftover, b"half a layer").unwrap();
    let out = knights()
        .args(["status", path_str(&ck), "--json"])
        .output()
        .unwrap();
    assert_succeeded(&out);
    let st = json_of(&out);
    assert_eq!(st["leftovers"][0], path_str(&leftover), "{st}");
    let v = finish(&args);
    assert!(!leftover.exists(), "the resumed count left {leftover:?}");
    assert_eq!(v["directed"], OPEN_6X6);
    assert_eq!(v["engine"], "frontier");
    assert_eq!(v["complete"], true);
}

#[test]
fn frontier_sigterm_saves_exits_130_then_resume_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("frontier.ckpt");
    let args = frontier_6x6(&ck);
    let mut child = spawn_paced(&args, 1);
    let mark = wait_for_mark(&mut child, &ck, None).expect("finished before the signal");
    signal(&child, "-TERM");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("resume with:") && stderr.contains("--checkpoint"),
        "{stderr}"
    );
    assert!(frontier_mark(&ck) >= mark);
    assert_eq!(finish(&args)["directed"], OPEN_6X6);
}

#[test]
fn frontier_checkpoints_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("frontier.ckpt");
    let args = |board: &'static str| {
        vec![
            "count".to_string(),
            board.to_string(),
            "--engine".into(),
            "frontier".into(),
            "--threads".into(),
            "1".into(),
            "--checkpoint".into(),
            path_str(&ck).to_string(),
        ]
    };
    let six: Vec<String> = args("6x6");
    let six: Vec<&str> = six.iter().map(String::as_str).collect();
    let mut child = spawn_paced(&six, 1);
    if wait_for_mark(&mut child, &ck, None).is_none() {
        panic!("finished before a checkpoint was seen");
    }
    kill_9(child);
    // the saved stage: the layers in progress, or the split the pieces start from
    let stage = [".layers", ".split"]
        .into_iter()
        .map(|s| beside(&ck, s))
        .find(|p| p.exists())
        .expect("a saved stage");
    let good = fs::read(&stage).unwrap();
    let refused = |bytes: &[u8], board: &'static str, want: &str| {
        fs::write(&stage, bytes).unwrap();
        let out = knights().args(args(board)).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{want}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want) && err.contains("frontier.ckpt"), "{err}");
    };
    // another board's run, a flipped bit in the tables, a file cut short
    refused(&good, "5x6", "board");
    let mut flipped = good.clone();
    let at = good.len() - 9;
    flipped[at] ^= 0x10;
    refused(&flipped, "6x6", "damaged");
    refused(&good[..good.len() / 2], "6x6", "damaged");
    // a DFS checkpoint is not a frontier one
    let dfs = dir.path().join("dfs.ckpt");
    finish(&[
        "count",
        "5x5",
        "--engine",
        "dfs",
        "--checkpoint",
        path_str(&dfs),
    ]);
    let log = fs::read(&ck).ok();
    fs::copy(&dfs, &ck).unwrap();
    let out = knights().args(args("5x5")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = knights().args(args("6x6")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a dfs log is not this run's");
    // and the good files still resume to the exact count
    match log {
        Some(log) => fs::write(&ck, log).unwrap(),
        None => fs::remove_file(&ck).unwrap(),
    }
    fs::write(&stage, &good).unwrap();
    let v = finish(&args("6x6").iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(v["directed"], OPEN_6X6);
}

#[test]
fn a_checkpoint_in_use_is_refused_by_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let lock = knights::durable::CheckpointLock::acquire(&ck).unwrap();
    for args in [
        &["count", "5x5"][..],
        &["count", "5x5", "--closed"],
        &["count", "3x10", "--engine", "frontier"],
    ] {
        let out = knights()
            .args(args)
            .args(["--checkpoint", path_str(&ck)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("in use by another process"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    assert!(!ck.exists(), "a refused run writes nothing");
    drop(lock);
    let v = finish(&[
        "count",
        "3x10",
        "--engine",
        "frontier",
        "--checkpoint",
        path_str(&ck),
    ]);
    assert_eq!(v["complete"], true);
}

/// Two processes started together on one checkpoint that does not exist yet: one takes it and
/// counts, the other is refused. The count is one of days (7x7 open by the DFS on one thread),
/// so that the two overlap however the machine schedules them; the one that counts is then
/// stopped, and must have kept its work.
#[test]
fn two_processes_given_one_new_checkpoint_one_counts_and_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "7x7",
        "--engine",
        "dfs",
        "--threads",
        "1",
        "--force",
        "--json",
        "--checkpoint",
        path_str(&ck),
    ];
    let mut children = vec![spawn(&args), spawn(&args)];
    let refused = loop {
        if let Some(k) = (0..2).find(|&k| children[k].try_wait().unwrap().is_some()) {
            break children.remove(k).wait_with_output().unwrap();
        }
        sleep(Duration::from_millis(5));
    };
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("in use by another process"), "{err}");
    let mut counting = children.pop().unwrap();
    assert!(
        counting.try_wait().unwrap().is_none(),
        "the other process ended too: both were refused, or both counted"
    );
    signal(&counting, "-TERM");
    let out = counting.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_of(&out)["complete"], false);
    // what is left: the checkpoint alone, no temporary files and no lock file
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["run.ckpt"], "{names:?}");
}

/// Frontier shards started together with one `--split` file: one makes the work the pieces
/// share, the others wait for it and read it, and the shards merge to the total.
#[test]
fn frontier_shards_share_one_split() {
    let dir = tempfile::tempdir().unwrap();
    let split = dir.path().join("run.split");
    let n = 3;
    let (files, children) = spawn_shards(
        dir.path(),
        n,
        &[
            "count",
            "6x6",
            "--engine",
            "frontier",
            "--threads",
            "1",
            "--split",
            path_str(&split),
        ],
    );
    let mut waited = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_succeeded(&out);
        assert_eq!(json_of(&out)["units"], 9);
        waited += usize::from(String::from_utf8_lossy(&out.stderr).contains("waiting for"));
    }
    assert!(waited < n, "someone made the split");
    assert!(
        split.exists(),
        "a split shared by shards stays for the others"
    );
    let v = merge_json(&files);
    assert_eq!(v["directed"], OPEN_6X6);
    assert_eq!(v["engine"], "frontier");
}

/// Runs `knights status FILE --json` and returns its JSON.
fn status_json(ck: &Path) -> Value {
    let out = knights()
        .args(["status", path_str(ck), "--json"])
        .output()
        .unwrap();
    assert_succeeded(&out);
    json_of(&out)
}

/// A frontier count's checkpoint records each piece's time, keeps it when the count goes on,
/// and `knights status` projects the pieces left by class from it (a digit tree's pieces differ
/// by a thousand times: the log's rate of pieces a second is the cruder figure). (A DFS log has
/// neither: see the next test.)
#[test]
fn status_projects_a_digit_tree_by_class_from_the_records_times() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("tree.ckpt");
    let run = |only: &str| {
        let out = knights()
            .args(["count", "6x6", "--engine", "frontier", "--threads", "1"])
            .args(["--checkpoint", path_str(&ck), "--only", only])
            .output()
            .unwrap();
        assert_succeeded(&out);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let timed = |text: &str, piece: &str| {
        text.lines().any(|l| {
            l.starts_with(&format!("{piece} ")) && l.contains(" wall_s=") && l.contains(" cpu_s=")
        })
    };
    // pieces 0, 1 and 4 of the nine: digits 00, 01 and 11, one piece of each class
    let said = run("0,1,4");
    assert!(
        !said.contains("the log records"),
        "a fresh run has no records: {said}"
    );
    let text = fs::read_to_string(&ck).unwrap();
    assert!(["0", "1", "4"].iter().all(|p| timed(&text, p)), "{text}");
    // and the nodes of the tree above it that it made (depth 1; depth 2 is the piece's own):
    // piece 1 shares piece 0's node of depth 1 ("-": none), piece 4 makes its own
    let above = |piece: &str| -> Option<Vec<String>> {
        let line = text.lines().find(|l| l.starts_with(&format!("{piece} ")))?;
        let note = line.split(' ').find_map(|kv| kv.strip_prefix("above_s="))?;
        Some(
            note.split(',')
                .map(|m| m.split(':').next().unwrap().to_string())
                .collect(),
        )
    };
    let one = Some(vec!["1".to_string()]);
    assert_eq!(
        (above("0"), above("1"), above("4")),
        (one.clone(), Some(vec!["-".to_string()]), one),
        "{text}"
    );
    let v = status_json(&ck);
    assert_eq!(v["pieces_done"], 3);
    assert!(v["seconds_left_by_class"].as_f64().is_some(), "{v}");
    // the rule, on records of known times (this count's pieces take less than the tenth of a
    // second a record says): a log of the same run whose pieces 0, 1 and 4 (digits 00, 01, 11:
    // one of each class, the number of its 1s) took 12, 20 and 44 CPU seconds, pieces 0 and 4
    // making their node of depth 1 in 2 and 4 of them. The six left are of classes 0 and 1,
    // three each, at their class's own time (10 and 20 s), under the three nodes of depth 1,
    // each made again once at the mean of their depth (3 s): 99 CPU seconds on every core
    let id = knights::count::checkpoint::read(&ck).unwrap().id;
    let fab = dir.path().join("known.ckpt");
    let (mut log, _) = knights::count::Checkpoint::open(&fab, &id).unwrap();
    for (piece, cpu, above) in [
        (0, "12.0", "1:2.0:2.0"),
        (1, "20.0", "-"),
        (4, "44.0", "1:4.0:4.0"),
    ] {
        let notes = [
            ("wall_s", cpu.to_string()),
            ("cpu_s", cpu.to_string()),
            ("above_s", above.to_string()),
        ];
        log.record(piece, &1u32.into(), &notes).unwrap();
    }
    log.sync().unwrap();
    drop(log);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let by_class = status_json(&fab)["seconds_left_by_class"].as_f64().unwrap();
    assert!(
        (by_class - 99.0 / cores).abs() < 1e-9,
        "{by_class} s, not {}",
        99.0 / cores
    );
    let out = knights().args(["status", path_str(&ck)]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("of the pieces counted of its class"),
        "{said}"
    );
    // the count goes on: it projects its pieces from the records' times at once, and the log
    // written again keeps them
    let said = run("2");
    assert!(
        said.contains("the 1 piece left projected at")
            && said.contains("from the times of the 3 the log records"),
        "{said}"
    );
    let text = fs::read_to_string(&ck).unwrap();
    assert!(
        ["0", "1", "4", "2"].iter().all(|p| timed(&text, p)),
        "{text}"
    );
    assert_eq!(status_json(&ck)["pieces_done"], 4);
}

/// `knights status` on a DFS checkpoint, a shard's, one left mid-way (with the time left), a
/// frontier count while it runs (its lock, its stage), and damaged or missing files (exit 2).
#[test]
fn status_describes_checkpoints_of_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    // a finished DFS count, and a shard of one
    let ck = dir.path().join("dfs.ckpt");
    finish(&[
        "count",
        "5x6",
        "--engine",
        "dfs",
        "--checkpoint",
        path_str(&ck),
    ]);
    let v = status_json(&ck);
    assert_eq!(
        (v["engine"].as_str(), v["complete"].as_bool()),
        (Some("dfs"), Some(true))
    );
    // the DFS's units run side by side: no time a piece, no projection by class
    assert!(!fs::read_to_string(&ck).unwrap().contains("cpu_s="));
    assert!(v["seconds_left_by_class"].is_null());
    assert_eq!(v["pieces_done"], v["pieces"]);
    assert_eq!(v["directed_so_far"], 37_568);
    assert_eq!(v["running"], false);
    let text = knights().args(["status", path_str(&ck)]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("5x6 open tours") && text.contains("units counted"),
        "{text}"
    );
    let shard = dir.path().join("shard.ckpt");
    finish(&[
        "count",
        "5x6",
        "--engine",
        "dfs",
        "--shard",
        "1/3",
        "--checkpoint",
        path_str(&shard),
    ]);
    let v = status_json(&shard);
    assert_eq!(v["shard"], "1/3");
    assert!(v["pieces_mine"].as_u64().unwrap() < v["pieces"].as_u64().unwrap());

    // a DFS count stopped mid-way: pieces left, and a time left from its records
    let mid = dir.path().join("mid.ckpt");
    let mut child = spawn_paced(&dfs_5x8_with(&mid), 500);
    assert!(wait_for_records(&mut child, &mid, 500), "finished too soon");
    signal(&child, "-TERM");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let v = status_json(&mid);
    assert_eq!(v["complete"], false);
    let done = v["pieces_done"].as_u64().unwrap();
    assert!(done >= 500 && done < v["pieces"].as_u64().unwrap(), "{v}");
    assert!(v["seconds_left"].as_f64().is_some_and(|s| s > 0.0), "{v}");

    // a frontier count while it runs: its lock, its process and its stage
    let fr = dir.path().join("frontier.ckpt");
    let mut child = spawn_paced(&frontier_6x6(&fr), 1);
    wait_for_mark(&mut child, &fr, None).expect("ended before its status was read");
    let v = status_json(&fr);
    let pid = child.id();
    kill_9(child);
    assert_eq!(v["running"], true, "{v}");
    assert_eq!(v["pid"], pid);
    assert!(
        v["stage"]["phase"].is_string() || v["split"].is_object(),
        "{v}"
    );
    assert_eq!(v["board"], "6x6");
    let v = status_json(&fr);
    assert_eq!(
        v["running"], false,
        "the lock of a killed count holds nothing"
    );

    // damage: a log header, saved layers cut short, no file at all
    let bad = |path: &Path, want: &str| {
        let out = knights().args(["status", path_str(path)]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{want}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    };
    let text = fs::read_to_string(&ck).unwrap().replacen("5x6", "5x7", 1);
    fs::write(&ck, text).unwrap();
    bad(&ck, "damaged");
    let layers = beside(&fr, ".layers");
    if layers.exists() {
        let bytes = fs::read(&layers).unwrap();
        fs::write(&layers, &bytes[..bytes.len() - 10]).unwrap();
        bad(&fr, "a frame of its states does not decode");
    }
    bad(&dir.path().join("none.ckpt"), "no such file");
}

/// `--shard` with the default engine is never refused for the engine `auto` picks (issue 19:
/// `knights count 5x8 --shard 0/3` was refused): a count the frontier engine cuts into pieces
/// is sharded by it; one it walks in a single sweep goes to the DFS where each shard's share of
/// the DFS's tree is small (4x10 from a1), and stays with the frontier engine in one piece
/// where the DFS would take minutes (4x12 from a1: 0.04 s so).
#[test]
fn auto_picks_an_engine_that_shards() {
    let dir = tempfile::tempdir().unwrap();
    for (board, extra, engine, total) in [
        ("5x8", None, "frontier", OPEN_5X8),
        ("4x10", Some("a1"), "dfs", 247_833),
        ("4x12", Some("a1"), "frontier", 6_450_260),
    ] {
        let files: Vec<String> = (0..3)
            .map(|k| {
                let f = dir.path().join(format!("{board}-{k}.ckpt"));
                let shard = format!("{k}/3");
                let mut args = vec![
                    "count",
                    board,
                    "--shard",
                    &shard,
                    "--checkpoint",
                    path_str(&f),
                ];
                if let Some(sq) = extra {
                    args.extend(["--from", sq]);
                }
                let v = finish(&args);
                assert_eq!(v["engine"], engine, "{board}");
                path_str(&f).to_string()
            })
            .collect();
        assert_eq!(merge_json(&files)["directed"], total, "{board}");
    }
}

/// The memory bound is a dial: 6x8 open under 48 MiB, whose tables in memory take about 30
/// MiB and more than half the bound, counts the right total with its tables through disk,
/// and the tables the engine holds (its own accounting, which the bound is kept by) stay
/// within the bound. (The process's resident size is measured in `results/`, not here: it
/// depends on the machine.)
#[test]
fn a_count_under_a_small_bound_goes_through_disk_and_counts_exactly() {
    let scratch = tempfile::tempdir().unwrap();
    let out = knights()
        .args([
            "count",
            "6x8",
            "--json",
            "--max-memory",
            "48M",
            "--scratch",
            path_str(scratch.path()),
        ])
        .output()
        .unwrap();
    assert_succeeded(&out);
    let v = json_of(&out);
    assert_eq!(v["directed"], OPEN_6X8, "{v}");
    let written = v["disk_written_bytes"].as_u64().unwrap();
    assert!(written > 1 << 20, "only {written} bytes went to disk: {v}");
    let held = v["peak_bytes"].as_u64().unwrap();
    assert!(held <= 48 << 20, "the tables held {held} bytes: {v}");
    // the scratch folder is emptied as the count ends
    assert_emptied(scratch.path());
}

/// 5x8 open tours counted by the frontier engine on one thread with the checkpoint `ck`: a
/// digit tree of 9 pieces.
fn tree_5x8(ck: &Path) -> [&str; 8] {
    one_thread_5x8("--engine", "frontier", ck)
}

#[test]
fn a_tree_count_resumes_from_its_checkpoint_and_shards_merge() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("tree.ckpt");
    let v = finish(&tree_5x8(&ck));
    assert_eq!(
        (&v["engine"], &v["pieces"], &v["directed"], &v["complete"]),
        (
            &Value::from("frontier"),
            &Value::from(9),
            &Value::from(OPEN_5X8),
            &Value::from(true)
        )
    );
    assert!(v["how"].as_str().unwrap().contains("digit tree"), "{v}");
    assert_eq!(records(&ck), 9);
    let status = knights().arg("status").arg(&ck).output().unwrap();
    assert!(
        String::from_utf8_lossy(&status.stdout)
            .contains("9 pieces (a digit tree of the first 2 boundary squares)")
    );
    // pieces lost from the log are counted again, the others read from it
    let text = fs::read_to_string(&ck).unwrap();
    let kept: Vec<&str> = text.lines().take(header_lines(&text) + 4).collect();
    fs::write(&ck, kept.join("\n") + "\n").unwrap();
    let resumed = finish(&tree_5x8(&ck));
    assert_eq!(resumed["directed"], OPEN_5X8);
    assert_eq!(resumed["pieces"], 9);
    assert_eq!(records(&ck), 9);
    // every piece of the resumed log holds what a fresh count of it finds
    let other = finish(&tree_5x8(&dir.path().join("again.ckpt")));
    let lines = |p: &Path| {
        let text = fs::read_to_string(p).unwrap();
        let mut l: Vec<String> = record_lines(&text)
            // the piece and its count (the time and checksum differ)
            .map(|r| r.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .collect();
        l.sort();
        l
    };
    assert_eq!(lines(&ck), lines(&dir.path().join("again.ckpt")));
    assert_eq!(other["directed"], OPEN_5X8);
    // more than one piece counts tours
    assert!(lines(&ck).iter().filter(|r| !r.ends_with(" 0")).count() > 1);

    // shards, each its own process, merge to the total; a shard's log is not resumed as
    // another number of shards
    let (files, children) = spawn_shards(
        dir.path(),
        4,
        &[
            "count",
            "5x8",
            "--closed",
            "--engine",
            "frontier",
            "--threads",
            "1",
        ],
    );
    for c in children {
        assert_succeeded(&c.wait_with_output().unwrap());
    }
    let v = merge_json(&files);
    assert_eq!(
        (v["undirected"].as_u64(), v["pieces"].as_u64()),
        (Some(44_202), Some(9))
    );
    assert_eq!(v["engine"], "frontier");
    let out = knights()
        .args([
            "count", "5x8", "--closed", "--engine", "frontier", "--shard", "0/3",
        ])
        .args(["--checkpoint", &files[0]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("its shard is 0/4"), "{err}");
}

#[test]
fn a_piece_goes_on_from_its_finished_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("t.ckpt");
    let leaves = dir.path().join("t.ckpt.leaves");
    let run = || knights().args(tree_5x8(&ck)).output().unwrap();
    // the headline: "5x8 open tours of the knight: D directed, U undirected"
    let total = |out: &std::process::Output| -> String {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines().next().unwrap().to_string()
    };
    let whole = total(&run());
    assert!(!leaves.exists());
    let log = std::fs::read_to_string(&ck).unwrap();
    let fingerprint = log
        .lines()
        .find_map(|l| l.strip_prefix("fingerprint "))
        .unwrap()
        .to_string();
    // piece 5 of 9 is the node of two digits 1, 2 (5 = 1*3 + 2): recorded as its own leaf
    // (2, 5), it is not walked again
    for (fp, read) in [(fingerprint.as_str(), true), ("00000000000000ff", false)] {
        let kept: Vec<&str> = log.lines().filter(|l| !l.starts_with("5 ")).collect();
        let count = log
            .lines()
            .find_map(|l| l.strip_prefix("5 "))
            .and_then(|l| l.split(' ').next())
            .unwrap();
        std::fs::write(&ck, kept.join("\n") + "\n").unwrap();
        // each leaf line checks with its run and piece (`j p count crc`)
        let crc = crc32fast::hash(format!("{fp} 5 2 5 {count}").as_bytes());
        std::fs::write(
            &leaves,
            format!("knights-tree-leaves-2 {fp} 5\n2 5 {count} {crc:08x}\n"),
        )
        .unwrap();
        let status = knights().arg("status").arg(&ck).output().unwrap();
        let status = String::from_utf8_lossy(&status.stdout);
        assert_eq!(
            status.contains("in progress: piece 6: 1 leaf of its prefix tree counted"),
            read,
            "{status}"
        );
        // the run that goes on keeps its pieces in a ledger of its own
        let led = dir.path().join(format!("ledger-{read}"));
        let out = knights()
            .args(tree_5x8(&ck))
            .args(["--ledger", path_str(&led)])
            .output()
            .unwrap();
        assert_eq!(total(&out), whole);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.contains("piece 6: 1 leaf counted before it stopped"),
            read,
            "{err}"
        );
        assert!(!leaves.exists());
        // piece 5's record says when its figures are the rest's only, and status leaves them
        // out
        let records: Vec<String> = ledger_files(&led)
            .iter()
            .flat_map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                text.lines()
                    .skip_while(|l| !l.starts_with("crc "))
                    .skip(1)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        // (the log holds the other pieces, copied to the new ledger as such: piece 5 is the one
        // counted)
        let (copied, records): (Vec<String>, Vec<String>) = records
            .into_iter()
            .partition(|r| r.contains(" from_checkpoint=yes "));
        assert_eq!(copied.len(), 8, "{copied:?}");
        assert_eq!(records.len(), 1, "{records:?}");
        assert!(records[0].starts_with("5 "), "{records:?}");
        assert_eq!(
            records[0].contains(" resumed_parts=1 "),
            read,
            "{records:?}"
        );
        let status = knights()
            .arg("status")
            .arg(&led)
            .arg("--json")
            .output()
            .unwrap();
        let s: Value = serde_json::from_slice(&status.stdout).unwrap();
        assert_eq!(s["ledger"]["records_resumed"], u64::from(read), "{s}");
        // (the 8 copied from the log carry its figures)
        assert_eq!(
            s["ledger"]["records_with_figures"],
            8 + 1 - u64::from(read),
            "{s}"
        );
    }
}

/// A bound below what a frontier count holds besides its tables is refused before any work,
/// naming the smallest bound it takes as `--max-memory` writes it; from that bound up, the
/// count runs to its end with the same total (its tables through disk where they pass half
/// the bound). The outcome depends on the bound and the threads alone, not on the machine or
/// its load.
#[test]
fn bounds_below_the_floor_are_refused_up_front_and_the_rest_count() {
    for mib in [6, 12, 20, 31] {
        let bound = format!("{mib}M");
        let out = knights()
            .args([
                "count",
                "5x8",
                "--json",
                "--threads",
                "1",
                "--max-memory",
                &bound,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bound}: {err}");
        assert_eq!(err.lines().count(), 1, "{bound}: {err}");
        assert!(
            err.contains("the smallest bound it takes is --max-memory 32M"),
            "{bound}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bound}: nothing counted");
    }
    // each thread past the first holds its own beside the tables: 7 MiB more a thread
    let out = knights()
        .args(["count", "5x8", "--threads", "3", "--max-memory", "32M"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("on 3 threads")
            && err.contains("the smallest bound it takes is --max-memory 46M"),
        "{err}"
    );
    for mib in [32, 48, 96] {
        let bound = format!("{mib}M");
        let out = knights()
            .args([
                "count",
                "5x8",
                "--json",
                "--threads",
                "1",
                "--max-memory",
                &bound,
            ])
            .output()
            .unwrap();
        assert_succeeded(&out);
        assert_eq!(json_of(&out)["directed"], OPEN_5X8, "{bound}");
    }
}

/// 6x8 open on one thread under 32M, its tables through disk in the folder `scratch`, with
/// the checkpoint `ck`.
fn through_disk<'a>(scratch: &'a Path, ck: &'a Path) -> [&'a str; 10] {
    [
        "count",
        "6x8",
        "--threads",
        "1",
        "--max-memory",
        "32M",
        "--scratch",
        path_str(scratch),
        "--checkpoint",
        path_str(ck),
    ]
}

/// Asserts that the scratch folder `dir` holds no file.
fn assert_emptied(dir: &Path) {
    let left: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "files left in the scratch folder: {left:?}"
    );
}

/// A count through disk killed with SIGKILL in the middle of its pieces resumes from its
/// checkpoint to the exact total; the files the killed process left in the scratch folder
/// are removed by the run that resumes, and that run leaves none.
#[test]
fn a_count_through_disk_killed_mid_way_resumes_exactly_and_cleans_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let ck = dir.path().join("disk.ckpt");
    let args = through_disk(scratch.path(), &ck);
    let mut child = spawn_paced(&args, 2);
    assert!(
        wait_for_records(&mut child, &ck, 2),
        "the count ended before it was killed"
    );
    kill_9(child);
    let kept = records(&ck);
    assert!(kept >= 2, "{kept} pieces recorded");
    let v = finish(&args);
    assert_eq!(v["directed"], OPEN_6X8, "{v}");
    assert!(v["disk_written_bytes"].as_u64().unwrap() > 0, "{v}");
    assert_emptied(scratch.path());
}

/// A count through disk killed with SIGKILL at five moments, one after the other, each in the
/// run that resumed the one killed before: as the first file of a table goes to disk (in the
/// forward walk, before anything is saved), at the 61st (its layers half on disk), at the 151st
/// and twice at the 301st (in the pieces, a part of a piece saved; the tables' share less what
/// is held beside them since build f5dc825, so more files a piece). The process kills itself at the
/// Nth file of the store it begins (the `spill` fail point, SIGKILL from within: no signal
/// from outside can hit a moment inside a layer), so each kill falls at the same point of the
/// work on any machine. The runs that resume go on to the exact total, and the scratch folder
/// the killed processes left files in is empty at the end.
#[test]
fn a_count_through_disk_killed_at_many_moments_resumes_exactly() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let ck = dir.path().join("disk.ckpt");
    let args = through_disk(scratch.path(), &ck);
    let mut left_behind = 0;
    for (k, files) in [0, 60, 150, 300, 300].into_iter().enumerate() {
        let out = knights()
            .args(args)
            .env(
                knights::failpoint::ENV,
                format!("spill={files}*off->return"),
            )
            .output()
            .unwrap();
        assert_eq!(
            out.status.signal(),
            Some(9),
            "kill {k} (at file {}): {out:?}",
            files + 1
        );
        left_behind += fs::read_dir(scratch.path()).unwrap().count();
    }
    assert!(records(&ck) >= 1, "no piece recorded before the last kill");
    assert!(left_behind > 0, "no kill left a file on disk to clean");
    let v = finish(&args);
    assert_eq!(v["directed"], OPEN_6X8, "{v}");
    assert_emptied(scratch.path());
}

/// A refusal's advice works the first time (issue 52: from 12M the advice asked for 14.1,
/// 14.2, 15.0 ... MiB in turn before 20M worked): the bound it names, pasted, counts.
#[test]
fn following_a_memory_refusals_advice_counts_at_once() {
    for start in ["4M", "8M", "12M"] {
        let out = knights()
            .args(["count", "5x8", "--json", "--max-memory", start])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{start}: {err}");
        let bound = err
            .split("--max-memory ")
            .last()
            .and_then(|rest| rest.split([',', ' ', ';']).next())
            .unwrap_or_else(|| panic!("no bound named: {err}"));
        let out = knights()
            .args(["count", "5x8", "--json", "--max-memory", bound])
            .output()
            .unwrap();
        assert_succeeded(&out);
        assert_eq!(
            json_of(&out)["directed"],
            OPEN_5X8,
            "from {start} by {bound}"
        );
    }
}

#[test]
fn a_tree_count_killed_mid_way_resumes_to_the_exact_count() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("tree.ckpt");
    let args = [
        "count",
        "6x7",
        "--closed",
        "--threads",
        "1",
        "--checkpoint",
        path_str(&ck),
    ];
    let mut child = spawn_paced(&args, 2);
    assert!(
        wait_for_records(&mut child, &ck, 2),
        "the count ended before it was killed"
    );
    kill_9(child);
    let kept = records(&ck);
    assert!(kept >= 2, "{kept} pieces recorded");
    let v = finish(&args);
    assert_eq!(v["undirected"], 1_067_638);
    let pieces = v["pieces"].as_u64().unwrap() as usize;
    assert!(pieces >= 9 && kept < pieces, "{kept} of {pieces}");
    assert_eq!(records(&ck), pieces);
}

/// Directed open tours of 6x7 (and 7x6), OEIS A165134's table (tests/data/counts.tsv).
const OPEN_7X6: u64 = 779_938_932;

/// The `*.log` files of a ledger folder, sorted.
fn ledger_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| path_str(&e.path()).to_string())
                .filter(|p| p.ends_with(".log"))
                // a run's temporary (a record being written) is not yet a record
                .filter(|p| !p.rsplit('/').next().unwrap().starts_with(".knights-"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The figures every ledger record carries (`peak_mib` or `peak_mib_since_start`).
const RECORD_FIGURES: [&str; 6] = [
    "commit=",
    "cores=",
    "memory_gib=",
    "wall_s=",
    "cpu_s=",
    "peak_mib",
];

/// A count of 7x6 on one thread with checkpoint `a` and ledger `led`, without progress.
fn ledger_args_7x6<'p>(a: &'p Path, led: &'p Path) -> [&'p str; 10] {
    [
        "count",
        "7x6",
        "--threads",
        "1",
        "--checkpoint",
        path_str(a),
        "--ledger",
        path_str(led),
        "--progress",
        "none",
    ]
}

/// A run killed while it writes a ledger record leaves that record whole under its temporary
/// name, the rename not made. The resume takes it for no record: the checkpoint's piece is
/// written to the ledger from the checkpoint's line, with the figures of the machine that
/// counted it, and the temporary is removed.
#[test]
fn a_record_left_under_its_temporary_name_is_written_again_from_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let led = dir.path().join("ledger");
    let a = dir.path().join("a.ckpt");
    let args = ledger_args_7x6(&a, &led);
    assert_eq!(finish(&args)["directed"], OPEN_7X6);
    let piece = led.join("piece-00001.log");
    let whole = fs::read_to_string(&piece).unwrap();
    // as a killed run leaves it: a dead run's temporary (no lock of its run is held)
    let temporary = led.join(".knights-tmp.000000000000dead.7.piece-00001.log");
    fs::rename(&piece, &temporary).unwrap();
    assert_eq!(finish(&args)["directed"], OPEN_7X6);
    assert!(!temporary.exists(), "the temporary was left");
    let files = ledger_files(&led);
    assert_eq!(files.len(), 9, "{files:?}");
    let again = fs::read_to_string(&piece).unwrap();
    let record = record_lines(&again).next().unwrap();
    assert!(record.contains(" from_checkpoint=yes"), "{record}");
    // the same count and the same figures as the record the rename lost
    let first = record_lines(&whole).next().unwrap();
    for key in RECORD_FIGURES {
        let of = |r: &str| {
            r.split(' ')
                .find(|w| w.starts_with(key))
                .map(str::to_string)
        };
        assert!(of(record).is_some(), "{key} missing: {record}");
        assert_eq!(of(record), of(first), "{key}: {record} against {first}");
    }
    assert_eq!(
        record.split(' ').take(2).collect::<Vec<_>>(),
        first.split(' ').take(2).collect::<Vec<_>>()
    );
    assert_eq!(merge_json(&files)["directed"], OPEN_7X6);
}

/// A ledger: a count killed with pieces in its ledger goes on, a second "machine" (another
/// checkpoint) finds every piece there and counts none, the records carry their figures and
/// merge to the published total, a damaged record or another run's file is never trusted, and a
/// piece counted again alone (`--only`) equals its record.
#[test]
fn a_ledger_of_pieces_survives_kill_9_and_merges_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let led = dir.path().join("ledger");
    let a = dir.path().join("a.ckpt");
    let args = ledger_args_7x6(&a, &led);
    // paced past its second ledger record (a record is two saves: the checkpoint's line, the
    // ledger's file), so that it is killed running with two pieces kept
    let mut child = spawn_paced(&args, 4);
    let t0 = Instant::now();
    while ledger_files(&led).len() < 2 {
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        assert!(t0.elapsed() < HANG, "no ledger record");
        sleep(Duration::from_millis(5));
    }
    kill_9(child);
    assert!(
        ledger_files(&led).len() < 9,
        "every piece was counted before the kill"
    );
    let v = finish(&args);
    assert_eq!(v["directed"], OPEN_7X6);
    let files = ledger_files(&led);
    assert_eq!(files.len(), 9, "{files:?}");
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        assert!(text.starts_with("knights-ledger 1\n"), "{text}");
        let record = record_lines(&text).next().unwrap();
        for key in RECORD_FIGURES {
            assert!(record.contains(key), "{key} missing: {record}");
        }
        assert_eq!(text.lines().count(), header_lines(&text) + 1, "{text}");
    }
    let m = merge_json(&files);
    assert_eq!(m["directed"], OPEN_7X6);
    // another machine: a fresh checkpoint finds every piece in the ledger
    let b = dir.path().join("b.ckpt");
    let out = knights()
        .args(["count", "7x6", "--json", "--checkpoint", path_str(&b)])
        .args(["--ledger", path_str(&led)])
        .output()
        .unwrap();
    assert_succeeded(&out);
    assert_eq!(json_of(&out)["directed"], OPEN_7X6);
    assert_eq!(records(&b), 0, "a piece of the ledger was counted again");
    // the ledger's status: every piece there, the figures summed
    let s = status_json(&led);
    assert_eq!(s["directed"], OPEN_7X6);
    assert_eq!(s["ledger"]["pieces_left"], 0);
    assert_eq!(s["ledger"]["records_with_figures"], 9);
    // without pieces 7 and 8, each left is projected at the mean of its class: the rule is
    // tested on recorded figures next to it (`frontier::pieces`); here, that status reads the
    // records' figures and projects both ways (their values are this machine's)
    let part = dir.path().join("part");
    fs::create_dir(&part).unwrap();
    for f in &files[..7] {
        fs::copy(f, part.join(Path::new(f).file_name().unwrap())).unwrap();
    }
    let s = status_json(&part);
    assert_eq!(s["ledger"]["pieces_left"], 2, "{s}");
    assert_eq!(s["ledger"]["records_with_figures"], 7, "{s}");
    for key in ["projected_seconds_left_by_class", "projected_seconds_left"] {
        assert!(s["ledger"][key].as_f64().is_some(), "{key}: {s}");
    }
    // both rules, on records of known figures (this count's pieces take less than the tenth of
    // a second a record says): pieces 0 to 6 of classes 0, 1, 0, 1, 2, 1, 0 (the 1s among their
    // digits) took 12, 20, 30, 40, 50, 60 and 76 CPU seconds, pieces 0 and 6 making their node
    // of depth 1 in 2 and 6 of them. Left: piece 7 (class 1) at its class's mean own time, 40
    // s, piece 8 (class 0) at 110/3, and node 2 above both made again once at the mean of its
    // depth, 4 s; cruder, both at the records' mean of 288/7 s
    let id = knights::count::checkpoint::read(Path::new(&files[0]))
        .unwrap()
        .id;
    let known = dir.path().join("known");
    for (piece, cpu, above) in [
        (0, "12.0", "1:2.0:2.0"),
        (1, "20.0", "-"),
        (2, "30.0", "-"),
        (3, "40.0", "-"),
        (4, "50.0", "-"),
        (5, "60.0", "-"),
        (6, "76.0", "1:6.0:6.0"),
    ] {
        let notes = [
            ("wall_s", cpu.to_string()),
            ("cpu_s", cpu.to_string()),
            ("above_s", above.to_string()),
        ];
        knights::count::checkpoint::write_ledger(&known, &id, piece, &1u32.into(), &notes).unwrap();
    }
    let s = status_json(&known);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let near = |key: &str, want: f64| {
        let got = s["ledger"][key].as_f64().unwrap();
        assert!(
            (got - want / cores).abs() < 1e-9,
            "{key}: {got}, not {}",
            want / cores
        );
    };
    near("projected_seconds_left_by_class", 40.0 + 110.0 / 3.0 + 4.0);
    near("projected_seconds_left", 2.0 * 288.0 / 7.0);
    let out = knights()
        .args(["status", path_str(&part)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("left: 2 pieces") && text.contains("of its class"),
        "{text}"
    );
    // a piece counted again on its own equals its record
    let c = dir.path().join("c.ckpt");
    let out = knights()
        .args([
            "count",
            "7x6",
            "--only",
            "4",
            "--json",
            "--checkpoint",
            path_str(&c),
        ])
        .output()
        .unwrap();
    assert_succeeded(&out);
    let again = json_of(&out);
    assert_eq!(again["complete"], false);
    let field = |t: &str, i: usize| {
        record_lines(t)
            .map(|l| l.split(' ').collect::<Vec<_>>())
            .find(|f| f[0] == "4")
            .map(|f| f[i].to_string())
    };
    let recorded = field(&fs::read_to_string(&files[4]).unwrap(), 1).unwrap();
    assert_eq!(field(&fs::read_to_string(&c).unwrap(), 1), Some(recorded));
    // a flipped digit: the record is dropped and its piece is unfinished, no total
    let good = fs::read_to_string(&files[4]).unwrap();
    let mut bad = good.clone().into_bytes();
    let at = good.find("\n4 ").unwrap() + 3;
    bad[at] = if bad[at] == b'1' { b'2' } else { b'1' };
    fs::write(&files[4], bad).unwrap();
    let out = knights()
        .arg("merge")
        .args(&files)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let p = json_of(&out);
    assert_eq!(
        (p["units_done"].as_u64(), p["unfinished_units"].as_u64()),
        (Some(8), Some(1))
    );
    assert!(p.get("directed").is_none(), "{p}");
    fs::write(&files[4], good).unwrap();
    // a record of another run is set aside, never added
    let other = dir.path().join("other");
    finish(&[
        "count",
        "5x6",
        "--engine",
        "frontier",
        "--ledger",
        path_str(&other),
    ]);
    let mut mixed = files.clone();
    mixed.extend(ledger_files(&other).into_iter().take(1));
    let out = knights()
        .arg("merge")
        .args(&mixed)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let p = json_of(&out);
    assert_eq!(p["foreign_files"].as_array().map(Vec::len), Some(1), "{p}");
    // and its figures are not this count's: status sums the ledger's own records only
    let stray = &ledger_files(&other)[0];
    fs::copy(stray, led.join("stray.log")).unwrap();
    let s = status_json(&led);
    assert_eq!(s["ledger"]["records_with_figures"], 9, "{s}");
}

/// The campaign runner counts a board into a ledger (no git commit asked) and verifies two of
/// its pieces by counting them again.
#[test]
fn the_campaign_runner_fills_a_ledger_and_verifies_it() {
    let dir = tempfile::tempdir().unwrap();
    let led = dir.path().join("ledger");
    let bin = assert_cmd::cargo::cargo_bin("knights");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |extra: &[&str]| {
        Command::new("bash")
            .arg(root.join("scripts/campaign.sh"))
            .args([
                "--board",
                "5x6 --engine frontier",
                "--ledger",
                path_str(&led),
            ])
            .args(["--work", path_str(&dir.path().join("work"))])
            .args(extra)
            .env("KNIGHTS", &bin)
            .output()
            .unwrap()
    };
    let out = run(&["--no-commit"]);
    assert_succeeded(&out);
    let files = ledger_files(&led);
    assert!(!files.is_empty());
    let m = merge_json(&files);
    assert_eq!(m["directed"], finish(&["count", "5x6"])["directed"]);
    // the ledger as a table: the distribution of the figures, then one row a piece (the
    // classes read from `knights status DIR --json`)
    let out = Command::new("bash")
        .arg(root.join("scripts/ledger-table.sh"))
        .arg(&led)
        .env("KNIGHTS", &bin)
        .output()
        .unwrap();
    assert_succeeded(&out);
    let table = String::from_utf8_lossy(&out.stdout);
    let units = m["units"].as_u64().unwrap() as usize;
    let rows_after = |header: &str| -> Vec<Vec<String>> {
        table
            .lines()
            .skip_while(|l| !l.starts_with(header))
            .skip(2)
            .take_while(|l| l.starts_with("| "))
            .map(|l| {
                l.split(" | ")
                    .map(|f| f.trim_matches(['|', ' ']).to_string())
                    .collect()
            })
            .collect()
    };
    let pieces = rows_after("| piece | class |");
    let numbers: Vec<u64> = pieces.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(numbers, (0..units as u64).collect::<Vec<_>>(), "{table}");
    assert!(table.contains("| CPU (s) | "), "{table}");
    // 5x6's 9 pieces are a digit tree of depth 2: piece p's class is the ones among the
    // digits of p in base 3, and the table by class counts 4, 4 and 1 pieces of classes 0 to 2
    let classes: Vec<&str> = pieces.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(
        classes,
        ["0", "1", "0", "1", "2", "1", "0", "1", "0"],
        "{table}"
    );
    let by_class = rows_after("| class (digits 1) |");
    let sizes: Vec<(&str, &str)> = by_class
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(sizes, [("0", "4"), ("1", "4"), ("2", "1")], "{table}");
    let record = dir.path().join("verify.md");
    let out = run(&["--verify", "2", "--record", path_str(&record)]);
    assert_succeeded(&out);
    let rows = fs::read_to_string(&record).unwrap();
    assert_eq!(
        rows.lines().filter(|l| l.ends_with("✓ same |")).count(),
        2,
        "{rows}"
    );
    // the quarters of the pieces a verify run draws (`extra` after --verify N), sorted, with
    // how many pieces it drew
    let quarter_of = |k: usize| k * 4 / units;
    let quarters_drawn = |n: &str, extra: &[&str], name: &str| -> Vec<usize> {
        let file = dir.path().join(name);
        let mut args = vec!["--verify", n];
        args.extend(extra);
        args.extend(["--record", path_str(&file)]);
        assert_succeeded(&run(&args));
        let rows = fs::read_to_string(&file).unwrap();
        let mut q: Vec<usize> = rows
            .lines()
            .map(|l| quarter_of(l.split('|').nth(2).unwrap().trim().parse().unwrap()))
            .collect();
        q.sort_unstable();
        q
    };
    // one piece from each quarter of the cut's pieces, in one run
    assert_eq!(
        quarters_drawn("1", &["--quarters"], "quarters.md"),
        [0, 1, 2, 3]
    );
    // --quarter 2: pieces of that quarter alone
    assert_eq!(quarters_drawn("2", &["--quarter", "2"], "third.md"), [2, 2]);
    // --quarter 0,3: one of each of those two quarters
    assert_eq!(
        quarters_drawn("1", &["--quarter", "0,3"], "ends.md"),
        [0, 3]
    );
    let out = run(&["--verify", "1", "--quarter", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--quarter '4' is not a quarter"),
        "{out:?}"
    );
    // a quarter without --verify would start the whole count: refused
    let out = run(&["--quarter", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give --verify N"),
        "{out:?}"
    );
    // a record whose count was changed by hand is found out (exit 1), whatever its checksum says
    let changed = files
        .iter()
        .find(|f| {
            fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| l.starts_with("0 "))
        })
        .unwrap();
    let text = fs::read_to_string(changed).unwrap();
    let text: String = text
        .lines()
        .map(|l| match l.strip_prefix("0 ") {
            Some(rest) => {
                let (count, tail) = rest.split_once(' ').unwrap();
                format!("0 {}1 {tail}\n", count)
            }
            None => format!("{l}\n"),
        })
        .collect();
    fs::write(changed, text).unwrap();
    let wrong = dir.path().join("wrong.md");
    let out = run(&["--verify", "9", "--record", path_str(&wrong)]);
    assert_eq!(out.status.code(), Some(1));
    let rows = fs::read_to_string(&wrong).unwrap();
    assert_eq!(
        rows.lines()
            .filter(|l| l.ends_with("✗ DIFFERENT |"))
            .count(),
        1,
        "{rows}"
    );
}

/// Lines of one shard's log appended to another's do not check there: merge ignores them and
/// says so (they are neither damage that loses pieces nor pieces of that file), and the total
/// stands.
#[test]
fn lines_of_another_shard_are_said_to_be_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let (files, children) = spawn_shards(dir.path(), 2, &["count", "5x6"]);
    for c in children {
        assert_succeeded(&c.wait_with_output().unwrap());
    }
    let other = fs::read_to_string(&files[1]).unwrap();
    let lines: String = record_lines(&other)
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut first = fs::OpenOptions::new().append(true).open(&files[0]).unwrap();
    std::io::Write::write_all(&mut first, lines.as_bytes()).unwrap();
    let out = knights().arg("merge").args(&files).output().unwrap();
    assert_succeeded(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("5 line(s) that do not check ignored"), "{err}");
    assert!(!err.contains("count as unfinished"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("37,568 directed"));
}

/// The files of a forward column's folder (`FILE.column/`): its leaves, or (`marker`) the
/// markers of its nodes whose every leaf is recorded.
fn files(column: &std::path::Path, marker: bool) -> Vec<std::path::PathBuf> {
    fs::read_dir(column).map_or(Vec::new(), |d| {
        d.flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".done") == marker)
            .collect()
    })
}

/// The symmetric count of 6x6's open tours by the frontier engine, as a job of the library.
fn open_6x6_frontier() -> knights::count::driver::Job {
    let spec = knights::count::CountSpec {
        symmetry: true,
        ..knights::count::CountSpec::default()
    };
    knights::count::driver::Job::new(
        "6x6".parse().unwrap(),
        knights::Piece::knight(),
        spec,
        knights::count::Engine::Frontier,
    )
}

/// A run begun afresh with 27 pieces or more counts one piece of each class first (how many of
/// its digits are 1; drawn at random): class 0 from outside the subtree of first digit 1, the
/// others under it in the tree's order, then the rest of that subtree, then the others in the
/// tree's order; the total is the count's. A run resumed from its log keeps the tree's order.
#[test]
fn a_long_run_counts_a_piece_of_each_class_first() {
    use knights::count::driver;
    use knights::engine::{Quiet, TreeSize};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("6x6.ckpt");
    let mut job = open_6x6_frontier();
    job.tree = TreeSize {
        depth: Some(3),
        leaf_states: None,
        tables: None,
        column_states: None,
    };
    job.checkpoint = Some(ck.clone());
    let o = driver::run(&job, &AtomicBool::new(false), &Quiet).unwrap();
    assert_eq!(o.count.directed, OPEN_6X6.into());
    assert_eq!(o.units, 27);
    let text = fs::read_to_string(&ck).unwrap();
    let param: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("split "))
        .unwrap()
        .parse()
        .unwrap();
    let classes = knights::frontier::piece_classes(param, 27, 1).unwrap();
    let written: Vec<usize> = record_lines(&text)
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(written.len(), 27, "{text}");
    // (one shard: piece i is node i, and the subtree of first digit 1 is pieces 9 to 17)
    let home = |i: &usize| (9..18).contains(i);
    let mut first: Vec<u8> = written[..4].iter().map(|&i| classes[i]).collect();
    assert_eq!(first[0], 0, "{written:?}");
    assert!(
        !home(&written[0]) && written[1..4].iter().all(home),
        "{written:?}"
    );
    assert!(written[1..4].is_sorted(), "{written:?}");
    first.sort_unstable();
    assert_eq!(first, [0, 1, 2, 3], "{written:?}");
    assert!(written[4..10].iter().all(home) && written[4..10].is_sorted());
    assert!(!written[10..].iter().any(home) && written[10..].is_sorted());
    // stopped after two pieces and resumed: the resumed run draws nothing
    struct StopAfter<'a>(&'a AtomicBool, AtomicUsize);
    impl knights::engine::Observer for StopAfter<'_> {
        fn unit_done(&self, _tours: &num_bigint::BigUint) {
            if self.1.fetch_add(1, Ordering::SeqCst) + 1 == 2 {
                self.0.store(true, Ordering::SeqCst);
            }
        }
    }
    let ck = dir.path().join("again.ckpt");
    job.checkpoint = Some(ck.clone());
    let stop = AtomicBool::new(false);
    let o = driver::run(&job, &stop, &StopAfter(&stop, AtomicUsize::new(0))).unwrap();
    assert!(!o.finished, "stopped");
    let o = driver::run(&job, &AtomicBool::new(false), &Quiet).unwrap();
    assert_eq!(o.count.directed, OPEN_6X6.into());
    let ck_text = fs::read_to_string(&ck).unwrap();
    let written: Vec<usize> = record_lines(&ck_text)
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(written.len(), 27, "{written:?}");
    // (a resumed log holds its records in order of their pieces): the class-0 piece drawn and
    // the first drawn under the first digit 1
    let mut two = written[..2].to_vec();
    two.sort_by_key(|i| home(i));
    assert!(
        classes[two[0]] == 0 && !home(&two[0]) && home(&two[1]),
        "{written:?}"
    );
    assert!(written[2..].is_sorted(), "{written:?}");
    // stopped inside the third piece drawn (leaves of one state each: many a piece): the run
    // resumed takes that piece first and goes on from its leaves
    struct StopInside<'a> {
        stop: &'a AtomicBool,
        pieces: std::sync::Mutex<Vec<usize>>,
        layers: AtomicUsize,
        said: std::sync::Mutex<Vec<String>>,
    }
    impl knights::engine::Observer for StopInside<'_> {
        fn layer(&self, p: &knights::engine::LayerProgress) {
            let Some((i, _)) = p.piece else { return };
            let mut seen = self.pieces.lock().unwrap();
            if seen.last() != Some(&i) {
                seen.push(i);
            }
            if seen.len() == 3 && self.layers.fetch_add(1, Ordering::SeqCst) == 40 {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
        fn info(&self, message: &str) {
            self.said.lock().unwrap().push(message.to_string());
        }
    }
    let watch = |stop| StopInside {
        stop,
        pieces: std::sync::Mutex::new(Vec::new()),
        layers: AtomicUsize::new(0),
        said: std::sync::Mutex::new(Vec::new()),
    };
    let ck = dir.path().join("inside.ckpt");
    job.checkpoint = Some(ck.clone());
    job.tree.leaf_states = Some(1);
    let stop = AtomicBool::new(false);
    let first = watch(&stop);
    let o = driver::run(&job, &stop, &first).unwrap();
    assert!(!o.finished, "stopped");
    let third = first.pieces.lock().unwrap()[2];
    assert!(
        home(&third),
        "the third piece drawn is the second under the first digit 1"
    );
    // (this watcher's flag is not the run's: it stops nothing)
    let ignored = AtomicBool::new(false);
    let again = watch(&ignored);
    let o = driver::run(&job, &AtomicBool::new(false), &again).unwrap();
    assert!(
        o.finished,
        "finished: done {} of {}",
        o.units_done, o.units_mine
    );
    assert_eq!(o.count.directed, OPEN_6X6.into());
    let said = again.said.lock().unwrap();
    let want = format!("piece {}: ", third + 1);
    assert!(
        said.iter()
            .any(|m| m.starts_with(&want) && m.contains("counted before it stopped")),
        "{said:?}"
    );
    assert_eq!(again.pieces.lock().unwrap().first(), Some(&third));
}

/// A save of the layers the checkpoint's disk has no room for is skipped with one warning, the
/// last save kept, and the count goes on to its exact total (issue 49: a count of hours is not
/// stopped for want of disk for a save). The fail point sets the free space the count sees.
#[test]
fn a_save_without_room_on_disk_is_skipped_and_the_count_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let out = knights()
        .args([
            "count",
            "6x6",
            "--engine",
            "frontier",
            "--threads",
            "1",
            "--json",
            "--checkpoint",
            path_str(&ck),
        ])
        .env(knights::failpoint::ENV, "scratch-free=return(1)")
        .output()
        .unwrap();
    assert_succeeded(&out);
    assert_eq!(json_of(&out)["directed"], OPEN_6X6);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("could not be saved").count(),
        1,
        "one warning, at the first save skipped: {err}"
    );
    assert!(
        err.contains("warning: ") && err.contains("goes on"),
        "{err}"
    );
}

/// A count stopped inside a column of the forward walk that is cut as a digit tree (9x10
/// closed's fifth column takes hours) goes on from the column's finished leaves, kept beside the
/// checkpoint (`FILE.column/`), not from the column's start: the resumed run reads back every
/// leaf recorded but one damaged on purpose (whose leaf it walks again), the nodes whose leaves
/// are all recorded without walking them again, and the count is the board's, and the folder is gone once the count is done. A column of 20 states is cut here,
/// into leaves of 30 states, so a board of seconds has columns of many leaves.
#[test]
fn a_count_stopped_inside_a_cut_column_resumes_from_its_finished_leaves() {
    use knights::count::driver;
    use knights::engine::TreeSize;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("6x6.ckpt");
    let column = dir.path().join("6x6.ckpt.column");
    let mut job = open_6x6_frontier();
    job.tree = TreeSize {
        depth: None,
        leaf_states: Some(30),
        tables: None,
        column_states: Some(20),
    };
    job.checkpoint = Some(ck.clone());
    // stopped as soon as a column has recorded three leaves and a node whose every leaf is
    // recorded (its marker `B-J-P.done`)
    struct StopAtLeaves<'a> {
        stop: &'a AtomicBool,
        column: &'a std::path::Path,
    }
    impl knights::engine::Observer for StopAtLeaves<'_> {
        fn layer(&self, _: &knights::engine::LayerProgress) {
            if files(self.column, false).len() >= 3 && !files(self.column, true).is_empty() {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }
    let stop = AtomicBool::new(false);
    let o = driver::run(
        &job,
        &stop,
        &StopAtLeaves {
            stop: &stop,
            column: &column,
        },
    )
    .unwrap();
    assert!(!o.finished, "stopped");
    let recorded = files(&column, false).len();
    assert!(recorded >= 3, "{recorded} leaves recorded");
    assert!(
        !files(&column, true).is_empty(),
        "no node recorded complete"
    );
    assert!(
        dir.path().join("6x6.ckpt.layers").exists(),
        "the column's start saved"
    );
    // one leaf's file cut short: not trusted, its leaf walked again
    let damaged = files(&column, false).remove(0);
    let len = fs::metadata(&damaged).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&damaged)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    struct Said(Mutex<Vec<String>>);
    impl knights::engine::Observer for Said {
        fn info(&self, m: &str) {
            self.0.lock().unwrap().push(m.to_string());
        }
    }
    let said = Said(Mutex::new(Vec::new()));
    let o = driver::run(&job, &AtomicBool::new(false), &said).unwrap();
    assert!(o.finished);
    assert_eq!(o.count.directed, OPEN_6X6.into());
    let said = said.0.into_inner().unwrap();
    let read_back = format!("{} of them read back from a stopped run", recorded - 1);
    assert!(
        said.iter().any(|m| m.contains(&read_back)),
        "{read_back:?} not in {said:#?}"
    );
    assert!(
        !column.exists(),
        "the column's leaves removed once the count is done"
    );
}

/// A count given no `--order` goes on in the order its files were made in: a checkpoint and a
/// ledger written by a straight walk (as every run before the tuned orders wrote them, no
/// `order` in their headers) are read as straight and counted on, not cut again; asked for the
/// other order, the run is refused naming it. A new count is tuned, and its files say so.
#[test]
fn a_count_goes_on_in_the_order_its_checkpoint_ledger_or_split_was_made_in() {
    let dir = tempfile::tempdir().unwrap();
    let (ck, led) = (dir.path().join("s.ckpt"), dir.path().join("ledger"));
    let base = ["count", "5x8", "--engine", "frontier", "-j", "1"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(ToString::to_string).collect()
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    // a straight count with a checkpoint and a ledger, stopped after some of its pieces: the
    // pieces it lacks are those `--only` leaves out
    let straight = with(&[
        "--order",
        "straight",
        "--checkpoint",
        path_str(&ck),
        "--ledger",
        path_str(&led),
        "--only",
        "0,4,8",
    ]);
    let v = finish(&args(&straight));
    assert_eq!(v["complete"], false);
    let header = fs::read_to_string(&ck).unwrap();
    assert!(!header.contains("\norder "), "{header}");
    assert_eq!(records(&ck), 3);
    // the same command without --order finishes it: 6 pieces more, the straight walk's
    let resume = with(&["--checkpoint", path_str(&ck)]);
    let v = finish(&args(&resume));
    assert_eq!(
        (&v["directed"], &v["complete"]),
        (&Value::from(OPEN_5X8), &Value::from(true))
    );
    assert_eq!(records(&ck), 9);
    // the ledger alone (a new checkpoint): its 3 records are the straight walk's pieces, taken
    // as they are, and only the other 6 are counted (a tuned run would count all 9 anew)
    let fresh = dir.path().join("fresh.ckpt");
    let by_ledger = with(&["--ledger", path_str(&led), "--checkpoint", path_str(&fresh)]);
    let v = finish(&args(&by_ledger));
    assert_eq!(v["directed"], OPEN_5X8);
    assert_eq!(records(&fresh), 6);
    assert_eq!(ledger_files(&led).len(), 9);
    assert!(!fs::read_to_string(&fresh).unwrap().contains("\norder "));
    // asked for the tuned order, the straight checkpoint is refused, the order named
    let out = knights()
        .args(args(&with(&[
            "--order",
            "tuned",
            "--checkpoint",
            path_str(&ck),
        ])))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("order") && err.contains("straight"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // a new count walks tuned, and its checkpoint says so
    let tuned = dir.path().join("tuned.ckpt");
    let v = finish(&args(&with(&["--checkpoint", path_str(&tuned)])));
    assert_eq!(v["directed"], OPEN_5X8);
    assert!(
        fs::read_to_string(&tuned)
            .unwrap()
            .contains("\norder tuned\n")
    );
    // shared tables saved by a straight walk (--split) are taken by a count given no order, in
    // their order, and refused by one that asks for the other, the order named
    let split = dir.path().join("s.split");
    let make = with(&[
        "--order",
        "straight",
        "--split",
        path_str(&split),
        "--only",
        "0",
    ]);
    finish(&args(&make));
    let v = finish(&args(&with(&["--split", path_str(&split), "--only", "1"])));
    assert_eq!(v["complete"], false, "{v}");
    let out = knights()
        .args(args(&with(&[
            "--order",
            "tuned",
            "--split",
            path_str(&split),
            "--only",
            "1",
        ])))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("order") && err.contains("straight"), "{err}");
}
