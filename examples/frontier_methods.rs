//! Times the frontier engine's methods on one board: `cargo run --release --example
//! frontier_methods -- 6x6 [closed] [at=C ...] [depth=D] [leaf=N]` (every method, or meeting
//! at the columns given; the digit tree's pieces of depth D and leaves of N states, or the
//! engine's own).
use anyhow::{Context, bail};
use knights::count::CountSpec;
use knights::engine::TreeSize;
use knights::frontier::{self, Method};
use knights::{Board, Piece};

fn main() -> anyhow::Result<()> {
    const USAGE: &str = "usage: frontier_methods BOARD [closed] [at=C ...] [depth=D] [leaf=N]";
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args.get(1).context(USAGE)?.parse()?;
    let known = |a: &String| {
        a == "closed"
            || ["at=", "depth=", "leaf="]
                .iter()
                .any(|k| a.strip_prefix(k).is_some_and(|n| n.parse::<u32>().is_ok()))
    };
    if let Some(other) = args[2..].iter().find(|a| !known(a)) {
        bail!("unknown argument {other:?}: {USAGE}");
    }
    let closed = args.iter().any(|a| a == "closed");
    let value = |key: &str| {
        args.iter()
            .filter_map(|a| a.strip_prefix(key)?.parse::<u32>().ok())
            .collect::<Vec<u32>>()
    };
    let tree = TreeSize {
        depth: value("depth=").first().copied(),
        leaf_states: value("leaf=").first().map(|&n| u64::from(n)),
        tables: None,
        column_states: None,
    };
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
        match frontier::count_with(board, &Piece::knight(), &spec, method, tree) {
            Ok(c) => println!(
                "{board} {} {method:?} ({tree:?}): {} in {:.3} s, peak {:?}",
                if closed { "closed" } else { "open" },
                c.directed,
                t.elapsed().as_secs_f64(),
                c.peak.map(|p| (p.states, p.bytes))
            ),
            Err(e) => println!("{method:?}: {e}"),
        }
    }
    Ok(())
}
