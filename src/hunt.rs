//! The shortest treasure hunt: the fewest moves of a piece from a start square that visit every
//! square of a list, squares passed as often as need be, found by exact search.
//!
//! Two exact methods. With few targets, a breadth-first search over the states
//! `(square, set of targets visited)`: the first state holding every target is the answer. With
//! more, Held–Karp's dynamic programme over the order of the targets, on exact pairwise distances
//! (one breadth-first search of the move graph from each target): a shortest hunt reaches its
//! targets in some order, costs at least the sum of the distances between consecutive ones, and
//! shortest paths between them in the best order achieve that sum, so the programme's optimum is
//! the hunt's.

use std::collections::VecDeque;

use thiserror::Error;

use crate::board::{Board, Square};
use crate::error::Error;
use crate::graph::{Geometry, UNSEEN};
use crate::piece::Piece;

/// The most targets the exact search takes: Held–Karp's table has `2^k · k` entries (80 MB at
/// 20), and its time grows as `2^k · k²`.
pub const MAX_TARGETS: usize = 20;

/// The largest board: the breadth-first searches keep one distance per square.
pub const MAX_SQUARES: u64 = crate::find::MAX_SQUARES;

/// The state search runs when `squares · 2^targets` is at most this (16 MB of predecessors).
const STATE_BFS_MAX: u64 = 1 << 22;

/// How the hunt was solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Breadth-first search over `(square, targets visited)`.
    StateBfs,
    /// Held–Karp over the exact distances between the start and the targets.
    HeldKarp,
}

impl Method {
    /// The name printed in reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Method::StateBfs => "breadth-first search over (square, targets visited)",
            Method::HeldKarp => "Held-Karp over exact move distances",
        }
    }
}

/// Why no hunt is returned.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HuntError {
    /// Bad input: an off-board square, a board too large (a usage error).
    #[error(transparent)]
    Input(#[from] Error),
    #[error("no squares to visit (give at least one target)")]
    NoTargets,
    #[error("target {0} is listed twice (list each square once)")]
    Duplicate(String),
    #[error("{got} targets is more than the exact search takes (at most {max})")]
    TooMany { got: usize, max: usize },
    /// No sequence of moves joins the start and a target: a clear answer, not a usage error.
    #[error("{square} cannot be reached from {from} by the {piece}: {why}")]
    Unreachable {
        square: String,
        from: String,
        piece: String,
        why: String,
    },
    #[error("internal error: the search produced a bad hunt: {0}")]
    Internal(String),
}

/// A shortest hunt, checked by [`check_hunt`] before it is returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunt {
    pub board: Board,
    pub from: Square,
    /// The squares in order, from the start; consecutive squares are one move apart.
    pub path: Vec<Square>,
    /// Every target with the move on which it is first reached, in that order (0: the start).
    pub reached: Vec<(Square, usize)>,
    pub method: Method,
}

impl Hunt {
    /// The number of moves.
    #[must_use]
    pub fn moves(&self) -> usize {
        self.path.len() - 1
    }
}

/// The shortest hunt from `from` through every square of `targets`, by the state search when the
/// state space is small and by Held–Karp otherwise.
pub fn hunt(
    board: Board,
    piece: &Piece,
    from: Square,
    targets: &[Square],
) -> Result<Hunt, HuntError> {
    let method = if board.squares() << targets.len().min(40) <= STATE_BFS_MAX {
        Method::StateBfs
    } else {
        Method::HeldKarp
    };
    hunt_with(board, piece, from, targets, method)
}

/// The shortest hunt by the given method (both are exact; the state search is refused past
/// `2^22` states, where it would take too much memory).
pub fn hunt_with(
    board: Board,
    piece: &Piece,
    from: Square,
    targets: &[Square],
    method: Method,
) -> Result<Hunt, HuntError> {
    check_request(board, from, targets)?;
    if method == Method::StateBfs && board.squares() << targets.len() > STATE_BFS_MAX {
        return Err(Error::Invalid(format!(
            "the state search takes at most {STATE_BFS_MAX} states (squares times 2^targets); {board} with {} targets has more",
            targets.len()
        ))
        .into());
    }
    let geo = Geometry::new(board, piece);
    let start = board.index(from);
    let dist = geo.distances(start);
    if let Some(&t) = targets
        .iter()
        .find(|&&t| dist[board.index(t) as usize] == UNSEEN)
    {
        return Err(unreachable(board, piece, from, t));
    }
    let path = match method {
        Method::StateBfs => state_bfs(&geo, start, targets),
        Method::HeldKarp => held_karp(&geo, start, &dist, targets),
    };
    let path: Vec<Square> = path.into_iter().map(|i| board.square(i)).collect();
    let reached = check_hunt(board, piece, from, targets, &path).map_err(HuntError::Internal)?;
    Ok(Hunt {
        board,
        from,
        path,
        reached,
        method,
    })
}

/// Checks a request: targets given, not too many, each once, every square on the board, and a
/// board the searches take.
fn check_request(board: Board, from: Square, targets: &[Square]) -> Result<(), HuntError> {
    if board.squares() > MAX_SQUARES {
        return Err(Error::TooLarge {
            board: board.to_string(),
            squares: board.squares(),
            engine: "the hunt's breadth-first search",
            max: MAX_SQUARES,
            hint: "Use a smaller board.",
        }
        .into());
    }
    board.check_square(from)?;
    if targets.is_empty() {
        return Err(HuntError::NoTargets);
    }
    for &t in targets {
        board.check_square(t)?;
    }
    for (i, t) in targets.iter().enumerate() {
        if targets[..i].contains(t) {
            return Err(HuntError::Duplicate(board.name(*t)));
        }
    }
    if targets.len() > MAX_TARGETS {
        return Err(HuntError::TooMany {
            got: targets.len(),
            max: MAX_TARGETS,
        });
    }
    Ok(())
}

/// Why `to` is out of reach from `from`, in words.
fn unreachable(board: Board, piece: &Piece, from: Square, to: Square) -> HuntError {
    let why = if piece.is_colour_bound() && Board::colour(from) != Board::colour(to) {
        "every move of the piece keeps the colour of its square, and the two squares differ in colour".to_string()
    } else {
        format!(
            "no sequence of moves on {board} joins them (the move graph falls apart into pieces)"
        )
    };
    HuntError::Unreachable {
        square: board.name(to),
        from: board.name(from),
        piece: piece.to_string(),
        why,
    }
}

/// Breadth-first search over `(square, targets visited)`; the path to the first state holding
/// every target (one exists: every target is reachable).
fn state_bfs(geo: &Geometry, start: u32, targets: &[Square]) -> Vec<u32> {
    let b = geo.board;
    let k = targets.len();
    let full = (1u32 << k) - 1;
    let mut bit = vec![0u32; b.squares() as usize];
    for (i, &t) in targets.iter().enumerate() {
        bit[b.index(t) as usize] = 1 << i;
    }
    let state = |sq: u32, mask: u32| (sq << k) | mask;
    let mut prev = vec![UNSEEN; (b.squares() as usize) << k];
    let first = state(start, bit[start as usize]);
    prev[first as usize] = first;
    let mut queue = VecDeque::from([first]);
    let mut goal = first;
    while let Some(s) = queue.pop_front() {
        let (sq, mask) = (s >> k, s & full);
        if mask == full {
            goal = s;
            break;
        }
        for w in geo.neighbours(sq) {
            let t = state(w, mask | bit[w as usize]);
            if prev[t as usize] == UNSEEN {
                prev[t as usize] = s;
                queue.push_back(t);
            }
        }
    }
    let mut path = vec![goal >> k];
    let mut s = goal;
    while prev[s as usize] != s {
        s = prev[s as usize];
        path.push(s >> k);
    }
    path.reverse();
    path
}

/// Held–Karp over the exact distances between the start (point 0) and the targets: `best[mask][j]`
/// is the length of the shortest walk from the start through the targets of `mask` (as first
/// visits, in some order) ending on target `j`. The walk is then laid out leg by leg along
/// shortest paths.
fn held_karp(geo: &Geometry, start: u32, from_start: &[u32], targets: &[Square]) -> Vec<u32> {
    let b = geo.board;
    let k = targets.len();
    let pts: Vec<u32> = targets.iter().map(|&t| b.index(t)).collect();
    // d[i][j]: moves from target i to target j
    let d: Vec<Vec<u32>> = pts
        .iter()
        .map(|&p| {
            let dist = geo.distances(p);
            pts.iter().map(|&q| dist[q as usize]).collect()
        })
        .collect();
    let size = 1usize << k;
    let mut best = vec![UNSEEN; size * k];
    for j in 0..k {
        best[(1 << j) * k + j] = from_start[pts[j] as usize];
    }
    for mask in 1..size {
        for j in (0..k).filter(|&j| mask & (1 << j) != 0) {
            let here = best[mask * k + j];
            if here == UNSEEN {
                continue;
            }
            for n in (0..k).filter(|&n| mask & (1 << n) == 0) {
                let next = (mask | 1 << n) * k + n;
                best[next] = best[next].min(here + d[j][n]);
            }
        }
    }
    // read the order back from the end
    let mut mask = size - 1;
    let mut j = (0..k)
        .min_by_key(|&j| best[mask * k + j])
        .expect("a target");
    let mut order = vec![j];
    while mask != 1 << j {
        let rest = mask & !(1 << j);
        let i = (0..k)
            .find(|&i| {
                rest & (1 << i) != 0
                    && best[rest * k + i] != UNSEEN
                    && best[rest * k + i] + d[i][j] == best[mask * k + j]
            })
            .expect("an optimal predecessor");
        order.push(i);
        mask = rest;
        j = i;
    }
    order.reverse();
    let mut path = vec![start];
    for t in order {
        let to = pts[t];
        let dist = geo.distances(to);
        let mut at = *path.last().expect("non-empty");
        while at != to {
            at = geo
                .neighbours(at)
                .find(|&w| dist[w as usize] + 1 == dist[at as usize])
                .expect("a square one move nearer");
            path.push(at);
        }
    }
    path
}

/// Checks a hunt's path: it starts on `from`, every step is a move of `piece` on the board, and
/// it passes every target. Returns the targets with the move on which each is first reached, in
/// that order.
pub fn check_hunt(
    board: Board,
    piece: &Piece,
    from: Square,
    targets: &[Square],
    path: &[Square],
) -> Result<Vec<(Square, usize)>, String> {
    if path.first() != Some(&from) {
        return Err(format!("the path does not start on {}", board.name(from)));
    }
    for (i, w) in path.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        if board.check_square(b).is_err() || !piece.is_move(a.row, a.col, b.row, b.col) {
            return Err(format!(
                "move {}: {} to {} is not a move of the {piece}",
                i + 1,
                board.name(a),
                board.name(b)
            ));
        }
    }
    let mut reached: Vec<(Square, usize)> = Vec::with_capacity(targets.len());
    for &t in targets {
        match path.iter().position(|&s| s == t) {
            Some(at) => reached.push((t, at)),
            None => return Err(format!("the path misses {}", board.name(t))),
        }
    }
    reached.sort_by_key(|&(_, at)| at);
    Ok(reached)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    fn sq(b: Board, s: &str) -> Square {
        b.parse_square(s).unwrap()
    }

    /// The reference: a plain breadth-first search over (row, col, visited set) with a hash map,
    /// sharing no code with the module (moves from the piece's offsets, checked by `is_move`).
    fn reference(board: Board, piece: &Piece, from: Square, targets: &[Square]) -> Option<usize> {
        let full: u32 = (1 << targets.len()) - 1;
        let mark = |s: Square| {
            targets
                .iter()
                .position(|&t| t == s)
                .map_or(0, |i| 1u32 << i)
        };
        let first = (from, mark(from));
        let mut seen: HashMap<(Square, u32), usize> = HashMap::from([(first, 0)]);
        let mut queue = VecDeque::from([first]);
        while let Some((s, m)) = queue.pop_front() {
            let d = seen[&(s, m)];
            if m == full {
                return Some(d);
            }
            for (dr, dc) in piece.offsets() {
                let (r, c) = (
                    i64::from(s.row) + i64::from(dr),
                    i64::from(s.col) + i64::from(dc),
                );
                if !board.contains(r, c) {
                    continue;
                }
                let w = Square::new(r as u32, c as u32);
                assert!(piece.is_move(s.row, s.col, w.row, w.col));
                let next = (w, m | mark(w));
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(next) {
                    e.insert(d + 1);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    #[test]
    fn weekly_challenge_takes_eleven_moves() {
        let b = Board { rows: 8, cols: 8 };
        let targets: Vec<Square> = ["e6", "c4", "b3", "a2", "b2", "b1"]
            .iter()
            .map(|s| sq(b, s))
            .collect();
        for method in [Method::StateBfs, Method::HeldKarp] {
            let h = hunt_with(b, &Piece::knight(), sq(b, "a8"), &targets, method).unwrap();
            assert_eq!(h.moves(), 11, "{method:?}");
            assert_eq!(h.reached.len(), 6);
            assert!(h.reached.windows(2).all(|w| w[0].1 < w[1].1));
        }
        assert_eq!(
            reference(b, &Piece::knight(), sq(b, "a8"), &targets),
            Some(11)
        );
    }

    #[test]
    fn start_on_a_target_and_one_target() {
        let b = Board { rows: 8, cols: 8 };
        let h = hunt(b, &Piece::knight(), sq(b, "a1"), &[sq(b, "a1")]).unwrap();
        assert_eq!((h.moves(), h.reached[0].1), (0, 0));
        // a1 to h8 takes 6 knight moves
        let h = hunt(b, &Piece::knight(), sq(b, "a1"), &[sq(b, "h8")]).unwrap();
        assert_eq!(h.moves(), 6);
        // the diagonal neighbour of a corner is the knight's farthest short hop: 4 moves
        let h = hunt(b, &Piece::knight(), sq(b, "a1"), &[sq(b, "b2")]).unwrap();
        assert_eq!(h.moves(), 4);
    }

    #[test]
    fn bad_requests_are_refused() {
        let b = Board { rows: 8, cols: 8 };
        let k = Piece::knight();
        let a1 = sq(b, "a1");
        assert_eq!(hunt(b, &k, a1, &[]), Err(HuntError::NoTargets));
        assert_eq!(
            hunt(b, &k, a1, &[sq(b, "c3"), sq(b, "c3")]),
            Err(HuntError::Duplicate("c3".into()))
        );
        assert!(matches!(
            hunt(b, &k, a1, &[Square::new(8, 0)]),
            Err(HuntError::Input(Error::SquareOffBoard { .. }))
        ));
        let many: Vec<Square> = (0..21).map(|i| b.square(i + 1)).collect();
        assert_eq!(
            hunt(b, &k, a1, &many),
            Err(HuntError::TooMany { got: 21, max: 20 })
        );
    }

    #[test]
    fn unreachable_targets_are_named() {
        let b = Board { rows: 8, cols: 8 };
        let camel: Piece = "camel".parse().unwrap();
        match hunt(b, &camel, sq(b, "a1"), &[sq(b, "c3"), sq(b, "a2")]) {
            Err(HuntError::Unreachable { square, why, .. }) => {
                assert_eq!(square, "a2");
                assert!(why.contains("colour"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // the knight cannot leave b2 on 3x3
        let b3 = Board { rows: 3, cols: 3 };
        assert!(matches!(
            hunt(b3, &Piece::knight(), sq(b3, "a1"), &[sq(b3, "b2")]),
            Err(HuntError::Unreachable { .. })
        ));
    }

    #[test]
    fn twenty_targets_by_held_karp() {
        let b = Board { rows: 12, cols: 12 };
        let targets: Vec<Square> = (0..20).map(|i| b.square(i * 7 + 3)).collect();
        let h = hunt(b, &Piece::knight(), sq(b, "a1"), &targets).unwrap();
        assert_eq!(h.method, Method::HeldKarp);
        assert_eq!(h.reached.len(), 20);
        // no shorter than the farthest target, no longer than visiting them in the given order
        let far = targets
            .iter()
            .map(|&t| {
                hunt(b, &Piece::knight(), sq(b, "a1"), &[t])
                    .unwrap()
                    .moves()
            })
            .max()
            .unwrap();
        assert!(h.moves() >= far);
    }

    #[test]
    fn large_boards_work() {
        let b = Board {
            rows: 1000,
            cols: 1000,
        };
        let targets = [sq(b, "1000,1000"), sq(b, "1,1000")];
        let by = |m| hunt_with(b, &Piece::knight(), sq(b, "a1"), &targets, m).unwrap();
        let (h, s) = (by(Method::HeldKarp), by(Method::StateBfs));
        assert_eq!(h.moves(), s.moves());
        // a move changes row plus column by at most 3, and the two targets lie 999 apart in
        // that sum from a1 and from each other
        assert!(h.moves() >= 666);
    }

    fn instance() -> impl Strategy<Value = (Board, Piece, Square, Vec<Square>)> {
        let pieces = prop::sample::select(vec!["knight", "camel", "zebra", "3,0+2,2", "1,1+0,2"]);
        (1u32..=12, 1u32..=12, pieces, 1usize..=8, any::<u64>()).prop_map(
            |(rows, cols, piece, k, seed)| {
                let b = Board { rows, cols };
                let mut rng = fastrand::Rng::with_seed(seed);
                let n = rows * cols;
                let from = b.square(rng.u32(..n));
                let mut targets: Vec<Square> = Vec::new();
                for _ in 0..k.min(n as usize) {
                    let t = b.square(rng.u32(..n));
                    if !targets.contains(&t) {
                        targets.push(t);
                    }
                }
                (b, piece.parse().unwrap(), from, targets)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Both methods give a checked path whose length is the reference optimum, or both say
        /// unreachable exactly when the reference finds no hunt.
        #[test]
        fn both_methods_match_the_reference((b, piece, from, targets) in instance()) {
            let want = reference(b, &piece, from, &targets);
            for method in [Method::StateBfs, Method::HeldKarp] {
                match hunt_with(b, &piece, from, &targets, method) {
                    Ok(h) => {
                        prop_assert_eq!(Some(h.moves()), want, "{:?}", method);
                        prop_assert!(check_hunt(b, &piece, from, &targets, &h.path).is_ok());
                    }
                    Err(HuntError::Unreachable { .. }) => prop_assert_eq!(want, None),
                    Err(e) => prop_assert!(false, "{}", e),
                }
            }
        }
    }
}
