//! `knights count`: count tours exactly with the library's driver; Ctrl-C and SIGTERM stop it
//! with the partial count printed and the checkpoint saved.

use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use knights::count::driver::{self, Job};
use knights::count::{CountSpec, Engine};

use super::on_board;
use crate::progress::{self, Progress};
use crate::{EXIT_INTERRUPTED, emit};
use knights::cli::{CountArgs, EngineArg, ProgressArg, WindowArg};

/// The signals that stop a count: Ctrl-C, `kill` and a closed terminal.
#[cfg(unix)]
const STOP_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];
#[cfg(not(unix))]
const STOP_SIGNALS: [i32; 2] = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];

/// The flags the stop signals set: `stop` at the first (the count stops within moments and
/// saves its work in progress), `hurry` at the second (the save is given up, the last save
/// kept, and the count ends at once, its files removed as at any end). A third ends the process
/// there and then with the interrupted code, leaving its files for the next run to remove. The
/// handlers set the flags themselves, so no thread waits for signals: starting one cost a
/// count of a few milliseconds about a fortieth of its time.
fn stop_on_signals() -> Result<(Arc<AtomicBool>, Arc<AtomicBool>)> {
    let stop = Arc::new(AtomicBool::new(false));
    let hurry = Arc::new(AtomicBool::new(false));
    for sig in STOP_SIGNALS {
        // in this order: the exit acts only once `hurry` is set, `hurry` only once `stop` is
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(EXIT_INTERRUPTED),
            Arc::clone(&hurry),
        )
        .and_then(|_| {
            let (stop, hurry) = (Arc::clone(&stop), Arc::clone(&hurry));
            // SAFETY: the action only loads and stores atomics, which is async-signal-safe
            unsafe {
                signal_hook::low_level::register(sig, move || {
                    if stop.load(Ordering::SeqCst) {
                        hurry.store(true, Ordering::SeqCst);
                    }
                })
            }
        })
        .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&stop)))
        .with_context(|| format!("cannot catch signal {sig}"))?;
    }
    Ok((stop, hurry))
}

fn job_of(a: &CountArgs) -> Result<Job> {
    let board = a.board;
    let spec = CountSpec {
        closed: a.closed,
        from: on_board(board, a.from, "--from")?,
        to: on_board(board, a.to, "--to")?,
        symmetry: !a.no_symmetry,
        per_square: a.per_square,
        wide: a.window == WindowArg::Wide,
        order: a.order.map(Into::into).unwrap_or_default(),
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
    job.ledger.clone_from(&a.ledger);
    job.only.clone_from(&a.only);
    job.shard = a.shard;
    job.force = a.force;
    if let Some(m) = a.max_memory {
        job.max_memory = m;
    }
    job.split.clone_from(&a.split);
    if let Some(d) = &a.scratch {
        if !d.is_dir() {
            anyhow::bail!(
                "--scratch '{}' is not a folder: give an existing folder for the tables that pass the memory bound",
                d.display()
            );
        }
    }
    job.scratch.clone_from(&a.scratch);
    // given no order, a count goes on in the order its files were made in
    if a.order.is_none() {
        if let Some(o) = driver::order_of_files(&job) {
            job.spec.order = o;
        }
    }
    Ok(job)
}

/// How progress is shown, from `--progress` and `--quiet`.
fn progress_mode(a: &CountArgs) -> progress::Mode {
    match (a.quiet, a.progress) {
        (true, _) | (_, ProgressArg::None) => progress::Mode::None,
        (_, ProgressArg::Bar) => progress::Mode::Bar,
        (_, ProgressArg::Plain) => progress::Mode::Plain,
        (_, ProgressArg::Auto) if io::stderr().is_terminal() => progress::Mode::Bar,
        (_, ProgressArg::Auto) => progress::Mode::None,
    }
}

pub(crate) fn run(a: &CountArgs) -> Result<u8> {
    if let Some(lengths) = &a.lengths {
        return row(a, lengths.clone());
    }
    let job = job_of(a)?;
    let mode = progress_mode(a);
    let (stop, hurry) = stop_on_signals()?;
    let mut job = job;
    job.abandon = Some(Arc::clone(&hurry));
    let display = Progress::new(mode, a.json || a.quiet);
    let outcome = match display.run(|obs| driver::run(&job, &stop, obs)) {
        Ok(o) => o,
        Err(driver::RunError::Disk(e)) => return Err(disk_failed(&job, &e).into()),
        Err(e) => return Err(e.into()),
    };
    // stopped a second time: the work in progress was not saved (the last save was kept)
    let twice = if hurry.load(Ordering::SeqCst) {
        "interrupted twice, so the work in progress was not saved (the last save is kept)"
    } else {
        "interrupted"
    };
    let code = if outcome.finished {
        0
    } else {
        match &job.checkpoint {
            Some(p) if outcome.units == 0 => eprintln!(
                "knights: {twice}; '{}' and the files beside it hold the work done so far (the count was not yet cut into pieces){}; resume with: {}",
                p.display(),
                last_save(p),
                resume_command()
            ),
            Some(p) => eprintln!(
                "knights: {twice}; '{}' holds {} of {} {}s{}{}; resume with: {}",
                p.display(),
                progress::group(outcome.units_done as u64),
                progress::group(outcome.units_mine as u64),
                outcome.piece_name(),
                if knights::durable::beside(p, ".leaves").exists() {
                    " (and the file beside it holds the finished leaves of the piece in progress)"
                } else {
                    ""
                },
                last_save(p),
                resume_command()
            ),
            None => eprintln!(
                "knights: {twice}; the counted units are lost (with --checkpoint FILE a count can be resumed)"
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

/// A count stopped by its disk (full, failing, a file removed under it), said with what was
/// kept and what to do: the checkpoint's pieces and its last save, the scratch folder, and the
/// command that resumes.
fn disk_failed(job: &Job, e: &knights::durable::DiskError) -> crate::SystemFailure {
    let remedy = disk_remedy(&job.scratch_dir(), e);
    let kept = match &job.checkpoint {
        Some(p) => {
            let pieces = knights::count::checkpoint::read(p).map_or_else(
                |_| format!("the checkpoint '{}'", p.display()),
                |l| {
                    format!(
                        "the checkpoint '{}' holds {} of {} pieces",
                        p.display(),
                        progress::group(l.done.len() as u64),
                        progress::group(l.id.units as u64)
                    )
                },
            );
            format!(
                "what was counted is kept ({pieces}{}); {remedy}, then resume with: {}",
                last_save(p),
                resume_command()
            )
        }
        None => format!(
            "nothing of the count is kept (with --checkpoint FILE a count can be resumed); {remedy}"
        ),
    };
    crate::SystemFailure(format!("{e}; {kept}"))
}

/// Where the last save of the work in progress beside checkpoint `p` stands, as the end of a
/// sentence: `, and 'FILE.layers' its last save, at layer 12 of 40`; nothing where there is
/// none.
fn last_save(p: &std::path::Path) -> String {
    let layers = knights::durable::beside(p, ".layers");
    match knights::frontier::snapshot::read_header(&layers) {
        Ok(Some(h)) => format!(
            ", and '{}' the last save of the work in progress{}",
            layers.display(),
            h.layer()
                .map_or(String::new(), |(a, b)| format!(", at layer {a} of {b}"))
        ),
        _ => String::new(),
    }
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

/// `count ROWSxCOLS --lengths A..B`: every length of the row in one sweep, each printed as it
/// is known.
fn row(a: &CountArgs, lengths: std::ops::RangeInclusive<u32>) -> Result<u8> {
    use knights::count::row::{self, RowJob};
    if a.engine == EngineArg::Dfs || a.engine == EngineArg::Naive {
        return Err(knights::Error::Invalid(
            "--lengths counts with the frontier engine (one sweep for every length): give --engine auto or frontier".to_string(),
        )
        .into());
    }
    if let Some(d) = &a.scratch {
        if !d.is_dir() {
            anyhow::bail!(
                "--scratch '{}' is not a folder: give an existing folder for the tables that pass the memory bound",
                d.display()
            );
        }
    }
    let board = a.board;
    let piece = a.piece.piece.clone();
    // before the table's header is printed (the row checks it again as it starts)
    let order = a.order.map(Into::into).unwrap_or_default();
    row::check(board, &lengths, &piece, order)?;
    let (stop, hurry) = stop_on_signals()?;
    let mut job = RowJob {
        width: board.rows,
        lengths,
        piece,
        closed: a.closed,
        order,
        sums: a.saturated != Some(knights::cli::SaturatedArg::Steps),
        threads: a.threads,
        max_memory: a
            .max_memory
            .unwrap_or_else(knights::memory::default_max_memory),
        checkpoint: a.checkpoint.clone(),
        scratch: a.scratch.clone(),
        abandon: Some(Arc::clone(&hurry)),
    };
    if a.order.is_none() {
        if let Some(o) = row::order_of_files(&job) {
            job.order = o;
        }
    }
    let mode = progress_mode(a);
    let display = Progress::new(mode, a.json || a.quiet);
    let kind = if a.closed { "closed" } else { "open" };
    if !a.json {
        emit(&format!(
            "{kind} tours of the {} on {}xk, k = {}..{} (one sweep along the longest):\n{:>6}  {:>28}  {:>28}\n",
            job.piece,
            job.width,
            job.lengths.start(),
            job.lengths.end(),
            "board",
            "directed",
            "undirected"
        ))?;
    }
    let json = a.json;
    let mut tell = |l: &row::Length, seconds: f64| {
        let text = if json {
            format!("{}\n", l.json(&job, seconds))
        } else {
            format!(
                "{:>6}  {:>28}  {:>28}\n",
                format!("{}x{}", l.rows, l.cols),
                knights::human::group(&l.directed),
                knights::human::group(&l.undirected)
            )
        };
        // a closed output (a pipe to `head`) ends the row as a stop would
        if emit(&text).is_err() {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let outcome = match display.run(|obs| row::run(&job, &stop, obs, &mut tell)) {
        Ok(o) => o,
        Err(driver::RunError::Disk(e)) => return Err(disk_failed_row(&job, &e).into()),
        Err(e) => return Err(e.into()),
    };
    if let Some(path) = &a.plot {
        let svg = row::plot_svg(&job, &outcome.lengths)?;
        std::fs::write(path, svg)
            .with_context(|| format!("cannot write the plot '{}'", path.display()))?;
    }
    if !outcome.finished {
        let told = outcome.lengths.len();
        match &job.checkpoint {
            Some(p) => eprintln!(
                "knights: interrupted; '{}' holds the lengths counted ({told} told in order){}; resume with: {}",
                p.display(),
                last_save(p),
                resume_command()
            ),
            None => eprintln!(
                "knights: interrupted after {told} length{} (with --checkpoint FILE a row can be resumed)",
                if told == 1 { "" } else { "s" }
            ),
        }
        return Ok(EXIT_INTERRUPTED);
    }
    if !json {
        let peak = outcome.peak.map_or(String::new(), |p| {
            let summed = if outcome.states_summed > 0 {
                let weighed = match outcome.lengths_weighed {
                    0 => String::new(),
                    n => format!(
                        "; {n} length{} from completions weighed there",
                        knights::human::plural(n)
                    ),
                };
                format!(
                    " ({} of them by sums over saturated columns{weighed})",
                    progress::group(outcome.states_summed)
                )
            } else {
                String::new()
            };
            format!(
                ", window of {} squares, peak {} states, {} states read{summed}",
                p.window,
                progress::group(p.states),
                progress::group(outcome.states_read)
            )
        });
        emit(&format!(
            "method: frontier sweep along the row, every length from the longest walk of its rule{peak} ({:.3} s)\n",
            outcome.seconds
        ))?;
    }
    Ok(0)
}

/// A row stopped by its disk: said with what was kept and what to do.
fn disk_failed_row(
    job: &knights::count::row::RowJob,
    e: &knights::durable::DiskError,
) -> crate::SystemFailure {
    let remedy = disk_remedy(&job.scratch_dir(), e);
    let kept = match &job.checkpoint {
        Some(p) => format!(
            "the lengths counted are kept in '{}'{}; {remedy}, then resume with: {}",
            p.display(),
            last_save(p),
            resume_command()
        ),
        None => format!(
            "nothing of the row is kept (with --checkpoint FILE a row can be resumed); {remedy}"
        ),
    };
    crate::SystemFailure(format!("{e}; {kept}"))
}

/// What to do about a disk that failed under the tables' scratch folder `scratch`.
fn disk_remedy(scratch: &std::path::Path, e: &knights::durable::DiskError) -> String {
    if e.is_full() {
        format!(
            "free some space in '{}', or give a folder on a larger disk with --scratch DIR (or a larger --max-memory, so that less goes to disk)",
            scratch.display()
        )
    } else {
        format!(
            "check the disk of '{}', or give another folder with --scratch DIR",
            scratch.display()
        )
    }
}
