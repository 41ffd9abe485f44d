//! Saved stages of a frontier count: the state tables after the last saved layer, written whole
//! (`FILE.layers` beside the checkpoint log), the work all pieces share (`FILE.split`, or
//! the file `--split` names), and beside a split the right half's join index (`SPLIT.index`,
//! `save_index`).
//!
//! # Format
//!
//! A text header, one `key value` line each, ending with the CRC32 of the lines before it:
//!
//! ```text
//! knights-frontier 2
//! version 0.1.0
//! board 7x7
//! piece knight
//! kind open
//! from -
//! to -
//! symmetry yes
//! mode meet-in-the-middle 3
//! phase piece 4
//! done 10
//! layer 3/8
//! limbs 1
//! key-bytes 8
//! tables current:182061
//! crc 1c2d3e4f
//! ```
//!
//! `phase` is the stage (`sweep`, `forward`, `crossing`, `piece N`, or `split` for the work the
//! pieces share), `done` the steps of the walk done (for `split`: the picoseconds a crossing
//! state took, for projecting the pieces' time), `layer` the layer of the stage as progress
//! shows it, of how many. Then each table's states in the order the header names them,
//! `key-bytes` bytes of key and `8 * limbs` bytes of count (little-endian) each, and last the
//! CRC32 of those bytes (4 bytes, little-endian). The file is written to a temporary file beside it, synced, and renamed over
//! the old one, so a checkpoint is always a whole saved layer or the one before; a file whose
//! checksums fail is refused (it cannot be trusted), as is the file of another run.

use std::io::Write;
use std::path::Path;

use super::join::RightIndex;
use super::state::Key;
use super::table::{Layer, Shape};
use crate::store::{CheckpointError, read_regular, replace_with};

/// The first line, with the format's version.
const MAGIC: &str = "knights-frontier 2";

/// The fields that name a run; a checkpoint of other fields belongs to another run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunName {
    pub(crate) fields: Vec<(&'static str, String)>,
}

/// Where a count stood when it was saved.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot<K: Key> {
    /// `sweep`, `forward`, `crossing` or `join`.
    pub(crate) phase: String,
    /// Steps of the phase done.
    pub(crate) done: usize,
    pub(crate) tables: Vec<(String, Layer<K>)>,
    /// The tables left unread (see [`load_without`]), with their states.
    pub(crate) skipped: Vec<(String, usize)>,
    /// The checksum of its header: with the states' count in each table and the rate, it tells
    /// one saved split from another (the split's index names the split it was made from).
    pub(crate) crc: u32,
}

impl<K: Key> Snapshot<K> {
    /// Takes the table called `name` out.
    pub(crate) fn take(&mut self, name: &str) -> Option<Layer<K>> {
        let i = self.tables.iter().position(|t| t.0 == name)?;
        Some(self.tables.remove(i).1)
    }
}

/// Writes `head`, `body` and the body's CRC32 to `path` atomically (a temporary file beside it,
/// synced and renamed over it).
fn write_whole(path: &Path, head: &str, body: &[u8]) -> Result<(), CheckpointError> {
    let crc = crc32fast::hash(body);
    replace_with(path, |f| {
        f.write_all(head.as_bytes())?;
        f.write_all(body)?;
        f.write_all(&crc.to_le_bytes())
    })
}

/// A header: the first line `magic`, the run's fields, the lines `rest`, and the checksum of
/// all of them on the `crc` line; returned with that checksum.
fn header_text(magic: &str, name: &RunName, rest: &str) -> (String, u32) {
    let mut head = format!("{magic}\n");
    for (k, v) in &name.fields {
        head += &format!("{k} {v}\n");
    }
    head += rest;
    let crc = crc32fast::hash(head.as_bytes());
    head += &format!("crc {crc:08x}\n");
    (head, crc)
}

/// Writes a checkpoint to `path` atomically: `tables` after `done` steps of `phase`, which is
/// layer `layers.0` of the `layers.1` of its stage as progress shows them (for `knights status`). Tables of different count widths are widened to the
/// widest.
pub(crate) fn save<K: Key>(
    path: &Path,
    name: &RunName,
    phase: &str,
    done: usize,
    layers: (usize, usize),
    tables: &[(&str, &Layer<K>)],
) -> Result<u32, CheckpointError> {
    let limbs = tables.iter().map(|t| t.1.limbs()).max().unwrap_or(1);
    let key_bytes = tables.first().map_or(K::BYTES, |t| t.1.shape().key);
    debug_assert!(tables.iter().all(|t| t.1.shape().key == key_bytes));
    let sizes: Vec<String> = tables
        .iter()
        .map(|(n, t)| format!("{n}:{}", t.len()))
        .collect();
    let (head, head_crc) = header_text(
        MAGIC,
        name,
        &format!(
            "phase {phase}\ndone {done}\nlayer {}/{}\nlimbs {limbs}\nkey-bytes {key_bytes}\ntables {}\n",
            layers.0,
            layers.1,
            sizes.join(" "),
        ),
    );
    let mut body = Vec::new();
    for (_, t) in tables {
        let mut key = [0u8; 16];
        for (k, c) in t.iter() {
            k.write(&mut key);
            body.extend_from_slice(&key[..key_bytes]);
            for i in 0..limbs {
                let w = if i < c.len() { c.get(i) } else { 0 };
                body.extend_from_slice(&w.to_le_bytes());
            }
        }
    }
    write_whole(path, &head, &body)?;
    Ok(head_crc)
}

/// A saved stage's header: its fields (run, phase, layers, tables), checked against its checksum.
#[derive(Clone, Debug)]
pub struct Header {
    fields: Vec<(String, String)>,
    /// The checksum its `crc` line holds.
    pub crc: u32,
    /// Bytes of the header: the states follow.
    pub len: usize,
}

impl Header {
    /// The value of field `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(f, _)| f == key)
            .map(|(_, v)| v.as_str())
    }

    /// The stage: `sweep`, `forward`, `crossing`, `piece N` or `split`.
    #[must_use]
    pub fn phase(&self) -> Option<&str> {
        self.get("phase")
    }

    /// The layer of its stage and how many the stage has, as progress shows them.
    #[must_use]
    pub fn layer(&self) -> Option<(usize, usize)> {
        let (a, b) = self.get("layer")?.split_once('/')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    }

    /// Its tables: name and states.
    #[must_use]
    pub fn tables(&self) -> Vec<(String, usize)> {
        self.get("tables")
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|t| {
                let (n, c) = t.split_once(':')?;
                Some((n.to_string(), c.parse().ok()?))
            })
            .collect()
    }

    /// The size the file has when its states are all there: the header, the states, the
    /// checksum.
    #[must_use]
    pub fn file_size(&self) -> Option<u64> {
        let limbs: u64 = self.get("limbs")?.parse().ok()?;
        let key: u64 = self.get("key-bytes")?.parse().ok()?;
        let states: u64 = self.tables().iter().map(|t| t.1 as u64).sum();
        Some(self.len as u64 + states * (key + 8 * limbs) + 4)
    }
}

/// The header at the start of `bytes` (a saved stage read from `path`), checked.
fn parse_header(path: &Path, bytes: &[u8]) -> Result<Header, CheckpointError> {
    if !bytes.starts_with(format!("{MAGIC}\n").as_bytes()) {
        let why = if bytes.starts_with(b"knights-checkpoint") {
            "it is a checkpoint log, not a frontier count's saved layers"
        } else if bytes.starts_with(b"knights-frontier ") {
            "it was written by an earlier version of knights, whose frontier engine saved its layers otherwise; delete it to count again"
        } else {
            "its first line is not 'knights-frontier 2'"
        };
        return Err(CheckpointError::NotACheckpoint {
            path: path.into(),
            why: why.into(),
        });
    }
    header_lines(path, bytes)
}

/// The header's lines after its first, up to and including `crc`, checked against it.
fn header_lines(path: &Path, bytes: &[u8]) -> Result<Header, CheckpointError> {
    let damaged = |why: &str| CheckpointError::Damaged {
        path: path.into(),
        why: why.into(),
    };
    let mut end = 0;
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let start = end;
        end += line.len();
        let Ok(text) = std::str::from_utf8(line) else {
            return Err(damaged("its header has bytes that are not text"));
        };
        let Some(text) = text.strip_suffix('\n') else {
            return Err(damaged("its header is cut short"));
        };
        if start == 0 {
            continue;
        }
        let (k, v) = text
            .split_once(' ')
            .ok_or_else(|| damaged("a header line has no value"))?;
        if k == "crc" {
            let crc = crc32fast::hash(&bytes[..start]);
            if u32::from_str_radix(v, 16).ok() != Some(crc) {
                return Err(damaged("the header's checksum does not match"));
            }
            return Ok(Header {
                fields,
                crc,
                len: end,
            });
        }
        fields.push((k.to_string(), v.to_string()));
    }
    Err(damaged("its header is cut short"))
}

/// The header of the saved stage at `path` (its states are not read: a size check is all they
/// get); `None` when there is no file.
pub fn read_header(path: &Path) -> Result<Option<Header>, CheckpointError> {
    if !path.exists() {
        return Ok(None);
    }
    let mut file = crate::input::open_regular(path).map_err(|e| CheckpointError::Damaged {
        path: path.into(),
        why: e.to_string(),
    })?;
    let mut head = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, 1 << 16), &mut head).map_err(
        |source| CheckpointError::Io {
            action: "read",
            path: path.into(),
            source,
        },
    )?;
    let header = parse_header(path, &head)?;
    let size = std::fs::metadata(path).map(|m| m.len()).ok();
    if header.file_size().is_none() || size != header.file_size() {
        return Err(CheckpointError::Damaged {
            path: path.into(),
            why: format!(
                "it holds {} bytes where its header says {}",
                size.unwrap_or(0),
                header.file_size().unwrap_or(0)
            ),
        });
    }
    Ok(Some(header))
}

/// Reads the checkpoint at `path` of run `name`, whose keys are `shape_key` bytes: `None` when
/// there is no file.
pub(crate) fn load<K: Key>(
    path: &Path,
    name: &RunName,
    shape_key: usize,
) -> Result<Option<Snapshot<K>>, CheckpointError> {
    load_without(path, name, shape_key, &[])
}

/// [`load`], leaving the tables named in `skip` unread (their bytes are still checked).
pub(crate) fn load_without<K: Key>(
    path: &Path,
    name: &RunName,
    shape_key: usize,
    skip: &[&str],
) -> Result<Option<Snapshot<K>>, CheckpointError> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = read_regular(path)?;
    let damaged = |why: &str| CheckpointError::Damaged {
        path: path.into(),
        why: why.into(),
    };
    let header = parse_header(path, &bytes)?;
    let get = |k: &str| {
        header
            .get(k)
            .ok_or_else(|| damaged(&format!("the header has no '{k}'")))
    };
    for (k, v) in &name.fields {
        let theirs = get(k)?;
        if theirs != v {
            return Err(CheckpointError::Mismatch {
                path: path.into(),
                field: k,
                file: theirs.to_string(),
                run: v.clone(),
            });
        }
    }
    let num = |k: &str| -> Result<usize, CheckpointError> {
        get(k)?
            .parse()
            .map_err(|_| damaged(&format!("the header's {k} cannot be read")))
    };
    let limbs = num("limbs")?;
    let key_bytes = num("key-bytes")?;
    if key_bytes != shape_key || limbs == 0 {
        return Err(damaged("its state size is not this run's"));
    }
    let body = &bytes[header.len..];
    if body.len() < 4 {
        return Err(damaged("it is cut short"));
    }
    let (body, crc) = body.split_at(body.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(damaged("its states' checksum does not match"));
    }
    let shape = Shape {
        key: key_bytes,
        limbs,
    };
    let entry = shape.stride();
    let mut tables = Vec::new();
    let mut skipped = Vec::new();
    let mut at = 0;
    for spec in get("tables")?.split_whitespace() {
        let (tname, count) = spec
            .split_once(':')
            .ok_or_else(|| damaged("a table has no size"))?;
        let count: usize = count
            .parse()
            .map_err(|_| damaged("a table's size cannot be read"))?;
        let size = count
            .checked_mul(entry)
            .filter(|&s| at + s <= body.len())
            .ok_or_else(|| damaged("it is cut short"))?;
        if skip.contains(&tname) {
            at += size;
            skipped.push((tname.to_string(), count));
            continue;
        }
        let mut layer = Layer::empty(shape);
        let mut count_buf = vec![0u64; limbs];
        let mut key = [0u8; 16];
        for e in body[at..at + size].chunks_exact(entry) {
            key[..key_bytes].copy_from_slice(&e[..key_bytes]);
            let k = K::read(&key, key_bytes);
            for (l, b) in count_buf.iter_mut().zip(e[key_bytes..].chunks_exact(8)) {
                *l = u64::from_le_bytes(b.try_into().expect("8 bytes"));
            }
            layer.insert(k, &count_buf);
        }
        at += size;
        tables.push((tname.to_string(), layer));
    }
    if at != body.len() {
        return Err(damaged("it holds more states than its header says"));
    }
    Ok(Some(Snapshot {
        phase: get("phase")?.to_string(),
        done: num("done")?,
        tables,
        skipped,
        crc: header.crc,
    }))
}

/// The first line of a saved index of the right half (see [`save_index`]).
const INDEX_MAGIC: &str = "knights-frontier-index 1";

/// Writes the right half's join index to `path`, atomically, for the shards that read the split
/// whose header checksum is `split_crc`: each of them then reads the index instead of the
/// right half's table and indexing it again (7x8 closed: most of a shard's time). The format is
/// a header like a saved stage's (first line `knights-frontier-index 1`, the run's fields,
/// `split` with the split's header checksum, `bytes` of the index, `crc`), the index's bytes
/// ([`RightIndex::to_bytes`]) and their CRC32.
pub(crate) fn save_index(
    path: &Path,
    name: &RunName,
    split_crc: u32,
    index: &RightIndex,
) -> Result<(), CheckpointError> {
    let body = index.to_bytes();
    let (head, _) = header_text(
        INDEX_MAGIC,
        name,
        &format!("split {split_crc:08x}\nbytes {}\n", body.len()),
    );
    write_whole(path, &head, &body)
}

/// Reads the index saved at `path` for run `name` from the split whose header checksum is
/// `split_crc`. `None` when there is none that can be used: no file, another run's or another
/// split's, or damaged; the caller then indexes the right half itself, so a bad index file
/// costs time, never a wrong count.
pub(crate) fn load_index(path: &Path, name: &RunName, split_crc: u32) -> Option<RightIndex> {
    let bytes = read_regular(path).ok()?;
    if !bytes.starts_with(format!("{INDEX_MAGIC}\n").as_bytes()) {
        return None;
    }
    let header = header_lines(path, &bytes).ok()?;
    let at = header.len;
    let get = |k: &str| header.get(k);
    if name.fields.iter().any(|(k, v)| get(k) != Some(v.as_str()))
        || get("split") != Some(format!("{split_crc:08x}").as_str())
    {
        return None;
    }
    let len: usize = get("bytes")?.parse().ok()?;
    let body = bytes.get(at..at.checked_add(len)?)?;
    let crc = bytes.get(at + len..)?;
    if crc != crc32fast::hash(body).to_le_bytes() {
        return None;
    }
    RightIndex::from_bytes(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn name(board: &str) -> RunName {
        RunName {
            fields: vec![("board", board.to_string()), ("kind", "open".to_string())],
        }
    }

    #[test]
    fn a_saved_index_is_read_only_for_its_own_run_and_split() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.split.index");
        let index = crate::frontier::join::tests::small_index();
        save_index(&path, &name("5x5"), 0xabcd, &index).unwrap();
        let back = load_index(&path, &name("5x5"), 0xabcd).expect("its own");
        assert_eq!(back.to_bytes(), index.to_bytes());
        // another split, another run, no file: none, and the caller indexes the table itself
        assert!(load_index(&path, &name("5x5"), 0xabce).is_none());
        assert!(load_index(&path, &name("5x6"), 0xabcd).is_none());
        assert!(load_index(&dir.path().join("none"), &name("5x5"), 0xabcd).is_none());
        // a changed byte anywhere, or a file cut short
        let bytes = fs::read(&path).unwrap();
        for at in [3, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            fs::write(&path, &bad).unwrap();
            assert!(
                load_index(&path, &name("5x5"), 0xabcd).is_none(),
                "byte {at}"
            );
        }
        fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        assert!(load_index(&path, &name("5x5"), 0xabcd).is_none());
    }

    #[test]
    fn a_saved_layer_reads_back_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.ckpt");
        let mut t = Layer::<u64>::empty(crate::frontier::table::Shape { key: 8, limbs: 2 });
        // (keys whose first byte is not a table's empty mark, as no state's is)
        for k in 0..1000u64 {
            t.insert((k * 7) << 8, &[k, k / 3]);
        }
        let one = Layer::<u64>::single(3, 8, 1);
        save(
            &path,
            &name("5x5"),
            "sweep",
            5,
            (5, 36),
            &[("one", &one), ("current", &t)],
        )
        .unwrap();
        let mut back: Snapshot<u64> = load(&path, &name("5x5"), 8).unwrap().unwrap();
        assert_eq!((back.phase.as_str(), back.done), ("sweep", 5));
        let t = back.take("current").unwrap();
        assert_eq!(t.len(), 1000);
        assert_eq!(
            t.get(700 << 8).unwrap().words().collect::<Vec<_>>(),
            [100, 33]
        );
        // a one-word table saved beside a two-word one is widened
        assert_eq!(
            back.take("one")
                .unwrap()
                .get(3)
                .unwrap()
                .words()
                .collect::<Vec<_>>(),
            [1, 0]
        );
        assert!(matches!(
            load::<u64>(&path, &name("5x6"), 8),
            Err(CheckpointError::Mismatch { field: "board", .. })
        ));
        let mut bytes = fs::read(&path).unwrap();
        let at = bytes.len() - 100;
        bytes[at] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            load::<u64>(&path, &name("5x5"), 8),
            Err(CheckpointError::Damaged { .. })
        ));
        bytes.truncate(bytes.len() / 2);
        fs::write(&path, &bytes).unwrap();
        assert!(load::<u64>(&path, &name("5x5"), 8).is_err());
        assert!(
            load::<u64>(&dir.path().join("none"), &name("5x5"), 8)
                .unwrap()
                .is_none()
        );
    }
}
