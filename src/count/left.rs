//! The note of the pieces a run left for more memory, beside its checkpoint and in its ledger,
//! and the names of a ledger folder's files (a record's, and a note's beside it).

use std::path::{Path, PathBuf};

use crate::durable::{CheckpointError, beside, read_regular, replace};

/// The pieces a run left for more memory (the frontier engine's pieces that did not fit the
/// memory bound, see [`crate::engine::Host::left`]), noted beside its checkpoint (`FILE.left`)
/// and, where the run keeps a ledger, one note a piece in the ledger's folder
/// (`DIR/piece-NNNNN.left`, removed when the piece's record is written), for `knights status`:
/// run again under the same bound, they stop again, so the advice is a larger bound, not the
/// same command. A note, not a record: written whole, checksummed, and read only where it is
/// intact and of the log's cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftForMemory {
    /// The cut's fingerprint (a note of another cut is not read).
    pub fingerprint: u64,
    /// The memory bound the pieces did not fit, in bytes.
    pub max_memory: u64,
    /// The pieces, numbered from 0 as records number them.
    pub pieces: Vec<usize>,
}

/// The first line of a [`LeftForMemory`] note.
const LEFT_MAGIC: &str = "knights-left 1";

impl LeftForMemory {
    /// The note beside `checkpoint`.
    #[must_use]
    pub fn path(checkpoint: &Path) -> PathBuf {
        beside(checkpoint, ".left")
    }

    /// The note of piece `unit` in the ledger folder `dir` (beside its record-to-be, see
    /// `ledger_path`).
    #[must_use]
    pub fn in_ledger(dir: &Path, unit: usize) -> PathBuf {
        ledger_path(dir, unit).with_extension("left")
    }

    /// Writes the note beside `checkpoint`, whole or not at all.
    pub fn write(&self, checkpoint: &Path) -> Result<(), CheckpointError> {
        self.write_at(&Self::path(checkpoint))
    }

    /// Writes the note of piece `unit` alone (of this note's cut and bound) to the ledger
    /// folder `dir` ([`Self::in_ledger`]), making the folder where it is missing.
    pub fn write_in_ledger(&self, dir: &Path, unit: usize) -> Result<(), CheckpointError> {
        create_ledger(dir)?;
        LeftForMemory {
            pieces: vec![unit],
            ..self.clone()
        }
        .write_at(&Self::in_ledger(dir, unit))
    }

    /// Writes the note to `path`, whole or not at all.
    pub fn write_at(&self, path: &Path) -> Result<(), CheckpointError> {
        let pieces: Vec<String> = self.pieces.iter().map(ToString::to_string).collect();
        let mut text = format!(
            "{LEFT_MAGIC}\nfingerprint {:016x}\nmax-memory {}\npieces {}\n",
            self.fingerprint,
            self.max_memory,
            pieces.join(",")
        );
        text += &format!("crc {:08x}\n", crc32fast::hash(text.as_bytes()));
        replace(path, text.as_bytes())
    }

    /// The note beside `checkpoint` of the cut with `fingerprint`; `None` where there is none,
    /// or it is damaged or of another cut.
    #[must_use]
    pub fn read(checkpoint: &Path, fingerprint: u64) -> Option<LeftForMemory> {
        Self::read_at(&Self::path(checkpoint)).filter(|n| n.fingerprint == fingerprint)
    }

    /// The note at `path`, of any cut; `None` where there is none or it is damaged.
    #[must_use]
    pub fn read_at(path: &Path) -> Option<LeftForMemory> {
        let text = String::from_utf8(read_regular(path).ok()?).ok()?;
        let (body, crc) = text.strip_suffix('\n')?.rsplit_once("crc ")?;
        if u32::from_str_radix(crc, 16).ok()? != crc32fast::hash(body.as_bytes()) {
            return None;
        }
        let mut lines = body.lines();
        if lines.next() != Some(LEFT_MAGIC) {
            return None;
        }
        let mut field = |k: &str| lines.next()?.strip_prefix(k)?.strip_prefix(' ');
        let fingerprint = u64::from_str_radix(field("fingerprint")?, 16).ok()?;
        let max_memory = field("max-memory")?.parse().ok()?;
        let pieces = field("pieces")?
            .split(',')
            .map(|p| p.parse().ok())
            .collect::<Option<Vec<usize>>>()?;
        Some(LeftForMemory {
            fingerprint,
            max_memory,
            pieces,
        })
    }

    /// Removes the note beside `checkpoint`, if any (a run that tries the pieces again).
    pub fn clear(checkpoint: &Path) {
        let _ = std::fs::remove_file(Self::path(checkpoint));
    }
}

/// The file of piece `unit`'s record in the ledger folder `dir`: `piece-NNNNN.log`.
pub(crate) fn ledger_path(dir: &Path, unit: usize) -> PathBuf {
    dir.join(format!("piece-{unit:05}.log"))
}

/// Makes the ledger folder `dir` where it is missing.
pub(super) fn create_ledger(dir: &Path) -> Result<(), CheckpointError> {
    std::fs::create_dir_all(dir).map_err(|source| CheckpointError::Io {
        action: "create",
        path: dir.into(),
        source,
    })
}
