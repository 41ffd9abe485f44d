//! An exact tour search by SAT for boards of any size: it finds a tour or proves there is none.
//!
//! A tour is a choice of moves, two at every square (one at each end of an open tour), that
//! forms one cycle. An open tour is a cycle through one more vertex, joined to every square
//! (to the start square alone when one is asked for), whose two moves are the tour's ends. The
//! solver (splr) is given only the degrees, each square's moves chosen exactly twice; a solution
//! that falls apart into several cycles gets, for each of them, the clause that some chosen move
//! leaves it (every tour crosses every cut of the board), and is solved again. Each round either
//! finds a tour, proves that no choice of moves meets the degrees and the cuts found so far (so
//! none is a tour), or cuts off the solution it found. On leapers' boards of 100 to 256 squares
//! a few rounds settle it, in well under a second (`results/leapers.md`), where the depth-first
//! searches run for minutes without an answer.

use splr::{Certificate, Config, SolveIF, Solver, SolverError};

use super::Deadline;
use crate::board::Board;
use crate::graph::Geometry;

/// What the search found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A tour as square indices in path order (from the start square when one was given).
    Tour(Vec<u32>),
    /// A proof that none exists, after this many rounds of cuts.
    None { rounds: u32 },
    /// The deadline passed first.
    Unknown,
}

/// The problem as clauses over one variable a move (DIMACS numbering, from 1).
struct Encoding {
    /// The moves: pairs of vertices, the extra vertex `n` of open tours included.
    edges: Vec<(u32, u32)>,
    clauses: Vec<Vec<i32>>,
    /// Vertices: the squares, and the extra one of open tours.
    vertices: u32,
    /// Variables in use (moves, then the counter's).
    vars: i32,
}

impl Encoding {
    fn new(geo: &Geometry, closed: bool, start: Option<u32>) -> Encoding {
        let n = geo.board.squares() as u32;
        let mut edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| {
                geo.neighbours(u)
                    .filter(move |&v| u < v)
                    .map(move |v| (u, v))
            })
            .collect();
        let extra = (!closed).then(|| {
            let first = edges.len();
            edges.extend((0..n).map(|s| (s, n)));
            first
        });
        let vertices = n + u32::from(!closed);
        let mut e = Encoding {
            vars: edges.len() as i32,
            edges,
            clauses: Vec::new(),
            vertices,
        };
        let mut incident: Vec<Vec<i32>> = vec![Vec::new(); vertices as usize];
        for (i, &(u, v)) in e.edges.iter().enumerate() {
            incident[u as usize].push(i as i32 + 1);
            incident[v as usize].push(i as i32 + 1);
        }
        // every square: exactly two of its moves (at least two: whichever move is left out, one
        // of the others is in; at most two: no three together)
        for moves in &incident[..n as usize] {
            for skip in 0..moves.len() {
                e.clauses.push(
                    (0..moves.len())
                        .filter(|&j| j != skip)
                        .map(|j| moves[j])
                        .collect(),
                );
            }
            for i in 0..moves.len() {
                for j in i + 1..moves.len() {
                    for k in j + 1..moves.len() {
                        e.clauses.push(vec![-moves[i], -moves[j], -moves[k]]);
                    }
                }
            }
        }
        if let Some(first) = extra {
            let end = |s: u32| (first + s as usize) as i32 + 1;
            // a piece whose every move changes colour alternates colours along the path: on a
            // board of even size its ends differ in colour, on an odd one both are a1's colour
            // (the clauses say it at once, where the solver would have to find it)
            let switching = geo.offsets.iter().all(|&(r, c)| (r + c) % 2 != 0);
            let colour = |s: u32| Board::colour(geo.board.square(s));
            let classes: Vec<Vec<u32>> = match (switching, n % 2) {
                (true, 0) => vec![
                    (0..n).filter(|&s| colour(s) == 0).collect(),
                    (0..n).filter(|&s| colour(s) == 1).collect(),
                ],
                (true, _) => {
                    for s in (0..n).filter(|&s| colour(s) == 1) {
                        e.clauses.push(vec![-end(s)]);
                    }
                    vec![(0..n).filter(|&s| colour(s) == 0).collect()]
                }
                (false, _) => vec![(0..n).collect()],
            };
            for class in classes {
                // the ends this class holds: one a colour, or both
                let mut holds = if class.len() == n as usize || n % 2 == 1 && switching {
                    2
                } else {
                    1
                };
                let mut pool: Vec<i32> = Vec::new();
                for s in class {
                    if Some(s) == start {
                        e.clauses.push(vec![end(s)]);
                        holds -= 1;
                    } else {
                        pool.push(end(s));
                    }
                }
                match holds {
                    0 => e.clauses.extend(pool.iter().map(|&x| vec![-x])),
                    k => e.exactly(&pool, k),
                }
            }
            if let Some(s) = start {
                // the start's class was searched above; a start of the wrong colour has no tour
                if switching && n % 2 == 1 && colour(s) == 1 {
                    e.clauses.push(vec![end(s)]);
                }
            }
        }
        e
    }

    fn fresh(&mut self) -> i32 {
        self.vars += 1;
        self.vars
    }

    /// Exactly `k` (1 or 2) of `xs`, by a sequential counter (Sinz 2005): `s[i][j]` says that at
    /// least `j + 1` of the first `i + 1` are true; linear in `xs`, where pairs would be square.
    fn exactly(&mut self, xs: &[i32], k: usize) {
        let levels = k + 1;
        let s: Vec<Vec<i32>> = (0..xs.len())
            .map(|_| (0..levels).map(|_| self.fresh()).collect())
            .collect();
        for (i, &x) in xs.iter().enumerate() {
            // s[i][j] holds exactly when at least j + 1 of xs[..=i] are true
            for j in 0..levels {
                let at = s[i][j];
                if i == 0 {
                    if j == 0 {
                        self.clauses.push(vec![-x, at]);
                        self.clauses.push(vec![-at, x]);
                    } else {
                        self.clauses.push(vec![-at]);
                    }
                    continue;
                }
                let before = s[i - 1][j];
                self.clauses.push(vec![-before, at]);
                if j == 0 {
                    self.clauses.push(vec![-x, at]);
                    self.clauses.push(vec![-at, before, x]);
                } else {
                    let fewer = s[i - 1][j - 1];
                    self.clauses.push(vec![-x, -fewer, at]);
                    self.clauses.push(vec![-at, before, x]);
                    self.clauses.push(vec![-at, before, fewer]);
                }
            }
        }
        let last = &s[xs.len() - 1];
        self.clauses.push(vec![last[k - 1]]);
        self.clauses.push(vec![-last[k]]);
    }

    /// The cycles the chosen moves form, as lists of vertices.
    fn cycles(&self, chosen: &[bool]) -> Vec<Vec<u32>> {
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); self.vertices as usize];
        for (&(u, v), _) in self.edges.iter().zip(chosen).filter(|(_, c)| **c) {
            adj[u as usize].push(v);
            adj[v as usize].push(u);
        }
        let mut seen = vec![false; self.vertices as usize];
        let mut out = Vec::new();
        for first in 0..self.vertices {
            if seen[first as usize] {
                continue;
            }
            // walk the cycle in order (every vertex has two chosen moves)
            let mut cycle = vec![first];
            seen[first as usize] = true;
            let (mut prev, mut cur) = (first, first);
            loop {
                let next = adj[cur as usize]
                    .iter()
                    .copied()
                    .find(|&w| w != prev && !seen[w as usize])
                    .or_else(|| adj[cur as usize].iter().copied().find(|&w| w != prev));
                match next {
                    Some(w) if !seen[w as usize] => {
                        seen[w as usize] = true;
                        cycle.push(w);
                        (prev, cur) = (cur, w);
                    }
                    _ => break,
                }
            }
            out.push(cycle);
        }
        out
    }

    /// The clause that some chosen move leaves `cycle`.
    fn cut(&self, cycle: &[u32]) -> Vec<i32> {
        let mut inside = vec![false; self.vertices as usize];
        for &v in cycle {
            inside[v as usize] = true;
        }
        self.edges
            .iter()
            .enumerate()
            .filter(|&(_, &(u, v))| inside[u as usize] != inside[v as usize])
            .map(|(i, _)| i as i32 + 1)
            .collect()
    }
}

/// A tour of `geo`'s piece (closed, or open from `start` or from anywhere), or the proof that
/// there is none, or [`Answer::Unknown`] when `deadline` passes first.
pub(crate) fn tour(geo: &Geometry, closed: bool, start: Option<u32>, deadline: Deadline) -> Answer {
    let mut e = Encoding::new(geo, closed, start);
    let n = geo.board.squares() as u32;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let Some(left) = deadline.left() else {
            return Answer::Unknown;
        };
        let config = Config {
            quiet_mode: true,
            // the solver checks whole seconds of its own clock
            c_timeout: left.as_secs_f64().ceil().max(1.0),
            ..Config::default()
        };
        let model = match Solver::try_from((config, e.clauses.as_slice())) {
            Err(
                Ok(Certificate::UNSAT) | Err(SolverError::EmptyClause | SolverError::Inconsistent),
            ) => None,
            Err(_) => return Answer::Unknown,
            // splr 0.17 sorts its clauses by a comparison of float activities equal within an
            // epsilon, which is not a total order, and the standard library's sort may panic on
            // one (19x3 of 1,2+2,3+3,3 closed did): a panic in the solver is no answer, as the
            // deadline passing is
            Ok(mut solver) => {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solver.solve())) {
                    Err(_) => return Answer::Unknown,
                    Ok(Ok(Certificate::SAT(model))) => Some(model),
                    Ok(
                        Ok(Certificate::UNSAT)
                        | Err(
                            SolverError::EmptyClause
                            | SolverError::Inconsistent
                            | SolverError::RootLevelConflict(_),
                        ),
                    ) => None,
                    Ok(Err(_)) => return Answer::Unknown,
                }
            }
        };
        let Some(model) = model else {
            return Answer::None { rounds };
        };
        let chosen: Vec<bool> = (0..e.edges.len()).map(|i| model[i] > 0).collect();
        let cycles = e.cycles(&chosen);
        if let [cycle] = cycles.as_slice() {
            return Answer::Tour(path_of(cycle, n, closed, start));
        }
        for c in &cycles {
            let cut = e.cut(c);
            e.clauses.push(cut);
        }
    }
}

/// The tour a cycle through every vertex stands for: closed, read from the start square (or
/// wherever); open, the cycle opened at the extra vertex `n`, from the start when one is given.
fn path_of(cycle: &[u32], n: u32, closed: bool, start: Option<u32>) -> Vec<u32> {
    let mut path = cycle.to_vec();
    if closed {
        let at = start.map_or(0, |s| {
            path.iter()
                .position(|&v| v == s)
                .expect("a tour passes every square")
        });
        path.rotate_left(at);
        return path;
    }
    let at = path.iter().position(|&v| v == n).expect("the extra vertex");
    path.rotate_left(at + 1);
    path.pop();
    if start.is_some_and(|s| path[0] != s) {
        path.reverse();
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::SmallGraph;
    use crate::piece::Piece;
    use crate::search::{Memo, Problem};
    use crate::tour::verify;

    fn far() -> Deadline {
        Deadline::after(std::time::Duration::from_secs(600))
    }

    /// The bitboard search's exhaustive answer: is there a tour from `start`?
    fn exhaustive(board: Board, piece: &Piece, closed: bool, start: u32) -> bool {
        let g = SmallGraph::new(board, piece).unwrap();
        let (origin, ends) = if closed {
            (start, g.masks[start as usize])
        } else {
            (start, g.all)
        };
        let p = Problem::new(&g, ends, 0);
        let mut budget = u64::MAX;
        let mut dead = Memo::new(16);
        p.first_path(g.all.without(origin), origin, &mut budget, &mut dead, None)
            .expect("no budget")
            .is_some()
    }

    /// Against the exhaustive bitboard search on every board of 16 to 36 squares, for the
    /// knight, the zebra, the giraffe and the pen-and-paper piece: a tour exactly where the
    /// search finds one (each verified), a proof of none exactly where it finds none.
    #[test]
    fn agrees_with_the_exhaustive_search() {
        for piece in ["knight", "zebra", "giraffe", "3,0+2,2"] {
            let piece: Piece = piece.parse().unwrap();
            for rows in 3..=6u32 {
                for cols in rows..=(36 / rows).min(9) {
                    let board = Board { rows, cols };
                    if board.squares() < 16 {
                        continue;
                    }
                    let geo = Geometry::new(board, &piece);
                    for closed in [false, true] {
                        let start = if closed { None } else { Some(0) };
                        let want = exhaustive(board, &piece, closed, 0);
                        match tour(&geo, closed, start, far()) {
                            Answer::Tour(path) => {
                                assert!(want, "{board} {piece} closed={closed}: SAT found one");
                                assert_eq!(path[0], 0);
                                let squares: Vec<_> =
                                    path.iter().map(|&i| board.square(i)).collect();
                                let closes = verify(board, &piece, &squares).unwrap();
                                assert!(closes || !closed);
                            }
                            Answer::None { .. } => {
                                assert!(!want, "{board} {piece} closed={closed}: SAT found none");
                            }
                            Answer::Unknown => panic!("{board}: no answer"),
                        }
                    }
                }
            }
        }
    }
}
