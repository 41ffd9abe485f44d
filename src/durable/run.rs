//! Run identities: the names of the files a run leaves while it runs, the lock that claims
//! them, and the sweep that removes those of runs that have ended.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// What the name of every file of this module begins with.
pub const PREFIX: &str = ".knights-";

/// The kind of a run's lock file (`.knights-run.ID.lock`).
const LOCK_KIND: &str = "run";

/// Hex digits of a run identity.
const ID_DIGITS: usize = 16;

/// This process's run identity: 16 hex digits drawn once from the system's randomness (as the
/// standard library's hash keys are), mixed with the process id and the time.
#[must_use]
pub fn run_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let mut h = std::hash::RandomState::new().build_hasher();
        std::process::id().hash(&mut h);
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
            .hash(&mut h);
        format!("{:016x}", h.finish())
    })
}

/// The name of a file of kind `kind` (`spill`, `tmp`, `sample`, `part`) of this run:
/// `.knights-KIND.ID.REST`.
#[must_use]
pub fn name(kind: &str, rest: &str) -> String {
    format!("{PREFIX}{kind}.{}.{rest}", run_id())
}

/// A serial number for this process's files, unique within it.
#[must_use]
pub fn serial() -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    // Relaxed: only uniqueness matters, and the increment is atomic
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

/// The run identity a file's name gives, if it is a file of this module: `(kind, id)`.
fn owner(file_name: &str) -> Option<(&str, &str)> {
    let rest = file_name.strip_prefix(PREFIX)?;
    let (kind, rest) = rest.split_once('.')?;
    let id = rest.get(..ID_DIGITS)?;
    let after = rest.get(ID_DIGITS..)?;
    (after.is_empty() || after.starts_with('.'))
        .then_some(())
        .filter(|()| id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .map(|()| (kind, id))
}

/// The lock file of run `id` in `dir`.
fn lock_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{PREFIX}{LOCK_KIND}.{id}.lock"))
}

/// This run's hold on a folder it writes files in: while any claim on the folder lives, the
/// process holds its lock file there locked, and no other run removes its files. Cloned by
/// every file that needs it; the last one dropped removes the lock file.
#[derive(Clone, Debug)]
pub struct Claim {
    held: Arc<Held>,
}

#[derive(Debug)]
struct Held {
    dir: PathBuf,
    lock: PathBuf,
    /// Holds the lock while it is open.
    _file: File,
}

impl Drop for Held {
    fn drop(&mut self) {
        // removed while still locked (the file closes after): a run that opened it meanwhile
        // sees it gone and makes its own; this run's files in the folder are gone before it
        let _ = fs::remove_file(&self.lock);
    }
}

impl Claim {
    /// The folder claimed.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.held.dir
    }
}

/// The folders this process holds claims on, by their canonical path.
fn claims() -> &'static Mutex<HashMap<PathBuf, Weak<Held>>> {
    static CLAIMS: OnceLock<Mutex<HashMap<PathBuf, Weak<Held>>>> = OnceLock::new();
    CLAIMS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A claim on `dir` for this run (the one it holds there already, or a new one: the folder's
/// stale files are swept first).
pub fn claim(dir: &Path) -> io::Result<Claim> {
    let key = fs::canonicalize(dir)?;
    let mut map = claims()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(held) = map.get(&key).and_then(Weak::upgrade) {
        return Ok(Claim { held });
    }
    sweep(&key);
    let lock = lock_path(&key, run_id());
    // a claim of this run being dropped on another thread may hold the lock a moment longer
    let mut tries = 0u32;
    let file = loop {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock)?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) if same_file(&lock, &file) => break file,
            // a sweep removed the file between the open and the lock: make it again
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) if tries < 10_000 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(fs4::TryLockError::WouldBlock) => {
                return Err(io::Error::other(format!(
                    "the lock file '{}' of this run is held by another process, which cannot be: two processes drew the same run identity",
                    lock.display()
                )));
            }
            Err(fs4::TryLockError::Error(e)) => return Err(e),
        }
    };
    let held = Arc::new(Held {
        dir: key.clone(),
        lock,
        _file: file,
    });
    map.retain(|_, w| w.strong_count() > 0);
    map.insert(key, Arc::downgrade(&held));
    Ok(Claim { held })
}

/// Whether `path` names the open `file` (a removed or replaced file does not).
pub(crate) fn same_file(path: &Path, file: &File) -> bool {
    let (Ok(a), Ok(b)) = (fs::metadata(path), file.metadata()) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        // a file that is open cannot be removed there, so the path still names it
        let _ = (a, b);
        true
    }
}

/// The runs with files in `dir` other than this one, each with its files (its lock file not
/// among them).
fn others(dir: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = run_id();
    let mut runs: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some((kind, id)) = name.to_str().and_then(owner) else {
            continue;
        };
        if id == me {
            continue;
        }
        let files = runs.entry(id.to_string()).or_default();
        if kind != LOCK_KIND {
            files.push(e.path());
        }
    }
    let mut out: Vec<_> = runs.into_iter().collect();
    out.sort();
    out
}

/// Whether run `id`'s lock in `dir` is free (its owner has ended), with the lock held where it
/// is there to hold: `Some(None)` where it is missing, `Some(Some(file))` where this process
/// now holds it, `None` where its owner holds it (or it cannot be told).
fn ended(dir: &Path, id: &str) -> Option<Option<File>> {
    match File::open(lock_path(dir, id)) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
        Ok(f) => match fs4::FileExt::try_lock(&f) {
            Ok(()) => Some(Some(f)),
            Err(_) => None,
        },
    }
}

/// The files in `dir` of runs that have ended (their lock missing or free), left by a process
/// killed while it wrote them; nothing is removed.
#[must_use]
pub fn stale(dir: &Path) -> Vec<PathBuf> {
    others(dir)
        .into_iter()
        .filter(|(id, _)| ended(dir, id).is_some())
        .flat_map(|(_, files)| files)
        .collect()
}

/// Removes the files in `dir` of runs that have ended, their lock files last; the files of
/// runs that still hold their lock (here or on any machine that shares the folder) stay. The
/// files removed.
pub fn sweep(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for (id, files) in others(dir) {
        let Some(lock) = ended(dir, &id) else {
            continue;
        };
        for f in files {
            if fs::remove_file(&f).is_ok() {
                removed.push(f);
            }
        }
        if let Some(lock) = lock {
            remove_lock(dir, &id, &lock);
        }
    }
    removed
}

/// Removes run `id`'s lock file in `dir`, which this process holds through `held`, if the name
/// still names that file. Its owner may have dropped it (removing the name first) and made
/// another, which it holds: removed by name, that one would leave the owner's new files
/// unguarded, and the next sweep would take them (a rename of a temporary failing, the
/// temporary gone). While this process holds the file the name names, no run makes another
/// under it (a run opening the name opens this file and waits), so the name is removed as
/// checked.
fn remove_lock(dir: &Path, id: &str, held: &File) {
    let path = lock_path(dir, id);
    if same_file(&path, held) {
        let _ = fs::remove_file(path);
    }
}

/// Removes every file of this run in the folders it holds claims on, and their lock files: for
/// an exit that cannot wait for the files' owners to drop them (a second stop signal).
pub fn remove_own() {
    let dirs: Vec<PathBuf> = claims()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .filter(|(_, w)| w.strong_count() > 0)
        .map(|(d, _)| d.clone())
        .collect();
    for dir in dirs {
        remove_own_in(&dir);
    }
}

/// Removes every file of this run in `dir`, its lock file among them.
fn remove_own_in(dir: &Path) {
    let me = run_id();
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if name
            .to_str()
            .and_then(owner)
            .is_some_and(|(_, id)| id == me)
        {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock file of another run, held by this process as its owner would hold it (a lock
    /// taken through another open file is another holder, even in one process).
    fn hold(dir: &Path, id: &str) -> File {
        let f = File::create(lock_path(dir, id)).unwrap();
        fs4::FileExt::try_lock(&f).unwrap();
        f
    }

    #[test]
    fn names_carry_the_run_identity_and_are_told_apart_from_other_files() {
        let id = run_id();
        assert_eq!(id.len(), ID_DIGITS);
        assert_eq!(run_id(), id, "drawn once");
        let n = name("spill", "3.runs");
        assert_eq!(n, format!(".knights-spill.{id}.3.runs"));
        assert_eq!(owner(&n), Some(("spill", id)));
        assert_eq!(
            owner(".knights-run.0123456789abcdef.lock"),
            Some(("run", "0123456789abcdef"))
        );
        // an earlier build's names (a process id), and other files, are no one's
        for other in [
            ".knights-spill.12.124.layer",
            ".knights-spill.0123456789ABCDEF.1.runs",
            ".knights-spill.0123456789abcdefx.1",
            "notes.txt",
            "part-12.y-1.node",
        ] {
            assert_eq!(owner(other), None, "{other}");
        }
    }

    #[test]
    fn a_file_is_removed_only_once_its_owner_s_lock_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (live, dead, gone) = ("00000000000000a1", "00000000000000b2", "00000000000000c3");
        let file = |id: &str| d.join(format!("{PREFIX}spill.{id}.0.runs"));
        for id in [live, dead, gone] {
            fs::write(file(id), b"x").unwrap();
        }
        let other = d.join("notes.txt");
        fs::write(&other, b"x").unwrap();
        let held = hold(d, live);
        // the dead run's lock file is there, unlocked; the gone run's is missing
        File::create(lock_path(d, dead)).unwrap();
        let mut st = stale(d);
        st.sort();
        assert_eq!(st, vec![file(dead), file(gone)]);
        assert!(file(dead).exists(), "stale() removes nothing");
        let mut removed = sweep(d);
        removed.sort();
        assert_eq!(removed, vec![file(dead), file(gone)]);
        assert!(file(live).exists() && other.exists());
        assert!(
            !lock_path(d, dead).exists(),
            "a dead run's lock file goes last"
        );
        assert!(lock_path(d, live).exists());
        drop(held);
        assert_eq!(sweep(d), vec![file(live)]);
        assert!(other.exists());
    }

    /// A sweep that took a run's lock as its owner let it go removes that lock file only, not
    /// the one the owner made again meanwhile and holds.
    #[test]
    fn a_lock_made_again_by_its_owner_is_not_removed_by_the_sweep_of_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let id = "00000000000000d4";
        // the sweeper opened the owner's lock file and locked it once the owner let go ...
        let old = File::create(lock_path(d, id)).unwrap();
        fs4::FileExt::try_lock(&old).unwrap();
        // ... which removed its name first, then made a new one, held
        fs::remove_file(lock_path(d, id)).unwrap();
        let new = hold(d, id);
        remove_lock(d, id, &old);
        assert!(
            lock_path(d, id).exists(),
            "the owner's new lock was removed"
        );
        assert!(same_file(&lock_path(d, id), &new));
        drop(old);
        // a lock the name still names is removed
        drop(new);
        let f = File::open(lock_path(d, id)).unwrap();
        fs4::FileExt::try_lock(&f).unwrap();
        remove_lock(d, id, &f);
        assert!(!lock_path(d, id).exists());
    }

    #[test]
    fn a_claim_holds_its_lock_until_the_last_clone_goes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let a = claim(d).unwrap();
        let b = claim(d).unwrap();
        let lock = lock_path(&fs::canonicalize(d).unwrap(), run_id());
        assert!(lock.exists());
        // another holder cannot take it, so no other run's sweep removes this run's files
        let f = File::open(&lock).unwrap();
        assert!(fs4::FileExt::try_lock(&f).is_err());
        drop(f);
        let mine = d.join(name("spill", "0.runs"));
        fs::write(&mine, b"x").unwrap();
        drop(a);
        assert!(lock.exists(), "still claimed by the clone");
        drop(b);
        assert!(!lock.exists(), "the last claim removes the lock file");
        // claimed again, then this run's own files are removed at once (in this folder alone:
        // `remove_own` would remove those of every test of this process that holds a claim)
        let c = claim(d).unwrap();
        remove_own_in(&fs::canonicalize(d).unwrap());
        assert!(!mine.exists() && !lock.exists());
        drop(c);
    }
}
