//! How a histogram of listed tours is printed: a table, one JSON object, and a bar chart (SVG).
//!
//! The JSON object is a contract: `{"board", "rows", "cols", "piece", "closed", "from", "to",
//! "where": [...], "property", "meaning", "tours", "limited", "histogram": [{"value",
//! "tours"}, ...]}` with every value from 0 to the largest met (zeros included), `from` and `to`
//! algebraic or `null`, and `limited` true when `--limit` stopped the listing.

use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::{Value, json};
use thiserror::Error;

use super::{Histogram, ListOptions, Property};
use crate::board::Board;
use crate::human::group_u64;
use crate::piece::Piece;
use crate::render::percent;

/// Drawing the chart failed (plotters' own error, as text).
#[derive(Debug, Error)]
#[error("cannot draw the histogram: {0}")]
pub struct PlotError(String);

/// What the histogram is of, for its heading: `closed tours of 6x6 by the knight`.
pub struct Heading<'a> {
    pub board: Board,
    pub piece: &'a Piece,
    pub opts: &'a ListOptions,
    /// The listing's own description.
    pub what: String,
}

/// The table: one row a value, with the tours and their share, and the total.
#[must_use]
pub fn table(h: &Histogram, property: Property, heading: &Heading<'_>) -> String {
    let total = h.total();
    let mut out = format!(
        "{}: {}, over {} {}\n",
        property.name(),
        property.meaning(),
        group_u64(total),
        heading.what
    );
    let width = property.name().len().max(5);
    let _ = writeln!(
        out,
        "{:>width$}  {:>13}  {:>7}",
        property.name(),
        "tours",
        "share"
    );
    for (v, &c) in h.counts.iter().enumerate() {
        let _ = writeln!(
            out,
            "{v:>width$}  {:>13}  {:>6.2} %",
            group_u64(c),
            percent(c, total)
        );
    }
    let _ = writeln!(
        out,
        "{:>width$}  {:>13}  {:>6.2} %",
        "total",
        group_u64(total),
        percent(total, total)
    );
    out
}

/// The JSON object (see the module's documentation).
#[must_use]
pub fn json(h: &Histogram, property: Property, heading: &Heading<'_>, limited: bool) -> Value {
    let b = heading.board;
    let o = heading.opts;
    json!({
        "board": b.to_string(),
        "rows": b.rows,
        "cols": b.cols,
        "piece": heading.piece.to_string(),
        "closed": o.closed,
        "from": o.from.map(|s| b.name(s)),
        "to": o.to.map(|s| b.name(s)),
        "where": o.filters.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "property": property.name(),
        "meaning": property.meaning(),
        "tours": h.total(),
        "limited": limited,
        "histogram": h.counts.iter().enumerate().map(|(v, &c)| json!({"value": v, "tours": c})).collect::<Vec<_>>(),
    })
}

fn fail(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

/// The bar chart as an SVG document: one bar a value, its height the number of tours.
pub fn svg(h: &Histogram, property: Property, heading: &Heading<'_>) -> Result<String, PlotError> {
    let values = h.counts.len().max(1);
    let top = h.counts.iter().copied().max().unwrap_or(0).max(1);
    let mut text = String::new();
    {
        let width = (24 * values as u32 + 160).max(640);
        let root = SVGBackend::with_string(&mut text, (width, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let caption = format!("{}: {}", property.name(), heading.what);
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..values as f64 - 0.5, 0f64..top as f64 * 1.05)
            .map_err(fail)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(values.min(40))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .x_desc(property.meaning())
            .y_desc("tours")
            .y_label_formatter(&|y| group_u64(*y as u64))
            .draw()
            .map_err(fail)?;
        let bar = RGBColor(31, 78, 153).filled();
        chart
            .draw_series(h.counts.iter().enumerate().map(|(v, &c)| {
                let x = v as f64;
                Rectangle::new([(x - 0.4, 0.0), (x + 0.4, c as f64)], bar)
            }))
            .map_err(fail)?;
        root.present().map_err(fail)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Histogram, ListOptions) {
        let mut h = Histogram::default();
        for v in [0, 2, 2, 3] {
            h.add(v);
        }
        (h, ListOptions::default())
    }

    #[test]
    fn table_json_and_chart() {
        let (h, opts) = sample();
        let knight = Piece::knight();
        let heading = Heading {
            board: "5x5".parse().unwrap(),
            piece: &knight,
            opts: &opts,
            what: "open tours of 5x5 by the knight".into(),
        };
        let t = table(&h, Property::Straight, &heading);
        assert!(t.starts_with("straight: moves that continue"), "{t}");
        assert!(t.contains("over 4 open tours of 5x5"), "{t}");
        let rows: Vec<&str> = t.lines().collect();
        assert_eq!(rows.len(), 2 + 4 + 1, "{t}");
        assert!(
            rows[4].trim_start().starts_with("2") && rows[4].contains("50.00 %"),
            "{t}"
        );
        assert!(rows[6].contains("total") && rows[6].contains(" 4 "), "{t}");
        let v = json(&h, Property::Straight, &heading, false);
        assert_eq!(v["tours"], 4);
        assert_eq!(v["histogram"][2]["tours"], 2);
        assert_eq!(v["histogram"].as_array().unwrap().len(), 4);
        let s = svg(&h, Property::Turns, &heading).unwrap();
        assert!(s.starts_with("<svg") && s.contains("turns"), "{}", &s[..60]);
        // four bars, the empty value's of height 0 included
        assert!(s.matches("<rect").count() >= 4);
    }
}
