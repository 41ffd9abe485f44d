//! Finds the pieces of the tour construction with the project's exact search and writes them to
//! `src/construct/pieces.txt`: `cargo run --release --example make_pieces [BUDGET]`.
//!
//! Closed pieces: a closed tour of each block size the construction uses, holding the eight
//! "port" moves (two at each corner) that let neighbouring blocks merge, or as many of them as
//! the block allows. Holey pieces: for odd×odd blocks, a cycle through every square but one, for
//! each hole of a1's colour up to the block's symmetry. Lanes and chain pieces for strips 3 and
//! 4 high: the lanes for which pieces exist in the most widths, then every piece for them
//! (see `src/construct/lanes.rs`). BUDGET is the node budget of one search.

use std::fmt::Write as _;
use std::time::Instant;

use knights::construct::lanes::{self, Kind, Lane, Lanes};
use knights::construct::pieces::{Catalogue, encode};
use knights::construct::ports::port_moves;
use knights::construct::search::{Cell, Found, Spec, find_cycle};
use knights::construct::strip_covers;
use knights::{Board, Piece, theory};

const EVEN: [u8; 3] = [6, 8, 10];
const ODD: [u8; 4] = [5, 7, 9, 11];

fn main() {
    let budget: u64 = std::env::args()
        .nth(1)
        .map_or(50_000_000, |a| a.parse().expect("a node budget"));
    let mut out = String::from(
        "# Pieces of the knight's tour construction (src/construct), written by\n\
         # `cargo run --release --example make_pieces` from the exact search of src/construct/search.rs\n\
         # and checked by the tests of src/construct/pieces.rs. A square is two base-36 digits (row, col).\n\
         # closed RxC CELLS: a closed tour of the block; holey RxC R,C CELLS: a cycle through every\n\
         # square of the block but (R, C). Other orientations are made by symmetry when read.\n\
         # lanes H t2|t3 LANE...: the lanes of strips H high (R,D>R,C: from row R, column D from the\n\
         # right of a block, to row R, column C of the next; > rightwards, < leftwards);\n\
         # chain H KIND W [R,C] CELLS: a piece of a chain block W wide (with the start square R,C).\n",
    );
    let t0 = Instant::now();
    let mut sizes: Vec<(u8, u8)> = Vec::new();
    for &a in EVEN.iter().chain(&ODD) {
        for &b in &EVEN {
            let (h, w) = (a.min(b), a.max(b));
            if !sizes.contains(&(h, w)) {
                sizes.push((h, w));
            }
        }
    }
    sizes.sort_unstable();
    for (h, w) in sizes {
        let ports = port_moves(h, w);
        // the most port moves the block allows: all of them, else the largest subsets first
        let mut masks: Vec<u32> = (0..1u32 << ports.len()).collect();
        masks.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
        let mut done = false;
        for m in masks {
            let spec = Spec {
                rows: h,
                cols: w,
                required: (0..ports.len())
                    .filter(|k| m >> k & 1 == 1)
                    .map(|k| ports[k])
                    .collect(),
                ..Spec::default()
            };
            if let Found::Cycle(c) = find_cycle(&spec, 1, budget / 16).expect("a valid spec") {
                eprintln!(
                    "closed {h}x{w}: {} of {} port moves",
                    m.count_ones(),
                    ports.len()
                );
                writeln!(out, "closed {h}x{w} {}", encode(&c)).unwrap();
                done = true;
                break;
            }
        }
        assert!(done, "{h}x{w} has a closed tour");
    }
    for (i, &h) in ODD.iter().enumerate() {
        for &w in &ODD[i..] {
            let (mut found, mut missing) = (0, Vec::new());
            for r in 0..=(h - 1) / 2 {
                for c in 0..=(w - 1) / 2 {
                    if (r + c) % 2 == 1 || (h == w && c < r) {
                        continue;
                    }
                    let spec = Spec {
                        rows: h,
                        cols: w,
                        holes: vec![(r, c)],
                        ..Spec::default()
                    };
                    match find_cycle(&spec, 1, budget).expect("a valid spec") {
                        Found::Cycle(cy) => {
                            writeln!(out, "holey {h}x{w} {r},{c} {}", encode(&cy)).unwrap();
                            found += 1;
                        }
                        Found::None => missing.push(format!("{r},{c} (none)")),
                        Found::GaveUp => missing.push(format!("{r},{c} (gave up)")),
                    }
                }
            }
            eprintln!("holey {h}x{w}: {found} holes; missing {missing:?}");
        }
    }
    for rows in [3u8, 4] {
        lane_pieces(rows, &mut out);
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/construct/pieces.txt");
    std::fs::write(path, out).expect("pieces.txt is writable");
    eprintln!("wrote {path} in {:.1} s", t0.elapsed().as_secs_f64());
}

/// Widths of chain blocks tried.
const WIDTHS: std::ops::RangeInclusive<u8> = 3..=10;

/// A piece of `kind` for these lanes, if the search finds one.
fn chain_piece(
    kind: Kind,
    rows: u8,
    width: u8,
    t2: &Lanes,
    t3: &Lanes,
    start: Option<Cell>,
    budget: u64,
) -> Option<Vec<Cell>> {
    let side = |n: Option<u8>| match n {
        Some(2) => Some(t2),
        Some(3) => Some(t3),
        _ => None,
    };
    let (l, r) = kind.sides();
    let spec = lanes::spec(kind, rows, width, side(l), side(r), start)?;
    match find_cycle(&spec, 1, budget).expect("a valid spec") {
        Found::Cycle(c) => Some(c),
        _ => None,
    }
}

/// Widths for which pieces of each kind exist.
fn widths(kinds: &[Kind], rows: u8, t2: &Lanes, t3: &Lanes, budget: u64) -> Vec<usize> {
    kinds
        .iter()
        .map(|&k| {
            WIDTHS
                .filter(|&w| chain_piece(k, rows, w, t2, t3, None, budget).is_some())
                .count()
        })
        .collect()
}

/// Lane sets with pieces, best first (the most widths with pieces of `kinds`).
fn ranked(rows: u8, sets: Vec<Lanes>, kinds: &[Kind], budget: u64) -> Vec<Lanes> {
    let mut scored: Vec<(usize, usize, Lanes)> = sets
        .into_iter()
        .enumerate()
        .filter_map(|(k, ls)| {
            let w = widths(kinds, rows, &ls, &ls, budget);
            w.iter().all(|&x| x > 0).then(|| (w.iter().sum(), k, ls))
        })
        .collect();
    // most widths first; ties in the order the sets were made (deterministic)
    scored.sort_by_key(|&(s, k, _)| (std::cmp::Reverse(s), k));
    scored.into_iter().map(|(_, _, ls)| ls).collect()
}

/// Every piece of every kind for these lanes, as data lines.
fn all_pieces(rows: u8, t2: &Lanes, t3: &Lanes, budget: u64) -> (String, usize) {
    let show = |ls: &Lanes| ls.iter().map(Lane::to_string).collect::<Vec<_>>().join(" ");
    let mut out = format!(
        "lanes {rows} t2 {}\nlanes {rows} t3 {}\n",
        show(t2),
        show(t3)
    );
    let mut count = 0;
    for kind in Kind::ALL {
        for w in WIDTHS {
            let starts: Vec<Option<Cell>> = if kind.has_start() {
                (0..rows)
                    .flat_map(|r| (0..w).map(move |c| Some((r, c))))
                    .collect()
            } else {
                vec![None]
            };
            for s in starts {
                if let Some(cells) = chain_piece(kind, rows, w, t2, t3, s, budget) {
                    let at = s.map_or(String::new(), |(r, c)| format!(" {r},{c}"));
                    writeln!(
                        out,
                        "chain {rows} {} {w}{at} {}",
                        kind.name(),
                        encode(&cells)
                    )
                    .unwrap();
                    count += 1;
                }
            }
        }
    }
    (out, count)
}

/// Whether the pieces plan every tour of strips `rows` high and 20 to 40 long that a theorem
/// allows: open from every square, closed where one exists.
fn covers(rows: u8, text: &str) -> bool {
    let cat = Catalogue::parse(text).expect("the generated lines read back");
    let k = Piece::knight();
    (20..=40u32).all(|len| {
        let b = Board {
            rows: u32::from(rows),
            cols: len,
        };
        let closed_ok =
            theory::closed_obstruction(b, &k).is_some() || strip_covers(&cat, b, true, b.square(0));
        closed_ok
            && (0..b.squares() as u32).all(|i| {
                let s = b.square(i);
                theory::open_obstruction(b, &k, Some(s)).is_some()
                    || strip_covers(&cat, b, false, s)
            })
    })
}

/// Chooses the lanes of strips `rows` high and writes them and every piece for them: the first
/// pair of two-lane and three-lane sets, richest first, whose pieces plan every tour of the
/// strips in [`covers`].
fn lane_pieces(rows: u8, out: &mut String) {
    let budget = 200_000;
    let cross = lanes::crossings(rows);
    let lane = |c: &(u8, u8, Cell), rightward| Lane {
        left: (c.0, c.1),
        right: c.2,
        rightward,
    };
    let apart = |cs: &[&(u8, u8, Cell)]| {
        (0..cs.len()).all(|i| {
            (i + 1..cs.len())
                .all(|j| (cs[i].0, cs[i].1) != (cs[j].0, cs[j].1) && cs[i].2 != cs[j].2)
        })
    };
    let two_kinds: &[Kind] = if rows == 3 {
        &[Kind::Mid2, Kind::CapR2, Kind::CapL2]
    } else {
        &[Kind::Mid2, Kind::CapR2]
    };
    let mut sets2 = Vec::new();
    for a in &cross {
        for b in &cross {
            if apart(&[a, b]) {
                sets2.push(vec![lane(a, true), lane(b, false)]);
            }
        }
    }
    let t2s = ranked(rows, sets2, two_kinds, budget);
    let mut sets3 = Vec::new();
    for a in &cross {
        for b in &cross {
            for c in &cross {
                if !apart(&[a, b, c]) {
                    continue;
                }
                let t3 = vec![lane(a, false), lane(b, true), lane(c, false)];
                // a quick filter on two widths first
                if [5, 6]
                    .iter()
                    .any(|&w| chain_piece(Kind::Mid3, rows, w, &t3, &t3, None, 20_000).is_some())
                {
                    sets3.push(t3);
                }
            }
        }
    }
    let t3s = ranked(rows, sets3, &[Kind::Mid3, Kind::CapL3], budget);
    let show = |ls: &Lanes| ls.iter().map(Lane::to_string).collect::<Vec<_>>().join(" ");
    for t3 in &t3s {
        for t2 in &t2s {
            // a quick filter: a start's block between three lanes and two, on the upper rows
            // (the lower ones are theirs turned over)
            let upper: &[u8] = if rows == 3 { &[0, 1] } else { &[0] };
            let outer_rows = upper.iter().all(|&r| {
                (4..=8u8).any(|w| {
                    (0..w).any(|c| {
                        chain_piece(Kind::Start, rows, w, t2, t3, Some((r, c)), 20_000).is_some()
                    })
                })
            });
            if !outer_rows {
                continue;
            }
            let (text, count) = all_pieces(rows, t2, t3, budget);
            if covers(rows, &text) {
                out.push_str(&text);
                eprintln!(
                    "strips {rows} high: lanes {} / {}, {count} pieces",
                    show(t2),
                    show(t3)
                );
                return;
            }
        }
    }
    panic!("no lanes found whose pieces cover strips {rows} high");
}
