//! The text of listed tours, written into a worker's buffer: the formats of [`crate::render`]
//! (the JSON with an `index` added), with each square's text made once per board, since a
//! listing writes millions of small tours where `render` writes one large one.

use std::io::Write;

use super::Format;
use crate::board::Board;
use crate::piece::Piece;
use crate::render;
use crate::tour::{CompactTour, Tour};

/// Bytes of a square's cell: the longest text with its separator, and room to spare.
const CELL: usize = 8;

/// Writes tours of one board in one format.
#[derive(Clone, Debug)]
pub(crate) struct Text {
    board: Board,
    piece: Piece,
    format: Format,
    /// Each square's text by index with the separator after it, padded to 8 bytes, and its
    /// length: the algebraic name and a space (`moves`), or `[row,col],` (`json`). Copying 8
    /// bytes whatever the length is one move of a word, where a copy of the exact length is a
    /// call.
    cells: Vec<([u8; CELL], usize)>,
    /// The JSON object's start for an open and a closed tour, up to the path's `[`.
    heads: [Vec<u8>; 2],
    /// The JSON object's end after the path, up to the value of `index`.
    tail: Vec<u8>,
}

impl Text {
    pub(crate) fn new(board: Board, piece: &Piece, format: Format) -> Text {
        let n = board.squares() as u32;
        let cells = (0..n)
            .map(|i| {
                let sq = board.square(i);
                let text = match format {
                    Format::Json => format!("[{},{}],", sq.row, sq.col),
                    _ => board.name(sq) + " ",
                };
                let mut cell = [0u8; CELL];
                // at most 64 squares: names up to `bl64 `, cells up to `[63,0],`
                cell[..text.len()].copy_from_slice(text.as_bytes());
                (cell, text.len())
            })
            .collect();
        let head = |closed: bool| {
            format!(
                "{{\"rows\":{},\"cols\":{},\"closed\":{closed},\"path\":[",
                board.rows, board.cols
            )
            .into_bytes()
        };
        let name = serde_json::to_string(&piece.to_string()).expect("a string serialises");
        Text {
            board,
            piece: piece.clone(),
            format,
            cells,
            heads: [head(false), head(true)],
            tail: format!("],\"piece\":{name},\"length\":{n},\"index\":").into_bytes(),
        }
    }

    /// Appends tour `t` (square indices) to `buf`. A JSON object stops after `"index":`: the
    /// index is known only when the buffers are put in order, and [`Text::finish`] writes it.
    pub(crate) fn write(&self, buf: &mut Vec<u8>, t: &[u8], closed: bool) {
        match self.format {
            Format::Moves => {
                let len = self.squares(buf, t);
                // the last separator ends the line
                buf[len - 1] = b'\n';
            }
            Format::Json => {
                buf.extend_from_slice(&self.heads[usize::from(closed)]);
                let len = self.squares(buf, t);
                // no separator after the last square
                buf.truncate(len - 1);
                buf.extend_from_slice(&self.tail);
            }
            Format::Grid => {
                let tour = Tour {
                    board: self.board,
                    closed,
                    path: t.iter().map(|&i| self.board.square(u32::from(i))).collect(),
                };
                render::write(
                    buf,
                    CompactTour::from_tour(&tour),
                    &self.piece,
                    render::Format::Grid,
                )
                .expect("writing to memory");
            }
            Format::None => {}
        }
    }

    /// Appends the cells of the squares of `t`, each with its separator; returns the length.
    fn squares(&self, buf: &mut Vec<u8>, t: &[u8]) -> usize {
        let mut at = buf.len();
        buf.resize(at + t.len() * CELL, 0);
        for &i in t {
            let (cell, len) = &self.cells[i as usize];
            buf[at..at + CELL].copy_from_slice(cell);
            at += len;
        }
        buf.truncate(at);
        at
    }

    /// Writes what goes before tour number `index` (0-based) of the whole listing: the blank
    /// line between two grids.
    pub(crate) fn start(&self, out: &mut impl Write, index: u64) -> std::io::Result<()> {
        if self.format == Format::Grid && index > 0 {
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Writes what ends tour number `index`: the JSON object's index and closing brace.
    pub(crate) fn finish(&self, out: &mut impl Write, index: u64) -> std::io::Result<()> {
        if self.format == Format::Json {
            writeln!(out, "{index}}}")?;
        }
        Ok(())
    }

    /// Whether each tour needs [`Text::start`] or [`Text::finish`] (else a buffer is written
    /// whole).
    pub(crate) fn per_tour(&self) -> bool {
        matches!(self.format, Format::Json | Format::Grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5x5 open tour and a 6x6 closed one, found by the library.
    fn tours() -> Vec<(Tour, Piece)> {
        let mut out = Vec::new();
        for (b, closed, piece) in [("5x5", false, "knight"), ("6x6", true, "knight")] {
            let board: Board = b.parse().unwrap();
            let piece: Piece = piece.parse().unwrap();
            let opts = crate::find::FindOptions::new(closed, None, 0);
            out.push((
                crate::find::find_tour(board, &piece, &opts).unwrap().tour,
                piece,
            ));
        }
        out
    }

    fn written(tour: &Tour, piece: &Piece, format: Format, index: u64) -> String {
        let text = Text::new(tour.board, piece, format);
        let t: Vec<u8> = tour
            .path
            .iter()
            .map(|&s| tour.board.index(s) as u8)
            .collect();
        let mut buf = Vec::new();
        text.start(&mut buf, index).unwrap();
        text.write(&mut buf, &t, tour.closed);
        text.finish(&mut buf, index).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn moves_and_grids_are_the_render_module_text() {
        for (tour, piece) in tours() {
            assert_eq!(
                written(&tour, &piece, Format::Moves, 3),
                render::render(&tour, &piece, render::Format::Moves)
            );
            assert_eq!(
                written(&tour, &piece, Format::Grid, 0),
                render::render(&tour, &piece, render::Format::Grid)
            );
            assert_eq!(
                written(&tour, &piece, Format::Grid, 1),
                "\n".to_string() + &render::render(&tour, &piece, render::Format::Grid)
            );
            assert_eq!(written(&tour, &piece, Format::None, 0), "");
        }
    }

    #[test]
    fn json_is_the_tour_schema_with_an_index() {
        for (tour, piece) in tours() {
            let line = written(&tour, &piece, Format::Json, 41);
            assert!(line.ends_with("}\n") && line.lines().count() == 1, "{line}");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["index"], 41);
            // the render module's object, field for field, plus the index
            let plain: serde_json::Value =
                serde_json::from_str(&render::json::to_string(&tour, &piece)).unwrap();
            for (k, val) in plain.as_object().unwrap() {
                assert_eq!(&v[k], val, "{k}");
            }
            assert_eq!(
                v.as_object().unwrap().len(),
                plain.as_object().unwrap().len() + 1
            );
            // and it reads back as a tour
            let _: crate::render::json::TourJson = serde_json::from_str(&line).unwrap();
        }
    }
}
