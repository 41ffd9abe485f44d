//! Files written whole or not at all (a temporary file beside them, fsync, rename) and read
//! only when they are regular files: the checkpoint log, its saved layers and every other file
//! the tool replaces rest on [`replace_with`].

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::error::{CheckpointError, from_input};
use crate::input;

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
/// [`super::stale`].
#[must_use]
pub fn dead_temporaries(checkpoint: &Path) -> Vec<PathBuf> {
    super::stale(folder_of(checkpoint))
}

/// The folder a file is in (`.` for a bare name).
/// Removes the files runs that ended left in the folder of `path` (a checkpoint: the
/// temporaries of a write cut short, a killed count's tables), whoever's they were; the files
/// removed.
pub fn sweep_beside(path: &Path) -> Vec<PathBuf> {
    super::sweep(folder_of(path))
}

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
fn temp_beside(path: &Path) -> Result<(PathBuf, File, super::Claim), io::Error> {
    let dir = folder_of(path);
    let claim = super::claim(dir)?;
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
        let tmp = dir.join(super::name("tmp", &format!("{}.{name}", super::serial())));
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

#[cfg(test)]
mod tests {
    use super::*;

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
                crate::durable::CheckpointLock::acquire(zero),
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
