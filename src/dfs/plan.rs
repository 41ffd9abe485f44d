//! How a count is assembled: the root problems (start square, allowed ends, weights, multiplier)
//! and their split into numbered work units, in an order fixed by the board alone.

use crate::bitboard::Bitboard;
use crate::board::{Board, Square};
use crate::engine::CountSpec;
use crate::graph::SmallGraph;
use crate::piece::Piece;
use crate::search::{PairStep, Problem};

/// One Hamiltonian-path search: paths from `start` covering `free`, ending on a weighted square.
#[derive(Clone, Debug)]
pub struct Root {
    pub start: u32,
    pub free: Bitboard,
    pub weight: [u8; 64],
    /// How many start squares this search stands for (its orbit's size).
    pub multiplier: u64,
}

/// A work unit: a node of one root's search tree, either of the search from the root's start
/// ([`Plan::units`]) or of the search from both ends of its paths ([`Plan::pair_units`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub root: u32,
    pub free: Bitboard,
    pub cur: u32,
    /// The far end of a unit of the search from both ends, which counts the paths from `cur`
    /// to `end` through `free`, `weight` times each; [`ONE_ENDED`] for a unit of the search
    /// from the start, which counts the root's weighted paths from `cur` through `free`.
    pub end: u32,
    pub weight: u8,
}

/// The `end` of a unit of the search from the root's start.
pub const ONE_ENDED: u32 = u32::MAX;

impl Unit {
    /// A unit of the search from root `root`'s start, standing on `cur` with `free` to cover.
    #[must_use]
    pub const fn one_ended(root: u32, free: Bitboard, cur: u32) -> Unit {
        Unit {
            root,
            free,
            cur,
            end: ONE_ENDED,
            weight: 1,
        }
    }

    /// Whether this unit is a node of the search from both ends.
    #[must_use]
    pub const fn is_pair(&self) -> bool {
        self.end != ONE_ENDED
    }
}

/// How the weighted sum of the roots turns into the reported figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tally {
    /// The sum is the directed open count; undirected is half of it.
    OpenAll,
    /// The sum counts tours with a fixed start (and maybe end): directed = undirected = sum.
    Fixed,
    /// The sum is the number of undirected cycles; directed is twice that.
    Cycles,
}

/// The roots of a count on a small board, and how to read their sum.
#[derive(Clone, Debug)]
pub struct Plan {
    pub graph: SmallGraph,
    pub roots: Vec<Root>,
    pub tally: Tally,
    /// One line saying how the total is assembled.
    pub how: String,
}

/// Nodes with this many free squares or fewer are never split further.
const SPLIT_MIN: u32 = 12;

impl Plan {
    /// The plan for `spec` (the caller has checked the board is small and the squares on it).
    #[must_use]
    pub fn new(board: Board, piece: &Piece, spec: &CountSpec) -> Plan {
        let mut plan = Plan::assemble(board, piece, spec);
        let roots = 0..plan.roots.len();
        if !roots.is_empty() && roots.into_iter().all(|i| plan.problem(i, 0).both_ends) {
            plan.how += ", each counted from both ends";
        }
        plan
    }

    /// [`Plan::new`] but for the note on how the roots' paths are counted.
    fn assemble(board: Board, piece: &Piece, spec: &CountSpec) -> Plan {
        let g = SmallGraph::new(board, piece).expect("a small board");
        let all = g.all;
        let idx = |s: Square| board.index(s);
        // squares no tour can end on: the minority colour of an odd board, for a colour-switching piece
        let parity_ok = |s: u32| {
            !(piece.is_colour_switching() && g.n % 2 == 1 && Board::colour(board.square(s)) == 1)
        };
        let plain = |start: u32, ends: Bitboard| -> Root {
            let mut weight = [0u8; 64];
            for e in ends {
                weight[e as usize] = 1;
            }
            Root {
                start,
                free: all.without(start),
                weight,
                multiplier: 1,
            }
        };
        if spec.closed {
            let (roots, how) = match (spec.from, spec.to) {
                (Some(s), Some(t)) => {
                    let (s, t) = (idx(s), idx(t));
                    let roots = if g.masks[s as usize].contains(t) {
                        vec![plain(s, Bitboard::from_square(t))]
                    } else {
                        Vec::new()
                    };
                    (
                        roots,
                        "closed tours from the start square whose last square is the given end"
                            .to_string(),
                    )
                }
                (from, to) => {
                    // every cycle passes every square: anchor it at a square of least degree and
                    // count paths between each pair of its neighbours
                    let anchor = (0..g.n)
                        .min_by_key(|&s| g.masks[s as usize].count())
                        .expect("a square");
                    let nb: Vec<u32> = g.masks[anchor as usize].iter().collect();
                    // (a path of at least two squares between the second and the last-but-one,
                    // which are then different squares)
                    let mirror = if spec.symmetry && nb.len() == 2 && g.n >= 5 {
                        swapping_symmetry(board, &g, anchor, nb[0], nb[1])
                    } else {
                        None
                    };
                    let mut roots = Vec::new();
                    for (i, &a) in nb.iter().enumerate() {
                        for &b in &nb[i + 1..] {
                            let mut r = plain(a, Bitboard::from_square(b));
                            r.free = all.without(anchor).without(a);
                            roots.push(r);
                        }
                    }
                    let through = from
                        .or(to)
                        .map(|s| format!(" (every closed tour passes {})", board.name(s)));
                    let mut how = format!(
                        "cycles anchored at {} (degree {}): paths between each of its {} neighbour pairs{}",
                        board.name(board.square(anchor)),
                        nb.len(),
                        roots.len(),
                        through.unwrap_or_default()
                    );
                    if let Some(perm) = mirror {
                        roots = mirrored_roots(&g, anchor, nb[0], nb[1], &perm);
                        how += &format!(
                            ", searched from their {} second squares and weighted by their last-but-one, a path and its mirror image counted once, twice over",
                            roots.len()
                        );
                    }
                    (roots, how)
                }
            };
            let tally = if spec.from.is_some() && spec.to.is_some() {
                Tally::Fixed
            } else {
                Tally::Cycles
            };
            return Plan {
                graph: g,
                roots,
                tally,
                how,
            };
        }
        match (spec.from, spec.to) {
            (Some(s), to) => {
                let ends = to.map_or(all, |t| Bitboard::from_square(idx(t)));
                let root = plain(idx(s), ends);
                Plan {
                    graph: g,
                    roots: vec![root],
                    tally: Tally::Fixed,
                    how: "paths from the start square".into(),
                }
            }
            (None, Some(t)) => {
                let root = plain(idx(t), all);
                let how = "paths ending on the square, counted from it in reverse".into();
                Plan {
                    graph: g,
                    roots: vec![root],
                    tally: Tally::Fixed,
                    how,
                }
            }
            (None, None) if !spec.symmetry => {
                let roots: Vec<Root> = (0..g.n)
                    .filter(|&s| parity_ok(s))
                    .map(|s| plain(s, all))
                    .collect();
                let how = format!(
                    "every start square searched ({} square{})",
                    roots.len(),
                    crate::human::plural(roots.len() as u64)
                );
                Plan {
                    graph: g,
                    roots,
                    tally: Tally::OpenAll,
                    how,
                }
            }
            (None, None) => {
                let orbits = board.orbits();
                let mut roots = Vec::new();
                for (i, orbit) in orbits.iter().enumerate() {
                    let rep = orbit[0];
                    if !parity_ok(rep) {
                        continue;
                    }
                    let mut weight = [0u8; 64];
                    for (j, o) in orbits.iter().enumerate() {
                        // a path and its reverse: count it once from the earlier orbit, twice over
                        let w = if spec.per_square {
                            1
                        } else {
                            match j.cmp(&i) {
                                std::cmp::Ordering::Less => 0,
                                std::cmp::Ordering::Equal => 1,
                                std::cmp::Ordering::Greater => 2,
                            }
                        };
                        for &s in o {
                            if parity_ok(s) {
                                weight[s as usize] = w;
                            }
                        }
                    }
                    roots.push(Root {
                        start: rep,
                        free: all.without(rep),
                        weight,
                        multiplier: orbit.len() as u64,
                    });
                }
                let how = if spec.per_square {
                    format!(
                        "one start square per symmetry orbit ({} of {} square{}), times the orbit size",
                        roots.len(),
                        g.n,
                        crate::human::plural(g.n as u64)
                    )
                } else {
                    format!(
                        "one start square per symmetry orbit ({} of {} square{}), times the orbit size; each path counted from its end in the earlier orbit, twice",
                        roots.len(),
                        g.n,
                        crate::human::plural(g.n as u64)
                    )
                };
                Plan {
                    graph: g,
                    roots,
                    tally: Tally::OpenAll,
                    how,
                }
            }
        }
    }

    /// The search problem of root `i`; `id_base` comes from [`crate::search::fresh_ids`]. The
    /// roots' problems share their counts between two fixed ends under `id_base`.
    #[must_use]
    pub fn problem(&self, i: usize, id_base: u64) -> Problem<'_> {
        Problem::weighted(&self.graph, self.roots[i].weight, id_base + i as u64).sharing(id_base)
    }

    /// Splits the roots into at least `target` work units where the trees allow it, expanding
    /// every unit one level at a time (children in Warnsdorff order: fewest onward moves first)
    /// and dropping dead nodes. The result depends on the plan and `target` only.
    #[must_use]
    pub fn units(&self, target: usize) -> Vec<Unit> {
        self.units_with_prefixes(target)
            .into_iter()
            .map(|(u, _)| u)
            .collect()
    }

    /// [`Plan::units`], each unit with the squares of the path that leads to it from its root's
    /// start (the start first, the unit's square last): what a listing of the tours needs and a
    /// count does not.
    #[must_use]
    pub fn units_with_prefixes(&self, target: usize) -> Vec<(Unit, Vec<u32>)> {
        let problems: Vec<Problem<'_>> =
            (0..self.roots.len()).map(|i| self.problem(i, 0)).collect();
        let mut units: Vec<(Unit, Vec<u32>)> = self
            .roots
            .iter()
            .enumerate()
            .map(|(i, r)| (Unit::one_ended(i as u32, r.free, r.start), vec![r.start]))
            .collect();
        while units.len() < target {
            let mut next = Vec::with_capacity(units.len() * 4);
            let mut grew = false;
            for (u, prefix) in units {
                if u.free.count() <= SPLIT_MIN {
                    next.push((u, prefix));
                    continue;
                }
                grew = true;
                let p = &problems[u.root as usize];
                let mut kids: Vec<(u32, u32)> = p
                    .moves(u.free, u.cur)
                    .iter()
                    .map(|w| ((self.graph.masks[w as usize] & u.free).count(), w))
                    .collect();
                kids.sort_unstable();
                next.extend(kids.into_iter().map(|(_, w)| {
                    let mut longer = prefix.clone();
                    longer.push(w);
                    (Unit::one_ended(u.root, u.free.without(w), w), longer)
                }));
            }
            units = next;
            if !grew {
                break;
            }
        }
        units
    }
}

impl Plan {
    /// Whether every root is counted from both ends of its paths (see
    /// [`crate::search::BOTH_ENDS_MAX`]), so that the count can be cut into units of that
    /// search ([`Plan::pair_units`]).
    #[must_use]
    pub fn counts_pairs(&self) -> bool {
        !self.roots.is_empty()
            && (0..self.roots.len())
                .all(|i| self.roots[i].free.any() && self.problem(i, 0).both_ends)
    }

    /// Splits the roots into at least `target` work units of the search from both ends, where
    /// the trees allow it: each root first into its ends (a unit for each end of non-zero
    /// weight: the paths from the start to that end), then every unit one level at a time as
    /// the count extends it ([`Problem::pair_step`]), dropping dead nodes. Below such a unit
    /// the count goes on from both of its ends, where below a unit of [`Plan::units`] it
    /// starts the search from the far end again for every unit: 6x6 closed took 1.27 ms of
    /// search on one thread cut this way against 1.45 ms. `None` unless
    /// [`Plan::counts_pairs`]. The result depends on the plan and `target` only.
    #[must_use]
    pub fn pair_units(&self, target: usize) -> Option<Vec<Unit>> {
        if !self.counts_pairs() {
            return None;
        }
        let problems: Vec<Problem<'_>> =
            (0..self.roots.len()).map(|i| self.problem(i, 0)).collect();
        let mut units: Vec<Unit> = Vec::new();
        for (i, r) in self.roots.iter().enumerate() {
            for e in r.free {
                let weight = r.weight[e as usize];
                if weight > 0 {
                    units.push(Unit {
                        root: i as u32,
                        free: r.free.without(e),
                        cur: r.start,
                        end: e,
                        weight,
                    });
                }
            }
        }
        while units.len() < target {
            let mut next = Vec::with_capacity(units.len() * 4);
            let mut grew = false;
            for u in units {
                if u.free.count() <= SPLIT_MIN {
                    next.push(u);
                    continue;
                }
                match problems[u.root as usize].pair_step(u.free, u.cur, u.end) {
                    PairStep::Settled(0) => {}
                    PairStep::Settled(_) => next.push(u),
                    PairStep::Extend { moves, from_a } => {
                        grew = true;
                        next.extend(moves.iter().map(|w| {
                            let free = u.free.without(w);
                            if from_a {
                                Unit { free, cur: w, ..u }
                            } else {
                                Unit { free, end: w, ..u }
                            }
                        }));
                    }
                }
            }
            units = next;
            if !grew {
                break;
            }
        }
        Some(units)
    }

    /// Knuth's estimate (1975) of the number of nodes in the pruned search trees: random walks
    /// from the roots, each adding up the products of the branching factors met on the way. It
    /// ignores the memo table, so it overestimates the work; it is for telling a count of
    /// minutes from one of years, not for predicting seconds.
    #[must_use]
    pub fn estimate_nodes(&self, probes: u32, seed: u64) -> f64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut total = 0.0;
        for (i, root) in self.roots.iter().enumerate() {
            let p = self.problem(i, 0);
            let mut sum = 0.0;
            for _ in 0..probes {
                let (mut free, mut cur) = (root.free, root.start);
                let (mut weight, mut nodes) = (1.0f64, 1.0f64);
                while free.any() {
                    let m = p.moves(free, cur);
                    if m.is_empty() {
                        break;
                    }
                    let k = m.count();
                    weight *= f64::from(k);
                    nodes += weight;
                    let pick = m.iter().nth(rng.usize(..k as usize)).expect("k moves");
                    free = free.without(pick);
                    cur = pick;
                }
                sum += nodes;
            }
            total += sum / f64::from(probes);
        }
        total
    }
}
/// A symmetry of the board that fixes `anchor`, swaps its two neighbours `a` and `b`, and maps
/// the piece's moves onto themselves (the diagonal through a corner, on a square board), as a
/// permutation of squares; `None` when there is none.
fn swapping_symmetry(
    board: Board,
    g: &SmallGraph,
    anchor: u32,
    a: u32,
    b: u32,
) -> Option<Vec<u32>> {
    board.symmetries().into_iter().find_map(|sym| {
        let perm = board.permutation(sym);
        let p = |s: u32| perm[s as usize];
        let automorphism = (0..g.n).all(|s| {
            g.masks[s as usize]
                .iter()
                .fold(Bitboard::EMPTY, |m, t| m.with(p(t)))
                == g.masks[p(s) as usize]
        });
        (p(anchor) == anchor && p(a) == b && p(b) == a && automorphism).then_some(perm)
    })
}

/// The closed count's paths from `a` to `b` (the neighbours of `anchor`), searched from their
/// second square `x` and weighted by their last-but-one `y`. The symmetry `perm` (fixing the
/// anchor, swapping `a` and `b`) maps a path `a x ... y b` to `b perm(x) ... perm(y) a`, which
/// read backwards is `a perm(y) ... perm(x) b`: the pairs `(x, y)` and `(perm(y), perm(x))`
/// count alike, so a path is counted only at the first pair of the two, twice over, and at a
/// pair that is its own image once; a search from `x` counts nothing at the other ends, so it
/// can cut the paths that must end there.
fn mirrored_roots(g: &SmallGraph, anchor: u32, a: u32, b: u32, perm: &[u32]) -> Vec<Root> {
    let rest = g.all.without(anchor).without(a).without(b);
    let mut roots = Vec::new();
    for x in g.masks[a as usize] & rest {
        let mut weight = [0u8; 64];
        for y in (g.masks[b as usize] & rest).without(x) {
            let image = (perm[y as usize], perm[x as usize]);
            weight[y as usize] = match image.cmp(&(x, y)) {
                std::cmp::Ordering::Less => 0,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Greater => 2,
            };
        }
        if weight.iter().any(|&w| w > 0) {
            roots.push(Root {
                start: x,
                free: rest.without(x),
                weight,
                multiplier: 1,
            });
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_plan(rows: u32, cols: u32, piece: &str, symmetry: bool) -> Plan {
        let spec = CountSpec {
            closed: true,
            symmetry,
            ..CountSpec::default()
        };
        Plan::new(
            Board::new(rows, cols).unwrap(),
            &piece.parse().unwrap(),
            &spec,
        )
    }

    #[test]
    fn a_square_board_s_closed_count_is_searched_from_the_anchor_s_mirrored_neighbours() {
        // 6x6: a1's neighbours b3 and c2 are swapped by the diagonal; the paths b3 ... c2 are
        // searched from the second square, weighted 0, 1 or 2 by the last-but-one
        let p = closed_plan(6, 6, "knight", true);
        assert!(p.how.contains("second squares"), "{}", p.how);
        assert!(p.roots.len() > 1);
        let weights: u64 = p
            .roots
            .iter()
            .flat_map(|r| r.weight.iter().map(|&w| u64::from(w)))
            .sum();
        // each (second, last-but-one) pair once or twice: as many as there are pairs
        let b3_c2_pairs = 5 * 5 - 1;
        assert_eq!(weights, b3_c2_pairs);
        // no symmetry asked, or none that fixes the anchor (a rectangle): one search
        for p in [
            closed_plan(6, 6, "knight", false),
            closed_plan(5, 6, "knight", true),
        ] {
            assert_eq!(p.roots.len(), 1, "{}", p.how);
            assert!(!p.how.contains("second squares"));
        }
    }

    /// Units of the search from both ends count what the units of the search from the start
    /// count, at every target, on closed counts (mirrored roots and plain), counts between two
    /// given squares and other pieces; open counts with free ends cannot be cut so.
    #[test]
    fn pair_units_count_what_one_ended_units_count() {
        use crate::board::Square;
        use crate::dfs::Counter;
        let sum = |plan: &Plan, units: &[Unit]| -> u64 {
            let c = Counter::new(plan);
            units
                .iter()
                .map(|u| plan.roots[u.root as usize].multiplier * c.count(u))
                .sum()
        };
        let fixed = |from: (u32, u32), to: (u32, u32), closed: bool| CountSpec {
            closed,
            from: Some(Square::new(from.0, from.1)),
            to: Some(Square::new(to.0, to.1)),
            symmetry: true,
            ..CountSpec::default()
        };
        let closed = CountSpec {
            closed: true,
            symmetry: true,
            ..CountSpec::default()
        };
        let cases: Vec<(Board, &str, CountSpec)> = vec![
            (Board::new(6, 6).unwrap(), "knight", closed.clone()),
            (Board::new(5, 6).unwrap(), "knight", closed.clone()),
            (Board::new(3, 10).unwrap(), "knight", closed.clone()),
            (Board::new(5, 5).unwrap(), "3,0+2,2", closed.clone()),
            (Board::new(4, 5).unwrap(), "0,1", closed),
            (
                Board::new(5, 6).unwrap(),
                "knight",
                fixed((0, 0), (4, 5), false),
            ),
            (
                Board::new(6, 5).unwrap(),
                "knight",
                fixed((0, 0), (1, 2), true),
            ),
        ];
        for (board, piece, spec) in cases {
            let plan = Plan::new(board, &piece.parse().unwrap(), &spec);
            assert!(plan.counts_pairs(), "{board} {piece}");
            let want = sum(&plan, &plan.units(64));
            assert!(want > 0, "{board} {piece}: nothing to compare");
            for target in [1, 16, 64, 1024] {
                let units = plan.pair_units(target).expect("a plan of two-ended roots");
                assert!(units.iter().all(Unit::is_pair));
                assert_eq!(sum(&plan, &units), want, "{board} {piece} target {target}");
            }
        }
        let open = Plan::new(
            Board::new(5, 6).unwrap(),
            &Piece::knight(),
            &CountSpec::default(),
        );
        assert!(!open.counts_pairs() && open.pair_units(64).is_none());
    }
}
