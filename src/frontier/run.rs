//! One frontier count: its rules, its walk, its meeting and its tables, from the first layer
//! to the total.

use super::*;

/// One frontier count.
pub(super) struct Run<'a, K: Key> {
    pub(super) req: Request<'a>,
    pub(super) limits: &'a Limits,
    pub(super) walk: Walk,
    pub(super) rules: Rules,
    pub(super) cut: Option<Cut>,
    pub(super) stop: &'a AtomicBool,
    pub(super) obs: &'a dyn Observer,
    pub(super) name: RunName,
    pub(super) sweep: Sweep<'a, K>,
    pub(super) saver: Saver,
    /// Where the work all pieces share is kept once done: `FILE.split` beside the log.
    pub(super) split_path: Option<PathBuf>,
    /// The piece being counted, for progress: `(number, pieces)`.
    pub(super) piece: Option<(usize, usize)>,
    /// Layers of the current stage (steps, plus one for a join).
    pub(super) total: usize,
    /// Steps of the walk before the current stage's first (a piece's walk starts past the
    /// crossing's first column): subtracted from step numbers in progress and messages.
    pub(super) offset: usize,
    /// How many headline tours a unit of this count stands for (2 for open tours in both
    /// directions counted once), for progress.
    pub(super) scale: u64,
    /// A count settled before any walk (a path from a square to itself, non-adjacent ends).
    pub(super) settled: Option<(BigUint, &'static str)>,
    /// Whether the count sweeps by sums (`Method::Sums`).
    pub(super) by_sums: bool,
    /// Whether the reach check is still to come (see [`Run::check_reach`]).
    pub(super) probe: bool,
    /// What this run will count, where the driver knows it before the cut (see
    /// [`Host::expected`]).
    pub(super) expected: Option<crate::engine::Expected>,
    /// The forward walk's layer sizes so far: `(squares walked, states)`, at every square where
    /// the walk goes a square at a time, at column ends where it goes a column at a time.
    pub(super) sizes: Vec<(usize, u64)>,
    /// States the forward walk's last column read for each state it started from (for the
    /// projection of the pieces' time).
    pub(super) column_reads: f64,
    /// The states that column started from.
    pub(super) column_start: u64,
    /// The finished leaves of the grid piece in progress (`FILE.leaves`).
    pub(super) leaves: leaves::LeafLog,
    /// The finished leaves of the forward walk's column in progress (`FILE.column/`).
    pub(super) column_log: column::ColumnLog,
    /// The words a column's leaves asked its table for, past those it had (see `tree.rs`).
    pub(super) column_wider: usize,
    /// Where a meeting's leaves are told as they are joined (the exact sampler's, see
    /// [`meet_leaves`]); `None` for a count.
    pub(super) sink: Option<std::sync::Mutex<MeetLeaves>>,
    /// When the run began, and the process's CPU seconds then (for [`Run::work`]).
    pub(super) began: (Instant, Option<f64>),
    pub(super) _key: std::marker::PhantomData<K>,
}

/// How a walk ended.
pub(super) enum Walked {
    Done(BigUint),
    /// Stopped by the flag.
    Interrupted,
}

impl<'a, K: Key> Run<'a, K> {
    pub(super) fn new(
        req: Request<'a>,
        limits: &'a Limits,
        walk: Walk,
        method: Method,
        stop: &'a AtomicBool,
        obs: &'a dyn Observer,
    ) -> Result<Run<'a, K>, RunError> {
        let spec = req.spec;
        let closed = spec.closed;
        let number = |s| walk.number(s);
        let symmetric = symmetric(spec);
        let mut rules = Rules::counting(&walk, closed, symmetric);
        let mut settled = None;
        match (spec.from.map(number), spec.to.map(number)) {
            (Some(a), Some(b)) if a == b && walk.n > 1 => {
                settled = Some((
                    BigUint::ZERO,
                    "a tour of more than one square cannot start and end on the same square",
                ));
            }
            (Some(a), Some(b)) if closed => {
                if walk.nb[a as usize].contains(&b) {
                    rules.forced_edge = Some((a, b));
                } else {
                    settled = Some((
                        BigUint::ZERO,
                        "a closed tour ends a move away from its start, and these squares are not",
                    ));
                }
            }
            (a, b) if !closed => rules.terminals = a.into_iter().chain(b).collect(),
            _ => {}
        }
        if walk.n == 1 {
            let one = if closed { 0u32 } else { 1 };
            settled = Some((BigUint::from(one), "a board of one square"));
        }
        let cut = match method {
            Method::Sums if !symmetric => {
                return Err(Error::Invalid(format!(
                    "a sweep by sums counts every tour of {} (no --from, --to or --no-symmetry)",
                    req.board
                ))
                .into());
            }
            Method::Sweep | Method::Sums => None,
            Method::Meet | Method::MeetAt(_) => {
                let (left, asked) = match method {
                    Method::MeetAt(c) => (c, true),
                    _ => ((walk.len - 1) / 2, false),
                };
                let c = cut_for(&walk, left).filter(|_| symmetric);
                if c.is_none() {
                    let h = walk.reach.max(1);
                    let why = if asked
                        && symmetric
                        && !(left >= 1 && walk.len - left.min(walk.len) > h)
                    {
                        // a cut asked for, not the middle `no_meeting` reasons about
                        format!(
                            "meeting after {left} columns needs a left half of at least one column and a right half of more than {h}, and {} has {} columns",
                            req.board, walk.len
                        )
                    } else {
                        format!(
                            "meeting in the middle needs {}",
                            no_meeting(&walk, symmetric, req.board)
                        )
                    };
                    return Err(Error::Invalid(why).into());
                }
                c
            }
            Method::Auto => auto_cut(&walk, symmetric),
        };
        let sq = |s: Option<crate::board::Square>| s.map_or("-".into(), |s| req.board.name(s));
        let mut name = RunName {
            fields: vec![
                ("version", env!("CARGO_PKG_VERSION").to_string()),
                ("board", req.board.to_string()),
                ("piece", req.piece.to_string()),
                ("kind", if closed { "closed" } else { "open" }.to_string()),
                ("from", sq(spec.from)),
                ("to", sq(spec.to)),
                (
                    "symmetry",
                    if spec.symmetry { "yes" } else { "no" }.to_string(),
                ),
                (
                    "mode",
                    match cut {
                        None if method == Method::Sums => "sweep by sums".to_string(),
                        None => "sweep".to_string(),
                        Some(c) => format!("meet-in-the-middle {}", c.left),
                    },
                ),
            ],
        };
        // (a narrow walk's name is what it always was: the files of earlier runs stay its own)
        if spec.wide {
            name.fields.push(("window", "wide".to_string()));
        }
        // and a column's rows where they are not in their straight order (another order makes
        // other states, other tables and other pieces)
        if !crate::walk::order::is_straight(&walk.rows) {
            let rows: Vec<String> = walk.rows.iter().map(u32::to_string).collect();
            name.fields.push(("order", rows.join(",")));
        }
        let path = limits.checkpoint.as_deref();
        let walk_n = walk.n;
        let room = super::tables_room(limits.max_memory, &walk, limits.threads);
        Ok(Run {
            req,
            limits,
            walk,
            rules,
            cut,
            stop,
            obs,
            name,
            sweep: Sweep {
                closed,
                limit: Bound {
                    tables: limits.tree.tables.unwrap_or(room),
                    process: limits.max_memory,
                },
                scratch: Scratch::new(scratch_dir(limits)),
                beside: 0,
                phases: std::sync::Mutex::default(),
                stop,
                peak_bytes: 0,
                peak_states: 0,
                spare: None,
                growth: Vec::new(),
                older: Vec::new(),
                last_growth: 1.0,
                read: 0,
                summed: 0,
                weighed: 0,
            },
            saver: Saver {
                path: path.map(|p| beside(p, ".layers")),
                last: Instant::now(),
                cost: Duration::ZERO,
                saved: false,
                skipped: 0,
                abandon: limits.abandon.clone(),
            },
            split_path: limits
                .split
                .clone()
                .or_else(|| path.map(|p| beside(p, ".split"))),
            piece: None,
            total: 0,
            offset: 0,
            scale: if fixed(spec) || closed || walk_n == 1 {
                1
            } else {
                2
            },
            settled,
            by_sums: method == Method::Sums,
            probe: false,
            expected: None,
            sizes: vec![(0, 1)],
            column_reads: 0.0,
            column_start: 0,
            leaves: leaves::LeafLog::default(),
            column_log: column::ColumnLog::default(),
            column_wider: 0,
            sink: None,
            began: (Instant::now(), crate::engine::cpu_seconds()),
            _key: std::marker::PhantomData,
        })
    }

    /// The cut of a count of one piece (a sweep, or a count settled before any walk).
    pub(super) fn single(&self, what: &str) -> Split {
        let mut h = Fnv::default();
        h.eat(what.as_bytes());
        for (k, v) in &self.name.fields {
            h.eat(k.as_bytes());
            h.eat(v.as_bytes());
        }
        Split {
            pieces: 1,
            param: 0,
            fingerprint: h.value(),
            weights: vec![self.scale],
        }
    }

    pub(super) fn go(mut self, host: &dyn Host) -> Result<Ran, RunError> {
        if let Some((n, why)) = self.settled.take() {
            let split = self.single("settled");
            if host.start(&split)?.contains(&0) {
                host.done(0, n)?;
            }
            return Ok(Ran {
                how: Some(why.to_string()),
                ..Ran::default()
            });
        }
        // the files a killed count left in the scratch folder go before this one makes its own
        self.sweep.scratch.remove_stale();
        let fresh = |p: &Option<PathBuf>| p.as_deref().is_none_or(|p| !p.exists());
        // (with --force too: it refuses nothing then, but says what the count may take)
        self.probe = fresh(&self.saver.path) && fresh(&self.split_path);
        self.expected = host.expected();
        match self.cut {
            None if self.by_sums => self.sweep_by_sums(host),
            None => self.sweep_all(host),
            Some(cut) => self.meet(cut, host),
        }
    }

    /// See [`profile`]; a column cut short by the budget ends the list with the states reached
    /// (a lower bound on the column's).
    pub(super) fn profile(&mut self, max_states: u64) -> Vec<(u32, u64)> {
        let w = self.walk.w as usize;
        let squares = self.squares(max_states, false, usize::MAX);
        let last = squares.len() - 1;
        (1..=last)
            .filter(|&s| s % w == 0 || (s == last && squares[s] > max_states))
            .map(|s| (s.div_ceil(w) as u32, squares[s]))
            .collect()
    }

    /// See [`profile_squares`].
    /// With `whole`, the walk stops only at a column's end; it stops after `upto` squares.
    pub(super) fn squares(&mut self, max_states: u64, whole: bool, upto: usize) -> Vec<u64> {
        let w = self.walk.w as usize;
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        let mut layer = self.first_layer();
        let mut out = vec![1];
        for step in &steps[..steps.len() - 1] {
            match self.sweep.step(layer.src(), step, |_| true) {
                Ok((next, _)) => layer = next,
                Err(_) => break,
            }
            out.push(layer.len());
            if out.len() > upto || layer.len() > max_states && (!whole || (out.len() - 1) % w == 0)
            {
                break;
            }
        }
        out
    }

    pub(super) fn progress(&self, done: usize, layer: &Node<K>, phase: &'static str) {
        self.progress_of(done, layer.len(), layer.bytes(), phase);
    }

    /// [`Run::progress`] of a layer of `states` in `bytes`.
    pub(super) fn progress_of(&self, done: usize, states: u64, bytes: u64, phase: &'static str) {
        self.obs.layer(&LayerProgress {
            done,
            total: self.total,
            states,
            bytes,
            phase,
            piece: self.piece,
        });
    }

    /// Walks `layer` through `steps[first..]` (step `i` is layer `base + i` of the stage),
    /// saving now and then `extra` with the current layer as `phase`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk_steps(
        &mut self,
        mut layer: Node<K>,
        steps: &[Step<K>],
        first: usize,
        base: usize,
        phase: &str,
        keep: &(dyn Fn(usize, K) -> bool + Sync),
        extra: &[(&str, Src<'_, K>)],
    ) -> Result<Walked, RunError> {
        let mut tours = BigUint::ZERO;
        let shown: &'static str = match phase {
            "sweep" => "sweep",
            "forward" => "forward",
            _ => "crossing",
        };
        for (i, step) in steps.iter().enumerate().skip(first) {
            match self.sweep.step(layer.src(), step, |k| keep(i, k)) {
                Ok((next, t)) => {
                    tours += t;
                    let old = std::mem::replace(&mut layer, next);
                    self.sweep.recycle(old);
                    self.sweep.peak_states = self.sweep.peak_states.max(layer.len());
                    self.saver.saved = false;
                    self.progress(base + i + 1 - self.offset, &layer, shown);
                    if shown != "crossing" {
                        self.check_reach(i, &layer, i + 1 == steps.len())?;
                    }
                    if self.saver.due() && i + 1 < steps.len() {
                        self.saver.save(
                            &self.name,
                            (
                                phase,
                                i + 1,
                                (i + 1).saturating_sub(self.offset),
                                self.total,
                            ),
                            &with_current(extra, &layer),
                            self.obs,
                        )?;
                    }
                    if !self.saver.saved {
                        crate::failpoint::hold("stepped", self.stop);
                    }
                }
                Err(Stopped::Interrupted) => {
                    if !self.saver.saved {
                        self.saver.save_stopping(
                            &self.name,
                            (phase, i, (i).saturating_sub(self.offset), self.total),
                            &with_current(extra, &layer),
                            self.obs,
                        )?;
                    }
                    return Ok(Walked::Interrupted);
                }
                Err(Stopped::Memory(bytes)) => {
                    return Err(self.memory_error(bytes, base + i - self.offset));
                }
                Err(Stopped::Overflow) => unreachable!("a step widens its counts"),
                Err(Stopped::Disk(e)) => return Err(e.into()),
            }
        }
        Ok(Walked::Done(tours))
    }

    pub(super) fn memory_error(&self, bytes: u64, at: usize) -> RunError {
        let piece = match self.piece {
            Some((i, n)) => format!(" in piece {} of {n}", i + 1),
            None => String::new(),
        };
        Error::Invalid(format!(
            "the frontier count of {} needs more than {} of memory at layer {} of {}{piece} (the bound on the whole process is {}; raise it with --max-memory SIZE)",
            self.req.board,
            human_bytes(bytes),
            at + 1,
            self.total,
            human_bytes(self.limits.max_memory),
        ))
        .into()
    }

    /// One sweep from the first square to the last: one piece.
    pub(super) fn sweep_all(&mut self, host: &dyn Host) -> Result<Ran, RunError> {
        let split = self.single("sweep");
        if host.start(&split)?.is_empty() {
            self.saver.clear();
            return Ok(Ran::default());
        }
        let steps = layout::steps::<K>(&self.walk, &self.rules, 0, self.walk.n);
        self.total = steps.len();
        let resume = match self.load_layers() {
            // stopped while the saved layer was read back: it stays as it was
            Err(_) if self.stopped() => return Ok(Ran::default()),
            r => r?,
        };
        let (layer, first) = match resume {
            Some(mut s) if s.phase == "sweep" => {
                let done = s.done;
                (s.take("current").ok_or_else(|| self.foreign_phase())?, done)
            }
            Some(_) => return Err(self.foreign_phase()),
            None => (self.first_layer(), 0),
        };
        self.saver.saved = first > 0;
        self.progress(first, &layer, "sweep");
        let keep = |_: usize, _: K| true;
        match self.walk_steps(layer, &steps, first, 0, "sweep", &keep, &[])? {
            Walked::Done(tours) => {
                host.done(0, tours)?;
                self.saver.clear();
                Ok(Ran {
                    how: Some(sweep_how(&self.walk, self.rules.mirror)),
                    peak: Some(self.peak()),
                    work: Some(Box::new(self.work())),
                })
            }
            Walked::Interrupted => Ok(Ran::default()),
        }
    }

    /// Where a table read back from a file goes past the tables' share of the bound.
    pub(super) fn spill_to(&self) -> Option<(&Scratch, u64)> {
        Some((&self.sweep.scratch, self.sweep.limit.tables))
    }

    pub(super) fn load_layers(&self) -> Result<Option<Snapshot<K>>, RunError> {
        match &self.saver.path {
            Some(p) => {
                self.announce_load(p);
                Ok(snapshot::load_to::<K>(
                    p,
                    &self.name,
                    self.walk.key_bytes(),
                    self.spill_to(),
                    Some(self.stop),
                )?)
            }
            None => Ok(None),
        }
    }

    /// Says that a large saved stage is being read back, which takes minutes (9x10 closed's
    /// layer 40, 1.3 billion states in 9.5 GB of frames: 205 s) while progress has nothing
    /// else to show; a small one, or a file that will not read, says nothing here.
    pub(super) fn announce_load(&self, path: &Path) {
        let Ok(Some(h)) = snapshot::read_header(path) else {
            return;
        };
        let states: u64 = h.tables().iter().map(|t| t.1 as u64).sum();
        if states < LOAD_NOTE_STATES {
            return;
        }
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        let at = h
            .layer()
            .map_or(String::new(), |(a, b)| format!(" at layer {a} of {b}"));
        self.obs.info(&format!(
            "reading back the saved stage{at}: {} states in {} ('{}'); the count goes on from there",
            group_u64(states),
            human_bytes(bytes),
            path.display()
        ));
    }

    /// Where this run's time went so far (see [`WorkSpan`]).
    pub(super) fn work(&self) -> crate::engine::WorkSpan {
        let cpu = crate::engine::cpu_since(self.began.1);
        crate::engine::WorkSpan {
            threads: self.limits.threads,
            cores: crate::engine::cores(),
            wall: self.began.0.elapsed().as_secs_f64(),
            cpu,
            phases: *self.sweep.phases.lock().expect("no panic holding the lock"),
            units: None,
        }
    }

    pub(super) fn peak(&self) -> Peak {
        Peak {
            window: self.walk.window(),
            states: self.sweep.peak_states,
            bytes: self.sweep.peak_bytes,
            // the count's own figures, not the process's (see `disk::scratch::DiskFigures`)
            disk_written: self.sweep.scratch.figures().written(),
            disk_peak: self.sweep.scratch.figures().peak(),
        }
    }

    /// Whether the count was asked to stop.
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Opens the leaves file of the run with `fingerprint` beside the checkpoint.
    pub(super) fn open_leaves(&mut self, fingerprint: u64) {
        let path = self.limits.checkpoint.as_deref();
        self.leaves = leaves::LeafLog::open(path.map(|p| beside(p, ".leaves")), fingerprint);
    }

    /// What an interrupted run reports: nothing, its finished pieces are with the driver.
    pub(super) fn interrupted(&self) -> Ran {
        Ran {
            how: None,
            peak: Some(self.peak()),
            work: Some(Box::new(self.work())),
        }
    }

    /// The right half's table at the cut indexed as the crossing sees it: boundary square `j`
    /// read from the right state's slot for it (the right half numbers a column's squares from
    /// its last, and its columns from the cut: crossing slot `(h-1-q)*w + r` is its slot
    /// `q*w + r`).
    pub(super) fn right_index(
        &self,
        right: Node<K>,
        cut: Cut,
        may_cut: bool,
    ) -> Result<RightIndex, RunError> {
        // the index holds a row a state while it is sorted, then the state's links and count,
        // beside the table it is made from (64 bytes a state up to 16 boundary squares, 88
        // past them): checked against the tables' share of the bound, where the tree can cut
        // the side again (at the column's end it cannot, and it is made anyway, from the file
        // where the side went to disk)
        let (w, h) = (self.walk.w, cut.cross);
        let m = w * h;
        let need = right.bytes() + RightIndex::bytes_per_state(m) * right.len();
        let room = self.sweep.limit.tables.saturating_sub(self.sweep.beside);
        if may_cut && need > room {
            return Err(self.memory_error(need + self.sweep.beside, self.total.saturating_sub(1)));
        }
        let slots = Boundary {
            slots: (0..m)
                .map(|j| {
                    let c = m - 1 - j;
                    (h - 1 - c / w) * w + c % w
                })
                .collect(),
        };
        self.sweep.timed(super::sweep::INDEX, || match right {
            Node::Mem(l) => Ok(RightIndex::new(l, &slots)),
            Node::Disk(s) => Ok(RightIndex::from_file(&s, &slots)?),
        })
    }

    /// The layer a walk starts from: the empty frontier, one way to stand there. It also stands
    /// in, a few bytes, for a layer let go (a lane walked by sums, a lane finished).
    pub(super) fn first_layer(&self) -> Node<K> {
        Node::Mem(Layer::single(K::ZERO, self.walk.key_bytes(), 1))
    }

    /// The saved stage (`FILE.layers`) stops at a point this run does not have.
    pub(super) fn foreign_phase(&self) -> RunError {
        let path = self.saver.path.clone().unwrap_or_default();
        Self::foreign_phase_of(&path)
    }

    /// The saved stage at `path` (the checkpoint's layers, or the split) stops at a point this
    /// run does not have.
    pub(super) fn foreign_phase_of(path: &Path) -> RunError {
        CheckpointError::Damaged {
            path: path.into(),
            why: "it stops at a point this run does not have".into(),
        }
        .into()
    }
}

/// The free space of the scratch folder `dir`; the fail point `scratch-free` sets it for tests
/// (`KNIGHTS_FAILPOINTS=scratch-free=return(BYTES)`), so that a refusal for want of disk is the
/// same on a machine with any disk.
pub(super) fn scratch_free(dir: &Path) -> Option<u64> {
    fail::fail_point!("scratch-free", |bytes| bytes.and_then(|b| b.parse().ok()));
    fs4::available_space(dir).ok()
}

/// The folder where a count's tables go when they pass the bound: `--scratch`, else the
/// checkpoint's folder, else the system's temporary folder.
pub(crate) fn scratch_dir(limits: &Limits) -> PathBuf {
    if let Some(d) = &limits.scratch {
        return d.clone();
    }
    match limits.checkpoint.as_deref().and_then(Path::parent) {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        Some(_) => PathBuf::from("."),
        None => std::env::temp_dir(),
    }
}

/// The tables of a checkpoint: `extra`, then the current layer.
pub(super) fn with_current<'t, K: Key>(
    extra: &[(&'t str, Src<'t, K>)],
    layer: &'t Node<K>,
) -> Vec<(&'t str, Src<'t, K>)> {
    extra
        .iter()
        .copied()
        .chain([("current", layer.src())])
        .collect()
}
