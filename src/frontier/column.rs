//! The finished leaves of the forward walk's column in progress, kept beside a checkpoint
//! (`FILE.column/`), so that a count stopped inside a column cut as a digit tree goes on from
//! its last finished leaf instead of from the column's start: 9x10 closed's fifth column takes
//! hours on two cores, and the checkpoint holds only the layer the column starts from.
//!
//! A leaf is a node `(j, p)` of the column's tree (see `Run::column`): the states after `j`
//! steps of the column whose squares' digits are `p` (base 3, `j` digits), walked to the
//! column's end. The leaves of a column are disjoint and cover it however the tree was cut, so
//! a resumed column reads the recorded leaves' tables back, splits every node with a recorded
//! leaf below it, and walks the rest as usual: the column's end is the same table.
//!
//! Each leaf is a file `B-J-P` in the folder: the leaf's table after the column that starts at
//! layer `B`, saved as a checkpoint's stage is (`snapshot::save`: written beside and renamed
//! over, its header naming the run and its states under checksums), so a file of another run,
//! one cut short or one whose checksums fail is not trusted and its leaf is walked again. The
//! files of a column that starts at another layer are of a column whose end is saved, or
//! was never saved; they go as the column begins. The folder goes once the column's end is
//! saved.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::snapshot::{self, RunName};
use crate::disk::scratch::Scratch;
use crate::durable::{CheckpointError, beside};
use crate::engine::{Observer, RunError};
use crate::human::human_duration;
use crate::layer::{Node, Src};
use crate::walk::state::Key;

/// The phase a leaf's file names.
const PHASE: &str = "column-leaf";

/// The recorded leaves of the column in progress.
#[derive(Debug, Default)]
pub(crate) struct ColumnLog {
    /// The folder; `None`: nothing is recorded (a count without a checkpoint).
    dir: Option<PathBuf>,
    /// The layer the column starts from.
    base: usize,
    /// The leaves recorded `(j, p)`.
    done: BTreeSet<(u32, u64)>,
    /// The nodes whose every leaf is recorded (`B-J-P.done`): read back whole on a resume,
    /// without walking the nodes between them and their leaves again.
    complete: BTreeSet<(u32, u64)>,
    /// Leaves read back so far, and whether the disk's want of room was told.
    pub(crate) resumed: u64,
    full: bool,
    /// How much of the column is done, and how much of that was read back: each leaf (or
    /// empty node) weighted by its share of the states after the column's first square (see
    /// [`ColumnLog::finished`]).
    pub(crate) walked: f64,
    pub(crate) read_back: f64,
    /// When the column began, and when its progress was last told.
    began: Option<Instant>,
    told: Option<Instant>,
}

/// The column's progress is told first once it has run this long, then at this interval.
const TELL_EVERY: Duration = Duration::from_secs(600);

impl ColumnLog {
    /// The log of the column that starts at layer `base`, beside `checkpoint`: the leaves its
    /// folder holds for that column; the files of any other column are removed.
    pub(crate) fn open(checkpoint: Option<&Path>, base: usize) -> ColumnLog {
        let dir = checkpoint.map(|c| beside(c, ".column"));
        let mut done = BTreeSet::new();
        let mut complete = BTreeSet::new();
        if let Some(entries) = dir.as_deref().and_then(|d| std::fs::read_dir(d).ok()) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let (stem, whole) = match name.strip_suffix(".done") {
                    Some(stem) => (stem, true),
                    None => (name.as_str(), false),
                };
                match parse(stem) {
                    Some((b, j, p)) if b == base && whole => {
                        complete.insert((j, p));
                    }
                    Some((b, j, p)) if b == base => {
                        done.insert((j, p));
                    }
                    _ => {
                        let _ = std::fs::remove_file(e.path());
                    }
                }
            }
        }
        let now = Instant::now();
        ColumnLog {
            dir,
            base,
            done,
            complete,
            began: Some(now),
            told: Some(now),
            ..ColumnLog::default()
        }
    }

    fn path(&self, j: usize, p: u64) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{}-{j}-{p}", self.base)))
    }

    /// Whether a leaf is recorded strictly below node `(j, p)`: the node is split, not walked.
    pub(crate) fn below(&self, j: usize, p: u64) -> bool {
        !self.leaves_below(j, p).is_empty()
    }

    /// The recorded leaves strictly below node `(j, p)`.
    fn leaves_below(&self, j: usize, p: u64) -> Vec<(u32, u64)> {
        self.done
            .range((j as u32 + 1, 0)..)
            .filter(|&&(k, q)| q / 3u64.pow(k - j as u32) == p)
            .copied()
            .collect()
    }

    /// The tables of every leaf below node `(j, p)` where a run recorded the node complete and
    /// each of them reads back whole; `None` where the node is to be walked (its marker is
    /// removed where a leaf of it does not read: the leaves that do are read back as it is).
    pub(crate) fn read_complete<K: Key>(
        &mut self,
        j: usize,
        p: u64,
        name: &RunName,
        key_bytes: usize,
        spill: Option<(&Scratch, u64)>,
    ) -> Result<Option<Vec<Node<K>>>, RunError> {
        if !self.complete.contains(&(j as u32, p)) {
            return Ok(None);
        }
        let mut out = Vec::new();
        for (k, q) in self.leaves_below(j, p) {
            match self.read::<K>(k as usize, q, name, key_bytes, spill)? {
                Some(t) => out.push(t),
                None => {
                    // (the leaves read so far are read again as the node is walked)
                    self.resumed -= out.len() as u64;
                    self.complete.remove(&(j as u32, p));
                    if let Some(path) = self.path(j, p) {
                        let _ = std::fs::remove_file(marker(&path));
                    }
                    return Ok(None);
                }
            }
        }
        Ok(Some(out))
    }

    /// Records node `(j, p)` complete, every leaf below it recorded (none where a record was
    /// skipped for want of room).
    pub(crate) fn record_complete(&mut self, j: usize, p: u64) -> Result<(), RunError> {
        let Some(path) = self.path(j, p).filter(|_| !self.full) else {
            return Ok(());
        };
        let path = marker(&path);
        std::fs::File::create(&path)
            .and_then(|f| f.sync_all())
            .map_err(|e| CheckpointError::Io {
                action: "write",
                path,
                source: e,
            })?;
        self.complete.insert((j as u32, p));
        Ok(())
    }

    /// The table of leaf `(j, p)` where it is recorded and its file reads back whole (into
    /// memory within `spill`'s bytes, past them to its scratch folder); `None` where it is to
    /// be walked (not recorded, or a file that cannot be trusted: removed, its leaf walked again).
    pub(crate) fn read<K: Key>(
        &mut self,
        j: usize,
        p: u64,
        name: &RunName,
        key_bytes: usize,
        spill: Option<(&Scratch, u64)>,
    ) -> Result<Option<Node<K>>, RunError> {
        if !self.done.contains(&(j as u32, p)) {
            return Ok(None);
        }
        let Some(path) = self.path(j, p) else {
            return Ok(None);
        };
        let read = snapshot::load_to::<K>(&path, name, key_bytes, spill, None);
        let leaf = match read {
            Ok(Some(mut s)) if s.phase == PHASE && s.done == self.base => s.take("leaf"),
            // the machine's disk failing under the scratch folder is the count's error
            Err(e @ RunError::Disk(_)) => return Err(e),
            _ => None,
        };
        if leaf.is_none() {
            self.done.remove(&(j as u32, p));
            let _ = std::fs::remove_file(&path);
        } else {
            self.resumed += 1;
        }
        Ok(leaf)
    }

    /// Records leaf `(j, p)`, its table `leaf` after the column: saved before it joins the
    /// column's end. A disk without room for it skips the record (told once): a stop then
    /// walks that leaf again.
    pub(crate) fn record<K: Key>(
        &mut self,
        j: usize,
        p: u64,
        leaf: Src<'_, K>,
        name: &RunName,
        obs: &dyn Observer,
    ) -> Result<(), RunError> {
        let (Some(dir), Some(path)) = (self.dir.clone(), self.path(j, p)) else {
            return Ok(());
        };
        if self.full {
            return Ok(());
        }
        std::fs::create_dir_all(&dir).map_err(|e| CheckpointError::Io {
            action: "make",
            path: dir.clone(),
            source: e,
        })?;
        let steps = (j, 0);
        match snapshot::save(
            &path,
            name,
            PHASE,
            self.base,
            steps,
            &[("leaf", leaf)],
            None,
        ) {
            Ok(_) => {
                self.done.insert((j as u32, p));
                Ok(())
            }
            Err(CheckpointError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::StorageFull =>
            {
                self.full = true;
                obs.warn(&format!(
                    "'{}' has no room for the column's finished leaves: the count goes on, and a stop before the column ends walks it again from its start",
                    dir.display()
                ));
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A leaf or an empty node of `weight` is finished (read back where `read`): the
    /// column's progress, told every [`TELL_EVERY`] as the part of it done and the time left
    /// at the rate of the leaves walked by this run. A node's weight is its parent's shared by
    /// the states of its siblings (the root's children: the column's states after its first
    /// square), so the weights of a column's leaves and empty nodes add up to 1, and nodes of
    /// one depth, which walk the same squares, weigh as their states do.
    pub(crate) fn finished(&mut self, weight: f64, read: bool, layer: usize, obs: &dyn Observer) {
        self.finished_at(weight, read, layer, obs, Instant::now());
    }

    /// [`ColumnLog::finished`] at the time `now`.
    fn finished_at(
        &mut self,
        weight: f64,
        read: bool,
        layer: usize,
        obs: &dyn Observer,
        now: Instant,
    ) {
        self.walked += weight;
        if read {
            self.read_back += weight;
        }
        let (Some(began), Some(told)) = (self.began, self.told) else {
            return;
        };
        if now.saturating_duration_since(told) < TELL_EVERY {
            return;
        }
        self.told = Some(now);
        let spent = now.saturating_duration_since(began).as_secs_f64();
        let mine = self.walked - self.read_back;
        let back = if self.read_back > 0.0 {
            format!(
                ", {} % read back from a stopped run",
                percent(self.read_back)
            )
        } else {
            String::new()
        };
        // a rate only from leaves this run walked, and not from a sliver of the column
        let rest = if mine >= 1e-3 {
            let left = (1.0 - self.walked).max(0.0) / (mine / spent.max(1e-9));
            format!("so about {} more at this rate", human_duration(left))
        } else {
            "too few of them walked by this run yet to give a rate (the nodes above the leaves read back are walked again to reach them)".to_string()
        };
        obs.info(&format!(
            "the column from layer {layer}: about {} % of it done in {}{back} (its digit tree's finished leaves, each weighted by its share of the states after the column's first square); {rest}",
            percent(self.walked),
            human_duration(spent),
        ));
    }

    /// Whether a leaf is recorded (the column's end is to be saved before they go).
    pub(crate) fn any(&self) -> bool {
        !self.done.is_empty()
    }

    /// Removes the folder: the column's end is saved (or the count is done).
    pub(crate) fn clear(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
        self.done.clear();
        self.complete.clear();
    }
}

/// A share as a percentage to the precision it has: `37.5`, `0.21`.
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 1.0 {
        format!("{p:.1}")
    } else {
        format!("{p:.2}")
    }
}

/// The marker `B-J-P.done` of a node's `B-J-P`.
fn marker(path: &Path) -> PathBuf {
    beside(path, ".done")
}

/// `B-J-P` of a leaf's file name.
fn parse(name: &str) -> Option<(usize, u32, u64)> {
    let mut it = name.split('-');
    let b = it.next()?.parse().ok()?;
    let j = it.next()?.parse().ok()?;
    let p = it.next()?.parse().ok()?;
    it.next().is_none().then_some((b, j, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leaf_name_is_three_numbers() {
        assert_eq!(parse("36-2-7"), Some((36, 2, 7)));
        for bad in [
            "36-2",
            "36-2-7-1",
            "x-2-7",
            "36-2-",
            ".knights-tmp.1.36-2-7",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    /// The column's progress is told as the part done and the time left at the rate of the
    /// leaves this run walked (those read back from a stopped run took no time).
    #[test]
    fn the_time_left_is_at_the_rate_of_the_leaves_walked() {
        struct Said(std::sync::Mutex<Vec<String>>);
        impl Observer for Said {
            fn info(&self, m: &str) {
                self.0.lock().unwrap().push(m.to_string());
            }
        }
        let said = Said(std::sync::Mutex::new(Vec::new()));
        let t0 = Instant::now();
        let at = |s| t0 + Duration::from_secs(s);
        let mut log = ColumnLog {
            began: Some(t0),
            told: Some(t0),
            ..ColumnLog::default()
        };
        // half read back in the first minute: told nothing yet, then no rate at 700 s
        log.finished_at(0.5, true, 36, &said, at(60));
        assert!(said.0.lock().unwrap().is_empty());
        log.finished_at(0.0, false, 36, &said, at(700));
        let first = said.0.lock().unwrap().pop().expect("told");
        assert!(first.ends_with("too few of them walked by this run yet to give a rate (the nodes above the leaves read back are walked again to reach them)"), "{first}");
        log.finished_at(0.25, false, 36, &said, at(760));
        assert!(said.0.lock().unwrap().is_empty(), "told twice in a minute");
        log.told = Some(at(600));
        log.finished_at(0.0, false, 36, &said, at(1200));
        let m = said.0.lock().unwrap().pop().expect("told");
        assert!(m.contains(", 50.0 % read back from a stopped run"), "{m}");
        assert!(
            m.starts_with("the column from layer 36: about 75.0 % of it done in 20"),
            "{m}"
        );
        // a quarter left at a quarter in 20 minutes (and at first no rate: nothing walked)
        assert!(
            m.ends_with(&format!(
                "so about {} more at this rate",
                human_duration(1200.0)
            )),
            "{m}"
        );
    }

    #[test]
    fn files_of_another_column_go_as_a_column_begins() {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("c.ckpt");
        let col = beside(&ck, ".column");
        std::fs::create_dir_all(&col).unwrap();
        for f in ["36-1-2", "36-2-5", "27-1-0", "junk"] {
            std::fs::write(col.join(f), b"x").unwrap();
        }
        let log = ColumnLog::open(Some(&ck), 36);
        assert_eq!(
            log.done.iter().copied().collect::<Vec<_>>(),
            [(1, 2), (2, 5)]
        );
        assert!(col.join("36-1-2").exists() && !col.join("27-1-0").exists());
        assert!(!col.join("junk").exists());
        // a node with a leaf below it: (2, 5) lies under (1, 1) (5 = 1*3 + 2), not under (1, 0)
        assert!(log.below(1, 1) && !log.below(1, 0) && !log.below(1, 2));
        assert!(log.below(0, 0) && !log.below(2, 5));
    }
}
