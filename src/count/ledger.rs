//! The ledger of a long count: finished pieces kept apart from the run's own log, one small
//! file each (see [`checkpoint::write_ledger`]), in a folder that any number of machines add to
//! over weeks (a repository, say). A run given `--ledger DIR` counts only the pieces no file
//! there holds, and writes each piece it finishes there with how it was counted; `knights merge
//! DIR/*` puts them together, `knights status DIR` says what is left.
//!
//! The figures of a record (wall and CPU seconds, peak memory) are the process's own while it
//! counted that piece: the frontier engine counts its pieces one after another, each on every
//! thread, so the time since the last record is the piece's. The peak is the resident high-water
//! mark, reset at the start of each piece where the system allows (Linux's `clear_refs`), else
//! the process's peak so far (said by the key `peak_mib_since_start`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use num_bigint::BigUint;

use super::checkpoint::{self, RunId};
use crate::store::CheckpointError;

/// What a ledger holds of one run ([`read`]).
pub struct Held {
    /// The pieces counted, by number.
    pub done: BTreeMap<usize, BigUint>,
    /// The files of this run.
    pub files: usize,
    /// The files of other runs (left aside).
    pub other: Vec<PathBuf>,
}

/// The pieces of run `id` that the ledger in `dir` holds (none where `dir` does not exist).
pub fn read(dir: &Path, id: &RunId) -> Result<Held, CheckpointError> {
    let mut done: BTreeMap<usize, BigUint> = BTreeMap::new();
    let (mut ours, mut other) = (0, Vec::new());
    let Ok(paths) = log_files(dir) else {
        return Ok(Held {
            done,
            files: 0,
            other,
        });
    };
    for path in paths {
        let Ok(l) = checkpoint::read(&path) else {
            other.push(path);
            continue;
        };
        if !l.ledger || l.id.differs(id, true).is_some() {
            other.push(path);
            continue;
        }
        ours += 1;
        for (u, c) in l.done {
            if let Some(a) = done.get(&u) {
                if *a != c {
                    return Err(CheckpointError::Conflict {
                        path,
                        unit: u,
                        a: a.to_string(),
                        b: c.to_string(),
                    });
                }
            }
            done.insert(u, c);
        }
    }
    Ok(Held {
        done,
        files: ours,
        other,
    })
}

/// The note of a ledger record whose piece went on from parts an earlier run counted (the
/// number of them): its time and memory are the rest's only, and no projection takes them.
pub const RESUMED_NOTE: &str = "resumed_parts";

/// The note of a record whose piece made nodes of the digit tree above it (see
/// [`crate::engine::Host::above`]): `depth:cpu_seconds` for each, joined by commas.
pub const ABOVE_NOTE: &str = "above_cpu_s";

/// The [`ABOVE_NOTE`] of the nodes `made` (depth, CPU seconds).
#[must_use]
pub fn above_note(made: &[(usize, f64)]) -> (&'static str, String) {
    let parts: Vec<String> = made.iter().map(|(j, s)| format!("{j}:{s:.1}")).collect();
    (ABOVE_NOTE, parts.join(","))
}

/// The nodes an [`ABOVE_NOTE`]'s value gives, `None` where it is not one's.
fn parse_above(v: &str) -> Option<Vec<(usize, f64)>> {
    v.split(',')
        .map(|p| {
            let (j, s) = p.split_once(':')?;
            let (j, s) = (j.parse::<usize>().ok()?, s.parse::<f64>().ok()?);
            (j > 0 && s.is_finite() && s >= 0.0).then_some((j, s))
        })
        .collect()
}

/// The figures of the piece in progress, from its start.
pub struct Meter {
    wall: Instant,
    cpu: Option<f64>,
    /// Whether the peak was reset at the start.
    reset: bool,
}

impl Meter {
    /// Starts measuring a piece (resetting the process's peak memory where it can).
    #[must_use]
    pub fn start() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: crate::engine::cpu_seconds(),
            reset: reset_peak(),
        }
    }

    /// Starts measuring a piece's time only, for a checkpoint's record (the process's peak
    /// memory is left as it is: a checkpoint's count keeps its whole peak).
    #[must_use]
    pub fn timing() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: crate::engine::cpu_seconds(),
            reset: false,
        }
    }

    /// A meter of the same kind started now, for the next piece.
    #[must_use]
    pub fn restarted(&self) -> Meter {
        if self.reset {
            Meter::start()
        } else {
            Meter::timing()
        }
    }

    /// The notes of a checkpoint's record: the piece's wall and CPU seconds.
    #[must_use]
    pub fn time_notes(&self) -> Vec<(&'static str, String)> {
        let mut n = vec![(
            "wall_s",
            format!("{:.1}", self.wall.elapsed().as_secs_f64()),
        )];
        if let (Some(a), Some(b)) = (self.cpu, crate::engine::cpu_seconds()) {
            n.push(("cpu_s", format!("{:.1}", b - a)));
        }
        n
    }

    /// The notes of a ledger record: the program, the machine, and the piece's figures.
    #[must_use]
    pub fn notes(&self, threads: usize) -> Vec<(&'static str, String)> {
        let mut n = vec![
            ("commit", env!("KNIGHTS_COMMIT").to_string()),
            ("cores", crate::engine::cores().to_string()),
            ("threads", threads.to_string()),
            (
                "memory_gib",
                format!(
                    "{:.1}",
                    crate::engine::total_memory().unwrap_or(0) as f64 / GIB
                ),
            ),
        ];
        n.extend(self.time_notes());
        if let Some(p) = peak_bytes() {
            let key = if self.reset {
                "peak_mib"
            } else {
                "peak_mib_since_start"
            };
            n.push((key, format!("{}", p >> 20)));
        }
        n
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Resets the process's resident high-water mark (Linux 4.0 on); whether it did.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's resident high-water mark (`VmHWM`), where the system says.
fn peak_bytes() -> Option<u64> {
    crate::engine::kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
}

/// The ledger records in `dir` (its `*.log` files), sorted.
fn log_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// What a ledger folder holds ([`status`]): the merged pieces and the figures of its records.
pub struct Status {
    pub dir: PathBuf,
    pub files: usize,
    pub merged: super::driver::Merged,
    /// The CPU seconds of each record that has them, by piece.
    pub cpu: BTreeMap<usize, f64>,
    /// The largest peak memory of a record, in MiB.
    pub peak_mib: u64,
    /// The pieces the records hold.
    pub done: BTreeSet<usize>,
    /// Each piece's class where the cut has them (a digit tree's: see
    /// [`crate::frontier::piece_classes`]).
    pub classes: Option<Vec<u8>>,
    /// The records of pieces that went on from parts an earlier run counted ([`RESUMED_NOTE`]):
    /// their CPU time is left out of `cpu`.
    pub resumed: usize,
    /// The nodes above its piece each record's process made ([`ABOVE_NOTE`]), by piece.
    pub above: BTreeMap<usize, Vec<(usize, f64)>>,
    /// A digit tree's cut as the records give it (its parameter, pieces and shards), for the
    /// projection by class.
    tree: Option<(usize, usize, u32)>,
}

/// What the notes of a log's records say of the pieces' cost.
#[derive(Clone, Debug, Default)]
pub struct NoteFigures {
    /// The CPU seconds of each piece whose record has them (not those marked [`RESUMED_NOTE`]:
    /// theirs is a part's).
    pub cpu: BTreeMap<usize, f64>,
    /// The largest peak memory a record gives, in MiB.
    pub peak_mib: u64,
    /// The records marked [`RESUMED_NOTE`].
    pub resumed: usize,
    /// The nodes above its piece that each record's process made ([`ABOVE_NOTE`]), by piece.
    pub above: BTreeMap<usize, Vec<(usize, f64)>>,
}

impl NoteFigures {
    /// The figures of `notes` (a log's, by piece).
    #[must_use]
    pub fn of(notes: &BTreeMap<usize, super::checkpoint::Notes>) -> NoteFigures {
        let mut f = NoteFigures::default();
        for (&piece, notes) in notes {
            let part = notes.iter().any(|(k, _)| k == RESUMED_NOTE);
            f.resumed += usize::from(part);
            for (k, v) in notes {
                match (k.as_str(), v.parse::<f64>()) {
                    ("cpu_s", Ok(c)) if !part && c.is_finite() && c >= 0.0 => {
                        f.cpu.insert(piece, c);
                    }
                    ("peak_mib" | "peak_mib_since_start", Ok(m)) if m.is_finite() => {
                        f.peak_mib = f.peak_mib.max(m as u64);
                    }
                    (ABOVE_NOTE, _) => {
                        if let Some(made) = parse_above(v) {
                            f.above.insert(piece, made);
                        }
                    }
                    _ => {}
                }
            }
        }
        f
    }
}

/// How a projection by class (see [`crate::frontier::project_left`]) is made, in parentheses, for
/// `unmeasured` pieces left of a class no record times.
pub(crate) fn by_class_basis(unmeasured: usize) -> String {
    let mut s = " (each piece at the mean CPU time of the pieces counted of its class, how many of its digits are 1 (the squares where the path crosses the cut), less the nodes above it that its record says it made; those nodes still to make for the pieces left, once each at the mean of their depth".to_string();
    if unmeasured > 0 {
        s += &format!(
            "; {unmeasured} of a class none of whose pieces has figures, at the mean of all"
        );
    }
    s + ")"
}

/// Records the second projection of [`Status::left`] is taken from.
const RECENT: usize = 10;

/// Reads the ledger in `dir`: every `*.log` file, merged as `knights merge DIR/*` does.
pub fn status(dir: &Path) -> Result<Status, super::driver::RunError> {
    let paths = log_files(dir).map_err(|source| CheckpointError::Io {
        action: "read",
        path: dir.into(),
        source,
    })?;
    if paths.is_empty() {
        return Err(crate::error::Error::Invalid(format!(
            "the folder '{}' holds no ledger records (files *.log written by `knights count --ledger DIR`)",
            dir.display()
        ))
        .into());
    }
    let t0 = Instant::now();
    let records = checkpoint::read_all(&paths)?;
    let merged = super::driver::merge_read(&records, &super::driver::Quiet, t0)?;
    // the figures of the records merge took (a file of another run left in the folder is not
    // this count's work)
    let foreign: Vec<&PathBuf> = match &merged {
        super::driver::Merged::Partial { foreign, .. } => foreign.iter().map(|f| &f.0).collect(),
        super::driver::Merged::Total { .. } => Vec::new(),
    };
    let mut peak_mib = 0u64;
    let mut cpu: BTreeMap<usize, f64> = BTreeMap::new();
    let mut done = BTreeSet::new();
    let mut classes = None;
    let mut resumed = 0;
    let mut above = BTreeMap::new();
    let mut tree = None;
    for l in records.iter().filter(|l| !foreign.contains(&&l.path)) {
        if classes.is_none() && l.id.engine == crate::count::Engine::Frontier.name() {
            classes = crate::frontier::piece_classes(l.id.split, l.id.units, l.id.shard.count);
            tree = Some((l.id.split, l.id.units, l.id.shard.count));
        }
        done.extend(l.done.keys().copied());
        let f = NoteFigures::of(&l.notes);
        cpu.extend(f.cpu);
        above.extend(f.above);
        peak_mib = peak_mib.max(f.peak_mib);
        resumed += f.resumed;
    }
    Ok(Status {
        dir: dir.into(),
        files: paths.len(),
        merged,
        cpu,
        peak_mib,
        done,
        classes,
        resumed,
        above,
        tree,
    })
}

/// The mean of the [`RECENT`] highest-numbered pieces' CPU seconds in `cpu` (by piece), where
/// there are that many.
fn recent_mean(cpu: &BTreeMap<usize, f64>) -> Option<f64> {
    (cpu.len() >= RECENT).then(|| cpu.values().rev().take(RECENT).sum::<f64>() / RECENT as f64)
}

impl Status {
    /// The records with CPU seconds.
    #[must_use]
    pub fn timed(&self) -> usize {
        self.cpu.len()
    }

    /// The CPU seconds of all records.
    #[must_use]
    pub fn cpu_seconds(&self) -> f64 {
        self.cpu.values().sum()
    }

    /// The largest CPU seconds of a record.
    #[must_use]
    pub fn cpu_max(&self) -> f64 {
        self.cpu.values().copied().fold(0.0, f64::max)
    }

    /// The mean CPU seconds of the [`RECENT`] highest-numbered records: the pieces next to
    /// those left, where the pieces' cost moves with their digits (8x8 open: 5 s to 20 minutes).
    #[must_use]
    pub fn recent_cpu(&self) -> Option<f64> {
        recent_mean(&self.cpu)
    }

    /// The projected time of the pieces left on this machine (every core), each at the mean
    /// CPU seconds of the records of its class less the nodes above them they made, plus those
    /// nodes still to make (see [`crate::frontier::project_left`]); and how many pieces left
    /// have a class no record has (taken at the mean of all). `None` where the cut has no
    /// classes or no record has figures.
    #[must_use]
    pub fn left_by_class(&self) -> Option<(f64, usize)> {
        let (param, pieces, shards) = self.tree?;
        let left: Vec<usize> = (0..pieces).filter(|p| !self.done.contains(p)).collect();
        let (secs, unmeasured) =
            crate::frontier::project_left(param, pieces, shards, &self.cpu, &self.above, &left)?;
        Some((secs / crate::engine::cores() as f64, unmeasured))
    }

    /// The pieces left to count and the projected time for them on this machine (every core),
    /// from the mean CPU seconds of the records that have it.
    #[must_use]
    pub fn left(&self) -> (usize, Option<f64>) {
        self.left_at(self.cpu_seconds() / self.timed().max(1) as f64)
    }

    /// The pieces left and their time on this machine at `per` CPU seconds a piece (none where
    /// no record has figures).
    fn left_at(&self, per: f64) -> (usize, Option<f64>) {
        use super::driver::Merged;
        let left = match &self.merged {
            Merged::Total { .. } => 0,
            Merged::Partial {
                units, units_done, ..
            } => units - units_done,
        };
        let secs = (self.timed() > 0).then(|| per * left as f64 / crate::engine::cores() as f64);
        (left, secs)
    }

    /// The text `knights status DIR` prints.
    #[must_use]
    pub fn text(&self) -> String {
        use crate::human::{human_duration, plural};
        let mut s = format!(
            "ledger '{}': {} file{}\n",
            self.dir.display(),
            self.files,
            plural(self.files as u64)
        );
        s += &self.merged.text(self.files);
        let timed = self.timed();
        if timed > 0 {
            s += &format!(
                "{} record{} with figures: {} of CPU in all, {} a piece on average (the longest {}), peak memory up to {} MiB\n",
                timed,
                plural(timed as u64),
                human_duration(self.cpu_seconds()),
                human_duration(self.cpu_seconds() / timed as f64),
                human_duration(self.cpu_max()),
                self.peak_mib
            );
        }
        if self.resumed > 0 {
            s += &format!(
                "{} record{} of pieces that went on from parts an earlier run counted: {} time is the rest's only, left out of the figures\n",
                self.resumed,
                plural(self.resumed as u64),
                if self.resumed == 1 { "its" } else { "their" }
            );
        }
        match self.left() {
            (0, _) => {}
            (n, Some(secs)) => {
                let cores = crate::engine::cores();
                let by_class = self.left_by_class();
                s += &format!(
                    "left: {n} piece{}, about {} on this machine's {cores} core{}",
                    plural(n as u64),
                    human_duration(by_class.map_or(secs, |c| c.0)),
                    plural(cores as u64)
                );
                match by_class {
                    Some((_, unmeasured)) => {
                        s += &by_class_basis(unmeasured);
                        s += &format!(
                            "; cruder, {} at the records' mean a piece",
                            human_duration(secs)
                        );
                    }
                    None => s += " (the records' mean CPU time a piece)",
                }
                if let Some((_, Some(near))) = self.recent_cpu().map(|c| self.left_at(c)) {
                    s += &format!(
                        ", {} at the mean of the {RECENT} highest-numbered pieces counted (pieces differ: these make a band, not a figure)",
                        human_duration(near)
                    );
                }
                s.push('\n');
            }
            (n, None) => s += &format!("left: {n} piece{}\n", plural(n as u64)),
        }
        s
    }

    /// The JSON `knights status DIR --json` prints: the merge's, with the ledger's figures.
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        let mut v = self.merged.json();
        let (left, secs) = self.left();
        v["ledger"] = serde_json::json!({
            "dir": self.dir.display().to_string(),
            "files": self.files,
            "records_with_figures": self.timed(),
            "records_resumed": self.resumed,
            "cpu_seconds": self.cpu_seconds(),
            "cpu_seconds_max": self.cpu_max(),
            "peak_mib": self.peak_mib,
            "pieces_left": left,
            "projected_seconds_left": secs,
            "projected_seconds_left_recent": self.recent_cpu().and_then(|c| self.left_at(c).1),
            "projected_seconds_left_by_class": self.left_by_class().map(|c| c.0),
        });
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nodes_above_a_piece_are_noted_and_read_back() {
        let (k, v) = above_note(&[(1, 6.04), (3, 0.0)]);
        assert_eq!((k, v.as_str()), (ABOVE_NOTE, "1:6.0,3:0.0"));
        assert_eq!(parse_above(&v), Some(vec![(1, 6.0), (3, 0.0)]));
        let notes: BTreeMap<usize, super::super::checkpoint::Notes> = [
            (5, vec![(ABOVE_NOTE.to_string(), v.clone())]),
            // damaged values are no figure
            (6, vec![(ABOVE_NOTE.to_string(), "1:x".to_string())]),
            (7, vec![(ABOVE_NOTE.to_string(), "0:1.0".to_string())]),
            (8, vec![(ABOVE_NOTE.to_string(), "1:-2,2:1".to_string())]),
            (9, vec![(ABOVE_NOTE.to_string(), "1:NaN".to_string())]),
        ]
        .into();
        let f = NoteFigures::of(&notes);
        assert_eq!(f.above.keys().copied().collect::<Vec<_>>(), [5]);
    }

    #[test]
    fn the_recent_mean_is_of_the_highest_numbered_pieces() {
        let mut cpu: BTreeMap<usize, f64> = (0..9).map(|p| (p, 1.0)).collect();
        assert_eq!(recent_mean(&cpu), None, "fewer records than RECENT");
        // pieces 100 to 109 cost 10 s each, whatever order they were read in
        for p in (100..110).rev() {
            cpu.insert(p, 10.0);
        }
        assert_eq!(recent_mean(&cpu), Some(10.0));
        cpu.insert(50, 1000.0);
        assert_eq!(
            recent_mean(&cpu),
            Some(10.0),
            "a piece below them is not recent"
        );
    }
}
