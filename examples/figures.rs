//! Draws the pictures of `results/` that measure the engines, with their tables in
//! `results/figures.md`:
//! - `count-time.svg`: time of an exact count against board size (5×n open, n = 4 …), one line
//!   per engine (naive backtracking, the DFS on one thread and on every thread, the frontier
//!   engine), each stopped at a cap;
//! - `thread-scaling.svg`: the speedup of counts from 1 thread to every core;
//! - `tour-time.svg`: time to find one open tour against the board's side, from 8 to 10000, by
//!   `knights tour` (the construction), by Warnsdorff's rule with rotations
//!   (`--method warnsdorff`) and by one plain Warnsdorff walk.
//!
//! Every count is checked (against the known counts of `tests/data/counts.tsv` where listed,
//! and the engines against each other) and every tour verified before its time is kept.
//!
//! `cargo run --release --example figures` (under three minutes on two busy cores);
//! `-- --cap SECONDS` changes the cap of one count (default 20).

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use knights::bench::{TimedCount, known, plot::axis_time, table::human_time, time_count};
use knights::count::Engine;
use knights::count::report::group;
use knights::find::{FindOptions, Strategy, find_compact};
use knights::graph::Geometry;
use knights::heuristics::{Heuristic, Stop, Walker};
use knights::{Board, Piece, Tour};
use num_bigint::BigUint;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

const RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results");

/// One series of a log-log or log-linear plot: a name and its points.
type Series = (String, Vec<(f64, f64)>);

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let cap = args
        .iter()
        .position(|a| a == "--cap")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(20.0), |s| s.parse::<f64>())?;
    let cap = Duration::from_secs_f64(cap);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let t0 = Instant::now();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("unknown");
    let mut md = format!(
        "# Pictures: count time, thread scaling, tour time\n\n\
         Written by `cargo run --release --example figures` (`examples/figures.rs`), which also \
         draws the three SVG files beside this page. Machine: {cores} cores, shared (load average \
         {load} when it started), so single figures are noisy; what the pictures show is the \
         shape, by factors of ten. Every count was checked (known counts of \
         `tests/data/counts.tsv` where listed, and the engines against each other) and every \
         tour verified before its time was kept. A count is stopped after {} s.\n\n",
        cap.as_secs()
    );
    md += &count_time(cap, cores)?;
    md += &thread_scaling(cap, cores)?;
    md += &tour_time()?;
    let _ = writeln!(
        md,
        "Total time of this page: {:.0} s.",
        t0.elapsed().as_secs_f64()
    );
    std::fs::write(format!("{RESULTS}/figures.md"), md)?;
    println!("wrote results/figures.md, count-time.svg, thread-scaling.svg, tour-time.svg");
    Ok(())
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// The median of up to `runs` timed calls (fewer once they have taken a second together), or
/// `None` when one was stopped at the cap.
fn timed(runs: usize, mut f: impl FnMut() -> TimedCount) -> (Option<BigUint>, f64) {
    let mut times = Vec::new();
    let mut figure = None;
    for _ in 0..runs {
        let t = f();
        times.push(t.seconds);
        if t.figure.is_none() {
            return (None, t.seconds);
        }
        figure = t.figure;
        if times.iter().sum::<f64>() > 1.0 {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    (figure, times[times.len() / 2])
}

/// Checks a count against the known value, or against the engines that counted it before.
fn check(board: Board, closed: bool, got: &BigUint, seen: &mut BTreeMap<String, BigUint>) {
    if let Some(want) = known::count(board, closed) {
        assert_eq!(*got, want, "{board}: the known count");
    }
    let agreed = seen.entry(board.to_string()).or_insert_with(|| got.clone());
    assert_eq!(got, agreed, "{board}: the engines disagree");
}

fn count_time(cap: Duration, cores: usize) -> Result<String, Box<dyn Error>> {
    let engines = [
        ("naive backtracking", Engine::Naive, 1),
        ("dfs, 1 thread", Engine::Dfs, 1),
        ("dfs, every core", Engine::Dfs, cores),
        ("frontier, every core", Engine::Frontier, cores),
    ];
    let sides: Vec<u32> = (4..=12).collect();
    let mut seen = BTreeMap::new();
    let mut series: Vec<Series> = Vec::new();
    let mut cells: BTreeMap<(u32, usize), String> = BTreeMap::new();
    for (k, &(name, engine, threads)) in engines.iter().enumerate() {
        let p = pool(threads);
        let mut pts = Vec::new();
        for &n in &sides {
            let b = Board { rows: 5, cols: n };
            let naive_ok = engine != Engine::Naive || b.squares() <= 36;
            let dfs_ok = engine != Engine::Dfs || b.squares() <= 64;
            if !(naive_ok && dfs_ok) {
                break;
            }
            let (figure, secs) = timed(3, || {
                p.install(|| time_count(b, false, engine, cap).expect("a count the engine takes"))
            });
            let Some(figure) = figure else {
                cells.insert((n, k), format!("> {} (stopped)", human_time(secs)));
                break;
            };
            check(b, false, &figure, &mut seen);
            cells.insert((n, k), human_time(secs));
            pts.push((b.squares() as f64, secs));
            eprintln!("count {b} {name}: {}", human_time(secs));
        }
        series.push((name.to_string(), pts));
    }
    plot_lines(
        "count-time.svg",
        "Exact count of open tours on 5 x n, time against squares",
        "squares (5 x n, n = 4 ... 12)",
        &series,
        (18.0, 62.0),
        Axes::LinearLog,
    )?;
    let mut md = String::from(
        "## Count time against board size\n\n\
         Open tours of 5×n (directed count), one engine a column, median of up to three runs \
         (one past a second). Each engine stops at its first board past the cap; the naive engine \
         takes boards of up to 36 squares, the DFS up to 64.\n\n\
         ![count time against board size](count-time.svg)\n\n| board | tours |",
    );
    for (name, _, _) in &engines {
        let _ = write!(md, " {name} |");
    }
    md += "\n|---|---:|";
    md += &"---:|".repeat(engines.len());
    md.push('\n');
    for &n in &sides {
        let b = Board { rows: 5, cols: n };
        let tours = seen.get(&b.to_string()).map_or("-".into(), group);
        let _ = write!(md, "| {b} | {tours} |");
        for k in 0..engines.len() {
            let _ = write!(md, " {} |", cells.get(&(n, k)).map_or("-", String::as_str));
        }
        md.push('\n');
    }
    md.push('\n');
    Ok(md)
}

fn thread_scaling(cap: Duration, cores: usize) -> Result<String, Box<dyn Error>> {
    let b = |r, c| Board { rows: r, cols: c };
    let jobs = [
        ("dfs 6x6 open", b(6, 6), false, Engine::Dfs),
        ("dfs 5x8 open", b(5, 8), false, Engine::Dfs),
        ("dfs 6x7 closed", b(6, 7), true, Engine::Dfs),
        ("frontier 5x10 open", b(5, 10), false, Engine::Frontier),
    ];
    let threads: Vec<usize> = (1..=cores.max(2)).collect();
    let mut seen = BTreeMap::new();
    let mut series: Vec<Series> = Vec::new();
    let mut md = format!(
        "## Thread scaling, 1 to {} threads\n\n\
         Speedup of a count over the same count on one thread (time on 1 thread / time on t), \
         median of up to three runs. The dashed line is a perfect split. This machine has {cores} \
         cores shared with other work, so the split cannot be better than the idle share of them.\
         \n\n![thread scaling](thread-scaling.svg)\n\n| count | tours |",
        threads.len()
    );
    for t in &threads {
        let _ = write!(md, " {t} thread{} |", if *t == 1 { "" } else { "s" });
    }
    md += "\n|---|---:|";
    md += &"---:|".repeat(threads.len());
    md.push('\n');
    for (name, board, closed, engine) in jobs {
        let mut base = None;
        let mut pts = Vec::new();
        let mut row = String::new();
        let mut tours = String::from("-");
        for &t in &threads {
            let p = pool(t);
            let (figure, secs) = timed(3, || {
                p.install(|| time_count(board, closed, engine, cap * 3).expect("a count"))
            });
            let Some(figure) = figure else {
                let _ = write!(row, " > {} |", human_time(secs));
                continue;
            };
            check(board, closed, &figure, &mut seen);
            tours = group(&figure);
            let base = *base.get_or_insert(secs);
            pts.push((t as f64, base / secs));
            let _ = write!(row, " {} ({:.2}x) |", human_time(secs), base / secs);
            eprintln!("threads {name} {t}: {}", human_time(secs));
        }
        let _ = writeln!(md, "| {name} | {tours} |{row}");
        series.push((name.to_string(), pts));
    }
    md.push('\n');
    let n = threads.len() as f64;
    series.push(("perfect split".into(), vec![(1.0, 1.0), (n, n)]));
    plot_lines(
        "thread-scaling.svg",
        "Speedup of exact counts from 1 thread",
        "threads",
        &series,
        (1.0, n),
        Axes::Speedup,
    )?;
    Ok(md)
}

fn tour_time() -> Result<String, Box<dyn Error>> {
    let k = Piece::knight();
    let sides = [
        8u32, 16, 32, 64, 128, 256, 512, 1000, 2000, 4000, 7000, 10000,
    ];
    let methods: [(&str, Option<Strategy>, u32); 3] = [
        ("knights tour (construction)", Some(Strategy::Auto), 10_000),
        (
            "warnsdorff with rotations (--method warnsdorff)",
            Some(Strategy::Warnsdorff),
            2000,
        ),
        ("one plain warnsdorff walk", None, 1000),
    ];
    let mut series: Vec<Series> = Vec::new();
    let mut cells: BTreeMap<(u32, usize), String> = BTreeMap::new();
    for (m, &(name, strategy, largest)) in methods.iter().enumerate() {
        let mut pts = Vec::new();
        for &n in sides.iter().filter(|&&n| n <= largest) {
            let b = Board { rows: n, cols: n };
            let mut times = Vec::new();
            let mut note = "";
            if n <= 64 {
                // one untimed run first: the first call of a method sets up its tables
                let opts = FindOptions::new(false, None, 0);
                let _ = find_compact(b, &k, &opts.with_strategy(strategy.unwrap_or_default()));
            }
            while times.len() < 3 && times.iter().sum::<f64>() < 1.0 {
                let t0 = Instant::now();
                match strategy {
                    Some(s) => {
                        let opts = FindOptions::new(false, None, 0).with_strategy(s);
                        let found = find_compact(b, &k, &opts).expect("a tour");
                        times.push(t0.elapsed().as_secs_f64());
                        // checked by the library; checked again here, out of the clock
                        assert_eq!(found.tour.len() as u64, b.squares());
                        if n <= 512 {
                            Tour::verified(b, &k, found.tour.to_tour().path, false)
                                .expect("a valid tour");
                        }
                    }
                    None => {
                        let geo = Geometry::new(b, &k);
                        let walked = Walker::new(&geo).walk(Heuristic::Warnsdorff, 0, 0, 0, false);
                        times.push(t0.elapsed().as_secs_f64());
                        if walked.stop == Stop::Complete {
                            let path = walked.path.iter().map(|&i| b.square(i)).collect();
                            Tour::verified(b, &k, path, false).expect("a valid tour");
                        } else {
                            note = " (stuck)";
                        }
                    }
                }
            }
            times.sort_by(f64::total_cmp);
            let secs = times[times.len() / 2];
            eprintln!("tour {b} {name}: {}{note}", human_time(secs));
            cells.insert((n, m), format!("{}{note}", human_time(secs)));
            if note.is_empty() {
                pts.push((f64::from(n), secs));
            }
        }
        series.push((name.to_string(), pts));
    }
    plot_lines(
        "tour-time.svg",
        "One open tour from a1, time against the board's side",
        "side n of the n x n board",
        &series,
        (6.0, 14000.0),
        Axes::LogLog,
    )?;
    let mut md = String::from(
        "## Tour time against board side\n\n\
         One open tour of n×n from a1, median of up to three runs (one past a second), the \
         library call alone (no printing): `knights tour` builds it by the construction, \
         `--method warnsdorff` walks with rotations (boards of up to 4,000,000 squares), and one \
         plain Warnsdorff walk with ties to the first move in the fixed order (no backtracking: \
         \"stuck\" where it fails, and no point drawn). Every tour is checked by the library; \
         those up to 512×512 are verified again here.\n\n\
         ![tour time against board side](tour-time.svg)\n\n| side |",
    );
    for (name, _, _) in &methods {
        let _ = write!(md, " {name} |");
    }
    md += "\n|---:|";
    md += &"---:|".repeat(methods.len());
    md.push('\n');
    for &n in &sides {
        let _ = write!(md, "| {n} |");
        for m in 0..methods.len() {
            let _ = write!(md, " {} |", cells.get(&(n, m)).map_or("-", String::as_str));
        }
        md.push('\n');
    }
    md.push('\n');
    Ok(md)
}

/// The scales of a plot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Axes {
    /// Seconds (log) against a linear x.
    LinearLog,
    /// Seconds (log) against a log x.
    LogLog,
    /// Speedup (linear) against threads (linear).
    Speedup,
}

/// A line plot of `series` into `results/FILE` on the given scales.
fn plot_lines(
    file: &str,
    caption: &str,
    x_desc: &str,
    series: &[Series],
    x_range: (f64, f64),
    axes: Axes,
) -> Result<(), Box<dyn Error>> {
    let path = format!("{RESULTS}/{file}");
    let root = SVGBackend::new(&path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let palette = [
        RGBColor(120, 120, 120),
        RGBColor(31, 78, 153),
        RGBColor(86, 150, 220),
        RGBColor(46, 139, 87),
        RGBColor(192, 57, 43),
        RGBColor(142, 68, 173),
    ];
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .collect();
    let (lo, hi) = (
        ys.iter().copied().fold(f64::INFINITY, f64::min),
        ys.iter().copied().fold(0.0, f64::max),
    );
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70);
    if axes == Axes::Speedup {
        let mut chart =
            builder.build_cartesian_2d(x_range.0..x_range.1, 0f64..(hi * 1.15).max(1.2))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("speedup over 1 thread")
            .x_labels(x_range.1 as usize)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        for (k, (name, pts)) in series.iter().enumerate() {
            let c = palette[k % palette.len()];
            let dashed = name == "perfect split";
            let style = if dashed {
                BLACK.stroke_width(1)
            } else {
                c.stroke_width(2)
            };
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), style))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            if !dashed {
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    } else {
        let y_lo = 10f64.powf(lo.log10().floor());
        let y_hi = 10f64.powf(hi.log10().ceil()).max(y_lo * 10.0);
        let y = (y_lo..y_hi).log_scale();
        if axes == Axes::LogLog {
            let chart = builder.build_cartesian_2d((x_range.0..x_range.1).log_scale(), y)?;
            draw_time_lines(chart, x_desc, series, &palette)?;
        } else {
            let chart = builder.build_cartesian_2d(x_range.0..x_range.1, y)?;
            draw_time_lines(chart, x_desc, series, &palette)?;
        }
    }
    root.present()?;
    Ok(())
}

/// The mesh, lines, points and legend of a plot of seconds, whatever its x scale.
fn draw_time_lines<'a, X, Y>(
    mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    x_desc: &str,
    series: &[Series],
    palette: &[RGBColor],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("seconds")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| axis_time(*y))
        .draw()
        .map_err(|e| e.to_string())?;
    for (k, (name, pts)) in series.iter().enumerate() {
        let c = palette[k % palette.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}
