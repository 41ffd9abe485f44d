//! Files that must survive a crash: written whole or not at all (a temporary file, fsync,
//! rename), read only when they are regular files, and locked by one run at a time. The count
//! driver's checkpoint log and the frontier engine's saved layers both rest on these.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::input::{self, InputError};

/// Errors reading or writing a checkpoint; each names the file.
#[derive(Debug, Error)]
pub enum CheckpointError {
    #[error("cannot {action} checkpoint '{}': {source}", .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("'{}' is {kind}, not a regular file: a checkpoint or a split is written to one", .path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("checkpoint '{}' is in use by another process (a count holds its lock file '{}'); wait for it to finish, or give another file", .path.display(), .lock.display())]
    InUse { path: PathBuf, lock: PathBuf },
    #[error("'{}' is not a knights checkpoint: {why}", .path.display())]
    NotACheckpoint { path: PathBuf, why: String },
    /// A file read as a count's log that is not the kind `what` names (a checkpoint, a ledger
    /// record).
    #[error("'{}' is not {what}: {why}", .path.display())]
    NotALog {
        path: PathBuf,
        what: &'static str,
        why: String,
    },
    #[error("checkpoint '{}' is damaged: {why}; it cannot be trusted, delete it to count again", .path.display())]
    Damaged { path: PathBuf, why: String },
    #[error("ledger record '{}' is damaged: {why}; it cannot be trusted: delete it, and the count's command with --ledger counts its piece again", .path.display())]
    DamagedRecord { path: PathBuf, why: String },
    #[error("checkpoint '{}' belongs to a different run: its {field} is {file}, this run's is {run}", .path.display())]
    Mismatch {
        path: PathBuf,
        field: &'static str,
        file: String,
        run: String,
    },
    #[error("ledger record '{}' belongs to a different run: its {field} is {file}, this run's is {run}; give this run another folder, or move the folder's records of the other run out", .path.display())]
    RecordMismatch {
        path: PathBuf,
        field: &'static str,
        file: String,
        run: String,
    },
    #[error("checkpoint '{}' records unit {unit} twice with different counts ({a} and {b})", .path.display())]
    Conflict {
        path: PathBuf,
        unit: usize,
        a: String,
        b: String,
    },
    /// Two files that give one piece different counts: either may be the wrong one.
    #[error("'{}' and '{}' give piece {unit} different counts ({a} and {b}): one of them is wrong, and neither is taken; count the piece again alone (the count's command with --only {unit} and a new --checkpoint FILE, without --ledger) and delete the file whose count is not the one FILE records", .first.display(), .second.display())]
    Disagree {
        unit: usize,
        first: PathBuf,
        a: String,
        second: PathBuf,
        b: String,
    },
    #[error("checkpoint '{}' records unit {unit}, which is not one of the units of shard {shard} of {units}", .path.display())]
    Foreign {
        path: PathBuf,
        unit: usize,
        shard: String,
        units: usize,
    },
}

/// The bytes of the regular file at `path`; a device, pipe or directory is refused unread.
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    let mut file = input::open_regular(path).map_err(|e| from_input(path, e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|source| CheckpointError::Io {
            action: "read",
            path: path.into(),
            source,
        })?;
    Ok(bytes)
}

/// Replaces `path` with `bytes` atomically (see [`replace_with`]).
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    replace_with(path, |f| f.write_all(bytes))
}

/// A file kept beside a checkpoint log (or any file): `FILE` with `suffix` appended
/// (`FILE.lock`, `FILE.layers`, `FILE.split`, `FILE.leaves`, a temporary `FILE.tmp...`).
#[must_use]
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The files of a run with `checkpoint`: the file itself and those kept beside it
/// (`FILE.layers`, `FILE.split`, … and their temporaries), each with its name's part past
/// `FILE`.
fn kept_beside(checkpoint: &Path) -> Vec<(String, PathBuf)> {
    let dir = checkpoint
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = checkpoint.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let f = e.file_name().to_str()?.to_string();
            let rest = f.strip_prefix(name)?;
            (rest.is_empty() || rest.starts_with('.')).then(|| (rest.to_string(), e.path()))
        })
        .collect();
    out.sort();
    out
}

/// The files of a run with `checkpoint` that are there now: the file itself and those kept
/// beside it (`FILE.layers`, `FILE.split`, … and their temporaries).
#[must_use]
pub fn run_files(checkpoint: &Path) -> Vec<PathBuf> {
    kept_beside(checkpoint)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// The files a run that has ended left in `checkpoint`'s folder (temporaries of a write cut
/// short by a `kill -9`, tables of a count killed while they were on disk), of any run: see
/// [`crate::durable::stale`].
#[must_use]
pub fn dead_temporaries(checkpoint: &Path) -> Vec<PathBuf> {
    crate::durable::stale(folder_of(checkpoint))
}

/// The folder a file is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The bytes of a file's name a temporary name keeps (a name is at most 255 bytes).
const TEMP_NAME_BYTES: usize = 120;

/// A temporary name beside `path` that no other writer uses, and the claim on its folder that
/// keeps other runs from sweeping it: `.knights-tmp.ID.N.NAME` (this run's identity, a serial
/// number, and the name it replaces), created new so that a file of that name is never reused.
fn temp_beside(path: &Path) -> Result<(PathBuf, File, crate::durable::Claim), io::Error> {
    let dir = folder_of(path);
    let claim = crate::durable::claim(dir)?;
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.len() > TEMP_NAME_BYTES {
        let mut cut = TEMP_NAME_BYTES;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
    }
    loop {
        let tmp = dir.join(crate::durable::name(
            "tmp",
            &format!("{}.{name}", crate::durable::serial()),
        ));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f, claim)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
}

/// Whether a file can be written at `path` (its folder there, and this user allowed to make a
/// file in it): a temporary file is made beside it and removed. For a run that writes `path`
/// only at its end, checked before the work.
pub(crate) fn writable(path: &Path) -> io::Result<()> {
    let (tmp, f, _claim) = temp_beside(path)?;
    drop(f);
    fs::remove_file(tmp)
}

/// Replaces `path` with what `write` writes, atomically: into a temporary file of a unique name
/// beside it, fsync, rename, and fsync the folder so the rename itself survives a power cut. A
/// reader sees the old file or the new one, never a part; the temporary file is removed on error.
pub(crate) fn replace_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), CheckpointError> {
    let io = |action, source| CheckpointError::Io {
        action,
        path: path.into(),
        source,
    };
    let (tmp, mut f, _claim) = temp_beside(path).map_err(|e| io("create", e))?;
    let written = write(&mut f)
        .map_err(|e| io("write", e))
        .and_then(|()| f.sync_all().map_err(|e| io("sync", e)));
    drop(f);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path).map_err(|e| io("write", e))) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // folders cannot be opened for syncing everywhere; where they cannot, the rename is still atomic
    if let Ok(d) = File::open(folder_of(path)) {
        let _ = d.sync_all();
    }
    fail::fail_point!("saved");
    Ok(())
}

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
            if crate::durable::same_file(&path, &file) {
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

/// A checkpoint's error from an input check.
fn from_input(path: &Path, e: InputError) -> CheckpointError {
    match e {
        InputError::NotAFile { path, kind } => CheckpointError::NotAFile { path, kind },
        InputError::Io { source, .. } => CheckpointError::Io {
            action: "read",
            path: path.into(),
            source,
        },
        e => CheckpointError::Io {
            action: "read",
            path: path.into(),
            source: io::Error::other(e.to_string()),
        },
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

    #[test]
    fn special_files_are_refused_and_temporary_names_are_unique() {
        #[cfg(unix)]
        {
            let zero = Path::new("/dev/zero");
            assert!(matches!(
                read_regular(zero),
                Err(CheckpointError::NotAFile { .. })
            ));
            assert!(matches!(
                CheckpointLock::acquire(zero),
                Err(CheckpointError::NotAFile { .. })
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (a, _, claim) = temp_beside(&path).unwrap();
        let (b, _, _) = temp_beside(&path).unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(&format!(".knights-tmp.{}.", crate::durable::run_id()))
                && name.ends_with(".run.ckpt"),
            "{name}"
        );
        replace(&path, b"x").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"x");
        // the checkpoint, the two names taken above and the folder's lock while they are
        // claimed: replace leaves no temporary behind
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
        drop(claim);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
        // a name too long for a temporary's is cut (a name is at most 255 bytes)
        let long = dir.path().join("é".repeat(120));
        replace(&long, b"y").unwrap();
        assert_eq!(fs::read(&long).unwrap(), b"y");
    }
}
