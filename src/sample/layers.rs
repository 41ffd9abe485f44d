//! Exact uniform sampling through the frontier engine's layers, for long boards (3x40, 4x20 …)
//! where the search cannot count.
//!
//! A plain forward sweep (no mirror merging, no meeting in the middle) keeps every layer's set of
//! reachable states; a backward pass gives each state the number of ways to finish a tour from it
//! (at the last square, the choices that complete one; before, the sum over every choice of the
//! state it leads to). A tour's rank is then unranked forwards: at each square the choices are
//! taken in the engine's order and the rank falls in one choice's share. Choices, not states, are
//! the unit: two choices can lead to the same state, and each is a different set of edges. The
//! edges the choices give rebuild the tour.

use std::ops::SubAssign;

use num_bigint::BigUint;
use rayon::prelude::*;

use crate::board::Board;
use crate::count::report::human_bytes;
use crate::engine::Order;
use crate::piece::Piece;
use crate::walk::expand::{Choice, expand_choices};
use crate::walk::layout::{self, Rules, Step, Walk};
use crate::walk::state::Key;

use super::Request;
use super::fault::{Fault, fault};

/// An exact sampler built from frontier layers.
pub(crate) trait Draw: Send + Sync {
    /// Ranks are drawn below this.
    fn bound(&self) -> &BigUint;
    /// The path of rank `r`, as board square indices: open tours from their fixed start, or in
    /// the direction `coin` picks.
    fn unrank(&self, r: &BigUint, coin: bool) -> Vec<u32>;
    /// The tables in a few words.
    fn describe(&self) -> String;
}

/// No tables (a placeholder while a sampler is set up).
pub(crate) struct Empty;

impl Draw for Empty {
    fn bound(&self) -> &BigUint {
        unreachable!("an empty sampler is never drawn from")
    }
    fn unrank(&self, _: &BigUint, _: bool) -> Vec<u32> {
        unreachable!("an empty sampler is never drawn from")
    }
    fn describe(&self) -> String {
        String::new()
    }
}

/// The largest window the layers handle (the frontier engine's).
fn window(board: Board, piece: &Piece) -> u32 {
    Walk::new(board, piece, false, Order::Tuned).window()
}

/// Whether the frontier layers can hold this board at all.
pub(crate) fn fits(board: Board, piece: &Piece) -> bool {
    window(board, piece) <= crate::frontier::MAX_WINDOW
}

/// Whether the layers should be tried before the search on a board of up to 64 squares: with a
/// short side of at most 5 they are small and quick (5x8 open: 4 million states, 3 s of CPU,
/// against 9 s for the search), while the search's count grows fast with the length (3x21,
/// 4x16); on 6x6 open the search wins (1 s against 9 s).
pub(crate) fn preferred(board: Board, piece: &Piece, _req: &Request) -> bool {
    board.rows.min(board.cols) <= 5 && fits(board, piece)
}

/// A count: `u128` while it fits, then [`BigUint`].
trait Weight: Clone + Send + Sync + PartialOrd + for<'a> SubAssign<&'a Self> + 'static {
    fn zero() -> Self;
    fn one() -> Self;
    fn is_zero(&self) -> bool;
    /// `self += x`; `false` on overflow.
    fn add(&mut self, x: &Self) -> bool;
    fn big(&self) -> BigUint;
    fn from_big(x: &BigUint) -> Self;
    const BYTES: u64;
}

impl Weight for u128 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn add(&mut self, x: &Self) -> bool {
        match self.checked_add(*x) {
            Some(y) => {
                *self = y;
                true
            }
            None => false,
        }
    }
    fn big(&self) -> BigUint {
        BigUint::from(*self)
    }
    fn from_big(x: &BigUint) -> Self {
        u128::try_from(x).expect("a rank below a u128 total")
    }
    const BYTES: u64 = 16;
}

impl Weight for BigUint {
    fn zero() -> Self {
        BigUint::ZERO
    }
    fn one() -> Self {
        BigUint::from(1u32)
    }
    fn is_zero(&self) -> bool {
        *self == BigUint::ZERO
    }
    fn add(&mut self, x: &Self) -> bool {
        *self += x;
        true
    }
    fn big(&self) -> BigUint {
        self.clone()
    }
    fn from_big(x: &BigUint) -> Self {
        x.clone()
    }
    const BYTES: u64 = 48;
}

/// The edges of a drawn path, two neighbours a square at most (walk numbers; `u32::MAX`:
/// none yet): what the exact samplers rebuild a tour from.
pub(crate) struct Links(Vec<[u32; 2]>);

impl Links {
    pub(crate) fn new(squares: usize) -> Links {
        Links(vec![[u32::MAX; 2]; squares])
    }

    /// The edge `a`–`b`.
    pub(crate) fn add(&mut self, a: u32, b: u32) {
        for (x, y) in [(a, b), (b, a)] {
            let slot = &mut self.0[x as usize];
            let i = usize::from(slot[0] != u32::MAX);
            slot[i] = y;
        }
    }

    /// The squares with fewer than two edges (an open path's ends), in order.
    pub(crate) fn ends(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.0.len() as u32).filter(|&v| self.0[v as usize][1] == u32::MAX)
    }

    /// The squares in the order the edges lead from `first`, each as `index` gives it, until
    /// every square is passed or the edges end.
    pub(crate) fn trace(&self, first: u32, index: impl Fn(u32) -> u32) -> Vec<u32> {
        let n = self.0.len();
        let mut path = Vec::with_capacity(n);
        let (mut prev, mut cur) = (u32::MAX, first);
        loop {
            path.push(index(cur));
            if path.len() == n {
                break;
            }
            let [a, b] = self.0[cur as usize];
            let nxt = if a != prev { a } else { b };
            if nxt == u32::MAX {
                break;
            }
            prev = cur;
            cur = nxt;
        }
        path
    }
}

/// One layer: its states sorted, and (after the backward pass) each one's completions.
struct Layer<K, W> {
    keys: Vec<K>,
    ways: Vec<W>,
}

impl<K: Key, W: Weight> Layer<K, W> {
    fn ways(&self, k: K) -> Option<&W> {
        self.keys.binary_search(&k).ok().map(|i| &self.ways[i])
    }
}

struct Tables<K, W> {
    board: Board,
    walk: Walk,
    steps: Vec<Step<K>>,
    closed: bool,
    /// The fixed start (walk number), open tours with `--from`.
    start: Option<u32>,
    /// `layers[i]`: the states before square `i` that can still finish a tour.
    layers: Vec<Layer<K, W>>,
    bound: BigUint,
    states: u64,
}

/// Builds the tables for `req`, or says why they are out of reach.
pub(crate) fn build(board: Board, piece: &Piece, req: &Request) -> Result<Box<dyn Draw>, Fault> {
    if !fits(board, piece) {
        return Err(fault!(
            "the frontier window of {board} is {} squares; its tables handle up to {}",
            window(board, piece),
            crate::frontier::MAX_WINDOW
        ));
    }
    let walk = Walk::new(board, piece, false, Order::Tuned);
    if walk.window() <= u64::SLOTS {
        build_k::<u64>(board, walk, req)
    } else {
        build_k::<u128>(board, walk, req)
    }
}

fn build_k<K: Key>(board: Board, walk: Walk, req: &Request) -> Result<Box<dyn Draw>, Fault> {
    let mut rules = Rules::default();
    let start = if req.closed {
        None
    } else {
        req.from.map(|s| walk.number(s))
    };
    rules.terminals.extend(start);
    let steps = layout::steps::<K>(&walk, &rules, 0, walk.n);
    let keys = forward(board, &walk, &steps, req)?;
    let states: u64 = keys.iter().map(|k| k.len() as u64).sum();
    match backward::<K, u128>(&steps, req.closed, &keys) {
        Some(layers) => Ok(Box::new(Tables::new(
            board, walk, steps, req, start, layers, states,
        ))),
        None => {
            let layers = backward::<K, BigUint>(&steps, req.closed, &keys)
                .expect("big numbers do not overflow");
            Ok(Box::new(Tables::new(
                board, walk, steps, req, start, layers, states,
            )))
        }
    }
}

/// Seconds of CPU the forward and backward passes spend on a state (measured 0.8 µs on 5x8 and
/// 6x6 open).
const SECONDS_PER_STATE: f64 = 8e-7;

/// States of a whole sweep projected from the sizes of the layers at the column ends so far:
/// each later column grows by the square root of the last growth ratio, none past `w + 2`
/// columns (where long boards level off, as the frontier engine's reach estimate assumes), and a
/// column holds `w` layers about the size of its end. It errs low, like that estimate.
fn projected(ends: &[u64], w: u32, len: u32) -> f64 {
    let Some(&last) = ends.last() else {
        return 0.0;
    };
    let before = if ends.len() >= 2 {
        ends[ends.len() - 2]
    } else {
        1
    };
    let mut ratio = (last as f64 / before.max(1) as f64).max(1.0);
    let mut size = last as f64;
    let mut total: f64 = ends.iter().map(|&s| s as f64).sum();
    for c in ends.len() as u32 + 1..=len {
        if c <= w + 2 {
            ratio = ratio.sqrt();
            size *= ratio;
        }
        total += size;
    }
    total * f64::from(w)
}

/// Every layer's reachable states, sorted.
fn forward<K: Key>(
    board: Board,
    walk: &Walk,
    steps: &[Step<K>],
    req: &Request,
) -> Result<Vec<Vec<K>>, Fault> {
    let mut layers: Vec<Vec<K>> = vec![vec![K::ZERO]];
    let mut bytes = 0u64;
    let per = std::mem::size_of::<K>() as u64 + 16;
    let mut ends = Vec::new();
    // `auto`'s limit is on the projected work, never on the clock, for a fixed number of
    // threads: the same request takes the same method on an idle machine and a loaded one, with
    // any -j
    let threads = super::CHOICE_THREADS as f64;
    for (i, step) in steps[..steps.len() - 1].iter().enumerate() {
        let cur = layers.last().expect("a layer");
        let mut next: Vec<K> = cur
            .par_chunks(1024)
            .flat_map_iter(|chunk| {
                let mut out = Vec::new();
                for &k in chunk {
                    expand_choices(k, step, req.closed, |t, _| out.extend(t));
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        next.par_sort_unstable();
        next.dedup();
        next.shrink_to_fit();
        bytes += next.len() as u64 * per;
        if bytes > req.max_memory {
            return Err(fault!(
                "the frontier tables for {board} passed the memory bound of {} (--max-memory) at square {} of {}",
                human_bytes(req.max_memory),
                i + 1,
                walk.n
            ));
        }
        if (i as u32 + 1).is_multiple_of(walk.w) {
            ends.push(next.len() as u64);
            let states = projected(&ends, walk.w, walk.len);
            let need = states * per as f64;
            if need > req.max_memory as f64 {
                return Err(fault!(
                    "the frontier tables for {board} are projected at {} after {} columns, over the memory bound of {} (--max-memory)",
                    human_bytes(need as u64),
                    ends.len(),
                    human_bytes(req.max_memory)
                ));
            }
            if let Some(limit) = req.seconds {
                let secs = states * SECONDS_PER_STATE / threads;
                if secs > limit {
                    return Err(fault!(
                        "the frontier tables for {board} are projected at {states:.1e} states, about {secs:.0} s to build"
                    ));
                }
            }
        }
        layers.push(next);
    }
    Ok(layers)
}

/// The completions of every state, layer by layer from the last; states with none are dropped.
/// `None` when a count overflows `W`.
fn backward<K: Key, W: Weight>(
    steps: &[Step<K>],
    closed: bool,
    keys: &[Vec<K>],
) -> Option<Vec<Layer<K, W>>> {
    let n = steps.len();
    let mut out: Vec<Layer<K, W>> = Vec::with_capacity(n);
    for i in (0..n).rev() {
        let next = out.last();
        let ways: Option<Vec<W>> = keys[i]
            .par_iter()
            .map(|&k| {
                let mut w = W::zero();
                let mut ok = true;
                expand_choices(k, &steps[i], closed, |t, _| {
                    let add = match (t, next) {
                        (None, _) => W::one(),
                        (Some(t), Some(l)) => match l.ways(t) {
                            Some(x) => x.clone(),
                            None => return,
                        },
                        (Some(_), None) => return,
                    };
                    ok &= w.add(&add);
                });
                ok.then_some(w)
            })
            .collect();
        let ways = ways?;
        let (keys, ways): (Vec<K>, Vec<W>) = keys[i]
            .iter()
            .zip(ways)
            .filter(|(_, w)| !w.is_zero())
            .map(|(&k, w)| (k, w))
            .unzip();
        out.push(Layer { keys, ways });
    }
    out.reverse();
    Some(out)
}

impl<K: Key, W: Weight> Tables<K, W> {
    fn new(
        board: Board,
        walk: Walk,
        steps: Vec<Step<K>>,
        req: &Request,
        start: Option<u32>,
        layers: Vec<Layer<K, W>>,
        states: u64,
    ) -> Tables<K, W> {
        let bound = layers[0].ways(K::ZERO).map_or(BigUint::ZERO, Weight::big);
        Tables {
            board,
            walk,
            steps,
            closed: req.closed,
            start,
            layers,
            bound,
            states,
        }
    }
}

impl<K: Key, W: Weight> Draw for Tables<K, W> {
    fn bound(&self) -> &BigUint {
        &self.bound
    }

    fn unrank(&self, r: &BigUint, coin: bool) -> Vec<u32> {
        let n = self.walk.n as usize;
        let mut r = W::from_big(r);
        let mut links = Links::new(n);
        let mut state = K::ZERO;
        for (i, step) in self.steps.iter().enumerate() {
            let next = self.layers.get(i + 1);
            let mut chosen: Option<(Option<K>, Choice)> = None;
            expand_choices(state, step, self.closed, |t, choice| {
                if chosen.is_some() {
                    return;
                }
                let c = match (t, next) {
                    (None, _) => W::one(),
                    (Some(t), Some(l)) => match l.ways(t) {
                        Some(x) => x.clone(),
                        None => return,
                    },
                    (Some(_), None) => return,
                };
                if r < c {
                    chosen = Some((t, choice));
                } else {
                    r -= &c;
                }
            });
            let (t, choice) = chosen.expect("the choices' counts add up to the state's");
            for &b in choice.edges.iter().filter(|&&b| b > 0) {
                links.add(i as u32, i as u32 - b);
            }
            if let Some(t) = t {
                state = t;
            }
        }
        // walk the edges from an end (open) or from square 0 (closed)
        let first = match self.start {
            Some(s) => s,
            None if self.closed => 0,
            None => {
                let mut ends = links.ends();
                let (a, b) = (ends.next().expect("an end"), ends.next().unwrap_or(0));
                if coin { b } else { a }
            }
        };
        links.trace(first, |v| self.board.index(self.walk.square(v)))
    }

    fn describe(&self) -> String {
        let bytes = self.layers.iter().map(|l| l.keys.len() as u64).sum::<u64>()
            * (std::mem::size_of::<K>() as u64 + W::BYTES);
        format!(
            "{} layers, {} states reached, {} kept, {}",
            self.layers.len(),
            self.states,
            self.layers.iter().map(|l| l.keys.len() as u64).sum::<u64>(),
            human_bytes(bytes)
        )
    }
}
