//! The frame format of every file of tables: whole entries, their bytes sorted by place in the
//! entry and compressed, read back on every thread and checked against the CRC32 of the
//! entries.
//!
//! A frame holds at most [`FRAME_BYTES`] of entries: every entry's first byte, then every
//! second byte, …, compressed with zstd at its fastest level but one. Keys are a few slots of 4
//! bits in mostly empty windows and counts are words mostly zero at the top, so the sorted bytes
//! shrink 2.5 to 3 times (results/disk.md), and a count that goes to disk needs a third of the
//! disk it would as the bytes are.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use rayon::prelude::*;

use crate::durable::{DiskError, TABLE_FILE};

/// Bytes read from a file at a time, at most. Small next to what a bound holds back beside the
/// tables (a 32 MiB buffer took `knights count 5x10 --max-memory 40M` to 53 MiB, and 4 MiB
/// buffers, with the join's table of a chunk, were a sixth of 7x7 open's 36 MiB under 32M).
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// Bytes a file of frames holds in memory while it is read, as a step reading a layer from
/// disk counts them beside its tables: its chunk of entries, the chunk's compressed frames (a
/// third as much, at most all of it) and the reader's buffer. Uncounted, 6x10 open under 64M on
/// one thread was resident in 65 MiB; counted, 61.
pub(crate) const READ_HELD: u64 = (2 * CHUNK_BYTES + (1 << 20)) as u64;

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

/// Frames a thread a writer holds back before it makes them (1 MiB a thread).
const PENDING_FRAMES: usize = 4;

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
    // room for exactly this chunk: a resize past the capacity doubles it (a chunk a frame
    // larger than the last held 8.5 MiB for 4.25, the largest buffer of 6x10 open under 64M)
    if raw > entries.capacity() {
        entries.clear();
        entries.reserve_exact(raw);
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
pub(crate) fn read_checked(
    path: &Path,
    bytes: u64,
    stride: usize,
    crc: u32,
    f: impl FnMut(&[u8]),
) -> Result<(), DiskError> {
    let file = File::open(path).map_err(|e| DiskError::io("read", path, TABLE_FILE, &e))?;
    let region = Region {
        file: &file,
        path,
        what: TABLE_FILE,
        offset: 0,
        bytes,
    };
    region.read_checked(stride, crc, f)
}

/// Frames at a place in an open file: `bytes` bytes from `offset` of `file` (at `path`, a file
/// of `what`, for messages). Read by position, so that many threads may read one file at once.
pub(crate) struct Region<'a> {
    pub(crate) file: &'a File,
    pub(crate) path: &'a Path,
    pub(crate) what: &'static str,
    pub(crate) offset: u64,
    pub(crate) bytes: u64,
}

impl Region<'_> {
    /// Reads the region's frames into `f` a chunk of whole entries of `stride` bytes at a time,
    /// and checks the entries against the CRC32 `crc` at the end: Err where the file cannot be
    /// read, a frame does not decode or the checksum fails.
    pub(crate) fn read_checked(
        &self,
        stride: usize,
        crc: u32,
        mut f: impl FnMut(&[u8]),
    ) -> Result<(), DiskError> {
        let io = |e: std::io::Error| DiskError::io("read", self.path, self.what, &e);
        let mut reader = std::io::BufReader::with_capacity(
            1 << 20,
            At {
                file: self.file,
                pos: self.offset,
            },
        );
        let mut left = self.bytes;
        let mut sum = crc32fast::Hasher::new();
        let mut entries = Vec::new();
        while left > 0 {
            match read_frames(&mut reader, stride, usize::MAX, &mut left, &mut entries) {
                Ok(()) => {}
                Err(FrameError::Io(e)) => return Err(io(e)),
                Err(FrameError::Damaged) => return Err(DiskError::damaged(self.path, self.what)),
            }
            sum.update(&entries);
            f(&entries);
        }
        if sum.finalize() != crc {
            return Err(DiskError::damaged(self.path, self.what));
        }
        Ok(())
    }
}

/// A file read from a position of its own (`pread`), not the file's shared offset.
struct At<'a> {
    file: &'a File,
    pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A region of frames after other bytes of the file reads back as written, from any
    /// thread's position; a bit changed in it is refused, naming the file and what it holds.
    #[test]
    fn a_region_of_frames_reads_back_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layers");
        let stride = 12;
        let raw: Vec<u8> = (0..3 * FRAME_BYTES as u32 / 4 + 5)
            .flat_map(|i| {
                let mut e = u64::from(i * 7).to_le_bytes().to_vec();
                e.extend_from_slice(&(i % 5).to_le_bytes());
                e
            })
            .collect();
        let raw = &raw[..raw.len() / stride * stride];
        let mut bytes = b"other bytes first".to_vec();
        let offset = bytes.len() as u64;
        let mut w = FrameWriter::new(&mut bytes, stride);
        w.push(raw).unwrap();
        w.flush().unwrap();
        let framed = w.written();
        std::fs::write(&path, &bytes).unwrap();
        let crc = crc32fast::hash(raw);
        let read = |file: &File| {
            let mut back = Vec::new();
            Region {
                file,
                path: &path,
                what: "a test's layers",
                offset,
                bytes: framed,
            }
            .read_checked(stride, crc, |b| back.extend_from_slice(b))
            .map(|()| back)
        };
        let file = File::open(&path).unwrap();
        assert_eq!(read(&file).unwrap(), raw);
        assert!(framed < raw.len() as u64, "{framed} bytes of frames");
        bytes[offset as usize + 40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&File::open(&path).unwrap()).unwrap_err().to_string();
        assert!(
            e.contains("a test's layers") && e.contains("layers'"),
            "{e}"
        );
    }
}
