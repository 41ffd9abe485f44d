//! Finds the pieces of the tour construction with the project's exact search and writes them to
//! `src/construct/pieces.txt`: `cargo run --release --example make_pieces [BUDGET]`.
//!
//! Closed pieces: a closed tour of each block size the construction uses, holding the eight
//! "port" moves (two at each corner) that let neighbouring blocks merge, or as many of them as
//! the block allows. Holey pieces: for odd×odd blocks, a cycle through every square but one, for
//! each hole of a1's colour up to the block's symmetry. BUDGET is the node budget of one search.

use std::fmt::Write as _;
use std::time::Instant;

use knights::construct::pieces::encode;
use knights::construct::ports::port_moves;
use knights::construct::search::{Found, Spec, find_cycle};

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
         # square of the block but (R, C). Other orientations are made by symmetry when read.\n",
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
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/construct/pieces.txt");
    std::fs::write(path, out).expect("pieces.txt is writable");
    eprintln!("wrote {path} in {:.1} s", t0.elapsed().as_secs_f64());
}
