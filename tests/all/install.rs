//! What a tool that installs like its peers has: `--help` for every subcommand, `--version` with
//! the commit, shell completions and a manual page from the same definitions, colour only when
//! asked or on a terminal, and `knights bench` end to end (one item, JSON, the chart).

use super::cli::{knights, usage_error};
use knights::cli::definition;
use serde_json::Value;

fn ok(args: &[&str]) -> String {
    let out = knights()
        .args(args)
        .env_remove("NO_COLOR")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// The subcommands, from the definition itself (so a new one is covered without editing here).
fn subcommands() -> Vec<String> {
    definition()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

/// Each subcommand's help opens with the line `knights --help` lists it with (a subcommand's
/// arguments are built when it runs, and a flattened group's doc comment once took the place
/// of its description there).
#[test]
fn each_subcommand_s_help_opens_with_its_description() {
    let top = ok(&["--help"]);
    for sub in subcommands() {
        let help = ok(&[&sub, "--help"]);
        let first = help.lines().next().unwrap();
        let listed = top
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(sub.as_str()))
            .map(str::trim)
            .unwrap_or_default();
        assert!(
            !first.is_empty() && first == listed,
            "{sub}: {first:?} vs {listed:?}"
        );
    }
}

#[test]
fn every_subcommand_has_help() {
    let subs = subcommands();
    assert!(subs.len() >= 10, "{subs:?}");
    for sub in &subs {
        let help = ok(&[sub, "--help"]);
        assert!(help.contains("Usage: knights"), "{sub}: {help}");
        // the help names every option the definition has
        let cmd = definition();
        let def = cmd.find_subcommand(sub).unwrap();
        // (its own arguments and the global --color: a definition read before its deferred
        // arguments are built has only the latter)
        assert!(
            def.get_arguments().count() >= 2,
            "{sub}: arguments not built"
        );
        for arg in def.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(
                    help.contains(&format!("--{long}")),
                    "{sub} --help lacks --{long}"
                );
            }
        }
        assert!(
            help.contains("--color"),
            "{sub}: the global --color is missing"
        );
    }
    let top = ok(&["--help"]);
    for sub in &subs {
        assert!(
            top.contains(sub.as_str()),
            "knights --help does not list {sub}"
        );
    }
}

#[test]
fn version_names_the_version() {
    let v = ok(&["--version"]);
    assert!(
        v.starts_with(&format!("knights {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    // built from a git checkout with git installed, it names the commit
    let git = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Ok(out) = git {
        if out.status.success() {
            let commit = String::from_utf8(out.stdout).unwrap();
            assert!(v.contains("(commit "), "{v}");
            // the binary may be a commit behind a checkout that moved since the build: same length
            let shown = v
                .split("(commit ")
                .nth(1)
                .unwrap()
                .trim_end()
                .trim_end_matches(')');
            assert_eq!(shown.len(), commit.trim().len(), "{v}");
        }
    }
}

#[test]
fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        for sub in subcommands() {
            assert!(script.contains(&sub), "{shell} completions lack {sub}");
        }
        // options of a subcommand
        assert!(script.contains("closed"), "{shell}");
    }
    // the values of a value enum, where the shell completes them
    for shell in ["bash", "zsh", "fish"] {
        assert!(ok(&["completions", shell]).contains("markdown"), "{shell}");
    }
    let bash = ok(&["completions", "bash"]);
    assert!(bash.contains("complete -F"), "{bash}");
    let fish = ok(&["completions", "fish"]);
    assert!(fish.contains("complete -c knights"), "{fish}");
    knights()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("tcsh"));
}

#[test]
fn the_manual_page_is_roff_with_every_subcommand() {
    let page = ok(&["manpage"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH knights"),
        "{}",
        &page[..200]
    );
    assert!(page.contains(".TH knights 1"), "no title header");
    assert!(page.contains(".SH NAME"));
    assert!(page.contains(".SH SUBCOMMANDS"));
    assert!(page.contains(".SH \"EXIT STATUS\""));
    assert!(page.contains("NO_COLOR"));
    for sub in subcommands() {
        assert!(
            page.contains(&format!("knights\\-{sub}")),
            "the page lacks {sub}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    ok(&["manpage", "--dir", out.to_str().unwrap()]);
    for name in [
        "knights.1",
        "knights-tour.1",
        "knights-count.1",
        "knights-bench.1",
    ] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(text.contains(".SH OPTIONS"), "{name}");
    }
    let count = std::fs::read_to_string(out.join("knights-count.1")).unwrap();
    assert!(
        count.contains("checkpoint"),
        "knights-count.1 lacks --checkpoint"
    );
}

/// The grid of `knights tour`'s output, without the summary line (which holds the time).
fn grid(out: &str) -> String {
    let lines: Vec<&str> = out.lines().collect();
    lines[..lines.len() - 1].join("\n")
}

/// Escape codes of the tour grid's start and end squares.
const START: &str = "\x1b[1;32m";
const END: &str = "\x1b[1;31m";

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let always = ok(&["tour", "5x5", "--color", "always"]);
    assert_eq!(always.matches(START).count(), 1, "{always}");
    assert_eq!(always.matches(END).count(), 1, "{always}");
    assert!(always.contains(&format!("{START}1\x1b[0m")));
    assert!(always.contains(&format!("{END}25\x1b[0m")));
    // a pipe is not a terminal: auto (the default) and never print no escape at all
    for args in [&["tour", "5x5"][..], &["tour", "5x5", "--color", "never"]] {
        let plain = ok(args);
        assert!(!plain.contains('\x1b'), "{args:?}: {plain}");
    }
    // the global flag goes before the subcommand too, and NO_COLOR does not stop `always`
    let out = knights()
        .args(["--color", "always", "tour", "5x5"])
        .env("NO_COLOR", "1")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let before = String::from_utf8(out).unwrap();
    assert_eq!(grid(&before), grid(&always));
    // stripped of its escapes, the coloured grid is the plain one, and it verifies as it is
    assert_eq!(
        grid(&before)
            .replace(START, "")
            .replace(END, "")
            .replace("\x1b[0m", ""),
        grid(&ok(&["tour", "5x5"]))
    );
    knights()
        .args(["verify", "-"])
        .write_stdin(always)
        .assert()
        .success()
        .stdout(predicates::str::starts_with("valid open tour"));
    // other formats are read by programs: never coloured
    let moves = ok(&["tour", "5x5", "--color", "always", "--format", "moves"]);
    assert!(!moves.contains('\x1b'));
    knights()
        .args(["tour", "5x5", "--color", "sometimes"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("sometimes"));
}

#[test]
fn bench_refuses_bad_input_at_once() {
    usage_error(&["bench", "--suite", "huge"], "huge");
    usage_error(&["bench", "--format", "xml"], "xml");
    usage_error(&["bench", "--threads", "0"], "threads");
    usage_error(&["bench", "--plot", "chart.png"], "chart.png");
    usage_error(&["bench", "--only", "9x9"], "9x9");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/folder/b.svg");
    usage_error(&["bench", "--plot", missing.to_str().unwrap()], "b.svg");
}

/// `bench --scaling`: each thread count asked for, up to this machine's cores, is run and its
/// answer checked; one thread is added where it is missing (the speedups are against it); the
/// counts past the cores are projected only (no time, no speedup, the model's figure); one
/// JSON object a row, and a chart.
#[test]
fn bench_scaling_measures_checks_and_projects() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("scaling.svg");
    let out = ok(&[
        "bench",
        "--scaling",
        "2,1024",
        "--only",
        "dfs 6x6",
        "--format",
        "json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let rows: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let threads: Vec<u64> = rows
        .iter()
        .map(|r| r["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(threads, [1, 2, 1024], "{out}");
    let cores = rows[0]["cores"].as_u64().unwrap();
    for r in &rows {
        assert_eq!(r["item"], "dfs 6x6 open", "{r}");
        let t = r["threads"].as_u64().unwrap();
        if t <= cores {
            assert_eq!(r["status"], "checked", "{r}");
            assert_eq!(r["answer"], "6,637,920", "{r}");
            assert!(r["seconds"].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["speedup"].as_f64().unwrap() > 0.0, "{r}");
        } else {
            assert_eq!(r["status"], "projected", "{r}");
            assert!(r["seconds"].is_null() && r["speedup"].is_null(), "{r}");
        }
        // the model: fitted where two thread counts were measured, never past the threads
        match r["projected_speedup"].as_f64() {
            Some(p) => assert!((1.0 - 1e-9..=t as f64 + 1e-9).contains(&p), "{r}"),
            None => assert!(cores < 2, "{r}"),
        }
    }
    assert_eq!(rows[0]["speedup"].as_f64(), Some(1.0));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("dfs 6x6 open"));
    // bad lists, and a list with --threads, are refused at once
    usage_error(&["bench", "--scaling", "0,2"], "'0'");
    usage_error(&["bench", "--scaling", "2,x"], "'x'");
    usage_error(&["bench", "--scaling", "2", "--threads", "2"], "--threads");
    usage_error(&["bench", "--scaling", "2", "--only", "9x9"], "9x9");
}

#[test]
fn bench_runs_an_item_checks_it_and_draws_it() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("bench.svg");
    let out = ok(&[
        "bench",
        "--only",
        "5x6 closed",
        "--format",
        "json",
        "--threads",
        "2",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["suite"], "quick");
    assert_eq!(v["all_checked"], true);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["item"], "5x6 closed");
    let entries = items[0]["entries"].as_array().unwrap();
    let solvers: Vec<&str> = entries
        .iter()
        .map(|e| e["solver"].as_str().unwrap())
        .collect();
    assert_eq!(solvers, ["naive", "dfs-1", "dfs-all", "frontier"]);
    for e in entries {
        let status = e["status"].as_str().unwrap();
        // the naive engine may run out of its 5 s on a busy machine; the others never do
        if status == "timeout" {
            assert_eq!(e["solver"], "naive");
            assert!(e["answer"].is_null());
            continue;
        }
        assert_eq!(status, "checked", "{e}");
        // 8 closed tours: the known count
        assert_eq!(e["answer"], "8", "{e}");
        let runs = e["seconds"].as_array().unwrap();
        assert!(!runs.is_empty() && runs.len() <= 3);
        let (min, med, max) = (
            e["min_s"].as_f64().unwrap(),
            e["median_s"].as_f64().unwrap(),
            e["max_s"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= med && med <= max, "{e}");
    }
    assert_eq!(entries[2]["threads"], 2);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"));
    assert!(picture.contains("5x6 closed"));
    assert!(picture.contains("dfs, 2 threads"));
}

#[test]
fn bench_text_and_csv_show_the_same_answers() {
    let text = ok(&["bench", "--only", "5x5", "--threads", "1"]);
    assert!(text.contains("5x5 open"), "{text}");
    assert!(text.contains("1,728"), "{text}");
    assert!(text.contains("dfs, 1 thread"));
    assert!(!text.contains("WRONG"));
    let csv = ok(&[
        "bench",
        "--only",
        "5x5",
        "--format",
        "csv",
        "--threads",
        "1",
    ]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let answer = header.iter().position(|h| *h == "answer").unwrap();
    let status = header.iter().position(|h| *h == "status").unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    let solver = header.iter().position(|h| *h == "solver").unwrap();
    for r in rows {
        assert_eq!(r.len(), header.len());
        // the naive solver may run out of its time on a loaded machine and says so; every
        // other row, and every row that gives an answer, is checked and right
        if r[status] == "timeout" {
            assert_eq!((r[solver], r[answer]), ("naive", ""), "{r:?}");
        } else {
            assert_eq!((r[status], r[answer]), ("checked", "1728"), "{r:?}");
        }
    }
}
