//! Counts chosen pieces of a frontier count cut as a grid (left parts by a hash of the left
//! half's states, right prefixes by the boundary's first digits), one line each: for measuring
//! the pieces of a count too large to run whole (8×8 open: `results/eight.md`).
//!
//! ```sh
//! cargo run --release --example grid_pieces -- 8x8 --left-parts 16 --digits 3 --sample 6 --seed 1
//! cargo run --release --example grid_pieces -- 8x8 --digits 2 --right-sizes
//! cargo run --release --example grid_pieces -- 6x6 --closed --left-parts 2 --digits 2 --all
//! ```
//!
//! `--all` counts every piece and prints the sum (undirected); `--sample N` counts N pieces
//! drawn at random without replacement (`--seed`), of left part A alone with `--part A`;
//! `--pieces I,J,..` the pieces named (piece `i` is left part `i mod L`, prefix `i / L`);
//! `--right-sizes` only walks the right half's prefixes and prints their states.

use std::time::Instant;

use knights::count::CountSpec;
use knights::engine::Observer;
use knights::frontier::{self, Grid};
use knights::{Board, Piece};
use num_bigint::BigUint;

/// Each stage of a piece on stderr, with the seconds since the start.
struct Log(Instant);

impl Observer for Log {
    fn info(&self, message: &str) {
        eprintln!("[{:.0} s] {message}", self.0.elapsed().as_secs_f64());
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let board: Board = args
        .first()
        .ok_or_else(|| anyhow::anyhow!("usage: grid_pieces BOARD [--closed] --left-parts L --digits D (--all | --sample N [--seed S] | --pieces I,J)"))?
        .parse()?;
    let piece: Piece = value("--piece")
        .unwrap_or_else(|| "knight".into())
        .parse()?;
    let spec = CountSpec {
        closed: args.iter().any(|a| a == "--closed"),
        from: None,
        to: None,
        symmetry: true,
        per_square: false,
    };
    let grid = Grid {
        left_parts: value("--left-parts").map_or(Ok(1), |v| v.parse())?,
        digits: value("--digits").map_or(Ok(0), |v| v.parse())?,
        leaf_states: value("--leaf-states").map_or(Ok(1 << 22), |v| v.parse())?,
    };
    // the bound on the whole process, in GiB (default: as `count` takes it)
    let max_memory = match value("--max-memory-gib") {
        Some(v) => (v.parse::<f64>()? * (1u64 << 30) as f64) as u64,
        None => knights::engine::default_max_memory(),
    };
    if args.iter().any(|a| a == "--right-sizes") {
        // the right half's states by prefix, no piece counted
        println!("prefix\tright_states\tseconds");
        let sizes = frontier::grid_right_sizes(board, &piece, &spec, grid.digits, max_memory)?;
        for (b, states, seconds) in sizes {
            println!("{b}\t{states}\t{seconds:.1}");
        }
        return Ok(());
    }
    let n = grid.pieces();
    let which: Vec<u64> = if args.iter().any(|a| a == "--all") {
        (0..n).collect()
    } else if let Some(list) = value("--pieces") {
        list.split(',')
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?
    } else {
        let k: u64 = value("--sample").map_or(Ok(1), |v| v.parse())?;
        let seed: u64 = value("--seed").map_or(Ok(1), |v| v.parse())?;
        let mut rng = fastrand::Rng::with_seed(seed);
        // `--part A`: the pieces of left part A alone (they share its walk)
        let prefixes = 3u64.pow(grid.digits);
        let mut all: Vec<u64> = match value("--part") {
            Some(a) => {
                let a: u64 = a.parse()?;
                let parts = u64::from(grid.left_parts);
                (0..prefixes).map(|b| a + parts * b).collect()
            }
            None => (0..n).collect(),
        };
        rng.shuffle(&mut all);
        all.truncate(k as usize);
        // pieces of one left part in a row share its walk
        all.sort_unstable_by_key(|&i| grid.piece(i));
        all
    };
    println!(
        "# {board} {} {piece}, grid of {} left parts x 3^{} prefixes = {n} pieces, {} threads",
        if spec.closed { "closed" } else { "open" },
        grid.left_parts,
        grid.digits,
        rayon::current_num_threads()
    );
    println!(
        "piece\tleft_part\tprefix\tcount\tleft_states\tright_states\tleaves\tretries\tcrossing_peak\tcrossing_end\ttable_bytes\tleft_s\tright_s\tcrossing_s\tjoin_s\tseconds"
    );
    let t = Instant::now();
    let mut total = BigUint::ZERO;
    let mut pieces_seconds = 0.0;
    let log = Log(t);
    frontier::count_grid(
        board,
        &piece,
        &spec,
        grid,
        &which,
        max_memory,
        &log,
        &mut |p| {
            let (a, b) = grid.piece(p.index);
            println!(
                "{}\t{a}\t{b}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.2}\t{:.2}\t{:.2}\t{:.2}\t{:.2}",
                p.index,
                p.count,
                p.left_states,
                p.right_states,
                p.leaves,
                p.retries,
                p.crossing_peak,
                p.crossing_end,
                p.table_bytes,
                p.left_seconds,
                p.right_seconds,
                p.crossing_seconds,
                p.join_seconds,
                p.seconds
            );
            total += &p.count;
            pieces_seconds += p.seconds;
        },
    )?;
    let all = t.elapsed().as_secs_f64();
    println!(
        "# {} pieces: sum {total} (undirected), {:.1} s in all, {:.1} s of them the shared walks",
        which.len(),
        all,
        all - pieces_seconds
    );
    Ok(())
}
