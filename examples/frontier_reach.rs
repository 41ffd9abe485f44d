//! Prints the frontier engine's up-front projection of a count (the reach check's: its largest
//! layer's states, the bytes of its tables and the seconds on this machine's threads) as one
//! JSON line: `cargo run --release --example frontier_reach -- 7x7 [closed]`.
use anyhow::{Context, bail};
use knights::count::CountSpec;
use knights::{Board, Piece, frontier};

fn main() -> anyhow::Result<()> {
    const USAGE: &str = "usage: frontier_reach BOARD [open|closed]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let board: Board = args.first().context(USAGE)?.parse()?;
    if let Some(other) = args[1..].iter().find(|a| *a != "open" && *a != "closed") {
        bail!("unknown argument {other:?}: {USAGE}");
    }
    let spec = CountSpec {
        closed: args.iter().any(|a| a == "closed"),
        symmetry: true,
        ..CountSpec::default()
    };
    let r = frontier::reach(board, &Piece::knight(), &spec)?;
    println!(
        "{{\"states\":{:.0},\"bytes\":{:.0},\"seconds\":{:.1}}}",
        r.states, r.bytes, r.seconds
    );
    Ok(())
}
