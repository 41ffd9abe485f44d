//! An SVG picture of a tour or any other path: the chequered board (one pattern, whatever its
//! size), the path as a polyline through square centres, the start marked by a filled circle, the
//! end by a ring, and numbered marks on chosen squares (a hunt's targets).

use std::io::{self, Write};

use crate::board::{Board, Square};
use crate::tour::{CompactTour, Tour};

/// The largest board drawn: beyond 500x500 the squares are under 2 pixels and the file tens of
/// megabytes, a picture no viewer shows.
pub const MAX_SQUARES: u64 = 250_000;

/// Why a board is not drawn.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "--format svg draws boards of up to {max} squares (500x500); the {board} board has {squares}: use --format grid, moves, json or none"
)]
pub struct TooLargeToDraw {
    pub board: Board,
    pub squares: u64,
    pub max: u64,
}

/// Whether `board` is small enough to draw.
pub fn check_size(board: Board) -> Result<(), TooLargeToDraw> {
    if board.squares() > MAX_SQUARES {
        return Err(TooLargeToDraw {
            board,
            squares: board.squares(),
            max: MAX_SQUARES,
        });
    }
    Ok(())
}

/// The picture of a tour as a standalone SVG document.
#[must_use]
pub fn svg(tour: &Tour) -> String {
    let mut v = Vec::new();
    write(&mut v, &CompactTour::from_tour(tour)).expect("writing to memory");
    String::from_utf8(v).expect("SVG is UTF-8")
}

/// Writes the picture of a tour (refused beyond [`MAX_SQUARES`]: see [`check_size`]).
pub fn write(out: &mut impl Write, tour: &CompactTour) -> io::Result<()> {
    let b = tour.board();
    check_size(b).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let path = tour.squares().map(|i| b.square(i));
    write_picture(
        out,
        b,
        path,
        (tour.first(), tour.last()),
        tour.closed(),
        &[],
    )
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
    let mut v = Vec::new();
    let ends = (path[0], path[path.len() - 1]);
    write_picture(&mut v, b, path.iter().copied(), ends, closed, marks).expect("writing to memory");
    String::from_utf8(v).expect("SVG is UTF-8")
}

/// Writes the picture of the path through `squares`, which starts and ends at `ends`.
fn write_picture(
    out: &mut impl Write,
    b: Board,
    squares: impl Iterator<Item = Square>,
    ends: (Square, Square),
    closed: bool,
    marks: &[Mark],
) -> io::Result<()> {
    // squares shrink on big boards so the picture stays a sensible size
    let cell: f64 = (800.0 / f64::from(b.rows.max(b.cols))).clamp(2.0, 48.0);
    let (w, h) = (cell * f64::from(b.cols), cell * f64::from(b.rows));
    let centre = |s: Square| {
        (
            cell * (f64::from(s.col) + 0.5),
            cell * (f64::from(b.rows - 1 - s.row) + 0.5),
        )
    };
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#
    )?;
    // a1 is dark; the pattern's origin is the top-left corner, which is dark when rows + 1 is odd
    let (dx, dy) = if b.rows % 2 == 1 {
        (0.0, 0.0)
    } else {
        (cell, 0.0)
    };
    let two = 2.0 * cell;
    writeln!(
        out,
        r##"<defs><pattern id="board" width="{two}" height="{two}" patternUnits="userSpaceOnUse"><rect width="{two}" height="{two}" fill="#f0d9b5"/><rect x="{dx}" y="{dy}" width="{cell}" height="{cell}" fill="#b58863"/><rect x="{}" y="{cell}" width="{cell}" height="{cell}" fill="#b58863"/></pattern></defs>"##,
        cell - dx
    )?;
    writeln!(
        out,
        r#"<rect width="{w}" height="{h}" fill="url(#board)"/>"#
    )?;
    let stroke = (cell / 10.0).max(0.5);
    write!(
        out,
        r##"<polyline fill="none" stroke="#1f4e99" stroke-width="{stroke:.1}" stroke-linejoin="round" points=""##
    )?;
    for (k, s) in squares.enumerate() {
        let (x, y) = centre(s);
        let sep = if k == 0 { "" } else { " " };
        write!(out, "{sep}{x:.1},{y:.1}")?;
    }
    if closed {
        let (x, y) = centre(ends.0);
        write!(out, " {x:.1},{y:.1}")?;
    }
    writeln!(out, r#""/>"#)?;
    let (sx, sy) = centre(ends.0);
    let (ex, ey) = centre(ends.1);
    let rad = cell / 4.0;
    writeln!(
        out,
        r##"<circle class="start" cx="{sx:.1}" cy="{sy:.1}" r="{rad:.1}" fill="#2e8b57"/>"##
    )?;
    writeln!(
        out,
        r##"<circle class="end" cx="{ex:.1}" cy="{ey:.1}" r="{rad:.1}" fill="none" stroke="#c0392b" stroke-width="{stroke:.1}"/>"##
    )?;
    for m in marks {
        let (x, y) = centre(m.square);
        writeln!(
            out,
            r##"<g class="mark"><circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="none" stroke="#d35400" stroke-width="{stroke:.1}"/><text x="{x:.1}" y="{:.1}" font-family="sans-serif" font-size="{:.1}" text-anchor="middle" fill="#d35400">{}</text></g>"##,
            cell * 0.42,
            y - cell * 0.22,
            cell * 0.3,
            m.label
        )?;
    }
    writeln!(out, "</svg>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_boards_are_refused_by_size() {
        assert!(
            check_size(Board {
                rows: 500,
                cols: 500
            })
            .is_ok()
        );
        let e = check_size(Board {
            rows: 501,
            cols: 500,
        })
        .unwrap_err();
        assert!(e.to_string().contains("250000") && e.to_string().contains("501x500"));
    }
}
