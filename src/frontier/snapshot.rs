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
//! knights-frontier 3
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
//! `key-bytes` bytes of key and `8 * limbs` bytes of count (little-endian) each, in the frames
//! the store writes its files in (compressed, a third of the bytes; see `crate::disk::frames`), a table's
//! last frame ending with it, and last the CRC32 of the states' bytes (4 bytes,
//! little-endian). The file is written to a temporary file beside it, synced, and renamed over
//! the old one, so a checkpoint is always a whole saved layer or the one before; a file whose
//! checksums fail is refused (it cannot be trusted), as is the file of another run.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::disk::frames::{FRAME_HEADER, FrameError, FrameWriter, read_frames};
use crate::disk::scratch::Scratch;
use crate::durable::{CheckpointError, replace_with};
use crate::engine::RunError;
#[cfg(test)]
use crate::layer::Layer;
use crate::layer::{Batch, Bound, Builder, EMPTY, Node, Src};
use crate::walk::entry::{Limbs, Shape};
use crate::walk::state::Key;

/// The first line, with the format's version.
const MAGIC: &str = "knights-frontier 3";

/// The fields a run's name has only where they differ from the first way of counting (which the
/// files of the runs before them were made in), with what their absence means.
const OPTIONAL_FIELDS: [(&str, &str); 2] = [("window", "narrow"), ("order", "straight")];

/// The fields that name a run; a checkpoint of other fields belongs to another run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunName {
    pub(crate) fields: Vec<(&'static str, String)>,
}

/// Where a count stood when it was saved.
pub(crate) struct Snapshot<K: Key> {
    /// `sweep`, `forward`, `crossing` or `join`.
    pub(crate) phase: String,
    /// Steps of the phase done.
    pub(crate) done: usize,
    pub(crate) tables: Vec<(String, Node<K>)>,
}

impl<K: Key> Snapshot<K> {
    /// Takes the table called `name` out.
    pub(crate) fn take(&mut self, name: &str) -> Option<Node<K>> {
        let i = self.tables.iter().position(|t| t.0 == name)?;
        Some(self.tables.remove(i).1)
    }

    /// [`Snapshot::take`] of a table read into memory.
    #[cfg(test)]
    fn take_mem(&mut self, name: &str) -> Option<Layer<K>> {
        match self.take(name)? {
            Node::Mem(l) => Some(l),
            Node::Disk(_) => panic!("a table read without a scratch folder is in memory"),
        }
    }
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
    tables: &[(&str, Src<'_, K>)],
    abandon: Option<&AtomicBool>,
) -> Result<u32, CheckpointError> {
    let limbs = tables.iter().map(|t| t.1.shape().limbs).max().unwrap_or(1);
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
    // the states are written as they are read from the tables, in frames a few a thread at a
    // time (`FrameWriter`), with their checksum kept as they go: a copy of a table of 200 million states would double
    // its memory
    let stride = key_bytes + 8 * limbs;
    replace_with(path, |f| {
        let mut file = std::io::BufWriter::with_capacity(1 << 20, f);
        file.write_all(head.as_bytes())?;
        let mut out = FrameWriter::new(file, stride);
        let mut crc = crc32fast::Hasher::new();
        let mut entry = vec![0u8; stride];
        let mut key = [0u8; 16];
        let mut seen = 0u64;
        for (_, t) in tables {
            // a table on disk is read back as it is written: a failure to read it fails the save
            let mut written = Ok(());
            t.each(|k, c| {
                if written.is_err() {
                    return;
                }
                seen += 1;
                // Relaxed: the flag only asks the save to end (the temporary file goes)
                if seen.is_multiple_of(4096) && abandon.is_some_and(|a| a.load(Ordering::Relaxed)) {
                    written = Err(std::io::Error::new(
                        std::io::ErrorKind::Interrupted,
                        "the save was given up at a second stop signal",
                    ));
                    return;
                }
                k.write(&mut key);
                entry[..key_bytes].copy_from_slice(&key[..key_bytes]);
                for i in 0..limbs {
                    let w = if i < c.len() { c.get(i) } else { 0 };
                    entry[key_bytes + 8 * i..key_bytes + 8 * i + 8]
                        .copy_from_slice(&w.to_le_bytes());
                }
                crc.update(&entry);
                written = out.push(&entry);
            })
            .map_err(|e| std::io::Error::other(e.to_string()))?;
            written?;
            // a table's last frame ends with it
            out.flush_frames()?;
        }
        out.inner().write_all(&crc.finalize().to_le_bytes())?;
        out.flush()
    })?;
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

    /// The smallest size the file has when its states are all there: the header, a frame's
    /// header a table with states, the checksum (the frames' bytes are known once written).
    #[must_use]
    pub fn least_file_size(&self) -> Option<u64> {
        let limbs: u64 = self.get("limbs")?.parse().ok()?;
        let key: u64 = self.get("key-bytes")?.parse().ok()?;
        (key > 0 && limbs > 0).then_some(())?;
        let tables = self.tables().iter().filter(|t| t.1 > 0).count() as u64;
        Some(self.len as u64 + tables * FRAME_HEADER as u64 + 4)
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
            "its first line is not 'knights-frontier 3'"
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

/// The header of the saved stage at `path` (its states are not read: the file is only checked
/// to be at least the smallest size they take, [`Header::least_file_size`]; their frames'
/// checksums are checked as a resume reads them); `None` when there is no file.
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
    let least = header.least_file_size();
    if least.is_none() || size < least {
        return Err(CheckpointError::Damaged {
            path: path.into(),
            why: format!(
                "it holds {} bytes where its header needs at least {}",
                size.unwrap_or(0),
                least.unwrap_or(0)
            ),
        });
    }
    Ok(Some(header))
}

/// The states of a saved stage, read after its header a chunk at a time as a resume reads them:
/// their checksum kept as they come, every state checked for a table's empty mark (which no
/// state's first byte is, and a damaged file's may be), the checksum compared at the end. One
/// reader for [`load`] and [`check_states`], so that `status` finds what a resume would.
struct States<'a> {
    path: &'a Path,
    reader: std::io::BufReader<std::fs::File>,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
    entry: usize,
    /// Bytes of frames left before the checksum.
    left: u64,
    /// Set when the count is asked to stop: the read ends between two chunks.
    stop: Option<&'a AtomicBool>,
}

impl<'a> States<'a> {
    fn open(path: &'a Path, header: &Header, entry: usize) -> Result<Self, CheckpointError> {
        let entry = entry.max(1);
        let mut file =
            crate::input::open_regular(path).map_err(|e| damaged(path, &e.to_string()))?;
        let size = file.metadata().map_err(|e| read_error(path, e))?.len();
        let left = size
            .checked_sub(header.len as u64 + 4)
            .ok_or_else(|| damaged(path, "it is cut short"))?;
        std::io::Read::read_exact(&mut file, &mut vec![0u8; header.len])
            .map_err(|e| read_error(path, e))?;
        Ok(States {
            path,
            reader: std::io::BufReader::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            buf: Vec::new(),
            entry,
            left,
            stop: None,
        })
    }

    /// Reads the next `states` states (one table's), giving each chunk of whole states to `each`.
    fn table(&mut self, states: usize, mut each: impl FnMut(&[u8])) -> Result<(), CheckpointError> {
        let (entry, path) = (self.entry, self.path);
        let mut left = states * entry;
        while left > 0 {
            // Relaxed: the flag only asks the read to end
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(CheckpointError::Io {
                    action: "read",
                    path: path.into(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::Interrupted,
                        "the count was stopped while it read its saved tables back",
                    ),
                });
            }
            read_frames(&mut self.reader, entry, left, &mut self.left, &mut self.buf).map_err(
                |e| match e {
                    FrameError::Io(e) => read_error(path, e),
                    FrameError::Damaged => damaged(path, "a frame of its states does not decode"),
                },
            )?;
            let n = self.buf.len();
            if n == 0 {
                return Err(damaged(path, "it is cut short"));
            }
            let chunk = &self.buf[..];
            self.crc.update(chunk);
            let per = (n / entry / (rayon::current_num_threads() * 4)).max(1) * entry;
            if chunk
                .par_chunks(per)
                .any(|part| part.chunks_exact(entry).any(|e| e[0] == EMPTY))
            {
                return Err(damaged(path, "a state in it cannot be one"));
            }
            each(chunk);
            left -= n;
        }
        Ok(())
    }

    /// Compares the checksum at the end with the states read.
    fn finish(mut self) -> Result<(), CheckpointError> {
        if self.left != 0 {
            return Err(damaged(self.path, "it holds more than its states"));
        }
        let mut sum = [0u8; 4];
        std::io::Read::read_exact(&mut self.reader, &mut sum)
            .map_err(|e| read_error(self.path, e))?;
        if self.crc.finalize().to_le_bytes() != sum {
            return Err(damaged(self.path, "its states' checksum does not match"));
        }
        Ok(())
    }
}

fn damaged(path: &Path, why: &str) -> CheckpointError {
    CheckpointError::Damaged {
        path: path.into(),
        why: why.into(),
    }
}

fn read_error(path: &Path, source: std::io::Error) -> CheckpointError {
    // a file that ends early is cut short, not a failure of the reader ("failed to fill whole
    // buffer")
    if source.kind() == std::io::ErrorKind::UnexpectedEof {
        return damaged(
            path,
            "it is cut short: it ends before the states its header names",
        );
    }
    CheckpointError::Io {
        action: "read",
        path: path.into(),
        source,
    }
}

/// Checks the states of the saved stage at `path` whose header is `header` as a resume reads
/// them (see `States`), without building its tables: for `knights status`, which says what a
/// resume will do. Reads the whole file (a few seconds a GB).
pub fn check_states(path: &Path, header: &Header) -> Result<(), CheckpointError> {
    let num = |k: &str| header.get(k).and_then(|v| v.parse::<usize>().ok());
    let (Some(key_bytes), Some(limbs)) = (num("key-bytes"), num("limbs")) else {
        return Err(damaged(path, "its header has no key-bytes or limbs"));
    };
    let mut states = States::open(path, header, key_bytes + 8 * limbs)?;
    for (_, count) in header.tables() {
        states.table(count, |_| {})?;
    }
    states.finish()
}

/// Reads the checkpoint at `path` of run `name`, whose keys are `shape_key` bytes: `None` when
/// there is no file. The states are read a chunk at a time (see [`States`]) and put in their
/// tables by every thread (a saved table of 200 million states is not held twice).
#[cfg(test)]
pub(crate) fn load<K: Key>(
    path: &Path,
    name: &RunName,
    shape_key: usize,
) -> Result<Option<Snapshot<K>>, CheckpointError> {
    // (read into memory: no scratch folder, so every error is the checkpoint's)
    load_to(path, name, shape_key, None, None).map_err(|e| match e {
        RunError::Checkpoint(c) => c,
        e => panic!("a load into memory failed otherwise than by its file: {e}"),
    })
}

/// [`load`], each table read into memory where it fits `spill`'s bytes, and to a file in its
/// scratch folder past them (a count under a small bound resumes within it); the read ends, an
/// error, once `stop` is set (reading 9x10 closed's layer 40 back took 205 s).
pub(crate) fn load_to<K: Key>(
    path: &Path,
    name: &RunName,
    shape_key: usize,
    spill: Option<(&Scratch, u64)>,
    stop: Option<&AtomicBool>,
) -> Result<Option<Snapshot<K>>, RunError> {
    let Some(header) = read_header(path)? else {
        return Ok(None);
    };
    let get = |k: &str| {
        header
            .get(k)
            .ok_or_else(|| damaged(path, &format!("the header has no '{k}'")))
    };
    for (k, v) in &name.fields {
        // a field a file of the first way of counting leaves out reads as that way
        let plain = OPTIONAL_FIELDS.iter().find(|f| f.0 == *k).map(|f| f.1);
        let theirs = match (header.get(k), plain) {
            (Some(t), _) => t,
            (None, Some(plain)) => plain,
            (None, None) => get(k)?,
        };
        if theirs != v {
            return Err(CheckpointError::Mismatch {
                path: path.into(),
                field: k,
                file: theirs.to_string(),
                run: v.clone(),
            }
            .into());
        }
    }
    // the fields a run names only where they are not the first way (a wide window, a column's
    // rows not in their straight order): a file that has one this run lacks is another run's
    for (k, plain) in OPTIONAL_FIELDS {
        if let Some(theirs) = header
            .get(k)
            .filter(|_| !name.fields.iter().any(|f| f.0 == k))
        {
            return Err(CheckpointError::Mismatch {
                path: path.into(),
                field: k,
                file: theirs.to_string(),
                run: plain.to_string(),
            }
            .into());
        }
    }
    let num = |k: &str| -> Result<usize, CheckpointError> {
        get(k)?
            .parse()
            .map_err(|_| damaged(path, &format!("the header's {k} cannot be read")))
    };
    let limbs = num("limbs")?;
    let key_bytes = num("key-bytes")?;
    if key_bytes != shape_key || limbs == 0 {
        return Err(damaged(path, "its state size is not this run's").into());
    }
    let shape = Shape {
        key: key_bytes,
        limbs,
    };
    let entry = shape.stride();
    // (read_header checked that the file holds exactly the states its header names)
    let mut states = States::open(path, &header, entry)?;
    states.stop = stop;
    let mut tables = Vec::new();
    for (tname, count) in header.tables() {
        let builder = match spill {
            Some((scratch, room)) => {
                let bound = Bound {
                    tables: room,
                    process: u64::MAX,
                };
                Builder::spilling(count as u64, shape, 0, bound, None, scratch.clone())
            }
            None => Builder::new(count as u64, shape, 0, Bound::new(u64::MAX), None),
        };
        states.table(count, |chunk| {
            let per = (chunk.len() / entry / (rayon::current_num_threads() * 4)).max(1) * entry;
            chunk.par_chunks(per).for_each(|part| {
                let mut batch = Batch::new(&builder);
                for e in part.chunks_exact(entry) {
                    batch.push(K::read(e, key_bytes), Limbs::of(&e[key_bytes..]));
                }
            });
        })?;
        // a table that passes the bound goes to the scratch folder: a failure there is that
        // disk's, and the checkpoint is whole
        let layer = builder.finish_node().map_err(|e| match e {
            crate::layer::Stopped::Disk(e) => RunError::Disk(e),
            _ => damaged(path, "its counts do not fit their words").into(),
        })?;
        if layer.len() != count as u64 {
            return Err(damaged(path, "a table holds a state twice").into());
        }
        tables.push((tname, layer));
    }
    states.finish()?;
    Ok(Some(Snapshot {
        phase: get("phase")?.to_string(),
        done: num("done")?,
        tables,
    }))
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

    /// A stage saved by a walk whose columns took their rows in another order holds other
    /// states: refused both ways, the straight walk's name (no `order` field) against a tuned
    /// one's and the tuned against the straight, naming the order.
    #[test]
    fn a_stage_saved_in_another_order_is_refused_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let one = Layer::<u64>::single(3, 8, 1);
        let mut tuned = name("6x9");
        tuned.fields.push(("order", "1,2,4,0,3,5".to_string()));
        for (saved, loaded, file, run) in [
            (name("6x9"), &tuned, "straight", "1,2,4,0,3,5"),
            (tuned.clone(), &name("6x9"), "1,2,4,0,3,5", "straight"),
        ] {
            let path = dir.path().join("f.ckpt");
            save(
                &path,
                &saved,
                "sweep",
                5,
                (5, 54),
                &[("current", Src::Mem(&one))],
                None,
            )
            .unwrap();
            assert!(load::<u64>(&path, &saved, 8).unwrap().is_some());
            match load::<u64>(&path, loaded, 8) {
                Err(CheckpointError::Mismatch {
                    field: "order",
                    file: f,
                    run: r,
                    ..
                }) => assert_eq!((f.as_str(), r.as_str()), (file, run)),
                other => panic!("loaded: {:?}", other.map(|s| s.map(|s| s.phase))),
            }
        }
    }

    #[test]
    fn a_saved_layer_reads_back_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.ckpt");
        let mut t = Layer::<u64>::empty(crate::walk::entry::Shape { key: 8, limbs: 2 });
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
            &[("one", Src::Mem(&one)), ("current", Src::Mem(&t))],
            None,
        )
        .unwrap();
        let mut back: Snapshot<u64> = load(&path, &name("5x5"), 8).unwrap().unwrap();
        assert_eq!((back.phase.as_str(), back.done), ("sweep", 5));
        let t = back.take_mem("current").unwrap();
        assert_eq!(t.len(), 1000);
        assert_eq!(
            t.get(700 << 8).unwrap().words().collect::<Vec<_>>(),
            [100, 33]
        );
        // a one-word table saved beside a two-word one is widened
        assert_eq!(
            back.take_mem("one")
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

    /// Each table's name and states (key, count words), in key order.
    type Tables = Vec<(String, Vec<(u64, Vec<u64>)>)>;

    /// What a table holds, in key order.
    fn entries(t: &Layer<u64>) -> Vec<(u64, Vec<u64>)> {
        let mut v: Vec<(u64, Vec<u64>)> = t.iter().map(|(k, c)| (k, c.words().collect())).collect();
        v.sort();
        v
    }

    /// A saved stage of two tables (as the split and the layers files are) and a file of
    /// another run, for the damage tests.
    fn seed() -> &'static (Vec<u8>, Vec<u8>, Tables) {
        static SEED: std::sync::OnceLock<(Vec<u8>, Vec<u8>, Tables)> = std::sync::OnceLock::new();
        SEED.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            made(&dir.path().join("seed"))
        })
    }

    fn made(path: &Path) -> (Vec<u8>, Vec<u8>, Tables) {
        let path = path.to_path_buf();
        let mut t = Layer::<u64>::empty(crate::walk::entry::Shape { key: 8, limbs: 2 });
        for k in 0..40u64 {
            t.insert((k * 7 + 1) << 8, &[k * 1_000_003, k / 3]);
        }
        let one = Layer::<u64>::single(3 << 8, 8, 2);
        save(
            &path,
            &name("5x5"),
            "split",
            5,
            (5, 36),
            &[("left", Src::Mem(&one)), ("right", Src::Mem(&t))],
            None,
        )
        .unwrap();
        let truth = vec![
            ("left".to_string(), entries(&one)),
            ("right".to_string(), entries(&t)),
        ];
        let ours = fs::read(&path).unwrap();
        save(
            &path,
            &name("5x6"),
            "split",
            5,
            (5, 36),
            &[("left", Src::Mem(&one))],
            None,
        )
        .unwrap();
        (ours, fs::read(&path).unwrap(), truth)
    }

    /// Reads `bytes` as the saved stage: a refusal, or the tables that were written.
    fn read_back(path: &Path, bytes: &[u8], truth: &Tables) {
        fs::write(path, bytes).unwrap();
        let loaded = load::<u64>(path, &name("5x5"), 8);
        // status says what a resume will do: where the header is read, the states check as
        // they load (a table holding a state twice is found by the load alone)
        if let Ok(Some(h)) = read_header(path) {
            if check_states(path, &h).is_err() {
                assert!(
                    !matches!(loaded, Ok(Some(_))),
                    "status refuses what a resume reads"
                );
            }
        }
        let Ok(Some(mut s)) = loaded else {
            return;
        };
        assert_eq!((s.phase.as_str(), s.done), ("split", 5));
        for (n, want) in truth {
            let t = s.take_mem(n).expect("a table read back");
            assert_eq!(&entries(&t), want, "table {n} read back with other states");
        }
    }

    /// A read back asked to stop ends with an interruption (never a table short of states), and
    /// leaves the file as it was, to be read again.
    #[test]
    fn a_stopped_read_ends_and_leaves_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seed");
        let (ours, _, truth) = made(&path);
        fs::write(&path, &ours).unwrap();
        let before = ours;
        let stop = AtomicBool::new(true);
        match load_to::<u64>(&path, &name("5x5"), 8, None, Some(&stop)) {
            Err(RunError::Checkpoint(CheckpointError::Io { source, .. })) => {
                assert_eq!(source.kind(), std::io::ErrorKind::Interrupted);
            }
            Err(e) => panic!("not an interruption: {e}"),
            Ok(_) => panic!("a stopped read gave tables"),
        }
        assert_eq!(fs::read(&path).unwrap(), before);
        stop.store(false, Ordering::Relaxed);
        let mut s = load_to::<u64>(&path, &name("5x5"), 8, None, Some(&stop))
            .unwrap()
            .unwrap();
        for (n, want) in &truth {
            assert_eq!(&entries(&s.take_mem(n).unwrap()), want);
        }
    }

    /// Saved layers of the format before frames are refused by name, not read as damaged.
    #[test]
    fn saved_layers_of_an_earlier_format_are_refused_with_advice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.ckpt.layers");
        fs::write(&path, "knights-frontier 2\nversion 0.1.0\n").unwrap();
        let e = read_header(&path).unwrap_err().to_string();
        assert!(
            e.contains("earlier version") && e.contains("delete it"),
            "{e}"
        );
    }

    #[test]
    fn no_single_damage_makes_the_reader_panic_or_lie() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, theirs, truth) = seed();
        let probe = dir.path().join("probe");
        let variants = crate::damage::single(ours, &[theirs]);
        assert!(variants.len() > 2_000, "{}", variants.len());
        for v in variants {
            read_back(&probe, &v, truth);
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::damage::config())]
        #[test]
        fn no_random_damage_makes_the_reader_panic_or_lie(ops in crate::damage::ops()) {
            let dir = tempfile::tempdir().unwrap();
            let (ours, theirs, truth) = seed();
            let v = crate::damage::apply(ours, &ops, &[theirs]);
            read_back(&dir.path().join("probe"), &v, truth);
        }
    }
}
