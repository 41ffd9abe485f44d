//! The `knights` command: parses arguments, calls the library, prints. Exit codes: 0 success,
//! 1 nothing found (no tour, invalid tour), 2 usage or input error, 130 interrupted.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use mimalloc::MiMalloc;

use knights::count::{
    self, Checkpoint, Count, CountSpec, Engine, Plan, RunId, Shard, Tally, checkpoint,
};
use knights::find::{self, FindError, FindOptions};
use knights::render::{self, Format, parse::ParseError};
use knights::{Board, Piece, Square, tour};

mod cli;
mod progress;

use cli::{Cli, Command, CountArgs, EngineArg, MergeArgs, ProgressArg, TourArgs, VerifyArgs};
use progress::{Progress, group};

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
    match run(cli) {
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

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Tour(a) => run_tour(&a),
        Command::Verify(a) => run_verify(&a),
        Command::Count(a) => run_count(&a),
        Command::Merge(a) => run_merge(&a),
    }
}

/// Checks that an optional square lies on the board.
fn on_board(board: Board, sq: Option<Square>, what: &str) -> Result<Option<Square>> {
    sq.map(|s| board.check_square(s).with_context(|| what.to_string()))
        .transpose()
}

fn run_tour(a: &TourArgs) -> Result<u8> {
    let board = a.board;
    let from = on_board(board, a.from, "--from")?;
    let t0 = Instant::now();
    let opts = FindOptions::new(a.closed, from, a.seed);
    let found = match find::find_tour(board, &a.piece.piece, &opts) {
        Ok(f) => f,
        Err(FindError::Input(e)) => return Err(e.into()),
        Err(e @ FindError::Internal(_)) => return Err(e.into()),
        Err(e) => {
            eprintln!("knights: {e}");
            return Ok(EXIT_NOT_FOUND);
        }
    };
    let t = &found.tour;
    let summary = format!(
        "{} tour of {} by the {} from {} to {}, verified ({}, {:.3} s)\n",
        if t.closed { "closed" } else { "open" },
        board,
        a.piece.piece,
        board.name(t.path[0]),
        board.name(t.path[t.path.len() - 1]),
        found.method,
        t0.elapsed().as_secs_f64()
    );
    let body = render::render(t, &a.piece.piece, a.format);
    match a.format {
        Format::Grid => emit(&(body + &summary))?,
        Format::None => emit(&summary)?,
        _ => emit(&body)?,
    }
    Ok(0)
}

fn run_verify(a: &VerifyArgs) -> Result<u8> {
    let text = if a.file.as_os_str() == "-" {
        let mut s = String::new();
        io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the tour from standard input")?;
        s
    } else {
        std::fs::read_to_string(&a.file)
            .with_context(|| format!("cannot read '{}'", a.file.display()))?
    };
    let (board, path) = match render::parse::parse_tour(&text, a.board) {
        Ok(p) => p,
        Err(ParseError::Format(m)) => anyhow::bail!(m),
        Err(ParseError::Numbering(m)) => {
            emit(&format!("invalid: {m}\n"))?;
            return Ok(EXIT_NOT_FOUND);
        }
    };
    let piece = &a.piece.piece;
    match tour::Tour::verified(board, piece, path, a.closed) {
        Ok(t) => {
            emit(&format!(
                "valid {} tour of {} by the {} ({} squares, {} to {})\n",
                if t.closed { "closed" } else { "open" },
                board,
                piece,
                t.path.len(),
                board.name(t.path[0]),
                board.name(t.path[t.path.len() - 1])
            ))?;
            Ok(0)
        }
        Err(e) => {
            emit(&format!("invalid: {e}\n"))?;
            Ok(EXIT_NOT_FOUND)
        }
    }
}

/// Runs `f` on a pool of `threads` workers, or on rayon's global pool (every core).
fn with_threads<T: Send>(
    threads: Option<std::num::NonZeroUsize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T> {
    match threads {
        None => Ok(f()),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n.get())
                .build()
                .context("cannot start threads")?;
            Ok(pool.install(f))
        }
    }
}

fn spec_of(a: &CountArgs) -> Result<(CountSpec, Engine)> {
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
        EngineArg::Naive => Engine::Naive,
    };
    count::check(board, &spec, engine)?;
    Ok((spec, engine))
}

/// Set by Ctrl-C or SIGTERM: no new work unit starts.
static STOP: AtomicBool = AtomicBool::new(false);

fn run_count(a: &CountArgs) -> Result<u8> {
    let board = a.board;
    let (spec, engine) = spec_of(a)?;
    let piece = &a.piece.piece;
    let threads = a
        .threads
        .map_or_else(rayon::current_num_threads, std::num::NonZeroUsize::get);
    let long = a.checkpoint.is_some() || a.shard.is_some();
    if engine == Engine::Naive && long {
        anyhow::bail!(
            "--checkpoint and --shard split the count into work units, which only the dfs engine does; drop --engine naive"
        );
    }
    if engine == Engine::Naive || count::obstruction(board, piece, &spec).is_some() {
        let c = with_threads(a.threads, || count::count(board, piece, &spec, engine))??;
        let engine_name = if engine == Engine::Naive {
            "naive"
        } else {
            "dfs"
        };
        let r = Report::new(board, piece, &spec, engine_name, threads);
        if a.json {
            emit(&(count_json(&r, &c).to_string() + "\n"))?;
        } else {
            emit(&count_text(&r, &c))?;
        }
        return Ok(0);
    }
    if !a.force {
        // shards run side by side, so the whole run's estimate is shared among them
        let shards = a.shard.map_or(1, |s| s.count as usize);
        let secs = count::check_reach(board, piece, &spec, threads * shards)?;
        if secs > 60.0 && !a.json && !a.quiet {
            eprintln!(
                "knights: this count may take about {} (a rough estimate)",
                count::human_duration(secs)
            );
        }
    }
    run_units(a, &spec, threads)
}

/// What the worker threads share while counting units.
struct Shared {
    done: BTreeMap<usize, u64>,
    checkpoint: Option<Checkpoint>,
    error: Option<count::CheckpointError>,
}

/// A count split into work units, recorded in a checkpoint if asked, stopped by a signal.
fn run_units(a: &CountArgs, spec: &CountSpec, threads: usize) -> Result<u8> {
    let (board, piece) = (a.board, &a.piece.piece);
    let t0 = Instant::now();
    let plan = Plan::new(board, piece, spec);
    let units = plan.units(count::UNIT_TARGET);
    let shard = a.shard.unwrap_or(Shard::ALL);
    let id = RunId {
        shard,
        ..RunId::new(board, piece, spec, "dfs", &plan, count::UNIT_TARGET, &units)
    };
    let (checkpoint, done) = match &a.checkpoint {
        Some(path) => {
            let (c, loaded) = Checkpoint::open(path, &id)?;
            if loaded.damaged > 0 {
                eprintln!(
                    "knights: checkpoint '{}': {} damaged line{} dropped; {} counted again",
                    path.display(),
                    loaded.damaged,
                    if loaded.damaged == 1 { "" } else { "s" },
                    if loaded.damaged == 1 {
                        "its unit is"
                    } else {
                        "their units are"
                    }
                );
            }
            (Some(c), loaded.done)
        }
        None => (None, BTreeMap::new()),
    };
    let mine = shard.units(units.len());
    let pending: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|u| !done.contains_key(u))
        .collect();
    let weight = |u: usize| plan.roots[units[u].root as usize].multiplier;
    let shown = |sum: u64| {
        let (d, u) = count::tally(plan.tally, sum, board.squares());
        if plan.tally == Tally::Cycles { u } else { d }
    };
    let mode = match (a.quiet, a.progress) {
        (true, _) | (_, ProgressArg::None) => progress::Mode::None,
        (_, ProgressArg::Bar) => progress::Mode::Bar,
        (_, ProgressArg::Plain) => progress::Mode::Plain,
        (_, ProgressArg::Auto) if io::stderr().is_terminal() => progress::Mode::Bar,
        (_, ProgressArg::Auto) => progress::Mode::None,
    };
    let sum0: u64 = done.iter().map(|(&u, &c)| weight(u) * c).sum();
    let progress = Progress::new(mode, mine.len() as u64, done.len() as u64, shown(sum0));
    let shared = Mutex::new(Shared {
        done,
        checkpoint,
        error: None,
    });
    // a second signal ends the process at once: every finished unit is already in the file
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::Relaxed) {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })
    .context("cannot catch Ctrl-C")?;
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<()> {
        // the plain display's ticker; parked between lines and woken at the end, so a short
        // count does not wait for it
        let ticker = (mode == progress::Mode::Plain).then(|| {
            scope.spawn(|| {
                let mut last = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::park_timeout(Duration::from_millis(250));
                    if last.elapsed() >= progress::PLAIN_EVERY {
                        last = Instant::now();
                        if let Some(line) = progress.line() {
                            eprintln!("{line}");
                        }
                    }
                }
            })
        });
        let result = with_threads(a.threads, || {
            count::count_each(&plan, &units, &pending, &STOP, |u, c| {
                // the lock also orders the checkpoint's lines; a write is short next to a unit
                let mut s = shared
                    .lock()
                    .expect("no worker panics while holding the lock");
                s.done.insert(u, c);
                if let Some(ck) = &mut s.checkpoint {
                    if let Err(e) = ck.record(u, c) {
                        s.error.get_or_insert(e);
                        STOP.store(true, Ordering::Relaxed);
                    }
                }
                drop(s);
                progress.add(shown(weight(u) * c));
            })
        });
        finished.store(true, Ordering::Relaxed);
        if let Some(t) = &ticker {
            t.thread().unpark();
        }
        result.map(|_| ())
    })?;
    progress.finish();
    let mut shared = shared.into_inner().expect("the workers are done");
    if let Some(e) = shared.error {
        return Err(e.into());
    }
    if let Some(ck) = &mut shared.checkpoint {
        ck.sync()?;
    }
    let done = shared.done;
    let done_mine = mine.iter().filter(|u| done.contains_key(u)).count();
    let counted_all = done_mine == mine.len();
    let complete = counted_all && shard.count == 1;
    let counts: Vec<u64> = (0..units.len())
        .map(|u| done.get(&u).copied().unwrap_or(0))
        .collect();
    let c = Count::from_units(
        board,
        &plan,
        &units,
        &counts,
        complete && spec.per_square,
        t0.elapsed().as_secs_f64(),
    );
    let mut r = Report::new(board, piece, spec, "dfs", threads);
    let mut notes = Vec::new();
    if !counted_all {
        r.scope = format!(
            ", interrupted after {} of {} units",
            progress::group(done_mine as u64),
            progress::group(mine.len() as u64)
        );
    }
    if shard.count > 1 {
        r.scope += &format!(
            ", shard {shard} ({} of {} units)",
            progress::group(mine.len() as u64),
            progress::group(units.len() as u64)
        );
        notes.push(format!("shard {shard} only, not the total: put the shards' checkpoints together with `knights merge FILE...`"));
    }
    let code = if counted_all {
        0
    } else {
        match &a.checkpoint {
            Some(p) => eprintln!(
                "knights: interrupted; '{}' holds {} of {} units; resume with: {}",
                p.display(),
                progress::group(done_mine as u64),
                progress::group(mine.len() as u64),
                resume_command()
            ),
            None => eprintln!(
                "knights: interrupted; the counted units are lost (with --checkpoint FILE a count can be resumed)"
            ),
        }
        EXIT_INTERRUPTED
    };
    if a.json {
        let mut v = count_json(&r, &c);
        v["units"] = serde_json::json!(units.len());
        v["units_done"] = serde_json::json!(done_mine);
        v["shard"] = serde_json::json!((shard.count > 1).then(|| shard.to_string()));
        v["complete"] = serde_json::json!(complete);
        v["checkpoint"] = serde_json::json!(a.checkpoint.as_ref().map(|p| p.display().to_string()));
        emit(&(v.to_string() + "\n"))?;
    } else {
        let mut text = count_text(&r, &c);
        for n in notes {
            text += &format!("{n}\n");
        }
        emit(&text)?;
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

fn run_merge(a: &MergeArgs) -> Result<u8> {
    let t0 = Instant::now();
    let files = a
        .files
        .iter()
        .map(|p| checkpoint::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    for f in files.iter().filter(|f| f.damaged > 0) {
        eprintln!(
            "knights: checkpoint '{}': {} damaged line(s) dropped; their units count as unfinished",
            f.path.display(),
            f.damaged
        );
    }
    let m = checkpoint::merge(&files)?;
    let id = &m.id;
    let (piece, spec) = id.request()?;
    let board = id.board;
    count::check(board, &spec, Engine::Dfs)?;
    let plan = Plan::new(board, &piece, &spec);
    let units = plan.units(id.split);
    let ours = RunId::new(board, &piece, &spec, &id.engine, &plan, id.split, &units);
    if ours.fingerprint != id.fingerprint || ours.units != id.units {
        anyhow::bail!(
            "the checkpoints were written by knights {} whose work units differ from this program's ({}); merge them with that version",
            id.version,
            ours.version
        );
    }
    let mut r = Report::new(board, &piece, &spec, &id.engine, 0);
    r.scope = format!(
        ", merged from {} checkpoint{}",
        files.len(),
        if files.len() == 1 { "" } else { "s" }
    );
    if !m.complete() {
        let missing: Vec<String> = m.missing.iter().map(ToString::to_string).collect();
        if a.json {
            let v = serde_json::json!({
                "board": board.to_string(),
                "piece": piece.to_string(),
                "closed": spec.closed,
                "complete": false,
                "units": id.units,
                "units_done": m.done.len(),
                "missing_shards": missing,
                "unfinished_units": m.unfinished,
            });
            emit(&(v.to_string() + "\n"))?;
        } else {
            let mut s = format!("{}: no total, the run is not finished\n", describe(&r));
            if !missing.is_empty() {
                s += &format!(
                    "missing shards: {} (their checkpoints were not given)\n",
                    missing.join(", ")
                );
            }
            if m.unfinished > 0 {
                s += &format!(
                    "unfinished units: {} in the shards given (run those shards again with the same command to finish them)\n",
                    progress::group(m.unfinished as u64)
                );
            }
            emit(&s)?;
        }
        return Ok(EXIT_NOT_FOUND);
    }
    let counts: Vec<u64> = (0..units.len()).map(|u| m.done[&u]).collect();
    let c = Count::from_units(
        board,
        &plan,
        &units,
        &counts,
        spec.per_square,
        t0.elapsed().as_secs_f64(),
    );
    if a.json {
        let mut v = count_json(&r, &c);
        v["units"] = serde_json::json!(units.len());
        v["units_done"] = serde_json::json!(units.len());
        v["shards"] = serde_json::json!(id_shards(&files));
        v["complete"] = serde_json::json!(true);
        emit(&(v.to_string() + "\n"))?;
    } else {
        emit(&count_text(&r, &c))?;
    }
    Ok(0)
}

fn id_shards(files: &[checkpoint::Loaded]) -> u32 {
    files.first().map_or(1, |f| f.id.shard.count)
}

/// How a count is described when printed.
struct Report<'a> {
    board: Board,
    piece: &'a Piece,
    spec: &'a CountSpec,
    engine: &'a str,
    /// Worker threads; 0 for a merge, which runs none.
    threads: usize,
    /// Appended to the description: which part of the run this is.
    scope: String,
}

impl<'a> Report<'a> {
    fn new(
        board: Board,
        piece: &'a Piece,
        spec: &'a CountSpec,
        engine: &'a str,
        threads: usize,
    ) -> Report<'a> {
        Report {
            board,
            piece,
            spec,
            engine,
            threads,
            scope: String::new(),
        }
    }
}

fn describe(r: &Report<'_>) -> String {
    let b = r.board;
    let mut s = format!(
        "{} {} tours of the {}",
        b,
        if r.spec.closed { "closed" } else { "open" },
        r.piece
    );
    if let Some(f) = r.spec.from {
        s += &format!(" from {}", b.name(f));
    }
    if let Some(t) = r.spec.to {
        s += &format!(" to {}", b.name(t));
    }
    s + &r.scope
}

fn count_text(r: &Report<'_>, c: &Count) -> String {
    let spec = r.spec;
    let mut s = describe(r);
    if spec.closed && (spec.from.is_none() || spec.to.is_none()) {
        s += &format!(
            ": {} (undirected cycles), {} directed\n",
            group(c.undirected),
            group(c.directed)
        );
    } else if !spec.closed && spec.from.is_none() && spec.to.is_none() {
        s += &format!(
            ": {} directed, {} undirected\n",
            group(c.directed),
            group(c.undirected)
        );
    } else {
        s += &format!(": {}\n", group(c.directed));
    }
    if let Some(reason) = &c.reason {
        s += &format!("reason: {reason}\n");
    }
    let ran = if r.threads == 0 {
        "merged".to_string()
    } else {
        format!(
            "{} thread{}",
            r.threads,
            if r.threads == 1 { "" } else { "s" }
        )
    };
    s += &format!(
        "method: {} ({} engine, {ran}, {:.3} s)\n",
        c.how, r.engine, c.seconds
    );
    if let Some(table) = &c.per_square {
        s += &per_square_grid(r.board, table);
    }
    s
}

fn per_square_grid(b: Board, table: &[u64]) -> String {
    let w = table
        .iter()
        .map(|n| n.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    let mut s = String::from("directed open tours by start square:\n");
    for r in (0..b.rows).rev() {
        s += &format!("{:>3} ", r + 1);
        for c in 0..b.cols {
            s += &format!(" {:>w$}", table[(r * b.cols + c) as usize]);
        }
        s.push('\n');
    }
    s += "    ";
    for c in 0..b.cols {
        s += &format!(" {:>w$}", knights::board::file_name(c));
    }
    s.push('\n');
    s
}

fn count_json(r: &Report<'_>, c: &Count) -> serde_json::Value {
    let (b, spec, engine, threads) = (r.board, r.spec, r.engine, r.threads);
    let mut v = serde_json::json!({
        "board": b.to_string(),
        "rows": b.rows,
        "cols": b.cols,
        "piece": r.piece.to_string(),
        "closed": spec.closed,
        "from": spec.from.map(|s| b.name(s)),
        "to": spec.to.map(|s| b.name(s)),
        "directed": c.directed,
        "undirected": c.undirected,
        "engine": engine,
        "threads": threads,
        "seconds": c.seconds,
        "how": c.how,
        "reason": c.reason.as_ref().map(ToString::to_string),
    });
    if let Some(table) = &c.per_square {
        let rows: Vec<Vec<u64>> = (0..b.rows)
            .map(|r| table[(r * b.cols) as usize..((r + 1) * b.cols) as usize].to_vec())
            .collect();
        v["per_square"] = serde_json::json!(rows);
    }
    v
}
