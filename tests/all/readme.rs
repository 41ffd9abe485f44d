//! The README names only subcommands and flags that exist: every `knights ...` command in its
//! code blocks (but ```text blocks, which show output) and in its inline code (the commands'
//! synopses too) is read, and each `--flag` and `-f` checked against the subcommand's clap
//! definition, `knights::cli::definition()`.

use knights::cli::definition;

const README: &str = include_str!("../../README.md");

/// The `knights` commands of a Markdown text: the lines of fenced code blocks and the inline
/// code spans that hold `knights SUBCOMMAND ...`, each cut to the words after `knights`.
fn commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    // a ```text block is printed output, not commands (the bench's heading names it)
    let mut output = false;
    for line in markdown.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fenced = !fenced;
            output = fenced && info.trim() == "text";
            continue;
        }
        if output {
            continue;
        }
        let pieces: Vec<&str> = if fenced {
            // a comment after the command is prose
            vec![line.split(" # ").next().unwrap_or(line)]
        } else {
            line.split('`').skip(1).step_by(2).collect()
        };
        for piece in pieces {
            // `cargo run --release -- ARGS` runs knights with ARGS
            let piece = piece.replace("cargo run --release -- ", "knights ");
            // shell pipes and command lists; a bare | is a synopsis' alternatives (auto|dfs)
            for part in piece.split(" | ").flat_map(|p| p.split("; ")) {
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
fn the_readme_names_only_flags_that_exist() {
    let lines = commands(README);
    // the README shows every subcommand at work
    for sub in [
        "tour",
        "verify",
        "count",
        "merge",
        "hunt",
        "survey",
        "estimate",
        "bench",
        "completions",
        "manpage",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.split_whitespace().next() == Some(sub)),
            "the README has no `knights {sub}` example"
        );
    }
    assert!(lines.len() > 40, "only {} commands found", lines.len());
    let bad: Vec<String> = lines.iter().flat_map(|l| problems(l)).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_check_finds_a_flag_that_does_not_exist() {
    let md = "text\n```sh\nknights tour 8x8 --closd   # a typo\n```\nand `knights count 6x6 -Z` \
              and `knights bogus 1`, `knights bench --suite quick --plot b.svg`\n\
              `cargo add knights --path ../knights`\n\
              ```text\nknights bench, quick suite: --made-up\n```\n";
    let lines = commands(md);
    assert_eq!(
        lines,
        [
            "tour 8x8 --closd",
            "count 6x6 -Z",
            "bogus 1",
            "bench --suite quick --plot b.svg"
        ]
    );
    let bad: Vec<String> = lines.iter().flat_map(|l| problems(l)).collect();
    assert_eq!(bad.len(), 3, "{bad:?}");
    assert!(bad[0].contains("--closd"));
    assert!(bad[1].contains("-Z"));
    assert!(bad[2].contains("no subcommand bogus"));
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
fn the_readmes_rust_example_is_the_library_example() {
    // examples/library.rs is built by `cargo test`; the README must show it as it is
    let example = include_str!("../../examples/library.rs");
    let code: String = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let start = README
        .find("```rust\n")
        .expect("a Rust example in the README")
        + 8;
    let end = start + README[start..].find("```").unwrap();
    assert_eq!(
        README[start..end],
        code,
        "README and examples/library.rs differ"
    );
}
