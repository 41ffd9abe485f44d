//! Prints the frontier engine's up-front projection of a count (the reach check's: its largest
//! layer's states, the bytes of its tables and the seconds on this machine's threads) as one
//! JSON line: `cargo run --release --example frontier_reach -- 7x7 [closed]`.
use knights::count::CountSpec;
use knights::{Board, Piece, frontier};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args[1].parse().expect("a board");
    let spec = CountSpec {
        closed: args.iter().any(|a| a == "closed"),
        symmetry: true,
        ..CountSpec::default()
    };
    let r = frontier::reach(board, &Piece::knight(), &spec).expect("a projection");
    println!(
        "{{\"states\":{:.0},\"bytes\":{:.0},\"seconds\":{:.1}}}",
        r.states, r.bytes, r.seconds
    );
}
