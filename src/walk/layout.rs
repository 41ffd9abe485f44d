//! The board as the frontier engine walks it: squares numbered along the long side, and for each
//! step the window slots of the new square's neighbours, the squares that leave the window, and
//! what the pruning rules need to know.

use crate::board::{Board, Square};
use crate::engine::Order;
use crate::piece::Piece;

use super::state::{Key, Perm};

/// The walk: square `(x, y)` of the long side `x` and the short side `y` is number `x * w + y`
/// (the sides the other way round in a wide walk).
#[derive(Clone, Debug)]
pub(crate) struct Walk {
    /// The short side (the long one in a wide walk): the window's side.
    pub(crate) w: u32,
    /// The long side (the short one in a wide walk): the side walked.
    pub(crate) len: u32,
    /// The long side runs along the board's ranks (rows), so `x` is the row.
    pub(crate) along_rows: bool,
    pub(crate) n: u32,
    /// Neighbours of every square, in walk numbers.
    pub(crate) nb: Vec<Vec<u32>>,
    /// The largest step along the long side a move makes.
    pub(crate) reach: u32,
    /// Every move changes the colour of the square (`x + y` odd, as the knight's do): a path
    /// then alternates colours.
    pub(crate) alternating: bool,
    /// The rows of a column in the order walked (see [`crate::engine::Order`]): square
    /// `(x, rows[p])` is walk number `x * w + p`.
    pub(crate) rows: Vec<u32>,
    /// Where each row is in that order (`place[rows[p]] == p`).
    pub(crate) place: Vec<u32>,
    /// The window of the same board walked straight (see [`Walk::floor_shape`]).
    straight_window: u32,
}

impl Walk {
    /// The walk along the long side (`wide` false), or along the short side with the window
    /// across the long one (`wide`: see [`crate::engine::CountSpec::wide`]), each column's
    /// squares taken in `order`.
    pub(crate) fn new(board: Board, piece: &Piece, wide: bool, order: Order) -> Walk {
        let along_rows = (board.rows > board.cols) != (wide && board.rows != board.cols);
        let (w, len) = if along_rows {
            (board.cols, board.rows)
        } else {
            (board.rows, board.cols)
        };
        let n = w * len;
        let rows = super::order::column_rows(w, piece, order);
        let mut place = vec![0; w as usize];
        for (p, &y) in rows.iter().enumerate() {
            place[y as usize] = p as u32;
        }
        let moves: Vec<(i64, i64)> = piece
            .offsets()
            .into_iter()
            .map(|(dr, dc)| {
                if along_rows {
                    (i64::from(dr), i64::from(dc))
                } else {
                    (i64::from(dc), i64::from(dr))
                }
            })
            .collect();
        let nb: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let (x, y) = (i64::from(v / w), i64::from(rows[(v % w) as usize]));
                moves
                    .iter()
                    .filter_map(|&(dx, dy)| {
                        let (a, b) = (x + dx, y + dy);
                        (a >= 0 && b >= 0 && a < i64::from(len) && b < i64::from(w))
                            .then(|| a as u32 * w + place[b as usize])
                    })
                    .collect()
            })
            .collect();
        let reach = moves
            .iter()
            .filter(|&&(_, dy)| dy.unsigned_abs() < u64::from(w))
            .map(|&(dx, _)| dx.unsigned_abs() as u32)
            .max()
            .unwrap_or(0);
        let alternating = moves.iter().all(|&(dx, dy)| (dx + dy) % 2 != 0);
        let straight_window = if super::order::is_straight(&rows) {
            window_of(&nb)
        } else {
            Walk::new(board, piece, wide, Order::Straight).window()
        };
        Walk {
            w,
            len,
            along_rows,
            n,
            nb,
            reach,
            alternating,
            rows,
            place,
            straight_window,
        }
    }

    /// The walk of a count's request: [`Walk::new`] with its window and order.
    pub(crate) fn of(board: Board, piece: &Piece, spec: &crate::engine::CountSpec) -> Walk {
        Walk::new(board, piece, spec.wide, spec.order)
    }

    /// Whether no move stays within a column: a square's edges to the squares walked before it
    /// then all come when it is added, so its digit is final at once (see `tree.rs`). The
    /// knight's and most leapers' moves all change the column; a wazir's (0,1) do not.
    pub(crate) fn column_free(&self) -> bool {
        self.nb
            .iter()
            .enumerate()
            .all(|(v, us)| us.iter().all(|&u| u / self.w != v as u32 / self.w))
    }

    /// The walk number of a board square.
    pub(crate) fn number(&self, sq: Square) -> u32 {
        let (x, y) = if self.along_rows {
            (sq.row, sq.col)
        } else {
            (sq.col, sq.row)
        };
        x * self.w + self.place[y as usize]
    }

    /// The square of walk number `v` as (its column along the walk, its row across it).
    pub(crate) fn xy(&self, v: u32) -> (u32, u32) {
        (v / self.w, self.rows[(v % self.w) as usize])
    }

    /// The board square of walk number `v` (the inverse of [`Walk::number`]).
    pub(crate) fn square(&self, v: u32) -> Square {
        let (x, y) = self.xy(v);
        if self.along_rows {
            Square::new(x, y)
        } else {
            Square::new(y, x)
        }
    }

    /// The walk number of the square mirrored across the walk (`y -> w - 1 - y`) from walk
    /// square `v`: in the same column, at the place of the mirrored row.
    pub(crate) fn mirrored(&self, v: u32) -> u32 {
        let (x, y) = self.xy(v);
        x * self.w + self.place[(self.w - 1 - y) as usize]
    }

    /// Whether walk square `v` is of the colour with fewer squares on a board of an odd number
    /// of squares (the corners' colour has more): `(x + y)` odd.
    pub(crate) fn minority(&self, v: u32) -> bool {
        let (x, y) = self.xy(v);
        (x + y) % 2 == 1
    }

    /// Whether every path through all the squares has both its ends on the corners' colour: the
    /// moves alternate colours and the board has one square more of that colour than of the
    /// other (a path of `2k + 1` squares alternating colours starts and ends on the colour it
    /// has `k + 1` of).
    pub(crate) fn ends_on_majority(&self) -> bool {
        self.alternating && self.n % 2 == 1
    }

    /// Whether every path through all the squares has one end on each colour: the moves
    /// alternate colours and the board has as many squares of one as of the other.
    pub(crate) fn ends_differ(&self) -> bool {
        self.alternating && self.n.is_multiple_of(2)
    }

    /// Bytes a state's key takes in a table: two slots a byte.
    pub(crate) fn key_bytes(&self) -> usize {
        self.window().div_ceil(2) as usize
    }

    /// The slots a state needs: the farthest a square's last neighbour comes after it, plus one.
    pub(crate) fn window(&self) -> u32 {
        window_of(&self.nb)
    }

    /// The window and the key's bytes that the memory a count holds beside its tables is
    /// measured by (`sizes::min_bound`, `sizes::tables_for`): the straight walk's, in whatever
    /// order the columns are walked. What is held beside the tables (the program, the threads'
    /// batches and the files' buffers, the join's index of the crossing's squares) follows the
    /// board's width, not the order of its rows: measured under the floors on one thread, 6x8
    /// open walked tuned (a window of 16) was resident in 24 MiB under 32M, and 7x7 open (a
    /// window of 19, keys of two words) in 25 MiB under 40M (`results/order.md`).
    pub(crate) fn floor_shape(&self) -> (u32, usize) {
        let w = self.straight_window;
        (w, w.div_ceil(2) as usize)
    }
}

/// The slots a walk of neighbours `nb` (in walk numbers) needs: the farthest a square's last
/// neighbour comes after it, plus one.
fn window_of(nb: &[Vec<u32>]) -> u32 {
    nb.iter()
        .enumerate()
        .map(|(v, us)| {
            us.iter()
                .map(|&u| u.saturating_sub(v as u32))
                .max()
                .unwrap_or(0)
                + 1
        })
        .max()
        .unwrap_or(1)
}

/// What a square does when it joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Any number of edges up to two.
    Normal,
    /// An end of the path (`--from`/`--to`): at most one edge, then it is a terminal.
    Terminal,
    /// A square past the cut of a meet-in-the-middle count: it takes edges only from the left
    /// side, stays in the window, and (open tours) may be declared a terminal.
    Boundary,
}

/// A square not yet walked, with at most one neighbour not yet walked, whose walked neighbours
/// are in the window: it can still take two edges only if enough of those are not full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Look<K> {
    /// Its walk number (for telling which board's square it is: see `frontier::row`).
    pub(crate) square: u32,
    /// The slots of its walked neighbours (bit `4 * s` for slot `s`).
    pub(crate) slots: K,
    /// Its neighbours not yet walked (0 or 1).
    pub(crate) other: u32,
    /// It is an end the request fixes (so already counted among the terminals).
    pub(crate) terminal: bool,
    /// It cannot be an end of the path (see [`Rules::ends_on_majority`]): where it has one
    /// neighbour left the state is dead.
    pub(crate) no_end: bool,
    /// It is on the corners' colour (read where [`Rules::ends_differ`] holds).
    pub(crate) on_a: bool,
}

/// One step of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step<K> {
    /// Slots (after the shift) of the neighbours it may take edges to.
    pub(crate) back: Vec<u32>,
    /// A slot it must take an edge to (closed tours from one square to another).
    pub(crate) forced: Option<u32>,
    pub(crate) role: Role,
    /// Slots whose squares have no neighbour left after this step, in order.
    pub(crate) departs: Vec<u32>,
    /// The board's last square: complete tours are counted here.
    pub(crate) last: bool,
    /// Window squares with exactly one neighbour still to come.
    pub(crate) single: K,
    /// Window slots (slot 0 the new square) whose squares cannot be an end of the path (see
    /// [`Rules::ends_on_majority`]; none where the rule is off).
    pub(crate) no_end: K,
    /// Where [`Rules::ends_differ`] holds (else `None`): what tells the colours of the ends
    /// the window no longer shows.
    pub(crate) colours: Option<Colours<K>>,
    /// The squares ahead to look at, those that look only at slots outside [`Step::reach`]
    /// first ([`Step::look_fixed`] of them).
    pub(crate) look: Vec<Look<K>>,
    /// How many of [`Step::look`] (the first) look only at slots outside [`Step::reach`]: what
    /// they say holds for every choice of the step, so the rules read them once a state, not
    /// once a choice (a state tries five or six choices on 6 wide boards).
    pub(crate) look_fixed: usize,
    /// The slots (after the shift) whose class a choice of this step can change besides the
    /// departing ones: the new square's (slot 0), its neighbours' ([`Step::back`]) and the
    /// forced one. Whether any other slot is free or full is the same for every choice.
    pub(crate) reach: K,
    /// Fixed ends of the path not yet walked.
    pub(crate) pending: u32,
    /// At the end of a column of a symmetric count: where the mirror (`y -> w - 1 - y`) sends
    /// each slot.
    pub(crate) mirror: Option<Perm<K>>,
    /// Slots in use after the step.
    pub(crate) width: u32,
    /// The square's place in its column (layers at the same place in neighbouring columns grow
    /// alike: the tables are sized by it).
    pub(crate) row: u32,
}

impl<K: Copy> Step<K> {
    /// The same step `by` squares further on: everything a step holds is said in window slots
    /// but the squares ahead it looks at, which move. In the middle of a long board a step is
    /// its counterpart a column (or two) before moved on (see `frontier::sums`).
    pub(crate) fn moved(&self, by: u32) -> Step<K> {
        let mut s = self.clone();
        for l in &mut s.look {
            l.square += by;
        }
        s
    }
}

/// The colours of a step's window, from which a state tells the colours of its path's ends
/// that have left the window.
///
/// A piece of path alternates colours, so it holds as many squares of the corners' colour (A)
/// as of the other, plus one for each of its ends on A, less one: `#A - #B = [u on A] + [v on
/// A] - 1` for ends `u` and `v`. Summed over the pieces, the left side is the walked squares
/// with an edge (the walked squares less the window's squares with none), and of the ends on
/// the right the window shows every one but the path's own ends, which are at the far end of
/// the pieces marked [`super::state::TERM`]. So the number of those on A is
/// `balance - (free on A - free on B) - (window ends on A) + pieces`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Colours<K> {
    /// `#A - #B` over the squares walked so far.
    pub(crate) balance: i32,
    /// The window's slots of squares still in it.
    pub(crate) live: K,
    /// Those of them on A.
    pub(crate) a: K,
}

/// What a walk program needs besides the board.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Rules {
    /// Squares (walk numbers) that must be ends of an open path.
    pub(crate) terminals: Vec<u32>,
    /// An edge a closed tour must use, as walk numbers.
    pub(crate) forced_edge: Option<(u32, u32)>,
    /// Merge each state with its mirror image at the end of every column.
    pub(crate) mirror: bool,
    /// The first square past the cut (meet in the middle): squares from here are boundary
    /// squares that take edges only from squares before it.
    pub(crate) cut: Option<u32>,
    /// An open count on a board where every path's ends lie on the corners' colour (see
    /// [`Walk::ends_on_majority`]): a state that makes a square of the other colour an end of
    /// the path, now or as the only thing left to it, is dropped. On the odd boards of the
    /// tests this drops about half the states (7x7 open: 54 s to 18 s).
    pub(crate) ends_on_majority: bool,
    /// An open count on a board where every path's ends lie on different colours (see
    /// [`Walk::ends_differ`]): a state whose two ends of the path are of one colour, or whose
    /// one end is of the colour of the only square that can still be the other, is dropped.
    pub(crate) ends_differ: bool,
}

impl Rules {
    /// The rules of a count of every tour of `walk` (no fixed ends): the colour rules where the
    /// tours are open, the mirror merge where `mirror`.
    pub(crate) fn counting(walk: &Walk, closed: bool, mirror: bool) -> Rules {
        Rules {
            mirror,
            ends_on_majority: !closed && walk.ends_on_majority(),
            ends_differ: !closed && walk.ends_differ(),
            ..Rules::default()
        }
    }

    fn boundary(&self, v: u32) -> bool {
        self.cut.is_some_and(|c| v >= c)
    }

    fn edge_allowed(&self, a: u32, b: u32) -> bool {
        !(self.boundary(a) && self.boundary(b))
    }
}

/// The steps of the two sides of a meeting in the middle cut after `left` columns, `right`
/// from the other end and `cross` of crossing, under the count's `rules`: the crossing's (no
/// mirror images merged, the boundary after the cut) and the right half's last column (no
/// mirror images merged). The count's pieces and the sampler walk the same.
pub(crate) fn meet_steps<K: Key>(
    walk: &Walk,
    rules: &Rules,
    (left, right, cross): (u32, u32, u32),
) -> (Vec<Step<K>>, Vec<Step<K>>) {
    let (lsq, rq) = (left * walk.w, (right - 1) * walk.w);
    let mut xrules = rules.clone();
    xrules.mirror = false;
    xrules.cut = Some(lsq);
    let mut yrules = rules.clone();
    yrules.mirror = false;
    (
        steps(walk, &xrules, lsq, lsq + cross * walk.w),
        steps(walk, &yrules, rq, rq + walk.w),
    )
}

/// The steps that walk squares `from..to` under `rules`.
pub(crate) fn steps<K: Key>(walk: &Walk, rules: &Rules, from: u32, to: u32) -> Vec<Step<K>> {
    let n = walk.n;
    let allowed = |v: u32| -> Vec<u32> {
        walk.nb[v as usize]
            .iter()
            .copied()
            .filter(|&u| rules.edge_allowed(u, v))
            .collect()
    };
    // the step after which a square has no neighbour left (never, for boundary squares)
    let leaves: Vec<u32> = (0..n)
        .map(|v| {
            if rules.boundary(v) {
                u32::MAX
            } else {
                allowed(v).into_iter().fold(v, u32::max)
            }
        })
        .collect();
    let window = walk.window();
    let no_end = |u: u32| rules.ends_on_majority && walk.minority(u);
    (from..to)
        .map(|t| {
            let live = |u: u32| u <= t && leaves[u as usize] > t;
            let slot = |u: u32| t - u;
            let back: Vec<u32> = allowed(t)
                .into_iter()
                .filter(|&u| u < t)
                .map(slot)
                .collect();
            let forced = rules.forced_edge.and_then(|(a, b)| {
                let (lo, hi) = (a.min(b), a.max(b));
                (hi == t).then(|| slot(lo))
            });
            let role = if rules.boundary(t) {
                Role::Boundary
            } else if rules.terminals.contains(&t) {
                Role::Terminal
            } else {
                Role::Normal
            };
            let lo = t.saturating_sub(window);
            let departs: Vec<u32> = (lo..=t)
                .filter(|&u| leaves[u as usize] == t)
                .map(slot)
                .collect();
            let remaining = |u: u32| allowed(u).into_iter().filter(|&x| x > t).count() as u32;
            let single = (lo..=t)
                .filter(|&u| live(u) && !rules.boundary(u) && remaining(u) == 1)
                .fold(K::ZERO, |m, u| m.or(K::bit(slot(u))));
            // squares ahead that a full neighbour can starve (none past a cut): one with two or
            // more neighbours still to come can always get its edges from them
            let reach = back
                .iter()
                .chain(&forced)
                .fold(K::bit(0), |m, &s| m.or(K::bit(s)));
            let mut look = if rules.cut.is_some() {
                Vec::new()
            } else {
                ((t + 1)..n.min(t + window))
                    .filter_map(|u| {
                        let nb = allowed(u);
                        let walked: Vec<u32> = nb.iter().copied().filter(|&x| x <= t).collect();
                        let other = (nb.len() - walked.len()) as u32;
                        (!walked.is_empty() && other <= 1).then(|| Look {
                            square: u,
                            slots: walked.iter().fold(K::ZERO, |m, &x| m.or(K::bit(slot(x)))),
                            other,
                            terminal: rules.terminals.contains(&u),
                            no_end: no_end(u),
                            on_a: !walk.minority(u),
                        })
                    })
                    .collect()
            };
            // (a walked neighbour of a square ahead never departs: the square ahead is one of
            // its neighbours still to come)
            look.sort_by_key(|l: &Look<K>| l.slots.and(reach) != K::ZERO);
            let look_fixed = look
                .iter()
                .filter(|l| l.slots.and(reach) == K::ZERO)
                .count();
            // (slot `window` is past the key: no square leaves from it, see `window`)
            let no_end_slots = ((t + 1).saturating_sub(window)..=t)
                .filter(|&u| no_end(u))
                .fold(K::ZERO, |m, u| m.or(K::bit(slot(u))));
            let colours = rules.ends_differ.then(|| {
                let on_a = |u: u32| !walk.minority(u);
                let live: Vec<u32> = (lo..=t).filter(|&u| live(u)).collect();
                Colours {
                    balance: (0..=t).map(|u| if on_a(u) { 1 } else { -1 }).sum(),
                    live: live.iter().fold(K::ZERO, |m, &u| m.or(K::bit(slot(u)))),
                    a: live
                        .iter()
                        .filter(|&&u| on_a(u))
                        .fold(K::ZERO, |m, &u| m.or(K::bit(slot(u)))),
                }
            });
            let pending = rules.terminals.iter().filter(|&&x| x > t).count() as u32;
            let width = (lo..=t)
                .filter(|&u| live(u))
                .map(|u| slot(u) + 1)
                .max()
                .unwrap_or(1);
            let column_end = t % walk.w == walk.w - 1;
            let mirror = (rules.mirror && column_end).then(|| {
                let perm: Vec<u8> = (0..window)
                    .map(|s| {
                        if s > t || !live(t - s) {
                            return s as u8;
                        }
                        let m = walk.mirrored(t - s);
                        debug_assert!(live(m), "the window is symmetric at a column end");
                        (t - m) as u8
                    })
                    .collect();
                Perm::new(&perm)
            });
            Step {
                back,
                forced,
                role,
                departs,
                last: t == n - 1 && rules.cut.is_none(),
                single,
                no_end: no_end_slots,
                colours,
                look,
                look_fixed,
                reach,
                pending,
                mirror,
                width,
                row: t % walk.w,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::walk::expand::expand;

    /// An open count walked square by square over a plain map (no mirror, no cut): the tours
    /// it finds and the states its layers held in all.
    fn walk_open(board: Board, piece: &Piece, rules: &Rules) -> (u64, u64) {
        walk_plain::<u64>(
            &Walk::new(board, piece, false, Order::Straight),
            rules,
            false,
        )
    }

    /// A count of `walk` square by square over a plain map (no mirror, no cut): the tours it
    /// finds and the states its layers held in all.
    fn walk_plain<K: Key>(walk: &Walk, rules: &Rules, closed: bool) -> (u64, u64) {
        let steps = steps::<K>(walk, rules, 0, walk.n);
        let mut layer = HashMap::from([(K::ZERO, 1u64)]);
        let (mut tours, mut states) = (0, 0);
        for step in &steps {
            let mut next: HashMap<K, u64> = HashMap::new();
            for (&k, &c) in &layer {
                let done = expand(k, step, closed, |n| *next.entry(n).or_default() += c);
                tours += u64::from(done) * c;
            }
            states += next.len() as u64;
            layer = next;
        }
        (tours, states)
    }

    #[test]
    fn the_colours_of_the_ends_drop_states_and_keep_every_tour() {
        let knight = Piece::knight();
        // odd boards: both ends on the corners' colour; even boards: one end on each
        for (rows, cols, odd) in [
            (5, 5, true),
            (3, 7, true),
            (5, 7, true),
            (4, 5, false),
            (5, 6, false),
            (6, 6, false),
        ] {
            let board = Board::new(rows, cols).unwrap();
            let walk = Walk::new(board, &knight, false, Order::Straight);
            assert_eq!(walk.ends_on_majority(), odd, "{board}");
            assert_eq!(walk.ends_differ(), !odd, "{board}");
            let plain = walk_open(board, &knight, &Rules::default());
            let rules = Rules {
                ends_on_majority: odd,
                ends_differ: !odd,
                ..Rules::default()
            };
            let coloured = walk_open(board, &knight, &rules);
            assert_eq!(coloured.0, plain.0, "{board}: the same tours");
            assert!(plain.0 > 0, "{board} has tours");
            // measured: 0.51 to 0.63 of the states on the odd boards, 0.77 to 0.90 on the even
            let most = if odd { 70 } else { 95 };
            assert!(
                coloured.1 * 100 < plain.1 * most,
                "{board}: {} states against {} without the rule",
                coloured.1,
                plain.1
            );
        }
        // a piece whose moves keep the colour (the camel) has no such rule
        let camel = Walk::new(
            Board::new(5, 5).unwrap(),
            &"camel".parse().unwrap(),
            false,
            Order::Tuned,
        );
        assert!(!camel.ends_on_majority() && !camel.ends_differ());
    }

    #[test]
    fn the_tuned_order_walks_the_same_board_to_the_same_tours_through_fewer_states() {
        let knight = Piece::knight();
        // open and closed, widths 3 to 6, the colour rules of the open counts on
        for (rows, cols, closed, most) in [
            (3, 10, false, 70),
            (4, 8, false, 75),
            (5, 6, false, 75),
            (5, 7, false, 70),
            (6, 5, true, 85),
            (6, 6, false, 80),
            (6, 7, true, 75),
        ] {
            let board = Board::new(rows, cols).unwrap();
            let [straight, tuned] = [Order::Straight, Order::Tuned].map(|order| {
                let walk = Walk::new(board, &knight, false, order);
                let rules = Rules::counting(&walk, closed, false);
                if walk.window() <= u64::SLOTS {
                    walk_plain::<u64>(&walk, &rules, closed)
                } else {
                    walk_plain::<u128>(&walk, &rules, closed)
                }
            });
            assert_eq!(
                tuned.0, straight.0,
                "{board} closed {closed}: the same tours"
            );
            assert!(straight.0 > 0, "{board} closed {closed} has tours");
            // measured (states in all, these short boards' ends and all): 0.61 to 0.81 of the
            // straight walk's (a long board's saturated columns: 0.57, 6x9 open swept)
            assert!(
                tuned.1 * 100 < straight.1 * most,
                "{board} closed {closed}: {} states tuned against {} straight",
                tuned.1,
                straight.1
            );
        }
    }

    #[test]
    fn a_walk_numbers_each_square_once_and_mirrors_within_its_column() {
        for (rows, cols, order) in [
            (6, 9, Order::Tuned),
            (9, 8, Order::Tuned),
            (5, 7, Order::Straight),
        ] {
            let board = Board::new(rows, cols).unwrap();
            let walk = Walk::new(board, &Piece::knight(), false, order);
            let mut seen = vec![false; walk.n as usize];
            for v in 0..walk.n {
                let sq = walk.square(v);
                assert_eq!(walk.number(sq), v, "{board}: {sq:?}");
                assert!(!std::mem::replace(
                    &mut seen[board.index(sq) as usize],
                    true
                ));
                let m = walk.mirrored(v);
                assert_eq!(m / walk.w, v / walk.w, "the mirror stays in the column");
                assert_eq!(walk.mirrored(m), v);
                let (x, y) = walk.xy(v);
                assert_eq!(walk.xy(m), (x, walk.w - 1 - y));
            }
        }
    }
}
