//! Writes `results/frontier-table.md`, `results/frontier.csv` and `results/frontier.svg`: the frontier
//! engine on every board with short side 3 to 7 up to 64 squares, and on 3×n and 4×n up to
//! n = 100, open and closed: the count, the time of the whole command, the peak states and the
//! peak table bytes. Counts listed in `tests/data/counts.tsv` are checked against it; a board
//! that does not finish within the cap (or that the engine refuses as out of reach) is listed as
//! such, never dropped.
//!
//! Run with `cargo build --release && cargo run --release --example frontier_table` (optionally
//! `-- --cap SECONDS`, default 300, and `--quick` for the boards up to 40 squares only). Each
//! count runs as a child process (`target/release/knights count … --engine frontier --json`)
//! that is killed at the cap.

use std::fmt::Write as _;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use knights::Board;
use knights::bench::known;
use plotters::prelude::*;

/// One row of the table.
struct Row {
    rows: u32,
    cols: u32,
    closed: bool,
    /// The count, or why there is none.
    result: Result<Outcome, String>,
}

struct Outcome {
    count: String,
    seconds: f64,
    states: u64,
    bytes: u64,
    checked: bool,
}

fn binary() -> PathBuf {
    // target/release/examples/frontier_table -> target/release/knights
    let exe = std::env::current_exe().expect("the example's path");
    let bin = exe
        .parent()
        .and_then(|p| p.parent())
        .expect("target/release")
        .join("knights");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --release` first",
        bin.display()
    );
    bin
}

fn run(bin: &PathBuf, rows: u32, cols: u32, closed: bool, cap: Duration) -> Row {
    let board = format!("{rows}x{cols}");
    let mut cmd = Command::new(bin);
    cmd.args(["count", &board, "--engine", "frontier", "--json", "--quiet"]);
    if closed {
        cmd.arg("--closed");
    }
    let t0 = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("knights runs");
    let result = loop {
        if let Some(status) = child.try_wait().expect("a child") {
            let seconds = t0.elapsed().as_secs_f64();
            let (mut out, mut err) = (String::new(), String::new());
            child.stdout.take().unwrap().read_to_string(&mut out).ok();
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            if !status.success() {
                let why = err.trim().trim_start_matches("knights: ");
                let why = why.split(':').next().unwrap_or(why);
                break Err(why.to_string());
            }
            let v: serde_json::Value = serde_json::from_str(&out).expect("count's JSON");
            let figure = if closed { "undirected" } else { "directed" };
            let count = v[figure].to_string();
            let checked = match known::count(Board::new(rows, cols).expect("a board"), closed)
                .map(|n| n.to_string())
            {
                Some(k) => {
                    assert_eq!(k, count, "{board} {figure}: the table says {k}");
                    true
                }
                None => false,
            };
            break Ok(Outcome {
                count,
                seconds,
                states: v["peak_states"].as_u64().unwrap_or(0),
                bytes: v["peak_bytes"].as_u64().unwrap_or(0),
                checked,
            });
        }
        if t0.elapsed() > cap {
            child.kill().ok();
            child.wait().ok();
            break Err(format!("not finished in {} s", cap.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Row {
        rows,
        cols,
        closed,
        result,
    }
}

fn boards(quick: bool) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for r in 3..=7u32 {
        for c in r..=64 / r {
            if !quick || r * c <= 40 {
                out.push((r, c));
            }
        }
    }
    if !quick {
        for r in [3u32, 4] {
            for c in [24, 30, 40, 50, 60, 70, 80, 90, 100] {
                if r * c > 64 {
                    out.push((r, c));
                }
            }
        }
    }
    out
}

fn human_bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    format!("{x:.1} {}", units[u])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cap = args
        .iter()
        .position(|a| a == "--cap")
        .map_or(300, |i| args[i + 1].parse().expect("--cap SECONDS"));
    let quick = args.iter().any(|a| a == "--quick");
    let bin = binary();
    let mut table = Vec::new();
    for (r, c) in boards(quick) {
        for closed in [false, true] {
            let row = run(&bin, r, c, closed, Duration::from_secs(cap));
            match &row.result {
                Ok(o) => eprintln!(
                    "{r}x{c} {}: {} in {:.2} s, {} states",
                    if closed { "closed" } else { "open" },
                    o.count,
                    o.seconds,
                    o.states
                ),
                Err(e) => eprintln!("{r}x{c}: {e}"),
            }
            table.push(row);
        }
    }
    write_tables(&table, cap);
    plot(&table).expect("the plot");
}

fn write_tables(table: &[Row], cap: u64) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut md = String::new();
    let mut csv = String::from("rows,cols,kind,count,seconds,peak_states,peak_bytes,checked\n");
    writeln!(
        md,
        "| board | kind | count | time (s) | peak states | peak tables | checked |\n|---|---|---:|---:|---:|---:|---|"
    )
    .unwrap();
    for row in table {
        let kind = if row.closed { "closed" } else { "open" };
        match &row.result {
            Ok(o) => {
                writeln!(
                    md,
                    "| {}x{} | {kind} | {} | {:.2} | {} | {} | {} |",
                    row.rows,
                    row.cols,
                    o.count,
                    o.seconds,
                    o.states,
                    human_bytes(o.bytes),
                    if o.checked { "table" } else { "" }
                )
                .unwrap();
                writeln!(
                    csv,
                    "{},{},{kind},{},{:.3},{},{},{}",
                    row.rows, row.cols, o.count, o.seconds, o.states, o.bytes, o.checked
                )
                .unwrap();
            }
            Err(e) => {
                writeln!(md, "| {}x{} | {kind} | {e} | | | | |", row.rows, row.cols).unwrap();
                writeln!(csv, "{},{},{kind},,,,,", row.rows, row.cols).unwrap();
            }
        }
    }
    let page = format!(
        "# The frontier engine, board by board\n\n\
         Every board with short side 3 to 7 up to 64 squares, and 3×n, 4×n up to n = 100, open \
         (directed) and closed (undirected), counted by `knights count BOARD --engine frontier \
         --json` as a whole command on {threads} threads, with a cap of {cap} s a board. \
         \"checked\" marks counts equal to the published value in `tests/data/counts.tsv`; the \
         others are checked by the tests against the DFS (every board up to 40 squares) or are \
         new. Peak states is the largest layer (mirror images merged), peak tables the memory of \
         the tables at that point.\n\n\
         Reproduce with `cargo build --release && cargo run --release --example frontier_table` \
         (a CSV beside it: `results/frontier.csv`; the plot: `results/frontier.svg`).\n\n\
         ![time and peak states against board size](frontier.svg)\n\n{md}"
    );
    std::fs::write("results/frontier-table.md", page).expect("results/frontier-table.md");
    std::fs::write("results/frontier.csv", csv).expect("results/frontier.csv");
}

fn plot(table: &[Row]) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new("results/frontier.svg", (960, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(480);
    // counts a theorem settles (no states walked) are left out of the plot
    let done: Vec<(&Row, &Outcome)> = table
        .iter()
        .filter_map(|r| r.result.as_ref().ok().map(|o| (r, o)))
        .filter(|(_, o)| o.states > 0)
        .collect();
    let max_sq = done
        .iter()
        .map(|(r, _)| r.rows * r.cols)
        .max()
        .unwrap_or(10);
    let series = |closed: bool, short: &[u32], f: &dyn Fn(&Outcome) -> f64| -> Vec<(f64, f64)> {
        done.iter()
            .filter(|(r, _)| r.closed == closed && short.contains(&r.rows))
            .map(|(r, o)| (f64::from(r.rows * r.cols), f(o).max(1e-3)))
            .collect()
    };
    type Panel<'a, A> = (&'a A, &'a str, &'a dyn Fn(&Outcome) -> f64, f64, f64);
    let panels: [Panel<'_, _>; 2] = [
        (
            &left,
            "time of the whole count (s)",
            &|o| o.seconds,
            1e-3,
            1e3,
        ),
        (&right, "peak states", &|o| o.states as f64, 1.0, 1e9),
    ];
    let colours = [RED, BLUE, GREEN, MAGENTA, BLACK];
    for (area, title, f, lo, hi) in panels {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(
                (8.0..f64::from(max_sq) * 1.1).log_scale(),
                (lo..hi).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("squares")
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()?;
        for (i, short) in (3..=7u32).enumerate() {
            for closed in [false, true] {
                let pts = series(closed, &[short], f);
                if pts.is_empty() {
                    continue;
                }
                let c = colours[i];
                let label = format!("{short}×n {}", if closed { "closed" } else { "open" });
                let style = if closed {
                    c.stroke_width(1)
                } else {
                    c.stroke_width(2)
                };
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], style));
                if closed {
                    chart.draw_series(pts.iter().map(|&p| Cross::new(p, 3, c)))?;
                } else {
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 10))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
