//! Reads a tour back from any of the printed forms: JSON, the numbered grid, or moves.

use thiserror::Error;

use super::json::TourJson;
use crate::board::{Board, Square, parse_square_unchecked};

/// Why a text could not be read as a tour.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The text is not in any tour format (a usage error).
    #[error("{0}")]
    Format(String),
    /// A grid whose numbers are not 1..N once each (an invalid tour).
    #[error("{0}")]
    Numbering(String),
}

/// Parses a tour in JSON, grid or moves form. `board` is checked against the tour's own size
/// (JSON, grid) or gives the size of a moves list (inferred from its squares when absent).
pub fn parse_tour(text: &str, board: Option<Board>) -> Result<(Board, Vec<Square>), ParseError> {
    // a grid printed with --color always reads like a plain one
    let text = super::colour::strip(text);
    let t = text.trim();
    if t.is_empty() {
        return Err(ParseError::Format(
            "the input is empty: give a tour as a grid, moves or JSON".into(),
        ));
    }
    let (found, path) = if t.starts_with('{') {
        let j: TourJson = serde_json::from_str(t)
            .map_err(|e| ParseError::Format(format!("the input is not valid tour JSON: {e}")))?;
        Board::new(j.rows, j.cols).map_err(|e| ParseError::Format(e.to_string()))?;
        (Some(j.board()), j.squares())
    } else if looks_like_grid(t) {
        let (b, p) = parse_grid(t)?;
        (Some(b), p)
    } else {
        (None, parse_moves(t)?)
    };
    let board = match (found, board) {
        (Some(f), Some(b)) if f != b => {
            return Err(ParseError::Format(format!(
                "the tour is for a {f} board but --board says {b}"
            )));
        }
        (Some(f), _) | (None, Some(f)) => f,
        (None, None) => {
            let rows = path.iter().map(|s| s.row).max().unwrap_or(0) + 1;
            let cols = path.iter().map(|s| s.col).max().unwrap_or(0) + 1;
            Board { rows, cols }
        }
    };
    Ok((board, path))
}

/// A grid has only numbers inside its rank lines (border, rank labels and file letters aside).
fn looks_like_grid(t: &str) -> bool {
    let first = t.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.trim();
    first.starts_with('+')
        || first.contains('|')
        || first.split_whitespace().all(|w| w.parse::<u64>().is_ok())
}

fn parse_grid(t: &str) -> Result<(Board, Vec<Square>), ParseError> {
    let mut rows: Vec<Vec<u64>> = Vec::new();
    for line in t.lines() {
        let l = line.trim();
        if !rows.is_empty()
            && !l.is_empty()
            && l.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        {
            // the file letters close the grid: `knights tour` prints its summary line after them
            break;
        }
        if l.is_empty()
            || l.chars().all(|c| matches!(c, '+' | '-' | ' '))
            || l.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        {
            continue;
        }
        // "8 | 1 2 3 |": the numbers between the bars; a bare line is all numbers
        let inner = match (l.find('|'), l.rfind('|')) {
            (Some(a), Some(b)) if b > a => &l[a + 1..b],
            _ => l,
        };
        let nums = inner
            .split_whitespace()
            .map(|w| {
                w.parse::<u64>().map_err(|_| {
                    ParseError::Format(format!("grid line '{l}': '{w}' is not a number"))
                })
            })
            .collect::<Result<Vec<u64>, _>>()?;
        rows.push(nums);
    }
    let cols = rows.first().map_or(0, Vec::len);
    if rows.is_empty() || cols == 0 {
        return Err(ParseError::Format("the grid has no numbers".into()));
    }
    if let Some(r) = rows.iter().find(|r| r.len() != cols) {
        return Err(ParseError::Format(format!(
            "grid rows differ in length: {} and {}",
            cols,
            r.len()
        )));
    }
    let board = Board::new(rows.len() as u32, cols as u32)
        .map_err(|e| ParseError::Format(e.to_string()))?;
    let n = board.squares() as usize;
    let mut at: Vec<Option<Square>> = vec![None; n];
    // the first printed line is the top rank
    for (i, line) in rows.iter().enumerate() {
        let row = (rows.len() - 1 - i) as u32;
        for (col, &k) in line.iter().enumerate() {
            let sq = Square::new(row, col as u32);
            if k == 0 || k as usize > n {
                return Err(ParseError::Numbering(format!(
                    "square {} holds {k}, but a {board} grid is numbered 1..{n}",
                    board.name(sq)
                )));
            }
            if let Some(prev) = at[k as usize - 1] {
                return Err(ParseError::Numbering(format!(
                    "number {k} appears twice, on {} and {}",
                    board.name(prev),
                    board.name(sq)
                )));
            }
            at[k as usize - 1] = Some(sq);
        }
    }
    Ok((
        board,
        at.into_iter()
            .map(|s| s.expect("n distinct numbers in 1..n"))
            .collect(),
    ))
}

fn parse_moves(t: &str) -> Result<Vec<Square>, ParseError> {
    t.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .map(|w| {
            // "1. e4"-style step numbers and arrows are tolerated
            parse_square_unchecked(w.trim_end_matches(['-', '>', '.']))
                .map_err(|e| ParseError::Format(format!("cannot read the moves: {e}")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bare_grid_and_rejects_duplicates() {
        let (b, p) = parse_tour("3 2\n1 4\n", None).unwrap();
        assert_eq!(b, Board { rows: 2, cols: 2 });
        assert_eq!(p[0], Square::new(0, 0));
        assert!(matches!(
            parse_tour("1 2\n1 4\n", None),
            Err(ParseError::Numbering(_))
        ));
        assert!(matches!(
            parse_tour("1 2\n3 9\n", None),
            Err(ParseError::Numbering(_))
        ));
    }

    #[test]
    fn reads_moves_and_checks_board() {
        let (b, p) = parse_tour("a1 c2 b4", None).unwrap();
        assert_eq!(b, Board { rows: 4, cols: 3 });
        assert_eq!(p.len(), 3);
        assert!(matches!(
            parse_tour("a1 zz", None),
            Err(ParseError::Format(_))
        ));
        let j = r#"{"rows":3,"cols":4,"closed":false,"path":[[0,0]]}"#;
        assert!(matches!(
            parse_tour(j, Some(Board { rows: 4, cols: 4 })),
            Err(ParseError::Format(_))
        ));
        assert!(matches!(parse_tour("", None), Err(ParseError::Format(_))));
    }
}
