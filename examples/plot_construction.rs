//! Draws `results/construction.svg` from `results/construction.csv`: whole-command time of
//! `knights tour` against the number of squares, log-log, one series per method and kind, the
//! issue's anchors as marks. `cargo run --release --example plot_construction`.

use std::collections::BTreeMap;
use std::error::Error;

use plotters::prelude::*;

const CSV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/construction.csv");
const SVG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/construction.svg");

fn main() -> Result<(), Box<dyn Error>> {
    let text = std::fs::read_to_string(CSV)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty csv")?.split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|&h| h == name)
            .ok_or(format!("no column {name}"))
    };
    let (series_at, squares_at, median_at) =
        (col("series")?, col("squares")?, col("wall_median_s")?);
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let (Ok(n), Ok(t)) = (f[squares_at].parse::<f64>(), f[median_at].parse::<f64>()) else {
            continue;
        };
        series
            .entry(f[series_at].to_string())
            .or_default()
            .push((n, t));
    }
    for pts in series.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let root = SVGBackend::new(SVG, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "knights tour: whole command, median wall time (2-core machine)",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((5e3f64..2e8f64).log_scale(), (1e-3f64..1e3f64).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("squares")
        .y_desc("seconds")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()?;
    let palette = [
        RGBColor(31, 78, 153),
        RGBColor(46, 139, 87),
        RGBColor(192, 57, 43),
        RGBColor(230, 126, 34),
        RGBColor(142, 68, 173),
        RGBColor(90, 90, 90),
        RGBColor(22, 160, 133),
    ];
    for (k, (name, pts)) in series.iter().enumerate() {
        let colour = palette[k % palette.len()];
        let anchor = name.starts_with("anchor");
        if anchor {
            chart
                .draw_series(
                    pts.iter()
                        .map(|&p| TriangleMarker::new(p, 7, colour.filled())),
                )?
                .label(name.as_str())
                .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 6, colour.filled()));
        } else {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    println!("wrote {SVG}");
    Ok(())
}
