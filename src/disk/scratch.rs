//! The scratch folder a count writes its tables to past the memory bound: claimed for the run
//! at its first file, its files named by the run, and the count's own figures of what it wrote.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::durable::{self, Claim, DiskError, TABLE_FILE};

/// Where a count's files on disk go: a folder, claimed for this run at its first file (see
/// [`crate::durable`]), and the count's own figures of what it wrote and holds there.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    inner: Arc<Place>,
}

#[derive(Debug)]
struct Place {
    dir: PathBuf,
    claim: OnceLock<Claim>,
    figures: DiskFigures,
}

/// The kind of the store's files in their names (`.knights-spill.ID.N.WHAT`).
const KIND: &str = "spill";

/// Bytes a count has written to its scratch folder, holds there now, and held at the most: the
/// count's own (two counts in one process, a library's or the tests', keep theirs apart).
#[derive(Debug, Default)]
pub(crate) struct DiskFigures {
    written: AtomicU64,
    pub(crate) on_disk: AtomicU64,
    peak: AtomicU64,
}

impl DiskFigures {
    pub(crate) fn grew(&self, bytes: u64) {
        // Relaxed: figures for the report
        let now = self.on_disk.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        self.written.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(crate) fn shrank(&self, bytes: u64) {
        self.on_disk.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Bytes of tables written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// The most bytes held at once.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

/// The error of `action` on the store's file `path`.
pub(crate) fn failed(action: &'static str, path: &Path, e: &std::io::Error) -> DiskError {
    DiskError::io(action, path, TABLE_FILE, e)
}

impl Scratch {
    /// The scratch folder `dir`, with figures of its own.
    pub(crate) fn new(dir: PathBuf) -> Scratch {
        Scratch {
            inner: Arc::new(Place {
                dir,
                claim: OnceLock::new(),
                figures: DiskFigures::default(),
            }),
        }
    }

    /// The count's figures of its files here.
    pub(crate) fn figures(&self) -> &DiskFigures {
        &self.inner.figures
    }

    /// A new file's path, of this run, for `what` (the folder claimed first).
    pub(crate) fn file(&self, what: &str) -> Result<PathBuf, DiskError> {
        crate::failpoint::spill();
        let dir = &self.inner.dir;
        if self.inner.claim.get().is_none() {
            let c = durable::claim(dir).map_err(|e| DiskError {
                action: "write",
                path: dir.clone(),
                what: "the scratch folder",
                why: e.to_string(),
                kind: Some(e.kind()),
            })?;
            let _ = self.inner.claim.set(c);
        }
        Ok(dir.join(durable::name(
            KIND,
            &format!("{}.{what}", durable::serial()),
        )))
    }

    /// Removes the files runs that have ended left in the folder (a count killed while its
    /// tables were on disk), whoever's they were: see [`durable::sweep`].
    pub(crate) fn remove_stale(&self) {
        durable::sweep(&self.inner.dir);
    }
}

/// A new file of the store at `path`, which no file may hold yet (a name of this run's, so a
/// file there is no one's to write into).
pub(crate) fn create_new(path: &Path) -> Result<File, DiskError> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| failed("create", path, &e))
}
