//! `count ROWSxCOLS --lengths A..B`: the tours of every board `ROWS×k`, `k` from `A` to `B`, in
//! one sweep along the longest (see `frontier::row`), with a checkpoint of the lengths counted
//! and the sweep's work in progress beside it.
//!
//! The checkpoint is a text file: a header naming the row, then one line a length,
//! `LENGTH TOURS CRC` (the tours each counted once, unordered; the CRC-32 of `LENGTH TOURS` in
//! hex). It is replaced whole, atomically, at each length; the sweep's layers go beside it
//! (`FILE.layers`) as a one-board count's do.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use num_bigint::BigUint;
use serde_json::json;

use crate::board::Board;
use crate::durable::{CheckpointError, CheckpointLock};
use crate::engine::{CountSpec, Limits, Observer, Order, Peak, RunError, TreeSize};
use crate::error::Error;
use crate::piece::Piece;

/// The first line of a row's checkpoint.
const MAGIC: &str = "knights-row 1";

/// A row to count.
#[derive(Clone, Debug)]
pub struct RowJob {
    /// The side across (the board's rows).
    pub width: u32,
    /// The lengths (the board's columns).
    pub lengths: RangeInclusive<u32>,
    pub piece: Piece,
    pub closed: bool,
    /// The order the sweep takes each column's squares in (the same counts either way; the
    /// work in progress saved beside a checkpoint is read back only by the same order).
    pub order: Order,
    /// Whether the columns where the sweep's states have saturated are walked as sums over
    /// them, compiled once (the same counts either way; see `frontier::sums`).
    pub sums: bool,
    pub threads: Option<NonZeroUsize>,
    pub max_memory: u64,
    pub checkpoint: Option<PathBuf>,
    pub scratch: Option<PathBuf>,
    pub abandon: Option<std::sync::Arc<AtomicBool>>,
}

impl RowJob {
    /// The bounds the row's sweep works within.
    fn limits(&self) -> Limits {
        Limits {
            threads: self
                .threads
                .map_or_else(super::driver::default_threads, NonZeroUsize::get),
            max_memory: self.max_memory,
            force: true,
            shards: 1,
            checkpoint: self.checkpoint.clone(),
            split: None,
            scratch: self.scratch.clone(),
            tree: TreeSize::default(),
            abandon: self.abandon.clone(),
        }
    }

    /// Where the sweep's tables that pass the memory bound go: `--scratch`, else the
    /// checkpoint's folder, else the system's temporary folder.
    #[must_use]
    pub fn scratch_dir(&self) -> PathBuf {
        crate::frontier::scratch_dir(&self.limits())
    }
}

/// One length of a row, counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Length {
    pub rows: u32,
    pub cols: u32,
    /// Tours counted with their direction (twice the undirected, but on a board of one square).
    pub directed: BigUint,
    pub undirected: BigUint,
    /// Read from the checkpoint, not counted by this run.
    pub resumed: bool,
}

impl Length {
    fn new(rows: u32, cols: u32, tours: BigUint, resumed: bool) -> Length {
        let directed = if rows * cols == 1 {
            tours.clone()
        } else {
            &tours * 2u32
        };
        Length {
            rows,
            cols,
            directed,
            undirected: tours,
            resumed,
        }
    }

    /// The fields of a one-board count's JSON that a length has, and `seconds` (since the row
    /// started, when it was told; 0 for one read from the checkpoint).
    #[must_use]
    pub fn json(&self, job: &RowJob, seconds: f64) -> serde_json::Value {
        json!({
            "rows": self.rows,
            "cols": self.cols,
            "board": format!("{}x{}", self.rows, self.cols),
            "piece": job.piece.to_string(),
            "kind": if job.closed { "closed" } else { "open" },
            "directed": self.directed.to_string(),
            "undirected": self.undirected.to_string(),
            "engine": "frontier",
            "method": "row",
            "resumed": self.resumed,
            "seconds": seconds,
        })
    }
}

/// How a row ended.
#[derive(Debug)]
pub struct RowOutcome {
    /// Every length is known.
    pub finished: bool,
    pub lengths: Vec<Length>,
    pub peak: Option<Peak>,
    /// States the sweep's steps read (0 where every length was in the checkpoint).
    pub states_read: u64,
    /// Of those, the states read by sums over saturated columns.
    pub states_summed: u64,
    /// Lengths counted from completions weighed over the summed states, with no layer walked.
    pub lengths_weighed: u64,
    pub seconds: f64,
}

/// The order the sweep's work in progress beside the checkpoint of `job` was made in, for a
/// row given none (see [`crate::frontier::saved_order`]); `None` where none is saved (the
/// lengths a checkpoint holds are the same counts in any order).
#[must_use]
pub fn order_of_files(job: &RowJob) -> Option<Order> {
    let path = job.checkpoint.as_deref()?;
    crate::frontier::saved_order(&crate::durable::beside(path, ".layers"))
}

/// Checks what a row asks before any work: the lengths within the board's columns, the width
/// walkable in `order`.
pub fn check(
    board: Board,
    lengths: &RangeInclusive<u32>,
    piece: &Piece,
    order: Order,
) -> Result<(), Error> {
    let (a, b) = (*lengths.start(), *lengths.end());
    if a == 0 || a > b || b > board.cols {
        return Err(Error::Invalid(format!(
            "--lengths {a}..{b}: the lengths are the board's columns, from 1 to its {} ({board} counts the boards {}x1 to {board}), first no more than last",
            board.cols, board.rows
        )));
    }
    crate::frontier::row_supported(board.rows, b, piece, order)
}

/// Parses `A..B` (or `A..=B`, or one length `N`).
pub fn parse_lengths(s: &str) -> Result<RangeInclusive<u32>, String> {
    let bad = || {
        format!(
            "invalid lengths '{s}': expected FIRST..LAST, e.g. 1..30 (the board's columns; FIRST..=LAST or one length N too)"
        )
    };
    let num = |p: &str| p.trim().parse::<u32>().map_err(|_| bad());
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let n = num(s)?;
            (n, n)
        }
    };
    Ok(a..=b)
}

/// The header of a row's checkpoint.
fn header(job: &RowJob) -> String {
    format!(
        "{MAGIC}\nversion {}\nrows {}\nlengths {}..{}\npiece {}\nkind {}\n",
        env!("CARGO_PKG_VERSION"),
        job.width,
        job.lengths.start(),
        job.lengths.end(),
        job.piece,
        if job.closed { "closed" } else { "open" }
    )
}

fn line(length: u32, tours: &BigUint) -> String {
    let body = format!("{length} {tours}");
    format!("{body} {:08x}\n", crc32fast::hash(body.as_bytes()))
}

/// The lengths a row's checkpoint at `path` holds (none where there is no file). A file of
/// another row, or of a one-board count, is refused naming what it is; a damaged line too.
pub fn read_checkpoint(path: &Path, job: &RowJob) -> Result<BTreeMap<u32, BigUint>, RunError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => {
            return Err(CheckpointError::Io {
                action: "read",
                path: path.into(),
                source: e,
            }
            .into());
        }
    };
    let damaged = |why: String| -> RunError {
        CheckpointError::Damaged {
            path: path.into(),
            why,
        }
        .into()
    };
    if !text.starts_with(&format!("{MAGIC}\n")) {
        let what = if text.starts_with("knights-checkpoint") {
            "a one-board count's checkpoint: resume it without --lengths, or give another file"
        } else {
            "not a row's checkpoint (its first line is not 'knights-row 1')"
        };
        return Err(Error::Invalid(format!("'{}' is {what}", path.display())).into());
    }
    let want = header(job);
    let head: String = text.lines().take(6).map(|l| format!("{l}\n")).collect();
    if head != want {
        // the version may differ: a row counted by another build reads where the rest agrees
        let strip = |h: &str| {
            h.lines()
                .filter(|l| !l.starts_with("version "))
                .collect::<Vec<_>>()
                .join("\n")
        };
        if strip(&head) != strip(&want) {
            return Err(Error::Invalid(format!(
                "'{}' is the checkpoint of another row ({}); this one is {}: give another file",
                path.display(),
                strip(&head).lines().skip(1).collect::<Vec<_>>().join(", "),
                strip(&want).lines().skip(1).collect::<Vec<_>>().join(", "),
            ))
            .into());
        }
    }
    let mut out = BTreeMap::new();
    for (n, l) in text.lines().enumerate().skip(6) {
        let parts: Vec<&str> = l.split(' ').collect();
        let ok = match parts.as_slice() {
            [k, t, crc] => {
                let body = format!("{k} {t}");
                let crc_ok = u32::from_str_radix(crc, 16)
                    .is_ok_and(|c| c == crc32fast::hash(body.as_bytes()));
                match (k.parse::<u32>(), t.parse::<BigUint>()) {
                    (Ok(k), Ok(t)) if crc_ok && job.lengths.contains(&k) => {
                        out.insert(k, t);
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if !ok {
            return Err(damaged(format!(
                "line {} is not a length of this row with its checksum",
                n + 1
            )));
        }
    }
    Ok(out)
}

fn write_checkpoint(
    path: &Path,
    job: &RowJob,
    done: &BTreeMap<u32, BigUint>,
) -> Result<(), RunError> {
    let mut text = header(job);
    for (k, t) in done {
        text.push_str(&line(*k, t));
    }
    crate::durable::replace(path, text.as_bytes())?;
    Ok(())
}

/// Counts the row, calling `tell` with each length in order as soon as it and every shorter one
/// are known (those of the checkpoint first); stops early, its work saved where a checkpoint
/// is given, once `stop` is set.
pub fn run(
    job: &RowJob,
    stop: &AtomicBool,
    obs: &dyn Observer,
    tell: &mut (dyn FnMut(&Length, f64) + Send),
) -> Result<RowOutcome, RunError> {
    let t0 = Instant::now();
    let board = Board::new(job.width, *job.lengths.end())?;
    check(board, &job.lengths, &job.piece, job.order)?;
    let _lock = job
        .checkpoint
        .as_deref()
        .map(CheckpointLock::acquire)
        .transpose()?;
    // the files runs that ended left beside the checkpoint (temporaries of a write cut short)
    if let Some(path) = &job.checkpoint {
        crate::durable::sweep_beside(path);
    }
    // the lengths the checkpoint holds (told as resumed), and those this run counts
    let known = match &job.checkpoint {
        Some(p) => read_checkpoint(p, job)?,
        None => BTreeMap::new(),
    };
    let mut done = known.clone();
    let mut lengths = Vec::new();
    let mut next = *job.lengths.start();
    let end = *job.lengths.end();
    // tells the lengths known in order from `next` on
    let mut tell_known = |done: &BTreeMap<u32, BigUint>, next: &mut u32, lengths: &mut Vec<_>| {
        while let Some(t) = done.get(next).filter(|_| *next <= end) {
            let l = Length::new(job.width, *next, t.clone(), known.contains_key(next));
            tell(&l, t0.elapsed().as_secs_f64());
            lengths.push(l);
            *next += 1;
        }
    };
    tell_known(&done, &mut next, &mut lengths);
    let ran = if next > end {
        None
    } else {
        let mut record = |k: u32, t: &BigUint| -> Result<(), RunError> {
            done.insert(k, t.clone());
            if let Some(p) = &job.checkpoint {
                write_checkpoint(p, job, &done)?;
            }
            tell_known(&done, &mut next, &mut lengths);
            Ok(())
        };
        // given no --threads, the threads the memory bound holds (as a count's)
        let spec = CountSpec {
            closed: job.closed,
            order: job.order,
            ..CountSpec::default()
        };
        let threads = job
            .threads
            .or_else(|| super::driver::threads_held(board, &job.piece, &spec, job.max_memory, obs));
        let mut limits = job.limits();
        limits.threads = threads.map_or(limits.threads, NonZeroUsize::get);
        Some(super::driver::with_threads(threads, || {
            crate::frontier::row(
                job.width,
                job.lengths.clone(),
                &job.piece,
                job.closed,
                job.order,
                &limits,
                &known,
                job.sums,
                stop,
                obs,
                &mut record,
            )
        })??)
    };
    Ok(RowOutcome {
        finished: next > end,
        lengths,
        peak: ran.as_ref().map(|r| r.peak),
        states_read: ran.as_ref().map_or(0, |r| r.states_read),
        states_summed: ran.as_ref().map_or(0, |r| r.states_summed),
        lengths_weighed: ran.as_ref().map_or(0, |r| r.lengths_weighed),
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Drawing the row's picture failed (plotters' own error, as text).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the row's plot: {0}")]
pub struct PlotError(String);

/// The row's counts as an SVG picture: the decimal digits of each length's undirected count
/// (its logarithm, so that growth by a steady factor a column is a straight line), a point a
/// length with tours; lengths without tours are left out and said in the caption.
pub fn plot_svg(job: &RowJob, lengths: &[Length]) -> Result<String, PlotError> {
    use plotters::prelude::*;
    let fail = |e: &dyn std::fmt::Display| PlotError(e.to_string());
    let points: Vec<(f64, f64)> = lengths
        .iter()
        .filter(|l| l.undirected > BigUint::ZERO)
        .map(|l| (f64::from(l.cols), log10(&l.undirected)))
        .collect();
    let none = lengths.len() - points.len();
    let (a, b) = (*job.lengths.start(), *job.lengths.end());
    let top = points.iter().map(|p| p.1).fold(1.0f64, f64::max).ceil();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (820, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let caption = format!(
            "{} {} tours of the {} on {}xk, k = {a}..{b}{}",
            if job.closed { "closed" } else { "open" },
            "undirected",
            job.piece,
            job.width,
            if none > 0 {
                format!(" ({none} without tours)")
            } else {
                String::new()
            }
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(f64::from(a) - 0.5..f64::from(b) + 0.5, 0f64..top)
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc("length k (columns)")
            .y_desc("log10 of the count")
            .draw()
            .map_err(|e| fail(&e))?;
        let c = RGBColor(46, 139, 87);
        chart
            .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
            .map_err(|e| fail(&e))?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, c.filled())))
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(text)
}

/// The decimal logarithm of a count of any size.
fn log10(n: &BigUint) -> f64 {
    let bits = n.bits();
    if bits <= 60 {
        return (u64::try_from(n).unwrap_or(u64::MAX) as f64).log10();
    }
    // the top 60 bits, scaled
    let shift = bits - 60;
    let top = u64::try_from(n >> shift).unwrap_or(u64::MAX) as f64;
    top.log10() + shift as f64 * std::f64::consts::LOG10_2
}
