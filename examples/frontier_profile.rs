//! Prints the frontier walk's layer sizes at each column end, and the reach check's projection:
//! `cargo run --release --example frontier_profile -- 7x7 [closed] [squares] [max-states]`;
//! with `squares`, the size after every square instead, a column a line.
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
    let kind = if closed { "closed" } else { "open" };
    if args.iter().any(|a| a == "squares") {
        let w = board.rows.min(board.cols) as usize;
        let s = frontier::profile_squares(board, &Piece::knight(), &spec, max).expect("a profile");
        println!("{board} {kind}");
        for (c, col) in s[1..].chunks(w).enumerate() {
            println!("  {}: {col:?}", c + 1);
        }
        return;
    }
    let t = std::time::Instant::now();
    let p = frontier::profile(board, &Piece::knight(), &spec, max).expect("a profile");
    println!("{board} {kind}: {p:?} ({:.2} s)", t.elapsed().as_secs_f64());
    let r = frontier::reach(board, &Piece::knight(), &spec).expect("an estimate");
    println!(
        "  reach: {:.2e} states, {:.2e} bytes, {:.0} s",
        r.states, r.bytes, r.seconds
    );
}
