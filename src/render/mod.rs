//! Output formats for a tour (grid, moves, JSON, SVG), written as streams, the parser that reads
//! them back, and the printed forms of hunts, surveys, estimates and histograms of listed tours.

pub mod colour;
pub mod estimate;
pub mod heat;
pub mod hunt;
pub mod json;
pub mod parse;
pub mod survey;
pub mod svg;

use std::io::{self, Write};

use crate::board::{Board, file_name};
use crate::tour::{CompactTour, Tour};

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

/// Writes the tour in `format` to `out` as it goes (never one string of the whole output), ending
/// with a newline; nothing for [`Format::None`]. The grid numbers the squares in place of the
/// successors, so it takes the tour. An SVG of more than [`svg::MAX_SQUARES`] squares is refused
/// (check first: [`svg::check_size`]).
pub fn write(
    out: &mut impl Write,
    tour: CompactTour,
    piece: &crate::Piece,
    format: Format,
) -> io::Result<()> {
    write_in_colour(out, tour, piece, format, false)
}

/// [`write()`], with the grid's start and end squares coloured when `colour` (see [`colour`];
/// the other formats are never coloured: they are read by programs).
pub fn write_in_colour(
    out: &mut impl Write,
    tour: CompactTour,
    piece: &crate::Piece,
    format: Format,
    colour: bool,
) -> io::Result<()> {
    match format {
        Format::Grid => write_grid(out, tour, colour),
        Format::Moves => write_moves(out, &tour),
        Format::Json => json::write(out, &tour, piece),
        Format::Svg => svg::write(out, &tour),
        Format::None => Ok(()),
    }
}

/// The tour in `format` as one string (for small tours and tests), ending with a newline.
#[must_use]
pub fn render(tour: &Tour, piece: &crate::Piece, format: Format) -> String {
    let mut v = Vec::new();
    write(&mut v, CompactTour::from_tour(tour), piece, format).expect("writing to memory");
    String::from_utf8(v).expect("the formats are UTF-8")
}

pub use crate::human::plural;

/// `part` as a percentage of `whole` (0 when `whole` is 0).
#[must_use]
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The numbered board as a string: see [`write()`].
#[must_use]
pub fn grid(tour: &Tour) -> String {
    render(tour, &crate::Piece::knight(), Format::Grid)
}

/// The squares in order as a string: see [`write()`].
#[must_use]
pub fn moves(tour: &Tour) -> String {
    render(tour, &crate::Piece::knight(), Format::Moves)
}

/// Writes `n` right-aligned in `width` columns, after one space.
fn write_cell(out: &mut impl Write, n: u32, width: usize) -> io::Result<()> {
    let mut buf = [b' '; 24];
    let mut at = buf.len();
    let mut x = n;
    loop {
        at -= 1;
        buf[at] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    let start = buf.len() - (width + 1).max(buf.len() - at + 1);
    out.write_all(&buf[start..])
}

/// Writes [`write_cell`]'s cell with the number (not its padding) in the escape `code`'s colour.
fn write_coloured_cell(out: &mut impl Write, n: u32, width: usize, code: &str) -> io::Result<()> {
    let digits = n.to_string();
    let pad = width.saturating_sub(digits.len()) + 1;
    write!(out, "{:pad$}{code}{digits}{}", "", colour::RESET)
}

/// The numbered board: rank 1 at the bottom, file `a` on the left, framed by a border with rank
/// numbers and file letters; with `colour`, the start (1) and the end (the last number) coloured.
fn write_grid(out: &mut impl Write, tour: CompactTour, colour: bool) -> io::Result<()> {
    let b = tour.board();
    let numbers = tour.into_numbering();
    let last = numbers.len() as u32;
    let width = b.squares().to_string().len();
    write_framed(out, b, width, |out, r, c, width| {
        let k = numbers[(r * b.cols + c) as usize];
        match (colour, k) {
            (true, 1) => write_coloured_cell(out, k, width, colour::START),
            (true, k) if k == last => write_coloured_cell(out, k, width, colour::END),
            _ => write_cell(out, k, width),
        }
    })
}

/// A board of cells framed by a border with rank numbers and file letters, rank 1 at the bottom:
/// every picture of a board the program prints (tours, hunts, surveys) is drawn by this. Cells
/// are right-aligned to `width` (widened to the file names'), which the caller makes as wide as
/// its widest cell.
#[must_use]
pub fn framed<T: std::fmt::Display>(
    b: Board,
    width: usize,
    cell: impl Fn(u32, u32) -> T,
) -> String {
    let mut v = Vec::new();
    write_framed(&mut v, b, width, |out, r, c, width| {
        write!(out, " {:>width$}", cell(r, c))
    })
    .expect("writing to memory");
    String::from_utf8(v).expect("the frame is UTF-8")
}

/// Writes the frame of [`framed`] row by row, each cell by `cell(out, rank, file, width)` (which
/// writes a space and the cell right-aligned to `width`): nothing is collected first, so a
/// 10000×10000 tour prints in one pass.
fn write_framed<W: Write>(
    out: &mut W,
    b: Board,
    width: usize,
    mut cell: impl FnMut(&mut W, u32, u32, usize) -> io::Result<()>,
) -> io::Result<()> {
    let width = width.max(file_name(b.cols - 1).len());
    let label = b.rows.to_string().len();
    let rule = format!(
        "{:label$} +{}+\n",
        "",
        "-".repeat((width + 1) * b.cols as usize + 1)
    );
    out.write_all(rule.as_bytes())?;
    for r in (0..b.rows).rev() {
        write!(out, "{:>label$} |", r + 1)?;
        for c in 0..b.cols {
            cell(out, r, c, width)?;
        }
        out.write_all(b" |\n")?;
    }
    out.write_all(rule.as_bytes())?;
    write!(out, "{:label$}  ", "")?;
    for c in 0..b.cols {
        write!(out, " {:>width$}", file_name(c))?;
    }
    out.write_all(b"\n")
}

/// Algebraic squares in order, separated by spaces.
fn write_moves(out: &mut impl Write, tour: &CompactTour) -> io::Result<()> {
    let b = tour.board();
    for (k, i) in tour.squares().enumerate() {
        if k > 0 {
            out.write_all(b" ")?;
        }
        b.write_name(out, b.square(i))?;
    }
    out.write_all(b"\n")
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
    fn cells_are_padded_to_the_width() {
        let mut v = Vec::new();
        write_cell(&mut v, 7, 3).unwrap();
        write_cell(&mut v, 1234, 3).unwrap();
        write_cell(&mut v, 0, 1).unwrap();
        assert_eq!(String::from_utf8(v).unwrap(), "   7 1234 0");
    }

    #[test]
    fn colour_marks_only_the_start_and_end() {
        let t = tour_3x4();
        let mut v = Vec::new();
        write_in_colour(
            &mut v,
            CompactTour::from_tour(&t),
            &Piece::knight(),
            Format::Grid,
            true,
        )
        .unwrap();
        let coloured = String::from_utf8(v).unwrap();
        assert_eq!(coloured.matches(colour::START).count(), 1);
        assert_eq!(coloured.matches(colour::END).count(), 1);
        assert_eq!(coloured.matches(colour::RESET).count(), 2);
        assert!(coloured.contains(&format!("{}1{}", colour::START, colour::RESET)));
        assert!(coloured.contains(&format!("{}12{}", colour::END, colour::RESET)));
        // without the escapes it is the plain grid, cell for cell
        assert_eq!(colour::strip(&coloured), grid(&t));
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
            let parsed = parse::parse_tour(&text, None).unwrap();
            assert_eq!(parsed.board, t.board, "{f:?}");
            assert_eq!(parsed.path, t.path, "{f:?}");
        }
    }
}
