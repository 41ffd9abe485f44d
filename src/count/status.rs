//! What a checkpoint holds, for `knights status`: the run, its progress (pieces counted, tours
//! so far, the frontier engine's stage in progress), when it was last written, whether a
//! process is counting it now, and the time left at the rate its records show.
//!
//! Everything is read, nothing trusted: a damaged log header or saved stage is an error that
//! names the damage; damaged log lines are counted and reported (a resumed count drops them and
//! counts their pieces again).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::checkpoint::{self, Loaded};
use super::driver::piece_name;
use super::report::{Report, json_int};
use super::{Count, Engine};
use crate::durable::{CheckpointError, beside};
use crate::engine::{CountSpec, Recorded, Request, RunError};
use crate::error::Error;
use crate::frontier::snapshot::{self, Header};
use crate::human::{group, group_u64, human_duration, plural};
use crate::piece::Piece;

/// A saved stage of a frontier count beside the log.
#[derive(Clone, Debug)]
pub struct Stage {
    pub path: PathBuf,
    pub header: Header,
}

/// Whether a process holds the checkpoint's lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The lock is held now.
    pub running: bool,
    /// The process id the lock file names (the last holder's when not running).
    pub pid: Option<u32>,
}

/// What a checkpoint and the files beside it hold.
#[derive(Clone, Debug)]
pub struct Status {
    pub path: PathBuf,
    /// The log of finished pieces (`None` before the count has cut itself into pieces).
    pub log: Option<Loaded>,
    /// The frontier engine's stage in progress (`FILE.layers`).
    pub stage: Option<Stage>,
    /// The work the pieces share, saved beside the log (`FILE.split`).
    pub split: Option<Stage>,
    /// The finished leaves of a piece in progress (`FILE.leaves`): the piece (numbered
    /// from 0) and how many.
    pub leaves: Option<(u64, usize)>,
    /// When any of them was last written.
    pub written: Option<SystemTime>,
    pub holder: Holder,
    /// The figures of the pieces counted so far, when the program can put them together.
    pub so_far: Result<Count, String>,
    /// Pieces a second at the end of the log (from its records' times), when two or more have
    /// times.
    pub rate: Option<f64>,
    /// Temporary files beside the checkpoint whose writer was killed (the next run removes
    /// them).
    pub leftovers: Vec<PathBuf>,
    /// The time of the pieces left on this machine (every core), each at the mean CPU time of
    /// the pieces counted of its class, and how many of them have a class no record times
    /// (taken at the mean of all): a digit tree's, where the records carry their times.
    pub by_class: Option<(f64, usize)>,
    /// The pieces of this shard left uncounted for more memory by the last run, and the bound
    /// they did not fit (see [`checkpoint::LeftForMemory`]): the same command stops at them
    /// again.
    pub left_for_memory: Option<checkpoint::LeftForMemory>,
}

/// Reads the checkpoint at `path` and what lies beside it.
pub fn status(path: &Path) -> Result<Status, RunError> {
    let (layers, split) = (beside(path, ".layers"), beside(path, ".split"));
    if !path.exists() && !layers.exists() && !split.exists() {
        return Err(CheckpointError::NotACheckpoint {
            path: path.into(),
            why: "there is no such file, and no saved layers beside it".into(),
        }
        .into());
    }
    let log = if path.exists() {
        Some(checkpoint::read(path)?)
    } else {
        None
    };
    let stage_at = |p: PathBuf| -> Result<Option<Stage>, RunError> {
        let Some(header) = snapshot::read_header(&p)? else {
            return Ok(None);
        };
        // as a resume reads it: a damaged state is exit 2 here, not hours later
        snapshot::check_states(&p, &header)?;
        Ok(Some(Stage { path: p, header }))
    };
    let stage = stage_at(layers)?;
    let split = stage_at(split)?;
    let leaves_path = beside(path, ".leaves");
    // (the leaves of a piece the log holds as done are stale: they are not in progress)
    let leaves = log.as_ref().and_then(|l| {
        crate::frontier::piece_leaves(&leaves_path, l.id.fingerprint)
            .filter(|&(i, _)| !l.done.contains_key(&(i as usize)))
    });
    let written = [Some(path), stage.as_ref().map(|s| s.path.as_path())]
        .into_iter()
        .chain([split.as_ref().map(|s| s.path.as_path())])
        .chain([leaves.map(|_| leaves_path.as_path())])
        .flatten()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max();
    let so_far = match &log {
        Some(l) => figures(l).map_err(|e| e.to_string()),
        None => Err("no piece is counted yet".into()),
    };
    let rate = log.as_ref().and_then(rate);
    let left_for_memory = log.as_ref().and_then(|l| {
        let mut note = checkpoint::LeftForMemory::read(path, l.id.fingerprint)?;
        note.pieces
            .retain(|&u| u < l.id.units && l.id.shard.owns(u) && !l.done.contains_key(&u));
        (!note.pieces.is_empty()).then_some(note)
    });
    let skip = left_for_memory.as_ref().map_or(&[][..], |n| &n.pieces[..]);
    let by_class = log.as_ref().and_then(|l| left_by_class(l, skip));
    Ok(Status {
        path: path.into(),
        holder: holder(path),
        log,
        stage,
        split,
        leaves,
        written,
        so_far,
        rate,
        leftovers: crate::durable::dead_temporaries(path),
        by_class,
        left_for_memory,
    })
}

/// The time of a digit tree's pieces left in `l`'s shard on this machine, each at the mean CPU
/// seconds of the records of its class less the nodes above them they made, and those nodes
/// still to make for the pieces left at the mean of their depth (the count's own projection as
/// it goes: its pieces differ by a thousand times, and it counts one of each class first);
/// `None` where the cut has no classes or no record its time. The pieces `skip` (left for more
/// memory) are not in it.
fn left_by_class(l: &Loaded, skip: &[usize]) -> Option<(f64, usize)> {
    if l.id.engine != Engine::Frontier.name() {
        return None;
    }
    let f = super::ledger::NoteFigures::of(&l.notes);
    let left: Vec<usize> =
        l.id.shard
            .units(l.id.units)
            .into_iter()
            .filter(|u| !l.done.contains_key(u) && !skip.contains(u))
            .collect();
    if left.is_empty() {
        return None;
    }
    let (secs, unmeasured) = crate::frontier::project_left(
        l.id.split,
        l.id.units,
        l.id.shard.count,
        &f.cpu,
        &f.above,
        &left,
    )?;
    Some((secs / crate::engine::cores() as f64, unmeasured))
}

/// The figures of a log's pieces, put together by the engine that wrote it.
fn figures(l: &Loaded) -> Result<Count, RunError> {
    let (piece, spec): (Piece, CountSpec) = l.id.request()?;
    let req = Request {
        board: l.id.board,
        piece: &piece,
        spec: &spec,
    };
    let engine = Engine::from_name(&l.id.engine).ok_or_else(|| {
        Error::Invalid(format!(
            "its engine '{}' is not one of this program's",
            crate::error::clip(&l.id.engine)
        ))
    })?;
    if l.id.units == 0 {
        // a count a theorem settles
        if let Some(reason) = super::obstruction(l.id.board, &piece, &spec) {
            return Ok(Count::settled(l.id.board, &spec, reason, 0.0));
        }
    }
    let cut = Recorded {
        pieces: l.id.units,
        param: l.id.split,
        fingerprint: l.id.fingerprint,
    };
    let complete = l.id.shard.count == 1 && l.done.len() == l.id.units;
    super::driver::engine_for(engine).total(req, &cut, &l.done, complete)
}

/// Pieces a second over the log's last records that carry times.
fn rate(l: &Loaded) -> Option<f64> {
    let mut times: Vec<u64> = l.times.values().copied().collect();
    times.sort_unstable();
    let recent = &times[times.len().saturating_sub(200)..];
    let (first, last) = (*recent.first()?, *recent.last()?);
    // (the times are milliseconds)
    (recent.len() >= 2 && last > first)
        .then(|| (recent.len() - 1) as f64 * 1000.0 / (last - first) as f64)
}

/// Whether a process holds the lock beside `path` now.
fn holder(path: &Path) -> Holder {
    let lock = beside(path, ".lock");
    let pid = std::fs::read_to_string(&lock)
        .ok()
        .and_then(|t| t.trim().parse().ok());
    // opened, never created: no lock file, no holder
    let running = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock)
        .is_ok_and(|f: File| {
            matches!(
                fs4::FileExt::try_lock(&f),
                Err(fs4::TryLockError::WouldBlock)
            )
        });
    Holder { running, pid }
}

impl Status {
    /// Pieces of this log's shard, and how many are counted.
    fn pieces(&self) -> Option<(usize, usize)> {
        let l = self.log.as_ref()?;
        let mine = l.id.shard.units(l.id.units);
        let done = mine.iter().filter(|u| l.done.contains_key(u)).count();
        Some((mine.len(), done))
    }

    /// The pieces left for more memory (none where the last run left none).
    fn left_for_memory(&self) -> &[usize] {
        self.left_for_memory
            .as_ref()
            .map_or(&[][..], |n| &n.pieces[..])
    }

    /// Seconds to go at the log's rate, for the pieces left that the same command can count
    /// (not those left for more memory).
    #[must_use]
    pub fn seconds_left(&self) -> Option<f64> {
        let (mine, done) = self.pieces()?;
        let left = mine - done - self.left_for_memory().len();
        (left > 0).then_some(left as f64 / self.rate?)
    }

    /// Seconds since the last write.
    fn age(&self) -> Option<f64> {
        SystemTime::now()
            .duration_since(self.written?)
            .ok()
            .map(|d| d.as_secs_f64())
    }

    /// The run a status describes: from the log, or the saved stage's header before it.
    fn describe(&self) -> String {
        if let Some(l) = &self.log {
            let engine = Engine::from_name(&l.id.engine).unwrap_or(Engine::Dfs);
            let run = match l.id.request() {
                Ok((piece, spec)) => {
                    let mut r = Report::new(l.id.board, &piece, &spec, engine.name(), 0);
                    r.scope = if l.id.shard.count > 1 {
                        format!(", shard {}", l.id.shard)
                    } else {
                        String::new()
                    };
                    r.describe()
                }
                Err(_) => format!("{} tours of '{}'", l.id.board, l.id.piece),
            };
            let grid = match crate::frontier::depth_of_param(l.id.split) {
                Some(d) if engine == Engine::Frontier => format!(
                    " (a digit tree of the first {d} boundary square{})",
                    plural(u64::from(d))
                ),
                _ => String::new(),
            };
            return format!(
                "{}, {} engine, {} {}{}{grid}",
                run,
                l.id.engine,
                group_u64(l.id.units as u64),
                piece_name(engine),
                plural(l.id.units as u64)
            );
        }
        let h = self
            .stage
            .as_ref()
            .or(self.split.as_ref())
            .map(|s| &s.header);
        let field = |k| h.and_then(|h| h.get(k)).unwrap_or("?");
        format!(
            "{} {} tours of the {}, frontier engine, not yet cut into pieces",
            field("board"),
            field("kind"),
            field("piece")
        )
    }

    /// The text `knights status` prints.
    #[must_use]
    pub fn text(&self) -> String {
        let mut s = format!("{}: {}\n", self.path.display(), self.describe());
        if let Some((mine, done)) = self.pieces() {
            let l = self.log.as_ref().expect("pieces come from the log");
            let what = piece_name(Engine::from_name(&l.id.engine).unwrap_or(Engine::Dfs));
            s += &format!(
                "progress: {} of {} {what}{} counted",
                group_u64(done as u64),
                group_u64(mine as u64),
                plural(mine as u64)
            );
            match &self.so_far {
                Ok(c) => {
                    s += &format!(
                        ", tours so far: {} directed, {} undirected",
                        group(&c.directed),
                        group(&c.undirected)
                    );
                }
                Err(why) => s += &format!(" (tours so far unknown: {why})"),
            }
            s.push('\n');
            if l.damaged > 0 {
                s += &format!(
                    "damaged: {} line{} dropped (their {what}s are counted again on resume)\n",
                    l.damaged,
                    plural(l.damaged as u64)
                );
            }
        }
        if !self.leftovers.is_empty() {
            let bytes: u64 = self
                .leftovers
                .iter()
                .filter_map(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
                .sum();
            s += &format!(
                "leftovers: {} temporary file{} of a writer that was killed ({}), removed when the count is run again: {}\n",
                self.leftovers.len(),
                plural(self.leftovers.len() as u64),
                crate::human::human_bytes(bytes),
                self.leftovers
                    .iter()
                    .map(|p| format!("'{}'", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(st) = &self.stage {
            s += &format!("in progress: {}\n", stage_text(&st.header));
        }
        if let Some((i, n)) = self.leaves {
            s += &format!(
                "in progress: piece {}: {} lea{} of its prefix tree counted (saved beside the log)\n",
                i + 1,
                group_u64(n as u64),
                if n == 1 { "f" } else { "ves" }
            );
        }
        if let Some(sp) = &self.split {
            let states: usize = sp.header.tables().iter().map(|t| t.1).sum();
            s += &format!(
                "shared work: saved in '{}' ({} states)\n",
                sp.path.display(),
                group_u64(states as u64)
            );
        }
        if let (Some(w), Some(age)) = (self.written, self.age()) {
            let secs = w.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            s += &format!(
                "last written: {} ({} ago)\n",
                utc(secs),
                human_duration(age)
            );
        }
        let finished = self.pieces().is_some_and(|(mine, done)| mine == done);
        s += &match (&self.holder.running, self.holder.pid) {
            (true, Some(pid)) => format!("running: yes, process {pid} holds its lock\n"),
            (true, None) => "running: yes, a process holds its lock\n".to_string(),
            (false, _) if finished => "running: no, finished\n".to_string(),
            (false, _) => match &self.left_for_memory {
                Some(note) => {
                    let n = note.pieces.len();
                    let only: Vec<String> = note.pieces.iter().map(ToString::to_string).collect();
                    let others = self.pieces().map_or(0, |(mine, done)| mine - done - n);
                    format!(
                        "running: no; {n} piece{} did not fit under the memory bound of {} (--only {}): the same command stops at {} again, so run it with a larger --max-memory, here or on a machine with more memory{}\n",
                        plural(n as u64),
                        crate::human::human_bytes(note.max_memory),
                        only.join(","),
                        if n == 1 { "it" } else { "them" },
                        if others > 0 {
                            format!(
                                " (it counts the {others} other{} left as well)",
                                plural(others as u64)
                            )
                        } else {
                            String::new()
                        }
                    )
                }
                None => "running: no (run the count's command again to go on)\n".to_string(),
            },
        };
        let memory = self.left_for_memory().len();
        // a projection of the pieces left that the same command counts: not those that need
        // more memory
        let not_in_it = if memory > 0 {
            format!(
                "; the {memory} piece{} that need{} a larger --max-memory not in it",
                plural(memory as u64),
                if memory == 1 { "s" } else { "" }
            )
        } else {
            String::new()
        };
        match (self.pieces(), self.seconds_left(), self.by_class) {
            _ if finished => s += "time left: none, all counted\n",
            (Some((mine, done)), _, _) if memory > 0 && mine - done == memory => {
                s += &format!(
                    "time left: unknown (the piece{} left need{} a larger --max-memory)\n",
                    plural(memory as u64),
                    if memory == 1 { "s" } else { "" }
                );
            }
            (_, rated, Some((secs, unmeasured))) => {
                let cores = crate::engine::cores();
                s += &format!(
                    "time left: about {} on this machine's {cores} core{}{}",
                    human_duration(secs),
                    plural(cores as u64),
                    super::ledger::by_class_basis(unmeasured)
                );
                if let Some(r) = rated {
                    s += &format!(
                        "; cruder, {} at the log's last records' rate",
                        human_duration(r)
                    );
                }
                s += &not_in_it;
                s.push('\n');
            }
            (_, Some(left), None) => {
                s += &format!(
                    "time left: about {} (at {:.3} pieces a second, from the log's last records{not_in_it})\n",
                    human_duration(left),
                    self.rate.unwrap_or(0.0)
                );
            }
            _ => s += "time left: unknown (fewer than two pieces recorded with their times)\n",
        }
        s
    }

    /// The JSON object `knights status --json` prints.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        let stage_json = |st: &Option<Stage>| {
            st.as_ref().map(|st| {
                let h = &st.header;
                serde_json::json!({
                    "file": st.path.display().to_string(),
                    "phase": h.phase(),
                    "layer": h.layer().map(|l| l.0),
                    "layers": h.layer().map(|l| l.1),
                    "states": h.tables().iter().map(|t| t.1).sum::<usize>(),
                })
            })
        };
        let mut v = serde_json::json!({
            "file": self.path.display().to_string(),
            "stage": stage_json(&self.stage),
            "split": stage_json(&self.split),
            "piece_leaves": self.leaves.map(|(i, n)| serde_json::json!({"piece": i + 1, "leaves": n})),
            // the same, by the name an earlier version gave it
            "grid_leaves": self.leaves.map(|(i, n)| serde_json::json!({"piece": i + 1, "leaves": n})),
            "last_written": self.written.and_then(|w| w.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_secs()),
            "seconds_since_written": self.age(),
            "running": self.holder.running,
            "pid": self.holder.pid,
            "rate_pieces_per_second": self.rate,
            "seconds_left": self.seconds_left(),
            "seconds_left_by_class": self.by_class.map(|c| c.0),
            "left_for_memory": self.left_for_memory.as_ref().map(|n| serde_json::json!({
                "pieces": n.pieces,
                "max_memory_bytes": n.max_memory,
            })),
            "leftovers": self.leftovers.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        let h = self
            .stage
            .as_ref()
            .or(self.split.as_ref())
            .map(|s| &s.header);
        match &self.log {
            Some(l) => {
                let (mine, done) = self.pieces().unwrap_or((0, 0));
                v["board"] = serde_json::json!(l.id.board.to_string());
                v["piece"] = serde_json::json!(l.id.piece);
                v["closed"] = serde_json::json!(l.id.closed);
                v["from"] = serde_json::json!(l.id.from);
                v["to"] = serde_json::json!(l.id.to);
                v["engine"] = serde_json::json!(l.id.engine);
                v["shard"] = serde_json::json!(l.id.shard.to_string());
                v["pieces"] = serde_json::json!(l.id.units);
                v["pieces_mine"] = serde_json::json!(mine);
                v["pieces_done"] = serde_json::json!(done);
                v["complete"] = serde_json::json!(mine == done);
                v["damaged_lines"] = serde_json::json!(l.damaged);
            }
            None => {
                let field = |k| h.and_then(|h| h.get(k));
                v["board"] = serde_json::json!(field("board"));
                v["piece"] = serde_json::json!(field("piece"));
                v["closed"] = serde_json::json!(field("kind").map(|k| k == "closed"));
                v["engine"] = serde_json::json!("frontier");
                v["pieces"] = serde_json::Value::Null;
                v["complete"] = serde_json::json!(false);
            }
        }
        match &self.so_far {
            Ok(c) => {
                v["directed_so_far"] = json_int(&c.directed);
                v["undirected_so_far"] = json_int(&c.undirected);
            }
            Err(why) => v["so_far_unknown"] = serde_json::json!(why),
        }
        v
    }
}

/// `piece 4 of 24: layer 3 of 8 (crossing), 182,061 states` from a saved stage's header.
fn stage_text(h: &Header) -> String {
    let states: usize = h.tables().iter().map(|t| t.1).sum();
    let phase = h.phase().unwrap_or("?");
    // (what was saved, what its layers are, the stage in brackets where it says more)
    let (what, unit, shown) = match phase.strip_prefix("piece ") {
        Some(n) => (
            format!(
                "piece {}",
                n.parse::<u64>().map_or(n.to_string(), |i| group_u64(i + 1))
            ),
            "layer",
            " (crossing)".to_string(),
        ),
        // a count in one piece
        None if phase == "sweep" => ("the sweep".to_string(), "layer", String::new()),
        // a row (`--lengths`) and a long board's sweep by sums save a column at a time
        None if phase == "row" => {
            let what = if h.get("mode") == Some("row") {
                "the row's sweep"
            } else {
                "the sweep by sums"
            };
            (what.to_string(), "column", String::new())
        }
        None => (
            "the work the pieces share".to_string(),
            "layer",
            format!(" ({phase})"),
        ),
    };
    match h.layer() {
        Some((i, n)) if n > 0 => format!(
            "{what}: {unit} {} of {}{shown}, {} states saved",
            group_u64(i as u64),
            group_u64(n as u64),
            group_u64(states as u64)
        ),
        _ => format!("{what}{shown}, {} states saved", group_u64(states as u64)),
    }
}

/// A Unix time as `2026-11-24 05:40:12 UTC` (the civil-from-days rule of Howard Hinnant's
/// date algorithms).
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_795_000_000), "2026-11-18 11:06:40 UTC");
    }

    /// Status reads the saved layers as a resume does (issue 30: it said nothing of a flipped
    /// byte among the states, which the resume then refused).
    #[test]
    fn damaged_saved_states_are_found_by_status() {
        use crate::frontier::snapshot::{RunName, save};
        use crate::layer::Layer;
        use crate::walk::entry::Shape;
        let dir = tempfile::tempdir().unwrap();
        let ckpt = dir.path().join("run.ckpt");
        let layers = beside(&ckpt, ".layers");
        let mut t = Layer::<u64>::empty(Shape { key: 8, limbs: 1 });
        for k in 1..100u64 {
            t.insert(k << 8, &[k]);
        }
        let name = RunName {
            fields: vec![("board", "6x6".to_string())],
        };
        save(
            &layers,
            &name,
            "sweep",
            9,
            (9, 36),
            &[("current", crate::layer::Src::Mem(&t))],
            None,
        )
        .unwrap();
        assert!(status(&ckpt).unwrap().stage.is_some());
        let mut bytes = std::fs::read(&layers).unwrap();
        let at = bytes.len() - 20;
        bytes[at] ^= 4;
        std::fs::write(&layers, &bytes).unwrap();
        let e = status(&ckpt).unwrap_err().to_string();
        assert!(
            e.contains("damaged") && (e.contains("checksum") || e.contains("does not decode")),
            "{e}"
        );
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let e = status(&dir.path().join("none.ckpt")).unwrap_err();
        assert!(e.to_string().contains("none.ckpt"), "{e}");
    }
}
