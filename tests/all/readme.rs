//! The README and the user guide (`docs/guide/*.md`) stay true: their commands are checked in two
//! ways.
//!
//! **Flags.** Every `knights ...` command in their code blocks (but ```text blocks, which show
//! output, and the output lines of ```console blocks) and in their inline code (the commands'
//! synopses too) is read, and each `--flag` and `-f` checked against the subcommand's clap
//! definition, `knights::cli::definition()`.
//!
//! **Examples, run.** A fenced ```console block is a session, and every one is run:
//! - a line `$ COMMAND` is a command, run by `sh -c` with the `knights` this test suite built
//!   first on `PATH` (so pipes, `>` and `|` work as they read), standard input empty, in a
//!   fresh folder shared by the commands of its block (a later command reads the files an
//!   earlier one wrote), empty but for a link `results` to the repository's `results/` (the
//!   ledgers of the long counts, which `knights merge results/open8/*` adds up);
//! - the lines after it, up to the next `$ ` line or the end of the block, are its output:
//!   standard output, compared line by line (trailing spaces aside) with what it printed; where
//!   the command fails (exit code not 0), followed by the lines of standard error that begin
//!   `knights: ` (the error, or the answer "no tour", always one line). Notes, warnings and
//!   progress on standard error are never shown, and never compared;
//! - the command must exit 0, unless its comment says otherwise: `$ knights tour 3x3  # exit 1`
//!   (text after ` # ` is a comment, for the shell and for the reader);
//! - what varies from run to run or machine to machine (times, rates, the load, the version's
//!   commit) is written with placeholders: `[..]` in a line matches any text within that line,
//!   and a line `...` alone matches any number of lines, none included.
//!
//! Blocks of any other kind (```sh: installing, the cluster scripts, counts of minutes or hours)
//! are not run; their commands still get the flag check. Every example is meant to be quick
//! (under a few seconds in the test-release profile): a count of hours belongs in a ```sh block.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use knights::cli::definition;

/// The README and the guide's chapters, as paths inside the repository.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("README.md")];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide"))
        .expect("docs/guide")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guide.sort();
    out.extend(guide);
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `knights` commands of a Markdown text: the lines of fenced code blocks and the inline
/// code spans that hold `knights SUBCOMMAND ...`, each cut to the words after `knights`.
fn commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    // a ```text block is printed output, not commands (the bench's heading names it)
    let mut output = false;
    // in a ```console block only the `$ ` lines are commands; the others are their output
    let mut console = false;
    for line in markdown.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fenced = !fenced;
            output = fenced && info.trim() == "text";
            console = fenced && info.trim() == "console";
            continue;
        }
        if output {
            continue;
        }
        let pieces: Vec<&str> = if fenced {
            let line = if console {
                match line.strip_prefix("$ ") {
                    Some(command) => command,
                    None => continue,
                }
            } else {
                line
            };
            // a comment after the command is prose
            vec![line.split(" # ").next().unwrap_or(line)]
        } else {
            line.split('`').skip(1).step_by(2).collect()
        };
        for piece in pieces {
            // `cargo run --release -- ARGS` runs knights with ARGS
            let piece = piece.replace("cargo run --release -- ", "knights ");
            // shell pipes and command lists; a bare | is a synopsis' alternatives (auto|dfs)
            for part in piece
                .split(" | ")
                .flat_map(|p| p.split("; "))
                .flat_map(|p| p.split(" && "))
            {
                let words: Vec<&str> = part.split_whitespace().collect();
                // other cargo commands (cargo install --path ., cargo add knights ...)
                if words.first() == Some(&"cargo") {
                    continue;
                }
                if let Some(at) = words
                    .iter()
                    .position(|w| *w == "knights" || w.ends_with("/knights"))
                {
                    if at + 1 < words.len() {
                        out.push(words[at + 1..].join(" "));
                    }
                }
            }
        }
    }
    out
}

/// The problems of one command line: an unknown subcommand, or flags it does not have.
fn problems(line: &str) -> Vec<String> {
    let cli = definition();
    let mut words = line.split_whitespace();
    let Some(sub) = words.next() else {
        return Vec::new();
    };
    // prose about commands in general: `knights ...`
    if sub == "..." || sub == "…" {
        return Vec::new();
    }
    // `knights --version`, `knights --help`
    if sub.starts_with('-') {
        return match sub {
            "--version" | "-V" | "--help" | "-h" => Vec::new(),
            _ => vec![format!("`knights {line}`: knights has no {sub}")],
        };
    }
    let Some(cmd) = cli.find_subcommand(sub) else {
        return vec![format!("`knights {line}`: there is no subcommand {sub}")];
    };
    let args: Vec<_> = cmd
        .get_arguments()
        .chain(cli.get_arguments().filter(|a| a.is_global_set()))
        .collect();
    let mut out = Vec::new();
    for w in words {
        // synopses write options in brackets and alternatives with |: [--format F]
        let w = w.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',' | '.'));
        let w = w.split('=').next().unwrap_or(w);
        let known = if let Some(long) = w.strip_prefix("--") {
            long.is_empty()
                || long.contains('.')
                || long == "help"
                || args.iter().any(|a| a.get_long() == Some(long))
        } else if let Some(short) = w.strip_prefix('-') {
            // a lone '-' is standard input; -1, -5.3 are numbers
            let mut cs = short.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => {
                    c == 'h' || args.iter().any(|a| a.get_short() == Some(c))
                }
                _ => true,
            }
        } else {
            true
        };
        if !known {
            out.push(format!("`knights {line}`: {sub} has no {w}"));
        }
    }
    out
}

#[test]
fn the_readme_and_the_guide_name_only_flags_that_exist() {
    let mut bad = Vec::new();
    let mut all = Vec::new();
    for path in documents() {
        let lines = commands(&read(&path));
        bad.extend(
            lines
                .iter()
                .flat_map(|l| problems(l))
                .map(|p| format!("{}: {p}", path.display())),
        );
        all.extend(lines);
    }
    assert!(all.len() > 100, "only {} commands found", all.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_readme_shows_every_subcommand_at_work() {
    let readme = read(&documents()[0]);
    let examples = examples(&readme);
    let cli = definition();
    for sub in cli.get_subcommands().map(|s| s.get_name()) {
        if sub == "help" {
            continue;
        }
        assert!(
            examples.iter().any(|e| e
                .command
                .split(" | ")
                .any(|c| c.split_whitespace().take(2).eq(["knights", sub]))),
            "the README runs no `knights {sub}` example (a ```console block)"
        );
    }
}

#[test]
fn the_check_finds_a_flag_that_does_not_exist() {
    let md = "text\n```sh\nknights tour 8x8 --closd   # a typo\n```\nand `knights count 6x6 -Z` \
              and `knights bogus 1`, `knights bench --suite quick --plot b.svg`\n\
              `cargo add knights --path ../knights`\n\
              ```text\nknights bench, quick suite: --made-up\n```\n\
              ```console\n$ knights list 5x5 --lmit 3\nknights bench, output: --made-up\n```\n";
    let lines = commands(md);
    assert_eq!(
        lines,
        [
            "tour 8x8 --closd",
            "count 6x6 -Z",
            "bogus 1",
            "bench --suite quick --plot b.svg",
            "list 5x5 --lmit 3",
        ]
    );
    let bad: Vec<String> = lines.iter().flat_map(|l| problems(l)).collect();
    assert_eq!(bad.len(), 4, "{bad:?}");
    assert!(bad[0].contains("--closd"));
    assert!(bad[1].contains("-Z"));
    assert!(bad[2].contains("no subcommand bogus"));
    assert!(bad[3].contains("--lmit"));
}

#[test]
fn global_flags_and_pipes_are_understood() {
    let md = "```\nknights tour 8x8 --format moves | knights verify - --closed\n\
              cargo run --release -- count 5x5 --color never -j 2\n```\n\
              `knights count B [--engine auto|dfs|naive] [--json]`\n";
    let lines = commands(md);
    assert_eq!(
        lines,
        [
            "tour 8x8 --format moves",
            "verify - --closed",
            "count 5x5 --color never -j 2",
            "count B [--engine auto|dfs|naive] [--json]"
        ]
    );
    assert!(lines.iter().all(|l| problems(l).is_empty()));
}

#[test]
fn the_guides_rust_example_is_the_library_example() {
    // examples/library.rs is built by `cargo test`; the guide must show it as it is
    let example = include_str!("../../examples/library.rs");
    let code: String = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let guide = include_str!("../../docs/guide/library.md");
    let start = guide
        .find("```rust\n")
        .expect("a Rust example in docs/guide/library.md")
        + 8;
    let end = start + guide[start..].find("```").unwrap();
    assert_eq!(
        guide[start..end],
        code,
        "docs/guide/library.md and examples/library.rs differ"
    );
}

// ---- the examples, run ----

/// One command of a ```console block and the output shown for it.
#[derive(Debug)]
struct Example {
    /// the line of the `$ ` in its file, from 1
    line: usize,
    /// the command as the shell reads it (its comment included)
    command: String,
    /// the exit code its comment names (`# exit N`), else 0
    code: i32,
    /// the lines shown under it
    output: Vec<String>,
    /// the block it belongs to, numbered from 0: a block's commands share a folder
    block: usize,
}

/// The commands of the ```console blocks of a Markdown text, in order.
fn examples(markdown: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut fenced = false;
    let mut console = false;
    let mut block = 0;
    for (i, line) in markdown.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            if console {
                block += 1;
            }
            fenced = !fenced;
            console = fenced && info.trim() == "console";
            continue;
        }
        if !console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            let comment = command.split_once(" # ").map_or("", |(_, c)| c.trim());
            let code = comment
                .strip_prefix("exit ")
                .map(|c| {
                    let digits: String = c.chars().take_while(char::is_ascii_digit).collect();
                    digits.parse().expect("`# exit N` names a number")
                })
                .unwrap_or(0);
            out.push(Example {
                line: i + 1,
                command: command.to_string(),
                code,
                output: Vec::new(),
                block,
            });
        } else {
            let last = out
                .last_mut()
                .filter(|e| e.block == block)
                .unwrap_or_else(|| panic!("line {}: output before any `$ ` command", i + 1));
            last.output.push(line.to_string());
        }
    }
    out
}

/// Whether `text` matches `pattern`, in which `[..]` stands for any text.
fn line_matches(pattern: &str, text: &str) -> bool {
    let pattern = pattern.trim_end();
    let text = text.trim_end();
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the lines of `text` match the lines of `pattern`, in which a line `...` stands for
/// any number of lines.
fn lines_match(pattern: &[String], text: &[&str]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((p, rest)) if p.trim_end() == "..." => {
            (0..=text.len()).any(|skip| lines_match(rest, &text[skip..]))
        }
        Some((p, rest)) => {
            !text.is_empty() && line_matches(p, text[0]) && lines_match(rest, &text[1..])
        }
    }
}

/// Runs every ```console example of the file at `relative` (to the repository) and panics with
/// every one whose output or exit code differs from what the file shows.
fn run_examples(relative: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = read(&root.join(relative));
    let examples = examples(&text);
    let bin = Path::new(env!("CARGO_BIN_EXE_knights"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut failures = Vec::new();
    let mut folder = None;
    let mut block = usize::MAX;
    for e in &examples {
        if e.block != block {
            block = e.block;
            let dir = tempfile::tempdir().unwrap();
            // the measured results (the ledgers of the counts of hours) read as in the repository
            std::os::unix::fs::symlink(root.join("results"), dir.path().join("results")).unwrap();
            folder = Some(dir);
        }
        let dir = folder.as_ref().unwrap().path();
        let out = Command::new("sh")
            .arg("-c")
            .arg(&e.command)
            .current_dir(dir)
            .env("PATH", &path)
            .env_remove("KNIGHTS_FAILPOINTS")
            .env_remove("RAYON_NUM_THREADS")
            .env_remove("NO_COLOR")
            // a hang fails the test; no example comes near this
            .timeout(Duration::from_secs(120))
            .write_stdin("")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code().unwrap_or(-1);
        let mut shown: Vec<&str> = stdout.lines().collect();
        if code != 0 {
            shown.extend(stderr.lines().filter(|l| l.starts_with("knights: ")));
        }
        if code != e.code || !lines_match(&e.output, &shown) || stderr.contains("panicked") {
            failures.push(format!(
                "{relative}:{}: $ {}\n-- exit {code} (shown: {})\n-- expected:\n{}\n-- got:\n{}\n\
                 -- stderr:\n{stderr}",
                e.line,
                e.command,
                e.code,
                e.output.join("\n"),
                shown.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn placeholders_match_what_varies_and_nothing_else() {
    assert!(line_matches("took [..] s", "took 0.25 s"));
    assert!(line_matches("[..] threads", "2 threads"));
    assert!(line_matches("a [..] b [..] c", "a 1 b 2 c"));
    assert!(!line_matches("a [..] b [..] c", "a 1 c 2 b"));
    assert!(!line_matches("took [..] s", "took 0.25 ms!"));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert!(line_matches("exact  ", "exact"));
    assert!(!line_matches("exact", "exactly"));
    let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&p(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(lines_match(&p(&["a", "...", "z"]), &["a", "z"]));
    assert!(!lines_match(&p(&["a", "...", "z"]), &["a", "b"]));
    assert!(!lines_match(&p(&["a"]), &["a", "b"]));
    assert!(lines_match(&p(&[]), &[]));
}

#[test]
fn console_blocks_are_read_as_commands_and_their_output() {
    let md = "```console\n$ knights tour 3x3  # exit 1: none\nknights: no open tour\n\
              $ knights tour 5x5 | head -1\n  +----------------+\n```\n\
              ```sh\nknights count 8x8   # hours\n```\n```console\n$ ls\n```\n";
    let ex = examples(md);
    assert_eq!(ex.len(), 3);
    assert_eq!((ex[0].line, ex[0].code, ex[0].block), (2, 1, 0));
    assert_eq!(ex[0].output, ["knights: no open tour"]);
    assert_eq!(ex[1].command, "knights tour 5x5 | head -1");
    assert_eq!((ex[1].code, ex[1].block), (0, 0));
    assert_eq!((ex[2].command.as_str(), ex[2].block), ("ls", 1));
    assert!(ex[2].output.is_empty());
}

#[test]
fn every_guide_chapter_has_its_examples_run() {
    // the tests below, one a file, so that a chapter added is a test added
    let run: Vec<PathBuf> = documents();
    let named = [
        "README.md",
        "docs/guide/README.md",
        "docs/guide/basics.md",
        "docs/guide/bench.md",
        "docs/guide/count.md",
        "docs/guide/estimate.md",
        "docs/guide/frontier.md",
        "docs/guide/hunt.md",
        "docs/guide/install.md",
        "docs/guide/layout.md",
        "docs/guide/library.md",
        "docs/guide/list.md",
        "docs/guide/merge-status.md",
        "docs/guide/performance.md",
        "docs/guide/sample.md",
        "docs/guide/survey.md",
        "docs/guide/testing.md",
        "docs/guide/tour.md",
        "docs/guide/verify.md",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run: Vec<String> = run
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert_eq!(run, named, "add a test below for each new chapter");
}

#[test]
fn examples_of_the_readme() {
    run_examples("README.md");
}

#[test]
fn examples_of_the_guide_index() {
    run_examples("docs/guide/README.md");
}

#[test]
fn examples_of_the_guide_basics() {
    run_examples("docs/guide/basics.md");
}

#[test]
fn examples_of_the_guide_bench() {
    run_examples("docs/guide/bench.md");
}

#[test]
fn examples_of_the_guide_count() {
    run_examples("docs/guide/count.md");
}

#[test]
fn examples_of_the_guide_estimate() {
    run_examples("docs/guide/estimate.md");
}

#[test]
fn examples_of_the_guide_frontier() {
    run_examples("docs/guide/frontier.md");
}

#[test]
fn examples_of_the_guide_hunt() {
    run_examples("docs/guide/hunt.md");
}

#[test]
fn examples_of_the_guide_install() {
    run_examples("docs/guide/install.md");
}

#[test]
fn examples_of_the_guide_layout() {
    run_examples("docs/guide/layout.md");
}

#[test]
fn examples_of_the_guide_library() {
    run_examples("docs/guide/library.md");
}

#[test]
fn examples_of_the_guide_list() {
    run_examples("docs/guide/list.md");
}

#[test]
fn examples_of_the_guide_merge_status() {
    run_examples("docs/guide/merge-status.md");
}

#[test]
fn examples_of_the_guide_performance() {
    run_examples("docs/guide/performance.md");
}

#[test]
fn examples_of_the_guide_sample() {
    run_examples("docs/guide/sample.md");
}

#[test]
fn examples_of_the_guide_survey() {
    run_examples("docs/guide/survey.md");
}

#[test]
fn examples_of_the_guide_testing() {
    run_examples("docs/guide/testing.md");
}

#[test]
fn examples_of_the_guide_tour() {
    run_examples("docs/guide/tour.md");
}

#[test]
fn examples_of_the_guide_verify() {
    run_examples("docs/guide/verify.md");
}
