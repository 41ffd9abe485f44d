//! The checkpoint saver: when a count saves its layers, and what a save writes.

use super::*;

/// Saves a checkpoint now and then: after a layer when the last save is at least
/// [`SAVE_RATIO`] times its own duration old (so saving costs at most 1/`SAVE_RATIO` of the
/// time), at the end of every stage, and when the count is interrupted.
pub(super) struct Saver {
    /// The stage in progress: `FILE.layers` beside the checkpoint log.
    pub(super) path: Option<PathBuf>,
    pub(super) last: Instant,
    pub(super) cost: Duration,
    /// Whether the last finished layer is saved.
    pub(super) saved: bool,
    /// Saves skipped for want of disk (the user is told at the first).
    pub(super) skipped: u64,
    /// Set to give up a save as the count stops (see [`Limits::abandon`]).
    pub(super) abandon: Option<std::sync::Arc<AtomicBool>>,
}

pub(super) const SAVE_RATIO: u32 = 20;

impl Saver {
    pub(super) fn due(&self) -> bool {
        self.path.is_some() && self.last.elapsed() >= self.cost * SAVE_RATIO
    }

    /// Saves `tables` as `stage`. A save is written beside the last one before it replaces it;
    /// where the checkpoint's disk lacks room for it (twice the frames its states are projected
    /// at) or fills while it is written, the last save stays, the count goes on, and `obs` is
    /// told at the first such save: a stop then loses the layers since the last save, where a
    /// count of hours stopped for want of disk for a save would lose everything since too.
    pub(super) fn save<K: Key>(
        &mut self,
        name: &RunName,
        stage: (&str, usize, usize, usize),
        tables: &[(&str, Src<'_, K>)],
        obs: &dyn Observer,
    ) -> Result<(), RunError> {
        if let Some(path) = &self.path {
            let bytes: u64 = tables
                .iter()
                .map(|(_, t)| t.len() * t.shape().stride() as u64)
                .sum();
            let need = 2.0 * bytes as f64 / crate::disk::frames::FRAME_SHRINK;
            let dir = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let free = scratch_free(dir);
            let t = Instant::now();
            let (phase, done, layer, layers) = stage;
            let full = if free.is_some_and(|f| (f as f64) < need) {
                true
            } else {
                match snapshot::save(
                    path,
                    name,
                    phase,
                    done,
                    (layer, layers),
                    tables,
                    self.abandon.as_deref(),
                ) {
                    Err(CheckpointError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::StorageFull =>
                    {
                        true
                    }
                    // given up at a second stop signal: the last save stays, and the count ends
                    Err(CheckpointError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::Interrupted
                            && self
                                .abandon
                                .as_ref()
                                .is_some_and(|a| a.load(Ordering::Relaxed)) =>
                    {
                        return Ok(());
                    }
                    r => {
                        r?;
                        false
                    }
                }
            };
            self.cost = t.elapsed();
            self.last = Instant::now();
            if full {
                let states: u64 = tables.iter().map(|(_, t)| t.len()).sum();
                if self.skipped == 0 {
                    obs.warn(&format!(
                        "the layer of {} state{} could not be saved: '{}' has {} free, and the save needs about {}; the last save is kept and the count goes on (a stop now loses the layers since), and later saves are tried as usual",
                        group_u64(states),
                        plural(states),
                        dir.display(),
                        human_bytes(free.unwrap_or(0)),
                        human_bytes(need as u64),
                    ));
                }
                self.skipped += 1;
                return Ok(());
            }
        }
        self.saved = true;
        Ok(())
    }

    /// [`Saver::save`] of the work in progress as the count stops: said first, for a large
    /// layer takes a while to write, and given up at a second stop signal.
    pub(super) fn save_stopping<K: Key>(
        &mut self,
        name: &RunName,
        stage: (&str, usize, usize, usize),
        tables: &[(&str, Src<'_, K>)],
        obs: &dyn Observer,
    ) -> Result<(), RunError> {
        if let Some(path) = &self.path {
            let states: u64 = tables.iter().map(|(_, t)| t.len()).sum();
            obs.info(&format!(
                "stopping: saving the work in progress ({} state{}) to '{}' so that the count resumes from it; a second stop signal stops without it (the last save is kept)",
                group_u64(states),
                plural(states),
                path.display()
            ));
            if let Some(abandon) = &self.abandon {
                crate::failpoint::hold("stopping", abandon);
            }
        }
        self.save(name, stage, tables, obs)
    }

    /// Forgets the stage saved (it is finished and recorded elsewhere).
    pub(super) fn clear(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
        self.saved = false;
    }
}
