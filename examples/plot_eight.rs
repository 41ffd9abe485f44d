//! Draws `results/eight.svg` from `results/eight.csv`: peak resident memory and wall time of a
//! frontier count against the number of pieces it was cut into by the earlier cut (`--pieces N`,
//! since replaced by the digit tree), one series per count (7x7 open, 8x8 closed); and, given
//! `bounds`, `results/bounds.svg`: peak resident memory and CPU time of the digit tree's counts
//! against `--max-memory` (written by `scripts/measure-bounds.sh`; `default`, the machine's three
//! quarters, is drawn at 18 GiB), those of the builds that send their tables to disk
//! (`results/disk.csv`, from the floor of each count up) in full lines, over those of before
//! (`results/bounds.csv`, and `results/bounds-colours.csv` where the colour rule of the path's
//! ends measured a count again) in thin dashed ones that stop where those builds refused the
//! bound. Given `disk`, `results/disk.svg` from `results/disk.csv`: wall time and peak resident
//! memory of the counts whose tables go to disk past half the bound, against `--max-memory` (the
//! rows of the build before the tables went to disk left out; of two runs at one point, the
//! later). The bounds' plots have both axes logarithmic, as the small bounds and the small
//! counts are where the dial matters; the legend is below the panels, clear of the data.
//! The figures are whole commands measured with the system's `time` (`results/eight.md` and
//! `results/disk.md` have the commands).
//! `cargo run --release --example plot_eight [bounds|disk]`.

use std::collections::BTreeMap;
use std::error::Error;

use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

// one colour a count, the same in both panels and the legend below them
use knights::bench::plot::PALETTE;

const RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/");

/// Where `default` is drawn on the bound axis (MiB): three quarters of this machine's 24 GiB.
const DEFAULT_MIB: f64 = 18.0 * 1024.0;

/// Points `(pieces, value)` of each count, for the column `name`.
type Series = BTreeMap<String, Vec<(f64, f64)>>;

/// The series of one CSV file, drawn full or thin and dashed (an earlier build's figures).
struct Drawn {
    series: Series,
    earlier: bool,
}

fn read(text: &str, x: &str, name: &str) -> Result<Series, Box<dyn Error>> {
    // a file with a disk column: the rows of builds that send tables to disk (the build
    // before wrote none), the last of each count and bound
    let disk = text
        .lines()
        .next()
        .and_then(|h| h.split(',').position(|c| c == "disk_mib"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty csv")?.split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|&h| h == n)
            .ok_or(format!("no column {n}"))
    };
    let (count_at, pieces_at, value_at) = (col("count")?, col(x)?, col(name)?);
    let mut series = Series::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if disk.is_some_and(|at| f.get(at).is_none_or(|d| d.is_empty())) {
            continue;
        }
        let p = if f[pieces_at] == "default" {
            Ok(DEFAULT_MIB)
        } else {
            f[pieces_at].parse::<f64>()
        };
        let (Ok(p), Ok(v)) = (p, f[value_at].parse::<f64>()) else {
            continue;
        };
        series
            .entry(f[count_at].to_string())
            .or_default()
            .push((p, v));
    }
    for pts in series.values_mut() {
        // (a stable sort: of two runs at one point, the later is kept)
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.reverse();
        pts.dedup_by(|a, b| a.0 == b.0);
        pts.reverse();
    }
    Ok(series)
}

/// The x axis: its description and range (logarithmic).
struct Axis {
    desc: &'static str,
    from: f64,
    to: f64,
    /// Whether the y axis is logarithmic too.
    log_y: bool,
}

/// The counts drawn, in the order of their colours.
fn names(drawn: &[Drawn]) -> Vec<String> {
    let names: std::collections::BTreeSet<&String> =
        drawn.iter().flat_map(|d| d.series.keys()).collect();
    names.into_iter().cloned().collect()
}

/// Whether the series `name` of `d` is an earlier figure that a later file measured again
/// (drawn thin and dashed).
fn superseded(drawn: &[Drawn], at: usize, name: &String) -> bool {
    drawn[at].earlier && drawn[at + 1..].iter().any(|o| o.series.contains_key(name))
}

/// One panel, both axes logarithmic (the small bounds and the small counts are where the dial
/// matters), its legend left to the strip below the panels.
fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    drawn: &[Drawn],
    axis: &Axis,
    title: &str,
    unit: &str,
) -> Result<(), Box<dyn Error>> {
    let values = || {
        drawn
            .iter()
            .flat_map(|d| d.series.values().flatten())
            .map(|p| p.1)
    };
    let top = values().fold(0.0f64, f64::max) * if axis.log_y { 1.3 } else { 1.15 };
    let bottom = values().fold(f64::INFINITY, f64::min) / 1.3;
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60);
    let x = (axis.from..axis.to).log_scale();
    // the bounds' plots draw counts orders apart, the pieces' plot (`eight`) two counts one
    // order apart: a linear y axis for that one
    if axis.log_y {
        draw(
            builder.build_cartesian_2d(x, (bottom..top).log_scale())?,
            drawn,
            axis,
            unit,
        )
    } else {
        draw(builder.build_cartesian_2d(x, 0.0..top)?, drawn, axis, unit)
    }
}

/// The mesh and the series of a panel, on either kind of y axis.
fn draw<'a, Y>(
    mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<LogCoord<f64>, Y>>,
    drawn: &[Drawn],
    axis: &Axis,
    unit: &str,
) -> Result<(), Box<dyn Error>>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(axis.desc)
        .y_desc(unit)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| {
            if *y >= 10.0 || y.fract() == 0.0 {
                format!("{y:.0}")
            } else {
                format!("{y:.1}")
            }
        })
        .draw()?;
    let names = names(drawn);
    let colour_of = |name: &String| {
        let k = names.iter().position(|n| n == name).unwrap_or(0);
        PALETTE[k % PALETTE.len()]
    };
    for (at, d) in drawn.iter().enumerate() {
        for (name, pts) in &d.series {
            let colour = colour_of(name);
            if superseded(drawn, at, name) {
                chart.draw_series(DashedLineSeries::new(
                    pts.iter().copied(),
                    6,
                    4,
                    colour.mix(0.6).stroke_width(1),
                ))?;
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.mix(0.6))))?;
            } else {
                chart.draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?;
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
            }
        }
    }
    Ok(())
}

/// The legend, outside the panels: one entry a count in its colour, and what a dashed line is
/// where the picture has any.
fn legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    drawn: &[Drawn],
    dashed: &str,
) -> Result<(), Box<dyn Error>> {
    let font = ("sans-serif", 14).into_font().color(&BLACK);
    let names = names(drawn);
    for (k, name) in names.iter().enumerate() {
        let (x, y) = (70 + 170 * (k as i32 % 6), 18 + 22 * (k as i32 / 6));
        let c = PALETTE[k % PALETTE.len()];
        area.draw(&PathElement::new(
            vec![(x, y), (x + 24, y)],
            c.stroke_width(3),
        ))?;
        area.draw(&Text::new(
            name.clone(),
            (x + 30, y),
            font.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    let any_dashed = drawn
        .iter()
        .enumerate()
        .any(|(at, d)| d.series.keys().any(|n| superseded(drawn, at, n)));
    if any_dashed {
        let y = 18 + 22 * (names.len().div_ceil(6) as i32);
        let g = RGBColor(90, 90, 90);
        for i in 0..3 {
            area.draw(&PathElement::new(
                vec![(70 + 10 * i, y), (76 + 10 * i, y)],
                g.mix(0.6).stroke_width(1),
            ))?;
        }
        area.draw(&Text::new(
            dashed.to_string(),
            (100, y),
            font.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let which = std::env::args().nth(1);
    let (bounds, disk) = match which.as_deref() {
        None => (false, false),
        Some("bounds") => (true, false),
        Some("disk") => (true, true),
        Some(other) => {
            eprintln!(
                "plot_eight: unknown plot {other:?}: none (results/eight.svg), bounds (results/bounds.svg) or disk (results/disk.svg)"
            );
            std::process::exit(2);
        }
    };
    let (name, axis, memory, time) = if disk {
        (
            "disk",
            Axis {
                desc: "--max-memory (MiB; default drawn at 18 GiB)",
                from: 20.0,
                to: 30000.0,
                log_y: true,
            },
            ("peak_mib", "peak resident memory", "MiB"),
            ("wall_s", "wall time, 2 threads", "seconds"),
        )
    } else if bounds {
        (
            "bounds",
            Axis {
                desc: "--max-memory (MiB; default drawn at 18 GiB)",
                from: 20.0,
                to: 30000.0,
                log_y: true,
            },
            ("peak_mib", "peak resident memory", "MiB"),
            ("cpu_s", "CPU time (user + system), 2 threads", "seconds"),
        )
    } else {
        (
            "eight",
            Axis {
                desc: "pieces (--pieces N, the earlier cut)",
                from: 0.8,
                to: 64.0,
                log_y: false,
            },
            ("peak_rss_gib", "peak resident memory", "GiB"),
            ("wall_s", "wall time, 2 threads", "seconds"),
        )
    };
    // the earlier figures first, then those of the build now: for `bounds`, the counts of
    // before the tables went to disk (`bounds.csv`, and where the colour rule measured a count
    // again, `bounds-colours.csv`), under those of the builds that send them to disk from the
    // floor up (`disk.csv`)
    let files: Vec<(Vec<&str>, bool)> = match name {
        "bounds" => vec![
            (vec!["bounds", "bounds-colours"], true),
            (vec!["disk"], false),
        ],
        _ => vec![(vec![name], false)],
    };
    let texts = files
        .iter()
        .map(|(fs, earlier)| {
            let texts = fs
                .iter()
                .map(|f| std::fs::read_to_string(format!("{RESULTS}{f}.csv")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((texts, *earlier))
        })
        .collect::<Result<Vec<_>, Box<dyn Error>>>()?;
    let svg = format!("{RESULTS}{name}.svg");
    let root = SVGBackend::new(&svg, (1100, 580)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(500);
    let (left, right) = top.split_horizontally(550);
    let x = if bounds { "bound_mib" } else { "pieces" };
    let drawn = |column: &str| {
        texts
            .iter()
            .map(|(texts, earlier)| {
                // of two files of one generation, the later's series of a count wins
                let mut series = Series::new();
                for text in texts {
                    series.extend(read(text, x, column)?);
                }
                Ok(Drawn {
                    series,
                    earlier: *earlier,
                })
            })
            .collect::<Result<Vec<_>, Box<dyn Error>>>()
    };
    panel(&left, &drawn(memory.0)?, &axis, memory.1, memory.2)?;
    panel(&right, &drawn(time.0)?, &axis, time.1, time.2)?;
    legend(
        &bottom,
        &drawn(memory.0)?,
        "dashed: before the tables went to disk past half the bound (refused below the points)",
    )?;
    root.present()?;
    println!("wrote {svg}");
    Ok(())
}
