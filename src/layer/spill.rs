//! Tables on disk: the files a layer goes to when memory is short, and how they are read back.
//!
//! A layer is held in memory (a hash table) or in a file of its states one after another
//! ([`Spill`]), read back a chunk at a time by whatever walks it (`Node` in `layer/mod.rs`). A
//! table being filled past its share of the memory bound writes a partition at a time to that
//! partition's file of *runs* ([`Runs`]) and goes on in the memory it freed; when the layer is
//! done, each partition's runs are combined in memory on their own (equal states added) and
//! appended to one [`Spill`] by a [`SpillWriter`] (see `Builder::finish_node` in `builder.rs`). A
//! partition is a 64th to a 512th of the layer, split further by more bits of the hash where its
//! runs are larger than memory allows, so the memory a step holds is set by the bound, not by
//! the layer.
//!
//! Files hold *frames* (`crate::disk::frames`), made and read back on every thread, with a
//! CRC32 of their entries' bytes checked as they are read back: a damaged file (a frame that
//! does not decode, or a sum that fails) stops the
//! count, and nothing read from it is kept. Files are this run's alone, in the scratch folder
//! ([`Scratch`]), named by the run's identity and claimed by its lock (`crate::durable`), and
//! are removed when dropped; those a killed run left are removed by the next count that uses
//! the folder, on this machine or any other that shares it ([`Scratch::remove_stale`]).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use crate::disk::frames::{FrameWriter, encode, read_checked};
use crate::disk::scratch::{Scratch, create_new, failed};
use crate::durable::DiskError;
use crate::walk::entry::{Limbs, Shape};
use crate::walk::state::Key;

/// A layer's states in a file: each state's key bytes and count words, as a table stores them,
/// in frames (`crate::disk::frames`), with no state twice. The file is this run's alone and is removed
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
    use crate::disk::frames::FRAME_BYTES;
    use crate::durable;
    use std::sync::atomic::Ordering;

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
