//! Times the frontier engine's methods on one board: `cargo run --release --example
//! frontier_methods -- 6x6 [closed] [at=C ...] [pieces=N]` (every method, or meeting at the
//! columns given; one piece, or N).
use knights::count::CountSpec;
use knights::frontier::{self, Method};
use knights::{Board, Piece};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args[1].parse().expect("a board");
    let closed = args.iter().any(|a| a == "closed");
    let value = |key: &str| {
        args.iter()
            .filter_map(|a| a.strip_prefix(key)?.parse::<u32>().ok())
            .collect::<Vec<u32>>()
    };
    let pieces = value("pieces=").first().map(|&n| n as usize).unwrap_or(1);
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    };
    let len = board.rows.max(board.cols);
    let at = value("at=");
    let methods: Vec<Method> = if at.is_empty() {
        let mut m = vec![Method::Sweep, Method::Auto];
        if len <= 12 {
            m.extend((1..len).map(Method::MeetAt));
        }
        m
    } else {
        at.into_iter().map(Method::MeetAt).collect()
    };
    for method in methods {
        let t = std::time::Instant::now();
        match frontier::count_with(board, &Piece::knight(), &spec, method, Some(pieces)) {
            Ok(c) => println!(
                "{board} {} {method:?} in {pieces} piece(s): {} in {:.3} s, peak {:?}",
                if closed { "closed" } else { "open" },
                c.directed,
                t.elapsed().as_secs_f64(),
                c.peak.map(|p| (p.states, p.bytes))
            ),
            Err(e) => println!("{method:?}: {e}"),
        }
    }
}
