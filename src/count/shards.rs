//! Pieces put together from many files: the shard checkpoints and ledger records of one run
//! merged into its total, or into what is left, named (`knights merge`, `knights status`).

use std::path::PathBuf;
use std::time::Instant;

use num_bigint::BigUint;

use super::checkpoint::{self, Shard};
use super::report::Report;
use super::{Count, Engine, obstruction};
use crate::engine::Recorded;
use crate::error::Error;
use crate::human::{group_u64, plural};

use super::driver::*;

/// Shard checkpoints put together.
#[derive(Clone, Debug)]
pub enum Merged {
    /// Every piece is counted: the total.
    Total {
        job: Job,
        outcome: Outcome,
        /// The number of shards the run was split into.
        shards: u32,
    },
    /// Shards are missing, given twice or of another run, or pieces are unfinished: no total.
    Partial {
        job: Job,
        engine: Engine,
        units: usize,
        units_done: usize,
        /// The directed tours of the pieces counted so far.
        so_far: BigUint,
        missing: Vec<Shard>,
        unfinished: usize,
        /// Shards given in more than one file, with the files.
        duplicated: Vec<(Shard, Vec<PathBuf>)>,
        /// Files of another run (or cut into another number of shards), and why.
        foreign: Vec<(PathBuf, String)>,
        /// Whether the files are a ledger's records (a piece each), not shards' checkpoints.
        records: bool,
        /// The number of shards the run was split into.
        shards: u32,
    },
}

/// Puts the checkpoints of a sharded count together (see [`checkpoint::merge`]).
pub fn merge(paths: &[PathBuf], obs: &dyn Observer) -> Result<Merged, RunError> {
    let t0 = Instant::now();
    // a ledger folder's notes of pieces left for more memory come with `DIR/*`: not records
    // (only `.left` files are read for it: the records are read once, below)
    let (notes, records): (Vec<PathBuf>, Vec<PathBuf>) = paths.iter().cloned().partition(|p| {
        p.extension().is_some_and(|x| x == "left")
            && checkpoint::LeftForMemory::read_at(p).is_some()
    });
    if !notes.is_empty() {
        obs.info(&format!(
            "{} note{} of pieces left for more memory skipped ('{}'{}): `knights status` of the ledger's folder names the pieces",
            notes.len(),
            plural(notes.len() as u64),
            notes[0].display(),
            if notes.len() > 1 { " and others" } else { "" }
        ));
    }
    merge_read(&checkpoint::read_all(&records)?, obs, t0)
}

/// [`merge`] of checkpoints already read (`knights status DIR` reads a ledger's records once,
/// for the merge and for their figures); `t0` is when the reading began.
pub(crate) fn merge_read(
    files: &[checkpoint::Loaded],
    obs: &dyn Observer,
    t0: Instant,
) -> Result<Merged, RunError> {
    for f in files.iter().filter(|f| f.damaged > 0) {
        obs.warn(&format!(
            "{} '{}': {} line(s) that do not check ignored (damaged, or copied from another file: each line's checksum ties it to its file's header); a piece no other file gives stays unfinished",
            if f.ledger { "ledger record" } else { "checkpoint" },
            f.path.display(),
            f.damaged
        ));
    }
    let m = checkpoint::merge(files)?;
    let shards = m.id.shard_count;
    let id = &m.id.run;
    let (piece, spec) = id.request()?;
    let board = id.board;
    let engine = Engine::from_name(&id.engine).ok_or_else(|| {
        Error::Invalid(format!(
            "the checkpoints name an engine this program does not have: '{}'",
            crate::error::clip(&id.engine)
        ))
    })?;
    let job = Job::new(board, piece, spec, engine);
    check(&job, engine)?;
    let recorded = Recorded {
        pieces: id.units,
        param: id.split,
        fingerprint: id.fingerprint,
    };
    if !m.complete() {
        // the pieces counted so far, added up as the total would be
        let so_far = if m.done.is_empty() || obstruction(board, &job.piece, &job.spec).is_some() {
            BigUint::ZERO
        } else {
            engine_for(engine)
                .total(job.request(), &recorded, &m.done, false)?
                .directed
        };
        return Ok(Merged::Partial {
            so_far,
            units: id.units,
            units_done: m.done.len(),
            missing: m.missing,
            unfinished: m.unfinished,
            duplicated: m.duplicated,
            foreign: m.foreign,
            records: !files.is_empty() && files.iter().all(|f| f.ledger),
            shards,
            engine,
            job,
        });
    }
    let mut count = match obstruction(board, &job.piece, &job.spec) {
        Some(reason) => Count::settled(board, &job.spec, reason, 0.0),
        None => engine_for(engine).total(job.request(), &recorded, &m.done, true)?,
    };
    count.seconds = t0.elapsed().as_secs_f64();
    let outcome = Outcome {
        count,
        engine,
        threads: 0,
        units: id.units,
        units_done: id.units,
        units_mine: id.units,
        shard: Shard::ALL,
        finished: true,
        checkpoint: None,
    };
    Ok(Merged::Total {
        job,
        outcome,
        shards,
    })
}

impl Merged {
    /// The text `knights merge` prints.
    #[must_use]
    pub fn text(&self, files: usize) -> String {
        let from = format!(", merged from {files} checkpoint{}", plural(files as u64));
        match self {
            Merged::Total { job, outcome, .. } => {
                let mut r = outcome.report(job);
                r.scope = from;
                r.text(&outcome.count)
            }
            Merged::Partial {
                job,
                engine,
                units,
                units_done,
                so_far,
                missing,
                unfinished,
                duplicated,
                foreign,
                records,
                shards,
            } => {
                let mut r = Report::new(job.board, &job.piece, &job.spec, engine.name(), 0);
                r.scope = from;
                let mut s = format!(
                    "{}: no total, the run is not finished\n{} of {} {}s counted, {} directed tours in them\n",
                    r.describe(),
                    group_u64(*units_done as u64),
                    group_u64(*units as u64),
                    piece_name(*engine),
                    crate::human::group(so_far)
                );
                if !missing.is_empty() {
                    let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
                    s += &format!(
                        "missing shards: {} (their checkpoints were not given)\n",
                        names.join(", ")
                    );
                }
                for (shard, paths) in duplicated {
                    let names: Vec<String> =
                        paths.iter().map(|p| format!("'{}'", p.display())).collect();
                    s += &format!(
                        "shard {shard} is given {} times: {} (give each shard's checkpoint once)\n",
                        paths.len(),
                        names.join(", ")
                    );
                }
                for (path, why) in foreign {
                    s += &format!(
                        "'{}' is not of this run: {why} (leave it out)\n",
                        path.display()
                    );
                }
                if *unfinished > 0 {
                    // what finishes them: a ledger's command counts what no record holds, a
                    // run of one process resumes from its checkpoint
                    let how = if *records {
                        "no record holds them: the count's command with --ledger DIR counts only the pieces the folder lacks"
                    } else if *shards > 1 {
                        "in the shards given: run those shards again with the same command to finish them"
                    } else {
                        "run the count again with the same command and its checkpoint to finish them"
                    };
                    s += &format!(
                        "unfinished {}s: {} ({how})\n",
                        piece_name(*engine),
                        group_u64(*unfinished as u64)
                    );
                }
                s
            }
        }
    }

    /// The JSON `knights merge --json` prints: the fields of `count --json` when complete.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        match self {
            Merged::Total {
                job,
                outcome,
                shards,
            } => {
                let mut v = outcome.json(job);
                v["shards"] = serde_json::json!(shards);
                v
            }
            Merged::Partial {
                job,
                engine,
                units,
                units_done,
                so_far,
                missing,
                unfinished,
                duplicated,
                foreign,
                ..
            } => {
                let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
                let duplicated: Vec<serde_json::Value> = duplicated
                    .iter()
                    .map(|(s, paths)| {
                        serde_json::json!({
                            "shard": s.to_string(),
                            "files": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                let foreign: Vec<serde_json::Value> = foreign
                    .iter()
                    .map(
                        |(p, why)| serde_json::json!({"file": p.display().to_string(), "why": why}),
                    )
                    .collect();
                serde_json::json!({
                    "board": job.board.to_string(),
                    "rows": job.board.rows,
                    "cols": job.board.cols,
                    "piece": job.piece.to_string(),
                    "closed": job.spec.closed,
                    "from": job.spec.from.map(|s| job.board.name(s)),
                    "to": job.spec.to.map(|s| job.board.name(s)),
                    "engine": engine.name(),
                    "complete": false,
                    "units": units,
                    "units_done": units_done,
                    "directed_so_far": super::report::json_int(so_far),
                    "pieces": units,
                    "shard": null,
                    "checkpoint": null,
                    "missing_shards": missing,
                    "unfinished_units": unfinished,
                    "duplicated_shards": duplicated,
                    "foreign_files": foreign,
                })
            }
        }
    }
}
