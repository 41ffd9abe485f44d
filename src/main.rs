//! The `knights` command: parses arguments, calls the library, prints. Exit codes: 0 success,
//! 1 nothing found (no tour, invalid tour, no total, a bench answer that failed its check),
//! 2 usage or input error, 3 the machine failed the run (a disk full or failing: what was kept
//! is said), 130 interrupted.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;
mod allocator;
mod cmd;
mod progress;

use knights::cli::{Cli, Command};

#[global_allocator]
static GLOBAL: allocator::Allocator = allocator::Allocator;

const EXIT_NOT_FOUND: u8 = 1;
const EXIT_USAGE: u8 = 2;
/// The machine failed the run (a disk full or failing): not the user's input.
const EXIT_SYSTEM: u8 = 3;
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    allocator::keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("knights: {}", clip_line(&one_line(&e.render().to_string())));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Err(msg) = check_thread_env().and_then(|()| knights::failpoint::configure_from_env()) {
        eprintln!("knights: {}", clip_line(&msg));
        return ExitCode::from(EXIT_USAGE);
    }
    let result = match cli.command {
        Command::Tour(a) => cmd::tour::run(&a, cli.color),
        Command::Verify(a) => cmd::verify::run(&a),
        Command::Count(a) => cmd::count::run(&a),
        Command::Merge(a) => cmd::merge::run(&a),
        Command::Status(a) => cmd::status::run(&a),
        Command::Hunt(a) => cmd::hunt::run(&a),
        Command::Survey(a) => cmd::survey::run(&a),
        Command::Estimate(a) => cmd::estimate::run(&a),
        Command::Sample(a) => cmd::sample::run(&a),
        Command::List(a) => cmd::list::run(&a),
        Command::Tally(a) => cmd::tally::run(&a),
        Command::Bench(a) => cmd::bench::run(&a),
        Command::Completions(a) => cmd::completions::run(&a),
        Command::Manpage(a) => cmd::manpage::run(&a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("knights: {}", error_line(&e));
            ExitCode::from(if is_system_failure(&e) {
                EXIT_SYSTEM
            } else {
                EXIT_USAGE
            })
        }
    }
}

/// Rayon sizes its global pool (every command's default) by `RAYON_NUM_THREADS`: it is held to
/// the limit of `--threads`.
fn check_thread_env() -> Result<(), String> {
    let Some(v) = std::env::var_os("RAYON_NUM_THREADS") else {
        return Ok(());
    };
    let max = knights::count::driver::max_threads();
    let v = v.to_string_lossy();
    match v.trim().parse::<usize>() {
        Ok(n) if n <= max => Ok(()),
        _ => Err(format!(
            "RAYON_NUM_THREADS='{v}' is out of range (allowed: 0 for every core, or 1 to {max} threads: past 4 per core, or 64 on a small machine, threads gain nothing)"
        )),
    }
}

/// Clap's message folded onto one line, without its usage block.
fn one_line(msg: &str) -> String {
    msg.lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .trim_end_matches("For more information, try '--help'.")
        .trim_end()
        .to_string()
}

/// The longest error line printed, in characters (quoted values are cut well before).
const MAX_LINE: usize = 1000;

/// The longest path an error line quotes whole, in characters (other quoted values are cut at
/// [`CLIP_CHARS`](knights::error::CLIP_CHARS)).
const MAX_PATH_SHOWN: usize = 400;

/// An error and its causes on one line, `: ` between them. A cause whose text the line already
/// holds is left out: library errors quote their OS error, which is also their `source`, and it
/// is said once.
fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let m = cause.to_string();
        if m.is_empty() || line.contains(&m) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&m);
    }
    clip_line(&line)
}

/// A message as printed: every quoted value without spaces longer than
/// [`CLIP_CHARS`](knights::error::CLIP_CHARS) cut (clap quotes the raw argument), control
/// characters escaped, and the whole at most [`MAX_LINE`] characters.
fn clip_line(msg: &str) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(open) = rest.find('\'') {
        // an apostrophe inside a word ("run's") opens no quotation
        let opens = rest[..open]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after = &rest[open + 1..];
        match after.find('\'') {
            Some(close) if opens && !after[..close].contains(char::is_whitespace) => {
                out.push_str(&rest[..=open]);
                let value = &after[..close];
                // a path is said whole (cut mid-name, it names no file), up to a long one's
                if value.contains('/') && value.chars().count() <= MAX_PATH_SHOWN {
                    out.push_str(value);
                } else {
                    out.push_str(&knights::error::clip(value));
                }
                out.push('\'');
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let line = knights::error::escape_controls(&out);
    if line.chars().count() > MAX_LINE {
        return line.chars().take(MAX_LINE).collect::<String>() + "…";
    }
    line
}

/// A failure of the machine rather than of the request, said with what was kept: a disk full
/// or failing under a run (exit code 3).
#[derive(Debug)]
struct SystemFailure(String);

impl std::fmt::Display for SystemFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SystemFailure {}

/// Whether `e` is the machine's failure: a [`SystemFailure`], a file the tool keeps that
/// failed ([`knights::durable::DiskError`]), or any write that found the disk full.
fn is_system_failure(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<SystemFailure>()
            || c.is::<knights::durable::DiskError>()
            || c.downcast_ref::<knights::engine::RunError>()
                .is_some_and(|r| matches!(r, knights::engine::RunError::Disk(_)))
            || c.downcast_ref::<knights::sample::SampleError>()
                .is_some_and(|s| matches!(s, knights::sample::SampleError::Disk(_)))
            || c.downcast_ref::<io::Error>().is_some_and(|io| {
                matches!(
                    io.kind(),
                    io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
                )
            })
    })
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Writes to stdout; a closed pipe ends the program quietly (see `main`).
fn emit(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
