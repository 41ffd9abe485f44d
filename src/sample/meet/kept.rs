//! What a leaf made again keeps: every layer of its walks, in memory or past the bound in a
//! file of the sampler's (`Disk`), with only the deepest table held.

use super::*;

/// Layers kept for a walk back: in memory, or, once asked, in a file of the system's temporary
/// folder (removed when they go), the last layer also in memory for the next step. A layer
/// that is a node kept in a [`NodeStore`] is not written to the file: it is read back from the
/// store (8x8 closed under 1G wrote and read again 10 GB a batch of the nodes it had read).
pub(super) struct Kept<K: Key, C: Count> {
    /// The folder of the file, where the layers go to disk.
    pub(super) dir: std::path::PathBuf,
    pub(super) mem: Vec<Table<K, C>>,
    pub(super) disk: Option<Disk>,
    pub(super) tail: Option<Table<K, C>>,
    pub(super) len: usize,
    /// Each layer's name in `store` where it is a node kept there.
    pub(super) names: Vec<Option<Vec<u8>>>,
    pub(super) store: Option<Arc<NodeStore>>,
}

/// A file of layers and where each starts, with how many states (`None`: a layer read back
/// from the store instead).
pub(super) struct Disk {
    pub(super) file: std::fs::File,
    pub(super) path: std::path::PathBuf,
    pub(super) at: Vec<Option<Placed>>,
    /// The folder's claim for this run, held while the file is there.
    pub(super) _claim: crate::durable::Claim,
}

/// Bytes a state takes in the file: its key, then its count.
pub(super) fn disk_entry<K: Key, C: Count>() -> usize {
    K::BYTES + C::BYTES
}

impl<K: Key, C: Count> Kept<K, C> {
    /// Layers that go to a file in `dir` when asked.
    pub(super) fn new(dir: &std::path::Path) -> Kept<K, C> {
        Kept::from_store(dir, None)
    }

    /// Layers of which some may be nodes kept in `store`.
    pub(super) fn from_store(dir: &std::path::Path, store: Option<Arc<NodeStore>>) -> Kept<K, C> {
        Kept {
            dir: dir.to_path_buf(),
            mem: Vec::new(),
            disk: None,
            tail: None,
            len: 0,
            names: Vec::new(),
            store,
        }
    }

    /// Keeps `layer` next; `to_disk`: every layer kept from now on goes to the file.
    pub(super) fn push(&mut self, layer: Table<K, C>, to_disk: bool) -> Result<(), Fault> {
        self.push_named(layer, to_disk, None)
    }

    /// [`Kept::push`] of a layer that is the node `name` of the store where it is `Some`:
    /// read back from there, not written to the file.
    pub(super) fn push_named(
        &mut self,
        layer: Table<K, C>,
        to_disk: bool,
        name: Option<Vec<u8>>,
    ) -> Result<(), Fault> {
        let name = name.filter(|_| self.store.is_some());
        if to_disk && self.disk.is_none() {
            // claimed for this run (the files of ended runs swept first: see `crate::durable`)
            let claim =
                crate::durable::claim(&self.dir).map_err(|e| failed(&self.dir, "write in", &e))?;
            let path = claim.dir().join(crate::durable::name(
                "sample",
                &format!("{}.layers", crate::durable::serial()),
            ));
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| failed(&path, "write", &e))?;
            let mut disk = Disk {
                file,
                path,
                at: Vec::new(),
                _claim: claim,
            };
            for (l, name) in std::mem::take(&mut self.mem).iter().zip(&self.names) {
                match name {
                    Some(_) => disk.at.push(None),
                    None => disk.write(l)?,
                }
            }
            self.disk = Some(disk);
        }
        self.len += 1;
        match &mut self.disk {
            Some(d) => {
                match name {
                    Some(_) => d.at.push(None),
                    None => d.write(&layer)?,
                }
                self.tail = Some(layer);
            }
            None => self.mem.push(layer),
        }
        self.names.push(name);
        Ok(())
    }

    /// Layer `t` read back from the file or the store (the layers are on disk).
    pub(super) fn read_back(&self, d: &Disk, t: usize) -> Result<Table<K, C>, Fault> {
        match (&self.names[t], &self.store) {
            (Some(name), Some(store)) => store.read(name).ok_or_else(|| {
                fault!(
                    "the node {} kept in '{}' could not be read back (removed or changed while the run read it)",
                    crate::sample::nodes::name(name),
                    store.dir().display()
                )
            }),
            _ => d.read(t),
        }
    }

    /// Layer `t`, borrowed or read back.
    pub(super) fn layer(&self, t: usize) -> Result<std::borrow::Cow<'_, Table<K, C>>, Fault> {
        use std::borrow::Cow;
        match (&self.disk, &self.tail) {
            (None, _) => Ok(Cow::Borrowed(&self.mem[t])),
            (Some(_), Some(tail)) if t + 1 == self.len => Ok(Cow::Borrowed(tail)),
            (Some(d), _) => self.read_back(d, t).map(Cow::Owned),
        }
    }

    /// Lets the last layer's copy in memory go where the layers are on disk (it is read back
    /// when asked for): the shared walk's last layer, once it is walked, is read only to make
    /// the roots and to walk back (8x8 open's, 182 million states, stayed resident through
    /// every batch).
    pub(super) fn spare(&mut self) {
        if self.disk.is_some() {
            self.tail = None;
        }
    }

    /// The last layer kept (`None` after [`Kept::spare`]).
    pub(super) fn last(&self) -> Option<&Table<K, C>> {
        match &self.disk {
            None => self.mem.last(),
            Some(_) => self.tail.as_ref(),
        }
    }

    /// States held in memory.
    pub(super) fn held(&self) -> u64 {
        (self.mem.iter().chain(&self.tail))
            .map(|l| l.len() as u64)
            .sum()
    }

    pub(super) fn on_disk(&self) -> bool {
        self.disk.is_some()
    }

    /// How many layers are kept.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Lets the last layer go; the one before it, read back where the layers are on disk, is
    /// the last.
    pub(super) fn pop(&mut self) -> Result<(), Fault> {
        self.len -= 1;
        self.names.pop();
        if let Some(d) = &mut self.disk {
            d.pop()?;
            self.tail = None;
        } else {
            self.mem.pop();
        }
        if let (Some(d), true) = (&self.disk, self.len > 0) {
            self.tail = Some(self.read_back(d, self.len - 1)?);
        }
        Ok(())
    }
}

/// The error of a sum of counts past a word of `C`: [`Fault::Wider`] for one word (the run is made
/// again with two).
pub(super) fn too_big<C: Count>() -> Fault {
    if C::BYTES == 8 {
        Fault::Wider
    } else {
        fault!("a count past 128 bits")
    }
}

/// What the sampler's file of layers past the bound is called in messages.
pub(super) const LAYERS_FILE: &str = "a file of the exact sampler's layers past the memory bound";

/// The failure to `action` the layers' file at `path`.
pub(super) fn failed(path: &std::path::Path, action: &'static str, e: &std::io::Error) -> Fault {
    Fault::Disk(crate::durable::DiskError::io(action, path, LAYERS_FILE, e))
}

/// States a file's layer is written a part at a time (a whole layer's bytes at once doubled
/// the memory of a layer of 80 million states as it went to disk).
pub(super) const DISK_PART: usize = 1 << 16;

impl Disk {
    /// Appends `layer` to the file, in frames (`crate::disk::frames`) with the CRC32 of its
    /// entries, as every file of tables is written.
    pub(super) fn write<K: Key, C: Count>(&mut self, layer: &Table<K, C>) -> Result<(), Fault> {
        use std::io::{Seek, SeekFrom};
        let e = disk_entry::<K, C>();
        let path = self.path.clone();
        let err = |e| failed(&path, "write", &e);
        let pos = self.file.seek(SeekFrom::End(0)).map_err(err)?;
        let mut out = crate::disk::frames::FrameWriter::new(
            std::io::BufWriter::with_capacity(1 << 20, &mut self.file),
            e,
        );
        let mut crc = crc32fast::Hasher::new();
        let mut bytes = Vec::with_capacity(DISK_PART.min(layer.len()) * e);
        for part in layer.chunks(DISK_PART) {
            bytes.clear();
            bytes.resize(part.len() * e, 0);
            for (out, x) in bytes.chunks_exact_mut(e).zip(part) {
                x.key().write(&mut out[..K::BYTES]);
                x.raw().write(&mut out[K::BYTES..]);
            }
            crc.update(&bytes);
            out.push(&bytes).map_err(err)?;
        }
        out.flush().map_err(err)?;
        let framed = out.written();
        drop(out);
        self.at.push(Some(Placed {
            pos,
            len: layer.len(),
            bytes: framed,
            crc: crc.finalize(),
        }));
        Ok(())
    }

    /// Layer `t` of the file, its frames' checksum checked.
    pub(super) fn read<K: Key, C: Count>(&self, t: usize) -> Result<Table<K, C>, Fault> {
        let placed = self.at[t].expect("a layer written to the file");
        let e = disk_entry::<K, C>();
        let mut out: Table<K, C> = Vec::with_capacity(placed.len);
        crate::disk::frames::Region {
            file: &self.file,
            path: &self.path,
            what: LAYERS_FILE,
            offset: placed.pos,
            bytes: placed.bytes,
        }
        .read_checked(e, placed.crc, |bytes| {
            out.extend(
                bytes
                    .chunks_exact(e)
                    .map(|b| Entry::new(K::read(b, K::BYTES), C::read(&b[K::BYTES..]))),
            );
        })
        .map_err(Fault::Disk)?;
        if out.len() != placed.len {
            return Err(Fault::Disk(crate::durable::DiskError::damaged(
                &self.path,
                LAYERS_FILE,
            )));
        }
        Ok(out)
    }

    /// Forgets the last layer written, and gives its bytes back.
    pub(super) fn pop(&mut self) -> Result<(), Fault> {
        if let Some(Some(placed)) = self.at.pop() {
            self.file
                .set_len(placed.pos)
                .map_err(|e| failed(&self.path, "write", &e))?;
        }
        Ok(())
    }
}

/// Where a layer is in the file: its first byte, its states, the bytes of its frames and the
/// CRC32 of its entries.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placed {
    pub(super) pos: u64,
    pub(super) len: usize,
    pub(super) bytes: u64,
    pub(super) crc: u32,
}

impl Drop for Disk {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
