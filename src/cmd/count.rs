//! `knights count`: count tours exactly with the library's driver; Ctrl-C and SIGTERM stop it
//! with the partial count printed and the checkpoint saved.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use knights::count::driver::{self, Job};
use knights::count::{CountSpec, Engine};

use super::on_board;
use crate::progress::{self, Progress};
use crate::{EXIT_INTERRUPTED, emit};
use knights::cli::{CountArgs, EngineArg, ProgressArg};

/// Set by Ctrl-C or SIGTERM: the count stops within moments.
static STOP: AtomicBool = AtomicBool::new(false);

fn job_of(a: &CountArgs) -> Result<Job> {
    let board = a.board;
    let spec = CountSpec {
        closed: a.closed,
        from: on_board(board, a.from, "--from")?,
        to: on_board(board, a.to, "--to")?,
        symmetry: !a.no_symmetry,
        per_square: a.per_square,
    };
    let engine = match a.engine {
        EngineArg::Auto => Engine::Auto,
        EngineArg::Dfs => Engine::Dfs,
        EngineArg::Frontier => Engine::Frontier,
        EngineArg::Naive => Engine::Naive,
    };
    let mut job = Job::new(board, a.piece.piece.clone(), spec, engine);
    job.threads = a.threads;
    job.checkpoint.clone_from(&a.checkpoint);
    job.shard = a.shard;
    job.force = a.force;
    if let Some(m) = a.max_memory {
        job.max_memory = m;
    }
    job.pieces = a.pieces;
    job.split.clone_from(&a.split);
    Ok(job)
}

pub(crate) fn run(a: &CountArgs) -> Result<u8> {
    let job = job_of(a)?;
    let mode = match (a.quiet, a.progress) {
        (true, _) | (_, ProgressArg::None) => progress::Mode::None,
        (_, ProgressArg::Bar) => progress::Mode::Bar,
        (_, ProgressArg::Plain) => progress::Mode::Plain,
        (_, ProgressArg::Auto) if io::stderr().is_terminal() => progress::Mode::Bar,
        (_, ProgressArg::Auto) => progress::Mode::None,
    };
    // a second signal ends the process at once: every finished unit is already in the file
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })
    .context("cannot catch Ctrl-C")?;
    let display = Progress::new(mode, a.json || a.quiet);
    let outcome = display.run(|obs| driver::run(&job, &STOP, obs))?;
    let code = if outcome.finished {
        0
    } else {
        match &job.checkpoint {
            Some(p) if outcome.units == 0 => eprintln!(
                "knights: interrupted; '{}' and the files beside it hold the work done so far (the count was not yet cut into pieces); resume with: {}",
                p.display(),
                resume_command()
            ),
            Some(p) => eprintln!(
                "knights: interrupted; '{}' holds {} of {} {}s; resume with: {}",
                p.display(),
                progress::group(outcome.units_done as u64),
                progress::group(outcome.units_mine as u64),
                outcome.piece_name(),
                resume_command()
            ),
            None => eprintln!(
                "knights: interrupted; the counted units are lost (with --checkpoint FILE a count can be resumed)"
            ),
        }
        EXIT_INTERRUPTED
    };
    if a.json {
        emit(&(outcome.json(&job).to_string() + "\n"))?;
    } else {
        emit(&outcome.report(&job).text(&outcome.count))?;
    }
    Ok(code)
}

/// This process's command line, quoted for a POSIX shell.
fn resume_command() -> String {
    let quote = |s: String| {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./,:=+-@%".contains(c))
        {
            s
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    std::env::args().map(quote).collect::<Vec<_>>().join(" ")
}
