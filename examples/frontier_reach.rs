//! Prints the frontier engine's up-front projection of a count (the reach check's: its largest
//! layer's states, the bytes of its tables and the seconds on this machine's threads) as one
//! JSON line: `cargo run --release --example frontier_reach -- 7x7 [closed]`. With `sizes`, the
//! forward walk's layer sizes it is projected from instead, `squares:states` at each column
//! end, as a line of `tests/data/reach-sizes.tsv`.
use anyhow::{Context, bail};
use knights::count::CountSpec;
use knights::{Board, Piece, frontier};

fn main() -> anyhow::Result<()> {
    const USAGE: &str = "usage: frontier_reach BOARD [open|closed] [sizes]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let board: Board = args.first().context(USAGE)?.parse()?;
    if let Some(other) = args[1..]
        .iter()
        .find(|a| !["open", "closed", "sizes"].contains(&a.as_str()))
    {
        bail!("unknown argument {other:?}: {USAGE}");
    }
    let closed = args.iter().any(|a| a == "closed");
    let spec = CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    };
    if args.iter().any(|a| a == "sizes") {
        let sizes = frontier::reach_sizes(board, &Piece::knight(), &spec)?;
        let pairs: Vec<String> = sizes.iter().map(|(s, n)| format!("{s}:{n}")).collect();
        let kind = if closed { "closed" } else { "open" };
        println!("{board}\t{kind}\t{}", pairs.join(" "));
        return Ok(());
    }
    let r = frontier::reach(board, &Piece::knight(), &spec)?;
    println!(
        "{{\"states\":{:.0},\"bytes\":{:.0},\"seconds\":{:.2}}}",
        r.states, r.bytes, r.seconds
    );
    Ok(())
}
