//! What a ledger folder holds, for `knights status DIR`: its records merged as `knights merge
//! DIR/*` merges them, their figures (CPU time, peak memory), and the pieces left with their
//! projected time on this machine (see [`super::ledger`] for the records themselves).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use num_bigint::BigUint;

use super::checkpoint;
use super::ledger::{NoteFigures, by_class_basis, log_files};
use crate::durable::CheckpointError;

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
    /// The records of pieces that went on from parts an earlier run counted ([`RESUMED_NOTE`](super::ledger::RESUMED_NOTE)):
    /// their CPU time is left out of `cpu`.
    pub resumed: usize,
    /// The nodes above its piece each record's process made ([`ABOVE_NOTE`](super::ledger::ABOVE_NOTE)), by piece.
    pub above: BTreeMap<usize, Vec<crate::engine::Made>>,
    /// A digit tree's cut as the records give it (its parameter, pieces and shards), for the
    /// projection by class.
    tree: Option<(usize, usize, u32)>,
    /// The records with lines that do not check: each file, the piece its name gives
    /// (`piece-NNNNN.log`), and how many lines. Their pieces are not taken, and `knights status`
    /// exits 2.
    pub damaged: Vec<(PathBuf, Option<usize>, usize)>,
    /// The pieces no record holds that a run left for more memory, each with the bound it did
    /// not fit, in bytes (the notes `piece-NNNNN.left`, see [`checkpoint::LeftForMemory`]).
    pub left_for_memory: BTreeMap<usize, u64>,
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
    let records = checkpoint::read_records(&paths)?;
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
    let fingerprint = records
        .iter()
        .find(|l| !foreign.contains(&&l.path))
        .map(|l| l.id.fingerprint);
    let left_for_memory = fingerprint.map_or_else(BTreeMap::new, |fp| left_notes(dir, fp, &done));
    let damaged = records
        .iter()
        .filter(|l| l.damaged > 0)
        .map(|l| (l.path.clone(), checkpoint::ledger_piece(&l.path), l.damaged))
        .collect();
    Ok(Status {
        damaged,
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
        left_for_memory,
    })
}

/// The pieces of the run with `fingerprint` that the notes `*.left` in `dir` say were left for
/// more memory, and the bound each did not fit: not those `done` holds (a record written since;
/// the count removes the note then, a copy of the folder may not).
fn left_notes(dir: &Path, fingerprint: u64, done: &BTreeSet<usize>) -> BTreeMap<usize, u64> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    let mut left = BTreeMap::new();
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_none_or(|x| x != "left") {
            continue;
        }
        let Some(note) = checkpoint::LeftForMemory::read_at(&path) else {
            continue;
        };
        if note.fingerprint != fingerprint {
            continue;
        }
        for p in note.pieces.into_iter().filter(|p| !done.contains(p)) {
            let bound = left.entry(p).or_insert(0);
            *bound = note.max_memory.max(*bound);
        }
    }
    left
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

    /// The mean CPU seconds of the ten (`RECENT`) highest-numbered records: the pieces next to
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

    /// The time of the walk every piece shares, which a run of the pieces left makes first
    /// where it has no split file (the tables the pieces start from), projected as the count
    /// projects it (a probe of its first columns, a second or so): `None` where nothing is left
    /// or the count is not met in the middle.
    #[must_use]
    pub fn shared_walk(&self) -> Option<f64> {
        let super::driver::Merged::Partial { job, engine, .. } = &self.merged else {
            return None;
        };
        if *engine != crate::count::Engine::Frontier || self.tree.is_none() {
            return None;
        }
        crate::frontier::shared_walk_seconds(job.board, &job.piece, &job.spec)
            .ok()
            .flatten()
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
        for (path, piece, lines) in &self.damaged {
            let (which, remedy) = match piece {
                Some(p) => (
                    format!("the record of piece {p}"),
                    format!(
                        "the piece is not taken: the count's command with --ledger '{}' counts it again and writes the file anew",
                        self.dir.display()
                    ),
                ),
                // not a name the count writes: it would not be written anew
                None => (
                    "a record not named as the count names them".to_string(),
                    format!(
                        "its piece is not taken from it: delete it (the count's command with --ledger '{}' counts every piece no record holds)",
                        self.dir.display()
                    ),
                ),
            };
            s += &format!(
                "damaged: '{}', {which}: {lines} line{} that do{} not check (changed or cut short), so {remedy}\n",
                path.display(),
                plural(*lines as u64),
                if *lines == 1 { "es" } else { "" },
            );
        }
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
                if let Some(walk) = self.shared_walk() {
                    s += &format!(
                        "; and before them, where the run has no split file, the walk every piece shares: about {} (projected from its first columns)",
                        human_duration(walk)
                    );
                }
                s.push('\n');
            }
            (n, None) => s += &format!("left: {n} piece{}\n", plural(n as u64)),
        }
        if !self.left_for_memory.is_empty() {
            let n = self.left_for_memory.len();
            let only: Vec<String> = self
                .left_for_memory
                .keys()
                .map(ToString::to_string)
                .collect();
            let bound = self.left_for_memory.values().copied().max().unwrap_or(0);
            s += &format!(
                "left for more memory: {n} of them (--only {}) did not fit under a memory bound of {}: the command that left {} stops at {} again, so run it with --only {} and a larger --max-memory, here or on a machine with more memory\n",
                only.join(","),
                crate::human::human_bytes(bound),
                if n == 1 { "it" } else { "them" },
                if n == 1 { "it" } else { "them" },
                only.join(","),
            );
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
            "piece_classes": self.classes,
            "pieces_left_for_memory": self.left_for_memory.keys().collect::<Vec<_>>(),
            "left_for_memory_max_memory": self.left_for_memory.values().max(),
            "damaged_records": self.damaged.iter().map(|(path, piece, lines)| serde_json::json!({
                "file": path.display().to_string(),
                "piece": piece,
                "damaged_lines": lines,
            })).collect::<Vec<_>>(),
        });
        v
    }
}

/// A ledger's whole count piece by piece, for drawing tours from it (`sample --ledger`): the
/// run's identity, every piece's count (the engine's unit, as recorded) and the CPU seconds of
/// the records that say them.
pub struct Whole {
    pub id: super::checkpoint::RunId,
    pub counts: Vec<BigUint>,
    pub cpu: BTreeMap<usize, f64>,
}

/// Reads the ledger in `dir` as [`Whole`]: every record checked and merged as `knights merge`
/// does; a ledger with pieces missing, damaged lines or records that disagree is refused.
pub fn whole(dir: &Path) -> Result<Whole, super::driver::RunError> {
    let invalid = |m: String| -> super::driver::RunError { crate::error::Error::Invalid(m).into() };
    if !dir.is_dir() {
        return Err(invalid(format!(
            "the ledger folder '{}' does not exist or is not a folder (name the folder `knights count --ledger DIR` wrote)",
            dir.display()
        )));
    }
    let st = status(dir)?;
    if let Some((path, _, n)) = st.damaged.first() {
        return Err(invalid(format!(
            "the ledger record '{}' has {n} damaged line{}: drawing tours from a ledger needs every record whole",
            path.display(),
            crate::human::plural(*n as u64)
        )));
    }
    if let super::driver::Merged::Partial {
        units, units_done, ..
    } = &st.merged
    {
        return Err(invalid(format!(
            "the ledger in '{}' holds {units_done} of the {units} pieces of its count: drawing tours from a ledger needs them all (`knights status {}` says what is left)",
            dir.display(),
            dir.display()
        )));
    }
    let paths = log_files(dir).map_err(|source| CheckpointError::Io {
        action: "read",
        path: dir.into(),
        source,
    })?;
    let records = checkpoint::read_records(&paths)?;
    let Some(first) = records.iter().find(|l| l.ledger) else {
        return Err(invalid(format!(
            "the folder '{}' holds no ledger records",
            dir.display()
        )));
    };
    let id = first.id.clone();
    if id.shard.count != 1 {
        return Err(invalid(format!(
            "the ledger in '{}' is of a count cut into {} shards: tours are drawn by way of the ledger of one run (`knights count` without --shard)",
            dir.display(),
            id.shard.count
        )));
    }
    let held = super::ledger::read(dir, &id)?;
    let counts: Option<Vec<BigUint>> = (0..id.units).map(|u| held.done.get(&u).cloned()).collect();
    let Some(counts) = counts else {
        return Err(invalid(format!(
            "the ledger in '{}' holds {} of the {} pieces of its count: drawing tours from a ledger needs them all",
            dir.display(),
            held.done.len(),
            id.units
        )));
    };
    Ok(Whole {
        id,
        counts,
        cpu: st.cpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
