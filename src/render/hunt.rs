//! The printed forms of a treasure hunt: the squares in order, the board with the moves and the
//! order of the targets, JSON and SVG.
//!
//! The JSON object is a contract: `{"moves": N, "path": [[row, col], ...], "targets": [[row, col],
//! ...]}` with `targets` in the order they are first reached, 0-based row and col (row 0 = rank 1,
//! col 0 = file a). Extra fields: `board`, `rows`, `cols`, `piece`, `from`, `reached_at` (the move
//! on which each target is first reached) and `method`.

use serde::{Deserialize, Serialize};

use super::framed;
use super::svg::{Mark, picture};
use crate::board::Square;
use crate::hunt::Hunt;
use crate::piece::Piece;

/// The serialised hunt.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct HuntJson {
    pub moves: usize,
    pub path: Vec<[u32; 2]>,
    pub targets: Vec<[u32; 2]>,
    pub board: String,
    pub rows: u32,
    pub cols: u32,
    pub piece: String,
    pub from: [u32; 2],
    pub reached_at: Vec<usize>,
    pub method: String,
}

fn pair(s: Square) -> [u32; 2] {
    [s.row, s.col]
}

impl HuntJson {
    #[must_use]
    pub fn new(h: &Hunt, piece: &Piece) -> HuntJson {
        HuntJson {
            moves: h.moves(),
            path: h.path.iter().copied().map(pair).collect(),
            targets: h.reached.iter().map(|&(t, _)| pair(t)).collect(),
            board: h.board.to_string(),
            rows: h.board.rows,
            cols: h.board.cols,
            piece: piece.to_string(),
            from: pair(h.from),
            reached_at: h.reached.iter().map(|&(_, at)| at).collect(),
            method: h.method.name().to_string(),
        }
    }
}

/// The JSON object on one line.
#[must_use]
pub fn json(h: &Hunt, piece: &Piece) -> String {
    serde_json::to_string(&HuntJson::new(h, piece)).expect("plain data serialises") + "\n"
}

/// The squares in order, separated by spaces.
#[must_use]
pub fn moves(h: &Hunt) -> String {
    let names: Vec<String> = h.path.iter().map(|&q| h.board.name(q)).collect();
    names.join(" ") + "\n"
}

/// `11 moves from a8 by the knight, the fewest possible (by ...)`.
#[must_use]
pub fn summary(h: &Hunt, piece: &Piece) -> String {
    format!(
        "{} move{} from {} by the {piece}, the fewest possible (by {})\n",
        h.moves(),
        if h.moves() == 1 { "" } else { "s" },
        h.board.name(h.from),
        h.method.name()
    )
}

/// `order: 1. e6 (move 2), 2. b3 (move 4), ...`: the targets in the order first reached.
#[must_use]
pub fn order(h: &Hunt) -> String {
    let order: Vec<String> = h
        .reached
        .iter()
        .enumerate()
        .map(|(i, &(t, at))| format!("{}. {} (move {at})", i + 1, h.board.name(t)))
        .collect();
    format!("order: {}\n", order.join(", "))
}

/// The board: each square of the path shows the move on which the piece first stands there
/// (0: the start), targets are marked `*`, other squares `.`; a legend and the order follow.
#[must_use]
pub fn grid(h: &Hunt) -> String {
    let b = h.board;
    let mut first = vec![None; b.squares() as usize];
    for (k, &s) in h.path.iter().enumerate() {
        first[b.index(s) as usize].get_or_insert(k);
    }
    let is_target = |s: Square| h.reached.iter().any(|&(t, _)| t == s);
    // the widest cell: the last move's number with the target mark
    let width = (h.path.len() - 1).to_string().len() + 1;
    let mut out = framed(b, width, |r, c| {
        let s = Square::new(r, c);
        let mark = if is_target(s) { "*" } else { "" };
        match first[b.index(s) as usize] {
            Some(k) => format!("{mark}{k}"),
            None => ".".to_string(),
        }
    });
    out +=
        "numbers: the move on which the piece first stands on a square (0 = start); * = target\n";
    out + &order(h)
}

/// The board with the path drawn and each target ringed and numbered by the order reached.
#[must_use]
pub fn svg(h: &Hunt) -> String {
    let marks: Vec<Mark> = h
        .reached
        .iter()
        .enumerate()
        .map(|(i, &(t, _))| Mark {
            square: t,
            label: (i + 1).to_string(),
        })
        .collect();
    picture(h.board, &h.path, false, &marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::hunt::hunt;

    fn weekly() -> Hunt {
        let b = Board { rows: 8, cols: 8 };
        let targets: Vec<Square> = ["e6", "c4", "b3", "a2", "b2", "b1"]
            .iter()
            .map(|s| b.parse_square(s).unwrap())
            .collect();
        hunt(b, &Piece::knight(), b.parse_square("a8").unwrap(), &targets).unwrap()
    }

    #[test]
    fn json_round_trips_and_follows_the_contract() {
        let h = weekly();
        let v: HuntJson = serde_json::from_str(&json(&h, &Piece::knight())).unwrap();
        assert_eq!(v.moves, 11);
        assert_eq!(v.path.len(), 12);
        assert_eq!(v.path[0], [7, 0]);
        assert_eq!(v.targets.len(), 6);
        assert_eq!(v.reached_at.len(), 6);
        let value: serde_json::Value = serde_json::from_str(&json(&h, &Piece::knight())).unwrap();
        for key in ["moves", "path", "targets"] {
            assert!(value.get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn grid_marks_start_targets_and_order() {
        let h = weekly();
        let g = grid(&h);
        // rank 8 is the first row of the picture and a8 the start
        let rank8 = g.lines().nth(1).unwrap();
        assert!(rank8.starts_with("8 |   0   ."), "{rank8}");
        assert_eq!(g.matches('*').count(), 6 + 1, "{g}"); // six targets and the legend
        assert!(g.contains("order: 1. "));
        assert_eq!(moves(&h).split_whitespace().count(), 12);
    }

    #[test]
    fn svg_rings_every_target() {
        let s = svg(&weekly());
        assert_eq!(s.matches(r#"class="mark""#).count(), 6);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    }
}
