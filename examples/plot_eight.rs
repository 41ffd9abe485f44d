//! Draws `results/eight.svg` from `results/eight.csv`: peak resident memory and wall time of a
//! frontier count against the number of pieces it was cut into by the earlier cut (`--pieces N`,
//! since replaced by the digit tree), one series per count (7x7 open, 8x8 closed); and, given
//! `bounds`, `results/bounds.svg` from `results/bounds.csv` and `results/bounds-colours.csv`:
//! peak resident memory and CPU time of the digit tree's counts against `--max-memory` (written
//! by `scripts/measure-bounds.sh`; `default`, the machine's three quarters, is drawn at 18 GiB),
//! the counts measured before the colour rule of the path's ends in thin dashed lines and those
//! measured with it in full ones (closed counts have no ends: theirs are the earlier figures,
//! full). Given `disk`, `results/disk.svg` from `results/disk.csv`: wall time and peak resident
//! memory of the counts whose tables go to disk past half the bound, against `--max-memory` (the
//! rows of the build before the tables went to disk left out; of two runs at one point, the
//! later).
//! The figures are whole commands measured with the system's `time` (`results/eight.md` and
//! `results/disk.md` have the commands).
//! `cargo run --release --example plot_eight [bounds|disk]`.

use std::collections::BTreeMap;
use std::error::Error;

use plotters::prelude::*;

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
}

fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    drawn: &[Drawn],
    axis: &Axis,
    title: &str,
    unit: &str,
) -> Result<(), Box<dyn Error>> {
    let top = drawn
        .iter()
        .flat_map(|d| d.series.values().flatten())
        .map(|p| p.1)
        .fold(0.0f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((axis.from..axis.to).log_scale(), 0.0f64..top)?;
    chart
        .configure_mesh()
        .x_desc(axis.desc)
        .y_desc(unit)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let palette = [
        RGBColor(31, 78, 153),
        RGBColor(192, 57, 43),
        RGBColor(39, 174, 96),
        RGBColor(142, 68, 173),
    ];
    // one colour a count, whichever file it is in
    let names: std::collections::BTreeSet<&String> =
        drawn.iter().flat_map(|d| d.series.keys()).collect();
    let colour_of = |name: &String| {
        let k = names.iter().position(|&n| n == name).unwrap_or(0);
        palette[k % palette.len()]
    };
    for d in drawn {
        for (name, pts) in &d.series {
            let colour = colour_of(name);
            // an earlier figure is drawn as such where a later file measured the count again
            let superseded = d.earlier
                && drawn
                    .iter()
                    .any(|o| !o.earlier && o.series.contains_key(name));
            if superseded {
                chart
                    .draw_series(DashedLineSeries::new(
                        pts.iter().copied(),
                        6,
                        4,
                        colour.mix(0.6).stroke_width(1),
                    ))?
                    .label(format!("{name}, before the colour rule"))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.mix(0.6))
                    });
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.mix(0.6))))?;
            } else {
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?
                    .label(name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
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
            },
            ("peak_mib", "peak resident memory", "MiB"),
            ("wall_s", "wall time, 2 threads", "seconds"),
        )
    } else if bounds {
        (
            "bounds",
            Axis {
                desc: "--max-memory (MiB; default drawn at 18 GiB)",
                from: 100.0,
                to: 30000.0,
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
            },
            ("peak_rss_gib", "peak resident memory", "GiB"),
            ("wall_s", "wall time, 2 threads", "seconds"),
        )
    };
    // the earlier figures first, then those of the build now (the colour rule's)
    let mut files = vec![(name.to_string(), true)];
    if bounds && !disk {
        files.push(("bounds-colours".to_string(), false));
    } else {
        files[0].1 = false;
    }
    let texts = files
        .iter()
        .map(|(f, earlier)| {
            Ok((
                std::fs::read_to_string(format!("{RESULTS}{f}.csv"))?,
                *earlier,
            ))
        })
        .collect::<Result<Vec<_>, Box<dyn Error>>>()?;
    let svg = format!("{RESULTS}{name}.svg");
    let root = SVGBackend::new(&svg, (1100, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    let x = if bounds { "bound_mib" } else { "pieces" };
    let drawn = |column: &str| {
        texts
            .iter()
            .map(|(text, earlier)| {
                Ok(Drawn {
                    series: read(text, x, column)?,
                    earlier: *earlier,
                })
            })
            .collect::<Result<Vec<_>, Box<dyn Error>>>()
    };
    panel(&left, &drawn(memory.0)?, &axis, memory.1, memory.2)?;
    panel(&right, &drawn(time.0)?, &axis, time.1, time.2)?;
    root.present()?;
    println!("wrote {svg}");
    Ok(())
}
