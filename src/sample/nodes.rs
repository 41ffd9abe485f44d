//! The right half's nodes of a count met in the middle, kept in a folder (`sample --nodes DIR`)
//! so that later runs read them instead of making them again.
//!
//! A batch of exact 8x8 closed tours spends most of its time making the nodes of the digit
//! tree above the leaves it lands in, and nearly all of that on the right half's (a node is
//! its parent walked one square, by one digit: 5 million states made for each of some 400
//! nodes a batch of 200 visits). Read from a file, a node costs a tenth of that. The whole
//! right tree of 8x8 closed is 1,454 nodes, 519 million states, 8.2 GiB here.
//!
//! A node is one file, `y-FINGERPRINT-DIGITS.node`: a header (what it is, of which count, how
//! many states, the bytes of its frames, the checks), then its states in the table's own
//! order, each its key's bytes and its count's words (one where every count of the node fits a
//! word), little-endian, in frames (`crate::disk::frames`, as every file of tables). The
//! fingerprint names the count (board, piece, kind, cut, rules), so that one folder holds the
//! nodes of several; the checks (CRC-32 of the header's fields, and of the states' bytes) make a
//! damaged file, or one cut short, read as missing: it is made again and written over. A node
//! of the format before frames (`KNNODE01`) reads as missing too, said once. Files are written
//! by the one atomic replace (`crate::durable::replace_with`), so that a run stopped part-way
//! leaves no half file (its temporaries are named by its run identity; those of runs killed
//! while they wrote are removed, once their lock is free: see `crate::durable`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::count::report::human_bytes;
use crate::walk::state::Key;

use super::entry::{Count, Entry};
use super::fault::{Fault, fault};

/// The first bytes of a node file.
const MAGIC: &[u8; 8] = b"KNNODE02";

/// The first bytes of a node file of the format before frames (states as they are).
const MAGIC_BEFORE_FRAMES: &[u8; 8] = b"KNNODE01";

/// Bytes of the header: the magic, the fingerprint, the header's check, the depth, the key's
/// bytes, the count's words, the digits, the states, the bytes of the frames, the states'
/// check, and four bytes kept zero.
const HEADER: usize = 8 + 4 + 4 + 4 + 8 + 8 + 8 + 4 + 4;

/// What a node file is called in messages.
const NODE_FILE: &str = "a node of the exact sampler's digit tree";

/// Free space a node is not written into (the rest of the machine needs some).
const RESERVE: u64 = 1 << 30;

/// A folder of nodes of one count.
pub(crate) struct NodeStore {
    dir: PathBuf,
    fingerprint: u32,
    /// Bytes of a key in a file (the window's, not the type's).
    key_bytes: usize,
    /// False once a write failed or the disk filled: the nodes are made as needed from then on.
    writing: AtomicBool,
    /// Why writing stopped, said once.
    tell: Option<fn(&str)>,
    /// Whether a node of the format before frames was found (said once).
    told_before_frames: AtomicBool,
    /// The folder claimed for this run while it writes there.
    _claim: crate::durable::Claim,
}

/// What a file's header says.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    fingerprint: u32,
    check: u32,
    depth: u8,
    key_bytes: u8,
    limbs: u8,
    digits: u64,
    states: u64,
    /// Bytes of its frames, and the CRC-32 of its states' bytes.
    frames: u64,
    states_check: u32,
}

impl Header {
    fn bytes(&self) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&self.fingerprint.to_le_bytes());
        b[12..16].copy_from_slice(&self.check.to_le_bytes());
        b[16] = self.depth;
        b[17] = self.key_bytes;
        b[18] = self.limbs;
        b[20..28].copy_from_slice(&self.digits.to_le_bytes());
        b[28..36].copy_from_slice(&self.states.to_le_bytes());
        b[36..44].copy_from_slice(&self.frames.to_le_bytes());
        b[44..48].copy_from_slice(&self.states_check.to_le_bytes());
        b
    }

    fn parse(b: &[u8]) -> Option<Header> {
        if b.len() < HEADER || &b[..8] != MAGIC {
            return None;
        }
        let word = |r: std::ops::Range<usize>| -> Option<u64> {
            Some(u64::from_le_bytes(b[r].try_into().ok()?))
        };
        let half = |r: std::ops::Range<usize>| -> Option<u32> {
            Some(u32::from_le_bytes(b[r].try_into().ok()?))
        };
        Some(Header {
            fingerprint: half(8..12)?,
            check: half(12..16)?,
            depth: b[16],
            key_bytes: b[17],
            limbs: b[18],
            digits: word(20..28)?,
            states: word(28..36)?,
            frames: word(36..44)?,
            states_check: half(44..48)?,
        })
        .filter(|h| h.check == h.check() && b[19] == 0 && b[48..HEADER] == [0; 4])
    }

    /// The check of the header's fields (the check itself left out).
    fn check(&self) -> u32 {
        let mut b = self.bytes();
        b[12..16].fill(0);
        crc32fast::hash(&b)
    }
}

/// Node `digits` as its files and messages name it: a digit a character.
pub(crate) fn name(digits: &[u8]) -> String {
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// Digits `0..=2` as one base-3 number.
fn number(digits: &[u8]) -> u64 {
    digits.iter().fold(0, |a, &d| a * 3 + u64::from(d))
}

impl NodeStore {
    /// The folder `dir` (made where it does not exist) for the nodes of the count `fingerprint`.
    pub(crate) fn open(
        dir: &Path,
        fingerprint: u32,
        key_bytes: usize,
        tell: Option<fn(&str)>,
    ) -> Result<NodeStore, Fault> {
        // a folder the user named that cannot be made or written is theirs to change (said in
        // words, exit code 2), not a failure of the machine's
        std::fs::create_dir_all(dir)
            .map_err(|e| fault!("cannot make the nodes folder '{}': {e}", dir.display()))?;
        // (the claim sweeps what runs killed while they wrote left)
        let claim = crate::durable::claim(dir)
            .map_err(|e| fault!("cannot write in the nodes folder '{}': {e}", dir.display()))?;
        Ok(NodeStore {
            dir: dir.to_path_buf(),
            fingerprint,
            key_bytes,
            writing: AtomicBool::new(true),
            tell,
            told_before_frames: AtomicBool::new(false),
            _claim: claim,
        })
    }

    /// The folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, digits: &[u8]) -> PathBuf {
        self.dir
            .join(format!("y-{:08x}-{}.node", self.fingerprint, name(digits)))
    }

    /// The file of node `digits`, read past its header, where it is there, its header says it
    /// is that node of this count, and its length is the header's (one cut short or grown is
    /// missing too); its states are checked only when read.
    fn open_node(&self, digits: &[u8]) -> Option<(std::fs::File, Header, u64)> {
        let mut f = std::fs::File::open(self.path(digits)).ok()?;
        let mut b = [0u8; HEADER];
        f.read_exact(&mut b).ok()?;
        if &b[..8] == MAGIC_BEFORE_FRAMES && !self.told_before_frames.swap(true, Ordering::Relaxed)
        {
            if let Some(tell) = self.tell {
                tell(&format!(
                    "the nodes folder '{}' holds nodes of the format before frames (KNNODE01, builds before the frames of every table file): they are made again and written in today's",
                    self.dir.display()
                ));
            }
        }
        let h = Header::parse(&b)?;
        let len = f.metadata().ok()?.len();
        (h.fingerprint == self.fingerprint
            && usize::from(h.depth) == digits.len()
            && h.digits == number(digits)
            && usize::from(h.key_bytes) == self.key_bytes
            && matches!(h.limbs, 1 | 2)
            && Some(len) == self.length(&h))
        .then_some((f, h, len))
    }

    /// Whether node `digits` has a file that names it, and its bytes.
    pub(crate) fn present(&self, digits: &[u8]) -> Option<u64> {
        self.open_node(digits).map(|(_, _, len)| len)
    }

    /// The length of a file with header `h` (`None`: past any file).
    fn length(&self, h: &Header) -> Option<u64> {
        h.frames.checked_add(HEADER as u64)
    }

    fn entry(&self, limbs: u8) -> usize {
        self.key_bytes + 8 * usize::from(limbs)
    }

    /// Node `digits` in its table's order, or `None` where it has no file or its file fails
    /// its checks (it is made again then, and written over). Its frames are read a chunk at a
    /// time and decoded on every thread.
    /// A node with counts of two words reads as `None` into counts of one (made again, the
    /// run finds a count past the word).
    pub(crate) fn read<K: Key, C: Count>(&self, digits: &[u8]) -> Option<Vec<Entry<K, C>>> {
        let (f, h, _) = self.open_node(digits)?;
        if usize::from(h.limbs) * 8 > C::BYTES {
            return None;
        }
        let e = self.entry(h.limbs);
        let states = usize::try_from(h.states).ok()?;
        let kb = self.key_bytes;
        let wide = h.limbs == 2;
        let decode = |b: &[u8]| {
            let mut key = [0u8; 16];
            key[..kb].copy_from_slice(&b[..kb]);
            let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
            let hi = if wide { word(kb + 8) } else { 0 };
            let c = u128::from(word(kb)) | (u128::from(hi) << 64);
            Entry::new(
                K::read(&key, kb),
                C::new(c).expect("a count of the node's words"),
            )
        };
        let mut out: Vec<Entry<K, C>> = Vec::with_capacity(states.min(1 << 24));
        let path = self.path(digits);
        let mut over = false;
        crate::disk::frames::Region {
            file: &f,
            path: &path,
            what: NODE_FILE,
            offset: HEADER as u64,
            bytes: h.frames,
        }
        .read_checked(e, h.states_check, |bytes| {
            over |= out.len() + bytes.len() / e > states;
            if !over {
                out.par_extend(bytes.par_chunks_exact(e).map(decode));
            }
        })
        .ok()?;
        (!over && out.len() == states).then_some(out)
    }

    /// Writes node `digits` (where writing has not stopped): beside its place, then renamed.
    /// A write that fails, or a disk with less than a node and a reserve free, stops the
    /// writing for the rest of the run, said once: the sampler goes on making its nodes.
    /// Whether it was written.
    pub(crate) fn write<K: Key, C: Count>(&self, digits: &[u8], table: &[Entry<K, C>]) -> bool {
        if !self.writing.load(Ordering::Relaxed) {
            return false;
        }
        let limbs: u8 = if C::BYTES == 8 || table.par_iter().all(|e| e.count() >> 64 == 0) {
            1
        } else {
            2
        };
        let e = self.entry(limbs);
        let kb = self.key_bytes;
        let mut raw = vec![0u8; table.len() * e];
        raw.par_chunks_exact_mut(e)
            .zip(table.par_iter())
            .for_each(|(out, e)| {
                let (k, c) = (e.key(), e.count());
                let mut key = [0u8; 16];
                k.write(&mut key);
                out[..kb].copy_from_slice(&key[..kb]);
                out[kb..kb + 8].copy_from_slice(&(c as u64).to_le_bytes());
                if limbs == 2 {
                    out[kb + 8..kb + 16].copy_from_slice(&((c >> 64) as u64).to_le_bytes());
                }
            });
        let mut frames = Vec::new();
        let mut w = crate::disk::frames::FrameWriter::new(&mut frames, e);
        w.push(&raw)
            .and_then(|()| w.flush())
            .expect("frames made in memory");
        let states_check = crc32fast::hash(&raw);
        drop(raw);
        let mut h = Header {
            fingerprint: self.fingerprint,
            check: 0,
            depth: u8::try_from(digits.len()).expect("a tree of at most 255 digits"),
            key_bytes: u8::try_from(kb).expect("a key of at most 16 bytes"),
            limbs,
            digits: number(digits),
            states: table.len() as u64,
            frames: frames.len() as u64,
            states_check,
        };
        h.check = h.check();
        let free = || -> u64 {
            fail::fail_point!("sample-nodes-full", |_| 0);
            fs4::available_space(&self.dir).unwrap_or(u64::MAX)
        };
        let free = free();
        if free < (HEADER + frames.len()) as u64 + RESERVE {
            self.stop(&format!(
                "the nodes folder '{}' has {} free, less than a node and a reserve of {}",
                self.dir.display(),
                human_bytes(free),
                human_bytes(RESERVE)
            ));
            return false;
        }
        let path = self.path(digits);
        let written = crate::durable::replace_with(&path, |f| {
            f.write_all(&h.bytes())?;
            f.write_all(&frames)
        });
        match written {
            Ok(()) => true,
            Err(err) => {
                let err = match err {
                    crate::durable::CheckpointError::Io { source, .. } => source.to_string(),
                    e => e.to_string(),
                };
                self.stop(&format!("cannot write '{}': {err}", path.display()));
                false
            }
        }
    }

    /// Whether nodes are still written.
    pub(crate) fn writing(&self) -> bool {
        self.writing.load(Ordering::Relaxed)
    }

    fn stop(&self, why: &str) {
        if self.writing.swap(false, Ordering::Relaxed) {
            if let Some(tell) = self.tell {
                tell(&format!(
                    "{why}: the right half's nodes are made as they are needed from here on, and not kept"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<K: Key>(n: usize, wide: bool, key: impl Fn(usize) -> K) -> Vec<Entry<K, u128>> {
        (0..n)
            .map(|i| {
                let c = 1 + i as u128 * 7919;
                Entry::new(key(i), if wide && i % 3 == 0 { c << 70 } else { c })
            })
            .collect()
    }

    /// A node read back is the node written, in its order, with counts of one word or two and
    /// keys of the window's bytes; another node's name, another count's fingerprint or another
    /// window finds nothing.
    #[test]
    fn a_node_reads_back_as_it_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = NodeStore::open(dir.path(), 0xfeed, 9, None).unwrap();
        let narrow = table::<u128>(5000, false, |i| (i as u128 * 0x1_0000_0001) % (1 << 68));
        let wide = table::<u128>(3000, true, |i| (i as u128) << 60);
        store.write(&[0, 2], &narrow);
        store.write(&[1], &wide);
        store.write(&[2, 2, 1], &Vec::<Entry<u128, u128>>::new());
        assert!(store.writing());
        assert_eq!(store.read::<u128, u128>(&[0, 2]), Some(narrow.clone()));
        assert_eq!(store.read::<u128, u128>(&[1]), Some(wide));
        assert_eq!(store.read::<u128, u128>(&[2, 2, 1]), Some(Vec::new()));
        // one word a count where they fit (9 + 8 bytes a state, two words 9 + 16), in frames
        // smaller than the states' bytes
        let narrow_bytes = store.present(&[0, 2]).unwrap();
        let wide_bytes = store.present(&[1]).unwrap();
        assert!(narrow_bytes > HEADER as u64 && narrow_bytes < HEADER as u64 + 5000 * 17);
        assert!(wide_bytes > HEADER as u64 && wide_bytes < HEADER as u64 + 3000 * 25);
        let file = std::fs::read(store.path(&[1])).unwrap();
        assert_eq!(&file[..8], MAGIC);
        assert_eq!(
            u64::from_le_bytes(file[36..44].try_into().unwrap()),
            wide_bytes - HEADER as u64
        );
        assert_eq!(store.read::<u128, u128>(&[2, 0]), None);
        // read into one-word counts: the node of one-word counts as it was, the other not at
        // all; and written from one-word counts, the same file
        let one = |t: &[Entry<u128, u128>]| -> Vec<Entry<u128, u64>> {
            t.iter()
                .map(|e| Entry::new(e.key(), u64::new(e.count()).unwrap()))
                .collect()
        };
        assert_eq!(store.read::<u128, u64>(&[0, 2]), Some(one(&narrow)));
        assert_eq!(store.read::<u128, u64>(&[1]), None);
        let before = std::fs::read(store.path(&[0, 2])).unwrap();
        store.write(&[0, 2], &one(&narrow));
        assert_eq!(std::fs::read(store.path(&[0, 2])).unwrap(), before);
        // the file of node [0, 2] under the name of [0, 1]: its header names [0, 2]
        std::fs::copy(store.path(&[0, 2]), store.path(&[0, 1])).unwrap();
        assert_eq!(store.read::<u128, u128>(&[0, 1]), None);
        let other = NodeStore::open(dir.path(), 0xbeef, 9, None).unwrap();
        assert_eq!(other.read::<u128, u128>(&[0, 2]), None);
        let window = NodeStore::open(dir.path(), 0xfeed, 8, None).unwrap();
        assert_eq!(window.read::<u128, u128>(&[0, 2]), None);
        // keys of a u64 window
        let small = NodeStore::open(dir.path(), 7, 7, None).unwrap();
        let t = table::<u64>(1000, false, |i| i as u64 * 0x0123_4567 % (1 << 56));
        small.write(&[2], &t);
        assert_eq!(small.read::<u64, u128>(&[2]), Some(t));
    }

    /// Every single damage of a node file (cut at any byte, any bit flipped, ...) reads as
    /// missing or as the node itself, never as another table.
    #[test]
    fn no_single_damage_makes_a_node_read_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let store = NodeStore::open(dir.path(), 0xfeed, 3, None).unwrap();
        let t = table::<u64>(40, true, |i| i as u64 * 977 % (1 << 24));
        store.write(&[1, 0], &t);
        let path = store.path(&[1, 0]);
        let good = std::fs::read(&path).unwrap();
        let variants = crate::damage::single(&good, &[b"y-000 1\n"]);
        assert!(variants.len() > 2000, "{}", variants.len());
        for v in variants {
            std::fs::write(&path, &v).unwrap();
            match store.read::<u64, u128>(&[1, 0]) {
                None => {}
                Some(read) => assert_eq!(read, t, "a damaged file read as another table"),
            }
        }
    }

    /// A node of the format before frames (`KNNODE01`) reads as missing, made again and written
    /// in today's, and the folder's old format is said once.
    #[test]
    fn a_node_of_the_format_before_frames_is_made_again_and_said_once() {
        static SAID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn tell(why: &str) {
            assert!(why.contains("KNNODE01"), "{why}");
            SAID.fetch_add(1, Ordering::Relaxed);
        }
        let dir = tempfile::tempdir().unwrap();
        let store = NodeStore::open(dir.path(), 0xfeed, 3, Some(tell)).unwrap();
        let t = table::<u64>(40, false, |i| i as u64 * 977 % (1 << 24));
        for digits in [&[0u8][..], &[1]] {
            let mut old = MAGIC_BEFORE_FRAMES.to_vec();
            old.resize(36 + 40 * 11, 0);
            std::fs::write(store.path(digits), &old).unwrap();
            assert_eq!(store.read::<u64, u128>(digits), None);
        }
        assert_eq!(SAID.load(Ordering::Relaxed), 1);
        assert!(store.write(&[0], &t));
        assert_eq!(store.read::<u64, u128>(&[0]), Some(t));
    }
}
