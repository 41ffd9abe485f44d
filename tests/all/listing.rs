//! `knights list` and `knights survey --from`: the number of tours listed against the count on
//! every board of up to 36 squares, the tours distinct and valid (by the library and by
//! `knights verify`), the census (`--where`, `--histogram`) against a plain recomputation from
//! the listed tours, the command line (formats, threads, limits, a closed pipe, bad input) and
//! the homework's walk shown square by square.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

use knights::count::{self, Engine};
use knights::list::{Filter, Format, ListOptions, Listing, Property, Summary};
use knights::tour::verify;
use knights::{Board, Piece, Square};
use serde_json::Value;

use super::cli::{knights, usage_error};

fn board(s: &str) -> Board {
    s.parse().unwrap()
}

/// The count's headline figure for what a listing lists: directed open tours, or closed tours
/// as undirected cycles (with `--from` and `--to` both, the tours between them).
fn counted(b: Board, piece: &Piece, o: &ListOptions) -> u64 {
    let spec = o.count_spec();
    let c = count::count(b, piece, &spec, Engine::Dfs).unwrap();
    u64::try_from(if o.closed { c.undirected } else { c.directed }).unwrap()
}

fn run(b: Board, piece: &Piece, o: &ListOptions) -> (Vec<u8>, Summary) {
    let mut out = Vec::new();
    let s = Listing::new(b, piece, o).unwrap().run(&mut out).unwrap();
    (out, s)
}

/// The tours of a `moves` listing as (row, col) lists.
fn tours(b: Board, text: &[u8]) -> Vec<Vec<(i32, i32)>> {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| {
            l.split(' ')
                .map(|s| {
                    let q = b.parse_square(s).unwrap();
                    (q.row as i32, q.col as i32)
                })
                .collect()
        })
        .collect()
}

fn squares(t: &[(i32, i32)]) -> Vec<Square> {
    t.iter()
        .map(|&(r, c)| Square::new(r as u32, c as u32))
        .collect()
}

/// The squares `--from`/`--to` take on a board: none, a corner, a square near the middle, and
/// the last square (also as an end).
fn ends(b: Board) -> Vec<(Option<Square>, Option<Square>)> {
    let mid = Square::new(b.rows / 2, b.cols / 2);
    let last = Square::new(b.rows - 1, b.cols - 1);
    let a1 = Square::new(0, 0);
    vec![
        (None, None),
        (Some(a1), None),
        (Some(mid), None),
        (None, Some(last)),
        (Some(mid), Some(a1)),
    ]
}

#[test]
fn the_number_listed_is_the_count_on_every_board_up_to_36_squares() {
    let knight = Piece::knight();
    for r in 1..=6u32 {
        for c in r..=36 / r {
            let b = Board::new(r, c).unwrap();
            for closed in [false, true] {
                let mut pairs = ends(b);
                if b.squares() > 30 && !closed {
                    // the open tours of 5x7, 4x9, 3x12 and 6x6, listed and counted, take most of
                    // the time: all of them here (6x6 from c3 is in the next tests)
                    pairs.truncate(1);
                }
                for (from, to) in pairs {
                    let o = ListOptions {
                        closed,
                        from,
                        to,
                        format: Format::None,
                        ..ListOptions::default()
                    };
                    let (_, s) = run(b, &knight, &o);
                    assert_eq!(s.listed, counted(b, &knight, &o), "{b} {o:?}");
                    assert_eq!(s.examined, s.listed, "{b} {o:?}");
                }
            }
        }
    }
}

#[test]
fn the_number_listed_is_the_count_for_other_pieces() {
    // the wazir's tours are the grid's Hamiltonian paths; the zebra and the giraffe have none
    // on boards this small; the others have up to 10^5 on them
    for (piece, most) in [
        ("0,1", 30),
        ("3,0+2,2", 30),
        ("1,4+2,3", 28),
        ("zebra", 30),
        ("giraffe", 30),
    ] {
        let piece: Piece = piece.parse().unwrap();
        for r in 1..=5u32 {
            for c in r..=most / r {
                let b = Board::new(r, c).unwrap();
                for closed in [false, true] {
                    for (from, to) in ends(b) {
                        let o = ListOptions {
                            closed,
                            from,
                            to,
                            ..ListOptions::default()
                        };
                        let (text, s) = run(b, &piece, &o);
                        assert_eq!(s.listed, counted(b, &piece, &o), "{b} {piece} {o:?}");
                        let all = tours(b, &text);
                        let distinct: HashSet<&Vec<(i32, i32)>> = all.iter().collect();
                        assert_eq!(distinct.len(), all.len(), "{b} {piece} {o:?}");
                        for t in &all {
                            verify(b, &piece, &squares(t)).unwrap();
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn listed_tours_are_distinct_and_valid() {
    let knight = Piece::knight();
    for (bs, closed, from) in [
        ("5x6", false, None),
        ("6x6", true, None),
        ("6x6", false, Some("c3")),
    ] {
        let b = board(bs);
        let o = ListOptions {
            closed,
            from: from.map(|s| b.parse_square(s).unwrap()),
            ..ListOptions::default()
        };
        let (text, s) = run(b, &knight, &o);
        let all = tours(b, &text);
        assert_eq!(all.len() as u64, s.listed);
        assert_eq!(s.listed, counted(b, &knight, &o), "{bs}");
        let mut seen = HashSet::new();
        for t in &all {
            assert!(seen.insert(t.clone()), "{bs}: listed twice: {t:?}");
            let ends_meet = verify(b, &knight, &squares(t)).unwrap();
            assert!(ends_meet || !closed);
        }
    }
}

/// A square as (row, col).
type Cell = (i32, i32);

/// A rotation or reflection of the board, as a map of squares.
type Map = Box<dyn Fn(Cell) -> Cell>;

/// A plain recomputation of the census from a tour's squares (no code shared with the library).
struct Plain {
    rows: i32,
    cols: i32,
    closed: bool,
    /// End distances already found, by (first, last) square.
    distances: RefCell<HashMap<(Cell, Cell), u32>>,
}

impl Plain {
    fn is_move(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        let (dr, dc) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
        (dr, dc) == (1, 2) || (dr, dc) == (2, 1)
    }

    /// The moves, around the cycle for a closed tour.
    fn moves(&self, t: &[(i32, i32)]) -> Vec<(i32, i32)> {
        let n = t.len();
        let last = if self.closed { n } else { n - 1 };
        (0..last)
            .map(|i| {
                let (a, b) = (t[i], t[(i + 1) % n]);
                (b.0 - a.0, b.1 - a.1)
            })
            .collect()
    }

    /// Pairs of consecutive moves.
    fn turns(&self, t: &[(i32, i32)]) -> Vec<((i32, i32), (i32, i32))> {
        let m = self.moves(t);
        let k = m.len();
        if self.closed {
            (0..k).map(|i| (m[(i + k - 1) % k], m[i])).collect()
        } else {
            (1..k).map(|i| (m[i - 1], m[i])).collect()
        }
    }

    fn straight(&self, t: &[(i32, i32)]) -> u32 {
        self.turns(t).iter().filter(|(a, b)| a == b).count() as u32
    }

    fn turn_shapes(&self, t: &[(i32, i32)]) -> u32 {
        let shapes: HashSet<(i32, i32, i32)> = self
            .turns(t)
            .iter()
            .map(|&((a, b), (c, d))| {
                let (x, y) = (a * a + b * b, c * c + d * d);
                (x.min(y), x.max(y), a * c + b * d)
            })
            .collect();
        shapes.len() as u32
    }

    fn end_distance(&self, t: &[(i32, i32)]) -> u32 {
        let key = (t[0], t[t.len() - 1]);
        if let Some(&d) = self.distances.borrow().get(&key) {
            return d;
        }
        let d = self.bfs(key.0, key.1);
        self.distances.borrow_mut().insert(key, d);
        d
    }

    /// The fewest knight moves from `start` to `goal`, by breadth-first search.
    fn bfs(&self, start: (i32, i32), goal: (i32, i32)) -> u32 {
        let mut dist = HashMap::from([(start, 0u32)]);
        let mut queue = VecDeque::from([start]);
        while let Some(p) = queue.pop_front() {
            if p == goal {
                return dist[&p];
            }
            for (dr, dc) in [
                (1, 2),
                (2, 1),
                (-1, 2),
                (-2, 1),
                (1, -2),
                (2, -1),
                (-1, -2),
                (-2, -1),
            ] {
                let q = (p.0 + dr, p.1 + dc);
                if q.0 >= 0
                    && q.1 >= 0
                    && q.0 < self.rows
                    && q.1 < self.cols
                    && !dist.contains_key(&q)
                {
                    dist.insert(q, dist[&p] + 1);
                    queue.push_back(q);
                }
            }
        }
        unreachable!("a tour's ends are connected")
    }

    /// The eight rotations and reflections as maps of (row, col), those of the board only.
    fn symmetries(&self) -> Vec<Map> {
        let (r, c) = (self.rows - 1, self.cols - 1);
        let mut out: Vec<Map> = vec![
            Box::new(move |(a, b)| (r - a, b)),
            Box::new(move |(a, b)| (a, c - b)),
            Box::new(move |(a, b)| (r - a, c - b)),
        ];
        if self.rows == self.cols {
            out.push(Box::new(|(a, b)| (b, a)));
            out.push(Box::new(move |(a, b)| (r - b, a)));
            out.push(Box::new(move |(a, b)| (b, c - a)));
            out.push(Box::new(move |(a, b)| (r - b, c - a)));
        }
        out
    }

    fn symmetric(&self, t: &[(i32, i32)]) -> bool {
        let n = t.len();
        let edges = |p: &[(i32, i32)]| {
            let mut e: Vec<((i32, i32), (i32, i32))> = (0..n)
                .map(|i| {
                    let (a, b) = (p[i], p[(i + 1) % n]);
                    (a.min(b), a.max(b))
                })
                .collect();
            e.sort_unstable();
            e
        };
        self.symmetries().iter().any(|g| {
            let image: Vec<(i32, i32)> = t.iter().map(|&s| g(s)).collect();
            if image == t {
                // a symmetry that moves no square of this board is the identity
                return false;
            }
            if self.closed {
                edges(&image) == edges(t)
            } else {
                image.iter().rev().eq(t.iter())
            }
        })
    }

    fn keeps(&self, f: Filter, t: &[(i32, i32)]) -> bool {
        match f {
            Filter::Closable => self.is_move(t[0], t[t.len() - 1]),
            Filter::Symmetric => self.symmetric(t),
            Filter::Straight(k) => self.straight(t) == k,
        }
    }

    fn value(&self, p: Property, t: &[(i32, i32)]) -> u32 {
        match p {
            Property::Straight => self.straight(t),
            Property::Turns => self.turn_shapes(t),
            Property::EndDistance => self.end_distance(t),
        }
    }
}

#[test]
fn the_census_against_a_plain_recomputation() {
    let knight = Piece::knight();
    for (bs, closed, from) in [
        ("5x5", false, None),
        ("6x6", true, None),
        ("6x6", false, Some("c3")),
    ] {
        let b = board(bs);
        let base = ListOptions {
            closed,
            from: from.map(|s| b.parse_square(s).unwrap()),
            ..ListOptions::default()
        };
        let all = tours(b, &run(b, &knight, &base).0);
        let plain = Plain {
            rows: b.rows as i32,
            cols: b.cols as i32,
            closed,
            distances: RefCell::default(),
        };
        let filters = [
            Filter::Closable,
            Filter::Symmetric,
            Filter::Straight(0),
            Filter::Straight(1),
            Filter::Straight(3),
        ];
        for f in filters {
            let o = ListOptions {
                filters: vec![f],
                ..base.clone()
            };
            let (text, s) = run(b, &knight, &o);
            let want: Vec<&Vec<(i32, i32)>> = all.iter().filter(|t| plain.keeps(f, t)).collect();
            let got = tours(b, &text);
            // the same tours, in the order of the whole listing
            assert_eq!(
                got.iter().collect::<Vec<_>>(),
                want,
                "{bs} closed={closed} {f}"
            );
            assert_eq!(s.examined, all.len() as u64);
        }
        for p in [Property::Straight, Property::Turns, Property::EndDistance] {
            let o = ListOptions {
                histogram: Some(p),
                format: Format::None,
                ..base.clone()
            };
            let (text, s) = run(b, &knight, &o);
            assert!(text.is_empty());
            let mut want = vec![0u64; 0];
            for t in &all {
                let v = plain.value(p, t) as usize;
                if want.len() <= v {
                    want.resize(v + 1, 0);
                }
                want[v] += 1;
            }
            let h = s.histogram.unwrap();
            assert_eq!(h.counts, want, "{bs} closed={closed} {p:?}");
            assert_eq!(h.total(), all.len() as u64);
        }
        // two conditions at once: both hold
        let o = ListOptions {
            filters: vec![Filter::Symmetric, Filter::Straight(2)],
            ..base.clone()
        };
        let got = tours(b, &run(b, &knight, &o).0);
        let want: Vec<&Vec<(i32, i32)>> = all
            .iter()
            .filter(|t| plain.symmetric(t) && plain.straight(t) == 2)
            .collect();
        assert_eq!(got.iter().collect::<Vec<_>>(), want);
    }
}

#[test]
fn closed_6x6_straight_moves_sum_to_the_cycles() {
    let out = knights()
        .args([
            "list",
            "6x6",
            "--closed",
            "--histogram",
            "straight",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["property"], "straight");
    assert_eq!(v["tours"], 9862);
    let rows = v["histogram"].as_array().unwrap();
    let sum: u64 = rows.iter().map(|r| r["tours"].as_u64().unwrap()).sum();
    assert_eq!(sum, 9862);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["value"], i);
    }
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("9,862 closed tours of 6x6"), "{err}");
}

#[test]
fn histogram_table_and_chart() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("straight.svg");
    let out = knights()
        .args(["list", "5x5", "--histogram", "end-distance", "--plot"])
        .arg(&svg)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(out).unwrap();
    assert!(table.starts_with("end-distance: "), "{table}");
    let total = table.lines().last().unwrap();
    assert!(
        total.contains("total") && total.contains("1,728"),
        "{table}"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("end-distance"));
}

/// `knights list ARGS` as JSON Lines, parsed.
fn json_lines(args: &[&str]) -> Vec<Value> {
    let out = knights()
        .arg("list")
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_command_lists_in_every_format() {
    // knightsTo 5 (5,5) of the Haskell 99: the tours ending on e5
    let moves = knights()
        .args(["list", "5x5", "--to", "e5"])
        .assert()
        .success();
    let text = String::from_utf8(moves.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 304);
    assert!(text.lines().all(|l| l.ends_with(" e5")));
    let err = String::from_utf8(moves.get_output().stderr.clone()).unwrap();
    assert!(
        err.starts_with("304 open tours of 5x5 by the knight to e5"),
        "{err}"
    );
    // closedKnights 6: every closed tour, once, read from a1
    let closed = json_lines(&["6x6", "--closed"]);
    assert_eq!(closed.len(), 9862);
    for (i, v) in closed.iter().enumerate() {
        assert_eq!(v["index"], i);
        assert_eq!(v["rows"], 6);
        assert_eq!(v["cols"], 6);
        assert_eq!(v["closed"], true);
        assert_eq!(v["piece"], "knight");
        assert_eq!(v["length"], 36);
        assert_eq!(v["path"][0], serde_json::json!([0, 0]));
    }
    // a few of them through `knights verify`, as they were printed
    let out = knights()
        .args([
            "list", "6x6", "--closed", "--format", "json", "--limit", "3",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    for line in String::from_utf8(out).unwrap().lines() {
        knights()
            .args(["verify", "-", "--closed"])
            .write_stdin(line)
            .assert()
            .success();
    }
    let grids = knights()
        .args([
            "list", "5x5", "--from", "c3", "--format", "grid", "--limit", "2",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let grids = String::from_utf8(grids).unwrap();
    let boards: Vec<&str> = grids.split("\n\n").collect();
    assert_eq!(boards.len(), 2, "{grids}");
    for g in boards {
        knights()
            .args(["verify", "-"])
            .write_stdin(g)
            .assert()
            .success();
    }
    let none = knights()
        .args(["list", "5x5", "--format", "none"])
        .assert()
        .success();
    assert!(none.get_output().stdout.is_empty());
}

#[test]
fn the_output_does_not_depend_on_the_threads() {
    let on = |threads: &str| {
        knights()
            .args(["list", "5x6", "--format", "json", "--threads", threads])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let one = on("1");
    assert_eq!(String::from_utf8_lossy(&one).lines().count(), 37_568);
    assert_eq!(one, on("2"));
}

#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    // `knights list 6x6 | head -1`: read one line, close the pipe
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_knights"))
        .args(["list", "6x6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.split(' ').count(), 36);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !err.contains("panicked") && !err.contains("knights:"),
        "{err}"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    usage_error(&["list", "5x5", "--where", "straight=x"], "straight=x");
    usage_error(&["list", "5x5", "--where", "round"], "round");
    usage_error(&["list", "5x5", "--limit", "0"], "0");
    usage_error(&["list", "5x5", "--limit", "-3"], "-3");
    usage_error(
        &["list", "5x5", "--histogram", "turns", "--format", "moves"],
        "--format",
    );
    usage_error(&["list", "5x5", "--histogram", "colour"], "colour");
    usage_error(&["list", "5x5", "--json"], "--histogram");
    usage_error(&["list", "5x5", "--from", "f6"], "f6");
    usage_error(&["list", "9x9"], "64");
    usage_error(&["list", "8x8"], "--force");
    usage_error(&["list", "8x8", "--closed"], "--force");
}

#[test]
fn no_tour_is_exit_1_with_the_reason() {
    let out = knights()
        .args(["list", "4x4"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("0 open tours of 4x4") && err.contains("Conrad"),
        "{err}"
    );
    // a condition nothing meets is no tour either
    knights()
        .args(["list", "5x5", "--where", "straight=30"])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn the_first_tours_of_a_large_board() {
    let lines = json_lines(&["8x8", "--limit", "5"]);
    assert_eq!(lines.len(), 5);
    let b = board("8x8");
    for v in &lines {
        let path: Vec<Square> = v["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| Square::new(p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32))
            .collect();
        verify(b, &Piece::knight(), &path).unwrap();
    }
}

#[test]
fn the_homeworks_walk_square_by_square() {
    // fixed-order Warnsdorff on 8x8 fails from c5 only
    let out = knights()
        .args(["survey", "8x8", "--from", "c5"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("stuck after 60 of 64 squares at d1: no unvisited square a move away"),
        "{text}"
    );
    // the grid: 60 numbers and 4 dots
    let dots: usize = text
        .lines()
        .filter(|l| l.contains('|'))
        .map(|l| l.matches('.').count())
        .sum();
    assert_eq!(dots, 4, "{text}");
    let out = knights()
        .args(["survey", "8x8", "--from", "c5", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["complete"], false);
    assert_eq!(v["stop"], "stuck");
    let path = v["path"].as_array().unwrap();
    assert_eq!(path.len(), 60);
    assert_eq!(v["length"], 60);
    let at = |i: usize| (path[i][0].as_i64().unwrap(), path[i][1].as_i64().unwrap());
    for i in 1..path.len() {
        let ((a, b), (c, d)) = (at(i - 1), at(i));
        let (dr, dc) = ((a - c).abs(), (b - d).abs());
        assert!((dr, dc) == (1, 2) || (dr, dc) == (2, 1), "step {i}");
    }
    let distinct: HashSet<(i64, i64)> = (0..path.len()).map(at).collect();
    assert_eq!(distinct.len(), 60);
    // from a1 the same walk completes
    let done = knights()
        .args(["survey", "8x8", "--from", "a1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let done = String::from_utf8(done).unwrap();
    assert!(done.contains("complete: a"), "{done}");
    let grid: String = done.lines().skip(1).take(11).collect::<Vec<_>>().join("\n");
    knights()
        .args(["verify", "-"])
        .write_stdin(grid)
        .assert()
        .success();
    usage_error(
        &["survey", "8x8", "--from", "a1", "--heuristic", "all"],
        "all",
    );
    usage_error(
        &["survey", "8x8", "--from", "a1", "--starts", "3"],
        "--starts",
    );
    usage_error(&["survey", "8x8", "--from", "i9"], "i9");
}
