//! The checkpoint log of a long count: which run a file belongs to, and the pieces it has
//! counted (the DFS's work units, the frontier engine's pieces), whichever engine counts them.
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
//! Then one line per counted piece, `INDEX COUNT TIME CRC`, where COUNT is a decimal number of
//! any size, TIME the Unix millisecond it was recorded (for the rate `knights status` reports;
//! earlier versions wrote none, and their lines are read as well), and CRC the CRC32 of the
//! fields before it continued from the header's CRC (so a line copied from another run's file
//! does not check). `split` is what the engine's cut depends on (the
//! DFS's unit target, the frontier engine's split layer), `units` the number of pieces.
//!
//! An engine that saves work in progress (the frontier engine's layers) keeps it in files of its
//! own beside the log (`FILE.layers`, `FILE.split`): the log is the record of what is finished.
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
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use num_bigint::BigUint;

use crate::board::Board;
use crate::durable::{CheckpointError, read_regular, replace};
use crate::engine::{CountSpec, Order};
use crate::error::Error;
use crate::piece::Piece;

pub use super::left::LeftForMemory;
use super::left::create_ledger;
pub(crate) use super::left::ledger_path;

/// The first line of every checkpoint, with the format's version.
const MAGIC: &str = "knights-checkpoint 1";

/// The first line of a ledger record: a file of finished pieces of a run that stays, kept apart
/// from the run's own log (in a repository, say), the same header and record lines, each record
/// with the figures of how it was counted (see [`write_ledger`]). Any number of ledger files of
/// one run, from any machines, merge as one log.
const LEDGER_MAGIC: &str = "knights-ledger 1";

/// The most `key=value` notes a record line may carry.
const MAX_NOTES: usize = 16;

/// The longest a recorded unit waits for an fsync.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

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
        // a whole number past u32 is too large, not "not a whole number"
        let number = |t: &str, name: &str| -> Result<u32, Error> {
            let t = t.trim();
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse()
                    .map_err(|_| bad(&format!("{name} is too large (at most {})", u32::MAX)))
            } else {
                Err(bad(&format!("{name} is not a whole number")))
            }
        };
        let index = number(k, "K")?;
        let count = number(n, "N")?;
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
    /// The frontier engine walked the short side (`--window wide`); a header says so only then,
    /// so that the files of every other run read as they always did.
    pub wide: bool,
    /// The order the frontier engine walked each column's squares in (straight for every other
    /// engine, which has no walk); a header says so only where it is not straight, so that the
    /// files of the runs before the tuned orders read as the straight walk they are.
    pub order: Order,
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
    /// The identity of a whole count cut by `engine` into `units` pieces (how: `split`, and the
    /// cut's `fingerprint`), by this program; set [`RunId::shard`] for a shard of it.
    #[must_use]
    pub fn new(
        board: Board,
        piece: &Piece,
        spec: &CountSpec,
        engine: &str,
        split: usize,
        units: usize,
        fingerprint: u64,
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
            wide: spec.wide,
            order: if engine == super::Engine::Frontier.name() {
                spec.order
            } else {
                Order::Straight
            },
            engine: engine.to_string(),
            split,
            units,
            fingerprint,
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
                wide: self.wide,
                order: self.order,
            },
        ))
    }

    /// The header fields in file order: [`RunId::compared`] less a narrow window and a straight
    /// order, which a header does not say (the files of runs before windows and orders had a
    /// name read as they did).
    fn fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = self.compared();
        fields.retain(|(k, v)| {
            !(*k == "window" && v == "narrow" || *k == "order" && v == Order::Straight.name())
        });
        fields
    }

    /// Every field that tells runs apart, the window included, in file order.
    fn compared(&self) -> Vec<(&'static str, String)> {
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
            ("window", if self.wide { "wide" } else { "narrow" }.into()),
            ("order", self.order.name().into()),
            ("engine", self.engine.clone()),
            ("split", self.split.to_string()),
            ("units", self.units.to_string()),
            ("fingerprint", format!("{:016x}", self.fingerprint)),
            ("shard", self.shard.to_string()),
        ]
    }

    fn from_fields(
        path: &Path,
        map: &BTreeMap<String, String>,
        ledger: bool,
    ) -> Result<RunId, CheckpointError> {
        let damaged = |why: String| damage(path, ledger, why);
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
            wide: match map.get("window").map(String::as_str) {
                None | Some("narrow") => false,
                Some("wide") => true,
                Some(v) => return Err(bad("window", v)),
            },
            order: match map.get("order") {
                None => Order::Straight,
                Some(v) => Order::from_name(v).ok_or_else(|| bad("order", v))?,
            },
            engine: get("engine")?,
            split: num("split")?,
            units: num("units")?,
            fingerprint: u64::from_str_radix(&fp, 16).map_err(|_| bad("fingerprint", &fp))?,
            shard: shard.parse().map_err(|_| bad("shard", &shard))?,
        })
    }

    /// The header's text, ending with its checksum line, and that checksum.
    fn header(&self) -> (String, u32) {
        self.header_with(MAGIC)
    }

    /// [`RunId::header`] after the first line `magic`.
    fn header_with(&self, magic: &str) -> (String, u32) {
        let mut s = format!("{magic}\n");
        for (k, v) in self.fields() {
            s += &format!("{k} {v}\n");
        }
        let crc = crc32fast::hash(s.as_bytes());
        s += &format!("crc {crc:08x}\n");
        (s, crc)
    }

    /// The first field where `other` differs from `self`, as (what it is in words, ours,
    /// theirs); the shard is compared only when `with_shard`. A cut that differs with the number
    /// of shards is said as that number (the frontier engine cuts its pieces for it), and the
    /// cut's fields as what they are (the digit tree's depth, the number of pieces), not as the
    /// header's names.
    #[must_use]
    pub fn differs(
        &self,
        other: &RunId,
        with_shard: bool,
    ) -> Option<(&'static str, String, String)> {
        let ((k, a), (_, b)) = self
            .compared()
            .into_iter()
            .zip(other.compared())
            .find(|((k, a), (_, b))| a != b && (with_shard || *k != "shard"))?;
        let cut = ["split", "units", "fingerprint", "shard"].contains(&k);
        if cut && self.shard.count != other.shard.count {
            return Some((
                "number of shards",
                self.shard.count.to_string(),
                other.shard.count.to_string(),
            ));
        }
        let depths = (
            crate::frontier::depth_of_param(self.split),
            crate::frontier::depth_of_param(other.split),
        );
        Some(match (k, depths) {
            ("split", (Some(x), Some(y))) => ("digit tree's depth", x.to_string(), y.to_string()),
            _ => (field_words(k), a, b),
        })
    }
}

/// A header field as a message names it.
fn field_words(k: &'static str) -> &'static str {
    match k {
        "version" => "program version",
        "kind" => "kind (open or closed)",
        "from" => "start square (--from)",
        "to" => "end square (--to)",
        "symmetry" => "use of symmetry (--no-symmetry)",
        "per-square" => "per-square count (--per-square)",
        "window" => "frontier window (--window)",
        "order" => "order of a column's squares (--order)",
        "split" => "cut (its split parameter)",
        "units" => "number of pieces",
        "fingerprint" => "fingerprint of its cut into pieces",
        k => k,
    }
}

/// The error of a damaged header: a checkpoint's or a ledger record's.
fn damage(path: &Path, ledger: bool, why: String) -> CheckpointError {
    let path = path.to_path_buf();
    if ledger {
        CheckpointError::DamagedRecord { path, why }
    } else {
        CheckpointError::Damaged { path, why }
    }
}

impl RunId {
    /// Whether `other` asks for the same tours counted the same way: its board, piece, kind,
    /// ends, symmetry, per-square figures and window (not the program's version, the engine,
    /// the order of the walk, the cut or the shard).
    #[must_use]
    pub fn same_request(&self, other: &RunId) -> bool {
        let how = [
            "version",
            "order",
            "engine",
            "split",
            "units",
            "fingerprint",
            "shard",
        ];
        self.differs_but(other, &how).is_none()
    }

    /// The first field of [`RunId::compared`] outside `skip` in which `other` differs: its
    /// words, this run's value and the other's.
    fn differs_but(&self, other: &RunId, skip: &[&str]) -> Option<(&'static str, String, String)> {
        self.compared()
            .into_iter()
            .zip(other.compared())
            .find(|((k, a), (_, b))| a != b && !skip.contains(k))
            .map(|((k, a), (_, b))| (field_words(k), a, b))
    }

    /// [`RunId::differs`] in what the run asks (not the cut: `split`, `units`, `fingerprint`,
    /// which only the engine knows once it has started).
    #[must_use]
    pub fn differs_in_request(&self, other: &RunId) -> Option<(&'static str, String, String)> {
        self.differs_but(other, &["split", "units", "fingerprint"])
    }
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
    pub done: BTreeMap<usize, BigUint>,
    /// When each counted unit was recorded (Unix milliseconds), where the record says.
    pub times: BTreeMap<usize, u64>,
    /// Lines dropped because their checksum failed or they were cut short.
    pub damaged: usize,
    /// Whether the file is a ledger record (first line `knights-ledger 1`) rather than a run's own
    /// log.
    pub ledger: bool,
    /// The `key=value` notes of each unit's record, where it has any (ledger records do).
    pub notes: BTreeMap<usize, Notes>,
}

/// [`read`] of every file in `paths`, in order; the first that cannot be read is the error.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<Loaded>, CheckpointError> {
    paths.iter().map(|p| read(p)).collect()
}

/// [`read_record`] of every file in `paths`, in order: the files of a ledger folder.
pub fn read_records(paths: &[PathBuf]) -> Result<Vec<Loaded>, CheckpointError> {
    paths.iter().map(|p| read_record(p)).collect()
}

/// Reads and checks a checkpoint or a ledger record. A damaged header is an error; damaged
/// records are dropped and counted in [`Loaded::damaged`].
pub fn read(path: &Path) -> Result<Loaded, CheckpointError> {
    read_as(path, false)
}

/// [`read`] of a file found in a ledger folder: one that is neither a checkpoint nor a ledger
/// record is refused as not a ledger record, the kind of file a ledger folder holds.
pub fn read_record(path: &Path) -> Result<Loaded, CheckpointError> {
    read_as(path, true)
}

/// [`read`]; a file of neither kind is named as not a ledger record where `in_ledger`.
fn read_as(path: &Path, in_ledger: bool) -> Result<Loaded, CheckpointError> {
    let bytes = read_regular(path)?;
    let mut lines = bytes.split_inclusive(|&b| b == b'\n');
    let first = lines.next();
    let Some(magic) = [MAGIC, LEDGER_MAGIC]
        .into_iter()
        .find(|m| first == Some(format!("{m}\n").as_bytes()))
    else {
        let line = first.map(|l| String::from_utf8_lossy(l).trim_end().to_string());
        let why = if bytes.is_empty() && in_ledger {
            "it is empty".to_string()
        } else if bytes.is_empty() {
            format!("it is empty (a checkpoint begins '{MAGIC}', a ledger record '{LEDGER_MAGIC}')")
        } else if bytes.starts_with(b"knights-checkpoint") || bytes.starts_with(b"knights-ledger") {
            format!(
                "its format is not one this program reads (its first line is '{}')",
                crate::error::clip(line.as_deref().unwrap_or_default())
            )
        } else if bytes.starts_with(b"knights-row ") {
            "it is the checkpoint of a row (`knights count ROWSxCOLS --lengths FIRST..LAST --checkpoint FILE`): the same command with --lengths goes on from it, and prints its lengths".to_string()
        } else if in_ledger {
            format!("its first line is not '{LEDGER_MAGIC}'")
        } else {
            format!(
                "its first line is neither '{MAGIC}' (a checkpoint) nor '{LEDGER_MAGIC}' (a ledger record)"
            )
        };
        return Err(if in_ledger {
            CheckpointError::NotALog {
                path: path.into(),
                what: "a ledger record",
                why: format!(
                    "{why}; a ledger folder holds only the records `knights count --ledger` writes (each begins '{LEDGER_MAGIC}'): move it out of the folder"
                ),
            }
        } else {
            CheckpointError::NotALog {
                path: path.into(),
                what: "a knights checkpoint or ledger record",
                why,
            }
        });
    };
    let ledger = magic == LEDGER_MAGIC;
    let damaged = |why: &str| damage(path, ledger, why.into());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(format!("{magic}\n").as_bytes());
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
    let id = RunId::from_fields(path, &map, ledger)?;
    let mut done: BTreeMap<usize, BigUint> = BTreeMap::new();
    let mut times = BTreeMap::new();
    let mut notes = BTreeMap::new();
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
        let (unit, count, time, note) = rec;
        if unit >= id.units || !id.shard.owns(unit) {
            return Err(CheckpointError::Foreign {
                path: path.into(),
                unit,
                shard: id.shard.to_string(),
                units: id.units,
            });
        }
        if let Some(a) = done.get(&unit) {
            if *a != count {
                return Err(CheckpointError::Conflict {
                    path: path.into(),
                    unit,
                    a: a.to_string(),
                    b: count.to_string(),
                });
            }
        }
        done.insert(unit, count);
        if let Some(t) = time {
            times.insert(unit, t);
        }
        if !note.is_empty() {
            notes.insert(unit, note);
        }
    }
    Ok(Loaded {
        path: path.into(),
        id,
        done,
        times,
        damaged: dropped,
        ledger,
        notes,
    })
}

/// The `key=value` notes of a record.
pub type Notes = Vec<(String, String)>;

/// A record's piece, count, the time it was written (Unix milliseconds; `None` in the records
/// of earlier versions, which wrote none) and its `key=value` notes (ledger records).
fn parse_record(text: &str, header_crc: u32) -> Option<(usize, BigUint, Option<u64>, Notes)> {
    let (body, crc) = text.rsplit_once(' ')?;
    if u32::from_str_radix(crc, 16).ok()? != record_crc(header_crc, body) || crc.len() != 8 {
        return None;
    }
    let fields: Vec<&str> = body.split(' ').collect();
    let numbers = fields.iter().take_while(|t| !t.contains('=')).count();
    // digits only: the parsers would take a sign or separators a writer never puts there
    let digits = |t: &&str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !(2..=3).contains(&numbers) || !fields[..numbers].iter().all(digits) {
        return None;
    }
    let mut note = Vec::new();
    for t in &fields[numbers..] {
        let (k, v) = t.split_once('=')?;
        if numbers < 3 || note.len() == MAX_NOTES || !note_text(k) || !note_text(v) {
            return None;
        }
        note.push((k.to_string(), v.to_string()));
    }
    let time = match fields.get(2).filter(|_| numbers == 3) {
        Some(t) => Some(t.parse().ok()?),
        None => None,
    };
    Some((fields[0].parse().ok()?, fields[1].parse().ok()?, time, note))
}

/// `notes` as a record line carries them: ` key=value` each, the characters a note may not
/// hold dropped from the values, a note whose key or value is not a note's text left out, at
/// most [`MAX_NOTES`].
fn note_text_of(notes: &[(&str, String)]) -> String {
    let mut out = String::new();
    let mut n = 0;
    for (k, v) in notes {
        let v: String = v
            .chars()
            .filter(|c| c.is_ascii_graphic() && *c != '=')
            .collect();
        if n < MAX_NOTES && note_text(k) && note_text(&v) {
            out += &format!(" {k}={v}");
            n += 1;
        }
    }
    out
}

/// Whether `t` may be a note's key or value: printable ASCII without spaces or `=`, at most 200
/// bytes.
fn note_text(t: &str) -> bool {
    !t.is_empty() && t.len() <= 200 && t.bytes().all(|b| b.is_ascii_graphic() && b != b'=')
}

/// The piece a ledger record's file name gives (see [`ledger_path`]); `None` for a name the
/// count does not write.
pub(crate) fn ledger_piece(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    let digits = name.strip_prefix("piece-")?.strip_suffix(".log")?;
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| digits.parse().ok())?
}

/// Writes piece `unit` of run `id`, counted `count`, as a ledger record in folder `dir` (made
/// if missing): the file `piece-NNNNN.log`, written whole or not at all, with `notes` (how it
/// was counted: where, how long, how much memory) on its record line. A file of that name that
/// holds another run is left as it is and the record is refused.
pub fn write_ledger(
    dir: &Path,
    id: &RunId,
    unit: usize,
    count: &BigUint,
    notes: &[(&str, String)],
) -> Result<PathBuf, CheckpointError> {
    let path = ledger_path(dir, unit);
    if let Ok(old) = read(&path) {
        if let Some((field, file, run)) = old.id.differs(id, true) {
            return Err(CheckpointError::RecordMismatch {
                path,
                field,
                file,
                run,
            });
        }
    }
    create_ledger(dir)?;
    let (mut text, crc) = id.header_with(LEDGER_MAGIC);
    let body = format!("{unit} {count} {}{}", now(), note_text_of(notes));
    text += &format!("{body} {:08x}\n", record_crc(crc, &body));
    replace(&path, text.as_bytes())?;
    // the piece is no longer left for more memory (see [`LeftForMemory::in_ledger`])
    let _ = std::fs::remove_file(LeftForMemory::in_ledger(dir, unit));
    Ok(path)
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
                times: BTreeMap::new(),
                damaged: 0,
                ledger: false,
                notes: BTreeMap::new(),
            }
        };
        let (header, header_crc) = id.header();
        let mut text = header;
        for (u, c) in &loaded.done {
            // with their notes (the pieces' times, for the projections of `knights status`)
            let notes: Vec<(&str, String)> = loaded
                .notes
                .get(u)
                .map(|n| n.iter().map(|(k, v)| (k.as_str(), v.clone())).collect())
                .unwrap_or_default();
            text += &record_line(header_crc, *u, c, loaded.times.get(u).copied(), &notes);
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

    /// Appends a counted unit with `notes` (how long it took), at once, and syncs if the last
    /// sync is [`SYNC_EVERY`] old.
    pub fn record(
        &mut self,
        unit: usize,
        count: &BigUint,
        notes: &[(&str, String)],
    ) -> Result<(), CheckpointError> {
        let line = record_line(self.header_crc, unit, count, Some(now()), notes);
        // one write per line: a process killed between lines leaves whole lines behind
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| self.io("write", source))?;
        if self.last_sync.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        fail::fail_point!("saved");
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

/// Milliseconds since the Unix epoch now (0 on a clock set before it).
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn record_line(
    header_crc: u32,
    unit: usize,
    count: &BigUint,
    time: Option<u64>,
    notes: &[(&str, String)],
) -> String {
    let mut body = match time {
        Some(t) => format!("{unit} {count} {t}"),
        None => format!("{unit} {count}"),
    };
    // notes need the time before them (see `parse_record`)
    if time.is_some() {
        body += &note_text_of(notes);
    }
    let crc = record_crc(header_crc, &body);
    format!("{body} {crc:08x}\n")
}

/// Shard checkpoints of one run, put together.
#[derive(Clone, Debug)]
pub struct Merged {
    pub id: MergedId,
    /// Counted pieces of every file of the run.
    pub done: BTreeMap<usize, BigUint>,
    /// Shards no file of the run covers.
    pub missing: Vec<Shard>,
    /// Pieces of the shards present that no file has counted.
    pub unfinished: usize,
    /// Shards given in more than one file, with the files.
    pub duplicated: Vec<(Shard, Vec<PathBuf>)>,
    /// Files of another run, or of the same run cut into another number of shards, and why.
    pub foreign: Vec<(PathBuf, String)>,
    pub damaged: usize,
}

/// The run the merged files belong to.
#[derive(Clone, Debug)]
pub struct MergedId {
    /// The run, with shard 0/1.
    pub run: RunId,
    /// The number of shards it was cut into.
    pub shard_count: u32,
}

impl Merged {
    /// Whether every piece of the run is counted, from files that are all of it, each shard
    /// once.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
            && self.unfinished == 0
            && self.duplicated.is_empty()
            && self.foreign.is_empty()
            && self.done.len() == self.id.run.units
    }
}

/// Puts shard checkpoints together. The run is the first file's; a file of another run (or cut
/// into another number of shards) is set aside as foreign, a shard given by two files is
/// reported, and so are shards no file covers: [`Merged::complete`] says whether a total may be
/// claimed. Two files that give one piece different counts cannot be trusted: an error.
pub fn merge(files: &[Loaded]) -> Result<Merged, CheckpointError> {
    let first = files
        .first()
        .ok_or_else(|| CheckpointError::NotACheckpoint {
            path: PathBuf::new(),
            why: "no checkpoint given".into(),
        })?;
    let count = first.id.shard.count;
    let mut done: BTreeMap<usize, BigUint> = BTreeMap::new();
    let mut present: Vec<Vec<PathBuf>> = vec![Vec::new(); count as usize];
    let mut foreign = Vec::new();
    let mut damaged = 0;
    let mut in_ledger = std::collections::BTreeSet::new();
    // the file each piece was first read from, to name both where another disagrees
    let mut from: BTreeMap<usize, &Path> = BTreeMap::new();
    for f in files {
        if let Some((field, file, run)) = f.id.differs(&first.id, false) {
            foreign.push((
                f.path.clone(),
                format!(
                    "its {field} is {file}, '{}' has {run}",
                    first.path.display()
                ),
            ));
            continue;
        }
        if f.id.shard.count != count {
            foreign.push((
                f.path.clone(),
                format!(
                    "it is shard {} of a run cut into {} shards, '{}' is shard {}",
                    f.id.shard,
                    f.id.shard.count,
                    first.path.display(),
                    first.id.shard
                ),
            ));
            continue;
        }
        // ledger records are many small files of a shard: together they are one log of it
        if f.ledger {
            in_ledger.insert(f.id.shard.index);
        } else {
            present[f.id.shard.index as usize].push(f.path.clone());
        }
        damaged += f.damaged;
        for (&u, c) in &f.done {
            if let Some(a) = done.get(&u) {
                if a != c {
                    return Err(CheckpointError::Disagree {
                        unit: u,
                        first: from[&u].to_path_buf(),
                        a: a.to_string(),
                        second: f.path.clone(),
                        b: c.to_string(),
                    });
                }
            }
            done.insert(u, c.clone());
            from.entry(u).or_insert(&f.path);
        }
    }
    let given = |k: usize| !present[k].is_empty() || in_ledger.contains(&(k as u32));
    let missing: Vec<Shard> = (0..count)
        .filter(|&k| !given(k as usize))
        .map(|index| Shard { index, count })
        .collect();
    let duplicated = (0..count)
        .filter(|&k| present[k as usize].len() > 1)
        .map(|index| (Shard { index, count }, present[index as usize].clone()))
        .collect();
    let unfinished = (0..first.id.units)
        .filter(|&u| given(u % count as usize) && !done.contains_key(&u))
        .count();
    let mut run = first.id.clone();
    run.shard = Shard::ALL;
    Ok(Merged {
        id: MergedId {
            run,
            shard_count: count,
        },
        done,
        missing,
        unfinished,
        duplicated,
        foreign,
        damaged,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::dfs::{Plan, Unit, fingerprint};

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
                    64,
                    units.len(),
                    fingerprint(Some(&plan), &units),
                )
            },
            plan,
            units,
        )
    }

    /// Every damage of one kind a disk or a careless copy can do to a log and to a ledger
    /// record (cut at every byte, every bit of every byte flipped, a line doubled, two lines
    /// swapped, another run's line appended): the reader never panics, and what it accepts is
    /// the truth: a unit it returns has the count that was written, or the header is refused.
    /// A log of six pieces and a ledger record as written, a record of another run's ledger,
    /// the truth and the run, for the damage tests.
    struct Seeds {
        files: [Vec<u8>; 2],
        foreign: Vec<u8>,
        truth: BTreeMap<usize, BigUint>,
        id: RunId,
    }

    fn seeds() -> &'static Seeds {
        static SEEDS: std::sync::OnceLock<Seeds> = std::sync::OnceLock::new();
        SEEDS.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let (id, _, _) = run_id("5x5", Shard::ALL);
            let truth: BTreeMap<usize, BigUint> = (0..6)
                .map(|u| (u, BigUint::from(1_000_003u64 * (u as u64 + 7))))
                .collect();
            let log = dir.path().join("a.ckpt");
            let (mut c, _) = Checkpoint::open(&log, &id).unwrap();
            for (u, n) in &truth {
                c.record(*u, n, &[]).unwrap();
            }
            c.sync().unwrap();
            drop(c);
            let notes = [
                ("cpu_s", "12.5".to_string()),
                ("peak_mib", "300".to_string()),
            ];
            let ledger = write_ledger(dir.path(), &id, 3, &truth[&3], &notes).unwrap();
            let (other, _, _) = run_id("5x6", Shard::ALL);
            let foreign = write_ledger(&dir.path().join("o"), &other, 3, &truth[&3], &[]).unwrap();
            let foreign = fs::read_to_string(&foreign).unwrap();
            Seeds {
                files: [fs::read(&log).unwrap(), fs::read(&ledger).unwrap()],
                foreign: format!("{}\n", foreign.lines().last().unwrap()).into_bytes(),
                truth,
                id,
            }
        })
    }

    /// Reads `bytes` as a log: a refusal, or the run's header and counts that were written.
    fn read_back(probe: &Path, bytes: &[u8]) {
        let s = seeds();
        fs::write(probe, bytes).unwrap();
        let Ok(l) = read(probe) else { return };
        assert_eq!(l.id, s.id, "a damaged header was read as the run's");
        for (u, n) in &l.done {
            assert_eq!(s.truth.get(u), Some(n), "unit {u} read with a false count");
        }
    }

    /// Every damage of one kind a disk or a careless copy can do to a log and to a ledger
    /// record (cut at every byte, every bit of every byte flipped, a line doubled, two lines
    /// swapped, another run's line appended): the reader never panics, and what it accepts is
    /// the truth: a unit it returns has the count that was written, or the header is refused.
    #[test]
    fn no_damage_makes_a_reader_panic_or_lie() {
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe.ckpt");
        let s = seeds();
        let mut tried = 0;
        for original in &s.files {
            for v in crate::damage::single(original, &[&s.foreign]) {
                read_back(&probe, &v);
                tried += 1;
            }
        }
        assert!(tried > 5_000, "{tried}");
    }

    proptest::proptest! {
        #![proptest_config(crate::damage::config())]
        /// Several damages at once, at random.
        #[test]
        fn no_random_damage_makes_a_reader_panic_or_lie(ledger: bool, ops in crate::damage::ops()) {
            let dir = tempfile::tempdir().unwrap();
            let s = seeds();
            let v = crate::damage::apply(&s.files[usize::from(ledger)], &ops, &[&s.foreign]);
            read_back(&dir.path().join("probe.ckpt"), &v);
        }
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
            c.record(u, &BigUint::from(10 + u as u64), &[]).unwrap();
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
        c.record(2, &12u32.into(), &[]).unwrap();
        drop(c);
        let l = read(&path).unwrap();
        assert_eq!((l.damaged, l.done.len()), (0, 4));
        assert_eq!(l.done[&2], 12u32.into());
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
        assert!(matches!(read(&path), Err(CheckpointError::NotALog { .. })));
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
                c.record(u, &1u32.into(), &[]).unwrap();
            }
            drop(c);
            files.push(read(&path).unwrap());
        }
        let m = merge(&files).unwrap();
        assert_eq!(m.missing, vec![Shard { index: 1, count: 3 }]);
        assert_eq!(m.unfinished, 2);
        assert!(!m.complete());
        // a file of another run and a shard given twice are set aside and reported
        let (other, _, _) = run_id("5x6", Shard { index: 1, count: 3 });
        let path = dir.path().join("o.ckpt");
        drop(Checkpoint::open(&path, &other).unwrap());
        files.push(read(&path).unwrap());
        let copy = dir.path().join("copy.ckpt");
        fs::copy(&files[0].path, &copy).unwrap();
        files.push(read(&copy).unwrap());
        let m = merge(&files).unwrap();
        assert_eq!(
            m.missing,
            vec![Shard { index: 1, count: 3 }],
            "5x6 is not shard 1 of 5x5"
        );
        assert_eq!(m.foreign.len(), 1);
        assert!(m.foreign[0].1.contains("board"), "{:?}", m.foreign);
        assert_eq!(m.duplicated.len(), 1);
        assert_eq!(m.duplicated[0].0, Shard { index: 0, count: 3 });
        assert!(!m.complete());
        assert!(units > 3);
    }
}
