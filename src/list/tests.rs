//! The listing against the count, the tour checker and itself (threads, limits, a failing
//! writer); the census against a plain recomputation is in `tests/all/listing.rs`.

use std::collections::HashSet;
use std::io::{self, Write};

use super::*;
use crate::count::{Engine, count};
use crate::tour::verify;

fn board(s: &str) -> Board {
    s.parse().unwrap()
}

fn options(closed: bool, from: Option<&str>, to: Option<&str>, b: Board) -> ListOptions {
    ListOptions {
        closed,
        from: from.map(|s| b.parse_square(s).unwrap()),
        to: to.map(|s| b.parse_square(s).unwrap()),
        ..ListOptions::default()
    }
}

/// The listing's text and summary.
fn listed(b: Board, piece: &Piece, opts: &ListOptions) -> (String, Summary) {
    let mut out = Vec::new();
    let summary = Listing::new(b, piece, opts).unwrap().run(&mut out).unwrap();
    (String::from_utf8(out).unwrap(), summary)
}

/// The tours of a `moves` listing as square lists.
fn tours(b: Board, text: &str) -> Vec<Vec<Square>> {
    text.lines()
        .map(|l| l.split(' ').map(|s| b.parse_square(s).unwrap()).collect())
        .collect()
}

/// The count's headline figure: directed open tours, or closed tours as undirected cycles.
fn counted(b: Board, piece: &Piece, opts: &ListOptions) -> u64 {
    let spec = opts.count_spec();
    let c = count(b, piece, &spec, Engine::Dfs).unwrap();
    let figure = if opts.closed {
        c.undirected
    } else {
        c.directed
    };
    u64::try_from(figure).unwrap()
}

#[test]
fn every_open_5x5_tour_once_and_valid() {
    let b = board("5x5");
    let knight = Piece::knight();
    let (text, summary) = listed(b, &knight, &options(false, None, None, b));
    let all = tours(b, &text);
    assert_eq!(all.len(), 1728);
    assert_eq!(summary.listed, 1728);
    assert_eq!(summary.examined, 1728);
    assert!(!summary.limited);
    let distinct: HashSet<&Vec<Square>> = all.iter().collect();
    assert_eq!(distinct.len(), 1728);
    for t in &all {
        verify(b, &knight, t).unwrap();
    }
    // the known counts by start square: 304 from a corner, 64 from the centre
    let from = |s: &str| {
        let sq = b.parse_square(s).unwrap();
        all.iter().filter(|t| t[0] == sq).count()
    };
    assert_eq!((from("a1"), from("e5"), from("c3")), (304, 304, 64));
}

#[test]
fn counts_match_the_count() {
    let knight = Piece::knight();
    for (bs, closed, from, to) in [
        ("5x5", false, Some("a1"), None),
        ("5x5", false, None, Some("e5")),
        ("5x5", false, Some("c3"), Some("a1")),
        ("3x4", false, None, None),
        ("3x7", false, None, Some("b2")),
        ("4x5", false, None, None),
        ("5x6", true, None, None),
        ("5x6", true, Some("c3"), None),
        ("5x6", true, None, Some("c3")),
        ("5x6", true, Some("a1"), Some("b3")),
        ("3x10", true, None, None),
        ("1x1", false, None, None),
        ("1x1", false, Some("a1"), Some("a1")),
        ("4x4", false, None, None),
        ("5x5", true, None, None),
    ] {
        let b = board(bs);
        let opts = options(closed, from, to, b);
        let (text, summary) = listed(b, &knight, &opts);
        let all = tours(b, &text);
        let what = format!("{bs} closed={closed} from={from:?} to={to:?}");
        assert_eq!(all.len() as u64, counted(b, &knight, &opts), "{what}");
        assert_eq!(summary.listed, all.len() as u64, "{what}");
        let distinct: HashSet<&Vec<Square>> = all.iter().collect();
        assert_eq!(distinct.len(), all.len(), "{what}");
        for t in &all {
            let ends_meet = verify(b, &knight, t).unwrap();
            assert!(ends_meet || !closed, "{what}");
            if let Some(f) = opts.from {
                assert_eq!(t[0], f, "{what}");
            }
            if let Some(s) = opts.to {
                assert_eq!(t[t.len() - 1], s, "{what}");
            }
            if closed && opts.from.is_none() && opts.to.is_none() {
                assert_eq!(t[0], Square::new(0, 0), "{what}: read from a1");
            }
        }
    }
}

#[test]
fn other_pieces_match_the_count() {
    for (bs, piece, closed) in [
        ("5x6", "giraffe", false),
        ("4x7", "3,0+2,2", false),
        ("6x6", "3,0+2,2", true),
        ("5x5", "zebra", false),
    ] {
        let b = board(bs);
        let piece: Piece = piece.parse().unwrap();
        let opts = options(closed, None, None, b);
        let (text, _) = listed(b, &piece, &opts);
        let all = tours(b, &text);
        assert_eq!(all.len() as u64, counted(b, &piece, &opts), "{bs} {piece}");
        let distinct: HashSet<&Vec<Square>> = all.iter().collect();
        assert_eq!(distinct.len(), all.len());
        for t in &all {
            verify(b, &piece, t).unwrap();
        }
    }
}

#[test]
fn closed_6x6_tours_are_distinct_cycles() {
    let b = board("6x6");
    let knight = Piece::knight();
    let (text, _) = listed(b, &knight, &options(true, None, None, b));
    let all = tours(b, &text);
    assert_eq!(all.len(), 9862);
    // a cycle's edges, whichever square and direction it is read from
    let edges = |t: &Vec<Square>| {
        let mut e: Vec<(u32, u32)> = (0..t.len())
            .map(|i| {
                let (x, y) = (b.index(t[i]), b.index(t[(i + 1) % t.len()]));
                (x.min(y), x.max(y))
            })
            .collect();
        e.sort_unstable();
        e
    };
    let distinct: HashSet<Vec<(u32, u32)>> = all.iter().map(edges).collect();
    assert_eq!(distinct.len(), 9862);
    for t in &all {
        assert!(verify(b, &knight, t).unwrap(), "closed");
    }
}

#[test]
fn the_output_is_the_same_on_one_and_two_threads() {
    let b = board("5x6");
    let knight = Piece::knight();
    for (closed, format) in [(false, Format::Json), (true, Format::Grid)] {
        let opts = ListOptions {
            format,
            ..options(closed, None, None, b)
        };
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| listed(b, &knight, &opts).0)
        };
        let one = on(1);
        assert!(!one.is_empty());
        assert_eq!(one, on(2));
    }
}

#[test]
fn the_limit_takes_the_first_tours() {
    let b = board("5x5");
    let knight = Piece::knight();
    let all = listed(b, &knight, &options(false, None, None, b)).0;
    for limit in [1, 10, 1000, 1728, 5000] {
        let opts = ListOptions {
            limit: Some(limit),
            ..options(false, None, None, b)
        };
        let (text, summary) = listed(b, &knight, &opts);
        let want: Vec<&str> = all.lines().take(limit as usize).collect();
        assert_eq!(text.lines().collect::<Vec<_>>(), want, "{limit}");
        assert_eq!(summary.listed, want.len() as u64);
        assert_eq!(summary.limited, limit <= 1728, "{limit}");
    }
    // no unit of a board this size comes near the budget a unit has under --limit
    let b = board("5x7");
    let every = ListOptions {
        limit: Some(u64::MAX),
        format: Format::None,
        ..options(false, None, None, b)
    };
    let (_, summary) = listed(b, &knight, &every);
    assert_eq!(summary.cut, 0);
    assert_eq!(summary.listed, counted(b, &knight, &every));
    let b = board("5x5");
    let zero = ListOptions {
        limit: Some(0),
        ..ListOptions::default()
    };
    let e = Listing::new(b, &knight, &zero).unwrap_err().to_string();
    assert!(e.contains("--limit 0"), "{e}");
}

#[test]
fn units_out_of_budget_are_left_for_the_next() {
    let b = board("6x6");
    let knight = Piece::knight();
    let opts = ListOptions {
        limit: Some(5000),
        ..options(false, Some("a1"), None, b)
    };
    let mut listing = Listing::new(b, &knight, &opts).unwrap();
    listing.budget = 300;
    let mut out = Vec::new();
    let summary = listing.run(&mut out).unwrap();
    assert!(summary.cut > 0, "{summary:?}");
    let all = tours(b, &String::from_utf8(out).unwrap());
    assert_eq!(all.len() as u64, summary.listed);
    let distinct: HashSet<&Vec<Square>> = all.iter().collect();
    assert_eq!(distinct.len(), all.len());
    for t in &all {
        verify(b, &knight, t).unwrap();
    }
    let line = listing.report(&summary);
    assert!(line.contains("not the first tours"), "{line}");
}

/// A writer that takes `room` bytes and then fails as a closed pipe does.
struct Closing {
    room: usize,
    calls_after: usize,
}

impl Write for Closing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            self.calls_after += 1;
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_pipe_stops_the_listing() {
    let b = board("6x6");
    let knight = Piece::knight();
    let listing = Listing::new(b, &knight, &options(false, None, None, b)).unwrap();
    let mut out = Closing {
        room: 1000,
        calls_after: 0,
    };
    match listing.run(&mut out) {
        Err(ListError::Write(e)) => assert_eq!(e.kind(), io::ErrorKind::BrokenPipe),
        other => panic!("{other:?}"),
    }
    // the first failed write ends the listing: nothing more is tried
    assert_eq!(out.calls_after, 1);
}

#[test]
fn boards_without_tours_give_the_theorem() {
    let b = board("4x4");
    let (text, summary) = listed(b, &Piece::knight(), &ListOptions::default());
    assert!(text.is_empty());
    assert_eq!(summary.listed, 0);
    assert!(summary.reason.is_some());
}

#[test]
fn listings_out_of_reach_are_refused() {
    let b = board("8x8");
    let knight = Piece::knight();
    let listing = Listing::new(b, &knight, &ListOptions::default()).unwrap();
    let e = listing.check_reach(2).unwrap_err().to_string();
    assert!(
        e.contains("8x8") && e.contains("--force") && e.contains("--limit"),
        "{e}"
    );
    // the first ten are within reach
    let first = ListOptions {
        limit: Some(10),
        ..ListOptions::default()
    };
    let listing = Listing::new(b, &knight, &first).unwrap();
    listing.check_reach(2).unwrap();
    let mut out = Vec::new();
    let summary = listing.run(&mut out).unwrap();
    assert_eq!(summary.listed, 10);
    for t in tours(b, &String::from_utf8(out).unwrap()) {
        verify(b, &knight, &t).unwrap();
    }
    let big = Listing::new(board("9x9"), &knight, &ListOptions::default()).unwrap_err();
    assert!(big.to_string().contains("at most 64"), "{big}");
}
