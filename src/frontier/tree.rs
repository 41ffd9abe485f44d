//! Digit trees: a layer's states split by the digits of the squares a column's steps add, so
//! that a walk too large for memory is cut into parts that never meet again, without doing any
//! step twice.
//!
//! A square's *digit* is how many of its edges a walk has chosen when it is added: none, one or
//! two (an end of the path counts as one). A step adds one square with each choice of its edges
//! to squares already walked, and in a column whose squares have no edges to each other (the
//! knight's, and every leaper's whose moves all change the column) no later step of that
//! column changes it. So the states after `j` steps of a column fall apart by the digits of its
//! first `j` squares, a base-3 number `p` (the first square the most significant): the node
//! `(j, p)`. Its children are the states of its next step by that square's digit; a node's
//! states are walked on alone, and the nodes of one depth add up to the whole layer.
//!
//! Nodes larger than memory allows beside the walk below them are kept in a file ([`Spill`])
//! and read back a chunk at a time when a child is made. The forward walk cuts a column this
//! way when its layers are large ([`Run::column`]), the leaves' states going into one table at
//! the column's end; the meeting in the middle cuts its first boundary column on both sides at
//! once (see `meet.rs`).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::Run;
use super::layout::Step;
use super::state::{Key, has};
use super::table::{Batch, Bound, Builder, Layer, Limbs, Shape, Stopped};
use crate::engine::RunError;
use crate::error::Error;

/// The digit a square's code gives: the edges it has (an end of the path has one).
#[inline]
pub(crate) fn digit(code: u8) -> usize {
    has(code) as usize
}

/// A node of a digit tree: its states in memory, or in a file beside the count.
pub(crate) enum Node<K: Key> {
    Mem(Layer<K>),
    Disk(Spill<K>),
}

impl<K: Key> Node<K> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Node::Mem(l) => l.len(),
            Node::Disk(s) => s.len,
        }
    }

    /// Bytes it holds in memory.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Node::Mem(l) => l.bytes(),
            Node::Disk(_) => 0,
        }
    }
}

/// A node's states as a step reads them: a table in memory or a file.
#[derive(Clone, Copy)]
pub(crate) enum Src<'a, K: Key> {
    Mem(&'a Layer<K>),
    Disk(&'a Spill<K>),
}

impl<K: Key> Src<'_, K> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Src::Mem(l) => l.len(),
            Src::Disk(s) => s.len,
        }
    }

    /// Bytes it holds in memory.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Src::Mem(l) => l.bytes(),
            Src::Disk(_) => 0,
        }
    }

    pub(crate) fn shape(&self) -> Shape {
        match self {
            Src::Mem(l) => l.shape(),
            Src::Disk(s) => s.shape,
        }
    }
}

impl<K: Key> Node<K> {
    /// Its states as a step reads them.
    pub(crate) fn src(&self) -> Src<'_, K> {
        match self {
            Node::Mem(l) => Src::Mem(l),
            Node::Disk(s) => Src::Disk(s),
        }
    }
}

/// Removes the files of nodes a stopped run left beside the checkpoint `FILE` (`FILE.node.N`):
/// the run holding the checkpoint's lock is the only one that writes them.
pub(crate) fn remove_stale(checkpoint: &Path) {
    let dir = checkpoint
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = checkpoint.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let prefix = format!("{name}{NODE_SUFFIX}");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let stale = e.file_name().to_str().is_some_and(|f| {
                f.strip_prefix(&prefix)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
            if stale {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// What a node's file adds to the checkpoint's name, before its serial number.
pub(crate) const NODE_SUFFIX: &str = ".node.";

/// Files of spilled nodes made by this process: a serial number each.
static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A node's states in a file: each state's key bytes and count words, as a table stores them,
/// one after another. The file is this process's alone and is removed when dropped.
pub(crate) struct Spill<K: Key> {
    path: PathBuf,
    pub(crate) len: u64,
    pub(crate) shape: Shape,
    _key: std::marker::PhantomData<K>,
}

/// Bytes of states read from a spill file at a time, at most. Small next to what a bound holds
/// back for the allocations between its checks: the buffer is not checked against the bound,
/// and memory the allocator kept for reuse is zeroed, so resident, as soon as it is taken (a
/// 32 MiB buffer took `knights count 5x10 --max-memory 40M` to 53 MiB).
const CHUNK_BYTES: usize = 4 << 20;

impl<K: Key> Spill<K> {
    /// Writes `layer` to a new file whose name is `prefix` and a serial number.
    pub(crate) fn write(layer: &Layer<K>, prefix: &Path) -> Result<Spill<K>, RunError> {
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        let path = crate::store::beside(prefix, &n.to_string());
        let spill = Spill {
            path,
            len: layer.len(),
            shape: layer.shape(),
            _key: std::marker::PhantomData,
        };
        let io = |e: std::io::Error| spill_error("write", &spill.path, &e);
        let file = File::create(&spill.path).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut key = [0u8; 16];
        let kb = spill.shape.key;
        for (k, c) in layer.iter() {
            k.write(&mut key);
            out.write_all(&key[..kb]).map_err(io)?;
            out.write_all(c.bytes()).map_err(io)?;
        }
        out.flush().map_err(io)?;
        Ok(spill)
    }

    /// Calls `f` on its states a chunk at a time: the raw entries of each chunk.
    pub(crate) fn chunks(&self, mut f: impl FnMut(&[u8])) -> Result<(), RunError> {
        let io = |e: std::io::Error| spill_error("read", &self.path, &e);
        let mut file = File::open(&self.path).map_err(io)?;
        let stride = self.shape.stride();
        let mut left = self.len as usize * stride;
        let mut buf = vec![0u8; left.min((CHUNK_BYTES / stride).max(1) * stride)];
        while left > 0 {
            let n = left.min(buf.len());
            file.read_exact(&mut buf[..n]).map_err(io)?;
            f(&buf[..n]);
            left -= n;
        }
        Ok(())
    }
}

impl<K: Key> Spill<K> {
    /// Its states read back into a table in memory.
    pub(crate) fn load(&self) -> Result<Layer<K>, RunError> {
        let builder = Builder::new(self.len, self.shape, 0, Bound::new(u64::MAX), None);
        self.chunks(|bytes| {
            let per = (bytes.len() / self.shape.stride() / (rayon::current_num_threads() * 4))
                .max(1)
                * self.shape.stride();
            bytes.par_chunks(per).for_each(|part| {
                let mut batch = Batch::new(&builder);
                for (k, c) in entries::<K>(part, self.shape) {
                    batch.push(k, c);
                }
            });
        })?;
        builder.finish().map_err(|_| {
            spill_error(
                "read",
                &self.path,
                &std::io::Error::other("its counts changed"),
            )
        })
    }
}

impl<K: Key> Drop for Spill<K> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn spill_error(action: &str, path: &Path, e: &std::io::Error) -> RunError {
    Error::Invalid(format!(
        "cannot {action} '{}', a part of the count kept on disk: {e}",
        path.display()
    ))
    .into()
}

/// The raw entries of a spill chunk as states and counts.
pub(crate) fn entries<K: Key>(
    bytes: &[u8],
    shape: Shape,
) -> impl Iterator<Item = (K, Limbs<'_>)> + '_ {
    bytes
        .chunks_exact(shape.stride())
        .map(move |e| (K::read(e, shape.key), Limbs::of(&e[shape.key..])))
}

impl<K: Key> Run<'_, K> {
    /// Walks `layer` through one column of the forward walk (`steps`, the last merging mirror
    /// images where the count does), cut as a digit tree where a node holds more than
    /// `leaf_states` states: the leaves' states go into one table.
    pub(crate) fn column(
        &mut self,
        layer: &Layer<K>,
        steps: &[Step<K>],
        leaf_states: u64,
        base: usize,
    ) -> Result<Layer<K>, RunError> {
        if layer.len() <= leaf_states {
            return self.walk_all(layer, steps, base, "forward");
        }
        let out = Builder::new(layer.len() * 4, layer.shape(), 0, self.sweep.limit, None);
        let kids = self
            .sweep
            .children(Src::Mem(layer), &steps[0], None, 0, |_| true)
            .map_err(|e| self.tree_stopped(e, base))?;
        for kid in kids {
            self.column_node(&out, kid, steps, 1, leaf_states, base)?;
        }
        let stopped = out.failed();
        let bytes = out.bytes();
        let end = out
            .finish()
            .map_err(|e| self.tree_stopped(e, base + steps.len()))?;
        self.sweep.peak_bytes = self.sweep.peak_bytes.max(bytes);
        debug_assert!(!stopped);
        Ok(end)
    }

    fn column_node(
        &mut self,
        out: &Builder<K>,
        layer: Layer<K>,
        steps: &[Step<K>],
        j: usize,
        leaf_states: u64,
        base: usize,
    ) -> Result<(), RunError> {
        if layer.len() == 0 {
            return Ok(());
        }
        if layer.len() <= leaf_states || j + 1 >= steps.len() {
            let end = self.walk_all(&layer, &steps[j..], base + j, "forward")?;
            drop(layer);
            (0..end.part_count()).into_par_iter().for_each(|p| {
                let mut batch = Batch::new(out);
                for (k, c) in end.part(p) {
                    batch.push(k, c);
                }
            });
            if out.failed() {
                return Err(self.tree_stopped(
                    Stopped::Memory(out.bytes() + end.bytes()),
                    base + steps.len(),
                ));
            }
            return Ok(());
        }
        let kids = self
            .sweep
            .children(Src::Mem(&layer), &steps[j], None, 0, |_| true)
            .map_err(|e| self.tree_stopped(e, base + j))?;
        drop(layer);
        for kid in kids {
            self.column_node(out, kid, steps, j + 1, leaf_states, base)?;
        }
        Ok(())
    }

    /// Walks `layer` through `steps`, every state kept; progress as layers `base + 1, ...`.
    pub(crate) fn walk_all(
        &mut self,
        layer: &Layer<K>,
        steps: &[Step<K>],
        base: usize,
        phase: &'static str,
    ) -> Result<Layer<K>, RunError> {
        self.walk_kept(layer, steps, base, phase, &|_, _| true)
    }

    /// Walks `layer` through `steps`, keeping the states `keep(i, state)` keeps after step
    /// `i`; progress as layers `base + 1, ...` of the stage.
    pub(crate) fn walk_kept(
        &mut self,
        start: &Layer<K>,
        steps: &[Step<K>],
        base: usize,
        phase: &'static str,
        keep: &(impl Fn(usize, K) -> bool + Sync),
    ) -> Result<Layer<K>, RunError> {
        let mut layer: Option<Layer<K>> = None;
        for (i, step) in steps.iter().enumerate() {
            let from = layer.as_ref().unwrap_or(start);
            let next = match self.sweep.step(from, step, |k| keep(i, k)) {
                Ok((next, _)) => next,
                Err(e) => {
                    self.sweep.spare = None;
                    return Err(self.tree_stopped(e, base + i));
                }
            };
            self.sweep.peak_states = self.sweep.peak_states.max(next.len());
            self.progress(base + i + 1, &next, phase);
            if let Some(old) = layer.replace(next) {
                self.sweep.recycle(old);
            }
        }
        self.sweep.spare = None;
        Ok(layer.unwrap_or_else(|| start.clone()))
    }

    /// The error for a walk stopped at layer `at` of its stage: the memory needed, or the
    /// stop flag ([`Run::stopped`] tells them apart for the caller).
    pub(crate) fn tree_stopped(&self, e: Stopped, at: usize) -> RunError {
        match e {
            Stopped::Memory(b) => self.memory_error(b, at),
            Stopped::Disk => Error::Invalid(
                "a part of the count kept on disk could not be read back (a disk full, or its file removed)".into(),
            )
            .into(),
            _ => Error::Invalid("the count was interrupted".into()).into(),
        }
    }
}
