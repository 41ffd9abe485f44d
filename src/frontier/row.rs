//! Every length of a row in one sweep: the tours of the boards `W×a` to `W×b`, counted by one
//! walk along the longest.
//!
//! The walk of `W×N` and the walk of a shorter `W×k` make the same states the same way until
//! the squares near `W×k`'s far end, where `W×k` has no squares ahead: its squares leave the
//! window sooner, and its last square counts the tours. (Before that, `W×k` looks ahead at a
//! board that ends and drops more states that cannot become tours; `W×N` keeps them, and
//! `W×k`'s own steps drop them later.) So a copy of `W×N`'s layer at the first step where the
//! two walks part, walked through `W×k`'s own last steps, counts `W×k` exactly. The step where
//! they part is found by comparing the two walks' steps (see [`same_moves`]), not assumed: for
//! the knight, the last column but one, so each length costs the long walk's columns once and
//! its own last column or two, against `k` columns counted alone.
//!
//! The walks differ from the start where their rules do: an open count on a board of an odd
//! number of squares drops the states whose path ends are not both on the corners' colour, one
//! of an even number those whose ends share a colour. A width `W` odd has boards of both kinds
//! (`k` odd and even), so its lengths are walked in two *lanes*, one a rule, side by side a
//! column at a time, and each length is recorded as soon as it is counted.

use rayon::prelude::*;

use super::sums::{self, NotMade, Sums, completions, dot, widened};
use super::*;
use crate::layer::Batch;
use crate::walk::entry::Shape;
use crate::walk::layout::Step;

/// The walk of the board `width × length` along its `length` side (the window across `width`,
/// whichever side is longer), its columns' squares taken in `order`.
pub(crate) fn row_walk(width: u32, length: u32, piece: &Piece, order: Order) -> Walk {
    let board = Board::new(width, length).expect("the sides were checked");
    let walk = Walk::new(board, piece, width > length, order);
    debug_assert_eq!((walk.w, walk.len), (width, length));
    walk
}

/// Whether two steps make the same states of the same states, their pruning aside: the edges
/// the square may take, the squares that leave the window (and must be full, or ends, as they
/// go), the labels' width, the mirror merge and the counting of tours at the last square. The
/// rest of a step (the look-ahead at the squares to come, the squares with one neighbour left,
/// the colours of the ends they force) only drops states that cannot become a tour: a longer
/// board, with as many squares ahead or more, drops fewer where it looks only at squares the
/// shorter has ([`looks_within`]), and the shorter board's own steps drop the rest later or
/// count none of their tours at its last square. So a shorter board's walk can go on from a
/// longer one's layer wherever their steps so far are the same in this sense.
fn same_moves<K: Key>(a: &Step<K>, b: &Step<K>) -> bool {
    a.back == b.back
        && a.forced == b.forced
        && a.role == b.role
        && a.departs == b.departs
        && a.last == b.last
        && a.mirror == b.mirror
        && a.width == b.width
}

/// Whether a longer board's step looks ahead only at squares the shorter board of `squares`
/// squares has: a square past its end that the step finds starved would drop states the shorter
/// board keeps. (At the squares both have, the longer board's look is the weaker: each has
/// there as many neighbours still to come as on the shorter board, or more.)
fn looks_within<K: Key>(long: &Step<K>, squares: u32) -> bool {
    long.look.iter().all(|l| l.square < squares)
}

/// A length to count in a lane: its board's last steps, from the first where its walk parts
/// from the lane's.
struct Fork<K: Key> {
    length: u32,
    /// The lane's steps done when the fork starts.
    at: usize,
    steps: Vec<Step<K>>,
}

/// One walk along the longest board of a rule, and the shorter boards that part from it.
struct Lane<K: Key> {
    /// The length the lane walks (its longest).
    length: u32,
    steps: Vec<Step<K>>,
    forks: Vec<Fork<K>>,
    layer: Node<K>,
    /// Steps done.
    at: usize,
    /// The states before each step done (and the next), for telling when they saturate.
    sizes: Vec<u64>,
    /// Where the lane's states have saturated, its period compiled into sums (see `sums.rs`),
    /// and its counts there; `layer` is then empty.
    fast: Option<Fast<K>>,
    /// No period is compiled before this step (one was tried and had not saturated).
    retry: usize,
}

/// A lane walked by sums over its saturated states.
struct Fast<K: Key> {
    sums: Sums<K>,
    /// The lane's step the period's first step is (or one a whole number of periods before).
    first: usize,
    /// The first step the period does not stand for (the board's far end in sight).
    until: usize,
    /// A count a state of the period's numbering at the lane's step.
    counts: Vec<u64>,
    limbs: usize,
    /// The counts of the step before, whose memory the next step's reuse.
    spare: Vec<u64>,
    /// The completions weighed for forks (see `sums::completions`), one a phase at most.
    weighed: Vec<Weighed<K>>,
}

/// The completions of the states of a phase through a fork's steps.
struct Weighed<K: Key> {
    /// The lane's step the fork they were weighed for parts at.
    at: usize,
    steps: Vec<Step<K>>,
    weights: Vec<u64>,
}

/// Whether a fork parting at `at` takes `steps`, the steps of one parting at `first`, a whole
/// number of periods (`m` steps) on: completions weighed for that one serve it.
fn periods_on<K: Key>(first: (usize, &[Step<K>]), at: usize, steps: &[Step<K>], m: usize) -> bool {
    let by = at.wrapping_sub(first.0);
    at >= first.0
        && by.is_multiple_of(m)
        && steps.len() == first.1.len()
        && steps
            .iter()
            .zip(first.1)
            .all(|(a, b)| *a == b.moved(by as u32))
}

impl<K: Key> Fast<K> {
    fn bytes(&self) -> u64 {
        let weighed: usize = self.weighed.iter().map(|w| w.weights.len()).sum();
        self.sums.bytes() + 8 * (self.counts.capacity() + self.spare.capacity() + weighed) as u64
    }
}

impl<K: Key> Lane<K> {
    /// Bytes its layer, or its sums, hold.
    fn bytes(&self) -> u64 {
        self.layer.bytes() + self.fast.as_ref().map_or(0, Fast::bytes)
    }

    /// The name of the lane's table in a save: its length and the steps it has done.
    fn table_name(&self) -> String {
        format!("lane-{}-{}", self.length, self.at)
    }

    fn walking(&self) -> bool {
        self.at < self.steps.len()
    }
}

/// How a row ended.
#[derive(Debug)]
pub struct RowRan {
    /// Every length was counted (else a stop came first, and the work in progress was saved
    /// where a checkpoint was given).
    pub finished: bool,
    pub peak: Peak,
    /// States the steps read, lanes and lengths' last steps together (the row's work: its time
    /// over this is the cost of a state and square).
    pub states_read: u64,
    /// Of those, the states read by sums over saturated columns (see `sums.rs`).
    pub states_summed: u64,
    /// Lengths counted from their phase's completions weighed (see `sums::completions`), with
    /// no layer walked.
    pub lengths_weighed: u64,
}

/// The widths and lengths a row can be walked at (its columns' squares taken in `order`): the
/// window of `width × last` must fit.
pub fn row_supported(width: u32, last: u32, piece: &Piece, order: Order) -> Result<(), Error> {
    let walk = row_walk(width, last, piece, order);
    if walk.window() > MAX_WINDOW {
        return Err(Error::Invalid(format!(
            "--lengths walks the board along its length with a window across its {width} rows: the {piece} needs a window of {} squares there, and the frontier engine handles up to {MAX_WINDOW} (for the knight, up to 12 rows)",
            walk.window()
        )));
    }
    Ok(())
}

/// Counts the tours of every board `width × k`, `k` in `lengths` (not those in `known`), in one
/// walk a rule: calls `record(k, tours)` for each as soon as it is known, which may be before a
/// shorter one of the other lane (`tours`: each tour once, unordered, as a one-board count's
/// undirected figure); a save of the work in progress comes after the records of every length
/// it has gone past. Where `sums`, the columns where the states have saturated are walked as
/// sums over them (see `sums.rs`; the same counts either way). Runs under `limits` (its tables
/// through disk past the bound), saves its work in progress beside `limits.checkpoint` as a
/// count does, and goes on from it. The columns' squares are taken in `order` (the same counts
/// either way).
#[allow(clippy::too_many_arguments)]
pub fn row(
    width: u32,
    lengths: std::ops::RangeInclusive<u32>,
    piece: &Piece,
    closed: bool,
    order: Order,
    limits: &Limits,
    known: &BTreeMap<u32, BigUint>,
    sums: bool,
    stop: &AtomicBool,
    obs: &dyn Observer,
    record: &mut dyn FnMut(u32, &BigUint) -> Result<(), RunError>,
) -> Result<RowRan, RunError> {
    let last = *lengths.end();
    row_supported(width, last, piece, order)?;
    let spec = CountSpec {
        closed,
        order,
        ..CountSpec::default()
    };
    let board = Board::new(width, last)?;
    let walk = row_walk(width, last, piece, order);
    check_floor(board, &walk, limits.max_memory, limits.threads)?;
    let req = Request {
        board,
        piece,
        spec: &spec,
    };
    keyed!(walk, K => {
        let mut run = Run::<K>::new(req, limits, walk, Method::Sweep, stop, obs)?;
        for f in &mut run.name.fields {
            if f.0 == "mode" {
                f.1 = "row".to_string();
            }
        }
        run.name.fields.push(("lengths", format!("{}..{}", lengths.start(), last)));
        run.name.fields.push(("rows", width.to_string()));
        walk_row::<K>(&mut run, width, lengths, closed, known, sums, record)
    })
}

impl<K: Key> Run<'_, K> {
    /// The one-board count of a long board (`Method::Sums`): the row's sweep of its one length,
    /// one piece, its saturated columns walked as sums. Its work in progress is saved beside
    /// the checkpoint as the row's is (the run's name says `sweep by sums`).
    pub(super) fn sweep_by_sums(&mut self, host: &dyn Host) -> Result<Ran, RunError> {
        let split = self.single("sweep");
        if host.start(&split)?.is_empty() {
            self.saver.clear();
            return Ok(Ran::default());
        }
        let (w, len) = (self.walk.w, self.walk.len);
        debug_assert!(
            same_graph(
                &row_walk(w, len, self.req.piece, self.req.spec.order),
                &self.walk
            ),
            "the row's walk is the count's"
        );
        let closed = self.sweep.closed;
        // the count is recorded as the length is, before the sweep's saved work is removed: a
        // kill between the two leaves it to read again, never a count lost
        let mut recorded = false;
        let ran = walk_row(
            self,
            w,
            len..=len,
            closed,
            &BTreeMap::new(),
            true,
            &mut |_, t| {
                host.done(0, t.clone())?;
                recorded = true;
                Ok(())
            },
        )?;
        if !(recorded && ran.finished) {
            return Ok(Ran::default());
        }
        let weighed = if ran.states_summed > 0 {
            format!(
                " ({} of {} states read by sums)",
                group_u64(ran.states_summed),
                group_u64(ran.states_read)
            )
        } else {
            String::new()
        };
        Ok(Ran {
            how: Some(format!("{}{weighed}", sums_how(&self.walk))),
            peak: Some(ran.peak),
            work: Some(Box::new(self.work())),
        })
    }
}

/// Whether two walks number the same squares with the same neighbours (a board and its
/// transpose do, their moves taken in another order).
fn same_graph(a: &Walk, b: &Walk) -> bool {
    let sorted = |w: &Walk| -> Vec<Vec<u32>> {
        w.nb.iter()
            .map(|n| {
                let mut n = n.clone();
                n.sort_unstable();
                n
            })
            .collect()
    };
    a.n == b.n && sorted(a) == sorted(b)
}

fn walk_row<K: Key>(
    run: &mut Run<'_, K>,
    width: u32,
    lengths: std::ops::RangeInclusive<u32>,
    closed: bool,
    known: &BTreeMap<u32, BigUint>,
    sums: bool,
    record: &mut dyn FnMut(u32, &BigUint) -> Result<(), RunError>,
) -> Result<RowRan, RunError> {
    let (piece, order) = (run.req.piece, run.req.spec.order);
    // a board of one square holds one open tour, no closed one (as a one-board count settles
    // it): no walk
    if width == 1 && lengths.contains(&1) && !known.contains_key(&1) {
        record(1, &BigUint::from(u32::from(!closed)))?;
    }
    let lengths = (*lengths.start()).max(if width == 1 { 2 } else { 1 })..=*lengths.end();
    // the lengths by the rules their walks count under, each rule a lane walking its longest
    let mut by_rules: Vec<(Rules, Vec<u32>)> = Vec::new();
    for k in lengths.clone() {
        let r = Rules::counting(&row_walk(width, k, piece, order), closed, true);
        match by_rules.iter_mut().find(|(q, _)| *q == r) {
            Some((_, ks)) => ks.push(k),
            None => by_rules.push((r, vec![k])),
        }
    }
    let mut lanes: Vec<Lane<K>> = Vec::new();
    for (rules, ks) in &by_rules {
        if ks.iter().all(|k| known.contains_key(k)) {
            continue;
        }
        let longest = *ks.last().expect("a lane has a length");
        let walk = row_walk(width, longest, piece, order);
        let steps = layout::steps::<K>(&walk, rules, 0, walk.n);
        let mut forks = Vec::new();
        for &k in ks
            .iter()
            .filter(|&&k| k < longest && !known.contains_key(&k))
        {
            let short = row_walk(width, k, piece, order);
            let own = layout::steps::<K>(&short, rules, 0, short.n);
            let at = own
                .iter()
                .zip(&steps)
                .take_while(|(a, b)| same_moves(a, b) && looks_within(b, short.n))
                .count()
                .min(own.len() - 1);
            forks.push(Fork {
                length: k,
                at,
                steps: own[at..].to_vec(),
            });
        }
        forks.sort_by_key(|f| (f.at, f.length));
        lanes.push(Lane {
            length: longest,
            steps,
            forks,
            layer: run.first_layer(),
            at: 0,
            sizes: vec![1],
            fast: None,
            retry: 0,
        });
    }
    let w = width as usize;
    let columns = lanes
        .iter()
        .map(|l| l.steps.len().div_ceil(w))
        .max()
        .unwrap_or(0);
    run.total = columns * w;
    // the saved work in progress: every lane's layer where it stood
    let mut column = 0;
    run.sweep.scratch.remove_stale();
    match run.load_layers() {
        Err(_) if run.stopped() => return Ok(stopped(run)),
        Err(e) => return Err(e),
        Ok(None) => {}
        Ok(Some(mut s)) if s.phase == "row" => {
            column = s.done;
            for lane in &mut lanes {
                let prefix = format!("lane-{}-", lane.length);
                let Some((name, at)) = s.tables.iter().find_map(|(n, _)| {
                    let at: usize = n.strip_prefix(&prefix)?.parse().ok()?;
                    Some((n.clone(), at))
                }) else {
                    // a lane finished has recorded all its lengths; one not begun saves nothing
                    continue;
                };
                // every length that parts before where the lane stood was recorded
                if at > lane.steps.len() || lane.forks.iter().any(|f| f.at < at) {
                    return Err(run.foreign_phase());
                }
                lane.at = at;
                lane.layer = s.take(&name).ok_or_else(|| run.foreign_phase())?;
                // the sizes before are not known: the states saturate again from here
                lane.sizes = vec![0; at];
                lane.sizes.push(lane.layer.len());
                lane.retry = at;
            }
        }
        Ok(Some(_)) => return Err(run.foreign_phase()),
    }
    run.saver.saved = column > 0;
    while column < columns {
        for li in 0..lanes.len() {
            // the other lanes' layers are held beside this one's tables, within the bound
            run.sweep.beside = lanes
                .iter()
                .enumerate()
                .filter(|&(j, l)| j != li && l.walking())
                .map(|(_, l)| l.bytes())
                .sum();
            let end = ((column + 1) * w).min(lanes[li].steps.len());
            while lanes[li].at < end {
                let lane = &mut lanes[li];
                let i = lane.at;
                // past its period a lane walks its layer again
                if lane.fast.as_ref().is_some_and(|f| i >= f.until) {
                    let fast = lane.fast.take().expect("a lane walked by sums");
                    match layer_of(run, &fast, i) {
                        Ok(l) => lane.layer = l,
                        Err(e) => return stopped_at(run, e, column, &mut lanes, i),
                    }
                }
                // the lengths that part from the lane here, counted from its layer
                while let Some(f) = lane.forks.first().filter(|f| f.at == i) {
                    let counted = match &mut lane.fast {
                        Some(fast) => fork_of_sums(run, fast, &lane.forks),
                        None => walk_fork(run, &lane.layer, &f.steps),
                    };
                    match counted {
                        Ok(t) => {
                            record(f.length, &t)?;
                            lane.forks.remove(0);
                        }
                        Err(e) => return stopped_at(run, e, column, &mut lanes, i),
                    }
                }
                if sums && lane.fast.is_none() && i >= lane.retry {
                    if let Some((m, until)) = period_at(lane, i, w) {
                        match compile(run, lane, m, until) {
                            Ok(()) => {}
                            Err(NotMade::Stopped) => {
                                return stopped_at(
                                    run,
                                    Stopped::Interrupted,
                                    column,
                                    &mut lanes,
                                    i,
                                );
                            }
                            Err(NotMade::NotFixed) => lane.retry = i + m,
                            // a bound that leaves no room now leaves none later
                            Err(NotMade::Room) => lane.retry = usize::MAX,
                        }
                    }
                }
                if let Some(fast) = &mut lane.fast {
                    let s = i - fast.first;
                    if fast.sums.needs_wider(s, &fast.counts, fast.limbs) {
                        fast.counts = widened(&fast.counts, fast.limbs);
                        fast.limbs += 1;
                    }
                    let mut out = std::mem::take(&mut fast.spare);
                    run.sweep.timed(sweep::STEP, || {
                        fast.sums.step_into(s, &fast.counts, fast.limbs, &mut out);
                    });
                    fast.spare = std::mem::replace(&mut fast.counts, out);
                    let (before, after) = (fast.sums.keys(s).len(), fast.sums.keys(s + 1).len());
                    let bytes = fast.bytes();
                    run.sweep.read += before as u64;
                    run.sweep.summed += before as u64;
                    run.sweep.peak_states = run.sweep.peak_states.max(after as u64);
                    run.sweep.peak_bytes = run.sweep.peak_bytes.max(bytes + run.sweep.beside);
                    lane.at += 1;
                    lane.sizes.push(after as u64);
                    run.saver.saved = false;
                    run.progress_of(lane.at, after as u64, bytes, "sweep");
                    if run.stopped() {
                        let at = lane.at;
                        return stopped_at(run, Stopped::Interrupted, column, &mut lanes, at);
                    }
                    continue;
                }
                match run.sweep.step(lane.layer.src(), &lane.steps[i], |_| true) {
                    Ok((next, t)) => {
                        let old = std::mem::replace(&mut lane.layer, next);
                        run.sweep.recycle(old);
                        run.sweep.peak_states = run.sweep.peak_states.max(lane.layer.len());
                        lane.at += 1;
                        lane.sizes.push(lane.layer.len());
                        run.saver.saved = false;
                        if !lane.walking() {
                            record(lane.length, &t)?;
                            let done = std::mem::replace(&mut lane.layer, run.first_layer());
                            run.sweep.recycle(done);
                        }
                        run.progress(lane.at, &lane.layer, "sweep");
                    }
                    Err(e) => return stopped_at(run, e, column, &mut lanes, i),
                }
            }
        }
        column += 1;
        if run.saver.due() && column < columns {
            save(run, &mut lanes, column, columns, false)?;
        }
    }
    run.saver.clear();
    Ok(RowRan {
        finished: true,
        peak: run.peak(),
        states_read: run.sweep.read,
        states_summed: run.sweep.summed,
        lengths_weighed: run.sweep.weighed,
    })
}

/// Saves every lane still walking where it stands (`stopping`: as a stop signal asked): a lane
/// walked by sums as the layer of its states.
fn save<K: Key>(
    run: &mut Run<'_, K>,
    lanes: &mut [Lane<K>],
    column: usize,
    columns: usize,
    stopping: bool,
) -> Result<(), RunError> {
    for lane in lanes.iter_mut() {
        if let Some(fast) = &lane.fast {
            let at = lane.at;
            lane.layer = match layer_of(run, fast, at) {
                Ok(l) => l,
                Err(Stopped::Memory(bytes)) => return Err(run.memory_error(bytes, at)),
                Err(Stopped::Disk(e)) => return Err(e.into()),
                Err(e) => {
                    unreachable!("a table of distinct states stops for memory or disk: {e:?}")
                }
            };
        }
    }
    let saved = save_layers(run, lanes, column, columns, stopping);
    for lane in lanes.iter_mut().filter(|l| l.fast.is_some()) {
        let made = std::mem::replace(&mut lane.layer, run.first_layer());
        run.sweep.recycle(made);
    }
    saved
}

fn save_layers<K: Key>(
    run: &mut Run<'_, K>,
    lanes: &[Lane<K>],
    column: usize,
    columns: usize,
    stopping: bool,
) -> Result<(), RunError> {
    let names: Vec<String> = lanes.iter().map(Lane::table_name).collect();
    let tables: Vec<(&str, Src<'_, K>)> = lanes
        .iter()
        .zip(&names)
        .filter(|(l, _)| l.walking())
        .map(|(l, n)| (n.as_str(), l.layer.src()))
        .collect();
    let stage = ("row", column, column, columns);
    if stopping {
        run.saver.save_stopping(&run.name, stage, &tables, run.obs)
    } else {
        run.saver.save(&run.name, stage, &tables, run.obs)
    }
}

/// Walks a copy of `layer` through a shorter board's last `steps`: its tours.
fn walk_fork<K: Key>(
    run: &mut Run<'_, K>,
    layer: &Node<K>,
    steps: &[Step<K>],
) -> Result<BigUint, Stopped> {
    let mut tours = BigUint::ZERO;
    let mut cur: Option<Node<K>> = None;
    let beside = run.sweep.beside;
    for step in steps {
        let src = cur.as_ref().map_or_else(|| layer.src(), Node::src);
        // past its first step the fork reads its own layer, the lane's held beside
        run.sweep.beside = beside + if cur.is_some() { layer.bytes() } else { 0 };
        let stepped = run.sweep.step(src, step, |_| true);
        run.sweep.beside = beside;
        let (next, t) = stepped?;
        tours += t;
        run.sweep.peak_states = run.sweep.peak_states.max(next.len());
        if let Some(old) = cur.replace(next) {
            run.sweep.recycle(old);
        }
    }
    if let Some(old) = cur {
        run.sweep.recycle(old);
    }
    Ok(tours)
}

/// The tours of the fork `forks[0]` from a lane walked by sums, standing where it parts: by
/// its phase's completions (`sums::completions`) where they are weighed, or where a later fork
/// of the lane takes the same steps a whole number of periods on within the sums (weighing
/// costs about a fork walked, and each fork after is a sum of products); else by walking the
/// lane's layer made again.
fn fork_of_sums<K: Key>(
    run: &mut Run<'_, K>,
    fast: &mut Fast<K>,
    forks: &[Fork<K>],
) -> Result<BigUint, Stopped> {
    let f = &forks[0];
    let m = fast.sums.period();
    let at = f.at;
    let mut known = fast
        .weighed
        .iter()
        .position(|w| periods_on((w.at, &w.steps), at, &f.steps, m));
    let again = forks[1..]
        .iter()
        .any(|g| g.at < fast.until && g.at > at && periods_on((at, &f.steps), g.at, &g.steps, m));
    if known.is_none() && again {
        let held = fast.bytes() + run.sweep.beside;
        let room = run.sweep.limit.tables.saturating_sub(held);
        let (t0, c0) = (std::time::Instant::now(), crate::engine::cpu_seconds());
        let start = fast.sums.keys(at - fast.first);
        let made = completions(start, &f.steps, run.sweep.closed, room, run.sweep.stop);
        run.sweep.add_time(sweep::STEP, t0, c0);
        match made {
            Ok(weights) => {
                fast.weighed.push(Weighed {
                    at,
                    steps: f.steps.clone(),
                    weights,
                });
                known = Some(fast.weighed.len() - 1);
                let bytes = fast.bytes() + run.sweep.beside;
                run.sweep.peak_bytes = run.sweep.peak_bytes.max(bytes);
            }
            Err(NotMade::Stopped) => return Err(Stopped::Interrupted),
            // too large or too wide: the fork is walked
            Err(_) => {}
        }
    }
    if let Some(k) = known {
        run.sweep.weighed += 1;
        return Ok(dot(&fast.counts, fast.limbs, &fast.weighed[k].weights));
    }
    let layer = layer_of(run, fast, at)?;
    let counted = walk_fork(run, &layer, &f.steps);
    run.sweep.recycle(layer);
    counted
}

/// A row stopped by `e` in `column` (the lane walking stands at step `i`): a stop saves every
/// lane where it stands, an error is said.
fn stopped_at<K: Key>(
    run: &mut Run<'_, K>,
    e: Stopped,
    column: usize,
    lanes: &mut [Lane<K>],
    i: usize,
) -> Result<RowRan, RunError> {
    match e {
        Stopped::Interrupted => {
            if !run.saver.saved {
                let columns = run.total / (run.walk.w as usize).max(1);
                save(run, lanes, column, columns, true)?;
            }
            Ok(stopped(run))
        }
        Stopped::Memory(bytes) => Err(run.memory_error(bytes, i)),
        Stopped::Overflow => unreachable!("a step widens its counts"),
        Stopped::Disk(e) => Err(e.into()),
    }
}

fn stopped<K: Key>(run: &Run<'_, K>) -> RowRan {
    RowRan {
        finished: false,
        peak: run.peak(),
        states_read: run.sweep.read,
        states_summed: run.sweep.summed,
        lengths_weighed: run.sweep.weighed,
    }
}

/// The period a lane's states may have saturated in before step `i`, and the first step it does
/// not stand for: a column, or two, the first whose layers a period apart held as many states,
/// where the period's steps repeat, moved on, for two periods more at least (making the sums
/// costs about two periods walked).
fn period_at<K: Key>(lane: &Lane<K>, i: usize, w: usize) -> Option<(usize, usize)> {
    for m in [w, 2 * w] {
        if i < m || lane.sizes.get(i) != lane.sizes.get(i - m) || lane.sizes[i] == 0 {
            continue;
        }
        let mut until = i + m;
        while until < lane.steps.len() && lane.steps[until] == lane.steps[until - m].moved(m as u32)
        {
            until += 1;
        }
        if until >= i + 3 * m {
            return Some((m, until));
        }
    }
    None
}

/// Compiles the lane's next `m` steps into sums from its layer (in memory), standing for its
/// steps up to `until`: the lane is then walked by them, its layer let go.
fn compile<K: Key>(
    run: &mut Run<'_, K>,
    lane: &mut Lane<K>,
    m: usize,
    until: usize,
) -> Result<(), NotMade> {
    let Node::Mem(layer) = &lane.layer else {
        return Err(NotMade::Room);
    };
    let limbs = layer.limbs();
    let n = layer.len() as usize;
    // the sums are made beside the layer, its keys and counts, and the layers around; they
    // hold the period's states (as many as a period before), each with its key and about
    // three sources: not tried where that would not fit
    let held = layer.bytes() + (n * (K::BYTES + 8 * limbs)) as u64 + run.sweep.beside;
    let room = run.sweep.limit.tables.saturating_sub(held);
    let i = lane.at;
    let period: u64 = lane.sizes[i - m..i].iter().sum();
    if period * (K::BYTES as u64 + 16) > room {
        return Err(NotMade::Room);
    }
    let mut keys = Vec::with_capacity(n);
    let mut counts = Vec::with_capacity(n * limbs);
    for (k, c) in layer.iter() {
        keys.push(k);
        counts.extend(c.words());
    }
    let (t0, c0) = (std::time::Instant::now(), crate::engine::cpu_seconds());
    let made = Sums::make(
        keys,
        &lane.steps[i..i + m],
        run.sweep.closed,
        room,
        run.sweep.stop,
    );
    run.sweep.add_time(sweep::STEP, t0, c0);
    let sums = made?;
    run.sweep.peak_bytes = run.sweep.peak_bytes.max(held + sums.bytes());
    let old = std::mem::replace(&mut lane.layer, run.first_layer());
    run.sweep.recycle(old);
    lane.fast = Some(Fast {
        sums,
        first: i,
        until,
        counts,
        limbs,
        spare: Vec::new(),
        weighed: Vec::new(),
    });
    Ok(())
}

/// The layer of a lane walked by sums, at its step `i`: its states with a count.
fn layer_of<K: Key>(run: &mut Run<'_, K>, fast: &Fast<K>, i: usize) -> Result<Node<K>, Stopped> {
    let keys = fast.sums.keys(i - fast.first);
    let limbs = fast.limbs;
    let shape = Shape {
        key: run.walk.key_bytes(),
        limbs,
    };
    let table = run.sweep.table(keys.len() as u64, shape, fast.bytes(), 1);
    keys.par_chunks(sums::CHUNK)
        .zip(fast.counts.par_chunks(limbs * sums::CHUNK))
        .for_each(|(k, c)| {
            let mut batch = Batch::new(&table);
            for (&k, c) in k.iter().zip(c.chunks_exact(limbs)) {
                if c.iter().any(|&w| w != 0) {
                    batch.push_words(k, c);
                }
            }
        });
    table.finish_node()
}
