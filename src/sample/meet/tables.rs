//! The tables of a leaf made again from the roots: the forward walk, the nodes of the digit
//! tree one digit a step, the walks below a node, and the memory they may hold.
//!
//! The sampler makes its layers with sorted vectors of its own, not the count's `Builder`: it
//! keeps every layer with each state's predecessors to walk back, which the count's tables do not.

use super::*;

impl<K: Key, C: Count> Meet<K, C> {
    /// The sampler `a` says, its shared walk made (and the nodes its store lacks, where kept).
    pub(super) fn new(a: &Again) -> Result<Meet<K, C>, Fault> {
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
        let room =
            crate::frontier::tables_room(req.max_memory, &walk, rayon::current_num_threads());
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
    pub(super) fn forward(&self) -> Result<(Kept<K, C>, u64), Fault> {
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
            // the successors freed making it go back to the system: the allocator keeps them
            // resident otherwise, twice the tables
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
    pub(super) fn child(
        &self,
        layer: &Table<K, C>,
        step: &Step<K>,
        digit: usize,
    ) -> Result<Table<K, C>, Fault> {
        self.child_kept(layer, step, digit, &|_| true)
    }

    /// [`Meet::child`] of the states `keep` keeps. The successors before they are summed take
    /// most of the memory (several times the table they sum to): past an eighth of the bound, or of half the room the process leaves (its
    /// resident size, the table made and the bound's margin aside), at least 64 MiB, they are
    /// made in groups of buckets, the whole layer expanded again for each group and only its
    /// buckets kept, which gives the same table in the same order.
    pub(super) fn child_kept(
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
            let room = bound.saturating_sub(crate::memory::needed(bound, made));
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
        // groups and their copy at once would be twice the table
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
    pub(super) fn mirror_at(&self, t: usize) -> (&Perm<K>, u32) {
        let step = &self.fwd[t - 1];
        (
            step.mirror
                .as_ref()
                .expect("a symmetric count merges mirror images at column ends"),
            step.width,
        )
    }

    /// The true table of the merged `t`: each state and its image, half the count each.
    pub(super) fn unmerged(&self, t: usize) -> Result<Table<K, C>, Fault> {
        let (perm, width) = self.mirror_at(t);
        let merged = self.shared.layer(t)?;
        // made in a table of its own size (a parallel collect of unknown length gathers pieces,
        // then copies them: twice the table at once)
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

    /// The root of `side`: the side made true, each state and its image apart.
    pub(super) fn root(&self, side: usize) -> Result<Table<K, C>, Fault> {
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
    pub(super) fn right_node(
        &self,
        parent: &Table<K, C>,
        digits: &[u8],
    ) -> Result<Named<K, C>, Fault> {
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
    /// instead of making them, most of a batch's time without a store. What the store holds,
    /// in words.
    pub(super) fn fill(&self, store: &NodeStore, tell: Option<fn(&str)>) -> Result<String, Fault> {
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
    /// keeps it otherwise, resident): see [`crate::memory::relieve`].
    pub(super) fn relieve(&self) {
        crate::memory::relieve(self.max_memory);
    }

    /// Whether the nodes above a leaf go to disk from now on: where those in memory and a new
    /// one of `next` states would pass a quarter of the bound (a long board's nodes, tens of
    /// millions of states at the right root and more below it, pass any memory).
    pub(super) fn path_full(&self, xs: &Kept<K, C>, ys: &Kept<K, C>, next: usize) -> bool {
        fail::fail_point!("sample-path-disk", |_| true);
        (xs.held() + ys.held() + next as u64) * entry_bytes::<K, C>() > self.room / 4
    }

    /// An error where `states` of tables held in memory pass the memory bound (the deepest
    /// nodes of both sides, the shared walk's last layer and a leaf's walks in memory: each
    /// goes to disk past its share, but the deepest nodes stay).
    pub(super) fn fits(&self, states: u64) -> Result<(), Fault> {
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
}
