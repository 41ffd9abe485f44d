//! The `knights` command: parses arguments, calls the library, prints. Exit codes: 0 success,
//! 1 nothing found (no tour, invalid tour, no total, a bench answer that failed its check),
//! 2 usage or input error, 130 interrupted.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;
use mimalloc::MiMalloc;

mod cmd;
mod progress;

use knights::cli::{Cli, Command};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

const EXIT_NOT_FOUND: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("knights: {}", one_line(&e.render().to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Tour(a) => cmd::tour::run(&a, cli.color),
        Command::Verify(a) => cmd::verify::run(&a),
        Command::Count(a) => cmd::count::run(&a),
        Command::Merge(a) => cmd::merge::run(&a),
        Command::Hunt(a) => cmd::hunt::run(&a),
        Command::Survey(a) => cmd::survey::run(&a),
        Command::Estimate(a) => cmd::estimate::run(&a),
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
            eprintln!("knights: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
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
