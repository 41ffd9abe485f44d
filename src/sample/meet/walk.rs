//! The walk back: a sample's pair joined across the crossing, each side walked back to its
//! root by its predecessors' counts, and the shared walk back to the first square.

use super::*;

impl<K: Key, C: Count> Meet<K, C> {
    /// Walk square `v` of `side`, its rows reversed where `flip`: the board walk number (the
    /// right side's walk is the board's, end to end).
    pub(super) fn place(&self, side: usize, v: u32, flip: bool) -> u32 {
        let w = self.walk.w;
        let v = if flip { self.walk.mirrored(v) } else { v };
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
    pub(super) fn back(
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
    pub(super) fn leaves_part(&self, samples: &mut [Sample<K>]) -> Result<(), Fault> {
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
                // resident otherwise, and the bound counts them)
                self.relieve();
                self.fits(xs.held() + ys.held() + self.shared.held())?;
            }
            // the leaf's own walks, every layer kept (to disk past the tables' share of the
            // bound): the right's first, whose classes tell which crossing states can join
            // (the others and all they lead to are dropped)
            let path_states: u64 = xs.held() + ys.held() + self.shared.held();
            let (xnode, ynode) = (deepest(&xs), deepest(&ys));
            // a third of the bound: the tables a step makes, the join's and the allocator's
            // slack take the rest (a half passes the bound)
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

    /// For each crossing step `i`, the needs of boundary squares `0..=i` that some right
    /// state of `ye` meets (see [`asks`]).
    pub(super) fn prefixes(
        &self,
        ye: &Table<K, C>,
        index: Option<&SampleJoin>,
    ) -> Vec<FxHashSet<u64>> {
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
    pub(super) fn back_kept(
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
    pub(super) fn up(
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
    pub(super) fn join(
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
    pub(super) fn shared_part(&self, samples: &mut [Sample<K>]) -> Result<(), Fault> {
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
    pub(super) fn either_way(&self, samples: &mut [Sample<K>], who: &[(usize, usize)], t: usize) {
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
    pub(super) fn path(&self, edges: &[(u32, u32)], coin: bool) -> Vec<u32> {
        let mut links = Links::new(self.walk.n as usize);
        for &(a, b) in edges {
            if coin {
                links.add(self.walk.mirrored(a), self.walk.mirrored(b));
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
