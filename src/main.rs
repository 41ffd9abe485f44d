//! The `knights` command: parses arguments, calls the library, prints. Exit codes: 0 success,
//! 1 nothing found (no tour, invalid tour), 2 usage or input error, 130 interrupted.

use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use mimalloc::MiMalloc;

use knights::count::{self, Count, CountSpec, Engine};
use knights::find::{self, FindError, FindOptions};
use knights::render::{self, Format, parse::ParseError};
use knights::{Board, Square, tour};

mod cli;

use cli::{Cli, Command, CountArgs, EngineArg, TourArgs, VerifyArgs};

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

const EXIT_NOT_FOUND: u8 = 1;
const EXIT_USAGE: u8 = 2;

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
    }
}

/// Checks that an optional square lies on the board.
fn on_board(board: Board, sq: Option<Square>, what: &str) -> Result<Option<Square>> {
    sq.map(|s| {
        board
            .parse_square(&format!("{},{}", s.col + 1, s.row + 1))
            .map_err(|_| square_off(board, s, what))
    })
    .transpose()
}

fn square_off(board: Board, s: Square, what: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{what} square {} is off the {board} board (files a..{}, ranks 1..{})",
        board.name(s),
        knights::board::file_name(board.cols - 1),
        board.rows
    )
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

fn run_count(a: &CountArgs) -> Result<u8> {
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
    let threads = a
        .threads
        .map_or_else(rayon::current_num_threads, std::num::NonZeroUsize::get);
    let c = with_threads(a.threads, || {
        count::count(board, &a.piece.piece, &spec, engine)
    })??;
    let engine_name = if engine == Engine::Naive {
        "naive"
    } else {
        "dfs"
    };
    if a.json {
        emit(&(count_json(a, &spec, &c, engine_name, threads).to_string() + "\n"))?;
    } else {
        emit(&count_text(a, &spec, &c, engine_name, threads))?;
    }
    Ok(0)
}

fn describe(a: &CountArgs, spec: &CountSpec) -> String {
    let b = a.board;
    let mut s = format!(
        "{} {} tours of the {}",
        b,
        if spec.closed { "closed" } else { "open" },
        a.piece.piece
    );
    if let Some(f) = spec.from {
        s += &format!(" from {}", b.name(f));
    }
    if let Some(t) = spec.to {
        s += &format!(" to {}", b.name(t));
    }
    s
}

fn count_text(a: &CountArgs, spec: &CountSpec, c: &Count, engine: &str, threads: usize) -> String {
    let mut s = describe(a, spec);
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
    if let Some(r) = &c.reason {
        s += &format!("reason: {r}\n");
    }
    s += &format!(
        "method: {} ({engine} engine, {threads} thread{}, {:.3} s)\n",
        c.how,
        if threads == 1 { "" } else { "s" },
        c.seconds
    );
    if let Some(table) = &c.per_square {
        s += &per_square_grid(a.board, table);
    }
    s
}

/// Thousands separated by commas.
fn group(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
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

fn count_json(
    a: &CountArgs,
    spec: &CountSpec,
    c: &Count,
    engine: &str,
    threads: usize,
) -> serde_json::Value {
    let b = a.board;
    let mut v = serde_json::json!({
        "board": b.to_string(),
        "rows": b.rows,
        "cols": b.cols,
        "piece": a.piece.piece.to_string(),
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
