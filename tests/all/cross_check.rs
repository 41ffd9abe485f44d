//! Independent cross-checks of the counting engine: the bitboard DFS against plain backtracking,
//! symmetry against none, per-square tables against totals, a board against its transpose, one
//! thread against two, and other leapers than the knight.

use knights::count::{self, CountSpec, Engine, naive};
use knights::engine::{Order, TreeSize};
use knights::frontier;
use knights::{Board, Piece, Square};

fn board(rows: u32, cols: u32) -> Board {
    Board::new(rows, cols).unwrap()
}

fn spec(closed: bool) -> CountSpec {
    CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    }
}

/// A count's figures as machine words: every board checked here is small enough.
#[derive(Debug)]
struct Figures {
    directed: u64,
    undirected: u64,
    per_square: Option<Vec<u64>>,
}

fn run(b: Board, piece: &Piece, spec: &CountSpec, engine: Engine) -> Figures {
    let c = count::count(b, piece, spec, engine)
        .unwrap_or_else(|e| panic!("{b} {spec:?} {engine:?}: {e}"));
    let word = |n: &num_bigint::BigUint| u64::try_from(n).expect("a small board's count");
    Figures {
        directed: word(&c.directed),
        undirected: word(&c.undirected),
        per_square: c.per_square,
    }
}

/// Every board with `rows * cols <= max`, both orientations.
fn boards_up_to(max: u32) -> Vec<Board> {
    (1..=max)
        .flat_map(|r| (1..=max / r).map(move |c| board(r, c)))
        .collect()
}

/// The naive engine takes about 2 s or more on these knight boards (measured on 2 cores, release
/// build: 3x10 open 1 s, 4x7 open 4 s, 5x6 closed 1.4 s, 5x6 open 35 s, each run twice per check);
/// their checks run under `#[ignore]`.
fn naive_is_slow(b: Board) -> bool {
    let (m, n) = (b.rows.min(b.cols), b.rows.max(b.cols));
    matches!((m, n), (3, 10) | (4, 7) | (5, 6))
}

/// DFS against the naive engine, and both against the naive backtracker called directly (which
/// knows no theorem, so the zeros the existence theorems give are checked too).
fn dfs_equals_naive(b: Board, piece: &Piece) {
    let n = b.squares();
    for closed in [false, true] {
        let dfs = run(b, piece, &spec(closed), Engine::Dfs);
        let nv = run(b, piece, &spec(closed), Engine::Naive);
        assert_eq!(
            (dfs.directed, dfs.undirected),
            (nv.directed, nv.undirected),
            "{b} {piece} closed={closed}"
        );
        let raw = if closed {
            // from a1 each cycle is found once in each direction
            naive::count_from(b, piece, Square::new(0, 0), true, None)
        } else {
            naive::count_open_all(b, piece, None)
        };
        assert_eq!(
            dfs.directed, raw,
            "{b} {piece} closed={closed}: dfs vs direct backtracking"
        );
        if n > 1 || closed {
            assert_eq!(
                dfs.directed,
                2 * dfs.undirected,
                "{b} {piece} closed={closed}"
            );
        }
    }
}

fn knight_boards(slow: bool) -> Vec<Board> {
    boards_up_to(30)
        .into_iter()
        .filter(|&b| naive_is_slow(b) == slow)
        .collect()
}

#[test]
fn dfs_equals_naive_knight_up_to_30_squares() {
    let k = Piece::knight();
    for b in knight_boards(false) {
        dfs_equals_naive(b, &k);
    }
}

#[test]
#[ignore = "slow: the naive engine takes seconds to a minute on 3x10, 4x7 and 5x6; run with --ignored"]
fn dfs_equals_naive_knight_slow_boards() {
    let k = Piece::knight();
    let slow = knight_boards(true);
    assert!(!slow.is_empty());
    for b in slow {
        dfs_equals_naive(b, &k);
    }
}

#[test]
fn the_1x1_board_has_one_open_tour() {
    let c = run(board(1, 1), &Piece::knight(), &spec(false), Engine::Dfs);
    assert_eq!((c.directed, c.undirected), (1, 1));
    let nv = run(board(1, 1), &Piece::knight(), &spec(false), Engine::Naive);
    assert_eq!((nv.directed, nv.undirected), (1, 1));
    let closed = run(board(1, 1), &Piece::knight(), &spec(true), Engine::Dfs);
    assert_eq!(closed.directed, 0);
}

/// Start and end squares: every (from, to) pair on a few boards, open and closed, against the
/// naive engine, and the sums over `to` against the `from`-only count.
#[test]
fn from_and_to_squares_agree_with_naive() {
    let k = Piece::knight();
    for (r, c) in [(3, 4), (4, 5), (5, 4), (5, 5), (3, 7), (4, 6)] {
        let b = board(r, c);
        let n = b.squares() as u32;
        let froms: Vec<u32> = if n <= 20 {
            (0..n).collect()
        } else {
            vec![0, 1, n / 2, n - 1]
        };
        for closed in [false, true] {
            for &f in &froms {
                let from = Some(b.square(f));
                let one = CountSpec {
                    closed,
                    from,
                    ..spec(closed)
                };
                let total = run(b, &k, &one, Engine::Dfs);
                if !closed {
                    let nv = run(b, &k, &one, Engine::Naive);
                    assert_eq!(
                        total.directed,
                        nv.directed,
                        "{b} from {} closed={closed}",
                        b.name(b.square(f))
                    );
                }
                let mut sum = 0;
                for t in 0..n {
                    let both = CountSpec {
                        to: Some(b.square(t)),
                        ..one.clone()
                    };
                    let d = run(b, &k, &both, Engine::Dfs);
                    if n <= 20 {
                        let nv = run(b, &k, &both, Engine::Naive);
                        assert_eq!(
                            d.directed,
                            nv.directed,
                            "{b} {} to {} closed={closed}",
                            b.name(b.square(f)),
                            b.name(b.square(t))
                        );
                    }
                    sum += d.directed;
                }
                // open: the tours from f, by end square; closed: `--from` alone reports the
                // cycles (directed = 2 x cycles), and each cycle is read from f once per direction
                assert_eq!(
                    sum,
                    total.directed,
                    "{b} from {} closed={closed}",
                    b.name(b.square(f))
                );
            }
        }
    }
}

/// The DFS's figures of `b` with the board's symmetry used and without.
fn with_and_without_symmetry(b: Board, piece: &Piece, closed: bool) -> (Figures, Figures) {
    let without = CountSpec {
        symmetry: false,
        ..spec(closed)
    };
    (
        run(b, piece, &spec(closed), Engine::Dfs),
        run(b, piece, &without, Engine::Dfs),
    )
}

#[test]
fn symmetry_changes_nothing() {
    let k = Piece::knight();
    for b in boards_up_to(30)
        .into_iter()
        .chain([board(6, 6), board(3, 12), board(4, 8)])
    {
        for closed in [false, true] {
            let (with, without) = with_and_without_symmetry(b, &k, closed);
            assert_eq!(
                (with.directed, with.undirected),
                (without.directed, without.undirected),
                "{b} closed={closed}"
            );
        }
    }
    // closed counts of square boards searched from one anchor's neighbour and weighted by the
    // mirror image (the wazir's corner, like the knight's, has two neighbours a diagonal swaps)
    for (piece, side) in [("1,0", 4), ("1,0", 6), ("3,0+2,2", 5), ("3,0+2,2", 6)] {
        let p: Piece = piece.parse().unwrap();
        let b = board(side, side);
        let (with, without) = with_and_without_symmetry(b, &p, true);
        assert!(with.directed > 0, "{b} {p}");
        assert_eq!(with.directed, without.directed, "{b} {p}");
    }
}

#[test]
fn per_square_counts_sum_to_the_total() {
    for piece in ["knight", "giraffe", "3,0+2,2"] {
        let p: Piece = piece.parse().unwrap();
        for b in boards_up_to(30) {
            let total = run(b, &p, &spec(false), Engine::Dfs);
            for symmetry in [true, false] {
                let ps = CountSpec {
                    per_square: true,
                    symmetry,
                    ..spec(false)
                };
                let c = run(b, &p, &ps, Engine::Dfs);
                let table = c.per_square.as_ref().expect("a per-square table");
                assert_eq!(table.len() as u64, b.squares(), "{b}");
                assert_eq!(
                    table.iter().sum::<u64>(),
                    total.directed,
                    "{b} {p} symmetry={symmetry}"
                );
                assert_eq!(c.directed, total.directed, "{b} {p}");
                // each entry is the count from that square
                if b.squares() <= 24 || (b.squares() <= 30 && p.is_knight()) {
                    for (i, &v) in table.iter().enumerate() {
                        let from = CountSpec {
                            from: Some(b.square(i as u32)),
                            ..spec(false)
                        };
                        assert_eq!(
                            run(b, &p, &from, Engine::Dfs).directed,
                            v,
                            "{b} {p} from {}",
                            b.name(b.square(i as u32))
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn per_square_matches_oracles() {
    let k = Piece::knight();
    let c = run(
        board(5, 5),
        &k,
        &CountSpec {
            per_square: true,
            ..spec(false)
        },
        Engine::Dfs,
    );
    let t = c.per_square.unwrap();
    for corner in [0, 4, 20, 24] {
        assert_eq!(t[corner], 304);
    }
    assert_eq!(t[12], 64);
    for (i, v) in t.iter().enumerate() {
        // tours of an odd board start on the majority colour
        if (i / 5 + i % 5) % 2 == 1 {
            assert_eq!(*v, 0, "square {i}");
        }
    }
    let naive = run(
        board(5, 5),
        &k,
        &CountSpec {
            per_square: true,
            ..spec(false)
        },
        Engine::Naive,
    );
    assert_eq!(naive.per_square.unwrap(), t);
}

#[test]
fn a_board_and_its_transpose_agree() {
    let k = Piece::knight();
    for b in boards_up_to(40).into_iter().filter(|b| b.rows < b.cols) {
        for closed in [false, true] {
            let a = run(b, &k, &spec(closed), Engine::Dfs);
            let t = run(b.transposed(), &k, &spec(closed), Engine::Dfs);
            assert_eq!(
                (a.directed, a.undirected),
                (t.directed, t.undirected),
                "{b} closed={closed}"
            );
        }
    }
}

#[test]
fn one_thread_and_two_agree() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (one, two) = (pool(1), pool(2));
    let k = Piece::knight();
    for (b, closed) in [
        (board(6, 6), false),
        (board(6, 6), true),
        (board(5, 6), false),
        (board(3, 12), false),
        (board(6, 7), true),
        (board(4, 8), false),
    ] {
        let s = spec(closed);
        let a = one.install(|| run(b, &k, &s, Engine::Dfs));
        let c = two.install(|| run(b, &k, &s, Engine::Dfs));
        assert_eq!(
            (a.directed, a.undirected),
            (c.directed, c.undirected),
            "{b} closed={closed}"
        );
        assert!(a.directed > 0, "{b}");
        // the parts too: work units are fixed by the plan, not by the thread count
        let plan = count::Plan::new(b, &k, &s);
        let units = plan.units(count::UNIT_TARGET);
        let u1 = one.install(|| count::count_units(&plan, &units));
        let u2 = two.install(|| count::count_units(&plan, &units));
        assert_eq!(u1, u2, "{b}");
        assert_eq!(
            count::weigh(&plan, &units, &u1),
            if closed { a.undirected } else { a.directed }
        );
    }
}

#[test]
fn other_pieces_dfs_equals_naive() {
    // sparse leapers: the naive engine finishes these boards in well under a second
    for piece in ["giraffe", "zebra", "camel", "3,0+2,2"] {
        let p: Piece = piece.parse().unwrap();
        for b in boards_up_to(20)
            .into_iter()
            .chain([board(4, 6), board(5, 5), board(3, 8)])
        {
            dfs_equals_naive(b, &p);
        }
    }
    // dense or colour-bound pieces have far more paths: small boards only
    for piece in ["1,1", "0,1", "1,2+1,3", "0,2+1,1"] {
        let p: Piece = piece.parse().unwrap();
        for b in boards_up_to(12) {
            dfs_equals_naive(b, &p);
        }
    }
}

/// The wazir (0,1) makes Hamiltonian paths of grid graphs; small values are easy to know by hand.
#[test]
fn wazir_paths_by_hand() {
    let w: Piece = "0,1".parse().unwrap();
    // a 1xn strip: two directed paths (n > 1)
    for n in 2..=10 {
        assert_eq!(
            run(board(1, n), &w, &spec(false), Engine::Dfs).directed,
            2,
            "1x{n}"
        );
    }
    // 2x2: a 4-cycle; every cycle gives 4 paths by dropping an edge, 8 directed
    assert_eq!(run(board(2, 2), &w, &spec(false), Engine::Dfs).directed, 8);
    assert_eq!(run(board(2, 2), &w, &spec(true), Engine::Dfs).undirected, 1);
    // 2xn ladders have exactly one Hamiltonian cycle
    for n in 2..=12 {
        assert_eq!(
            run(board(2, n), &w, &spec(true), Engine::Dfs).undirected,
            1,
            "2x{n}"
        );
    }
}

/// The frontier engine's figures, by method, as machine words.
fn frontier(b: Board, piece: &Piece, spec: &CountSpec, method: frontier::Method) -> Figures {
    let c = frontier::count(b, piece, spec, method)
        .unwrap_or_else(|e| panic!("{b} {spec:?} {method:?}: {e}"));
    let word = |n: &num_bigint::BigUint| u64::try_from(n).expect("a small board's count");
    Figures {
        directed: word(&c.directed),
        undirected: word(&c.undirected),
        per_square: None,
    }
}

/// Every board with `rows <= cols` and `rows * cols <= max`.
fn boards_rows_le_cols(max: u32) -> Vec<Board> {
    boards_up_to(max)
        .into_iter()
        .filter(|b| b.rows <= b.cols)
        .collect()
}

/// The frontier engine against the DFS on every board both can do up to 40 squares, open and
/// closed, by every method: one sweep with and without the mirror merge, meeting in the middle
/// where it applies, and the automatic choice, each column's squares in their tuned order
/// (the default) and straight; and each board against its transpose.
#[test]
fn frontier_equals_dfs_on_every_board_up_to_40_squares() {
    use frontier::Method;
    let k = Piece::knight();
    let plain = |closed| CountSpec {
        symmetry: false,
        ..spec(closed)
    };
    let straight = |spec: CountSpec| CountSpec {
        order: Order::Straight,
        ..spec
    };
    let mut met = 0;
    for b in boards_rows_le_cols(40) {
        for closed in [false, true] {
            let dfs = run(b, &k, &spec(closed), Engine::Dfs);
            let want = (dfs.directed, dfs.undirected);
            let mut got = vec![
                ("auto", frontier(b, &k, &spec(closed), Method::Auto)),
                (
                    "sweep+mirror",
                    frontier(b, &k, &spec(closed), Method::Sweep),
                ),
                ("sweep", frontier(b, &k, &plain(closed), Method::Sweep)),
                (
                    "auto, straight",
                    frontier(b, &k, &straight(spec(closed)), Method::Auto),
                ),
                (
                    "sweep, straight",
                    frontier(b, &k, &straight(plain(closed)), Method::Sweep),
                ),
                (
                    "transposed",
                    frontier(b.transposed(), &k, &spec(closed), Method::Auto),
                ),
            ];
            if let Ok(c) = frontier::count(b, &k, &spec(closed), Method::Meet) {
                met += 1;
                let word = |n: &num_bigint::BigUint| u64::try_from(n).unwrap();
                got.push((
                    "meet",
                    Figures {
                        directed: word(&c.directed),
                        undirected: word(&c.undirected),
                        per_square: None,
                    },
                ));
            }
            for (how, f) in got {
                assert_eq!(
                    (f.directed, f.undirected),
                    want,
                    "{b} closed={closed}: frontier ({how}) vs dfs"
                );
            }
        }
    }
    assert!(met > 40, "meeting in the middle ran on only {met} counts");
}

/// Meeting in the middle with the cut after every column count it allows, open and closed,
/// against the DFS (both halves' tables are taken in either order).
#[test]
fn frontier_meets_at_every_cut() {
    let k = Piece::knight();
    let mut cuts = 0;
    for b in boards_rows_le_cols(30) {
        for closed in [false, true] {
            let dfs = run(b, &k, &spec(closed), Engine::Dfs);
            for c in 1..b.cols {
                let Ok(f) = frontier::count(b, &k, &spec(closed), frontier::Method::MeetAt(c))
                else {
                    continue;
                };
                cuts += 1;
                let word = |n: &num_bigint::BigUint| u64::try_from(n).unwrap();
                assert_eq!(
                    (word(&f.directed), word(&f.undirected)),
                    (dfs.directed, dfs.undirected),
                    "{b} closed={closed} cut after {c} columns"
                );
            }
        }
    }
    assert!(cuts > 100, "only {cuts} cuts tried");
}

/// A cut that cannot meet says why: a cut asked for outside the board's columns names the cut,
/// a count with a fixed start the symmetry it needs.
#[test]
fn a_meeting_that_cannot_be_says_why() {
    let k = Piece::knight();
    let b: Board = "5x6".parse().unwrap();
    let why = |method, spec: &CountSpec| {
        frontier::count(b, &k, spec, method)
            .unwrap_err()
            .to_string()
    };
    for c in [0, 5, 6, 9] {
        let e = why(frontier::Method::MeetAt(c), &spec(false));
        assert!(
            e.contains(&format!("meeting after {c} columns needs")),
            "{c}: {e}"
        );
    }
    let from = CountSpec {
        from: Some(b.square(0)),
        ..spec(false)
    };
    let e = why(frontier::Method::Meet, &from);
    assert!(e.contains("needs a symmetric count"), "{e}");
}

/// Start and end squares against the DFS: every `--from` and `--to`, and every pair, on small
/// boards; on 6x6 (a second or so a count) a corner, an edge and a middle square.
#[test]
fn frontier_from_and_to_agree_with_dfs() {
    let k = Piece::knight();
    let all = |b: Board| (0..b.squares() as u32).collect::<Vec<u32>>();
    for (b, pairs, starts) in [
        (board(5, 5), true, all(board(5, 5))),
        (board(4, 6), true, all(board(4, 6))),
        (board(3, 8), true, all(board(3, 8))),
        (board(5, 6), false, all(board(5, 6))),
        (board(6, 6), false, vec![0, 1, 14]),
    ] {
        for closed in [false, true] {
            for &from in &starts {
                let f = b.square(from);
                let s = CountSpec {
                    from: Some(f),
                    ..spec(closed)
                };
                let to_only = CountSpec {
                    to: Some(f),
                    ..spec(closed)
                };
                for sp in [&s, &to_only] {
                    assert_eq!(
                        frontier(b, &k, sp, frontier::Method::Auto).directed,
                        run(b, &k, sp, Engine::Dfs).directed,
                        "{b} closed={closed} {sp:?}"
                    );
                }
                if !pairs {
                    continue;
                }
                for to in 0..b.squares() as u32 {
                    let sp = CountSpec {
                        to: Some(b.square(to)),
                        ..s.clone()
                    };
                    assert_eq!(
                        frontier(b, &k, &sp, frontier::Method::Auto).directed,
                        run(b, &k, &sp, Engine::Dfs).directed,
                        "{b} closed={closed} {sp:?}"
                    );
                }
            }
        }
    }
}

/// Other leapers than the knight (those whose window fits), open and closed, against the DFS;
/// up to 24 squares for single leapers, fewer for unions (a dense union has astronomically many
/// paths, one DFS leaf each).
#[test]
fn frontier_counts_other_pieces_like_the_dfs() {
    for (name, max) in [
        ("camel", 24),
        ("zebra", 24),
        ("giraffe", 24),
        ("1,1", 24),
        ("0,1", 20),
        ("3,0+2,2", 16),
        ("1,2+1,3", 12),
    ] {
        let p: Piece = name.parse().unwrap();
        for b in boards_rows_le_cols(max) {
            if frontier::supports(b, &p, &spec(false)).is_err() {
                continue;
            }
            for closed in [false, true] {
                let dfs = run(b, &p, &spec(closed), Engine::Dfs);
                for method in [frontier::Method::Auto, frontier::Method::Sweep] {
                    let f = frontier(b, &p, &spec(closed), method);
                    assert_eq!(
                        (f.directed, f.undirected),
                        (dfs.directed, dfs.undirected),
                        "{b} {p} closed={closed} {method:?}"
                    );
                }
            }
        }
    }
}

/// The frontier engine's digit tree (see `frontier::meet`): its pieces and leaves add up to
/// the count of one sweep (no meeting, no tree: an independent method) on every board it meets
/// in the middle up to 40 squares, open and closed, with pieces from one to the first column's
/// every digit and leaves from the whole piece down to single states (every node split to the
/// last boundary square, as the smallest memory bound makes it), with the forward walk's columns
/// cut as digit trees too, at every cut it allows, and for other leapers; a count it walks in one
/// sweep (`--from`/`--to`) is one piece.
#[test]
fn frontier_tree_pieces_add_up_to_the_sweep() {
    use frontier::Method;
    let tree = |depth: u32, leaf: u64| TreeSize {
        depth: Some(depth),
        leaf_states: Some(leaf),
        tables: None,
        column_states: None,
    };
    let count = |b: Board, p: &Piece, sp: &CountSpec, m: Method, t: TreeSize| {
        let c = frontier::count_with(b, p, sp, m, t)
            .unwrap_or_else(|e| panic!("{b} {p} {sp:?} {m:?} {t:?}: {e}"));
        (c.directed, c.undirected)
    };
    let mut checked = 0;
    for (name, max) in [
        ("knight", 40),
        ("camel", 24),
        ("zebra", 24),
        ("giraffe", 24),
        ("0,1", 20),
        ("3,0+2,2", 24),
    ] {
        let p: Piece = name.parse().unwrap();
        for b in boards_rows_le_cols(max) {
            for closed in [false, true] {
                let sp = spec(closed);
                if !frontier::meets(b, &p, &sp) {
                    continue;
                }
                let sweep = count(b, &p, &sp, Method::Sweep, TreeSize::default());
                let w = b.rows.min(b.cols);
                // the forward walk's columns cut as digit trees too, from a column of 20 states
                let columns = TreeSize {
                    column_states: Some(20),
                    ..tree(1, 30)
                };
                let mut sizes = vec![TreeSize::default(), tree(0, u64::MAX), tree(w, 50), columns];
                if b.squares() <= 30 {
                    // every node split down to its last digit
                    sizes.extend([tree(0, 1), tree(2, 1)]);
                } else {
                    sizes.extend([tree(1, 1000), tree(3, 200)]);
                }
                for t in sizes {
                    assert_eq!(
                        count(b, &p, &sp, Method::Meet, t),
                        sweep,
                        "{b} {p} closed={closed} {t:?}"
                    );
                    checked += 1;
                }
                if name == "knight" && b.squares() <= 30 {
                    for c in 1..b.rows.max(b.cols) {
                        if let Ok(f) =
                            frontier::count_with(b, &p, &sp, Method::MeetAt(c), tree(1, 40))
                        {
                            assert_eq!((f.directed, f.undirected), sweep, "{b} cut {c}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} tree counts");
    // a count with a fixed end is walked in one sweep: one piece, whatever is asked
    let knight = Piece::knight();
    let b = board(5, 6);
    let from = CountSpec {
        from: Some(b.square(0)),
        ..spec(false)
    };
    assert!(!frontier::splits(b, &knight, &from));
    assert_eq!(
        count(b, &knight, &from, Method::Auto, tree(3, 1)),
        count(b, &knight, &from, Method::Sweep, TreeSize::default())
    );
}

/// A forward column cut as a digit tree where the counts pass 64 bits inside it: its leaves'
/// walks widen their counts, and the column's table is gathered again as wide as they need.
/// 5x40 open meets after 20 columns, its counts past 2^64 from about column 16; every column
/// cut (the same count as one sweep, the row's independent walk). Before, the leaves' wider
/// counts stopped the count with a memory error that no bound could satisfy (6x26 open by
/// default).
#[test]
fn a_column_cut_as_a_tree_widens_its_counts_past_64_bits() {
    use frontier::Method;
    let b = board(5, 40);
    let knight = Piece::knight();
    let sp = spec(false);
    let cut = TreeSize {
        depth: None,
        leaf_states: Some(2_000),
        tables: None,
        column_states: Some(4_000),
    };
    let met = frontier::count_with(b, &knight, &sp, Method::Meet, cut)
        .unwrap_or_else(|e| panic!("{b} cut: {e}"));
    let swept = frontier::count_with(b, &knight, &sp, Method::Sweep, TreeSize::default()).unwrap();
    assert!(
        swept.directed > num_bigint::BigUint::from(u128::MAX),
        "the count passes two words"
    );
    assert_eq!(
        (met.directed, met.undirected),
        (swept.directed, swept.undirected)
    );
}

/// Crossings of 17 to 20 boundary squares (the join's wide links: boards 9 and 10 wide for the
/// knight, walked the long way with `--window wide` here, and leapers of reach 3 on boards 6
/// wide): the pieces of the digit tree, at several depths and leaf sizes, add up to the count of
/// one sweep (no meeting: an independent method), and the wide window gives what the narrow
/// one does. Before, these counts were swept in one piece.
#[test]
fn wide_crossings_pieces_add_up_to_the_sweep() {
    use frontier::Method;
    let tree = |depth: u32, leaf: u64| TreeSize {
        depth: Some(depth),
        leaf_states: Some(leaf),
        tables: None,
        column_states: None,
    };
    let mut checked = 0;
    // (the closed tours of 5x10 through the wide window are checked against the narrow
    // window's count only: its one sweep takes half a minute)
    for (rows, cols, name, closed, wide) in [
        (4, 9, "knight", false, true),
        (5, 10, "knight", true, true),
        (6, 6, "3,0+2,2", true, false),
        (6, 7, "3,0+2,2", true, false),
        (6, 8, "zebra", false, false),
    ] {
        let (b, p): (Board, Piece) = (board(rows, cols), name.parse().unwrap());
        let sp = CountSpec {
            wide,
            ..spec(closed)
        };
        let m = frontier::crossing_squares(b, &p, &sp);
        assert!(
            m.is_some_and(|m| (17..=20).contains(&m)),
            "{b} {p}: crossing {m:?}"
        );
        let narrow = frontier::count_with(b, &p, &spec(closed), Method::Auto, TreeSize::default())
            .unwrap_or_else(|e| panic!("{b} {p} narrow: {e}"));
        let sweep = if rows * cols < 50 {
            frontier::count_with(b, &p, &sp, Method::Sweep, TreeSize::default())
                .unwrap_or_else(|e| panic!("{b} {p} sweep: {e}"))
        } else {
            narrow.clone()
        };
        assert_eq!(
            (&sweep.directed, &sweep.undirected),
            (&narrow.directed, &narrow.undirected),
            "{b} {p} closed={closed}: the wide window against the narrow"
        );
        let trees = if rows * cols < 50 {
            vec![
                TreeSize::default(),
                tree(0, u64::MAX),
                tree(1, 1000),
                tree(3, 200),
            ]
        } else {
            vec![TreeSize::default(), tree(1, 1000)]
        };
        for t in trees {
            let c = frontier::count_with(b, &p, &sp, Method::Auto, t)
                .unwrap_or_else(|e| panic!("{b} {p} {t:?}: {e}"));
            assert!(c.how.contains("met in the middle"), "{b} {p}: {}", c.how);
            assert_eq!(
                (c.directed, c.undirected),
                (sweep.directed.clone(), sweep.undirected.clone()),
                "{b} {p} closed={closed} {t:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 18);
}

/// The frontier engine with its tables sent through disk (a share of memory of 64 KiB, so that
/// every layer past a few thousand states is written out a partition at a time and combined
/// back, every right side is cut down the digit tree, and every large node and crossing waits
/// on disk) gives the count it gives in memory: on every board up to 40 squares, open and
/// closed, by the automatic method and one sweep; from and to fixed squares; and other leapers.
/// Most of the larger counts must have written to disk, or the test proves nothing.
/// Two counts in one process (a library's, the tests'), one through disk and one in memory at
/// the same time: each reports its own disk figures, the one in memory none (they were
/// process-wide counters, which the other count moved).
#[test]
fn two_counts_in_one_process_keep_their_own_disk_figures() {
    use frontier::Method;
    let disk = TreeSize {
        tables: Some(64 << 10),
        ..TreeSize::default()
    };
    let k = Piece::knight();
    let (through, beside) = std::thread::scope(|s| {
        let a = s.spawn(|| {
            frontier::count_with(board(6, 7), &k, &spec(true), Method::Auto, disk).unwrap()
        });
        let b = s.spawn(|| {
            (0..20)
                .map(|_| {
                    frontier::count_with(
                        board(5, 6),
                        &k,
                        &spec(false),
                        Method::Auto,
                        TreeSize::default(),
                    )
                    .unwrap()
                })
                .collect::<Vec<_>>()
        });
        (a.join().unwrap(), b.join().unwrap())
    });
    let written = |c: &knights::count::Count| c.peak.map_or(0, |p| p.disk_written);
    assert!(written(&through) > 0, "{:?}", through.peak);
    for c in &beside {
        assert_eq!(written(c), 0, "{:?}", c.peak);
        assert_eq!(c.peak.map_or(0, |p| p.disk_peak), 0, "{:?}", c.peak);
    }
}

#[test]
fn frontier_through_disk_equals_in_memory() {
    use frontier::Method;
    let disk = TreeSize {
        tables: Some(64 << 10),
        ..TreeSize::default()
    };
    let both = |b: Board, p: &Piece, sp: &CountSpec, m: Method| {
        let mem = frontier::count_with(b, p, sp, m, TreeSize::default())
            .unwrap_or_else(|e| panic!("{b} {p} {sp:?} {m:?}: {e}"));
        let spilled = frontier::count_with(b, p, sp, m, disk)
            .unwrap_or_else(|e| panic!("{b} {p} {sp:?} {m:?} through disk: {e}"));
        assert_eq!(
            (&spilled.directed, &spilled.undirected),
            (&mem.directed, &mem.undirected),
            "{b} {p} {sp:?} {m:?}: through disk vs in memory"
        );
        let wrote = spilled.peak.is_some_and(|p| p.disk_written > 0);
        // a table past twice the share in memory must have gone through disk
        let large = mem.peak.is_some_and(|p| p.bytes > 2 * (64 << 10));
        (large, large && wrote)
    };
    let (mut large, mut wrote) = (0, 0);
    let mut tally = |(l, w): (bool, bool)| {
        large += usize::from(l);
        wrote += usize::from(w);
    };
    let k = Piece::knight();
    for b in boards_rows_le_cols(40) {
        for closed in [false, true] {
            tally(both(b, &k, &spec(closed), Method::Auto));
            tally(both(b, &k, &spec(closed), Method::Sweep));
        }
    }
    // fixed ends: one sweep, every layer through disk
    for (b, from, to) in [
        (board(5, 6), 0, None),
        (board(6, 6), 7, Some(35)),
        (board(5, 8), 3, Some(20)),
    ] {
        for closed in [false, true] {
            let sp = CountSpec {
                from: Some(b.square(from)),
                to: to.map(|t| b.square(t)),
                ..spec(closed)
            };
            tally(both(b, &k, &sp, Method::Auto));
        }
    }
    for (name, max) in [
        ("camel", 24),
        ("zebra", 24),
        ("giraffe", 24),
        ("3,0+2,2", 24),
    ] {
        let p: Piece = name.parse().unwrap();
        for b in boards_rows_le_cols(max) {
            if frontier::supports(b, &p, &spec(false)).is_err() {
                continue;
            }
            for closed in [false, true] {
                tally(both(b, &p, &spec(closed), Method::Auto));
            }
        }
    }
    assert!(
        large >= 20,
        "only {large} counts large enough to go to disk"
    );
    assert_eq!(wrote, large, "some large counts never wrote to disk");
}
