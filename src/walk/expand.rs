//! One step of the frontier walk: every way the new square can take its edges, the squares that
//! leave the window, and the rules that drop states which can no longer become a tour.

use super::layout::{Colours, Look, Role, Step};
use super::state::{Event, FREE, Key, SAT, TERM, add_edge, canonical, make_terminal};

/// Adds `step`'s square to `key`: calls `emit(next)` for every state it can lead to and returns
/// how many complete tours it finishes (at the last square only).
///
/// The rules that drop a state: a square leaving the window with no edge, or (closed tours) with
/// one; a cycle or a finished path before the last square; more than two path ends, counting the
/// ends still to come that the request fixes, the window squares with no edge and one neighbour
/// left, and the squares ahead that have only one neighbour they can still use (for a closed tour
/// any of those is fatal); a square ahead with no neighbour it can use.
#[inline]
pub(crate) fn expand<K: Key>(key: K, step: &Step<K>, closed: bool, emit: impl FnMut(K)) -> u32 {
    expand_digit(key, step, closed, ANY, emit)
}

/// Any digit: see [`expand_digit`].
pub(crate) const ANY: usize = 3;

/// [`expand`] restricted to the choices that give the new square `digit` edges (an end of the
/// path counting one; [`ANY`]: every choice): the digit a digit tree cuts by (see `tree.rs`),
/// so that a node's children can be made one at a time without making the others.
#[inline]
pub(crate) fn expand_digit<K: Key>(
    key: K,
    step: &Step<K>,
    closed: bool,
    digit: usize,
    mut emit: impl FnMut(K),
) -> u32 {
    let mut done = 0;
    choices(key, step, closed, digit, |next, _| match next {
        Some(k) => emit(k),
        None => done += 1,
    });
    done
}

/// The slots (after the shift) whose class, free, full ([`SAT`]) or an end of a piece, no choice
/// of `step` changes: all but the new square's, its neighbours' and the departing squares'. An
/// end stays an end whatever its piece is joined to (only its label or [`TERM`] changes), so a
/// state and every state it leads to agree on these slots' [`classes`]: a walk back tests that
/// before it expands a state (8x8 closed's draws spent a third of their time expanding every
/// state of a layer to find the few that lead to the states drawn).
pub(crate) fn unchanged_slots<K: Key>(step: &Step<K>) -> K {
    let mut all = K::ZERO;
    for s in 1..K::SLOTS {
        all = all.or(K::bit(s));
    }
    let touched = step
        .back
        .iter()
        .chain(&step.departs)
        .chain(&step.forced)
        .fold(K::ZERO, |m, &s| m.or(K::bit(s)));
    all.without(touched)
}

/// Which of `slots` are free and which full in `key` (the bit `4 * s` of each mask).
#[inline]
pub(crate) fn classes<K: Key>(key: K, slots: K) -> (K, K) {
    (key.eq_mask(FREE).and(slots), key.eq_mask(SAT).and(slots))
}

/// What a step gave its square: edges to the neighbours in up to two window slots (slot 0, the
/// square itself, for none) and whether it became an end of the path. The edges of a tour are
/// the union of its steps' choices, so a sampler that records them can rebuild the tour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Choice {
    pub(crate) edges: [u32; 2],
    pub(crate) terminal: bool,
}

/// [`expand`] that also says which choice made each successor: calls `emit(Some(next), choice)`
/// for every state it can lead to and `emit(None, choice)` for every tour it completes (at the
/// last square only). Different choices may lead to the same state; each is emitted.
#[inline]
pub(crate) fn expand_choices<K: Key>(
    key: K,
    step: &Step<K>,
    closed: bool,
    emit: impl FnMut(Option<K>, Choice),
) {
    choices(key, step, closed, ANY, emit);
}

/// [`expand_choices`] of the choices giving the new square `digit` edges ([`ANY`]: all).
///
/// The rules count bits a dozen times a state (the ends, the colours of the ends). A build for
/// any x86-64 processor counts them in a dozen steps each, or in a loop whose exit the processor
/// mispredicts; every x86-64 processor made since 2009 counts them in one instruction. So the
/// rules are compiled twice, once with that instruction, and the processor's own is used where
/// it has it (the check is one read of a flag the standard library keeps). With the early check
/// of the ends in [`settle`], 7x8 open on one thread took 162 s against 178 s before, the same
/// as a whole build for processors with the instruction (`results/frontier.md`).
#[inline]
fn choices<K: Key>(
    key: K,
    step: &Step<K>,
    closed: bool,
    digit: usize,
    emit: impl FnMut(Option<K>, Choice),
) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has the instruction the function is compiled to use, checked
        // just above
        return unsafe { choices_popcnt(key, step, closed, digit, emit) };
    }
    choices_of::<K, true>(key, step, closed, digit, emit);
}

/// [`choices`] compiled to count bits by the processor's instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn choices_popcnt<K: Key>(
    key: K,
    step: &Step<K>,
    closed: bool,
    digit: usize,
    emit: impl FnMut(Option<K>, Choice),
) {
    choices_of::<K, true>(key, step, closed, digit, emit);
}

/// The body of [`choices`], inlined into each of its two builds. `BOUND` (always, but in the
/// tests) reads what the state's untouched slots say once and skips the choices it condemns
/// (see [`Need`]); without it every choice is tried and dropped by [`settle`] alone, the
/// reference the tests hold it to.
#[inline(always)]
fn choices_of<K: Key, const BOUND: bool>(
    key: K,
    step: &Step<K>,
    closed: bool,
    digit: usize,
    mut emit: impl FnMut(Option<K>, Choice),
) {
    let k = key.shifted();
    let mut need = Need {
        must: K::ZERO,
        needy: K::ZERO,
        spare: u32::MAX,
        bare: 0,
        fixed: Fixed::default(),
    };
    // the ends of the path every choice leads to at least (before the last square): see
    // `fixed_ends`
    let mut leaving_ends = 0;
    let bound = BOUND && !step.last;
    // a square leaving with no edge gets at most one now: a closed tour is dead whatever the
    // choice, an open one needs that edge (the square leaves as an end of the path); a closed
    // tour's piece end leaving needs it too
    // (slot 0 is the new square itself, which leaves at the board's last square)
    for &s in step.departs.iter().filter(|&&s| s > 0) {
        let bit = K::bit(s);
        match k.get(s) {
            SAT => {}
            FREE if closed => return,
            FREE => need.must = need.must.or(bit),
            _ if closed => need.must = need.must.or(bit),
            _ if !bound => {}
            // an open piece's end leaving with one edge leaves as an end of the path: dead
            // where its piece already leads to one, or where it cannot be an end
            c => {
                let dead = c == TERM || step.no_end.and(bit) != K::ZERO;
                match (step.reach.and(bit) != K::ZERO, dead) {
                    (false, true) => return,
                    (false, false) => leaving_ends += 1,
                    (true, true) => need.must = need.must.or(bit),
                    (true, false) => need.needy = need.needy.or(bit),
                }
            }
        }
    }
    if bound {
        let Some(f) = fixed_ends(k, step, closed) else {
            return;
        };
        // a free square with one neighbour left that the new square can reach: without the
        // edge it becomes an end of the path (fatal for a closed tour, or where it cannot be one)
        let single = k
            .eq_mask(FREE)
            .and(step.single)
            .and(step.reach)
            .without(K::bit(0));
        if closed {
            need.must = need.must.or(single);
        } else {
            let dead = single.and(step.no_end);
            need.must = need.must.or(dead);
            need.needy = need.needy.or(single.without(dead));
            let least = f.ends + leaving_ends;
            if least > 2 {
                return;
            }
            need.spare = 2 - least;
            // the new square with no edge and one neighbour left stays free: one end more
            need.bare = u32::from(step.single.and(K::bit(0)) != K::ZERO);
        }
        need.fixed = f;
    }
    // the neighbours that can take an edge
    let mut usable = [0u32; 8];
    let mut n = 0;
    for &b in &step.back {
        if k.get(b) != SAT {
            usable[n] = b;
            n += 1;
        }
    }
    if let Some(f) = step.forced {
        if k.get(f) == SAT {
            return;
        }
        need.must = need.must.or(K::bit(f));
    }
    // a needed slot no neighbour can give an edge to
    if bound && need.must.without(step.reach) != K::ZERO {
        return;
    }
    let usable = &usable[..n];
    let mut try_edges = |edges: &[u32], terminal: bool| {
        try_edges(k, &need, step, closed, edges, terminal, &mut emit);
    };
    let (normal, terminal) = match step.role {
        Role::Normal => (true, false),
        Role::Terminal => (false, true),
        Role::Boundary => (true, !closed),
    };
    // a square that cannot be an end of the path is never made one
    let terminal = terminal && step.no_end.and(K::bit(0)) == K::ZERO;
    // the new square's digit is its edges, and one more for an end of the path
    let (d0, d1, d2) = (
        digit == ANY || digit == 0,
        digit == ANY || digit == 1,
        digit == ANY || digit == 2,
    );
    if normal {
        if d0 {
            try_edges(&[], false);
        }
        for (i, &a) in usable.iter().enumerate() {
            if d1 {
                try_edges(&[a], false);
            }
            if d2 {
                for &b in &usable[i + 1..] {
                    try_edges(&[a, b], false);
                }
            }
        }
    }
    if terminal {
        if d1 {
            try_edges(&[], true);
        }
        if d2 {
            for &a in usable {
                try_edges(&[a], true);
            }
        }
    }
}

/// What a state needs of the new square's edges, read once for all its choices.
///
/// `must`: the slots that die without an edge now. `needy`: those that become an end of the
/// path without one (a piece's end leaving, a free square with one neighbour left); a choice
/// leaving more of them than the `spare` ends the state still has (two less the ends every
/// choice has, [`Fixed`]) is not tried, nor one making the new square an end past that, nor
/// (`bare`: the new square has one neighbour left) one giving it no edge. Each such end is
/// another end of the path or a contradiction (a piece whose both ends end the path), so the
/// count is a lower bound; on 6x8 open the first check of the ends in [`settle`] dropped 96M
/// of the 399M choices tried, each after its edges were added and its squares left.
struct Need<K> {
    must: K,
    needy: K,
    spare: u32,
    bare: u32,
    fixed: Fixed,
}

/// One choice of [`choices_of`]: the new square (slot 0 of `k`) takes edges to `edges` and
/// becomes an end of the path where `terminal`; `need` says what the state needs of it.
/// A function, not a closure, so that each build of [`choices`] inlines its own (a closure is
/// compiled once for both).
#[inline(always)]
fn try_edges<K: Key>(
    k: K,
    need: &Need<K>,
    step: &Step<K>,
    closed: bool,
    edges: &[u32],
    terminal: bool,
    emit: &mut impl FnMut(Option<K>, Choice),
) {
    if need.must != K::ZERO || need.needy != K::ZERO || need.spare < 2 || need.bare != 0 {
        let got = edges.iter().fold(K::ZERO, |m, &b| m.or(K::bit(b)));
        if need.must.without(got) != K::ZERO {
            return;
        }
        let bare = if edges.is_empty() && !terminal {
            need.bare
        } else {
            0
        };
        if need.needy.without(got).ones() + u32::from(terminal) + bare > need.spare {
            return;
        }
    }
    let mut k = k;
    let mut finished = false;
    for &b in edges {
        let Some((next, e)) = add_edge(k, 0, b, closed) else {
            return;
        };
        if e != Event::None {
            if !step.last || finished {
                return;
            }
            finished = true;
        }
        k = next;
    }
    if terminal {
        let Some((next, e)) = make_terminal(k, 0) else {
            return;
        };
        if e != Event::None {
            if !step.last || finished || step.role == Role::Boundary {
                return;
            }
            finished = true;
        }
        k = next;
    }
    let choice = Choice {
        edges: [
            edges.first().copied().unwrap_or(0),
            edges.get(1).copied().unwrap_or(0),
        ],
        terminal,
    };
    match settle(k, step, closed, need.fixed, finished) {
        Some(Settled::Tour) => emit(None, choice),
        Some(Settled::State(k)) => emit(Some(k), choice),
        None => {}
    }
}

/// What a state's slots that no choice of a step touches say of every state it leads to
/// (before the last square): the squares ahead of [`Step::look`]'s first
/// [`Step::look_fixed`] that can only be ends (`ahead`, `ahead_on_a` of them on the corners'
/// colour), and the ends of the path every choice leads to at least (`ends`).
#[derive(Clone, Copy, Default)]
struct Fixed {
    /// How many of [`Step::look`] were read (none where the state was not read first).
    looked: usize,
    ends: u32,
    ahead: u32,
    ahead_on_a: u32,
}

/// [`Fixed`] for the shifted state `k` at `step`, or `None` where no choice can lead to a
/// state (a square ahead starved, a square with no edge and one neighbour left that cannot be
/// an end).
///
/// The lower bound on the ends holds for every choice because no choice lowers any of its
/// terms: a path end's piece (a slot marked [`TERM`]) stays marked at one of its ends
/// whatever edges the new square takes (two such pieces joined finish the path, dead before
/// the last square); a free square with one neighbour left that no choice reaches stays free;
/// and a full slot stays full, so a square ahead with one usable neighbour left keeps at most
/// one. Of the 399M choices 6x8 open tried, 96M died on the ends; a state whose bound is two
/// already tries no choice that makes the new square an end.
#[inline(always)]
fn fixed_ends<K: Key>(k: K, step: &Step<K>, closed: bool) -> Option<Fixed> {
    let single_free = k.eq_mask(FREE).and(step.single).without(step.reach);
    if dead_single(single_free, step, closed) {
        return None;
    }
    let mut f = Fixed {
        looked: step.look_fixed,
        ..Fixed::default()
    };
    (f.ahead, f.ahead_on_a) = read_ahead(&step.look[..step.look_fixed], k, closed)?;
    if !closed {
        f.ends = step.pending + f.ahead + k.eq_mask(TERM).ones() + single_free.ones();
    }
    Some(f)
}

/// The squares ahead in `looks` that state `k` leaves one usable neighbour and that can only
/// be ends of the path then, and how many of those are on the corners' colour; `None` where
/// one of them is starved, or is left one neighbour and cannot be an end.
#[inline(always)]
fn read_ahead<K: Key>(looks: &[Look<K>], k: K, closed: bool) -> Option<(u32, u32)> {
    let (mut ahead, mut on_a) = (0, 0);
    if looks.is_empty() {
        return Some((ahead, on_a));
    }
    let sat = k.eq_mask(SAT);
    for l in looks {
        if one_left(l, sat)? {
            if closed || l.no_end {
                return None;
            }
            if !l.terminal {
                ahead += 1;
                on_a += u32::from(l.on_a);
            }
        }
    }
    Some((ahead, on_a))
}

/// Whether the square ahead `l` has one neighbour left that it can use, where the slots `sat`
/// are full; `None` where it has none.
#[inline(always)]
fn one_left<K: Key>(l: &Look<K>, sat: K) -> Option<bool> {
    // what the square ahead can still use: `other` plus its walked neighbours not full
    let open = l.slots.without(sat);
    if l.other == 0 {
        if open == K::ZERO {
            return None;
        }
        Some(open.and(open.minus_one()) == K::ZERO)
    } else {
        Some(open == K::ZERO)
    }
}

/// Whether the free squares with one neighbour left `single_free` kill the state: such a
/// square can only be an end of the path, which a closed tour has none of and a square of
/// [`Step::no_end`] cannot be.
#[inline(always)]
fn dead_single<K: Key>(single_free: K, step: &Step<K>, closed: bool) -> bool {
    single_free != K::ZERO && (closed || single_free.and(step.no_end) != K::ZERO)
}

enum Settled<K> {
    /// A complete tour (the last square).
    Tour,
    State(K),
}

/// Applies the departures and the pruning rules to a state whose new square has its edges
/// (inlined always, so that each build of [`choices`] has its own).
#[inline(always)]
fn settle<K: Key>(
    mut k: K,
    step: &Step<K>,
    closed: bool,
    fixed: Fixed,
    mut finished: bool,
) -> Option<Settled<K>> {
    for &s in &step.departs {
        match k.get(s) {
            SAT => {}
            FREE => return None,
            // a square leaving with one edge becomes an end of the path
            _ if step.no_end.and(K::bit(s)) != K::ZERO => return None,
            TERM => {
                if closed || finished {
                    return None;
                }
                finished = true;
            }
            _ => {
                if closed || finished {
                    return None;
                }
                k = make_terminal(k, s)?.0;
            }
        }
        k = k.set(s, FREE);
    }
    if step.last {
        return finished.then_some(Settled::Tour);
    }
    if finished {
        // a finished path with squares still to come leaves them out
        return None;
    }
    let free = k.eq_mask(FREE);
    let single_free = free.and(step.single);
    if dead_single(single_free, step, closed) {
        return None;
    }
    // (the squares ahead that no choice reaches were read once for the state: `fixed`)
    let mut ends = step.pending + fixed.ahead;
    let (mut terms, mut held) = (K::ZERO, 0);
    if !closed {
        terms = k.eq_mask(TERM);
        held = terms.ones();
        ends += held + single_free.ones();
    }
    // the ends the window shows are too many already: the squares ahead can only add to them
    // (on 7x8 open every state this rule drops, a third of those reaching it, is dropped here,
    // before the look at the squares ahead)
    if ends > 2 {
        return None;
    }
    // how many of the squares ahead that can only be ends are on the corners' colour
    let (more, on_a) = read_ahead(&step.look[fixed.looked..], k, closed)?;
    ends += more;
    let ahead_on_a = fixed.ahead_on_a + on_a;
    if ends > 2 {
        return None;
    }
    if let Some(c) = &step.colours {
        if ends == 2
            && step.pending == 0
            && !ends_differ(k, free, terms, held, single_free, ahead_on_a, c)
        {
            return None;
        }
    }
    let mut k = canonical(k, step.width);
    if let Some(perm) = &step.mirror {
        k = k.min(perm.apply(k, step.width));
    }
    Some(Settled::State(k))
}

/// Whether the two ends a state already has or must have lie on different colours (see
/// [`super::layout::Colours`]; `free` is the state's slots with no edge): the far ends of its `held` pieces that lead to an end of the path
/// (`terms`, the slots marked so), the squares with no edge and one neighbour left
/// (`single_free`), and the squares ahead with one usable neighbour left, `ahead_on_a` of them
/// on the corners' colour (A); two in all (the caller counts them).
#[inline(always)]
fn ends_differ<K: Key>(
    k: K,
    free: K,
    terms: K,
    held: u32,
    single_free: K,
    ahead_on_a: u32,
    c: &Colours<K>,
) -> bool {
    debug_assert!(held + single_free.ones() <= 2);
    let mut on_a = single_free.and(c.a).ones() + ahead_on_a;
    if held > 0 {
        let free = free.and(c.live);
        let labels = k.label_mask();
        let pieces = labels.ones() / 2 + held;
        let free_balance = free.and(c.a).ones() as i32 - free.without(c.a).ones() as i32;
        let ends_on_a = labels.or(terms).and(c.a).ones() as i32;
        // the path's ends at the far ends of the marked pieces that are on A
        let hidden = c.balance - free_balance - ends_on_a + pieces as i32;
        debug_assert!((0..=held as i32).contains(&hidden), "{hidden} of {held}");
        on_a = on_a.wrapping_add(hidden as u32);
    }
    on_a == 1
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::board::Board;
    use crate::engine::Order;
    use crate::piece::Piece;
    use crate::walk::layout::{Rules, Walk, steps};

    /// The knight's walks of a `rows` x `cols` board, each column straight and in its tuned
    /// order (where the tuned window fits the tests' keys of one word), and the count's rules
    /// for each (the colour rules where the tours are open).
    fn knight_walks(rows: u32, cols: u32, closed: bool) -> Vec<(Board, Walk, Rules)> {
        let board = Board::new(rows, cols).unwrap();
        [Order::Straight, Order::Tuned]
            .into_iter()
            .map(|order| Walk::new(board, &Piece::knight(), false, order))
            .filter(|walk| walk.window() <= u64::SLOTS)
            .map(|walk| {
                let rules = Rules::counting(&walk, closed, false);
                (board, walk, rules)
            })
            .collect()
    }

    /// A walk of the rules' tests: rows, columns, closed, the fixed ends and the cut.
    type Case = (u32, u32, bool, Vec<u32>, Option<u32>);

    /// One build of the rules, writing what it emits.
    type Build = fn(u64, &Step<u64>, bool, usize, &mut Vec<(Option<u64>, Choice)>);

    /// What one build of the rules makes of `key` at `step` for `digit`: every choice, in order.
    fn emitted(
        key: u64,
        step: &Step<u64>,
        closed: bool,
        digit: usize,
        build: Build,
    ) -> Vec<(Option<u64>, Choice)> {
        let mut out = Vec::new();
        build(key, step, closed, digit, &mut out);
        out
    }

    /// Walks `steps` over a plain map from the empty state, holding two builds of the rules to
    /// the same choices of every state for every digit: the choices compared and the tours.
    fn compare_walk(
        board: Board,
        steps: &[Step<u64>],
        closed: bool,
        builds: [Build; 2],
    ) -> (usize, u64) {
        let (mut compared, mut tours) = (0, 0);
        let mut layer = BTreeMap::from([(0u64, 1u64)]);
        for step in steps {
            let mut next = BTreeMap::new();
            for (&k, &c) in &layer {
                for digit in [0, 1, 2, ANY] {
                    let a = emitted(k, step, closed, digit, builds[0]);
                    assert_eq!(
                        a,
                        emitted(k, step, closed, digit, builds[1]),
                        "{board} {k:#x}"
                    );
                    compared += a.len();
                    if digit == ANY {
                        for (n, _) in a {
                            match n {
                                Some(n) => *next.entry(n).or_default() += c,
                                None => tours += c,
                            }
                        }
                    }
                }
            }
            layer = next;
        }
        (compared, tours)
    }

    #[test]
    fn both_builds_of_the_rules_make_the_same_choices() {
        // the one the processor runs (with its own bit count, where it has one) against the
        // body built for any processor, on every state of whole walks, open (with the colour
        // rules that count the most bits) and closed
        let dispatched: Build = |k, s, c, d, out| {
            choices(k, s, c, d, |n, ch| out.push((n, ch)));
        };
        let plain: Build = |k, s, c, d, out| {
            choices_of::<_, true>(k, s, c, d, |n, ch| out.push((n, ch)));
        };
        let mut compared = 0;
        for (rows, cols, closed) in [(5, 6, false), (5, 5, false), (4, 7, false), (6, 5, true)] {
            for (board, walk, rules) in knight_walks(rows, cols, closed) {
                let (n, tours) = compare_walk(
                    board,
                    &steps(&walk, &rules, 0, walk.n),
                    closed,
                    [dispatched, plain],
                );
                compared += n;
                assert!(tours > 0, "{board}: the walk finds its tours");
            }
        }
        assert!(compared > 10_000, "{compared} choices compared");
    }

    #[test]
    fn the_choices_a_state_condemns_are_the_ones_the_rules_drop() {
        // the rules that read the state first and skip the choices it condemns against every
        // choice tried: the same successors in the same order, on whole walks open (with both
        // colour rules), closed, from fixed ends, and cut for meeting in the middle
        let bounded: Build = |k, s, c, d, out| {
            choices_of::<_, true>(k, s, c, d, |n, ch| out.push((n, ch)));
        };
        let every: Build = |k, s, c, d, out| {
            choices_of::<_, false>(k, s, c, d, |n, ch| out.push((n, ch)));
        };
        let cases: [Case; 9] = [
            (5, 6, false, vec![], None),
            (5, 5, false, vec![], None),
            (4, 7, false, vec![], None),
            (6, 6, false, vec![], None),
            (6, 5, true, vec![], None),
            (6, 6, true, vec![], None),
            (5, 6, false, vec![0], None),
            (5, 6, false, vec![3, 20], None),
            (5, 7, false, vec![], Some(20)),
        ];
        let (mut compared, mut tours) = (0, 0);
        for (rows, cols, closed, terminals, cut) in cases {
            for (board, walk, mut rules) in knight_walks(rows, cols, closed) {
                if !terminals.is_empty() {
                    rules.terminals.clone_from(&terminals);
                    rules.ends_on_majority = false;
                    rules.ends_differ = false;
                }
                rules.cut = cut;
                let to = cut.map_or(walk.n, |c| c + walk.w);
                let (n, t) = compare_walk(
                    board,
                    &steps(&walk, &rules, 0, to.min(walk.n)),
                    closed,
                    [bounded, every],
                );
                compared += n;
                tours += t;
            }
        }
        assert!(tours > 0, "the walks find their tours");
        assert!(compared > 100_000, "{compared} choices compared");
    }

    #[test]
    fn a_step_keeps_the_classes_of_the_slots_it_does_not_touch() {
        // every state of whole walks against every state it leads to (before the mirror
        // merges it: a walk back tests the merged state's image too), open and closed
        let mut checked = 0;
        let walks = [(5, 6, false), (4, 7, false), (6, 5, true), (6, 6, true)]
            .into_iter()
            .flat_map(|(rows, cols, closed)| {
                knight_walks(rows, cols, closed)
                    .into_iter()
                    .map(move |w| (closed, w))
            });
        for (closed, (board, walk, rules)) in walks {
            let mut layer = std::collections::BTreeSet::from([0u64]);
            for step in &steps::<u64>(&walk, &rules, 0, walk.n) {
                let kept = unchanged_slots(step);
                let mut plain = step.clone();
                plain.mirror = None;
                let mut next = std::collections::BTreeSet::new();
                for &k in &layer {
                    expand_choices(k, &plain, closed, |t, _| {
                        if let Some(t) = t {
                            assert_eq!(
                                classes(k.shifted(), kept),
                                classes(t, kept),
                                "{board}: {k:#x} to {t:#x}"
                            );
                            checked += 1;
                            next.insert(match &step.mirror {
                                Some(p) => t.min(p.apply(t, step.width)),
                                None => t,
                            });
                        }
                    });
                }
                layer = next;
            }
        }
        assert!(checked > 10_000, "{checked} steps checked");
    }
}
