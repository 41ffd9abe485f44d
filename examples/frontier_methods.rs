//! Times the frontier engine's methods on one board: `cargo run --release --example
//! frontier_methods -- 6x6 [closed]`.
use knights::count::CountSpec;
use knights::frontier::{self, Method};
use knights::{Board, Piece};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args[1].parse().expect("a board");
    let closed = args.get(2).is_some_and(|a| a == "closed");
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    };
    let len = board.rows.max(board.cols);
    let mut methods = vec![Method::Sweep, Method::Auto];
    if len <= 12 {
        methods.extend((1..len).map(Method::MeetAt));
    }
    for method in methods {
        let t = std::time::Instant::now();
        match frontier::count(board, &Piece::knight(), &spec, method) {
            Ok(c) => println!(
                "{board} {} {method:?}: {} in {:.3} s, peak {:?}",
                if closed { "closed" } else { "open" },
                c.directed,
                t.elapsed().as_secs_f64(),
                c.peak.map(|p| p.states)
            ),
            Err(e) => println!("{method:?}: {e}"),
        }
    }
}
