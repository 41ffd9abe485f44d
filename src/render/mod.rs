//! Output formats for a tour (grid, moves, JSON, SVG) and the parser that reads them back, and the
//! printed forms of hunts, surveys and estimates.

pub mod estimate;
pub mod hunt;
pub mod json;
pub mod parse;
pub mod survey;
pub mod svg;

use std::fmt::Write as _;

use crate::board::{Board, file_name};
use crate::tour::Tour;

/// How a tour is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// The numbered board with a border, rank 1 at the bottom.
    #[default]
    Grid,
    /// Algebraic squares in tour order, separated by spaces.
    Moves,
    /// One JSON object: rows, cols, closed, path of [row, col] (0-based).
    Json,
    /// An SVG picture of the board with the path, start and end marked.
    Svg,
    /// Only the one-line summary.
    None,
}

/// The tour in `format` (empty for [`Format::None`]), ending with a newline.
#[must_use]
pub fn render(tour: &Tour, piece: &crate::Piece, format: Format) -> String {
    match format {
        Format::Grid => grid(tour),
        Format::Moves => moves(tour),
        Format::Json => json::to_string(tour, piece) + "\n",
        Format::Svg => svg::svg(tour),
        Format::None => String::new(),
    }
}

/// The numbered board: rank 1 at the bottom, file `a` on the left, framed by a border with
/// rank numbers and file letters.
#[must_use]
pub fn grid(tour: &Tour) -> String {
    let numbers = tour.numbering();
    let width = tour.board.squares().to_string().len();
    framed(tour.board, width, |r, c| numbers[r as usize][c as usize])
}

/// A board of cells framed by a border with rank numbers and file letters, rank 1 at the bottom:
/// every picture of a board the program prints (tours, hunts, surveys) is drawn by this. Cells
/// are right-aligned to `width` (widened to the file names'), which the caller makes as wide as
/// its widest cell; nothing is collected first, so a 2000×2000 tour prints in one pass.
#[must_use]
pub fn framed<T: std::fmt::Display>(
    b: Board,
    width: usize,
    cell: impl Fn(u32, u32) -> T,
) -> String {
    let width = width.max(file_name(b.cols - 1).len());
    let label = b.rows.to_string().len();
    let mut out = String::new();
    let rule = format!(
        "{:label$} +{}+\n",
        "",
        "-".repeat((width + 1) * b.cols as usize + 1)
    );
    out.push_str(&rule);
    for r in (0..b.rows as usize).rev() {
        let _ = write!(out, "{:>label$} |", r + 1);
        for c in 0..b.cols {
            let _ = write!(out, " {:>width$}", cell(r as u32, c));
        }
        out.push_str(" |\n");
    }
    out.push_str(&rule);
    let _ = write!(out, "{:label$}  ", "");
    for c in 0..b.cols {
        let _ = write!(out, " {:>width$}", file_name(c));
    }
    out.push('\n');
    out
}

/// Algebraic squares in order, separated by spaces.
#[must_use]
pub fn moves(tour: &Tour) -> String {
    let mut out = tour
        .path
        .iter()
        .map(|&s| tour.board.name(s))
        .collect::<Vec<_>>()
        .join(" ");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Piece, Square};

    fn tour_3x4() -> Tour {
        let b = Board { rows: 3, cols: 4 };
        let path = [
            "a1", "c2", "a3", "b1", "d2", "b3", "c1", "a2", "c3", "d1", "b2", "d3",
        ]
        .iter()
        .map(|s| b.parse_square(s).unwrap())
        .collect::<Vec<Square>>();
        Tour::verified(b, &Piece::knight(), path, false).unwrap()
    }

    #[test]
    fn grid_has_numbers_border_and_labels() {
        let g = grid(&tour_3x4());
        let lines: Vec<&str> = g.lines().collect();
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[0].trim(), lines[4].trim());
        assert!(lines[3].starts_with("1 |  1  4  7 10 |"), "{}", lines[3]);
        assert!(
            lines[5].trim_start().starts_with("a  b  c  d"),
            "{}",
            lines[5]
        );
    }

    #[test]
    fn moves_lists_squares() {
        assert_eq!(moves(&tour_3x4()), "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3\n");
    }

    #[test]
    fn every_format_parses_back() {
        let t = tour_3x4();
        for f in [Format::Grid, Format::Moves, Format::Json] {
            let text = render(&t, &Piece::knight(), f);
            let (board, path) = parse::parse_tour(&text, None).unwrap();
            assert_eq!(board, t.board, "{f:?}");
            assert_eq!(path, t.path, "{f:?}");
        }
    }
}
