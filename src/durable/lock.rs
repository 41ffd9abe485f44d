//! Locks on a run's files: one run at a time on a checkpoint ([`CheckpointLock`]), and turns
//! taken on a file several runs share ([`TurnLock`]).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{CheckpointError, from_input};
use super::replace::beside;
use crate::input;

/// An exclusive lock on a run's checkpoint, held while the run lasts: a second process given the
/// same checkpoint is refused ([`CheckpointError::InUse`]) instead of doing the same work and
/// racing on the file. The lock is taken on a file beside the checkpoint, `FILE.lock` (the
/// checkpoint itself is replaced by renames, which would leave a lock on it behind on the old
/// file); it is an advisory `flock`-style lock, which the system releases when the process ends
/// however it ends, and the file is removed when the run ends normally.
#[derive(Debug)]
pub struct CheckpointLock {
    path: PathBuf,
    /// Holds the lock while it is open.
    _file: File,
}

impl CheckpointLock {
    /// Locks the checkpoint at `checkpoint`, which need not exist yet (something that exists
    /// there must be a regular file).
    pub fn acquire(checkpoint: &Path) -> Result<CheckpointLock, CheckpointError> {
        input::check_regular(checkpoint).map_err(|e| from_input(checkpoint, e))?;
        let path = beside(checkpoint, ".lock");
        // errors name the checkpoint the user gave; the action names the lock file's part
        let io = |action, source| CheckpointError::Io {
            action,
            path: checkpoint.into(),
            source,
        };
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| io("create the lock file of", e))?;
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => {}
                Err(fs4::TryLockError::WouldBlock) => {
                    return Err(CheckpointError::InUse {
                        path: checkpoint.into(),
                        lock: path,
                    });
                }
                Err(fs4::TryLockError::Error(e)) => return Err(io("lock", e)),
            }
            // the last holder removes the file as it finishes: if it did so after we opened it,
            // the lock is on a file nobody else will open, so take the one at the path instead
            if super::same_file(&path, &file) {
                file.set_len(0)
                    .map_err(|e| io("write the lock file of", e))?;
                writeln!(file, "{}", std::process::id())
                    .map_err(|e| io("write the lock file of", e))?;
                return Ok(CheckpointLock { path, _file: file });
            }
        }
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CheckpointLock {
    fn drop(&mut self) {
        // removed while still locked: a process that opened it meanwhile sees it gone and retries
        let _ = fs::remove_file(&self.path);
    }
}

/// A lock several processes wait their turn for (the frontier engine's shared split file, which
/// one shard makes while the others wait, then read): `FILE.lock` beside the file, held until
/// dropped. The lock file stays: removing it could let a waiting process lock a file nobody
/// else opens.
#[derive(Debug)]
pub struct TurnLock {
    _file: File,
}

impl TurnLock {
    /// Waits for the lock on `path` (polling, so that `stop` ends the wait within moments:
    /// `None`); `waiting` is called once if another process holds it.
    pub fn wait(
        path: &Path,
        stop: &std::sync::atomic::AtomicBool,
        waiting: impl FnOnce(),
    ) -> Result<Option<TurnLock>, CheckpointError> {
        // a device, pipe or folder is refused before anything is created beside it
        input::check_regular(path).map_err(|e| from_input(path, e))?;
        let lock = beside(path, ".lock");
        let io = |action, source| CheckpointError::Io {
            action,
            path: path.into(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock)
            .map_err(|e| io("create the lock file of", e))?;
        let mut waiting = Some(waiting);
        loop {
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => return Ok(Some(TurnLock { _file: file })),
                Err(fs4::TryLockError::WouldBlock) => {
                    if let Some(w) = waiting.take() {
                        w();
                    }
                    // Relaxed: the flag only asks this wait to end
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return Ok(None);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(fs4::TryLockError::Error(e)) => return Err(io("lock", e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_locked_by_one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let lock = CheckpointLock::acquire(&path).unwrap();
        assert!(lock.path().exists());
        let e = CheckpointLock::acquire(&path).unwrap_err();
        assert!(matches!(e, CheckpointError::InUse { .. }), "{e}");
        assert!(e.to_string().contains("in use by another process"), "{e}");
        let lock_file = lock.path().to_path_buf();
        drop(lock);
        assert!(!lock_file.exists(), "the lock file is removed at the end");
        // a lock file left behind (by a process killed with -9) holds no lock
        fs::write(&lock_file, "12345\n").unwrap();
        let again = CheckpointLock::acquire(&path).unwrap();
        assert_eq!(
            fs::read_to_string(again.path()).unwrap(),
            format!("{}\n", std::process::id())
        );
    }
}
