//! Sweeps `find_tour` over many boards and start squares and reports failures and the slowest
//! cases: `cargo run --release --example tour_sweep -- MAXSIDE STRIDE [SIDES]`.
//! Boards are every R×C with R <= C <= MAXSIDE, or, with SIDES (comma-separated), every R×C with
//! R and C in SIDES. Every start square is tried on boards with a side of 3 or 4; on wider boards
//! every STRIDE-th square (and the corners).

use std::time::Instant;

use knights::find::{FindOptions, find_tour};
use knights::{Board, Piece, Square};

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u32| raw.get(i).map_or(d, |a| a.parse().expect("a number"));
    let max = num(0, 30);
    let stride = num(1, 7);
    let sides: Vec<u32> = match raw.get(2) {
        Some(list) => list
            .split(',')
            .map(|x| x.parse().expect("a number"))
            .collect(),
        None => (1..=max).collect(),
    };
    let piece = Piece::knight();
    let (mut runs, mut fails, mut worst) = (0u64, 0u64, (0.0f64, String::new()));
    for &rows in &sides {
        for &cols in sides.iter().filter(|&&c| c >= rows) {
            let board = Board { rows, cols };
            for closed in [false, true] {
                for i in 0..rows * cols {
                    let sq = Square::new(i / cols, i % cols);
                    let corner =
                        (sq.row == 0 || sq.row == rows - 1) && (sq.col == 0 || sq.col == cols - 1);
                    if rows > 4 && i % stride != 0 && !corner {
                        continue;
                    }
                    let t0 = Instant::now();
                    let r = find_tour(board, &piece, &FindOptions::new(closed, Some(sq), 0));
                    let dt = t0.elapsed().as_secs_f64();
                    runs += 1;
                    let label = format!(
                        "{board} {} from {}",
                        if closed { "closed" } else { "open" },
                        board.name(sq)
                    );
                    if dt > worst.0 {
                        worst = (dt, label.clone());
                    }
                    if let Err(e) = r {
                        let msg = e.to_string();
                        if msg.contains("no proof") {
                            fails += 1;
                            println!("FAIL {label}: {msg}");
                        }
                    }
                }
            }
        }
    }
    println!(
        "{runs} searches, {fails} gave up without a proof; slowest {:.3} s ({})",
        worst.0, worst.1
    );
}
