//! What the program says when something is wrong or left undone: the damaged file and the piece
//! named, the kind of file named as it is, what differs between two runs said in words, and
//! advice that works (issue 52).

use std::fs;
use std::path::{Path, PathBuf};

use super::cli::knights;

/// `manpage --dir` writes a page for each subcommand, and none for clap's `help` subcommand
/// (it wrote one `knights-help-*.1` for every subcommand, each only pointing at another page).
#[test]
fn manpage_dir_writes_no_help_pages() {
    let dir = tempfile::tempdir().unwrap();
    knights()
        .args(["manpage", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for page in ["knights.1", "knights-count.1", "knights-status.1"] {
        assert!(names.iter().any(|n| n == page), "no {page}: {names:?}");
    }
    assert!(
        !names.iter().any(|n| n.contains("help")),
        "help pages written: {names:?}"
    );
    // and the main page lists no help page among the subcommands
    let main = fs::read_to_string(dir.path().join("knights.1")).unwrap();
    assert!(!main.contains("knights\\-help"), "{main}");
}

/// A ledger of 5x8 open tours by the frontier engine on one thread (9 pieces, a quarter of a
/// second) in `dir`, with `extra` options; its records, sorted.
fn ledger_5x8(dir: &Path, extra: &[&str]) -> Vec<PathBuf> {
    knights()
        .args([
            "count",
            "5x8",
            "--engine",
            "frontier",
            "--threads",
            "1",
            "-q",
        ])
        .arg("--ledger")
        .arg(dir)
        .args(extra)
        .assert()
        .success();
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// Runs `knights ARGS`, expecting exit `code`: (stdout, stderr).
fn exits(args: &[&std::ffi::OsStr], code: i32) -> (String, String) {
    let out = knights().args(args).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: stdout {stdout}, stderr {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    (stdout, stderr)
}

/// `knights ARGS` as the arguments [`exits`] takes.
fn args<'a>(a: &'a [&'a dyn AsRef<std::ffi::OsStr>]) -> Vec<&'a std::ffi::OsStr> {
    a.iter().map(|x| x.as_ref()).collect()
}

/// One changed digit in a ledger record's count breaks its checksum: `status DIR` names the
/// file and its piece and exits 2 (it said "1 piece left" with exit 0), in text and in JSON.
#[test]
fn status_names_a_damaged_ledger_record_and_its_piece() {
    let dir = tempfile::tempdir().unwrap();
    let led = dir.path().join("ledger");
    let files = ledger_5x8(&led, &[]);
    let seventh = &files[7];
    assert!(seventh.ends_with("piece-00007.log"), "{seventh:?}");
    let text = fs::read_to_string(seventh).unwrap();
    let record = text.lines().last().unwrap();
    let count = record.split(' ').nth(1).unwrap();
    let last = count.chars().last().unwrap();
    let changed = format!(
        "{}{}",
        &count[..count.len() - 1],
        if last == '1' { '2' } else { '1' }
    );
    fs::write(
        seventh,
        text.replace(&format!("7 {count} "), &format!("7 {changed} ")),
    )
    .unwrap();
    let (out, _) = exits(&args(&[&"status", &led]), 2);
    let damaged: Vec<&str> = out.lines().filter(|l| l.starts_with("damaged:")).collect();
    assert_eq!(damaged.len(), 1, "{out}");
    assert!(
        damaged[0].contains("piece-00007.log") && damaged[0].contains("piece 7"),
        "{out}"
    );
    let (json, _) = exits(&args(&[&"status", &led, &"--json"]), 2);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let d = &v["ledger"]["damaged_records"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(d[0]["piece"], 7);
    assert!(d[0]["file"].as_str().unwrap().ends_with("piece-00007.log"));
    // the same count with --ledger counts the piece again, and the ledger is whole
    ledger_5x8(&led, &[]);
    exits(&args(&[&"status", &led]), 0);
}

/// An empty file and a file of text in a ledger folder: named as not a ledger record (they
/// were named "not 'knights-checkpoint 1'", the first line of the other kind), each by its
/// path, by `status DIR`; `merge`, which may be given either kind, names both.
#[test]
fn a_stray_file_in_a_ledger_is_named_as_not_a_ledger_record() {
    let dir = tempfile::tempdir().unwrap();
    let led = dir.path().join("ledger");
    let files = ledger_5x8(&led, &[]);
    for (name, bytes) in [("piece-00009.log", &b""[..]), ("notes.log", b"to do\n")] {
        let stray = led.join(name);
        fs::write(&stray, bytes).unwrap();
        let (_, err) = exits(&args(&[&"status", &led]), 2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(name)
                && err.contains("is not a ledger record")
                && err.contains("'knights-ledger 1'")
                && !err.contains("knights-checkpoint"),
            "{err}"
        );
        let mut merge: Vec<&std::ffi::OsStr> = vec!["merge".as_ref()];
        merge.extend(files.iter().map(|f| f.as_os_str()));
        merge.push(stray.as_os_str());
        let (_, err) = exits(&merge, 2);
        assert!(
            err.contains(name)
                && err.contains("'knights-checkpoint 1'")
                && err.contains("'knights-ledger 1'"),
            "{err}"
        );
        fs::remove_file(&stray).unwrap();
    }
}

/// Two records of one piece that disagree: both files are named, by `status DIR`, by `merge`
/// and by the count that reads the ledger (each named only the second file it read).
#[test]
fn two_records_that_disagree_are_both_named() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let files = ledger_5x8(&a, &[]);
    // a copy of piece 4's record that gives another count, its line's checksum made for it:
    // a record that checks, and one of the two is wrong
    let text = fs::read_to_string(&files[4]).unwrap();
    let record = text.lines().last().unwrap();
    let count: u64 = record.split(' ').nth(1).unwrap().parse().unwrap();
    let forged = forge(&text, count + 1);
    let copy = a.join("piece-00004-copy.log");
    fs::write(&copy, forged).unwrap();
    for run in [args(&[&"status", &a]), {
        let mut m: Vec<&std::ffi::OsStr> = vec!["merge".as_ref()];
        m.extend(files.iter().map(|f| f.as_os_str()));
        m.push(copy.as_os_str());
        m
    }] {
        let (_, err) = exits(&run, 2);
        assert!(
            err.contains("piece-00004.log")
                && err.contains("piece-00004-copy.log")
                && err.contains("piece 4"),
            "{err}"
        );
    }
    let out = knights()
        .args(["count", "5x8", "--engine", "frontier", "-q", "--ledger"])
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("piece-00004.log") && err.contains("piece-00004-copy.log"),
        "{err}"
    );
}

/// A ledger record with its record line's count set to `count`, and the line's checksum made
/// for it (CRC32 of the line's fields, continued from the header's).
fn forge(record: &str, count: u64) -> String {
    let lines: Vec<&str> = record.lines().collect();
    let header_crc = u32::from_str_radix(
        lines.iter().find_map(|l| l.strip_prefix("crc ")).unwrap(),
        16,
    )
    .unwrap();
    let last = lines.last().unwrap();
    let fields: Vec<&str> = last.split(' ').collect();
    let mut body: Vec<String> = fields[..fields.len() - 1]
        .iter()
        .map(ToString::to_string)
        .collect();
    body[1] = count.to_string();
    let body = body.join(" ");
    let mut h = crc32fast::Hasher::new_with_initial(header_crc);
    h.update(body.as_bytes());
    let mut out: Vec<String> = lines[..lines.len() - 1]
        .iter()
        .map(ToString::to_string)
        .collect();
    out.push(format!("{body} {:08x}", h.finalize()));
    out.join("\n") + "\n"
}

/// A shard of a run cut for another number of shards, or a record of another board: what
/// differs is said in words ("number of shards", "board"), not as an opaque fingerprint.
#[test]
fn another_run_is_named_by_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let ck = |name: &str| dir.path().join(name);
    for (shard, file) in [("0/2", "two.ckpt"), ("0/4", "four.ckpt")] {
        knights()
            .args([
                "count", "5x8", "--engine", "frontier", "-q", "--shard", shard,
            ])
            .arg("--checkpoint")
            .arg(ck(file))
            .assert()
            .success();
    }
    let (out, _) = exits(&args(&[&"merge", &ck("two.ckpt"), &ck("four.ckpt")]), 1);
    let line = out.lines().find(|l| l.contains("four.ckpt")).unwrap();
    assert!(
        line.contains("number of shards is 4") && !line.contains("fingerprint"),
        "{out}"
    );
    // a ledger of 4 shards given to a count of 2: its record of piece 0 is another run's
    let led = ck("ledger");
    knights()
        .args([
            "count", "5x8", "--engine", "frontier", "-q", "--shard", "0/4",
        ])
        .arg("--ledger")
        .arg(&led)
        .assert()
        .success();
    let out = knights()
        .args([
            "count", "5x8", "--engine", "frontier", "-q", "--shard", "0/2",
        ])
        .arg("--ledger")
        .arg(&led)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ledger record")
            && err.contains("piece-00000.log")
            && err.contains("number of shards is 4, this run's is 2")
            && !err.contains("fingerprint"),
        "{err}"
    );
    // a record of another board
    let other = ck("other");
    knights()
        .args(["count", "5x6", "--engine", "frontier", "-q", "--ledger"])
        .arg(&other)
        .assert()
        .success();
    let (out, _) = exits(
        &args(&[&"merge", &ck("two.ckpt"), &other.join("piece-00000.log")]),
        1,
    );
    assert!(out.contains("its board is 5x6"), "{out}");
}

/// A walk recorded: the board, whether its tours are closed, and the layer sizes the up-front
/// projection reads, `(squares walked, states)`.
type Walked = (knights::Board, bool, Vec<(usize, u64)>);

/// The walks of `tests/data/reach-sizes.tsv`.
fn recorded_walks() -> Vec<Walked> {
    include_str!("../data/reach-sizes.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("board\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let sizes = f[2]
                .split(' ')
                .map(|p| {
                    let (s, n) = p.split_once(':').unwrap();
                    (s.parse().unwrap(), n.parse().unwrap())
                })
                .collect();
            (f[0].parse().unwrap(), f[1] == "closed", sizes)
        })
        .collect()
}

/// The knight's symmetric count of `closed` tours.
fn tours(closed: bool) -> knights::count::CountSpec {
    knights::count::CountSpec {
        closed,
        symmetry: true,
        ..knights::count::CountSpec::default()
    }
}

/// The up-front projection from recorded sizes as the machine the counts were measured on makes
/// it: two threads (its time), the bound 16 GiB (its memory).
fn projected(
    board: knights::Board,
    closed: bool,
    sizes: &[(usize, u64)],
) -> knights::frontier::Reach {
    let knight = knights::Piece::knight();
    knights::frontier::reach_from(board, &knight, &tours(closed), sizes, 2, 16 << 30).unwrap()
}

/// The projections a count prints up front never shrink as the board grows longer (issue 52:
/// 8x11 closed was projected at 3.9 hours, 8x12 at 2.9, 8x13 at 4.8, and 5x15 open at 1.0 s
/// after 5x13 at 1.3 s): for the knight's open and closed tours on every width 3 to 8, a board a
/// column longer is projected at no less time, memory or states, from the layer sizes its walk
/// gives (`tests/data/reach-sizes.tsv`). Open tours on boards of odd width are two walks, on
/// boards of odd and of even length (the colour rule: the ends of a tour on a board of odd
/// squares lie on its majority colour), so there a board two columns longer is compared; across
/// them the counts' own times alternate (5x14 open took 0.94 s, 5x15 0.66 s).
#[test]
fn projections_grow_with_the_length() {
    let walks = recorded_walks();
    let mut compared = 0;
    for (board, closed, sizes) in &walks {
        let (w, len) = (board.rows.min(board.cols), board.rows.max(board.cols));
        let step = if !closed && w % 2 == 1 { 2 } else { 1 };
        let Some((shorter, _, shorter_sizes)) = walks.iter().find(|(b, c, _)| {
            c == closed && b.rows.min(b.cols) == w && b.rows.max(b.cols) + step == len
        }) else {
            continue;
        };
        let (a, b) = (
            projected(*shorter, *closed, shorter_sizes),
            projected(*board, *closed, sizes),
        );
        let say = format!("{shorter} then {board} closed={closed}: {a:?} then {b:?}");
        assert!(b.seconds >= a.seconds, "{say}");
        assert!(b.bytes >= a.bytes, "{say}");
        assert!(b.states >= a.states, "{say}");
        compared += 1;
    }
    // every width 3 to 8, open and closed, from its square board to 16 long
    assert!(compared >= 120, "{compared}");
}

/// The up-front projection of every count of `results/estimates.md` past 0.1 s is within 2
/// times of the wall time it took (`tests/data/estimates-wall.tsv`), on the two threads it took
/// them on: from the layer sizes its walk gives, at the calibrated cost of a read (a constant,
/// so that the figure is the same on a machine of any speed). Those counts are the ones the
/// constants were fitted to: see the next test for counts held out of the fit.
#[test]
fn projections_are_within_twice_the_times_taken() {
    within(include_str!("../data/estimates-wall.tsv"), 19, 2.0);
}

/// [`projections_are_within_twice_the_times_taken`] on counts no constant of the projection
/// was fitted to (`tests/data/estimates-held-out.tsv`, measured apart from the fit), within 4
/// times: held out, the model over-projects the long boards 6 wide, closed, 2.3 to 3.5 times
/// (the counts of its fit are within 2).
#[test]
fn projections_are_within_four_times_the_times_of_counts_held_out_of_the_fit() {
    within(include_str!("../data/estimates-held-out.tsv"), 12, 4.0);
}

/// The projections of the counts of `table` (board, kind, wall seconds on 2 cores) within
/// `times` times of their walls either way; `at_least` rows.
fn within(table: &str, at_least: usize, times: f64) {
    let walks = recorded_walks();
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("board\t"))
        .collect();
    assert!(rows.len() >= at_least, "{rows:?}");
    let mut off = Vec::new();
    for row in rows {
        let f: Vec<&str> = row.split('\t').collect();
        let (board, closed): (knights::Board, bool) = (f[0].parse().unwrap(), f[1] == "closed");
        let wall: f64 = f[2].parse().unwrap();
        // 7x6 walks as 6x7 does: the walk goes along the long side
        let (_, _, sizes) = walks
            .iter()
            .find(|(b, c, _)| {
                *c == closed
                    && (b.rows.min(b.cols), b.rows.max(b.cols))
                        == (board.rows.min(board.cols), board.rows.max(board.cols))
            })
            .unwrap_or_else(|| panic!("no walk of {board} recorded"));
        // the pieces and the walk they share: the count's whole time
        let r = projected(board, closed, sizes);
        let up = r.seconds + r.shared_seconds;
        if !(up <= times * wall && up >= wall / times) {
            off.push(format!(
                "{board} closed={closed}: projected {up:.2} s, took {wall} s"
            ));
        }
    }
    assert!(off.is_empty(), "{off:#?}");
}

/// The recorded layer sizes (`tests/data/reach-sizes.tsv`) are those the walk gives today (each
/// probe walks to 2,000,000 states or its forward walk's end: minutes in all).
#[test]
#[ignore = "slow: minutes; run with --ignored"]
fn the_recorded_walks_are_the_walks_of_today() {
    let knight = knights::Piece::knight();
    for (board, closed, sizes) in recorded_walks() {
        let now = knights::frontier::reach_sizes(board, &knight, &tours(closed)).unwrap();
        assert_eq!(now, sizes, "{board} closed={closed}");
    }
}

/// What a count prints up front grows with the length on the walk itself (not recorded
/// sizes): 8x9 to 8x13 closed, the boards of issue 52, on this machine's threads and bound.
#[test]
fn projections_grow_with_the_length_as_walked() {
    projections_grow(&[(8, 9..=13, true)]);
}

/// [`projections_grow_with_the_length_as_walked`] on boards 6 wide, open and closed (each probe
/// walks to its forward walk's end or 2,000,000 states: a minute in all).
#[test]
#[ignore = "slow: a minute; run with --ignored"]
fn projections_grow_with_the_length_six_wide() {
    projections_grow(&[(6, 6..=16, false), (6, 6..=16, true)]);
}

fn projections_grow(boards: &[(u32, std::ops::RangeInclusive<u32>, bool)]) {
    let knight = knights::Piece::knight();
    for (w, lengths, closed) in boards.iter().cloned() {
        let reach: Vec<(u32, knights::frontier::Reach)> = lengths
            .map(|len| {
                let board = knights::Board::new(w, len).unwrap();
                let r = knights::frontier::reach(board, &knight, &tours(closed)).unwrap();
                (len, r)
            })
            .collect();
        for pair in reach.windows(2) {
            let ((_, a), (len, b)) = (pair[0], pair[1]);
            let say = format!("{w}x{len} closed={closed}: {reach:?}");
            assert!(b.seconds >= a.seconds && b.bytes >= a.bytes, "{say}");
        }
    }
}

/// A fail point setting that cannot be read is refused in one line naming it, exit 2, before
/// any command runs.
#[test]
fn a_bad_failpoint_setting_is_refused_in_one_line() {
    for (value, named) in [("bad", "'bad'"), ("saved=zz(1)", "'saved=zz(1)'")] {
        let out = knights()
            .args(["count", "5x5"])
            .env(knights::failpoint::ENV, value)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(knights::failpoint::ENV) && err.contains(named),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}
