//! Exact uniform sampling inside a count met in the middle: boards whose plain layers are past
//! any memory (8x8 closed, 7x8 open), drawn from the structure the count itself uses.
//!
//! The count ([`crate::frontier::meet_leaves`]) cuts the board after `c` columns, carries the
//! left half across the boundary columns (the *crossing*), walks the right half (the same
//! forward walk, mirrored end to end) through its last column, and cuts both sides into the
//! leaves of a digit tree, each leaf a join of crossing states with right states whose counts
//! multiply. A tour is drawn in four steps, each in proportion to the tours below it:
//!
//! 1. a leaf, by the count the count recorded for it (a uniform rank below the total);
//! 2. within the leaf, made again from the roots with every layer kept (its nodes from the
//!    roots, one digit a step, then the rest of its walks), a pair of a crossing state and a
//!    right state that join, by the product of their counts (the same rank, read on);
//! 3. each side walked back to its root: at every step a predecessor and the choice that led
//!    from it, by the predecessor's count, from the sample's own random stream;
//! 4. each root walked back through the shared forward walk to the first square.
//!
//! A batch costs one pass over the layers it uses, not one a tour: the leaves a batch lands in
//! are made once each, in the tree's order so that the nodes above them are made once; the
//! samples wait at a node until it is let go, and are walked back through its parent's layer
//! together; the shared walk is walked back once for all of them.
//!
//! **Mirror images.** The forward walk merges each state with its mirror image (rows reversed)
//! at every column end. Walking back, a sample keeps a *flip*: its real state is the table's
//! state or its image. Where a predecessor's choice led to the image of the merged state, the
//! flip turns over, and the edges of the steps below are mirrored. A table path so read is
//! uniform over the real paths to the real state (two table paths a real one where the state
//! and its image differ, one where they are one), provided that a state which is its own image
//! takes either orientation by a fair coin: the path below it is real both ways round. The count makes one side of its roots *true*
//! (each state and its image apart, half the merged count each) and leaves the other merged, so
//! that a merged root stands for itself as it is: the sampler's tours are then those whose
//! merged side passes its root in the table's own orientation, each twice as likely, and none
//! of their mirror images. A fair coin mirrors the whole tour, which makes every tour equally
//! likely (the set of tours is closed under the mirror).
//!
//! Every leaf made again is joined again and checked against the count's record of it: a
//! difference stops the batch.
//!
//! **Memory.** A table's state takes 16 to 24 bytes with a count of one word (see
//! [`super::entry`]; two words where a count passes one, the batch made again so). The bound
//! governs what is kept (the shared walk past a quarter of it, the nodes above a leaf past a
//! quarter, a leaf's walks past a third, each then in a file of the system's temporary folder
//! with only its deepest table in memory) and the successors of a table being made (grouped
//! within what the process leaves of it); a table and the one it is made from are in memory
//! together.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::board::Board;
use crate::count::CountSpec;
use crate::count::report::human_bytes;
use crate::frontier::MeetLeaves;
use crate::frontier::expand::{
    ANY, Choice, classes, expand_choices, expand_digit, unchanged_slots,
};
use crate::frontier::join::{Boundary, SampleJoin, left_side, pair_joins, right_side};
use crate::frontier::layout::{self, Step, Walk};
use crate::frontier::state::{Key, Perm};
use crate::piece::Piece;

use super::entry::{Count, Entry};
use super::fault::{Fault, fault};
use super::layers::Links;
use super::nodes::NodeStore;
use super::{Request, below_u128, tour_rng};

/// An exact sampler that draws a batch at a time.
pub(crate) trait Batch: Send + Sync {
    /// Tours `first..first + n` of the run of `seed`: each path as board square indices, and
    /// the coin that picks an open path's direction.
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault>;
    /// The tours drawn from (undirected: closed cycles, or open paths in one direction).
    fn total(&self) -> u128;
    /// The tables in a few words.
    fn describe(&self) -> String;
}

/// What a crossing state after its step `i` needs of the right over boundary squares `0..=i`
/// (square `j` in slot `i - j`), as a number in base 3 whose digit `j` is square `j`'s need: the
/// class of `Boundary::asks` modulo `3^(i + 1)`.
fn asks<K: Key>(k: K, i: usize) -> u64 {
    (0..=i).rev().fold(0, |c, j| {
        c * 3 + crate::frontier::state::need(k.get((i - j) as u32))
    })
}

/// The first of `items` where `rank` falls, each weighing `weight` of the ranks in order
/// (`None` past their sum): how a rank picks a predecessor or a joining state by its count.
fn at_rank<T>(
    items: impl IntoIterator<Item = T>,
    mut rank: u128,
    weight: impl Fn(&T) -> u128,
) -> Option<T> {
    items.into_iter().find(|t| {
        let c = weight(t);
        if rank < c {
            true
        } else {
            rank -= c;
            false
        }
    })
}

/// A table: states sorted, each with its count.
type Table<K, C> = Vec<Entry<K, C>>;

/// The deepest node of a side's path (its roots pushed first, so never none).
fn deepest<K: Key, C: Count>(path: &Kept<K, C>) -> &Table<K, C> {
    path.last().expect("the path holds its root")
}

/// A table, with its name where it is a node kept in the [`NodeStore`].
type Named<K, C> = (Table<K, C>, Option<Vec<u8>>);

/// Bytes a state of a kept table takes.
fn entry_bytes<K: Key, C: Count>() -> u64 {
    std::mem::size_of::<Entry<K, C>>() as u64
}

/// One leaf of the count's digit tree.
struct Leaf {
    /// Its digits from the root (`0..=2` each).
    digits: Vec<u8>,
    count: u128,
    /// The leaves before it in the tree's order hold this many tours.
    start: u128,
}

struct Meet<K: Key, C: Count> {
    board: Board,
    walk: Walk,
    closed: bool,
    /// The shared forward walk's steps (merged at column ends) and every layer: `shared[t]`
    /// holds the states before square `t`, `t = 0..=end`.
    fwd: Vec<Step<K>>,
    shared: Kept<K, C>,
    xsteps: Vec<Step<K>>,
    ysteps: Vec<Step<K>>,
    lsq: usize,
    rq: usize,
    m: usize,
    w: usize,
    left_b: Boundary,
    right_b: Boundary,
    true_right: bool,
    leaves: Vec<Leaf>,
    total: u128,
    /// Bytes the sampler may hold: the whole process's bound.
    max_memory: u64,
    /// Bytes its tables may hold: the bound less what the process holds beside them (see
    /// `frontier::sizes::tables_for`), of which its shares are taken.
    room: u64,
    /// Where layers go when they pass a part of the bound (`--scratch`).
    scratch: std::path::PathBuf,
    setup: String,
    /// Where the right half's nodes are kept between runs (`--nodes`).
    nodes: Option<Arc<NodeStore>>,
}

/// Layers kept for a walk back: in memory, or, once asked, in a file of the system's temporary
/// folder (removed when they go), the last layer also in memory for the next step. A layer
/// that is a node kept in a [`NodeStore`] is not written to the file: it is read back from the
/// store (8x8 closed under 1G wrote and read again 10 GB a batch of the nodes it had read).
struct Kept<K: Key, C: Count> {
    /// The folder of the file, where the layers go to disk.
    dir: std::path::PathBuf,
    mem: Vec<Table<K, C>>,
    disk: Option<Disk>,
    tail: Option<Table<K, C>>,
    len: usize,
    /// Each layer's name in `store` where it is a node kept there.
    names: Vec<Option<Vec<u8>>>,
    store: Option<Arc<NodeStore>>,
}

/// A file of layers and where each starts, with how many states (`None`: a layer read back
/// from the store instead).
struct Disk {
    file: std::fs::File,
    path: std::path::PathBuf,
    at: Vec<Option<(u64, usize)>>,
    /// The folder's claim for this run, held while the file is there.
    _claim: crate::durable::Claim,
}

/// Bytes a state takes in the file: its key, then its count.
fn disk_entry<K: Key, C: Count>() -> usize {
    K::BYTES + C::BYTES
}

impl<K: Key, C: Count> Kept<K, C> {
    /// Layers that go to a file in `dir` when asked.
    fn new(dir: &std::path::Path) -> Kept<K, C> {
        Kept::from_store(dir, None)
    }

    /// Layers of which some may be nodes kept in `store`.
    fn from_store(dir: &std::path::Path, store: Option<Arc<NodeStore>>) -> Kept<K, C> {
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
    fn push(&mut self, layer: Table<K, C>, to_disk: bool) -> Result<(), Fault> {
        self.push_named(layer, to_disk, None)
    }

    /// [`Kept::push`] of a layer that is the node `name` of the store where it is `Some`:
    /// read back from there, not written to the file.
    fn push_named(
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
    fn read_back(&self, d: &Disk, t: usize) -> Result<Table<K, C>, Fault> {
        match (&self.names[t], &self.store) {
            (Some(name), Some(store)) => store.read(name).ok_or_else(|| {
                fault!(
                    "the node {} kept in '{}' could not be read back (removed or changed while the run read it)",
                    super::nodes::name(name),
                    store.dir().display()
                )
            }),
            _ => d.read(t),
        }
    }

    /// Layer `t`, borrowed or read back.
    fn layer(&self, t: usize) -> Result<std::borrow::Cow<'_, Table<K, C>>, Fault> {
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
    fn spare(&mut self) {
        if self.disk.is_some() {
            self.tail = None;
        }
    }

    /// The last layer kept (`None` after [`Kept::spare`]).
    fn last(&self) -> Option<&Table<K, C>> {
        match &self.disk {
            None => self.mem.last(),
            Some(_) => self.tail.as_ref(),
        }
    }

    /// States held in memory.
    fn held(&self) -> u64 {
        (self.mem.iter().chain(&self.tail))
            .map(|l| l.len() as u64)
            .sum()
    }

    fn on_disk(&self) -> bool {
        self.disk.is_some()
    }

    /// How many layers are kept.
    fn len(&self) -> usize {
        self.len
    }

    /// Lets the last layer go; the one before it, read back where the layers are on disk, is
    /// the last.
    fn pop(&mut self) -> Result<(), Fault> {
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
fn too_big<C: Count>() -> Fault {
    if C::BYTES == 8 {
        Fault::Wider
    } else {
        fault!("a count past 128 bits")
    }
}

/// What the sampler's file of layers past the bound is called in messages.
const LAYERS_FILE: &str = "a file of the exact sampler's layers past the memory bound";

/// The failure to `action` the layers' file at `path`.
fn failed(path: &std::path::Path, action: &'static str, e: &std::io::Error) -> Fault {
    Fault::Disk(crate::durable::DiskError::io(action, path, LAYERS_FILE, e))
}

/// States a file's layer is written or read a part at a time (a whole layer's bytes at once
/// doubled the memory of a layer of 80 million states as it went to disk).
const DISK_PART: usize = 1 << 16;

impl Disk {
    fn write<K: Key, C: Count>(&mut self, layer: &Table<K, C>) -> Result<(), Fault> {
        use std::io::{Seek, SeekFrom, Write};
        let e = disk_entry::<K, C>();
        let err = |e| failed(&self.path, "write", &e);
        let pos = self.file.seek(SeekFrom::End(0)).map_err(err)?;
        let mut bytes = Vec::with_capacity(DISK_PART.min(layer.len()) * e);
        for part in layer.chunks(DISK_PART) {
            bytes.clear();
            bytes.resize(part.len() * e, 0);
            for (out, x) in bytes.chunks_exact_mut(e).zip(part) {
                x.key().write(&mut out[..K::BYTES]);
                x.raw().write(&mut out[K::BYTES..]);
            }
            self.file.write_all(&bytes).map_err(err)?;
        }
        self.at.push(Some((pos, layer.len())));
        Ok(())
    }

    fn read<K: Key, C: Count>(&self, t: usize) -> Result<Table<K, C>, Fault> {
        use std::os::unix::fs::FileExt;
        let (pos, len) = self.at[t].expect("a layer written to the file");
        let e = disk_entry::<K, C>();
        let mut out: Table<K, C> = Vec::with_capacity(len);
        let mut bytes = Vec::with_capacity(DISK_PART.min(len) * e);
        let mut at = pos;
        while out.len() < len {
            let n = DISK_PART.min(len - out.len());
            bytes.resize(n * e, 0);
            self.file
                .read_exact_at(&mut bytes, at)
                .map_err(|e| failed(&self.path, "read", &e))?;
            at += bytes.len() as u64;
            out.extend(
                bytes
                    .chunks_exact(e)
                    .map(|b| Entry::new(K::read(b, K::BYTES), C::read(&b[K::BYTES..]))),
            );
        }
        Ok(out)
    }

    /// Forgets the last layer written, and gives its bytes back.
    fn pop(&mut self) -> Result<(), Fault> {
        if let Some(Some((pos, _))) = self.at.pop() {
            self.file
                .set_len(pos)
                .map_err(|e| failed(&self.path, "write", &e))?;
        }
        Ok(())
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A sample on its way: its random stream and rank, the states of its two sides and where they
/// stand, and the edges chosen so far (board walk numbers).
struct Sample<K> {
    rng: fastrand::Rng,
    rank: u128,
    leaf: usize,
    side: [Walker<K>; 2],
    edges: Vec<(u32, u32)>,
}

/// One side of a sample: its state in the table it stands in, and whether its real state is
/// that state's mirror image.
#[derive(Clone, Copy, Default)]
struct Walker<K> {
    key: K,
    flip: bool,
}

/// The left side (the crossing's) and the right side of a sample.
const LEFT: usize = 0;
const RIGHT: usize = 1;

/// Builds the sampler: the count met in the middle, with its leaves, and the shared walk's
/// layers kept. An error says why it does not apply or does not fit.
pub(crate) fn build(board: Board, piece: &Piece, req: &Request) -> Result<Box<dyn Batch>, Fault> {
    if req.from.is_some() {
        return Err("a count met in the middle counts tours from every square".into());
    }
    let walk = Walk::new(board, piece, false);
    if walk.window() > crate::frontier::MAX_WINDOW {
        return Err(fault!(
            "the frontier window of {board} is {} squares; its tables handle up to {}",
            walk.window(),
            crate::frontier::MAX_WINDOW
        ));
    }
    // for the fixed threads of the choice, whatever -j (the sampler then runs on those the
    // bound holds: `Sampler::new`), so that a seed's tours are the same with any
    crate::frontier::check_sample_floor(board, &walk, req.max_memory, super::CHOICE_THREADS)?;
    let spec = CountSpec {
        closed: req.closed,
        symmetry: true,
        ..CountSpec::default()
    };
    let t = std::time::Instant::now();
    let kept = req.leaves.as_deref().filter(|p| p.exists());
    // where the count's leaves or nodes will be written, checked before the count (a folder
    // this user may not write in failed only once it was done)
    if let Some(path) = req.leaves.as_deref().filter(|_| kept.is_none()) {
        crate::store::writable(path).map_err(|e| {
            fault!(
                "cannot write the leaves file '{}' ({e}): give --leaves a path in a folder this user may write; nothing was counted",
                path.display()
            )
        })?;
    }
    if let Some(dir) = &req.nodes {
        std::fs::create_dir_all(dir)
            .and_then(|()| crate::store::writable(&dir.join("node")))
            .map_err(|e| {
                fault!(
                    "cannot write in the nodes folder '{}' ({e}): give --nodes a folder this user may write; nothing was counted",
                    dir.display()
                )
            })?;
    }
    let (log, read) = match kept {
        Some(path) => (LeavesFile::read(path, board, piece, req.closed)?, true),
        None => {
            let log = crate::frontier::meet_leaves(board, piece, &spec, req.max_memory, None)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| {
                    format!("the frontier count of {board} does not meet in the middle")
                })?;
            if let Some(path) = &req.leaves {
                LeavesFile::write(path, board, piece, req.closed, &log)?;
            }
            (log, false)
        }
    };
    // the count's tables are freed: the allocator gives them back before the sampler makes its
    // own (it keeps freed memory for minutes, and 8x8 open's count and sampler together passed
    // 24 GiB)
    crate::frontier::give_back();
    let origin = match &req.leaves {
        Some(path) if read => format!("read from '{}'", path.display()),
        _ => format!("counted in {:.1} s", t.elapsed().as_secs_f64()),
    };
    let nodes = match &req.nodes {
        Some(dir) => Some(NodeStore::open(
            dir,
            fingerprint(board, piece, req.closed, &log)?,
            walk.key_bytes(),
            req.tell,
        )?),
        None => None,
    };
    make(board, walk, req, log, &origin, None, nodes)
}

/// What names a count met in the middle for its kept nodes: the CRC-32 of its board, piece,
/// kind, cut and rules (the nodes of a count depend on these alone).
fn fingerprint(board: Board, piece: &Piece, closed: bool, log: &MeetLeaves) -> Result<u32, Fault> {
    let what = serde_json::to_string(&(
        board.to_string(),
        piece.to_string(),
        closed,
        log.cut,
        log.true_right,
        &log.rules,
    ))
    .map_err(|e| e.to_string())?;
    Ok(crc32fast::hash(what.as_bytes()))
}

/// The leaves of a count met in the middle in a file (`sample --leaves FILE`), so that later
/// runs draw without counting again: the cut, the rules and every leaf's count, as JSON on one
/// line, then a line with the CRC-32 of the first (a file that fails it is refused: a leaf's
/// count wrong would make the tours of every other leaf more or less likely than they are, and
/// only the leaves a batch lands in are checked when they are made again).
#[derive(serde::Serialize, serde::Deserialize)]
struct LeavesFile {
    format: String,
    board: String,
    piece: String,
    closed: bool,
    cut: (u32, u32, u32),
    true_right: bool,
    rules: layout::Rules,
    /// Depth, digits (a base-3 number) and count of each leaf.
    leaves: Vec<(usize, u64, String)>,
    total: String,
}

/// The most bytes a leaves file is read for (a million leaves at about 25 bytes each, far past
/// any count met in the middle this engine makes).
const LEAVES_BYTES: u64 = 64 << 20;

/// What the first field of a leaves file says.
const LEAVES_FORMAT: &str = "knights sample leaves 1";

impl LeavesFile {
    fn write(
        path: &std::path::Path,
        board: Board,
        piece: &Piece,
        closed: bool,
        log: &MeetLeaves,
    ) -> Result<(), Fault> {
        let total: num_bigint::BigUint = log.leaves.iter().map(|l| &l.2).sum();
        let body = LeavesFile {
            format: LEAVES_FORMAT.into(),
            board: board.to_string(),
            piece: piece.to_string(),
            closed,
            cut: log.cut,
            true_right: log.true_right,
            rules: log.rules.clone(),
            leaves: (log.leaves.iter())
                .map(|(j, p, c)| (*j, *p, c.to_string()))
                .collect(),
            total: total.to_string(),
        };
        let line = serde_json::to_string(&body).map_err(|e| e.to_string())?;
        let text = format!("{line}\n{:08x}\n", crc32fast::hash(line.as_bytes()));
        // written whole beside it, then renamed: a run stopped part-way leaves no half file
        crate::store::replace(path, text.as_bytes()).map_err(|e| match e {
            crate::store::CheckpointError::Io { source, .. } => Fault::Disk(
                crate::durable::DiskError::io("write", path, "the leaves file", &source),
            ),
            e => fault!("{e}"),
        })
    }

    fn read(
        path: &std::path::Path,
        board: Board,
        piece: &Piece,
        closed: bool,
    ) -> Result<MeetLeaves, Fault> {
        let shown = path.display();
        // read no further than a leaves file goes (8x8 closed's 970 leaves are 21 KB): a path
        // given by mistake to something endless is refused, not read for ever
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| {
                use std::io::Read;
                f.take(LEAVES_BYTES + 1).read_to_string(&mut text)
            })
            .map_err(|e| fault!("cannot read the leaves file '{shown}': {e}"))?;
        if text.len() as u64 > LEAVES_BYTES {
            return Err(fault!(
                "'{shown}' is larger than a leaves file can be ({}): give another path",
                human_bytes(LEAVES_BYTES)
            ));
        }
        let damaged = |why: &str| {
            format!(
                "'{shown}' is not a leaves file as this program writes them, or is damaged ({why}): give another path (a run given one that does not exist counts and writes it there)"
            )
        };
        let (line, check) = text
            .trim_end()
            .rsplit_once('\n')
            .ok_or_else(|| damaged("no check line"))?;
        if u32::from_str_radix(check, 16).ok() != Some(crc32fast::hash(line.as_bytes())) {
            return Err(damaged("its check fails").into());
        }
        let body: LeavesFile = serde_json::from_str(line).map_err(|e| damaged(&e.to_string()))?;
        if body.format != LEAVES_FORMAT {
            return Err(fault!(
                "'{shown}' is not a leaves file of this version (it says '{}'; '{LEAVES_FORMAT}' expected)",
                body.format
            ));
        }
        let kind = |c: bool| if c { "closed" } else { "open" };
        if (body.board.as_str(), body.piece.as_str(), body.closed)
            != (
                board.to_string().as_str(),
                piece.to_string().as_str(),
                closed,
            )
        {
            return Err(fault!(
                "the leaves file '{shown}' holds {} tours of {} by the {}, not {} tours of {board} by the {piece}: give another file",
                kind(body.closed),
                body.board,
                body.piece,
                kind(closed)
            ));
        }
        let mut leaves = Vec::with_capacity(body.leaves.len());
        for (j, p, c) in body.leaves {
            let c: num_bigint::BigUint = c.parse().map_err(|_| damaged("a count"))?;
            leaves.push((j, p, c));
        }
        let total: num_bigint::BigUint = leaves.iter().map(|l| &l.2).sum();
        if total.to_string() != body.total {
            return Err(damaged("its leaves do not add up to its total").into());
        }
        Ok(MeetLeaves {
            cut: body.cut,
            true_right: body.true_right,
            leaves,
            rules: body.rules,
            pieces: std::collections::BTreeMap::new(),
        })
    }
}

/// The sampler of the leaves `log` holds, keyed by the window's width.
fn make(
    board: Board,
    walk: Walk,
    req: &Request,
    log: MeetLeaves,
    origin: &str,
    ledger: Option<&Starts>,
    nodes: Option<NodeStore>,
) -> Result<Box<dyn Batch>, Fault> {
    let again = Again {
        board,
        walk,
        req: req.clone(),
        log,
        origin: origin.to_string(),
        ledger: ledger.cloned(),
        nodes: nodes.map(Arc::new),
    };
    if again.walk.window() <= u64::SLOTS {
        Ok(Box::new(Widening::<u64>::new(again)?))
    } else {
        Ok(Box::new(Widening::<u128>::new(again)?))
    }
}

/// What a sampler is made of, kept to make it again with wider counts.
struct Again {
    board: Board,
    walk: Walk,
    req: Request,
    log: MeetLeaves,
    origin: String,
    ledger: Option<Starts>,
    nodes: Option<Arc<NodeStore>>,
}

/// A sampler whose tables hold one-word counts (see [`super::entry`]) until a count passes
/// the word ([`Fault::Wider`]): then made again with two-word counts, said on stderr, and the batch
/// drawn again (the same tours: the draws read the counts' values alone).
struct Widening<K: Key> {
    /// `None` only where the wide sampler could not be made.
    now: std::sync::Mutex<Option<Counts<K>>>,
    again: Again,
    total: u128,
}

enum Counts<K: Key> {
    Narrow(Meet<K, u64>),
    Wide(Meet<K, u128>),
}

impl<K: Key> Counts<K> {
    fn batch(&self) -> &dyn Batch {
        match self {
            Counts::Narrow(m) => m,
            Counts::Wide(m) => m,
        }
    }
}

impl<K: Key> Widening<K> {
    fn new(again: Again) -> Result<Widening<K>, Fault> {
        let now = match Meet::<K, u64>::new(&again) {
            Ok(m) => Counts::Narrow(m),
            Err(Fault::Wider) => Counts::Wide(Widening::<K>::wider(&again, "")?),
            Err(e) => return Err(e),
        };
        Ok(Widening {
            total: now.batch().total(),
            now: std::sync::Mutex::new(Some(now)),
            again,
        })
    }

    /// The sampler of two-word counts, said (`when`: where the count passed, after "passes 64
    /// bits").
    fn wider(again: &Again, when: &str) -> Result<Meet<K, u128>, Fault> {
        if let Some(tell) = again.req.tell {
            tell(&format!(
                "a count of {}'s tables passes 64 bits{when}: they are made again with counts of 128 bits ({} bytes a state where they took {})",
                again.board,
                entry_bytes::<K, u128>(),
                entry_bytes::<K, u64>()
            ));
        }
        Meet::new(again)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Counts<K>>> {
        self.now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<K: Key> Batch for Widening<K> {
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault> {
        let mut now = self.lock();
        if let Some(Counts::Narrow(m)) = &*now {
            match m.draw(seed, first, n) {
                Err(Fault::Wider) => {
                    // the narrow tables let go before the wide are made
                    *now = None;
                    *now = Some(Counts::Wide(Widening::<K>::wider(
                        &self.again,
                        " in the batch, which is drawn again",
                    )?));
                }
                done => return done,
            }
        }
        match &*now {
            Some(c) => c.batch().draw(seed, first, n),
            None => Err(fault!(
                "the sampler of {} with counts of 128 bits could not be made before",
                self.again.board
            )),
        }
    }

    fn total(&self) -> u128 {
        self.total
    }

    fn describe(&self) -> String {
        self.lock()
            .as_ref()
            .map_or_else(String::new, |c| c.batch().describe())
    }
}

/// Where each piece of a ledger's count starts among the ranks (its pieces in the tree's
/// order, each by its record), and their total.
#[derive(Clone, Debug)]
struct Starts {
    /// The depth of the pieces in the digit tree.
    depth: usize,
    starts: Vec<u128>,
    total: u128,
}

impl Starts {
    /// The piece rank `r` falls in.
    fn piece(&self, r: u128) -> usize {
        self.starts.partition_point(|&s| s <= r) - 1
    }
}

/// Exact sampling by way of a ledger (8x8 open, a count of hours): a uniform rank below the
/// ledger's total falls in a piece by its record; a batch counts again the pieces its ranks
/// fall in (each checked against its record), then draws inside them as [`Meet`] does, each
/// leaf placed among the ranks at its piece's start.
struct FromLedger {
    board: Board,
    piece: Piece,
    req: Request,
    recorded: crate::engine::Recorded,
    counts: Vec<u128>,
    cpu: std::collections::BTreeMap<usize, f64>,
    starts: Starts,
    dir: String,
}

/// The sampler of the count in the ledger `whole` (read from `dir`), or why not.
pub(crate) fn from_ledger(
    board: Board,
    piece: &Piece,
    req: &Request,
    whole: crate::count::folder::Whole,
    dir: &str,
) -> Result<Box<dyn Batch>, Fault> {
    let id = &whole.id;
    let kind = |closed: bool| if closed { "closed" } else { "open" };
    let asked = (board, piece.to_string(), req.closed);
    if (id.board, id.piece.clone(), id.closed) != asked {
        return Err(fault!(
            "the ledger in '{dir}' counts {} tours of {} by the {}, not {} tours of {board} by the {piece}",
            kind(id.closed),
            id.board,
            id.piece,
            kind(req.closed)
        ));
    }
    let depth = crate::frontier::depth_of_param(id.split);
    let (Some(depth), true, None, None, true) = (
        depth,
        id.symmetry,
        &id.from,
        &id.to,
        id.engine == crate::count::Engine::Frontier.name(),
    ) else {
        return Err(fault!(
            "the ledger in '{dir}' is not of a symmetric frontier count met in the middle and cut by its digit tree, from every square: the only counts tours are drawn from by way of a ledger"
        ));
    };
    if req.from.is_some() {
        return Err("tours drawn by way of a ledger start on any square (no --from)".into());
    }
    crate::frontier::check_sample_floor(
        board,
        &Walk::new(board, piece, false),
        req.max_memory,
        super::CHOICE_THREADS,
    )?;
    // what the sampler's own count would cut otherwise: it counts one shard, narrow, the total
    let other = [
        (
            id.shard.count != 1,
            "cut into shards (the sampler counts its pieces as one run)",
        ),
        (id.wide, "walked across the long side (--window wide)"),
        (id.per_square, "counted per start square"),
    ];
    if let Some((_, why)) = other.iter().find(|(x, _)| *x) {
        return Err(fault!(
            "the ledger in '{dir}' is of a count {why}: tours are drawn by way of a ledger of one run, narrow, of the total"
        ));
    }
    let mut starts = Vec::with_capacity(whole.counts.len());
    let mut total = 0u128;
    let mut counts = Vec::with_capacity(whole.counts.len());
    for c in &whole.counts {
        let c =
            u128::try_from(c).map_err(|_| format!("a piece of '{dir}' counts past 128 bits"))?;
        starts.push(total);
        counts.push(c);
        total = total
            .checked_add(c)
            .ok_or_else(|| fault!("the ledger in '{dir}' counts past 128 bits"))?;
    }
    Ok(Box::new(FromLedger {
        board,
        piece: piece.clone(),
        req: req.clone(),
        recorded: crate::engine::Recorded {
            pieces: id.units,
            param: id.split,
            fingerprint: id.fingerprint,
        },
        counts,
        cpu: whole.cpu,
        starts: Starts {
            depth: depth as usize,
            starts,
            total,
        },
        dir: dir.to_string(),
    }))
}

impl FromLedger {
    /// The CPU seconds the ledger's records say `pieces` took (a piece whose record says none
    /// at the mean of those that do), and how many records say.
    fn cpu_of(&self, pieces: &[usize]) -> (f64, usize) {
        let mean = if self.cpu.is_empty() {
            0.0
        } else {
            self.cpu.values().sum::<f64>() / self.cpu.len() as f64
        };
        let said = pieces.iter().filter(|p| self.cpu.contains_key(p)).count();
        (
            pieces
                .iter()
                .map(|p| self.cpu.get(p).copied().unwrap_or(mean))
                .sum(),
            said,
        )
    }
}

impl Batch for FromLedger {
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault> {
        // the ranks the batch draws (as `Meet::draw` draws them again), and their pieces
        let pieces: std::collections::BTreeSet<usize> = (0..n)
            .map(|j| {
                let mut rng = tour_rng(seed, first + j as u64);
                self.starts.piece(below_u128(&mut rng, self.starts.total))
            })
            .collect();
        let pieces: Vec<usize> = pieces.into_iter().collect();
        if let Some(tell) = self.req.tell {
            let (cpu, said) = self.cpu_of(&pieces);
            let threads = rayon::current_num_threads().max(1);
            let shown: Vec<String> = pieces.iter().take(12).map(ToString::to_string).collect();
            tell(&format!(
                "this batch of {n} tour{} lands in {} of the ledger's {} pieces ({}{}): counting them again is projected at about {} on {threads} thread{} from the CPU time their records give ({} of {} records give it, the others taken at the mean; the records' build may differ from this one), plus the walk the pieces share and the leaves the tours land in, made again",
                crate::human::plural(n as u64),
                pieces.len(),
                self.counts.len(),
                shown.join(", "),
                if pieces.len() > shown.len() {
                    ", …"
                } else {
                    ""
                },
                crate::count::human_duration(cpu / threads as f64),
                crate::human::plural(threads as u64),
                said,
                pieces.len()
            ));
        }
        let spec = CountSpec {
            closed: self.req.closed,
            symmetry: true,
            ..CountSpec::default()
        };
        let t = std::time::Instant::now();
        let chosen = crate::frontier::Chosen {
            recorded: self.recorded.clone(),
            pieces: pieces.clone(),
        };
        let log = crate::frontier::meet_leaves(
            self.board,
            &self.piece,
            &spec,
            self.req.max_memory,
            Some(chosen),
        )
        .map_err(|e| format!("the ledger in '{}': {e}", self.dir))?
        .ok_or_else(|| {
            format!(
                "the frontier count of {} does not meet in the middle",
                self.board
            )
        })?;
        crate::frontier::give_back();
        for &p in &pieces {
            let got = log
                .pieces
                .get(&p)
                .map(|c| u128::try_from(c).unwrap_or(u128::MAX));
            if got != Some(self.counts[p]) {
                return Err(fault!(
                    "piece {p} of the ledger in '{}' counted again {}, but its record says {}: a fault in this build or in the record (the batch is stopped)",
                    self.dir,
                    got.map_or_else(
                        || "nothing (it did not fit the memory bound)".to_string(),
                        |c| c.to_string()
                    ),
                    self.counts[p]
                ));
            }
        }
        if let Some(tell) = self.req.tell {
            tell(&format!(
                "the {} piece{} counted again in {}, each equal to its record; drawing inside {}",
                pieces.len(),
                crate::human::plural(pieces.len() as u64),
                crate::count::human_duration(t.elapsed().as_secs_f64()),
                if pieces.len() == 1 { "it" } else { "them" }
            ));
        }
        let walk = Walk::new(self.board, &self.piece, false);
        let meet = make(
            self.board,
            walk,
            &self.req,
            log,
            &format!("counted in {:.1} s", t.elapsed().as_secs_f64()),
            Some(&self.starts),
            None,
        )?;
        meet.draw(seed, first, n)
    }

    fn total(&self) -> u128 {
        self.starts.total
    }

    fn describe(&self) -> String {
        format!(
            "by way of the ledger in '{}': {} pieces of the digit tree's depth {}, each drawn by its record; a batch counts again the pieces it lands in, each checked against its record, and makes again the leaves it lands in",
            self.dir,
            self.counts.len(),
            self.starts.depth
        )
    }
}

impl<K: Key, C: Count> Meet<K, C> {
    /// The sampler `a` says, its shared walk made (and the nodes its store lacks, where kept).
    fn new(a: &Again) -> Result<Meet<K, C>, Fault> {
        let Again {
            board,
            walk,
            req,
            log,
            origin,
            ledger,
            nodes,
        } = a;
        let (board, walk, ledger, nodes) = (*board, walk.clone(), ledger.as_ref(), nodes.clone());
        let (left, right, cross) = log.cut;
        let w = walk.w as usize;
        let (lsq, rq, m) = (
            (left * walk.w) as usize,
            ((right - 1) * walk.w) as usize,
            (cross * walk.w) as usize,
        );
        let end = lsq.max(rq);
        let rules = log.rules.clone();
        let fwd = layout::steps::<K>(&walk, &rules, 0, end as u32);
        let (xsteps, ysteps) = layout::meet_steps::<K>(&walk, &rules, log.cut);
        let h = cross;
        let mm = m as u32;
        let left_b = Boundary {
            slots: (0..mm).rev().collect(),
        };
        let right_b = Boundary {
            slots: (0..mm)
                .map(|j| {
                    let c = mm - 1 - j;
                    (h - 1 - c / walk.w) * walk.w + c % walk.w
                })
                .collect(),
        };
        let mut start = 0u128;
        let mut leaves: Vec<Leaf> = Vec::with_capacity(log.leaves.len());
        let mut sorted = log.leaves.clone();
        let digits = |j: usize, p: u64| -> Vec<u8> {
            (0..j)
                .map(|i| ((p / 3u64.pow((j - 1 - i) as u32)) % 3) as u8)
                .collect()
        };
        sorted.sort_by_key(|(j, p, _)| digits(*j, *p));
        // a ledger's pieces: each leaf at its piece's start among the ranks, after the leaves
        // of its piece before it
        let mut within: FxHashMap<u64, u128> = FxHashMap::default();
        for (j, p, c) in sorted {
            let count = u128::try_from(&c)
                .map_err(|_| format!("a leaf of {board} counts past 128 bits"))?;
            if count == 0 {
                continue;
            }
            let d = digits(j, p);
            let at = match ledger {
                None => start,
                Some(l) => {
                    if d.len() < l.depth {
                        return Err(fault!(
                            "a leaf of depth {} above the pieces of depth {}: the count was cut otherwise than its ledger",
                            d.len(),
                            l.depth
                        ));
                    }
                    let piece = d[..l.depth].iter().fold(0u64, |a, &x| a * 3 + u64::from(x));
                    let off = within.entry(piece).or_insert(0);
                    let at = l.starts[piece as usize] + *off;
                    *off += count;
                    at
                }
            };
            leaves.push(Leaf {
                digits: d,
                count,
                start: at,
            });
            start = start
                .checked_add(count)
                .ok_or_else(|| fault!("the tours of {board} count past 128 bits"))?;
        }
        if let Some(l) = ledger {
            start = l.total;
        }
        let room = crate::frontier::tables_room(
            req.max_memory,
            walk.window(),
            walk.key_bytes(),
            rayon::current_num_threads(),
        );
        let mut s = Meet {
            board,
            walk,
            closed: req.closed,
            fwd,
            shared: Kept::new(&req.scratch),
            xsteps,
            ysteps,
            lsq,
            rq,
            m,
            w,
            left_b,
            right_b,
            true_right: log.true_right,
            leaves,
            total: start,
            max_memory: req.max_memory,
            room,
            scratch: req.scratch.clone(),
            setup: String::new(),
            nodes,
        };
        let (shared, states) = s.forward()?;
        s.shared = shared;
        let kept = match &s.nodes {
            Some(store) => format!("; {}", s.fill(store, req.tell)?),
            None => String::new(),
        };
        s.setup = format!(
            "the count met in the middle: {} columns from one end, {} from the other, the {} side made true, {} leaves of depth {}, {origin}; the shared walk's {} layers kept, {} states, {}{}; counts of {} bits, {} bytes a state{kept}",
            left,
            right,
            if s.true_right { "right" } else { "left" },
            s.leaves.len(),
            {
                let d = s.leaves.iter().map(|l| l.digits.len());
                let (lo, hi) = (d.clone().min().unwrap_or(0), d.max().unwrap_or(0));
                if lo == hi {
                    format!("{lo}")
                } else {
                    format!("{lo} to {hi}")
                }
            },
            s.fwd.len() + 1,
            states,
            human_bytes(states * entry_bytes::<K, C>()),
            if s.shared.on_disk() {
                " on disk (past a quarter of the memory bound)"
            } else {
                ""
            },
            8 * C::BYTES,
            entry_bytes::<K, C>()
        );
        Ok(s)
    }

    /// The shared forward walk, every layer kept (in a file of the system's temporary folder
    /// once they pass a quarter of the memory bound), and its states.
    fn forward(&self) -> Result<(Kept<K, C>, u64), Fault> {
        let mut shared = Kept::new(&self.scratch);
        shared.push(
            vec![Entry::new(K::ZERO, C::new(1).expect("one fits"))],
            false,
        )?;
        let (mut bytes, mut states) = (entry_bytes::<K, C>(), 1u64);
        for step in &self.fwd {
            let next = self.child(shared.last().expect("a layer"), step, ANY)?;
            bytes += next.len() as u64 * entry_bytes::<K, C>();
            states += next.len() as u64;
            let to_disk = || {
                fail::fail_point!("sample-shared-disk", |_| true);
                bytes > self.room / 4
            };
            shared.push(next, to_disk())?;
            // the successors freed making it go back to the system (8x8 open's shared walk
            // was 16 GiB resident with 7.7 GiB of tables so)
            self.relieve();
        }
        shared.spare();
        self.relieve();
        Ok((shared, states))
    }

    /// The states `step` leads to from `layer` by choices of `digit` edges ([`ANY`]: all),
    /// each with the sum of its predecessors' counts: in buckets by the state's hash, sorted
    /// within each (an order fixed by the states alone, whatever the threads: the draws read
    /// layers in order), each bucket sorted and summed on its own thread.
    fn child(
        &self,
        layer: &Table<K, C>,
        step: &Step<K>,
        digit: usize,
    ) -> Result<Table<K, C>, Fault> {
        self.child_kept(layer, step, digit, &|_| true)
    }

    /// [`Meet::child`] of the states `keep` keeps. The successors before they are summed take
    /// most of the memory (several times the table they sum to: 8x8 open's shared walk passed
    /// 24 GiB so): past an eighth of the bound, or of half the room the process leaves (its
    /// resident size, the table made and the bound's margin aside), at least 64 MiB, they are
    /// made in groups of buckets, the whole layer expanded again for each group and only its
    /// buckets kept, which gives the same table in the same order.
    fn child_kept(
        &self,
        layer: &Table<K, C>,
        step: &Step<K>,
        digit: usize,
        keep: &(dyn Fn(K) -> bool + Sync),
    ) -> Result<Table<K, C>, Fault> {
        const BUCKETS: usize = 256;
        const CHUNK: usize = 1 << 14;
        let closed = self.closed;
        let bucket = |t: K| (t.hash64() >> 56) as usize;
        let budget = || -> u64 {
            fail::fail_point!("sample-child-groups", |_| 1 << 10);
            let bound = self.max_memory;
            // the table made taken as large as the one it is made from
            let made = layer.len() as u64 * entry_bytes::<K, C>();
            let room = bound.saturating_sub(crate::engine::needed(bound, made));
            // (groups of at least 64 MiB, where the tables' room holds twice that)
            (self.room / 8)
                .min(room / 2)
                .max((1 << 26).min(self.room / 2))
        };
        let budget = budget();
        let narrow_full = || {
            fail::fail_point!("sample-narrow-full", |_| C::BYTES == 8);
            false
        };
        if narrow_full() {
            return Err(too_big::<C>());
        }
        // the successors before they are summed, where counted: room for the table at once
        let mut most = 0usize;
        let groups: Vec<std::ops::Range<usize>> =
            if layer.len() as u64 * entry_bytes::<K, C>() * 8 <= budget {
                std::iter::once(0..BUCKETS).collect()
            } else {
                // how many successors each bucket gets, then groups of buckets within the budget
                let sizes = layer
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut v = vec![0u64; BUCKETS];
                        for e in chunk {
                            expand_digit(e.key(), step, closed, digit, |t| {
                                if keep(t) {
                                    v[bucket(t)] += 1;
                                }
                            });
                        }
                        v
                    })
                    .reduce(
                        || vec![0u64; BUCKETS],
                        |mut a, b| {
                            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                            a
                        },
                    );
                let mut groups = Vec::new();
                let (mut from, mut bytes) = (0, 0);
                for (b, &n) in sizes.iter().enumerate() {
                    let more = n * entry_bytes::<K, C>();
                    if b > from && bytes + more > budget {
                        groups.push(from..b);
                        (from, bytes) = (b, 0);
                    }
                    bytes += more;
                }
                groups.push(from..BUCKETS);
                most = sizes.iter().sum::<u64>() as usize;
                groups
            };
        // the table is put together a group at a time, each bucket let go as it is copied, in
        // room reserved once for all the successors (its pages are touched only as it fills;
        // grown group by group, the old table and the new were both held): the buckets of all
        // groups and their copy at once were twice the table (8x8 closed's tables under 1G
        // took 1.02 GiB so)
        let groups_n = groups.len();
        let mut out: Table<K, C> = Vec::with_capacity(most);
        for g in groups {
            let parts: Vec<Vec<Table<K, C>>> = layer
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut v: Vec<Table<K, C>> = vec![Vec::new(); g.len()];
                    for e in chunk {
                        let c = e.raw();
                        expand_digit(e.key(), step, closed, digit, |t| {
                            let b = bucket(t);
                            if g.contains(&b) && keep(t) {
                                v[b - g.start].push(Entry::new(t, c));
                            }
                        });
                    }
                    v
                })
                .collect();
            // by bucket, each bucket's pieces let go as they are gathered
            let mut by_bucket: Vec<Vec<Table<K, C>>> = vec![Vec::new(); g.len()];
            for chunk in parts {
                for (b, piece) in chunk.into_iter().enumerate() {
                    by_bucket[b].push(piece);
                }
            }
            let buckets: Vec<Result<Table<K, C>, Fault>> = by_bucket
                .into_par_iter()
                .map(|pieces| {
                    let mut all: Table<K, C> =
                        Vec::with_capacity(pieces.iter().map(Vec::len).sum());
                    for p in pieces {
                        all.extend_from_slice(&p);
                    }
                    all.sort_unstable_by_key(Entry::key);
                    // equal states summed in place
                    let mut w = 0;
                    for r in 0..all.len() {
                        if w > 0 && all[w - 1].key() == all[r].key() {
                            let sum = all[w - 1].raw().checked_add(all[r].raw());
                            all[w - 1].set(sum.ok_or_else(too_big::<C>)?);
                        } else {
                            all[w] = all[r];
                            w += 1;
                        }
                    }
                    // (kept at its size until copied into the table: a shrink would copy it)
                    all.truncate(w);
                    Ok(all)
                })
                .collect();
            let mut tables: Vec<Table<K, C>> = Vec::with_capacity(buckets.len());
            for b in buckets {
                tables.push(b?);
            }
            if groups_n > 1 {
                self.relieve();
            }
            out.reserve_exact(tables.iter().map(Vec::len).sum());
            for t in tables {
                out.extend_from_slice(&t);
            }
        }
        Ok(out)
    }

    /// The mirror at the end of the column that ends before square `t` (a column end), and the
    /// slots it acts on.
    fn mirror_at(&self, t: usize) -> (&Perm<K>, u32) {
        let step = &self.fwd[t - 1];
        (
            step.mirror
                .as_ref()
                .expect("a symmetric count merges mirror images at column ends"),
            step.width,
        )
    }

    /// The true table of the merged `t`: each state and its image, half the count each.
    fn unmerged(&self, t: usize) -> Result<Table<K, C>, Fault> {
        let (perm, width) = self.mirror_at(t);
        let merged = self.shared.layer(t)?;
        // made in a table of its own size (a parallel collect of unknown length gathered
        // pieces, then copied them: twice 8x8 closed's right root of 256 MiB)
        let images = merged
            .par_iter()
            .filter(|e| perm.apply(e.key(), width) != e.key())
            .count();
        let mut out: Table<K, C> = Vec::with_capacity(merged.len() + images);
        for &e in merged.iter() {
            let (k, c) = (e.key(), e.raw());
            let m = perm.apply(k, width);
            if m == k {
                out.push(e);
            } else {
                out.extend([Entry::new(k, c.half()), Entry::new(m, c.half())]);
            }
        }
        drop(merged);
        out.par_sort_unstable_by_key(Entry::key);
        Ok(out)
    }

    /// Walk square `v` of `side`, its rows reversed where `flip`: the board walk number (the
    /// right side's walk is the board's, end to end).
    fn place(&self, side: usize, v: u32, flip: bool) -> u32 {
        let w = self.walk.w;
        let v = if flip { v / w * w + (w - 1 - v % w) } else { v };
        if side == RIGHT {
            (self.walk.len - 1 - v / w) * w + v % w
        } else {
            v
        }
    }

    /// Walks the sides `who` (sample, side) back by one step, `step` (at walk square `sq`),
    /// from the table after it to `layer`, the table before it: each to a predecessor and a
    /// choice drawn by the predecessor's count. `merge`: the step ends a column whose states
    /// were merged with their images.
    #[allow(clippy::too_many_arguments)]
    fn back(
        &self,
        samples: &mut [Sample<K>],
        who: &[(usize, usize)],
        layer: &Table<K, C>,
        step: &Step<K>,
        sq: u32,
        merge: bool,
    ) -> Result<(), Fault> {
        if who.is_empty() {
            return Ok(());
        }
        let mut targets: Vec<K> = who.iter().map(|&(s, d)| samples[s].side[d].key).collect();
        targets.sort_unstable();
        targets.dedup();
        let mut plain = step.clone();
        let mirror = if merge {
            plain.mirror.take().map(|p| (p, step.width))
        } else {
            plain.mirror = None;
            None
        };
        let closed = self.closed;
        // a predecessor's slots the step leaves alone are as the target's, or its image's (a
        // test of a few masks: most states are passed over without expanding them)
        let kept = unchanged_slots(step);
        let mut sigs: Vec<(K, K)> = targets
            .iter()
            .flat_map(|&t| {
                let image = mirror.as_ref().map(|(perm, width)| perm.apply(t, *width));
                std::iter::once(t).chain(image).map(|x| classes(x, kept))
            })
            .collect();
        sigs.sort_unstable();
        sigs.dedup();
        let may_lead = |k: K| sigs.binary_search(&classes(k.shifted(), kept)).is_ok();
        let hits: Vec<(u32, u32, Choice, bool)> = layer
            .par_chunks(4096)
            .enumerate()
            .flat_map_iter(|(ci, chunk)| {
                let mut v = Vec::new();
                for (i, e) in chunk.iter().enumerate() {
                    let k = e.key();
                    if !may_lead(k) {
                        continue;
                    }
                    expand_choices(k, &plain, closed, |t, choice| {
                        let Some(t) = t else { return };
                        let (rep, flipped) = match &mirror {
                            Some((perm, width)) => {
                                let m = perm.apply(t, *width);
                                if m < t { (m, true) } else { (t, false) }
                            }
                            None => (t, false),
                        };
                        if let Ok(ti) = targets.binary_search(&rep) {
                            v.push((ti as u32, (ci * 4096 + i) as u32, choice, flipped));
                        }
                    });
                }
                v
            })
            .collect();
        let mut by: Vec<Vec<(u32, Choice, bool)>> = vec![Vec::new(); targets.len()];
        for (ti, i, c, f) in hits {
            by[ti as usize].push((i, c, f));
        }
        for &(s, d) in who {
            let sample = &mut samples[s];
            let walker = sample.side[d];
            let ti = targets
                .binary_search(&walker.key)
                .expect("a target of its own");
            let cands = &by[ti];
            let sum: u128 = cands
                .iter()
                .map(|&(i, _, _)| layer[i as usize].count())
                .sum();
            if sum == 0 {
                return Err(fault!(
                    "a state of the tables of {} has no predecessor: the tables cannot be trusted (a fault of the program; please report it)",
                    self.board
                ));
            }
            let u = below_u128(&mut sample.rng, sum);
            let &(i, choice, flipped) = at_rank(cands, u, |&&(i, _, _)| layer[i as usize].count())
                .expect("a draw below the sum");
            let flip = walker.flip ^ flipped;
            for &b in choice.edges.iter().filter(|&&b| b > 0) {
                let (a, z) = (self.place(d, sq, flip), self.place(d, sq - b, flip));
                sample.edges.push((a, z));
            }
            sample.side[d] = Walker {
                key: layer[i as usize].key(),
                flip,
            };
        }
        Ok(())
    }

    /// The digit tree's part of a batch: each leaf the samples landed in made again (its nodes
    /// from the roots, shared with the leaf before where they lie on its way), its join drawn
    /// from, and every sample walked back to the roots.
    fn leaves_part(&self, samples: &mut [Sample<K>]) -> Result<(), Fault> {
        let (m, w) = (self.m, self.w);
        let (x0, y0) = (self.root(LEFT)?, self.root(RIGHT)?);
        // the nodes on the way to the current leaf: crossing and right tables by depth (the
        // right's only to the end of its column), in memory or, past a quarter of the bound,
        // in files with the deepest of each side in memory too
        let mut xs: Kept<K, C> = Kept::new(&self.scratch);
        let mut ys: Kept<K, C> = Kept::from_store(&self.scratch, self.nodes.clone());
        let full = self.path_full(&xs, &ys, x0.len());
        xs.push(x0, full)?;
        let full = self.path_full(&xs, &ys, y0.len());
        ys.push(y0, full)?;
        let mut path: Vec<u8> = Vec::new();
        // samples waiting at a node, by depth, for each side
        let mut wait: [Vec<Vec<usize>>; 2] = [vec![Vec::new(); m + 1], vec![Vec::new(); w + 1]];
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by_key(|&s| (samples[s].leaf, samples[s].rank));
        let mut at = 0;
        while at < order.len() {
            let li = samples[order[at]].leaf;
            let mut end = at;
            while end < order.len() && samples[order[end]].leaf == li {
                end += 1;
            }
            let mine = &order[at..end];
            at = end;
            let leaf = &self.leaves[li];
            let j = leaf.digits.len();
            let common = path
                .iter()
                .zip(&leaf.digits)
                .take_while(|(a, b)| a == b)
                .count();
            while path.len() > common {
                self.up(samples, &mut xs, &mut ys, &mut wait)?;
                path.pop();
            }
            while path.len() < j {
                let i = path.len();
                let d = leaf.digits[i];
                let x = self.child(deepest(&xs), &self.xsteps[i], 2 - d as usize)?;
                let full = self.path_full(&xs, &ys, x.len());
                xs.push(x, full)?;
                if i < w {
                    let (y, name) = self.right_node(deepest(&ys), &leaf.digits[..=i])?;
                    let full = self.path_full(&xs, &ys, y.len());
                    ys.push_named(y, full, name)?;
                }
                path.push(d);
                // the tables freed making it go back to the system (the allocator keeps them
                // otherwise, resident: 8x8 closed under 1G stayed at 1.0 GiB so)
                self.relieve();
                self.fits(xs.held() + ys.held() + self.shared.held())?;
            }
            // the leaf's own walks, every layer kept (to disk past the tables' share of the
            // bound): the right's first, whose classes tell which crossing states can join
            // (the others and all they lead to are dropped)
            let path_states: u64 = xs.held() + ys.held() + self.shared.held();
            let (xnode, ynode) = (deepest(&xs), deepest(&ys));
            // a third of the bound: the tables a step makes, the join's and the allocator's
            // slack take the rest (a half took 8x8 closed under 1G to 1.02 GiB resident)
            let room = (self.room / 3).saturating_sub(path_states * entry_bytes::<K, C>());
            let jy = j.min(w);
            let mut yl: Kept<K, C> = Kept::new(&self.scratch);
            for i in jy..w {
                let from = yl.last().unwrap_or(ynode);
                let next = self.child(from, &self.ysteps[i], ANY)?;
                let full = (yl.held() + next.len() as u64) * entry_bytes::<K, C>() > room / 2;
                yl.push(next, full)?;
            }
            // the right's states indexed for the join once (`None` where a count passes a
            // word: joined pair by pair then)
            let pairwise = || {
                fail::fail_point!("sample-join-pairwise", |_| true);
                false
            };
            let yend = yl.last().unwrap_or(ynode);
            let index = if pairwise() {
                None
            } else {
                SampleJoin::new(yend, |e| (e.key(), e.count()), &self.right_b, self.closed)
            };
            let offered = self.prefixes(yend, index.as_ref());
            let mut xl: Kept<K, C> = Kept::new(&self.scratch);
            for (i, offers) in offered.iter().enumerate().skip(j) {
                let from = xl.last().unwrap_or(xnode);
                let keep = |k: K| offers.contains(&asks(k, i));
                let next = self.child_kept(from, &self.xsteps[i], ANY, &keep)?;
                let full =
                    (xl.held() + yl.held() + next.len() as u64) * entry_bytes::<K, C>() > room;
                xl.push(next, full)?;
            }
            self.relieve();
            let held = path_states + xl.held() + yl.held();
            self.fits(held)?;
            let xend = xl.last().unwrap_or(xnode);
            self.join(samples, mine, leaf, xend, yend, index.as_ref())?;
            // walk the leaf's samples back to its node
            self.back_kept(
                samples,
                mine,
                LEFT,
                xnode,
                &xl,
                &self.xsteps,
                j..m,
                self.lsq,
            )?;
            self.back_kept(
                samples,
                mine,
                RIGHT,
                ynode,
                &yl,
                &self.ysteps,
                jy..w,
                self.rq,
            )?;
            wait[LEFT][j].extend_from_slice(mine);
            wait[RIGHT][jy].extend_from_slice(mine);
        }
        while xs.len() > 1 {
            self.up(samples, &mut xs, &mut ys, &mut wait)?;
        }
        Ok(())
    }

    /// The root of `side`: the side made true, each state and its image apart.
    fn root(&self, side: usize) -> Result<Table<K, C>, Fault> {
        let (t, true_side) = if side == LEFT {
            (self.lsq, !self.true_right)
        } else {
            (self.rq, self.true_right)
        };
        if true_side {
            self.unmerged(t)
        } else {
            Ok(self.shared.layer(t)?.into_owned())
        }
    }

    /// The right node of `digits` (its last digit the choice of step `digits.len() - 1`),
    /// child of `parent`: read where the kept nodes hold it, made otherwise (and kept).
    /// With its name where the store holds it.
    fn right_node(&self, parent: &Table<K, C>, digits: &[u8]) -> Result<Named<K, C>, Fault> {
        if let Some(t) = self.nodes.as_ref().and_then(|store| store.read(digits)) {
            return Ok((t, Some(digits.to_vec())));
        }
        let i = digits.len() - 1;
        let y = self.child(parent, &self.ysteps[i], usize::from(digits[i]))?;
        let kept = self
            .nodes
            .as_ref()
            .is_some_and(|store| store.write(digits, &y));
        Ok((y, kept.then(|| digits.to_vec())))
    }

    /// Makes the right half's nodes `store` lacks (every node of the digit tree above a leaf,
    /// to the end of the right's column), each written as it is made and let go, its parents
    /// read back: a setup of minutes, after which a batch reads the right's nodes it needs
    /// instead of making them (8x8 closed: 70 s a batch of 200, most of it making them). What
    /// the store holds, in words.
    fn fill(&self, store: &NodeStore, tell: Option<fn(&str)>) -> Result<String, Fault> {
        let t = std::time::Instant::now();
        let all: std::collections::BTreeSet<&[u8]> = (self.leaves.iter())
            .flat_map(|l| (1..=l.digits.len().min(self.w)).map(|k| &l.digits[..k]))
            .collect();
        let missing: Vec<&[u8]> = all
            .iter()
            .copied()
            .filter(|n| store.present(n).is_none())
            .collect();
        let dir = store.dir().display();
        if !missing.is_empty() {
            if let Some(tell) = tell {
                tell(&format!(
                    "the right half's nodes of the count's digit tree are made once and kept in '{dir}' ({} of {} to make), so that later batches read them",
                    missing.len(),
                    all.len()
                ));
            }
        }
        let mut ys: Kept<K, C> = Kept::from_store(&self.scratch, self.nodes.clone());
        let none: Kept<K, C> = Kept::new(&self.scratch);
        let mut path: Vec<u8> = Vec::new();
        let mut made = 0usize;
        for node in &missing {
            if !store.writing() {
                break;
            }
            if ys.len() == 0 {
                ys.push(self.root(RIGHT)?, false)?;
            }
            // the parent on the path: the nodes above it read back (or made, where a file
            // fails its check)
            let parent = &node[..node.len() - 1];
            let common = path.iter().zip(parent).take_while(|(a, b)| a == b).count();
            while path.len() > common {
                ys.pop()?;
                path.pop();
            }
            while path.len() < parent.len() {
                path.push(parent[path.len()]);
                let (y, name) = self.right_node(deepest(&ys), &path)?;
                let full = self.path_full(&none, &ys, y.len());
                ys.push_named(y, full, name)?;
                self.relieve();
                self.fits(ys.held() + self.shared.held())?;
            }
            let i = node.len() - 1;
            let y = self.child(deepest(&ys), &self.ysteps[i], usize::from(node[i]))?;
            store.write(node, &y);
            made += 1;
            drop(y);
            self.relieve();
        }
        drop(ys);
        let (mut kept, mut bytes) = (0usize, 0u64);
        for n in &all {
            if let Some(b) = store.present(n) {
                kept += 1;
                bytes += b;
            }
        }
        let whole = if kept == all.len() {
            format!(
                "the right half's {kept} nodes kept in '{dir}' ({})",
                human_bytes(bytes)
            )
        } else {
            format!(
                "{kept} of the right half's {} nodes kept in '{dir}' ({}; the others made as a batch needs them)",
                all.len(),
                human_bytes(bytes)
            )
        };
        Ok(if made > 0 {
            format!(
                "{whole}, {made} of them made now in {:.1} s",
                t.elapsed().as_secs_f64()
            )
        } else {
            whole
        })
    }

    /// Freed memory given back where the process holds more than half the bound (the allocator
    /// keeps it otherwise, resident): see [`crate::frontier::relieve`].
    fn relieve(&self) {
        crate::frontier::relieve(self.max_memory);
    }

    /// Whether the nodes above a leaf go to disk from now on: where those in memory and a new
    /// one of `next` states would pass a quarter of the bound (8x8 open's nodes, 80 million
    /// states at the right root and more below it, passed 12 GiB in memory).
    fn path_full(&self, xs: &Kept<K, C>, ys: &Kept<K, C>, next: usize) -> bool {
        fail::fail_point!("sample-path-disk", |_| true);
        (xs.held() + ys.held() + next as u64) * entry_bytes::<K, C>() > self.room / 4
    }

    /// An error where `states` of tables held in memory pass the memory bound (the deepest
    /// nodes of both sides, the shared walk's last layer and a leaf's walks in memory: each
    /// goes to disk past its share, but the deepest nodes stay).
    fn fits(&self, states: u64) -> Result<(), Fault> {
        let bytes = states * entry_bytes::<K, C>();
        if bytes <= self.room {
            return Ok(());
        }
        Err(fault!(
            "exact sampling of {} holds {} of tables with the nodes above a leaf of the count met in the middle, past the memory bound of {} (--max-memory; the count alone fits it): run it under --max-memory {} or more",
            self.board,
            human_bytes(bytes),
            human_bytes(self.max_memory),
            crate::frontier::size_arg(2 * bytes)
        ))
    }

    /// For each crossing step `i`, the needs of boundary squares `0..=i` that some right
    /// state of `ye` meets (see [`asks`]).
    fn prefixes(&self, ye: &Table<K, C>, index: Option<&SampleJoin>) -> Vec<FxHashSet<u64>> {
        let mut classes: Vec<u64> = match index {
            Some(index) => index.classes().collect(),
            None => ye
                .par_iter()
                .map(|e| right_side(&self.right_b, e.key()).0 >> 2)
                .collect(),
        };
        classes.sort_unstable();
        classes.dedup();
        (0..self.m)
            .map(|i| {
                let pow = 3u64.pow(i as u32 + 1);
                classes.iter().map(|c| c % pow).collect()
            })
            .collect()
    }

    /// Walks side `d` of the samples `ids` back through `steps[range]` (the walk's squares
    /// from `first`), whose layers are `node` (before the first step) and then those `kept`:
    /// from the end of a leaf's own walk to its node, or from a node to its parent.
    #[allow(clippy::too_many_arguments)]
    fn back_kept(
        &self,
        samples: &mut [Sample<K>],
        ids: &[usize],
        d: usize,
        node: &Table<K, C>,
        kept: &Kept<K, C>,
        steps: &[Step<K>],
        range: std::ops::Range<usize>,
        first: usize,
    ) -> Result<(), Fault> {
        let who: Vec<(usize, usize)> = ids.iter().map(|&s| (s, d)).collect();
        let j = range.start;
        for i in range.rev() {
            let layer = if i == j {
                std::borrow::Cow::Borrowed(node)
            } else {
                kept.layer(i - j - 1)?
            };
            self.back(samples, &who, &layer, &steps[i], (first + i) as u32, false)?;
        }
        Ok(())
    }

    /// Lets the deepest node go: the samples waiting at it walk back through its parent's
    /// layers, where they wait in turn.
    fn up(
        &self,
        samples: &mut [Sample<K>],
        xs: &mut Kept<K, C>,
        ys: &mut Kept<K, C>,
        wait: &mut [Vec<Vec<usize>>; 2],
    ) -> Result<(), Fault> {
        let d = xs.len() - 1;
        let none = Kept::new(&self.scratch);
        xs.pop()?;
        let left = std::mem::take(&mut wait[LEFT][d]);
        let (parent, steps) = (deepest(xs), &self.xsteps);
        self.back_kept(
            samples,
            &left,
            LEFT,
            parent,
            &none,
            steps,
            d - 1..d,
            self.lsq,
        )?;
        wait[LEFT][d - 1].extend(left);
        if d <= self.w {
            ys.pop()?;
            let right = std::mem::take(&mut wait[RIGHT][d]);
            let (parent, steps) = (deepest(ys), &self.ysteps);
            self.back_kept(
                samples,
                &right,
                RIGHT,
                parent,
                &none,
                steps,
                d - 1..d,
                self.rq,
            )?;
            wait[RIGHT][d - 1].extend(right);
        }
        Ok(())
    }

    /// The join of a leaf's crossing states `xe` with its right states `ye`, checked against
    /// the count's record, and each of the leaf's samples `mine` (sorted by rank) given the
    /// pair its rank falls on; `fast`, the right states indexed by group (the sums by the
    /// count's runs), or `None`: pair by pair (a count past a word). Both give the same pairs
    /// in the same order.
    fn join(
        &self,
        samples: &mut [Sample<K>],
        mine: &[usize],
        leaf: &Leaf,
        xe: &Table<K, C>,
        ye: &Table<K, C>,
        fast: Option<&SampleJoin>,
    ) -> Result<(), Fault> {
        let closed = self.closed;
        let want = if closed { 0 } else { 2 };
        // the right states by group, made only where there is no index (pair by pair)
        let groups = fast.is_none().then(|| {
            let mut groups: FxHashMap<u64, Vec<(u64, u32, u32)>> = FxHashMap::default();
            for (i, e) in ye.iter().enumerate() {
                let (g, rm, rt) = right_side(&self.right_b, e.key());
                groups.entry(g).or_default().push((rm, rt, i as u32));
            }
            groups
        });
        // the right states joining crossing state `k`, in table order: place and count
        let joining = |k: K| -> Vec<(usize, u128)> {
            if let Some(index) = fast {
                return index.joining(&self.left_b, k);
            }
            let groups = groups.as_ref().expect("made where there is no index");
            let Some((g, lm, lt, ends)) = left_side(&self.left_b, k, want) else {
                return Vec::new();
            };
            groups.get(&g).map_or(Vec::new(), |rows| {
                rows.iter()
                    .filter(|&&(rm, rt, _)| pair_joins((lm, lt, ends), (rm, rt), closed))
                    .map(|&(_, _, i)| (i as usize, ye[i as usize].count()))
                    .collect()
            })
        };
        let sums: Vec<u128> = match fast {
            Some(index) => index.sums(xe, Entry::key, &self.left_b),
            None => xe
                .par_iter()
                .map(|e| joining(e.key()).iter().map(|&(_, c)| c).sum())
                .collect(),
        };
        let mut sum = 0u128;
        for (s, e) in sums.iter().zip(xe) {
            let c = e.count();
            sum = sum
                .checked_add(s.checked_mul(c).ok_or("a count past 128 bits")?)
                .ok_or("a count past 128 bits")?;
        }
        if sum != leaf.count {
            return Err(fault!(
                "a leaf of {} joined again holds {sum} tours where the count found {}: the tables cannot be trusted (a fault of the program; please report it)",
                self.board,
                leaf.count
            ));
        }
        let mut xi = 0usize;
        let mut before = 0u128;
        for &s in mine {
            let r = samples[s].rank - leaf.start;
            while before + sums[xi] * xe[xi].count() <= r {
                before += sums[xi] * xe[xi].count();
                xi += 1;
            }
            let (k, c) = (xe[xi].key(), xe[xi].count());
            let yr = (r - before) / c;
            let joins = joining(k);
            let &(yi, _) =
                at_rank(&joins, yr, |&&(_, c)| c).expect("a rank below the state's joins");
            samples[s].side[LEFT] = Walker {
                key: k,
                flip: false,
            };
            samples[s].side[RIGHT] = Walker {
                key: ye[yi].key(),
                flip: false,
            };
        }
        Ok(())
    }

    /// The shared walk's part: each root state taken into the merged table (a true state as
    /// the merged one and a flip), then every side walked back to the first square.
    fn shared_part(&self, samples: &mut [Sample<K>]) -> Result<(), Fault> {
        for s in samples.iter_mut() {
            for (d, t, true_side) in [
                (LEFT, self.lsq, !self.true_right),
                (RIGHT, self.rq, self.true_right),
            ] {
                if true_side {
                    let (perm, width) = self.mirror_at(t);
                    let k = s.side[d].key;
                    let m = perm.apply(k, width);
                    s.side[d] = Walker {
                        key: k.min(m),
                        flip: m < k,
                    };
                }
            }
        }
        let n = samples.len();
        let roots: Vec<(usize, usize)> = (0..n).map(|s| (s, LEFT)).collect();
        self.either_way(samples, &roots, self.lsq);
        let roots: Vec<(usize, usize)> = (0..n).map(|s| (s, RIGHT)).collect();
        self.either_way(samples, &roots, self.rq);
        for t in (0..self.lsq.max(self.rq)).rev() {
            let mut who: Vec<(usize, usize)> = Vec::new();
            for s in 0..n {
                if t < self.lsq {
                    who.push((s, LEFT));
                }
                if t < self.rq {
                    who.push((s, RIGHT));
                }
            }
            let merge = self.fwd[t].mirror.is_some();
            let layer = self.shared.layer(t)?;
            self.back(samples, &who, &layer, &self.fwd[t], t as u32, merge)?;
            self.either_way(samples, &who, t);
        }
        Ok(())
    }

    /// The sides `who` standing at layer `t`: where `t` ends a column and a side's state is
    /// its own mirror image, its orientation drawn by a fair coin. The real state is the same
    /// either way, but the path below it is not: a table path realized in one orientation only
    /// would give a symmetric state's paths whose earlier states lie one way round and never
    /// their mirror images (3xN boards, whose middle row is its own image, drew some tours
    /// twice as often as others so).
    fn either_way(&self, samples: &mut [Sample<K>], who: &[(usize, usize)], t: usize) {
        if t == 0 || self.fwd[t - 1].mirror.is_none() {
            return;
        }
        let (perm, width) = self.mirror_at(t);
        for &(s, d) in who {
            let sample = &mut samples[s];
            let k = sample.side[d].key;
            if perm.apply(k, width) == k {
                sample.side[d].flip = sample.rng.bool();
            }
        }
    }

    /// A sample's edges as a path of board squares (from square 0 for a cycle, from an end
    /// for an open path), mirrored whole on `coin`.
    fn path(&self, edges: &[(u32, u32)], coin: bool) -> Vec<u32> {
        let w = self.walk.w;
        let mut links = Links::new(self.walk.n as usize);
        for &(a, b) in edges {
            if coin {
                links.add(a / w * w + (w - 1 - a % w), b / w * w + (w - 1 - b % w));
            } else {
                links.add(a, b);
            }
        }
        let first = if self.closed {
            0
        } else {
            links.ends().next().unwrap_or(0)
        };
        links.trace(first, |v| self.board.index(self.walk.square(v)))
    }
}

impl<K: Key, C: Count> Batch for Meet<K, C> {
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault> {
        let mut samples: Vec<Sample<K>> = (0..n)
            .map(|j| {
                let mut rng = tour_rng(seed, first + j as u64);
                let rank = below_u128(&mut rng, self.total);
                let leaf = self.leaves.partition_point(|l| l.start <= rank) - 1;
                Sample {
                    rng,
                    rank,
                    leaf,
                    side: [Walker::default(); 2],
                    edges: Vec::with_capacity(self.walk.n as usize),
                }
            })
            .collect();
        self.leaves_part(&mut samples)?;
        self.shared_part(&mut samples)?;
        Ok(samples
            .into_iter()
            .map(|mut s| {
                let coin = s.rng.bool();
                let dir = s.rng.bool();
                let mut p = self.path(&s.edges, coin);
                if !self.closed && dir {
                    p.reverse();
                }
                (p, dir)
            })
            .collect())
    }

    fn total(&self) -> u128 {
        self.total
    }

    fn describe(&self) -> String {
        self.setup.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layers that are nodes of a store are read back from it, not written to the file: the
    /// file holds only the others, and every layer reads back as it went in, after pops too.
    #[test]
    fn kept_nodes_read_back_from_their_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(NodeStore::open(dir.path(), 9, 8, None).unwrap());
        let layer = |n: u64, len: u64| -> Table<u64, u64> {
            (0..len).map(|i| Entry::new(i * 5 + n, i + n)).collect()
        };
        let layers: Vec<Table<u64, u64>> = (0..5).map(|n| layer(n, 2000 + 100 * n)).collect();
        // layers 1 and 3 are nodes [1] and [1, 0] of the store
        let names = [None, Some(vec![1]), None, Some(vec![1, 0]), None];
        for (l, name) in layers.iter().zip(&names) {
            if let Some(name) = name {
                assert!(store.write(name, l));
            }
        }
        let mut kept: Kept<u64, u64> = Kept::from_store(&std::env::temp_dir(), Some(store));
        for (i, (l, name)) in layers.iter().zip(&names).enumerate() {
            kept.push_named(l.clone(), i >= 2, name.clone()).unwrap();
        }
        let file = |k: &Kept<u64, u64>| k.disk.as_ref().unwrap().file.metadata().unwrap().len();
        let written = [0, 2, 4].map(|t| layers[t].len()).iter().sum::<usize>();
        assert_eq!(file(&kept), (written * disk_entry::<u64, u64>()) as u64);
        for (t, l) in layers.iter().enumerate() {
            assert!(*kept.layer(t).unwrap() == *l, "layer {t}");
        }
        for n in (1..layers.len()).rev() {
            kept.pop().unwrap();
            assert!(kept.last().unwrap() == &layers[n - 1], "after a pop to {n}");
        }
        assert_eq!(
            file(&kept),
            (layers[0].len() * disk_entry::<u64, u64>()) as u64
        );
    }

    /// Layers kept read back as they went in, in memory or from a file (layers past the part a
    /// file is written in at a time among them), and a pop makes the layer before the last
    /// again, its bytes given back.
    #[test]
    fn kept_layers_read_back_and_pop_in_memory_and_on_disk() {
        let layers: Vec<Table<u64, u128>> = [3, 1000, 150_000, 0, 70_000]
            .iter()
            .enumerate()
            .map(|(n, &len)| {
                (0..len as u64)
                    .map(|i| Entry::new(i * 7 + n as u64, (u128::from(i) << 70) | n as u128))
                    .collect()
            })
            .collect();
        for disk_from in [None, Some(0), Some(2)] {
            let mut kept: Kept<u64, u128> = Kept::new(&std::env::temp_dir());
            for (i, l) in layers.iter().enumerate() {
                kept.push(l.clone(), disk_from.is_some_and(|d| i >= d))
                    .unwrap();
            }
            assert_eq!(kept.on_disk(), disk_from.is_some());
            for (t, l) in layers.iter().enumerate() {
                assert!(*kept.layer(t).unwrap() == *l, "layer {t}");
            }
            for n in (1..layers.len()).rev() {
                kept.pop().unwrap();
                assert_eq!(kept.len(), n);
                assert!(kept.last().unwrap() == &layers[n - 1], "after a pop to {n}");
                if let Some(d) = &kept.disk {
                    let bytes: usize =
                        layers[..n].iter().map(Vec::len).sum::<usize>() * disk_entry::<u64, u128>();
                    assert_eq!(d.file.metadata().unwrap().len(), bytes as u64);
                    assert_eq!(kept.held(), layers[n - 1].len() as u64);
                }
            }
            // down another way: pushed after the pops, every layer reads back
            kept.push(layers[2].clone(), false).unwrap();
            kept.push(layers[0].clone(), false).unwrap();
            let now = [&layers[0], &layers[2], &layers[0]];
            for (t, l) in now.iter().enumerate() {
                assert!(*kept.layer(t).unwrap() == **l, "layer {t} pushed again");
            }
            if let Some(d) = &kept.disk {
                let bytes: usize =
                    now.iter().map(|l| l.len()).sum::<usize>() * disk_entry::<u64, u128>();
                assert_eq!(d.file.metadata().unwrap().len(), bytes as u64);
            }
        }
    }
}
