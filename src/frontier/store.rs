//! Tables on disk: the files a layer goes to when memory is short, and how they are read back.
//!
//! A layer is held in memory (a hash table) or in a file of its states one after another
//! ([`Spill`]), read back a chunk at a time by whatever walks it (`Node` in `table.rs`). A
//! table being filled past its share of the memory bound writes a partition at a time to that
//! partition's file of *runs* ([`Runs`]) and goes on in the memory it freed; when the layer is
//! done, each partition's runs are combined in memory on their own (equal states added) and
//! appended to one [`Spill`] by a [`SpillWriter`] (see `Builder::finish_node` in `table.rs`). A
//! partition is a 64th to a 512th of the layer, split further by more bits of the hash where its
//! runs are larger than memory allows, so the memory a step holds is set by the bound, not by
//! the layer.
//!
//! Files hold *frames* ([`encode`]): whole entries, at most [`FRAME_BYTES`] of them, their bytes
//! sorted by place in the entry (every state's first byte, then every second byte, …) and
//! compressed with zstd at its fastest level but one. Keys are a few slots of 4 bits in mostly
//! empty windows and counts are words mostly zero at the top, so the sorted bytes shrink 2.5 to
//! 3 times (9x10 closed's layers of 18-byte entries, 3.0 and 3.1 times; the bytes as they are,
//! 2.3), and a count that goes to disk needs a third of the disk it did. Frames are made and
//! read back on every thread. Every file has a CRC32 of its entries' bytes, checked as it is
//! read back: a damaged file (a frame that does not decode, or a sum that fails) stops the
//! count, and nothing read from it is kept. Files are this run's alone, in the scratch folder
//! ([`Scratch`]), named by the run's identity and claimed by its lock (`crate::durable`), and
//! are removed when dropped; those a killed run left are removed by the next count that uses
//! the folder, on this machine or any other that shares it ([`Scratch::remove_stale`]).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::entry::{Limbs, Shape};
use super::state::Key;
use crate::durable::{self, Claim, DiskError, TABLE_FILE};

/// Bytes read from a file at a time, at most. Small next to what a bound holds back beside the
/// tables (a 32 MiB buffer took `knights count 5x10 --max-memory 40M` to 53 MiB, and 4 MiB
/// buffers, with the join's table of a chunk, were a sixth of 7x7 open's 36 MiB under 32M).
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// Bytes of entries a frame holds at most: small enough that a chunk's frames keep both threads
/// busy, large enough that each compresses as well as a whole file would (within 2 %).
pub(crate) const FRAME_BYTES: usize = 256 << 10;

/// The zstd level of the frames: its fastest but the negative levels (about 450 MB/s a thread
/// on the sorted bytes, against 1.8 times smaller at its negative levels' best).
const LEVEL: i32 = 1;

/// How many times smaller than its entries a file of frames is taken to be in the projections
/// of the disk a count needs: 2, where 2.5 to 3.1 were measured (9x10 closed's layers, 3.0 and
/// 3.1; 8x8 closed under 512M, 2.9 in all), so that the projection errs high.
pub(crate) const FRAME_SHRINK: f64 = 2.0;

/// Bytes of a frame's header: the bytes of its entries and of its compressed body (`u32` each).
pub(crate) const FRAME_HEADER: usize = 8;

/// Bytes of the whole `stride`-byte entries a frame holds at most.
fn frame_room(stride: usize) -> usize {
    (FRAME_BYTES / stride).max(1) * stride
}

/// The entries `raw` (whole, of `stride` bytes each) as frames appended to `out`.
pub(crate) fn encode(raw: &[u8], stride: usize, out: &mut Vec<u8>) {
    debug_assert_eq!(raw.len() % stride, 0);
    let per = frame_room(stride);
    let mut sorted = Vec::with_capacity(raw.len().min(per));
    for entries in raw.chunks(per) {
        let n = entries.len() / stride;
        sorted.clear();
        sorted.resize(entries.len(), 0);
        for (b, column) in sorted.chunks_exact_mut(n).enumerate() {
            for (x, e) in column.iter_mut().zip(entries.chunks_exact(stride)) {
                *x = e[b];
            }
        }
        let body = zstd::bulk::compress(&sorted, LEVEL).expect("zstd compresses any bytes");
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
    }
}

/// The entries of one frame's body `body` (`raw` bytes of `stride`-byte entries) into `out`;
/// `None` where it does not decode to that many bytes.
fn decode(body: &[u8], stride: usize, out: &mut [u8]) -> Option<()> {
    let sorted = zstd::bulk::decompress(body, out.len()).ok()?;
    if sorted.len() != out.len() {
        return None;
    }
    let n = out.len() / stride;
    for (b, column) in sorted.chunks_exact(n.max(1)).enumerate().take(stride) {
        for (e, &x) in out.chunks_exact_mut(stride).zip(column) {
            e[b] = x;
        }
    }
    Some(())
}

/// Where a count's files on disk go: a folder, claimed for this run at its first file (see
/// [`crate::durable`]), and the count's own figures of what it wrote and holds there.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    inner: Arc<Place>,
}

#[derive(Debug)]
struct Place {
    dir: PathBuf,
    claim: OnceLock<Claim>,
    figures: DiskFigures,
}

/// The kind of the store's files in their names (`.knights-spill.ID.N.WHAT`).
const KIND: &str = "spill";

/// Bytes a count has written to its scratch folder, holds there now, and held at the most: the
/// count's own (two counts in one process, a library's or the tests', keep theirs apart).
#[derive(Debug, Default)]
pub(crate) struct DiskFigures {
    written: AtomicU64,
    on_disk: AtomicU64,
    peak: AtomicU64,
}

impl DiskFigures {
    fn grew(&self, bytes: u64) {
        // Relaxed: figures for the report
        let now = self.on_disk.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        self.written.fetch_add(bytes, Ordering::Relaxed);
    }

    fn shrank(&self, bytes: u64) {
        self.on_disk.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Bytes of tables written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// The most bytes held at once.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

/// The error of `action` on the store's file `path`.
fn failed(action: &'static str, path: &Path, e: &std::io::Error) -> DiskError {
    DiskError::io(action, path, TABLE_FILE, e)
}

impl Scratch {
    /// The scratch folder `dir`, with figures of its own.
    pub(crate) fn new(dir: PathBuf) -> Scratch {
        Scratch {
            inner: Arc::new(Place {
                dir,
                claim: OnceLock::new(),
                figures: DiskFigures::default(),
            }),
        }
    }

    /// The count's figures of its files here.
    pub(crate) fn figures(&self) -> &DiskFigures {
        &self.inner.figures
    }

    /// A new file's path, of this run, for `what` (the folder claimed first).
    fn file(&self, what: &str) -> Result<PathBuf, DiskError> {
        crate::failpoint::spill();
        let dir = &self.inner.dir;
        if self.inner.claim.get().is_none() {
            let c = durable::claim(dir).map_err(|e| DiskError {
                action: "write",
                path: dir.clone(),
                what: "the scratch folder",
                why: e.to_string(),
                kind: Some(e.kind()),
            })?;
            let _ = self.inner.claim.set(c);
        }
        Ok(dir.join(durable::name(
            KIND,
            &format!("{}.{what}", durable::serial()),
        )))
    }

    /// Removes the files runs that have ended left in the folder (a count killed while its
    /// tables were on disk), whoever's they were: see [`durable::sweep`].
    pub(crate) fn remove_stale(&self) {
        durable::sweep(&self.inner.dir);
    }
}

/// A layer's states in a file: each state's key bytes and count words, as a table stores them,
/// in frames ([`encode`]), with no state twice. The file is this run's alone and is removed
/// when dropped.
pub(crate) struct Spill<K: Key> {
    path: PathBuf,
    pub(crate) len: u64,
    pub(crate) shape: Shape,
    /// The CRC32 of its entries' bytes.
    crc: u32,
    /// Bytes of its file.
    disk: u64,
    /// The folder's claim (held while the file is there) and the count's figures.
    scratch: Scratch,
    _key: std::marker::PhantomData<K>,
}

impl<K: Key> Spill<K> {
    /// Bytes of its file.
    pub(crate) fn file_bytes(&self) -> u64 {
        self.disk
    }

    /// Bytes its entries take in a table (what it would need in memory).
    pub(crate) fn raw_bytes(&self) -> u64 {
        self.len * self.shape.stride() as u64
    }

    /// Calls `f` on its states a chunk at a time: the raw entries of each chunk. The file's
    /// checksum is checked at its end: Err where it fails (or the file cannot be read).
    pub(crate) fn chunks(&self, f: impl FnMut(&[u8])) -> Result<(), DiskError> {
        read_checked(&self.path, self.disk, self.shape.stride(), self.crc, f)
    }
}

impl<K: Key> Drop for Spill<K> {
    fn drop(&mut self) {
        if std::fs::remove_file(&self.path).is_ok() {
            self.scratch.figures().shrank(self.file_bytes());
        }
    }
}

/// A [`Spill`] being written: entries appended (as frames, [`FrameWriter`]), then finished.
pub(crate) struct SpillWriter<K: Key> {
    out: FrameWriter<BufWriter<File>>,
    path: PathBuf,
    len: u64,
    shape: Shape,
    crc: crc32fast::Hasher,
    scratch: Scratch,
    _key: std::marker::PhantomData<K>,
}

/// Frames a thread a writer holds back before it makes them (1 MiB a thread).
const PENDING_FRAMES: usize = 4;

/// A new file of the store at `path`, which no file may hold yet (a name of this run's, so a
/// file there is no one's to write into).
fn create_new(path: &Path) -> Result<File, DiskError> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| failed("create", path, &e))
}

impl<K: Key> SpillWriter<K> {
    pub(crate) fn new(scratch: &Scratch, shape: Shape) -> Result<SpillWriter<K>, DiskError> {
        let path = scratch.file("layer")?;
        let file = create_new(&path)?;
        Ok(SpillWriter {
            out: FrameWriter::new(BufWriter::with_capacity(1 << 20, file), shape.stride()),
            path,
            len: 0,
            shape,
            crc: crc32fast::Hasher::new(),
            scratch: scratch.clone(),
            _key: std::marker::PhantomData,
        })
    }

    /// Appends `n` whole entries, `bytes`.
    pub(crate) fn push(&mut self, bytes: &[u8], n: u64) -> Result<(), DiskError> {
        debug_assert_eq!(bytes.len() as u64, n * self.shape.stride() as u64);
        self.crc.update(bytes);
        self.len += n;
        self.out
            .push(bytes)
            .map_err(|e| failed("write", &self.path, &e))
    }

    /// The file, written and flushed.
    pub(crate) fn finish(mut self) -> Result<Spill<K>, DiskError> {
        self.out
            .flush()
            .map_err(|e| failed("write", &self.path, &e))?;
        let disk = self.out.written();
        self.scratch.figures().grew(disk);
        Ok(Spill {
            path: std::mem::take(&mut self.path),
            len: self.len,
            shape: self.shape,
            crc: self.crc.clone().finalize(),
            disk,
            scratch: self.scratch.clone(),
            _key: std::marker::PhantomData,
        })
    }
}

impl<K: Key> Drop for SpillWriter<K> {
    /// A writer dropped unfinished (a failed step, a full disk) leaves no file.
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A partition's runs: the states it wrote out each time it filled its share of memory, one
/// run after another in one file of frames (a state may be in many runs), with the checksum of
/// their entries. The file is opened for each run and closed again (a layer has hundreds of
/// partitions: as many open files would pass the usual limit).
pub(crate) struct Runs {
    path: PathBuf,
    /// Bytes of an entry.
    stride: usize,
    /// Bytes of the file, and of the entries in it.
    disk: u64,
    raw: u64,
    /// Whether the file was made (at the first run).
    made: bool,
    crc: crc32fast::Hasher,
    scratch: Scratch,
}

impl Runs {
    /// A new file of runs of `stride`-byte entries in `scratch` (made at the first run).
    pub(crate) fn new(scratch: &Scratch, stride: usize) -> Result<Runs, DiskError> {
        Ok(Runs {
            path: scratch.file("runs")?,
            stride,
            disk: 0,
            raw: 0,
            made: false,
            crc: crc32fast::Hasher::new(),
            scratch: scratch.clone(),
        })
    }

    /// Bytes of the entries written to it.
    pub(crate) fn raw_bytes(&self) -> u64 {
        self.raw
    }

    /// Appends a run's entries, `data`. The first makes the file, which must not be there yet:
    /// a file of that name left by anyone is never appended to.
    pub(crate) fn append(&mut self, data: &[u8]) -> Result<(), DiskError> {
        let mut frames = Vec::with_capacity(data.len() / 2);
        encode(data, self.stride, &mut frames);
        let mut f = if self.made {
            OpenOptions::new()
                .append(true)
                .open(&self.path)
                .map_err(|e| failed("write", &self.path, &e))?
        } else {
            let f = create_new(&self.path)?;
            self.made = true;
            f
        };
        f.write_all(&frames)
            .map_err(|e| failed("write", &self.path, &e))?;
        self.crc.update(data);
        self.raw += data.len() as u64;
        self.disk += frames.len() as u64;
        self.scratch.figures().grew(frames.len() as u64);
        Ok(())
    }

    /// Calls `f` on its entries a chunk at a time; Err where the file cannot be read or does
    /// not read back as written.
    pub(crate) fn chunks(&self, f: impl FnMut(&[u8])) -> Result<(), DiskError> {
        read_checked(
            &self.path,
            self.disk,
            self.stride,
            self.crc.clone().finalize(),
            f,
        )
    }
}

impl Drop for Runs {
    /// Its file goes with it, a part written before a write failed too.
    fn drop(&mut self) {
        if self.made && std::fs::remove_file(&self.path).is_ok() {
            self.scratch.figures().shrank(self.disk);
        }
    }
}

/// Why frames could not be read: the reader failed, or the bytes are not frames of what was
/// written.
#[derive(Debug)]
pub(crate) enum FrameError {
    Io(std::io::Error),
    Damaged,
}

/// Reads frames of `stride`-byte entries from `r` (`left` bytes of them at most, less what is
/// read) into `entries` until it holds at least `want` bytes of entries or a chunk of them
/// ([`CHUNK_BYTES`]), or `left` runs out, decoded on every thread; Damaged where a frame does
/// not decode or would pass `left`, or the entries would pass `want`.
pub(crate) fn read_frames(
    r: &mut impl Read,
    stride: usize,
    want: usize,
    left: &mut u64,
    entries: &mut Vec<u8>,
) -> Result<(), FrameError> {
    let most = frame_room(stride);
    let mut frames: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut raw = 0;
    while *left > 0 && raw < want.min(CHUNK_BYTES) {
        let mut head = [0u8; FRAME_HEADER];
        if *left < FRAME_HEADER as u64 {
            return Err(FrameError::Damaged);
        }
        r.read_exact(&mut head).map_err(FrameError::Io)?;
        let n = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        let z = u64::from(u32::from_le_bytes(head[4..].try_into().expect("4 bytes")));
        *left -= FRAME_HEADER as u64;
        if n == 0 || !n.is_multiple_of(stride) || n > most || z > *left || raw + n > want {
            return Err(FrameError::Damaged);
        }
        let mut body = vec![0u8; z as usize];
        r.read_exact(&mut body).map_err(FrameError::Io)?;
        *left -= z;
        frames.push((n, body));
        raw += n;
    }
    entries.resize(raw, 0);
    let mut outs = Vec::with_capacity(frames.len());
    let mut rest = &mut entries[..];
    for (n, _) in &frames {
        let (a, b) = rest.split_at_mut(*n);
        outs.push(a);
        rest = b;
    }
    let ok = frames
        .par_iter()
        .zip(outs)
        .all(|((_, body), out)| decode(body, stride, out).is_some());
    if ok { Ok(()) } else { Err(FrameError::Damaged) }
}

/// Whole entries written as frames to `out`: they wait in memory until there are frames enough
/// for every thread ([`PENDING_FRAMES`] each), which are then made at once and written in order
/// (one writer makes a whole layer's frames: made one at a time, they kept one thread busy).
/// A layer's file ([`SpillWriter`]) and a checkpoint's saved layers write through one.
pub(crate) struct FrameWriter<W: Write> {
    out: W,
    stride: usize,
    /// Entries not yet made frames, and how many bytes of them wait at most.
    pending: Vec<u8>,
    room: usize,
    /// Bytes of frames written.
    written: u64,
}

impl<W: Write> FrameWriter<W> {
    pub(crate) fn new(out: W, stride: usize) -> FrameWriter<W> {
        FrameWriter {
            out,
            stride,
            pending: Vec::new(),
            room: rayon::current_num_threads().max(1) * PENDING_FRAMES * FRAME_BYTES,
            written: 0,
        }
    }

    /// Appends whole entries.
    pub(crate) fn push(&mut self, entries: &[u8]) -> std::io::Result<()> {
        self.pending.extend_from_slice(entries);
        if self.pending.len() >= self.room {
            self.flush_frames()?;
        }
        Ok(())
    }

    /// Makes every entry waiting a frame and writes it: the next entry begins a new frame.
    pub(crate) fn flush_frames(&mut self) -> std::io::Result<()> {
        let frames: Vec<Vec<u8>> = self
            .pending
            .par_chunks(frame_room(self.stride))
            .map(|entries| {
                let mut out = Vec::new();
                encode(entries, self.stride, &mut out);
                out
            })
            .collect();
        self.pending.clear();
        for f in &frames {
            self.out.write_all(f)?;
            self.written += f.len() as u64;
        }
        Ok(())
    }

    /// Bytes of frames written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Every entry written as frames, and the writer flushed.
    pub(crate) fn flush(&mut self) -> std::io::Result<()> {
        self.flush_frames()?;
        self.out.flush()
    }

    /// The writer the frames go to (for what a file holds after them).
    pub(crate) fn inner(&mut self) -> &mut W {
        &mut self.out
    }
}

/// Reads the frames of the file at `path`, `bytes` bytes, into `f` a chunk of whole entries of
/// `stride` bytes at a time, and checks the entries against the CRC32 `crc` at the end: Err
/// where the file cannot be read, a frame does not decode or the checksum fails.
fn read_checked(
    path: &Path,
    bytes: u64,
    stride: usize,
    crc: u32,
    mut f: impl FnMut(&[u8]),
) -> Result<(), DiskError> {
    let io = |e: std::io::Error| failed("read", path, &e);
    let mut file = std::io::BufReader::with_capacity(1 << 20, File::open(path).map_err(io)?);
    let mut left = bytes;
    let mut sum = crc32fast::Hasher::new();
    let mut entries = Vec::new();
    while left > 0 {
        match read_frames(&mut file, stride, usize::MAX, &mut left, &mut entries) {
            Ok(()) => {}
            Err(FrameError::Io(e)) => return Err(io(e)),
            Err(FrameError::Damaged) => return Err(DiskError::damaged(path, TABLE_FILE)),
        }
        sum.update(&entries);
        f(&entries);
    }
    if sum.finalize() != crc {
        return Err(DiskError::damaged(path, TABLE_FILE));
    }
    Ok(())
}

/// The raw entries of a file's chunk as states and counts.
pub(crate) fn entries<K: Key>(
    bytes: &[u8],
    shape: Shape,
) -> impl Iterator<Item = (K, Limbs<'_>)> + '_ {
    bytes
        .chunks_exact(shape.stride())
        .map(move |e| (K::read(e, shape.key), Limbs::of(&e[shape.key..])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spill_reads_back_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let shape = Shape { key: 8, limbs: 1 };
        let mut w = SpillWriter::<u64>::new(&scratch, shape).unwrap();
        for i in 1..=1000u64 {
            let mut e = (i << 8).to_le_bytes().to_vec();
            e.extend_from_slice(&i.to_le_bytes());
            w.push(&e, 1).unwrap();
        }
        let s = w.finish().unwrap();
        assert_eq!(s.len, 1000);
        let read = |s: &Spill<u64>| {
            let mut sum = 0;
            s.chunks(|b| sum += entries::<u64>(b, shape).map(|(_, c)| c.get(0)).sum::<u64>())
                .map(|()| sum)
        };
        assert_eq!(read(&s).unwrap(), 500_500);
        // one bit changed: refused, naming the file
        let mut bytes = std::fs::read(&s.path).unwrap();
        bytes[100] ^= 4;
        std::fs::write(&s.path, &bytes).unwrap();
        let e = read(&s).unwrap_err().to_string();
        assert!(
            e.contains("does not read back as written") && e.contains(".knights-spill."),
            "{e}"
        );
        // cut short: said so, not as the reader's own words
        std::fs::write(&s.path, &bytes[..bytes.len() / 2]).unwrap();
        let e = read(&s).unwrap_err().to_string();
        assert!(
            e.contains("does not read back as written") || e.contains("cut short"),
            "{e}"
        );
        assert!(!e.contains("failed to fill whole buffer"), "{e}");
        let path = s.path.clone();
        drop(s);
        assert!(!path.exists(), "a spill's file goes with it");
    }

    /// Entries of an odd stride, many frames of them pushed in pieces of every size, read back
    /// byte for byte and in order, in fewer bytes than they take (the sorted bytes of states
    /// and counts compress), and a frame header that names a part of an entry is refused.
    #[test]
    fn frames_read_back_every_entry_in_order_and_smaller() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let shape = Shape { key: 10, limbs: 1 };
        let stride = shape.stride();
        let n = 3 * FRAME_BYTES / stride + 17;
        let mut raw = Vec::with_capacity(n * stride);
        let mut rng = fastrand::Rng::with_seed(7);
        for i in 0..n as u64 {
            // a key of a few 4-bit slots in a mostly empty window, a small count
            let key = u128::from(rng.u64(..)) & 0x0000_0f0f_00f0_0f00_0f0f;
            raw.extend_from_slice(&key.to_le_bytes()[..10]);
            raw.extend_from_slice(&(i % 1000).to_le_bytes());
        }
        let mut w = SpillWriter::<u128>::new(&scratch, shape).unwrap();
        let mut at = 0;
        for k in (1..).map(|k| k * 1237 % 5000 + 1) {
            if at == n {
                break;
            }
            let m = k.min(n - at);
            w.push(&raw[at * stride..(at + m) * stride], m as u64)
                .unwrap();
            at += m;
        }
        let s = w.finish().unwrap();
        assert_eq!(s.len, n as u64);
        assert!(
            s.file_bytes() * 2 < s.raw_bytes(),
            "{} bytes of frames for {} of entries",
            s.file_bytes(),
            s.raw_bytes()
        );
        let mut back = Vec::new();
        s.chunks(|b| back.extend_from_slice(b)).unwrap();
        assert!(back == raw, "the entries read back as written");
        // a frame whose size is not whole entries
        let mut bytes = std::fs::read(&s.path).unwrap();
        bytes[0] = bytes[0].wrapping_add(1);
        std::fs::write(&s.path, &bytes).unwrap();
        let e = s.chunks(|_| {}).unwrap_err().to_string();
        assert!(e.contains("does not read back as written"), "{e}");
    }

    #[test]
    fn runs_append_and_read_back_whole_entries() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let mut r = Runs::new(&scratch, 16).unwrap();
        r.append(&[1u8; 32]).unwrap();
        r.append(&[2u8; 16]).unwrap();
        let mut seen = Vec::new();
        r.chunks(|b| seen.extend_from_slice(b)).unwrap();
        assert_eq!(seen.len(), 48);
        assert_eq!(seen[40], 2);
        let path = r.path.clone();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[3] = 9;
        std::fs::write(&path, &bytes).unwrap();
        assert!(
            r.chunks(|_| {})
                .unwrap_err()
                .to_string()
                .contains("does not read back as written")
        );
        drop(r);
        assert!(!path.exists());
    }

    #[test]
    fn a_file_of_the_store_is_never_one_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let mut r = Runs::new(&scratch, 16).unwrap();
        // a file of that name left by someone (the same name drawn again): not appended to
        std::fs::write(&r.path, b"left").unwrap();
        let e = r.append(&[1u8; 16]).unwrap_err();
        assert_eq!(e.kind, Some(std::io::ErrorKind::AlreadyExists), "{e}");
        assert_eq!(std::fs::read(&r.path).unwrap(), b"left");
        drop(r);
        // names of this run, each new, in a folder it claims
        let a = scratch.file("runs").unwrap();
        let b = scratch.file("runs").unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name.starts_with(&format!(".knights-spill.{}.", durable::run_id())),
            "{name}"
        );
        assert!(
            std::fs::read_dir(dir.path()).unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".knights-run.")),
            "the folder is claimed by its lock file"
        );
    }

    #[test]
    fn each_scratch_keeps_its_own_figures() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            Scratch::new(dir.path().to_path_buf()),
            Scratch::new(dir.path().to_path_buf()),
        );
        let mut r = Runs::new(&a, 16).unwrap();
        r.append(&[7u8; 160]).unwrap();
        assert!(a.figures().written() > 0 && a.figures().peak() > 0);
        assert_eq!((b.figures().written(), b.figures().peak()), (0, 0));
        drop(r);
        assert_eq!(a.figures().on_disk.load(Ordering::Relaxed), 0);
    }
}
