//! Draws `results/eight.svg` from `results/eight.csv`: peak resident memory and wall time of a
//! frontier count against the number of pieces it is cut into (`--pieces N`), one series per
//! count (7x7 open, 8x8 closed). The figures are whole commands measured with the system's
//! `time` (`results/eight.md` has the commands). `cargo run --release --example plot_eight`.

use std::collections::BTreeMap;
use std::error::Error;

use plotters::prelude::*;

const CSV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/eight.csv");
const SVG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/eight.svg");

/// Points `(pieces, value)` of each count, for the column `name`.
type Series = BTreeMap<String, Vec<(f64, f64)>>;

fn read(text: &str, name: &str) -> Result<Series, Box<dyn Error>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty csv")?.split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|&h| h == n)
            .ok_or(format!("no column {n}"))
    };
    let (count_at, pieces_at, value_at) = (col("count")?, col("pieces")?, col(name)?);
    let mut series = Series::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let (Ok(p), Ok(v)) = (f[pieces_at].parse::<f64>(), f[value_at].parse::<f64>()) else {
            continue;
        };
        series
            .entry(f[count_at].to_string())
            .or_default()
            .push((p, v));
    }
    for pts in series.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(series)
}

fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    series: &Series,
    title: &str,
    unit: &str,
) -> Result<(), Box<dyn Error>> {
    let top = series
        .values()
        .flatten()
        .map(|p| p.1)
        .fold(0.0f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((0.8f64..64.0f64).log_scale(), 0.0f64..top)?;
    chart
        .configure_mesh()
        .x_desc("pieces (--pieces N)")
        .y_desc(unit)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let palette = [RGBColor(31, 78, 153), RGBColor(192, 57, 43)];
    for (k, (name, pts)) in series.iter().enumerate() {
        let colour = palette[k % palette.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let text = std::fs::read_to_string(CSV)?;
    let root = SVGBackend::new(SVG, (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(550);
    panel(
        &left,
        &read(&text, "peak_rss_gib")?,
        "peak resident memory",
        "GiB",
    )?;
    panel(
        &right,
        &read(&text, "wall_s")?,
        "wall time, 2 threads",
        "seconds",
    )?;
    root.present()?;
    println!("wrote {SVG}");
    Ok(())
}
