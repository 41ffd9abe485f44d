//! Prints the frontier walk's layer sizes at each column end, and the reach check's projection:
//! `cargo run --release --example frontier_profile -- 7x7 [closed] [squares] [max-states]`;
//! with `squares`, the size after every square instead, a column a line.
use anyhow::{Context, bail};
use knights::count::CountSpec;
use knights::{Board, Piece, frontier};

fn main() -> anyhow::Result<()> {
    const USAGE: &str = "usage: frontier_profile BOARD [closed] [squares] [MAX-STATES]";
    let args: Vec<String> = std::env::args().collect();
    let board: Board = args.get(1).context(USAGE)?.parse()?;
    if let Some(other) = args[2..]
        .iter()
        .find(|a| *a != "closed" && *a != "squares" && a.parse::<u64>().is_err())
    {
        bail!("unknown argument {other:?}: {USAGE}");
    }
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
        let s = frontier::profile_squares(board, &Piece::knight(), &spec, max)?;
        println!("{board} {kind}");
        for (c, col) in s[1..].chunks(w).enumerate() {
            println!("  {}: {col:?}", c + 1);
        }
        return Ok(());
    }
    let t = std::time::Instant::now();
    let p = frontier::profile(board, &Piece::knight(), &spec, max)?;
    println!("{board} {kind}: {p:?} ({:.2} s)", t.elapsed().as_secs_f64());
    let r = frontier::reach(board, &Piece::knight(), &spec)?;
    println!(
        "  reach: {:.2e} states, {:.2e} bytes, {:.0} s",
        r.states, r.bytes, r.seconds
    );
    Ok(())
}
