//! Nothing lost, nothing left, nothing untrue (issue 65): counts that share a folder from other
//! PID namespaces keep to their own files, files of killed runs are removed by the next run,
//! a ledger repairs from its checkpoint, every exit removes the process's own files, and the
//! messages of a failing disk say what was kept.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

/// Directed open tours of 6x8 (OEIS A165134's table).
const OPEN_6X8: u64 = 49_929_787_608;
/// Closed tours of 6x8 (A175881).
const CLOSED_6X8: u64 = 55_488_142;

/// A limit past which a wait is taken for a hang (a machine loaded many times over), not a
/// measure of speed.
const HANG: Duration = Duration::from_secs(600);

fn knights() -> Command {
    Command::cargo_bin("knights").unwrap()
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("knights")
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The files in `dir`, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A command that runs what follows it in a PID namespace of its own, with its own `/proc`
/// (as a container does): `unshare --pid --fork --mount-proc` as root, with a user namespace
/// where this user may make one.
fn in_namespace() -> Vec<&'static str> {
    let tries: [&[&str]; 2] = [
        &["--pid", "--fork", "--mount-proc"],
        &[
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
        ],
    ];
    for t in tries {
        let ok = Command::new("unshare")
            .args(t)
            .arg("true")
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return std::iter::once("unshare")
                .chain(t.iter().copied())
                .collect();
        }
    }
    panic!(
        "this test runs counts in PID namespaces of their own: it needs unshare (util-linux) and root, or user namespaces"
    );
}

/// `unshare` with the options that give what follows a mount namespace of its own (as root,
/// or in a user namespace where this user may make one), so that it may mount a small file
/// system of its own: a disk that fills.
fn mount_namespace() -> Vec<&'static str> {
    let tries: [&[&str]; 2] = [&["--mount"], &["--user", "--map-root-user", "--mount"]];
    for t in tries {
        let ok = Command::new("unshare")
            .args(t)
            .args(["sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"])
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return std::iter::once("unshare")
                .chain(t.iter().copied())
                .collect();
        }
    }
    panic!(
        "this test mounts a small file system in a mount namespace of its own: it needs unshare (util-linux) and root, or user namespaces"
    );
}

/// Two counts through disk that share a scratch folder, each in a PID namespace of its own
/// (both are process 1 there, and neither sees the other's process): each counts its exact
/// total, and the folder is empty after. Before run identities, both wrote
/// `.knights-spill.1.N.*` and each removed or read the other's files.
#[test]
fn counts_in_their_own_pid_namespaces_share_a_scratch_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let ns = in_namespace();
    let bin = bin();
    let spawn = |board: &str| -> Child {
        Command::new(ns[0])
            .args(&ns[1..])
            .arg(&bin)
            .args([
                "count",
                board,
                "--max-memory",
                "32M",
                "--threads",
                "1",
                "--json",
                "--scratch",
                path_str(scratch.path()),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("6x8"), spawn("6x8"));
    for child in [a, b] {
        let v = json_of(&child.wait_with_output().unwrap());
        assert_eq!(v["directed"], OPEN_6X8, "{v}");
        assert!(v["disk_written_bytes"].as_u64().unwrap() > 0, "{v}");
    }
    assert_eq!(names(scratch.path()), Vec::<String>::new());
}

/// Whether process `pid` has ended and waits to be reaped (a zombie: its `/proc` entry is
/// still there).
fn zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// A count through disk that kills itself (SIGKILL at its 40th file) and is not yet reaped, so
/// its process id is still in the process table: the run that resumes it removes its files all
/// the same (a lock the system released at its death says it has ended, where a process id
/// alive in the table said it had not) and counts the exact total; the folder is empty after.
#[test]
fn files_of_a_killed_count_not_yet_reaped_are_removed_by_the_resume() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("scratch");
    fs::create_dir(&scratch).unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "6x8",
        "--threads",
        "1",
        "--max-memory",
        "32M",
        "--scratch",
        path_str(&scratch),
        "--checkpoint",
        path_str(&ck),
    ];
    let mut child = knights()
        .args(args)
        .env(knights::failpoint::ENV, "spill=40*off->return")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !zombie(child.id()) {
        assert!(t0.elapsed() < HANG, "the count did not kill itself");
        std::thread::sleep(Duration::from_millis(5));
    }
    let left = names(&scratch);
    assert!(
        left.iter().any(|n| n.starts_with(".knights-spill.")),
        "the killed count left no file: {left:?}"
    );
    let out = knights().args(args).arg("--json").output().unwrap();
    assert_eq!(json_of(&out)["directed"], OPEN_6X8);
    assert_eq!(names(&scratch), Vec::<String>::new());
    // reaped only now: the resume ran while its process id was in the table
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(child.wait().unwrap().signal(), Some(9));
}

/// A ledger record deleted (as the message for a damaged one advises) is written again by the
/// count's command with its checkpoint, which holds the piece: the ledger merges to the total.
#[test]
fn a_missing_ledger_record_is_written_again_from_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "6x8",
        "--closed",
        "--ledger",
        path_str(&ledger),
        "--checkpoint",
        path_str(&ck),
        "--json",
    ];
    let first = json_of(&knights().args(args).output().unwrap());
    assert_eq!(first["undirected"], CLOSED_6X8);
    let pieces = first["pieces"].as_u64().unwrap() as usize;
    assert!(pieces > 3, "{first}");
    let gone = ledger.join("piece-00003.log");
    fs::remove_file(&gone).unwrap();
    // (without --json, so that the notes are printed)
    let out = knights().args(&args[..7]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(gone.exists(), "the record is not written again: {err}");
    assert!(
        err.contains("1 piece the checkpoint holds and the ledger lacked written to it (3)"),
        "{err}"
    );
    let records: Vec<String> = names(&ledger)
        .into_iter()
        .map(|n| path_str(&ledger.join(n)).to_string())
        .collect();
    assert_eq!(records.len(), pieces);
    let merged = json_of(
        &knights()
            .arg("merge")
            .args(&records)
            .arg("--json")
            .output()
            .unwrap(),
    );
    assert_eq!(merged["undirected"], CLOSED_6X8, "{merged}");
}

/// Reads `child`'s standard error on a thread of its own, line by line, into the returned
/// buffer.
fn collect_stderr(child: &mut Child) -> std::sync::Arc<std::sync::Mutex<String>> {
    use std::io::BufRead;
    let buf = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let err = child.stderr.take().unwrap();
    let into = std::sync::Arc::clone(&buf);
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let mut b = into.lock().unwrap();
            b.push_str(&line);
            b.push('\n');
        }
    });
    buf
}

/// Waits until `buf` holds `text` (or the child ends, or a hang).
fn wait_for_text(child: &mut Child, buf: &std::sync::Mutex<String>, text: &str) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < HANG {
        if buf.lock().unwrap().contains(text) {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            // the reader thread has the last lines once the pipe closes
            std::thread::sleep(Duration::from_millis(200));
            return buf.lock().unwrap().contains(text);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

fn sigterm(child: &Child) {
    // SAFETY: a signal to a child process of this test, by its id
    let r = unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(r, 0);
}

/// A count stopped by SIGTERM says it is saving its work in progress; a second SIGTERM during
/// that save (held by the fail points `stepped` and `stopping`) gives it up: the count ends at once with
/// the interrupted code, says the work in progress was not saved and what it kept, removes its
/// files (the tables in the scratch folder, the temporary save, the checkpoint's lock), and the
/// last save it kept resumes to the exact count.
#[test]
fn a_second_stop_signal_gives_up_the_save_and_leaves_no_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("scratch");
    fs::create_dir(&scratch).unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "6x8",
        "--from",
        "a1",
        "--engine",
        "frontier",
        "--threads",
        "1",
        "--max-memory",
        "64M",
        "--scratch",
        path_str(&scratch),
        "--checkpoint",
        path_str(&ck),
    ];
    // held (fail point `stepped`) after a layer the last save does not hold, past the 20th,
    // where the layers pass 4,096 states; stopped there, the count says it saves that layer and
    // is held again (`stopping`) until the second signal, which its save sees at once: no
    // moment of the test depends on how fast the machine is
    let held = dir.path().join("held");
    let mut child = knights()
        .args(args)
        .env(
            knights::failpoint::ENV,
            format!("stepped=20*off->return({});stopping=return", held.display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = collect_stderr(&mut child);
    let t0 = Instant::now();
    while !held.exists() {
        assert!(
            t0.elapsed() < HANG && child.try_wait().unwrap().is_none(),
            "the count ended before it was held: {}",
            err.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    sigterm(&child);
    assert!(
        wait_for_text(&mut child, &err, "stopping: saving the work in progress"),
        "{}",
        err.lock().unwrap()
    );
    sigterm(&child);
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{status:?}: {}",
        err.lock().unwrap()
    );
    assert_eq!(status.signal(), None);
    // (the reader thread has the last lines once the pipe closes)
    std::thread::sleep(Duration::from_millis(200));
    let said = err.lock().unwrap().clone();
    assert!(
        said.contains("interrupted twice, so the work in progress was not saved")
            && said.contains("the last save of the work in progress, at layer")
            && said.contains("resume with:"),
        "{said}"
    );
    assert_eq!(names(&scratch), Vec::<String>::new());
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n != "scratch" && n != "held")
        .collect();
    assert_eq!(left, vec!["run.ckpt", "run.ckpt.layers"], "{said}");
    let out = knights().args(args).arg("--json").output().unwrap();
    assert_eq!(json_of(&out)["directed"], 3_510_786_106u64);
}

/// A count whose scratch folder's disk fills (a file system of 2 and of 6 MiB, mounted for the
/// count alone): it stops with exit code 3 (the machine's failure, not a usage error), says the
/// disk is full, what the checkpoint keeps, `--scratch DIR` and the command that resumes, and
/// leaves nothing in the folder (before, the file of runs whose write failed stayed). Given a
/// folder with room, the same checkpoint resumes to the exact count.
#[test]
fn a_full_scratch_disk_stops_the_count_with_what_was_kept_and_no_file_left() {
    let ns = mount_namespace();
    let bin = bin();
    for size in ["2m", "6m"] {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("run.ckpt");
        let mnt = dir.path().join("small");
        fs::create_dir(&mnt).unwrap();
        let script = format!(
            "mount -t tmpfs -o size={size} tmpfs \"$1\" || exit 99; shift; \"$@\"; rc=$?; echo; echo left:; ls -A \"$MNT\"; exit $rc"
        );
        let out = Command::new(ns[0])
            .args(&ns[1..])
            .args(["sh", "-c", &script, "sh", path_str(&mnt)])
            .arg(&bin)
            .args([
                "count",
                "6x8",
                "--max-memory",
                "32M",
                "--threads",
                "1",
                "--force",
                "--scratch",
                path_str(&mnt),
                "--checkpoint",
                path_str(&ck),
            ])
            .env("MNT", &mnt)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(3), "{size}: {err}{stdout}");
        let line = err.lines().last().unwrap_or_default();
        for said in [
            "No space left on device",
            "what was counted is kept (the checkpoint '",
            "--scratch DIR",
            "then resume with: ",
        ] {
            assert!(line.contains(said), "{size}: '{said}' not in {line}");
        }
        let left = stdout.split("left:").nth(1).unwrap_or("?").trim();
        assert_eq!(left, "", "{size}: files left in the full folder");
        let v = json_of(
            &knights()
                .args(["count", "6x8", "--max-memory", "32M", "--threads", "1"])
                .args(["--checkpoint", path_str(&ck), "--json"])
                .output()
                .unwrap(),
        );
        assert_eq!(v["directed"], OPEN_6X8, "{size}: {v}");
    }
}

/// A path in a message is said whole, not cut mid-name (a cut path names no file): a
/// checkpoint in a folder that is not there, 150 characters deep.
#[test]
fn paths_in_messages_are_not_cut() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir
        .path()
        .join("a-folder-with-a-long-name-that-is-not-there".repeat(3))
        .join("run.ckpt");
    let out = knights()
        .args(["count", "6x6", "--checkpoint", path_str(&deep)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(path_str(&deep)), "{err}");
}

/// A scratch disk that fills while a count reads its saved layer back (a resume under a
/// smaller bound, its layer of millions of states put through the scratch folder) is the
/// disk's failure, not damage to the checkpoint: exit code 3, the checkpoint said to be kept
/// (never "delete it"), and the same checkpoint resumes to the exact count where there is room.
#[test]
fn a_scratch_disk_that_fills_while_a_saved_layer_is_read_back_is_not_a_damaged_checkpoint() {
    let ns = mount_namespace();
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let layers = dir.path().join("run.ckpt.layers");
    let sweep = |memory: &str| {
        [
            "count",
            "6x8",
            "--from",
            "a1",
            "--engine",
            "frontier",
            "--threads",
            "1",
            "--max-memory",
            memory,
            "--checkpoint",
            path_str(&ck),
        ]
        .map(str::to_string)
    };
    let mut child = knights()
        .args(sweep("1G"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // a save at layer 28 or later (millions of states), then a stop, which saves its layer
    let t0 = Instant::now();
    let saved_at = || {
        knights::frontier::snapshot::read_header(&layers)
            .ok()
            .flatten()
            .and_then(|h| h.layer())
            .map_or(0, |(a, _)| a)
    };
    while saved_at() < 28 {
        assert!(t0.elapsed() < HANG && child.try_wait().unwrap().is_none());
        std::thread::sleep(Duration::from_millis(2));
    }
    sigterm(&child);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let states: usize = knights::frontier::snapshot::read_header(&layers)
        .unwrap()
        .unwrap()
        .tables()
        .iter()
        .map(|t| t.1)
        .sum();
    // more than the tables of a 32M bound hold (16 bytes a state: the rest go through disk)
    assert!(states > 1_000_000, "{states} states saved");
    let mnt = dir.path().join("small");
    fs::create_dir(&mnt).unwrap();
    let mut resume = sweep("32M").to_vec();
    resume.extend(["--scratch".to_string(), path_str(&mnt).to_string()]);
    let out = Command::new(ns[0])
        .args(&ns[1..])
        .args([
            "sh",
            "-c",
            "mount -t tmpfs -o size=1m tmpfs \"$1\" || exit 99; shift; exec \"$@\"",
            "sh",
            path_str(&mnt),
        ])
        .arg(bin())
        .args(&resume)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("No space left on device") && err.contains("what was counted is kept"),
        "{err}"
    );
    assert!(!err.contains("damaged") && !err.contains("delete"), "{err}");
    let v = json_of(&knights().args(sweep("1G")).arg("--json").output().unwrap());
    assert_eq!(v["directed"], 3_510_786_106u64, "{v}");
}

/// A split (the shared tables beside the checkpoint) that holds another stage is refused
/// under its own name, not the name of the saved layers beside it.
#[test]
fn a_foreign_split_is_named_as_the_split() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("run.ckpt");
    let args = [
        "count",
        "6x8",
        "--max-memory",
        "32M",
        "--threads",
        "1",
        "--checkpoint",
        path_str(&ck),
    ];
    // killed in its forward walk, a layer saved and no split yet
    let out = knights()
        .args(args)
        .env(knights::failpoint::ENV, "spill=100*off->return")
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9));
    let (layers, split) = (
        dir.path().join("run.ckpt.layers"),
        dir.path().join("run.ckpt.split"),
    );
    assert!(layers.exists() && !split.exists());
    fs::copy(&layers, &split).unwrap();
    let out = knights().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("'{}' is damaged", split.display())),
        "{err}"
    );
}

/// A run of some pieces (`--only`) projects the walk they share and says it counts a part,
/// with the whole beside it, not the whole count as its own time; and once cut, the pieces
/// asked for are projected as such, not as "all".
#[test]
fn a_run_of_some_pieces_projects_its_part_not_the_whole() {
    let out = knights()
        // walked straight, whose whole count projects past the minute a part's note needs
        // (tuned, 7x8 open projects just under it)
        .args(["count", "7x8", "--only", "0", "--order", "straight"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("note: this run may take about ")
            && first.contains(": the walk every piece shares first (about ")
            && first.contains("then the 1 piece --only names")
            && first.contains("; the whole count, about "),
        "{err}"
    );
    assert!(
        err.contains("for the 1 to count (at the mean piece's share)"),
        "{err}"
    );
    // a shard of a count nothing has cut yet projects its share, not the whole as its own
    let out = knights()
        .args(["count", "7x8", "--shard", "0/4", "--order", "straight"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("note: this shard may take about ")
            && first.contains(": the walk every piece shares first (about ")
            && first.contains("then about 1/4 of the pieces")
            && first.contains("; the whole count, about "),
        "{err}"
    );
}

/// A count started with --force and no checkpoint, projected past an hour (the fail point
/// `projected-seconds` sets the projection), says at its start that nothing is kept if it
/// stops; without --force it is refused, saying the same.
#[test]
fn a_long_count_forced_without_a_checkpoint_says_nothing_is_kept() {
    let long = (knights::failpoint::ENV, "projected-seconds=return(7200)");
    let out = knights()
        .args(["count", "6x8", "--force"])
        .env(long.0, long.1)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with(
            "warning: started with --force and no --checkpoint: nothing of this count is kept if it stops (about 2.0 hours projected)"
        ),
        "{err}"
    );
    let out = knights()
        .args(["count", "6x8"])
        .env(long.0, long.1)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing would be kept if it stopped"), "{err}");
}

/// A board swept in one piece because its crossing is wider than the join takes (here 3x11
/// walked the short way: layers 11 wide, as 11x11's are; the join takes up to 10) is projected
/// from its narrow first columns, which is a lower bound, and said so ("at least").
#[test]
fn a_sweep_too_wide_to_meet_is_projected_as_a_lower_bound() {
    let dir = tempfile::tempdir().unwrap();
    let out = knights()
        .args(["count", "3x11", "--window", "wide", "--checkpoint"])
        .arg(dir.path().join("w.ckpt"))
        .env(knights::failpoint::ENV, "projected-seconds=return(7200)")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("this count may take at least 2.0 hours")
            && err.contains("which on a board this wide is a lower bound"),
        "{err}"
    );
}

/// `sample --leaves FILE` (and `--nodes DIR`) in a folder that cannot be written (a read-only
/// file system, which root cannot write either) is refused before the count, with exit code 2,
/// not after the whole count with no tours.
#[test]
fn a_leaves_file_or_nodes_folder_that_cannot_be_written_is_refused_before_the_count() {
    let ns = mount_namespace();
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    fs::create_dir(&ro).unwrap();
    for (flag, path) in [
        ("--leaves", ro.join("x.leaves")),
        ("--nodes", ro.join("nodes")),
    ] {
        let out = Command::new(ns[0])
            .args(&ns[1..])
            .args([
                "sh",
                "-c",
                "mount -t tmpfs -o ro,size=1m tmpfs \"$1\" || exit 99; shift; exec \"$@\"",
                "sh",
                path_str(&ro),
            ])
            .arg(bin())
            .args([
                "sample", "6x8", "--closed", "--tables", "meet", "-n", "1", flag,
            ])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains("nothing was counted") && err.contains("Read-only file system"),
            "{flag}: {err}"
        );
        assert!(
            !err.contains("the count met in the middle"),
            "{flag}: {err}"
        );
    }
}

/// `sample --tables` that the method would override or ignore is refused, naming both; the
/// tours of `--method auto` are the same on 1 and 2 threads (its choice of tables does not
/// depend on -j); and `sample --scratch DIR` puts the tables that pass the bound there, the same
/// tours, the folder empty after.
#[test]
fn sample_options_are_never_overridden_in_silence() {
    for (method, tables) in [
        ("frontier", "search"),
        ("frontier", "meet"),
        ("chain", "layers"),
    ] {
        let out = knights()
            .args([
                "sample", "5x6", "--method", method, "--tables", tables, "-n", "1",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{method} {tables}: {err}");
        assert!(
            err.contains(&format!("--method {method}"))
                && err.contains(&format!("--tables {tables}")),
            "{err}"
        );
    }
    let tours = |extra: &[&str]| {
        let out = knights()
            .args([
                "sample", "6x8", "--closed", "-n", "3", "--seed", "4", "--format", "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let two = tours(&["-j", "2"]);
    assert_eq!(tours(&["-j", "1"]), two);
    // the nodes above a leaf sent to disk (the fail point `sample-path-disk`): in --scratch,
    // the same tours, the folder empty after
    let scratch = tempfile::tempdir().unwrap();
    let args = [
        "sample", "6x8", "--closed", "-n", "3", "--seed", "4", "--format", "json", "--method",
        "exact", "--tables", "meet",
    ];
    let run = |extra: &[&str], env: Option<&str>| {
        let mut c = knights();
        c.args(args).args(extra);
        if let Some(e) = env {
            c.env(knights::failpoint::ENV, e);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&[], None);
    let dir = path_str(scratch.path());
    let on_disk = run(&["--scratch", dir], Some("sample-path-disk=return"));
    assert_eq!(on_disk, plain);
    assert_eq!(names(scratch.path()), Vec::<String>::new());
}

/// A disk that fills under the exact sampler's layers (its nodes sent to the scratch folder by
/// the fail point `sample-path-disk`, the folder a file system of 256 KiB) is the machine's
/// failure: exit code 3 and the file named, not "out of reach".
#[test]
fn a_full_disk_under_the_sampler_is_a_failure_of_the_machine() {
    let ns = mount_namespace();
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    fs::create_dir(&mnt).unwrap();
    let out = Command::new(ns[0])
        .args(&ns[1..])
        .args([
            "sh",
            "-c",
            "mount -t tmpfs -o size=32k tmpfs \"$1\" || exit 99; shift; \"$@\"; rc=$?; ls -A \"$MNT\"; exit $rc",
            "sh",
            path_str(&mnt),
        ])
        .arg(bin())
        .args(["sample", "6x8", "--closed", "--tables", "meet", "-n", "2", "--format", "none"])
        .arg("--scratch")
        .arg(&mnt)
        .env("MNT", &mnt)
        .env(knights::failpoint::ENV, "sample-path-disk=return")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("No space left on device") && err.contains(".knights-sample."),
        "{err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "",
        "files left"
    );
}

/// The fail points are compiled in only by the feature `failpoints`, which the tests' build
/// turns on: a release build (`cargo build --release`, `cargo install`) has none, and refuses
/// `KNIGHTS_FAILPOINTS` (before, `KNIGHTS_FAILPOINTS=spill=return` made any count of a release
/// build kill itself).
#[test]
fn fail_points_are_the_tests_alone() {
    const {
        assert!(
            knights::failpoint::COMPILED,
            "the tests' build has its fail points"
        )
    };
    let manifest =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let section = |name: &str| -> Vec<String> {
        manifest
            .lines()
            .skip_while(|l| l.trim() != name)
            .skip(1)
            .take_while(|l| !l.starts_with('['))
            .map(str::to_string)
            .collect()
    };
    let fail: Vec<String> = section("[dependencies]")
        .into_iter()
        .filter(|l| l.starts_with("fail "))
        .collect();
    assert_eq!(fail, vec!["fail = \"0.5\"".to_string()], "{manifest}");
    assert!(
        section("[features]").contains(&"failpoints = [\"fail/failpoints\"]".to_string()),
        "{manifest}"
    );
}

/// Runs `knights ARGS` to its end and returns its exit code, the most memory it was resident
/// in, in bytes, as `/usr/bin/time` measures it (a process of its own forks it: a child forked
/// from this test's process would count its pages too), and what it wrote to stderr.
fn peak_resident(args: &[&str]) -> (i32, u64, String) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("time");
    let out = Command::new("/usr/bin/time")
        .args([
            "-f",
            "%M",
            "-o",
            path_str(&report),
            env!("CARGO_BIN_EXE_knights"),
        ])
        .args(args)
        .stdout(Stdio::null())
        .output()
        .expect("GNU time at /usr/bin/time (.ci/run installs it)");
    let kib: u64 = fs::read_to_string(&report)
        .unwrap()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("a resident size in KiB");
    (
        out.status.code().unwrap_or(-1),
        kib << 10,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The bound a refusal of `args` with `--max-memory 1M` names as the smallest it takes.
fn floor_named(args: &[&str]) -> String {
    let (code, _, err) = peak_resident(&[args, &["--max-memory", "1M"]].concat());
    assert_eq!(code, 2, "{err}");
    err.split("the smallest bound it takes is --max-memory ")
        .nth(1)
        .and_then(|r| r.split([' ', ',', ';', ')', '\n']).next())
        .unwrap_or_else(|| panic!("no bound named: {err}"))
        .to_string()
}

fn bytes_of(size: &str) -> u64 {
    let (n, unit) = size.split_at(size.len() - 1);
    n.parse::<u64>().unwrap() << if unit == "G" { 30 } else { 20 }
}

/// A count whose layers go to disk while the root of its left half waits in memory keeps to
/// its bound on two threads: before, `count 6x10 --max-memory 64M` held the root (9.9 MiB)
/// uncounted beside its walk and a chunk's buffer of twice its size, and was resident in 88 to
/// 91 MiB (62 after).
#[test]
fn a_count_holding_a_root_beside_layers_on_disk_keeps_to_its_bound() {
    let args = ["count", "6x10", "--threads", "2", "--max-memory", "64M"];
    let (code, peak, err) = peak_resident(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        peak <= bytes_of("64M"),
        "6x10 on 2 threads under 64M: {} KiB resident",
        peak >> 10
    );
}

/// The memory bound is the whole process's, as a user measures it: a count, and the exact
/// sampler met in the middle, under the smallest bound their refusal names (on 1, 2 and 4
/// threads: each thread holds its own beside the tables) stay resident within it. Before,
/// `count 5x12 --max-memory 32M` on two threads peaked at 35 MiB and `sample 5x12 -n 20
/// --max-memory 32M` at 45.
#[test]
fn counts_and_samples_keep_to_the_bound_their_refusal_names() {
    for threads in ["1", "2", "4"] {
        // a window of 12 squares (the floor of windows up to 14) and of 16 (7 wide)
        for board in [&["5x12"][..], &["7x8", "--closed"]] {
            let args = [&["count"], board, &["--threads", threads]].concat();
            let board = board.join(" ");
            let floor = floor_named(&args);
            let (code, peak, err) = peak_resident(&[&args[..], &["--max-memory", &floor]].concat());
            assert_eq!(code, 0, "{board} on {threads} under {floor}: {err}");
            assert!(
                peak <= bytes_of(&floor),
                "{board} on {threads} threads under {floor}: {} KiB resident",
                peak >> 10
            );
        }
    }
    // the sampler's floor (for two threads, whatever -j says: which runs are refused does not
    // depend on it): on four threads it draws on the two the bound holds, and says so
    let args = [
        "sample", "5x12", "-n", "20", "--method", "exact", "--tables", "meet",
    ];
    let floor = floor_named(&[&args[..], &["-j", "4"]].concat());
    for threads in ["1", "4"] {
        let args = [&args[..], &["-j", threads, "--format", "none"]].concat();
        let (code, peak, err) = peak_resident(&[&args[..], &["--max-memory", &floor]].concat());
        assert_eq!(code, 0, "sample on {threads} under {floor}: {err}");
        assert!(
            peak <= bytes_of(&floor),
            "sample 5x12 on {threads} threads under {floor}: {} KiB resident",
            peak >> 10
        );
        assert_eq!(
            err.contains("holds 2 of the 4 threads"),
            threads == "4",
            "{threads}: {err}"
        );
    }
}
