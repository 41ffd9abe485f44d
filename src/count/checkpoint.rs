//! Checkpoint files of a long count: which run a file belongs to, and the units it has counted.
//!
//! # Format
//!
//! A text file. The header names the run, one `key value` line each, and ends with the CRC32 of
//! the lines before it:
//!
//! ```text
//! knights-checkpoint 1
//! version 0.1.0
//! board 6x8
//! piece knight
//! kind closed
//! from -
//! to -
//! symmetry yes
//! per-square no
//! engine dfs
//! split 4096
//! units 4096
//! fingerprint 9c1e5d0b2f6a7e33
//! shard 0/1
//! crc 5a0c61f2
//! ```
//!
//! Then one line per counted unit, `INDEX COUNT CRC`, where CRC is the CRC32 of `INDEX COUNT`
//! continued from the header's CRC (so a line copied from another run's file does not check).
//!
//! # Why an append-only log
//!
//! Each finished unit is appended with one `write`, at once: a `kill -9` loses only the units in
//! flight, because the kernel keeps what was written. The file is fsync'd at least every
//! [`SYNC_EVERY`] and at the end, which bounds what a power cut or reboot can take. Rewriting the
//! whole file for every unit would cost more and still need the fsync. Since every line carries
//! its own checksum, a reader keeps every intact line and drops a torn or damaged one: that unit is
//! simply counted again, so damage costs time, never a wrong total. The header is written once,
//! with write-to-temporary, fsync and rename, so a checkpoint either has a whole header or does
//! not exist; a damaged header is refused, since it can no longer say which run the file is.
//! Reopening a file rewrites it the same way with only its intact lines, so a torn last line is
//! never continued.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

use super::plan::{CountSpec, Plan, Tally, Unit};
use crate::board::Board;
use crate::error::Error;
use crate::input::{self, InputError};
use crate::piece::Piece;

/// The first line of every checkpoint, with the format's version.
const MAGIC: &str = "knights-checkpoint 1";

/// The longest a recorded unit waits for an fsync.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Errors reading or writing a checkpoint; each names the file.
#[derive(Debug, Error)]
pub enum CheckpointError {
    #[error("cannot {action} checkpoint '{}': {source}", .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("checkpoint '{}' is {kind}, not a regular file", .path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("checkpoint '{}' is in use by another process (a count holds its lock file '{}'); wait for it to finish, or give another file", .path.display(), .lock.display())]
    InUse { path: PathBuf, lock: PathBuf },
    #[error("'{}' is not a knights checkpoint: {why}", .path.display())]
    NotACheckpoint { path: PathBuf, why: String },
    #[error("checkpoint '{}' is damaged: {why}; it cannot be trusted, delete it to count again", .path.display())]
    Damaged { path: PathBuf, why: String },
    #[error("checkpoint '{}' belongs to a different run: its {field} is {file}, this run's is {run}", .path.display())]
    Mismatch {
        path: PathBuf,
        field: &'static str,
        file: String,
        run: String,
    },
    #[error("checkpoint '{}' records unit {unit} twice with different counts ({a} and {b})", .path.display())]
    Conflict {
        path: PathBuf,
        unit: usize,
        a: u64,
        b: u64,
    },
    #[error("checkpoint '{}' records unit {unit}, which is not one of the units of shard {shard} of {units}", .path.display())]
    Foreign {
        path: PathBuf,
        unit: usize,
        shard: Shard,
        units: usize,
    },
}

/// Shard `index` of `count`: the units whose number is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole run.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether unit `i` belongs to this shard.
    #[must_use]
    pub const fn owns(self, i: usize) -> bool {
        i % self.count as usize == self.index as usize
    }

    /// The numbers of this shard's units among `units`.
    #[must_use]
    pub fn units(self, units: usize) -> Vec<usize> {
        (self.index as usize..units)
            .step_by(self.count as usize)
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard, Error> {
        let bad = |why: &str| {
            Error::Invalid(format!(
                "invalid shard '{}': {why} (write K/N with 0 <= K < N, e.g. 0/4)",
                crate::error::clip(s)
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(|| bad("no '/'"))?;
        let index: u32 = k
            .trim()
            .parse()
            .map_err(|_| bad("K is not a whole number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index >= count {
            return Err(bad("K must be less than N"));
        }
        Ok(Shard { index, count })
    }
}

/// What a checkpoint belongs to: everything that decides the units and their counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunId {
    /// The program version that wrote the file.
    pub version: String,
    pub board: Board,
    pub piece: String,
    pub closed: bool,
    pub from: Option<String>,
    pub to: Option<String>,
    pub symmetry: bool,
    pub per_square: bool,
    pub engine: String,
    /// The unit target the plan was split with.
    pub split: usize,
    /// How many units the split gave.
    pub units: usize,
    /// A hash of the roots and the unit list: equal plans, equal units.
    pub fingerprint: u64,
    pub shard: Shard,
}

impl RunId {
    /// The identity of a whole count of `plan`, split into `units` with target `split`, by this
    /// program; set [`RunId::shard`] for a shard of it.
    #[must_use]
    pub fn new(
        board: Board,
        piece: &Piece,
        spec: &CountSpec,
        engine: &str,
        plan: Option<&Plan>,
        split: usize,
        units: &[Unit],
    ) -> RunId {
        RunId {
            version: env!("CARGO_PKG_VERSION").to_string(),
            board,
            piece: piece.to_string(),
            closed: spec.closed,
            from: spec.from.map(|s| board.name(s)),
            to: spec.to.map(|s| board.name(s)),
            symmetry: spec.symmetry,
            per_square: spec.per_square,
            engine: engine.to_string(),
            split,
            units: units.len(),
            fingerprint: fingerprint(plan, units),
            shard: Shard::ALL,
        }
    }

    /// The piece and the request this run counts (for rebuilding its plan).
    pub fn request(&self) -> Result<(Piece, CountSpec), Error> {
        let square =
            |s: &Option<String>| s.as_deref().map(|s| self.board.parse_square(s)).transpose();
        Ok((
            self.piece.parse()?,
            CountSpec {
                closed: self.closed,
                from: square(&self.from)?,
                to: square(&self.to)?,
                symmetry: self.symmetry,
                per_square: self.per_square,
            },
        ))
    }

    /// The header fields in file order.
    fn fields(&self) -> Vec<(&'static str, String)> {
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        let sq = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
        vec![
            ("version", self.version.clone()),
            ("board", self.board.to_string()),
            ("piece", self.piece.clone()),
            ("kind", if self.closed { "closed" } else { "open" }.into()),
            ("from", sq(&self.from)),
            ("to", sq(&self.to)),
            ("symmetry", yes(self.symmetry)),
            ("per-square", yes(self.per_square)),
            ("engine", self.engine.clone()),
            ("split", self.split.to_string()),
            ("units", self.units.to_string()),
            ("fingerprint", format!("{:016x}", self.fingerprint)),
            ("shard", self.shard.to_string()),
        ]
    }

    fn from_fields(path: &Path, map: &BTreeMap<String, String>) -> Result<RunId, CheckpointError> {
        let damaged = |why: String| CheckpointError::Damaged {
            path: path.to_path_buf(),
            why,
        };
        let get = |k: &str| {
            map.get(k)
                .cloned()
                .ok_or_else(|| damaged(format!("the header has no '{k}'")))
        };
        let bad = |k: &str, v: &str| damaged(format!("the header's {k} '{v}' cannot be read"));
        let yes = |k: &str| -> Result<bool, CheckpointError> {
            match get(k)?.as_str() {
                "yes" => Ok(true),
                "no" => Ok(false),
                v => Err(bad(k, v)),
            }
        };
        let sq = |k: &str| get(k).map(|v| (v != "-").then_some(v));
        let num = |k: &str| -> Result<usize, CheckpointError> {
            let v = get(k)?;
            v.parse().map_err(|_| bad(k, &v))
        };
        let board = get("board")?;
        let fp = get("fingerprint")?;
        let shard = get("shard")?;
        Ok(RunId {
            version: get("version")?,
            board: board.parse().map_err(|_| bad("board", &board))?,
            piece: get("piece")?,
            closed: match get("kind")?.as_str() {
                "closed" => true,
                "open" => false,
                v => return Err(bad("kind", v)),
            },
            from: sq("from")?,
            to: sq("to")?,
            symmetry: yes("symmetry")?,
            per_square: yes("per-square")?,
            engine: get("engine")?,
            split: num("split")?,
            units: num("units")?,
            fingerprint: u64::from_str_radix(&fp, 16).map_err(|_| bad("fingerprint", &fp))?,
            shard: shard.parse().map_err(|_| bad("shard", &shard))?,
        })
    }

    /// The header's text, ending with its checksum line, and that checksum.
    fn header(&self) -> (String, u32) {
        let mut s = format!("{MAGIC}\n");
        for (k, v) in self.fields() {
            s += &format!("{k} {v}\n");
        }
        let crc = crc32fast::hash(s.as_bytes());
        s += &format!("crc {crc:08x}\n");
        (s, crc)
    }

    /// The first field where `other` differs from `self`, as (name, ours, theirs); the shard is
    /// compared only when `with_shard`.
    #[must_use]
    pub fn differs(
        &self,
        other: &RunId,
        with_shard: bool,
    ) -> Option<(&'static str, String, String)> {
        self.fields()
            .into_iter()
            .zip(other.fields())
            .find(|((k, a), (_, b))| a != b && (with_shard || *k != "shard"))
            .map(|((k, a), (_, b))| (k, a, b))
    }
}

/// FNV-1a over the roots (start, weights, multiplier), the tally and every unit, in order; a
/// count a theorem settles has no plan and no units.
fn fingerprint(plan: Option<&Plan>, units: &[Unit]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    if let Some(plan) = plan {
        for r in &plan.roots {
            eat(&r.start.to_le_bytes());
            eat(&r.weight);
            eat(&r.multiplier.to_le_bytes());
        }
        eat(&[match plan.tally {
            Tally::OpenAll => 0,
            Tally::Fixed => 1,
            Tally::Cycles => 2,
        }]);
    }
    for u in units {
        eat(&u.root.to_le_bytes());
        eat(&u.free.0.to_le_bytes());
        eat(&u.cur.to_le_bytes());
    }
    h
}

fn record_crc(header_crc: u32, body: &str) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(header_crc);
    h.update(body.as_bytes());
    h.finalize()
}

/// A checkpoint as read from disk.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub id: RunId,
    /// Counted units: unit number to its unweighted count.
    pub done: BTreeMap<usize, u64>,
    /// Lines dropped because their checksum failed or they were cut short.
    pub damaged: usize,
}

/// Reads and checks a checkpoint. A damaged header is an error; damaged records are dropped and
/// counted in [`Loaded::damaged`].
pub fn read(path: &Path) -> Result<Loaded, CheckpointError> {
    let bytes = read_regular(path)?;
    let damaged = |why: &str| CheckpointError::Damaged {
        path: path.into(),
        why: why.into(),
    };
    let mut lines = bytes.split_inclusive(|&b| b == b'\n');
    if lines.next() != Some(format!("{MAGIC}\n").as_bytes()) {
        let why = if bytes.starts_with(b"knights-checkpoint") {
            "its format is not one this program reads"
        } else {
            "its first line is not 'knights-checkpoint 1'"
        };
        return Err(CheckpointError::NotACheckpoint {
            path: path.into(),
            why: why.into(),
        });
    }
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(format!("{MAGIC}\n").as_bytes());
    let mut map = BTreeMap::new();
    let header_crc = loop {
        let line = lines
            .next()
            .ok_or_else(|| damaged("its header is cut short"))?;
        let text = std::str::from_utf8(line)
            .map_err(|_| damaged("its header has bytes that are not text"))?;
        let Some(text) = text.strip_suffix('\n') else {
            return Err(damaged("its header is cut short"));
        };
        let (k, v) = text
            .split_once(' ')
            .ok_or_else(|| damaged("a header line has no value"))?;
        if k == "crc" {
            let crc = hasher.clone().finalize();
            if u32::from_str_radix(v, 16).ok() != Some(crc) {
                return Err(damaged("the header's checksum does not match"));
            }
            break crc;
        }
        hasher.update(line);
        map.insert(k.to_string(), v.to_string());
    };
    let id = RunId::from_fields(path, &map)?;
    let mut done = BTreeMap::new();
    let mut dropped = 0;
    for line in lines {
        let Some(rec) = std::str::from_utf8(line)
            .ok()
            .and_then(|t| t.strip_suffix('\n'))
            .and_then(|t| parse_record(t, header_crc))
        else {
            dropped += 1;
            continue;
        };
        let (unit, count) = rec;
        if unit >= id.units || !id.shard.owns(unit) {
            return Err(CheckpointError::Foreign {
                path: path.into(),
                unit,
                shard: id.shard,
                units: id.units,
            });
        }
        if let Some(&a) = done.get(&unit) {
            if a != count {
                return Err(CheckpointError::Conflict {
                    path: path.into(),
                    unit,
                    a,
                    b: count,
                });
            }
        }
        done.insert(unit, count);
    }
    Ok(Loaded {
        path: path.into(),
        id,
        done,
        damaged: dropped,
    })
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

fn parse_record(text: &str, header_crc: u32) -> Option<(usize, u64)> {
    let (body, crc) = text.rsplit_once(' ')?;
    if u32::from_str_radix(crc, 16).ok()? != record_crc(header_crc, body) || crc.len() != 8 {
        return None;
    }
    let (unit, count) = body.split_once(' ')?;
    Some((unit.parse().ok()?, count.parse().ok()?))
}

/// An open checkpoint that counted units are appended to.
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    header_crc: u32,
    last_sync: Instant,
}

impl Checkpoint {
    /// Opens the checkpoint of run `id` at `path`, creating it if there is none. Returns it with
    /// what it already holds; a file of another run is refused.
    pub fn open(path: &Path, id: &RunId) -> Result<(Checkpoint, Loaded), CheckpointError> {
        let loaded = if path.exists() {
            let l = read(path)?;
            if let Some((field, file, run)) = l.id.differs(id, true) {
                return Err(CheckpointError::Mismatch {
                    path: path.into(),
                    field,
                    file,
                    run,
                });
            }
            l
        } else {
            Loaded {
                path: path.into(),
                id: id.clone(),
                done: BTreeMap::new(),
                damaged: 0,
            }
        };
        let (header, header_crc) = id.header();
        let mut text = header;
        for (u, c) in &loaded.done {
            text += &record_line(header_crc, *u, *c);
        }
        replace(path, text.as_bytes())?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| CheckpointError::Io {
                action: "open",
                path: path.into(),
                source,
            })?;
        Ok((
            Checkpoint {
                path: path.into(),
                file,
                header_crc,
                last_sync: Instant::now(),
            },
            loaded,
        ))
    }

    /// Appends a counted unit, at once, and syncs if the last sync is [`SYNC_EVERY`] old.
    pub fn record(&mut self, unit: usize, count: u64) -> Result<(), CheckpointError> {
        let line = record_line(self.header_crc, unit, count);
        // one write per line: a process killed between lines leaves whole lines behind
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| self.io("write", source))?;
        if self.last_sync.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Forces what was recorded onto the disk.
    pub fn sync(&mut self) -> Result<(), CheckpointError> {
        self.file
            .sync_data()
            .map_err(|source| self.io("sync", source))?;
        self.last_sync = Instant::now();
        Ok(())
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, action: &'static str, source: io::Error) -> CheckpointError {
        CheckpointError::Io {
            action,
            path: self.path.clone(),
            source,
        }
    }
}

fn record_line(header_crc: u32, unit: usize, count: u64) -> String {
    let body = format!("{unit} {count}");
    let crc = record_crc(header_crc, &body);
    format!("{body} {crc:08x}\n")
}

/// Replaces `path` with `bytes` atomically (see [`replace_with`]).
fn replace(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    replace_with(path, |f| f.write_all(bytes))
}

/// Tells temporary files of one process apart.
static TEMP_SERIAL: AtomicU64 = AtomicU64::new(0);

/// A temporary name beside `path` that no other writer uses: the process id and a serial number
/// (`FILE.tmp.PID.N`), created new so that even a stale file of that name is never reused.
fn temp_beside(path: &Path) -> Result<(PathBuf, File), io::Error> {
    loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(
            ".tmp.{}.{}",
            std::process::id(),
            // Relaxed: only uniqueness matters, and the increment is atomic
            TEMP_SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = PathBuf::from(name);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
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
    let (tmp, mut f) = temp_beside(path).map_err(|e| io("create", e))?;
    let written = write(&mut f)
        .map_err(|e| io("write", e))
        .and_then(|()| f.sync_all().map_err(|e| io("sync", e)));
    drop(f);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path).map_err(|e| io("write", e))) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // folders cannot be opened for syncing everywhere; where they cannot, the rename is still atomic
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
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
        let mut name = checkpoint.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
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
            if same_file(&path, &file) {
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

/// Whether `path` names the open `file` (a removed or replaced file does not).
fn same_file(path: &Path, file: &File) -> bool {
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

/// Shard checkpoints of one run, put together.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The run, with shard 0/1.
    pub id: RunId,
    /// Counted units of every file.
    pub done: BTreeMap<usize, u64>,
    /// Shards no file covers.
    pub missing: Vec<Shard>,
    /// Units of the shards present that no file has counted.
    pub unfinished: usize,
    pub damaged: usize,
}

impl Merged {
    /// Whether every unit of the run is counted.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.missing.is_empty() && self.unfinished == 0 && self.done.len() == self.id.units
    }
}

/// Puts shard checkpoints together: they must be of the same run and split in the same number
/// of shards (a shard may come twice, say from a rerun, if the counts agree).
pub fn merge(files: &[Loaded]) -> Result<Merged, CheckpointError> {
    let first = files
        .first()
        .ok_or_else(|| CheckpointError::NotACheckpoint {
            path: PathBuf::new(),
            why: "no checkpoint given".into(),
        })?;
    let mut done = BTreeMap::new();
    let mut present = vec![false; first.id.shard.count as usize];
    let mut damaged = 0;
    for f in files {
        if let Some((field, file, run)) = f.id.differs(&first.id, false) {
            let run = format!("{run} in '{}'", first.path.display());
            return Err(CheckpointError::Mismatch {
                path: f.path.clone(),
                field,
                file,
                run,
            });
        }
        if f.id.shard.count != first.id.shard.count {
            return Err(CheckpointError::Mismatch {
                path: f.path.clone(),
                field: "shard count",
                file: f.id.shard.to_string(),
                run: format!("{} in '{}'", first.id.shard, first.path.display()),
            });
        }
        present[f.id.shard.index as usize] = true;
        damaged += f.damaged;
        for (&u, &c) in &f.done {
            if let Some(&a) = done.get(&u) {
                if a != c {
                    return Err(CheckpointError::Conflict {
                        path: f.path.clone(),
                        unit: u,
                        a,
                        b: c,
                    });
                }
            }
            done.insert(u, c);
        }
    }
    let count = first.id.shard.count;
    let missing: Vec<Shard> = (0..count)
        .filter(|&k| !present[k as usize])
        .map(|index| Shard { index, count })
        .collect();
    let unfinished = (0..first.id.units)
        .filter(|&u| present[u % count as usize] && !done.contains_key(&u))
        .count();
    let mut id = first.id.clone();
    id.shard = Shard::ALL;
    Ok(Merged {
        id,
        done,
        missing,
        unfinished,
        damaged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_id(board: &str, shard: Shard) -> (RunId, Plan, Vec<Unit>) {
        let board: Board = board.parse().unwrap();
        let spec = CountSpec {
            symmetry: true,
            ..CountSpec::default()
        };
        let plan = Plan::new(board, &Piece::knight(), &spec);
        let units = plan.units(64);
        (
            RunId {
                shard,
                ..RunId::new(
                    board,
                    &Piece::knight(),
                    &spec,
                    "dfs",
                    Some(&plan),
                    64,
                    &units,
                )
            },
            plan,
            units,
        )
    }

    #[test]
    fn shards_parse_and_own_their_units() {
        let s: Shard = "1/3".parse().unwrap();
        assert_eq!(s, Shard { index: 1, count: 3 });
        assert_eq!(s.units(8), vec![1, 4, 7]);
        for bad in ["3/3", "0/0", "1", "a/2", "1/-2", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn records_survive_reopening_and_damage_drops_only_the_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ckpt");
        let (id, _, _) = run_id("5x5", Shard::ALL);
        let (mut c, l) = Checkpoint::open(&path, &id).unwrap();
        assert!(l.done.is_empty());
        for u in 0..5 {
            c.record(u, 10 + u as u64).unwrap();
        }
        c.sync().unwrap();
        drop(c);
        let l = read(&path).unwrap();
        assert_eq!(l.done.len(), 5);
        assert_eq!(l.id, id);
        // flip a digit of the third record's count and cut the last line short
        let mut bytes = fs::read(&path).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let at = text.find("\n2 12 ").unwrap() + 4;
        bytes[at] = b'3';
        bytes.truncate(bytes.len() - 3);
        fs::write(&path, &bytes).unwrap();
        let l = read(&path).unwrap();
        assert_eq!(l.damaged, 2);
        assert_eq!(l.done.keys().copied().collect::<Vec<_>>(), vec![0, 1, 3]);
        // reopening keeps the intact lines and appends after them
        let (mut c, l) = Checkpoint::open(&path, &id).unwrap();
        assert_eq!(l.done.len(), 3);
        c.record(2, 12).unwrap();
        drop(c);
        let l = read(&path).unwrap();
        assert_eq!((l.damaged, l.done.len(), l.done[&2]), (0, 4, 12));
    }

    #[test]
    fn a_damaged_header_or_another_run_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ckpt");
        let (id, _, _) = run_id("5x5", Shard::ALL);
        drop(Checkpoint::open(&path, &id).unwrap());
        let (other, _, _) = run_id("5x6", Shard::ALL);
        let e = Checkpoint::open(&path, &other).err().unwrap();
        assert!(
            matches!(e, CheckpointError::Mismatch { field: "board", .. }),
            "{e}"
        );
        let text = fs::read_to_string(&path).unwrap().replace("5x5", "5x6");
        fs::write(&path, text).unwrap();
        assert!(matches!(read(&path), Err(CheckpointError::Damaged { .. })));
        fs::write(&path, "hello\n").unwrap();
        assert!(matches!(
            read(&path),
            Err(CheckpointError::NotACheckpoint { .. })
        ));
    }

    #[test]
    fn merge_reports_missing_shards_and_unfinished_units() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut units = 0;
        for k in [0, 2] {
            let path = dir.path().join(format!("s{k}.ckpt"));
            let (id, _, us) = run_id("5x5", Shard { index: k, count: 3 });
            units = us.len();
            let (mut c, _) = Checkpoint::open(&path, &id).unwrap();
            for u in id.shard.units(units).into_iter().skip(1) {
                c.record(u, 1).unwrap();
            }
            drop(c);
            files.push(read(&path).unwrap());
        }
        let m = merge(&files).unwrap();
        assert_eq!(m.missing, vec![Shard { index: 1, count: 3 }]);
        assert_eq!(m.unfinished, 2);
        assert!(!m.complete());
        let (other, _, _) = run_id("5x6", Shard { index: 1, count: 3 });
        let path = dir.path().join("o.ckpt");
        drop(Checkpoint::open(&path, &other).unwrap());
        files.push(read(&path).unwrap());
        assert!(matches!(
            merge(&files),
            Err(CheckpointError::Mismatch { field: "board", .. })
        ));
        assert!(units > 3);
    }

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
            assert!(matches!(read(zero), Err(CheckpointError::NotAFile { .. })));
            assert!(matches!(
                CheckpointLock::acquire(zero),
                Err(CheckpointError::NotAFile { .. })
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let (a, _) = temp_beside(&path).unwrap();
        let (b, _) = temp_beside(&path).unwrap();
        assert_ne!(a, b);
        assert!(
            a.to_string_lossy()
                .contains(&format!(".tmp.{}.", std::process::id()))
        );
        replace(&path, b"x").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"x");
        // only the checkpoint and the two names taken above: replace leaves no temporary behind
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
