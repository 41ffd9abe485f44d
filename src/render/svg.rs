//! An SVG picture of a tour or any other path: the chequered board, the path as a polyline
//! through square centres, the start marked by a filled circle, the end by a ring, and numbered
//! marks on chosen squares (a hunt's targets).

use std::fmt::Write as _;

use crate::board::{Board, Square};
use crate::tour::Tour;

/// The picture of a tour as a standalone SVG document.
#[must_use]
pub fn svg(tour: &Tour) -> String {
    picture(tour.board, &tour.path, tour.closed, &[])
}

/// A labelled ring drawn on a square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub square: Square,
    pub label: String,
}

/// The picture of `path` on `b` (closed: drawn back to its start), with `marks` on top.
#[must_use]
pub fn picture(b: Board, path: &[Square], closed: bool, marks: &[Mark]) -> String {
    // squares shrink on big boards so the picture stays a sensible size
    let cell: f64 = (800.0 / f64::from(b.rows.max(b.cols))).clamp(2.0, 48.0);
    let (w, h) = (cell * f64::from(b.cols), cell * f64::from(b.rows));
    let centre = |row: u32, col: u32| {
        (
            cell * (f64::from(col) + 0.5),
            cell * (f64::from(b.rows - 1 - row) + 0.5),
        )
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    );
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="#f0d9b5"/>"##);
    out.push_str(r##"<g fill="#b58863">"##);
    for r in 0..b.rows {
        for c in 0..b.cols {
            if (r + c) % 2 == 0 {
                let (x, y) = (cell * f64::from(c), cell * f64::from(b.rows - 1 - r));
                let _ = write!(
                    out,
                    r#"<rect x="{x}" y="{y}" width="{cell}" height="{cell}"/>"#
                );
            }
        }
    }
    out.push_str("</g>\n");
    let mut points: Vec<String> = path
        .iter()
        .map(|s| {
            let (x, y) = centre(s.row, s.col);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    if closed {
        points.push(points[0].clone());
    }
    let stroke = (cell / 10.0).max(0.5);
    let _ = writeln!(
        out,
        r##"<polyline fill="none" stroke="#1f4e99" stroke-width="{stroke:.1}" stroke-linejoin="round" points="{}"/>"##,
        points.join(" ")
    );
    let first = path[0];
    let last = path[path.len() - 1];
    let (sx, sy) = centre(first.row, first.col);
    let (ex, ey) = centre(last.row, last.col);
    let rad = cell / 4.0;
    let _ = writeln!(
        out,
        r##"<circle class="start" cx="{sx:.1}" cy="{sy:.1}" r="{rad:.1}" fill="#2e8b57"/>"##
    );
    let _ = writeln!(
        out,
        r##"<circle class="end" cx="{ex:.1}" cy="{ey:.1}" r="{rad:.1}" fill="none" stroke="#c0392b" stroke-width="{stroke:.1}"/>"##
    );
    for m in marks {
        let (x, y) = centre(m.square.row, m.square.col);
        let _ = writeln!(
            out,
            r##"<g class="mark"><circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#d35400" stroke-width="{stroke:.1}"/><text x="{x:.1}" y="{:.1}" font-family="sans-serif" font-size="{:.1}" text-anchor="middle" fill="#d35400">{}</text></g>"##,
            cell * 0.42,
            y - cell * 0.22,
            cell * 0.3,
            m.label
        );
    }
    out.push_str("</svg>\n");
    out
}
