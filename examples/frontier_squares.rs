//! Prints the frontier walk's layer size after every square, a column a line:
//! `cargo run --release --example frontier_squares -- 7x7 [closed] [max-states]`.
use knights::count::CountSpec;
use knights::{Board, Piece, frontier};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args[1].parse().expect("a board");
    let closed = args.iter().any(|a| a == "closed");
    let max: u64 = args
        .last()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    };
    let w = board.rows.min(board.cols) as usize;
    let s = frontier::profile_squares(board, &Piece::knight(), &spec, max).expect("a profile");
    println!("{board} {}", if closed { "closed" } else { "open" });
    for (c, col) in s[1..].chunks(w).enumerate() {
        println!("  {}: {col:?}", c + 1);
    }
}
