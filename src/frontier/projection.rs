//! The projection of a count before it runs, and as it runs: its largest layer, time, memory
//! and disk from the layer sizes a short walk measures, and the refusals and notes they give.
//! The model's constants stand beside the sentence that states each.

use super::*;

/// What a frontier count is estimated to need at its largest layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    pub states: f64,
    pub bytes: f64,
    /// The pieces' time (a meeting's), or the whole sweep's.
    pub seconds: f64,
    /// A meeting's shared walk: the forward walk to the tables every piece starts from, which
    /// a run makes first unless it reads them from a split file (0 for a sweep).
    pub shared_seconds: f64,
}

/// How many times longer a count takes whose tables pass the bound and go through disk (7x7
/// open under 128M and 8x8 closed under 256M took 1.3 and 1.4 times their time in memory).
pub(super) const DISK_SLOWDOWN: f64 = 1.5;

/// What a count needs under its bound, projected (see `Run::disk_plan`).
/// States of a saved stage past which reading it back is announced (a few seconds' reading).
pub(super) const LOAD_NOTE_STATES: u64 = 10_000_000;

pub(super) struct DiskPlan {
    pub(super) seconds: f64,
    pub(super) disk: f64,
    pub(super) free: Option<u64>,
    pub(super) dir: PathBuf,
    /// Bytes a save of the largest layer takes beside the checkpoint while it replaces the
    /// last (two saves' frames), where there is a checkpoint.
    pub(super) saves: f64,
}

/// A size as `--max-memory` takes it, rounded up to whole MiB (or GiB past 10 GiB).
pub(crate) fn size_arg(bytes: u64) -> String {
    pub(super) const MIB: u64 = 1 << 20;
    if bytes > 10 << 30 {
        format!("{}G", bytes.div_ceil(1 << 30))
    } else {
        format!("{}M", bytes.div_ceil(MIB).max(1))
    }
}

/// The longest frontier count started without a checkpoint (unless `--force`): an hour.
pub(super) const UNSAVED_SECONDS: f64 = 3600.0;

/// What the process holds besides its tables: its code, the allocator's first arenas and the
/// threads' stacks (6 to 9 MiB resident for counts of a few thousand states).
pub(super) const BASE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// What the forward walk of a meeting leaves resident, for each column it walks, in tables of
/// its last column's end: its layers inside a column are larger than at its ends, and the
/// allocator keeps what they freed for the tables to come. Before their pieces 5x10 to 5x16,
/// 6x8 to 6x12 closed, 7x7 and 7x8 open and closed held 0.6 to 1.9 times such a table a
/// column, beyond the process's start.
pub(super) const FORWARD_KEPT: f64 = 1.1;

/// States the reach probe walks to (about a second).
pub(super) const PROBE_STATES: u64 = 2_000_000;

/// Time a state costs at a layer, on one thread, for the estimate (measured 0.1 to 0.3 µs).
pub(super) const SECONDS_PER_STATE: f64 = 3e-7;

/// Time a state read by a step of the digit tree costs, on one thread (0.23 to 0.28 µs measured
/// on boards 5 to 7 wide, the joins included).
pub(super) const SECONDS_PER_READ: f64 = 2.5e-7;

/// How many times [`SECONDS_PER_READ`] a read costs where a state takes two words (boards 8
/// wide): as the up-front projection counts reads, 8x8 closed took 0.64 µs a read, 8x9 closed
/// 0.77 and 8x8 open (its ledger's CPU time) 0.5. Their keys and entries are twice and one and a
/// half times as wide, and their joins pair more states for each read (a sixth of the time of
/// 8x9 closed in a profile, against a fortieth of 7x7's).
pub(super) const WIDE_READ_COST: f64 = 2.5;

/// The cost of a read relative to [`SECONDS_PER_READ`] on `walk`, in the model's reads: a wide
/// board's (keys of two words walked straight, 8 wide) [`WIDE_READ_COST`]; and a walk in a
/// tuned order, which reads fewer states than the straight walk the model counts (its reads
/// dearer where its keys take two words where the straight walk's take one), the time it
/// took against the straight walk's ([`crate::walk::order::tuned_time`]).
pub(super) fn read_cost(walk: &Walk) -> f64 {
    let wide = if walk.floor_shape().1 > 8 {
        WIDE_READ_COST
    } else {
        1.0
    };
    wide * crate::walk::order::tuned_time(walk.w, &walk.rows)
}

/// Estimates the largest layer of a frontier count, its memory and its time from a probe: the
/// real walk to about `PROBE_STATES` (2,000,000) states or the forward walk's end, then the
/// model of `growth.rs` (columns not walked grow by a power of the growth before them, and the
/// pieces read states in proportion to the columns they walk), the tree's parts under the
/// default memory bound, as `knights count` prints them.
pub fn reach(board: Board, piece: &Piece, spec: &CountSpec) -> Result<Reach, RunError> {
    // under the default bound, as `knights count` prints it: the bound sets what waits on disk
    reach_under(
        board,
        piece,
        spec,
        rayon::current_num_threads(),
        crate::memory::default_max_memory(),
    )
}

/// `$body` with `$run` a count of `$board` that walks nothing yet, made under `$limits`, its
/// request checked first: what every projection starts from.
macro_rules! probe {
    ($board:expr, $piece:expr, $spec:expr, $limits:expr, $run:ident => $body:expr) => {{
        supports($board, $piece, $spec)?;
        let req = Request {
            board: $board,
            piece: $piece,
            spec: $spec,
        };
        let walk = Walk::of($board, $piece, $spec);
        let limits = $limits;
        let stop = AtomicBool::new(false);
        keyed!(walk, K => {
            #[allow(unused_mut)]
            let mut $run = Run::<K>::new(req, &limits, walk, Method::Auto, &stop, &Quiet)?;
            $body
        })
    }};
}

/// [`reach`] on `threads` threads under the memory bound `max_memory` (the exact sampler's
/// choice, which must not depend on the machine's threads).
pub(crate) fn reach_under(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    threads: usize,
    max_memory: u64,
) -> Result<Reach, RunError> {
    let limits = Limits {
        threads,
        max_memory,
        ..quiet_limits()
    };
    probe!(board, piece, spec, limits, run => Ok(run.reach()))
}

/// The time of the walk a meeting's pieces share (the forward walk to the tables they start
/// from), as the count's own first projection gives it under the default memory bound on every
/// thread, longer where its tables go through disk: for `knights status`, so that it says what
/// the command it suggests will say. `None` where the count does not meet in the middle.
pub fn shared_walk_seconds(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
) -> Result<Option<f64>, RunError> {
    let limits = Limits {
        max_memory: crate::memory::default_max_memory(),
        ..quiet_limits()
    };
    probe!(board, piece, spec, limits, run => {
        let r = run.reach();
        let plan = run.disk_plan(&r);
        let slow = plan.seconds / (r.seconds + r.shared_seconds).max(f64::MIN_POSITIVE);
        Ok((r.shared_seconds > 0.0).then_some(r.shared_seconds * slow))
    })
}

/// The forward walk's layer sizes the estimate of [`reach`] reads: `(squares walked, states)`,
/// at every square of a sweep and at every column end of a meeting, walked until a layer passes
/// `PROBE_STATES` (2,000,000) states or the board ends.
pub fn reach_sizes(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
) -> Result<Vec<(usize, u64)>, RunError> {
    probe!(board, piece, spec, quiet_limits(), run => Ok(run.probe_sizes()))
}

/// The estimate of [`reach`] from the layer sizes `sizes` of [`reach_sizes`], on `threads`
/// threads under the memory bound `max_memory`: the projection alone, which walks nothing and
/// reads nothing of the machine (its cost of a read is a constant), so that it can be checked
/// on recorded sizes.
pub fn reach_from(
    board: Board,
    piece: &Piece,
    spec: &CountSpec,
    sizes: &[(usize, u64)],
    threads: usize,
    max_memory: u64,
) -> Result<Reach, RunError> {
    let limits = Limits {
        threads,
        max_memory,
        ..quiet_limits()
    };
    probe!(board, piece, spec, limits, run => Ok(run.estimate(sizes)))
}

impl<K: Key> Run<'_, K> {
    /// See [`reach`].
    pub(super) fn reach(&mut self) -> Reach {
        let sizes = self.probe_sizes();
        self.estimate(&sizes)
    }

    /// See [`reach_sizes`].
    pub(super) fn probe_sizes(&mut self) -> Vec<(usize, u64)> {
        // as the count checks: a square at a time in a sweep, a column at a time before a
        // meeting, whose walk ends at the forward walk's end
        let w = self.walk.w as usize;
        let end = self
            .cut
            .map_or(usize::MAX, |c| c.left.max(c.right - 1) as usize * w);
        self.squares(PROBE_STATES, self.cut.is_some(), end)
            .into_iter()
            .enumerate()
            .filter(|(s, _)| self.cut.is_none() || (s % w == 0 && *s <= end))
            .collect()
    }

    /// The estimate of [`reach`] from the forward walk's layer sizes `sizes` (see [`Run::sizes`]).
    ///
    /// A meeting is projected at no less than a shorter board of its width would be from the
    /// same walk (its sizes cut at that board's forward end): so a longer board, whose walk
    /// begins as the shorter one's does, is never projected at less time or memory, even where a
    /// column the shorter board projected is measured on the longer one and holds fewer states
    /// than projected (see [`growth::project_columns`]).
    pub(super) fn estimate(&self, sizes: &[(usize, u64)]) -> Reach {
        let len = self.walk.len;
        let Some(cut) = self.cut else {
            return self.estimate_at(len, None, sizes);
        };
        // the sizes the count's walk gives a board cut as `c`: to its forward walk's end, or
        // to the first column past `PROBE_STATES`
        let walked = |c: Cut| {
            let end = c.left.max(c.right - 1) as usize * self.walk.w as usize;
            let mut part = Vec::new();
            for &(s, states) in sizes.iter().take_while(|x| x.0 <= end) {
                part.push((s, states));
                if states > PROBE_STATES {
                    break;
                }
            }
            part
        };
        let mut r = self.estimate_at(len, Some(cut), &walked(cut));
        for n in 1..len {
            if let Some(c) = middle(n, cut.cross) {
                let shorter = self.estimate_at(n, Some(c), &walked(c));
                r.states = r.states.max(shorter.states);
                r.bytes = r.bytes.max(shorter.bytes);
                r.seconds = r.seconds.max(shorter.seconds);
                r.shared_seconds = r.shared_seconds.max(shorter.shared_seconds);
            }
        }
        r
    }

    /// The estimate of [`Run::estimate`] for a board of this width `len` columns long, cut as
    /// `cut`, from the forward walk's layer sizes `sizes`.
    pub(super) fn estimate_at(&self, len: u32, cut: Option<Cut>, sizes: &[(usize, u64)]) -> Reach {
        let w = self.walk.w;
        let col = growth::project_columns(w as usize, len as usize, sizes);
        let entry = (self.walk.key_bytes() + 8) as f64;
        let threads = self.limits.threads.max(1) as f64;
        let per_read = SECONDS_PER_READ * read_cost(&self.walk) / threads;
        let mut shared_seconds = 0.0;
        let (states, bytes, seconds) = match cut {
            Some(cut) => {
                // the largest table the digit tree needs in memory is the forward walk's last
                // column end (the roots wait on disk where they are large, and the tree's nodes
                // are cut to the bound)
                let (l, r) = (col[cut.left as usize], col[cut.right as usize - 1]);
                let states = l.max(r);
                // one side made true: twice its states
                let (x, y) = if sizes::true_right(l as u64, r as u64) {
                    (l, 2.0 * r)
                } else {
                    (2.0 * l, r)
                };
                // as the tree's line before the first piece (`meet::Run::projection`), its
                // parts estimated: what the forward walk leaves resident, the nodes above a
                // piece, and a leaf's walk at its largest, growing as the forward walk's last
                // column is projected to
                let roots = (x + y) as u64;
                let last = cut.left.max(cut.right.saturating_sub(1)) as usize;
                let start = col[last.saturating_sub(1)];
                let per = (start >= sizes::COLUMN_MEASURED as f64)
                    .then(|| sizes::column_reads_from_growth(w, col[last] / start.max(1.0)));
                let reads = growth::meeting_reads(w, cut.left as usize, cut.right as usize, &col);
                shared_seconds = growth::forward_reads(w, last, &col) * per_read;
                let depth = sizes::depth_for(roots, self.limits.shards as usize, w);
                let leaf = sizes::leaf_states(self.limits, entry as u64);
                // the forward walk's tables: what the allocator keeps of each column's while the
                // roots stay in memory, one table where they wait on disk (a root made true, of
                // twice the states, there: 8x8 open)
                let table = states * entry / 0.7;
                let kept = if sizes::root_on_disk(table * 2.0, self.limits.max_memory) {
                    1.0
                } else {
                    last as f64 * FORWARD_KEPT
                };
                let (held, made) = sizes::above_parts(
                    x as u64,
                    y as u64,
                    depth,
                    entry / 0.7,
                    sizes::spill_bytes(self.limits.max_memory) as f64,
                );
                let needed = table * kept
                    + held
                    + sizes::leaf_bytes(leaf, roots, entry as u64, sizes::leaf_growth(per, w));
                // the side made before it waits on disk is counted up to the bound, not past
                // it: the tree makes it beside memory it gives back near the bound (8x8 open,
                // 15.4 GiB projected under the default bound, took 9.3 GiB at most under
                // --max-memory 10G). The rest must fit (8x10 closed, 4.1 GiB without that side,
                // stopped making its roots under 4G)
                let room = (self.limits.max_memory as f64 - BASE_BYTES).max(0.0);
                (
                    states,
                    (needed + made).min(room).max(needed),
                    reads * per_read,
                )
            }
            None => {
                let states = col[(len as usize * 3).div_ceil(4)];
                // two tables at 3/4 full, plus the batches
                let bytes = states * entry / 0.75 * 2.5;
                (
                    states,
                    bytes,
                    states * f64::from(2 * w) * SECONDS_PER_STATE / threads
                        * crate::walk::order::tuned_time(w, &self.walk.rows),
                )
            }
        };
        Reach {
            states,
            bytes: bytes + BASE_BYTES,
            seconds,
            shared_seconds,
        }
    }

    /// The reach check, on the count's own forward walk (no separate probe): once a layer passes
    /// [`PROBE_STATES`] states, or at the end of the walk, the column sizes so far give the
    /// estimate of [`reach`]; a count far out of reach stops there with the estimate, unless
    /// `--force`.
    pub(super) fn check_reach(
        &mut self,
        square: usize,
        layer: &Node<K>,
        end: bool,
    ) -> Result<(), RunError> {
        if !self.probe {
            return Ok(());
        }
        self.sizes.push((square + 1, layer.len()));
        if !(end || layer.len() > PROBE_STATES) {
            return Ok(());
        }
        self.probe = false;
        let r = self.estimate(&self.sizes);
        let mut plan = self.disk_plan(&r);
        // (the fail point sets the whole count's time, for the tests of what a long count says)
        if let Some(secs) =
            fail::eval("projected-seconds", |s| s.and_then(|s| s.parse().ok())).flatten()
        {
            plan.seconds = secs;
        }
        let threads = self.limits.threads.max(1);
        let estimate = if self.req.board.squares() <= 64 {
            ", or `knights estimate` for an estimate of the count in seconds"
        } else {
            ""
        };
        // what this run will count, where the records or --only say before the cut: the walk
        // its pieces share, then those pieces at the mean piece's share of the whole (a
        // projection by class follows from the records once the count is cut)
        let slow = plan.seconds / (r.seconds + r.shared_seconds).max(f64::MIN_POSITIVE);
        let part = self
            .expected
            .filter(|e| self.cut.is_some() && e.of.is_none_or(|of| e.pieces < of));
        // a shard of a count not yet cut (nothing recorded): the walk its pieces share, then
        // its share of the pieces at the mean piece's (a shard is about 1/N of them)
        let shards = self.limits.shards.max(1);
        let sharded = part.is_none() && self.cut.is_some() && shards > 1;
        let seconds = match part {
            None if sharded => (r.shared_seconds + r.seconds / f64::from(shards)) * slow,
            None => plan.seconds,
            Some(e) => {
                let share = e.of.map_or(0.0, |of| e.pieces as f64 / of.max(1) as f64);
                (r.shared_seconds + r.seconds * share) * slow
            }
        };
        // a board 9 or 10 wide is swept in one piece, projected from its narrow first columns,
        // which grow more slowly than those past them (9x10 closed: more than 50 hours measured
        // against 2.7 projected)
        let lower =
            self.cut.is_none() && self.rules.mirror && self.walk.reach * self.walk.w > MAX_BOUNDARY;
        let basis = if lower {
            "projected from the growth of the columns walked so far, which on a board this wide is a lower bound: its later columns grow faster"
        } else {
            "projected from the growth of the columns walked so far, which may err a few times either way"
        };
        let these = if sharded {
            format!("one shard of {shards} of these tours")
        } else {
            "these tours".to_string()
        };
        let force = self.limits.force;
        if seconds > crate::dfs::REACH_SECONDS && !force {
            return Err(Error::Refused(format!(
                "counting {these} on {} with the frontier engine is out of reach: its largest layer is projected at {:.1e} states, about {} of tables, and the count at {} on {} thread{} ({basis}); that is more than 30 days on this machine: it needs many more cores{estimate}; --force starts it anyway",
                self.req.board,
                r.states,
                human_bytes(r.bytes as u64),
                human_duration(seconds),
                threads,
                plural(threads as u64),
            ))
            .into());
        }
        if let Some(free) = plan.free.filter(|&f| (f as f64) < plan.disk && !force) {
            return Err(Error::Refused(format!(
                "counting {these} on {} needs about {} of disk for the tables that pass the memory bound ({} of tables projected, the bound {}) and about {} on {} thread{} ({basis}), and the scratch folder '{}' has {} free: give a folder on a larger disk with --scratch DIR, or a larger --max-memory; --force starts it anyway",
                self.req.board,
                human_bytes(plan.disk as u64),
                human_bytes(r.bytes as u64),
                human_bytes(self.limits.max_memory),
                human_duration(seconds),
                threads,
                plural(threads as u64),
                plan.dir.display(),
                human_bytes(free),
            ))
            .into());
        }
        let unsaved = seconds > UNSAVED_SECONDS && self.saver.path.is_none();
        if unsaved && !force {
            return Err(Error::Refused(format!(
                "counting {these} on {} would take about {} on {} thread{} and {} of memory ({basis}), and nothing would be kept if it stopped: add --checkpoint FILE so that a stop loses at most the part in progress (or --force to start it without one){estimate}",
                self.req.board,
                human_duration(seconds),
                threads,
                plural(threads as u64),
                human_bytes((r.bytes as u64).min(self.limits.max_memory))
            ))
            .into());
        }
        if unsaved {
            self.obs.warn(&format!(
                "started with --force and no --checkpoint: nothing of this count is kept if it stops (about {} projected); with --checkpoint FILE a stop loses at most the part in progress",
                human_duration(seconds)
            ));
        }
        // (a run of a part says so where the whole is long, however short its part)
        if seconds > 60.0 || ((part.is_some() || sharded) && plan.seconds > 60.0) {
            let disk = if plan.disk > 0.0 {
                format!(
                    " and about {} of disk in '{}' for the tables past the bound ({} of tables projected; a bound of {} would keep them in memory)",
                    human_bytes(plan.disk as u64),
                    plan.dir.display(),
                    human_bytes(r.bytes as u64),
                    size_arg(r.bytes as u64 * 2),
                )
            } else {
                String::new()
            };
            // the saves of the largest layers where they and the tables on disk may not both fit
            // (a save without room is skipped, and the count goes on: see `Saver::save`)
            let saves = match plan.free {
                Some(free) if plan.saves > 0.0 && plan.disk + plan.saves > free as f64 => format!(
                    "; its saves of the largest layers take about {} more beside the checkpoint, and where the disk lacks room for one it is skipped (a stop then loses the layers since the last save)",
                    human_bytes(plan.saves as u64)
                ),
                _ => String::new(),
            };
            let memory = human_bytes((r.bytes as u64).min(self.limits.max_memory));
            let time = if lower {
                format!("at least {}", human_duration(seconds))
            } else {
                format!("about {}", human_duration(seconds))
            };
            let what = match part {
                None if sharded => format!(
                    "this shard may take {time}: the walk every piece shares first (about {}), then about 1/{shards} of the pieces at the mean piece's share (pieces differ by their class: the records project them once the count is cut); the whole count, about {}",
                    human_duration(r.shared_seconds * slow),
                    human_duration(plan.seconds)
                ),
                None => format!("this count may take {time}"),
                Some(e) => {
                    let pieces = format!(
                        "{} piece{}",
                        group_u64(e.pieces as u64),
                        plural(e.pieces as u64)
                    );
                    let then = match e.of {
                        Some(of) => format!(
                            "then the {pieces} of its {} left to count at the mean piece's share (pieces differ by their class: the records project them once the count is cut)",
                            group_u64(of as u64)
                        ),
                        None => format!(
                            "then the {pieces} --only names, projected once the count is cut into pieces"
                        ),
                    };
                    format!(
                        "this run may take {time}: the walk every piece shares first (about {}), {then}; the whole count, about {}",
                        human_duration(r.shared_seconds * slow),
                        human_duration(plan.seconds)
                    )
                }
            };
            self.obs.info(&format!(
                "{what}, and {memory} of memory{disk} ({basis}){saves}"
            ));
        }
        Ok(())
    }

    /// What a count of reach `r` needs under the bound: its time (longer where tables go to
    /// disk), the disk for what passes the bound, and the scratch folder's free space.
    pub(super) fn disk_plan(&self, r: &Reach) -> DiskPlan {
        let dir = scratch_dir(self.limits);
        let spills = r.bytes > self.sweep.limit.tables as f64;
        let entry = (self.walk.key_bytes() + 8) as f64;
        // the pieces and the walk they share
        let seconds = r.seconds + r.shared_seconds;
        DiskPlan {
            seconds: if spills {
                seconds * DISK_SLOWDOWN
            } else {
                seconds
            },
            // a layer read from disk, the next written as runs, and their sum: three of the
            // largest layer at the most, in frames a few times smaller than the entries
            disk: if spills {
                3.0 * r.states * entry / crate::disk::frames::FRAME_SHRINK
            } else {
                0.0
            },
            free: scratch_free(&dir),
            dir,
            saves: if self.saver.path.is_some() {
                2.0 * r.states * entry / crate::disk::frames::FRAME_SHRINK
            } else {
                0.0
            },
        }
    }
}
