//! The figures of `results/sampling.md`: the chain's mixing (autocorrelations), the uniformity
//! tests of both samplers, and the heat map of the start squares of sampled 8x8 tours
//! (`results/sampling-heat.svg`). `cargo run --release --example sampling_study [quick]`.

use std::collections::HashMap;
use std::time::Instant;

use knights::board::Board;
use knights::count::{self, CountSpec, Engine};
use knights::find::{FindOptions, find_tour};
use knights::sample::chain::{Chain, Moves};
use knights::sample::stats::{chi_square, chi_square_tail, cycle_key, straight_triples};
use knights::sample::{Method, Options, Sampler, chain_thin};
use knights::{Piece, Square};
use plotters::prelude::*;

fn board(s: &str) -> Board {
    s.parse().unwrap()
}

/// Autocorrelation of `x` at `lag`.
fn acf(x: &[f64], lag: usize) -> f64 {
    let n = x.len() - lag;
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let v = x.iter().map(|a| (a - m).powi(2)).sum::<f64>() / x.len() as f64;
    (0..n).map(|i| (x[i] - m) * (x[i + lag] - m)).sum::<f64>() / n as f64 / v
}

fn mixing(name: &str, closed: bool, units: usize) {
    let b = board(name);
    let piece = Piece::knight();
    let t = find_tour(b, &piece, &FindOptions::new(closed, None, 0))
        .unwrap()
        .tour;
    let path: Vec<u32> = t.path.iter().map(|&s| b.index(s)).collect();
    let moves = Moves::new(b, &piece);
    let mut c = Chain::new(path, closed, false, 1);
    let n = b.squares();
    c.advance(&moves, 200 * n);
    let mut tri = Vec::with_capacity(units);
    let mut other = Vec::with_capacity(units);
    let centre = (f64::from(b.rows - 1) / 2.0, f64::from(b.cols - 1) / 2.0);
    let t0 = Instant::now();
    for _ in 0..units {
        c.advance(&moves, 1);
        let sq: Vec<Square> = c.path().iter().map(|&i| b.square(i)).collect();
        tri.push(f64::from(straight_triples(&sq, closed)));
        other.push(if closed {
            // moves two ranks up or down
            (0..sq.len())
                .filter(|&i| sq[i].row.abs_diff(sq[(i + 1) % sq.len()].row) == 2)
                .count() as f64
        } else {
            // the distance of an end (either, by the coin of the print) from the centre
            let e = sq[0];
            (f64::from(e.row) - centre.0).hypot(f64::from(e.col) - centre.1)
        });
    }
    let secs = t0.elapsed().as_secs_f64();
    let unit = if closed { "closable paths" } else { "moves" };
    let lags: Vec<usize> = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
        .into_iter()
        .filter(|&l| l < units / 10)
        .collect();
    println!(
        "\n{name} {} ({units} {unit} after a burn-in of {} moves, {:.2} s):\n",
        if closed { "closed" } else { "open" },
        200 * n,
        secs
    );
    println!(
        "| lag ({unit}) | {} |",
        lags.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(lags.len()));
    let second = if closed {
        "vertical moves"
    } else {
        "end's distance from the centre"
    };
    for (label, x) in [("straight triples", &tri), (second, &other)] {
        println!(
            "| {label} | {} |",
            lags.iter()
                .map(|&l| format!("{:.3}", acf(x, l)))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    println!("\ndefault thinning: {} {unit}", chain_thin(n, closed));
}

fn uniformity() {
    println!("\n## Uniformity tests (the fixed seeds of `tests/all/sampling.rs`)\n");
    println!("| test | draws | cells | chi-square | df | p |");
    println!("|---|---|---|---|---|---|");
    let piece = Piece::knight();
    // 5x5 open, every tour
    for (tables, seed) in [
        (knights::sample::Tables::Layers, 1),
        (knights::sample::Tables::Search, 2),
    ] {
        let b = board("5x5");
        let mut o = Options::new(false, None, seed).with_method(Method::Exact);
        o.tables = tables;
        let mut s = Sampler::new(b, &piece, &o).unwrap();
        let mut seen: HashMap<Vec<Square>, u64> = HashMap::new();
        for t in s.draw(50_000).unwrap() {
            *seen.entry(t.path).or_default() += 1;
        }
        let mut obs: Vec<u64> = seen.values().copied().collect();
        obs.resize(1728, 0);
        let x = chi_square(&obs, &[50_000.0 / 1728.0; 1728]);
        println!(
            "| 5x5 open, exact ({tables:?}), every directed tour | 50,000 | 1,728 | {x:.1} | 1727 | {:.3} |",
            chi_square_tail(1727.0, x)
        );
    }
    for (method, seed) in [(Method::Exact, 3), (Method::Chain, 12)] {
        let b = board("6x6");
        let mut s = Sampler::new(
            b,
            &piece,
            &Options::new(true, None, seed).with_method(method),
        )
        .unwrap();
        let mut seen: HashMap<Vec<u32>, u64> = HashMap::new();
        for t in s.draw(50_000).unwrap() {
            *seen.entry(cycle_key(b, &t.path)).or_default() += 1;
        }
        let mut obs: Vec<u64> = seen.values().copied().collect();
        let reached = obs.len();
        obs.resize(9862, 0);
        let x = chi_square(&obs, &[50_000.0 / 9862.0; 9862]);
        println!(
            "| 6x6 closed, {method:?}, every cycle ({reached} reached) | 50,000 | 9,862 | {x:.1} | 9861 | {:.3} |",
            chi_square_tail(9861.0, x)
        );
    }
    for (name, method, seed) in [
        ("6x6", Method::Exact, 4),
        ("5x8", Method::Exact, 5),
        ("3x12", Method::Exact, 6),
        ("5x6", Method::Chain, 9),
        ("6x6", Method::Chain, 10),
    ] {
        let b = board(name);
        let counts = count::count(
            b,
            &piece,
            &CountSpec {
                symmetry: true,
                per_square: true,
                ..CountSpec::default()
            },
            Engine::Dfs,
        )
        .unwrap()
        .per_square
        .unwrap();
        let mut s = Sampler::new(
            b,
            &piece,
            &Options::new(false, None, seed).with_method(method),
        )
        .unwrap();
        let n = 20_000;
        let mut seen = vec![0u64; counts.len()];
        for t in s.draw(n).unwrap() {
            seen[b.index(t.path[0]) as usize] += 1;
        }
        let total: u64 = counts.iter().sum();
        let exp: Vec<f64> = counts
            .iter()
            .map(|&c| c as f64 * n as f64 / total as f64)
            .collect();
        let df = counts.iter().filter(|&&c| c > 0).count() as f64 - 1.0;
        let x = chi_square(&seen, &exp);
        println!(
            "| {name} open, {method:?}, start squares against `count --per-square` | 20,000 | {} | {x:.1} | {df} | {:.3} |",
            df + 1.0,
            chi_square_tail(df, x)
        );
    }
}

fn heat_map(samples: usize) {
    let b = board("8x8");
    let piece = Piece::knight();
    let mut s = Sampler::new(
        b,
        &piece,
        &Options::new(false, None, 2024).with_method(Method::Chain),
    )
    .unwrap();
    let t0 = Instant::now();
    let mut starts = vec![0u64; 64];
    let mut left = samples;
    while left > 0 {
        let k = left.min(8192);
        for t in s.draw(k).unwrap() {
            starts[b.index(t.path[0]) as usize] += 1;
        }
        left -= k;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "\n## 8x8 start squares ({samples} chain samples, {:.1} s, {:.0} tours/s with verification)\n",
        secs,
        samples as f64 / secs
    );
    println!("per mille of the samples starting on each square (rank 8 at the top):\n");
    println!("| | a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|---|");
    for r in (0..8).rev() {
        let row: Vec<String> = (0..8)
            .map(|c| format!("{:.1}", starts[r * 8 + c] as f64 * 1000.0 / samples as f64))
            .collect();
        println!("| {} | {} |", r + 1, row.join(" | "));
    }
    let max = *starts.iter().max().unwrap() as f64;
    let root = SVGBackend::new("results/sampling-heat.svg", (520, 560)).into_drawing_area();
    root.fill(&WHITE).unwrap();
    let (title, area) = root.split_vertically(40);
    title
        .draw_text(
            &format!("8x8 open tours: start squares of {samples} chain samples"),
            &("sans-serif", 16).into_font().color(&BLACK),
            (20, 14),
        )
        .unwrap();
    let cell = 60;
    for r in 0..8 {
        for c in 0..8 {
            let v = starts[r * 8 + c] as f64 / max;
            let colour = RGBColor(
                255,
                (255.0 * (1.0 - v)) as u8,
                (255.0 * (1.0 - v) * 0.6) as u8,
            );
            let (x, y) = (20 + c as i32 * cell, 10 + (7 - r as i32) * cell);
            area.draw(&Rectangle::new(
                [(x, y), (x + cell, y + cell)],
                colour.filled(),
            ))
            .unwrap();
            area.draw(&Rectangle::new(
                [(x, y), (x + cell, y + cell)],
                BLACK.stroke_width(1),
            ))
            .unwrap();
            area.draw(&Text::new(
                format!("{:.1}", starts[r * 8 + c] as f64 * 1000.0 / samples as f64),
                (x + 14, y + 22),
                ("sans-serif", 14).into_font().color(&BLACK),
            ))
            .unwrap();
        }
    }
    for c in 0..8 {
        area.draw(&Text::new(
            ((b'a' + c as u8) as char).to_string(),
            (20 + c * cell + 26, 10 + 8 * cell + 6),
            ("sans-serif", 14).into_font().color(&BLACK),
        ))
        .unwrap();
    }
    root.present().unwrap();
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let k = if quick { 10 } else { 1 };
    println!("## Mixing of the chain");
    mixing("6x6", false, 400_000 / k);
    mixing("8x8", false, 400_000 / k);
    mixing("6x6", true, 100_000 / k);
    mixing("8x8", true, 100_000 / k);
    uniformity();
    heat_map(200_000 / k);
}
