//! The leaves of a grid piece counted so far, kept beside a checkpoint (`FILE.leaves`), so that
//! a piece stopped midway goes on from its last finished leaf instead of from its start: on
//! 8x8 open a piece takes 20 minutes to an hour on two cores, in some hundred leaves.
//!
//! A leaf is a node of the piece's prefix tree (see `Run::grid_node`): the crossing after `j`
//! steps whose boundary digits are `p` (base 3, `j` digits). The leaves of a piece are disjoint
//! and cover it, however the tree was cut, so a resumed piece adds the counts of the recorded
//! leaves, splits every node with a recorded leaf below it, and walks the rest as usual: the
//! sum is the piece's count whatever leaf size or memory bound either run had.
//!
//! The file holds one piece's leaves: a header naming the run (its fingerprint) and the piece,
//! then a line `j p count crc` a leaf, appended and synced as each leaf is joined; the file is
//! made with a piece's first leaf and removed when the next piece begins. `crc` is the CRC32
//! of the line's fields with the run's fingerprint and the piece, so a flipped digit, or a
//! line of another run or piece, does not check. A header of another run or piece is not
//! trusted, nor a line torn by a crash, naming no node or failing its check, nor any line
//! after it: their leaves are counted again.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use num_bigint::BigUint;

use super::join::MAX_BOUNDARY;
use crate::engine::RunError;
use crate::error::Error;

/// The first word of the file's header.
const MAGIC: &str = "knights-tree-leaves-2";

/// The check of leaf `(j, p)` of `count` in piece `piece` of the run with `fingerprint`.
fn check(fingerprint: u64, piece: u64, j: u32, p: u64, count: &BigUint) -> u32 {
    crc32fast::hash(format!("{fingerprint:016x} {piece} {j} {p} {count}").as_bytes())
}

/// The recorded leaves of the piece in progress.
#[derive(Debug, Default)]
pub(crate) struct LeafLog {
    /// The file; `None`: nothing is recorded (a count without a checkpoint).
    path: Option<PathBuf>,
    /// The run's fingerprint: a file of another run is not read.
    fingerprint: u64,
    /// The piece whose leaves are held, and its leaves `(j, p) -> count`.
    piece: Option<u64>,
    done: BTreeMap<(u32, u64), BigUint>,
    /// Open for appending once the piece has begun.
    file: Option<File>,
}

impl LeafLog {
    /// The log at `path` of the run with `fingerprint`, with the leaves it holds where it is
    /// this run's.
    pub(crate) fn open(path: Option<PathBuf>, fingerprint: u64) -> LeafLog {
        let mut log = LeafLog {
            path,
            fingerprint,
            ..LeafLog::default()
        };
        if let Some(text) = log.path.as_deref().and_then(|p| std::fs::read(p).ok()) {
            log.read(&String::from_utf8_lossy(&text));
        }
        log
    }

    fn read(&mut self, text: &str) {
        // only whole lines: a crash may leave the last one torn
        let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let mut lines = whole.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").split(' ').collect();
        let piece = match header[..] {
            [MAGIC, fp, piece] if u64::from_str_radix(fp, 16).ok() == Some(self.fingerprint) => {
                piece.parse().ok()
            }
            _ => None,
        };
        let Some(piece) = piece else { return };
        for line in lines {
            let leaf = |line: &str| -> Option<((u32, u64), BigUint)> {
                let mut w = line.split(' ');
                let (j, p): (u32, u64) = (w.next()?.parse().ok()?, w.next()?.parse().ok()?);
                let count = w.next()?.parse().ok()?;
                let crc = u32::from_str_radix(w.next()?, 16).ok()?;
                // a node of a crossing of at most MAX_BOUNDARY squares, `j` digits
                let node = j <= MAX_BOUNDARY && p < 3u64.pow(j);
                let sound = crc == check(self.fingerprint, piece, j, p, &count);
                (node && sound && w.next().is_none()).then_some(((j, p), count))
            };
            // a damaged line ends what is trusted
            let Some((key, count)) = leaf(line) else {
                break;
            };
            self.done.insert(key, count);
        }
        self.piece = Some(piece);
    }

    /// The piece whose leaves the file held when opened, and how many.
    pub(crate) fn held(&self) -> Option<(u64, usize)> {
        self.piece.map(|i| (i, self.done.len()))
    }

    /// Begins piece `i`: the leaves recorded for it are kept where the file holds this piece
    /// (and written again whole, without a line a crash may have torn), the file is removed
    /// otherwise. The number of leaves recorded before.
    pub(crate) fn begin(&mut self, i: u64) -> Result<usize, RunError> {
        self.file = None;
        if self.piece != Some(i) {
            self.done.clear();
        }
        self.piece = Some(i);
        if let Some(path) = &self.path {
            if self.done.is_empty() {
                let _ = std::fs::remove_file(path);
            } else {
                self.rewrite()?;
            }
        }
        Ok(self.done.len())
    }

    /// Writes the file whole (header and leaves) in place of the old one, atomically, and
    /// opens it for appending.
    fn rewrite(&mut self) -> Result<(), RunError> {
        let (Some(path), Some(i)) = (&self.path, self.piece) else {
            return Ok(());
        };
        let mut text = format!("{MAGIC} {:016x} {i}\n", self.fingerprint);
        for ((j, p), count) in &self.done {
            text.push_str(&self.line(i, *j, *p, count));
        }
        crate::durable::replace_with(path, |f| f.write_all(text.as_bytes()))?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| io_error("open", path, &e))?;
        self.file = Some(file);
        Ok(())
    }

    /// The count of leaf `(j, p)` of the piece in progress, where it is recorded.
    pub(crate) fn get(&self, j: usize, p: u64) -> Option<&BigUint> {
        self.done.get(&(j as u32, p))
    }

    /// Whether a leaf below node `(j, p)` is recorded: the node must then be split, not walked
    /// whole, or that leaf would be counted twice.
    pub(crate) fn below(&self, j: usize, p: u64) -> bool {
        self.done
            .range((j as u32 + 1, 0)..)
            .any(|(&(k, q), _)| q / 3u64.pow(k - j as u32) == p)
    }

    /// Records leaf `(j, p)` of the piece in progress: appended and synced (the file made with
    /// its first leaf) before it is added to the piece's count.
    pub(crate) fn record(&mut self, j: usize, p: u64, count: &BigUint) -> Result<(), RunError> {
        self.done.insert((j as u32, p), count.clone());
        if self.path.is_none() {
            return Ok(());
        }
        if self.file.is_none() {
            return self.rewrite();
        }
        let line = self.line(self.piece.unwrap_or(0), j as u32, p, count);
        if let (Some(file), Some(path)) = (&mut self.file, &self.path) {
            file.write_all(line.as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|e| io_error("write", path, &e))?;
            fail::fail_point!("saved");
        }
        Ok(())
    }

    /// The file's line of leaf `(j, p)` of `count` in piece `i`.
    fn line(&self, i: u64, j: u32, p: u64, count: &BigUint) -> String {
        let crc = check(self.fingerprint, i, j, p, count);
        format!("{j} {p} {count} {crc:08x}\n")
    }

    /// Removes the file: the run's pieces are done.
    pub(crate) fn clear(&mut self) {
        self.file = None;
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn io_error(action: &str, path: &Path, e: &std::io::Error) -> RunError {
    Error::Invalid(format!(
        "cannot {action} the grid's leaves file '{}': {e}",
        path.display()
    ))
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(text: &str, fingerprint: u64) -> LeafLog {
        let mut log = LeafLog {
            fingerprint,
            ..LeafLog::default()
        };
        log.read(text);
        log
    }

    #[test]
    fn a_log_keeps_whole_lines_of_its_own_run() {
        let line = |j: u32, p: u64, c: u32| {
            let crc = check(0xab, 7, j, p, &BigUint::from(c));
            format!("{j} {p} {c} {crc:08x}")
        };
        let text = format!(
            "{MAGIC} 00000000000000ab 7\n{}\n{}\n{}",
            line(2, 5, 100),
            line(3, 16, 42),
            line(3, 17, 9)
        );
        let log = log_of(&text, 0xab);
        assert_eq!(log.piece, Some(7));
        // the torn last line is dropped
        assert_eq!(log.done.len(), 2);
        assert_eq!(log.get(3, 16), Some(&BigUint::from(42u32)));
        assert_eq!(log.get(3, 17), None);
        // another run's file, a damaged header, a damaged line
        assert!(log_of(&text, 0xac).done.is_empty());
        assert!(log_of("knights 1 2\n2 5 1\n", 0xab).piece.is_none());
        // a flipped digit in a count: its check fails, so neither it nor the lines after it
        // are trusted
        let flipped = line(3, 16, 42).replacen("42", "43", 1);
        let good = line(2, 5, 100);
        for bad in [
            "2 x 1".to_string(),
            "2 9 1".to_string(),
            "99 0 1".to_string(),
            line(2, 5, 1) + " 1",
            flipped,
            line(2, 5, 100).replacen("2 5", "2 4", 1),
        ] {
            let damaged = format!(
                "{MAGIC} 00000000000000ab 7\n{good}\n{bad}\n{}\n",
                line(3, 17, 9)
            );
            assert_eq!(log_of(&damaged, 0xab).done.len(), 1, "{bad}");
        }
        // a line of another piece of the same run
        let other = format!("{MAGIC} 00000000000000ab 8\n{}\n", line(2, 5, 100));
        assert!(log_of(&other, 0xab).done.is_empty());
    }

    #[test]
    fn a_node_above_a_recorded_leaf_is_split() {
        let mut log = LeafLog::default();
        log.begin(0).unwrap();
        // leaf (3, 16): digits 1,2,1 (16 = 1*9 + 2*3 + 1)
        log.record(3, 16, &BigUint::from(5u32)).unwrap();
        assert!(log.below(2, 5) && log.below(1, 1) && log.below(0, 0));
        assert!(!log.below(2, 4) && !log.below(1, 0) && !log.below(3, 16));
        // a new piece starts empty; the same piece keeps its leaves
        log.begin(0).unwrap();
        assert!(log.get(3, 16).is_some());
        log.begin(1).unwrap();
        assert!(log.get(3, 16).is_none() && !log.below(0, 0));
    }

    #[test]
    fn the_file_survives_a_new_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt.leaves");
        let mut log = LeafLog::open(Some(path.clone()), 0x5eed);
        assert_eq!(log.begin(4).unwrap(), 0);
        // made with the piece's first leaf
        assert!(!path.exists());
        log.record(2, 1, &BigUint::from(10u32)).unwrap();
        log.record(2, 2, &BigUint::from(u128::MAX)).unwrap();
        drop(log);
        let mut again = LeafLog::open(Some(path.clone()), 0x5eed);
        assert_eq!(again.begin(4).unwrap(), 2);
        assert_eq!(again.get(2, 2), Some(&BigUint::from(u128::MAX)));
        // another piece's begin starts the file again
        let mut other = LeafLog::open(Some(path.clone()), 0x5eed);
        assert_eq!(other.begin(5).unwrap(), 0);
        assert!(!path.exists());
        other.record(3, 0, &BigUint::from(1u32)).unwrap();
        assert_eq!(
            LeafLog::open(Some(path.clone()), 0x5eed).held(),
            Some((5, 1))
        );
        other.clear();
        assert!(!path.exists());
    }

    /// Leaves `(j, p)` and their counts.
    type Leaves = BTreeMap<(u32, u64), BigUint>;

    /// A piece's leaves as written: the file, another run's and another piece's, the truth.
    fn seeds() -> (Vec<u8>, Vec<u8>, Vec<u8>, Leaves) {
        let mut log = LeafLog {
            fingerprint: 0x5eed,
            piece: Some(7),
            ..LeafLog::default()
        };
        let truth: BTreeMap<(u32, u64), BigUint> =
            [(1, 0), (2, 3), (2, 4), (2, 5), (3, 18), (3, 26)]
                .into_iter()
                .zip([9u64, 1_000_003, 0, 77, u64::MAX, 12])
                .map(|(k, c)| (k, BigUint::from(c)))
                .collect();
        let file = |log: &LeafLog, piece: u64| {
            let mut text = format!("{MAGIC} {:016x} {piece}\n", log.fingerprint);
            for ((j, p), c) in &truth {
                text.push_str(&log.line(piece, *j, *p, c));
            }
            text.into_bytes()
        };
        let ours = file(&log, 7);
        let other_piece = file(&log, 8);
        log.fingerprint = 0x5eee;
        (ours, file(&log, 7), other_piece, truth)
    }

    fn read_back(bytes: &[u8], truth: &Leaves) {
        let log = log_of(&String::from_utf8_lossy(bytes), 0x5eed);
        // a header damaged into another piece's holds none of this piece's leaves (each line's
        // check names its piece); piece 8's file, whose lines damage may bring in, holds the
        // same leaves, so its header with its own lines is a true log of piece 8
        if !matches!(log.piece, Some(7 | 8)) {
            assert!(log.done.is_empty(), "leaves read under a damaged header");
        }
        for (k, c) in &log.done {
            assert_eq!(truth.get(k), Some(c), "leaf {k:?} read with a false count");
        }
    }

    #[test]
    fn no_single_damage_makes_the_reader_panic_or_lie() {
        let (ours, run, piece, truth) = seeds();
        // untouched, every leaf is read
        assert_eq!(
            log_of(std::str::from_utf8(&ours).unwrap(), 0x5eed).done,
            truth
        );
        let variants = crate::damage::single(&ours, &[&run, &piece]);
        assert!(variants.len() > 1_000, "{}", variants.len());
        for v in variants {
            read_back(&v, &truth);
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::damage::config())]
        #[test]
        fn no_random_damage_makes_the_reader_panic_or_lie(ops in crate::damage::ops()) {
            let (ours, run, piece, truth) = seeds();
            read_back(&crate::damage::apply(&ours, &ops, &[&run, &piece]), &truth);
        }
    }
}
