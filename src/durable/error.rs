//! The errors of the files the tool keeps: a checkpoint's or a ledger record's
//! ([`CheckpointError`], the user's to act on) and a disk's ([`DiskError`], the machine's).

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::input::InputError;

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

/// Why a file the tool keeps while it runs failed: what it was doing, to which file, and why
/// (the system's error, a file cut short, or bytes that do not read back as written). A disk
/// that fails is the machine's fault, not the user's input: the command exits with its own
/// code (3) and says what was kept.
#[derive(Clone, Debug, thiserror::Error)]
#[error("cannot {action} '{}', {what}: {why}", .path.display())]
pub struct DiskError {
    /// `write`, `read` or `create`.
    pub action: &'static str,
    pub path: PathBuf,
    /// What the file is, as the message names it.
    pub what: &'static str,
    pub why: String,
    /// The system's kind of error, where it gave one.
    pub kind: Option<io::ErrorKind>,
}

/// What a file of tables past the memory bound is called in messages.
pub const TABLE_FILE: &str = "a table of the count kept on disk";

impl DiskError {
    /// The system's error `e` as `action` of `path`, a file of `what`.
    #[must_use]
    pub fn io(action: &'static str, path: &Path, what: &'static str, e: &io::Error) -> DiskError {
        let why = if e.kind() == io::ErrorKind::UnexpectedEof {
            "it ends before the bytes written to it (cut short, or replaced, while the run used it)"
                .to_string()
        } else {
            e.to_string()
        };
        DiskError {
            action,
            path: path.into(),
            what,
            why,
            kind: Some(e.kind()),
        }
    }

    /// `path`, a file of `what`, read back otherwise than it was written.
    #[must_use]
    pub fn damaged(path: &Path, what: &'static str) -> DiskError {
        DiskError {
            action: "read",
            path: path.into(),
            what,
            why: "it does not read back as written (a frame fails to decode or its checksum fails): the file was changed or damaged, and the count stops rather than add what it read".into(),
            kind: None,
        }
    }

    /// Whether the disk was full (or the user's quota spent).
    #[must_use]
    pub fn is_full(&self) -> bool {
        matches!(
            self.kind,
            Some(io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded)
        )
    }
}

/// A checkpoint's error from an input check.
pub(super) fn from_input(path: &Path, e: InputError) -> CheckpointError {
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
