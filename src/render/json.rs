//! The JSON form of a tour, a documented contract:
//! `{"rows": R, "cols": C, "closed": bool, "path": [[row, col], ...], ...}` with 0-based row and
//! col, row 0 = rank 1, col 0 = file a. Extra fields: `piece`, `squares` (algebraic names).

use serde::{Deserialize, Serialize};

use crate::board::{Board, Square};
use crate::tour::Tour;

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

#[must_use]
pub fn to_string(tour: &Tour, piece: &crate::Piece) -> String {
    serde_json::to_string(&TourJson::from_tour(tour, piece)).expect("plain data serialises")
}
