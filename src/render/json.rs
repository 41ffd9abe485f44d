//! The JSON form of a tour, a documented contract:
//! `{"rows": R, "cols": C, "closed": bool, "path": [[row, col], ...], ...}` with 0-based row and
//! col, row 0 = rank 1, col 0 = file a. Extra fields: `piece`, `squares` (algebraic names).

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use crate::board::{Board, Square};
use crate::tour::{CompactTour, Tour};

/// The serialised tour.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TourJson {
    pub rows: u32,
    pub cols: u32,
    pub closed: bool,
    pub path: Vec<[u32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piece: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
}

impl TourJson {
    #[must_use]
    pub fn from_tour(tour: &Tour, piece: &crate::Piece) -> TourJson {
        TourJson {
            rows: tour.board.rows,
            cols: tour.board.cols,
            closed: tour.closed,
            path: tour.path.iter().map(|s| [s.row, s.col]).collect(),
            piece: Some(piece.to_string()),
            length: Some(tour.path.len()),
        }
    }

    #[must_use]
    pub fn board(&self) -> Board {
        Board {
            rows: self.rows,
            cols: self.cols,
        }
    }

    #[must_use]
    pub fn squares(&self) -> Vec<Square> {
        self.path.iter().map(|&[r, c]| Square::new(r, c)).collect()
    }
}

/// A sampled tour (`knights sample --format json`, one a line): the tour's fields, then how it
/// was drawn: `method` (`"exact"` or `"chain"`), `uniform` (whether every tour had exactly the
/// same probability), the `seed` and the tour's `index` in the run.
/// (The tour's fields are repeated rather than flattened: serde's flattening does not read
/// numbers back under `arbitrary_precision`.)
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SampledJson {
    pub rows: u32,
    pub cols: u32,
    pub closed: bool,
    pub path: Vec<[u32; 2]>,
    pub piece: String,
    pub length: usize,
    pub method: String,
    pub uniform: bool,
    pub seed: u64,
    pub index: u64,
}

impl SampledJson {
    #[must_use]
    pub fn new(
        tour: &Tour,
        piece: &crate::Piece,
        method: &str,
        uniform: bool,
        seed: u64,
        index: u64,
    ) -> SampledJson {
        SampledJson {
            rows: tour.board.rows,
            cols: tour.board.cols,
            closed: tour.closed,
            path: tour.path.iter().map(|s| [s.row, s.col]).collect(),
            piece: piece.to_string(),
            length: tour.path.len(),
            method: method.to_string(),
            uniform,
            seed,
            index,
        }
    }
}

/// The JSON text through serde (the reference for [`write()`]).
#[must_use]
pub fn to_string(tour: &Tour, piece: &crate::Piece) -> String {
    serde_json::to_string(&TourJson::from_tour(tour, piece)).expect("plain data serialises")
}

/// Writes the same text as [`to_string`] square by square, then a newline: the path of a large
/// board never sits in memory as text.
pub fn write(out: &mut impl Write, tour: &CompactTour, piece: &crate::Piece) -> io::Result<()> {
    let b = tour.board();
    write!(
        out,
        "{{\"rows\":{},\"cols\":{},\"closed\":{},\"path\":[",
        b.rows,
        b.cols,
        tour.closed()
    )?;
    for (k, i) in tour.squares().enumerate() {
        let sq = b.square(i);
        let sep = if k == 0 { "" } else { "," };
        write!(out, "{sep}[{},{}]", sq.row, sq.col)?;
    }
    let name = serde_json::to_string(&piece.to_string()).expect("a string serialises");
    writeln!(out, "],\"piece\":{name},\"length\":{}}}", tour.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Piece;
    use crate::find::{FindOptions, find_tour};

    #[test]
    fn streamed_text_is_the_serde_text() {
        for (r, c, closed, piece) in [
            (5, 5, false, "knight"),
            (6, 6, true, "knight"),
            (8, 8, false, "3,0+2,2"),
        ] {
            let piece: Piece = piece.parse().unwrap();
            let b = Board { rows: r, cols: c };
            let t = find_tour(b, &piece, &FindOptions::new(closed, None, 0))
                .unwrap()
                .tour;
            let mut v = Vec::new();
            write(&mut v, &CompactTour::from_tour(&t), &piece).unwrap();
            assert_eq!(String::from_utf8(v).unwrap(), to_string(&t, &piece) + "\n");
        }
    }
}
