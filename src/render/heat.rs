//! Heat maps of the moves a set of tours uses (`knights tally --svg`): one board a tally, each
//! move a line between square centres, darker and wider the larger the share of tours that use
//! it; then, for each tally after the first, the difference from the first: red where a move is
//! used more, blue where less, as wide as the difference is large in standard errors.

use std::fmt::Write as _;

use crate::board::Square;
use crate::tally::Tally;

/// A tally and its caption (the file it was read from).
pub struct Panel<'a> {
    pub caption: String,
    pub tally: &'a Tally,
}

/// Where |z| stops widening a line of a difference panel.
const Z_CAP: f64 = 10.0;

/// The shares' colour scale, pale to dark (from magma): a share of 0 is the first stop, 1 the
/// last.
const STOPS: [(f64, f64, f64); 5] = [
    (252.0, 253.0, 191.0),
    (252.0, 137.0, 97.0),
    (183.0, 55.0, 121.0),
    (81.0, 18.0, 124.0),
    (0.0, 0.0, 4.0),
];

fn colour(share: f64) -> String {
    let x = share.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let t = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// The picture: the panels of the tallies, then the differences from the first, in a row.
/// Every tally is of the same board (the caller checks).
#[must_use]
pub fn heat_maps(panels: &[Panel<'_>]) -> String {
    let Some(first) = panels.first() else {
        return String::new();
    };
    let b = first.tally.board;
    let cell: f64 = (400.0 / f64::from(b.rows.max(b.cols))).clamp(2.0, 48.0);
    let (bw, bh) = (cell * f64::from(b.cols), cell * f64::from(b.rows));
    let gap = 24.0;
    let font = 13.0;
    let caption_h = 3.0 * font + 12.0;
    let count = 2 * panels.len() - 1;
    let w = gap + count as f64 * (bw + gap);
    let h = gap + bh + caption_h + gap;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="{font}">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="{w:.0}" height="{h:.0}" fill="#ffffff"/>"##
    );
    let centre = |x0: f64, q: Square| {
        (
            x0 + cell * (f64::from(q.col) + 0.5),
            gap + cell * (f64::from(b.rows - 1 - q.row) + 0.5),
        )
    };
    let board = |s: &mut String, x0: f64| {
        let _ = write!(s, r#"<g class="board">"#);
        for r in 0..b.rows {
            for c in 0..b.cols {
                let fill = if (r + c) % 2 == 0 {
                    "#e4e4e4"
                } else {
                    "#f6f6f6"
                };
                let _ = write!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{cell:.1}" height="{cell:.1}" fill="{fill}"/>"#,
                    x0 + cell * f64::from(c),
                    gap + cell * f64::from(b.rows - 1 - r)
                );
            }
        }
        let _ = writeln!(s, "</g>");
    };
    let caption = |s: &mut String, x0: f64, lines: &[String]| {
        for (k, line) in lines.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                x0 + bw / 2.0,
                gap + bh + font * (k as f64 + 1.3),
                escape(line)
            );
        }
    };
    let line = |s: &mut String, x0: f64, a: Square, z: Square, stroke: &str, width: f64| {
        let (p, q) = (centre(x0, a), centre(x0, z));
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width:.2}" stroke-linecap="round"/>"#,
            p.0, p.1, q.0, q.1
        );
    };
    for (k, panel) in panels.iter().enumerate() {
        let x0 = gap + k as f64 * (bw + gap);
        board(&mut s, x0);
        let t = panel.tally;
        // the rarely used first, so that the common ones are drawn on top
        let mut moves: Vec<(Square, Square, f64)> = t.shares().collect();
        moves.sort_by(|p, q| p.2.total_cmp(&q.2));
        let _ = writeln!(s, r#"<g class="shares">"#);
        for (a, z, share) in moves {
            if share > 0.0 {
                line(
                    &mut s,
                    x0,
                    a,
                    z,
                    &colour(share),
                    cell * (0.03 + 0.14 * share),
                );
            }
        }
        let _ = writeln!(s, "</g>");
        caption(
            &mut s,
            x0,
            &[
                panel.caption.clone(),
                format!("{} tours", t.tours),
                "share of tours using each move: pale 0, dark 1".into(),
            ],
        );
    }
    for (k, panel) in panels.iter().enumerate().skip(1) {
        let x0 = gap + (panels.len() + k - 1) as f64 * (bw + gap);
        board(&mut s, x0);
        let c = panel.tally.against(first.tally);
        let _ = writeln!(s, r#"<g class="difference">"#);
        let mut moves = c.moves.clone();
        moves.reverse();
        for m in moves.iter().filter(|m| m.z != 0.0) {
            let stroke = if m.z > 0.0 { "#c0392b" } else { "#1f4e99" };
            let width = cell * 0.16 * (m.z.abs() / Z_CAP).min(1.0);
            line(&mut s, x0, m.from, m.to, stroke, width.max(0.3));
        }
        let _ = writeln!(s, "</g>");
        caption(
            &mut s,
            x0,
            &[
                format!("{} against {}", panel.caption, first.caption),
                format!("red: used more, blue: less; width |z| up to {Z_CAP}"),
                format!(
                    "{} of {} moves past |z| {:.2}",
                    c.beyond,
                    c.moves.len(),
                    c.bound
                ),
            ],
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// Text made safe inside an SVG element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::piece::Piece;

    #[test]
    fn every_used_move_is_drawn_and_differences_have_their_panel() {
        let b = Board { rows: 3, cols: 4 };
        let mut t = Tally::new(b, &Piece::knight(), false).unwrap();
        let tour: Vec<Square> = "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3"
            .split(' ')
            .map(|n| b.parse_square(n).unwrap())
            .collect();
        t.add(b, false, &tour).unwrap();
        let svg = heat_maps(&[
            Panel {
                caption: "a<b".into(),
                tally: &t,
            },
            Panel {
                caption: "same".into(),
                tally: &t,
            },
        ]);
        let shares = svg.split(r#"<g class="shares">"#).nth(1).unwrap();
        let shares = shares.split("</g>").next().unwrap();
        assert_eq!(shares.matches("<line").count(), 11);
        assert_eq!(svg.matches(r#"<g class="board">"#).count(), 3);
        assert!(svg.contains("a&lt;b") && svg.contains("0 of "));
        assert_eq!(colour(0.0), "#fcfdbf");
        assert_eq!(colour(1.0), "#000004");
    }
}
