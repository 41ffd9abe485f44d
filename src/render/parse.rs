//! Reads a tour back from any of the printed forms: JSON, the numbered grid, or moves, with
//! what the text claims about it (its piece, that it is closed, its length), so that `verify`
//! checks the claims too instead of trusting them.

use thiserror::Error;

use super::json::TourJson;
use crate::board::{Board, Square, parse_square_unchecked};
use crate::error::clip;
use crate::piece::Piece;
use crate::tour::{Tour, TourError};

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

/// Why a tour that was read is not valid.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// The path is not a tour of the piece.
    #[error(transparent)]
    Tour(#[from] TourError),
    /// The text claims something of the tour that does not hold.
    #[error("{0}")]
    Claim(String),
}

/// A tour as read, with the claims its text makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedTour {
    pub board: Board,
    pub path: Vec<Square>,
    /// The piece the text names (JSON `piece`, a grid's summary line), as written.
    pub piece: Option<String>,
    /// Where the text says the tour is closed, in words: JSON `"closed": true`, a grid's summary
    /// line, or a moves list that repeats its first square at the end (the common notation for a
    /// closed tour; the repeat is dropped from `path`).
    pub closed_claim: Option<&'static str>,
    /// The number of squares the text claims (JSON `length`).
    pub length: Option<usize>,
    /// The first and last squares a grid's summary line names.
    pub ends: Option<(String, String)>,
}

impl ParsedTour {
    /// The piece to check the tour with: `given` (`--piece`) when there is one, else the piece
    /// the text names, else the knight.
    pub fn piece(&self, given: Option<&Piece>) -> Result<Piece, ParseError> {
        match (given, &self.piece) {
            (Some(p), _) => Ok(p.clone()),
            (None, Some(name)) => name.parse().map_err(|e: crate::Error| {
                ParseError::Format(format!(
                    "the tour names its piece '{}', which is not a piece this program knows: {e}",
                    clip(name)
                ))
            }),
            (None, None) => Ok(Piece::knight()),
        }
    }

    /// Checks the path as a tour of `piece`, and every claim the text makes about it; with
    /// `require_closed`, an open tour is invalid too.
    pub fn verify(self, piece: &Piece, require_closed: bool) -> Result<Tour, Invalid> {
        let ParsedTour {
            board,
            path,
            closed_claim,
            length,
            ends,
            ..
        } = self;
        if let Some(n) = length {
            if n != path.len() {
                return Err(Invalid::Claim(format!(
                    "the JSON says its length is {n}, but its path has {} square{}",
                    path.len(),
                    super::plural(path.len() as u64)
                )));
            }
        }
        let tour = Tour::verified(board, piece, path, require_closed)?;
        if let Some(claim) = closed_claim {
            if !tour.closed {
                return Err(Invalid::Claim(format!(
                    "{claim}, but its last square {} is not one move of the {piece} from its first square {}",
                    board.name(tour.path[tour.path.len() - 1]),
                    board.name(tour.path[0])
                )));
            }
        }
        if let Some((first, last)) = ends {
            let (f, l) = (
                board.name(tour.path[0]),
                board.name(tour.path[tour.path.len() - 1]),
            );
            if (first.as_str(), last.as_str()) != (f.as_str(), l.as_str()) {
                return Err(Invalid::Claim(format!(
                    "the summary line says the tour runs from {} to {}, but the grid runs from {f} to {l}",
                    clip(&first),
                    clip(&last)
                )));
            }
        }
        Ok(tour)
    }
}

/// Parses a tour in JSON, grid or moves form. `board` is checked against the tour's own size
/// (JSON, grid) or gives the size of a moves list (inferred from its squares when absent). A
/// leading byte-order mark is skipped, and so are the colour codes of a grid printed with
/// `--color always`.
pub fn parse_tour(text: &str, board: Option<Board>) -> Result<ParsedTour, ParseError> {
    let text = super::colour::strip(text);
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err(ParseError::Format(
            "the input is empty: give a tour as a grid, moves or JSON".into(),
        ));
    }
    let mut parsed = if t.starts_with('{') {
        let j: TourJson = serde_json::from_str(t)
            .map_err(|e| ParseError::Format(format!("the input is not valid tour JSON: {e}")))?;
        Board::new(j.rows, j.cols).map_err(|e| ParseError::Format(e.to_string()))?;
        ParsedTour {
            board: j.board(),
            path: j.squares(),
            piece: j.piece.clone(),
            closed_claim: j.closed.then_some("the JSON says the tour is closed"),
            length: j.length,
            ends: None,
        }
    } else if looks_like_grid(t) {
        let (b, path, summary) = parse_grid(t)?;
        let mut parsed = ParsedTour {
            board: b,
            path,
            piece: None,
            closed_claim: None,
            length: None,
            ends: None,
        };
        // another line under the grid (a note of the user's) is no claim, as before
        if let Some(line) = summary.filter(|l| l.contains(" tour of ")) {
            read_summary(line, &mut parsed)?;
        }
        parsed
    } else {
        let path = parse_moves(t)?;
        let rows = path.iter().map(|s| s.row).max().unwrap_or(0) + 1;
        let cols = path.iter().map(|s| s.col).max().unwrap_or(0) + 1;
        ParsedTour {
            board: board.unwrap_or(Board { rows, cols }),
            path,
            piece: None,
            closed_claim: None,
            length: None,
            ends: None,
        }
    };
    if let Some(b) = board {
        if b != parsed.board {
            return Err(ParseError::Format(format!(
                "the tour is for a {} board but --board says {b}",
                parsed.board
            )));
        }
    }
    // "a1 c2 ... b3 a1": a closed tour written as a cycle that returns to its first square
    let p = &mut parsed.path;
    if p.len() as u64 == parsed.board.squares() + 1 && p.len() > 2 && p.first() == p.last() {
        p.pop();
        if parsed.closed_claim.is_none() {
            parsed.closed_claim = Some("the tour returns to its first square");
        }
        if let Some(n) = &mut parsed.length {
            // the JSON's length may count the repeat
            if *n == p.len() + 1 {
                *n = p.len();
            }
        }
    }
    Ok(parsed)
}

/// Reads the summary line `knights tour` prints under a grid:
/// `closed tour of 8x8 by the knight from a1 to b3, verified (…)`.
fn read_summary(line: &str, parsed: &mut ParsedTour) -> Result<(), ParseError> {
    let bad = || {
        ParseError::Format(format!(
            "the line under the grid is not a tour's summary ('open|closed tour of RxC by the PIECE from SQ to SQ, ...'): '{}'",
            clip(line)
        ))
    };
    let (kind, rest) = line.split_once(" tour of ").ok_or_else(bad)?;
    let (board, rest) = rest.split_once(" by the ").ok_or_else(bad)?;
    let (piece, rest) = rest.split_once(" from ").ok_or_else(bad)?;
    let (first, rest) = rest.split_once(" to ").ok_or_else(bad)?;
    let last = rest.split([',', ' ']).next().unwrap_or("");
    match kind.trim() {
        "closed" => parsed.closed_claim = Some("the summary line says the tour is closed"),
        "open" => {}
        _ => return Err(bad()),
    }
    if board.trim() != parsed.board.to_string() {
        return Err(ParseError::Format(format!(
            "the summary line names the board '{}', but the grid is {}",
            clip(board.trim()),
            parsed.board
        )));
    }
    parsed.piece = Some(piece.trim().to_string());
    parsed.ends = Some((first.trim().to_string(), last.to_string()));
    Ok(())
}

/// A grid has only numbers inside its rank lines (border, rank labels and file letters aside).
fn looks_like_grid(t: &str) -> bool {
    let first = t.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.trim();
    first.starts_with('+')
        || first.contains('|')
        || first.split_whitespace().all(|w| w.parse::<u64>().is_ok())
}

/// The grid's board and path, and the first line after its file letters (`knights tour` prints
/// its summary line there).
fn parse_grid(t: &str) -> Result<(Board, Vec<Square>, Option<&str>), ParseError> {
    let mut rows: Vec<Vec<u64>> = Vec::new();
    let mut lines = t.lines();
    let mut summary = None;
    while let Some(line) = lines.next() {
        let l = line.trim();
        if !rows.is_empty()
            && !l.is_empty()
            && l.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        {
            // the file letters close the grid
            summary = lines.map(str::trim).find(|l| !l.is_empty());
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
                    ParseError::Format(format!(
                        "grid line '{}': '{}' is not a number",
                        clip(l),
                        clip(w)
                    ))
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
        summary,
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
        let t = parse_tour("3 2\n1 4\n", None).unwrap();
        assert_eq!(t.board, Board { rows: 2, cols: 2 });
        assert_eq!(t.path[0], Square::new(0, 0));
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
        let t = parse_tour("a1 c2 b4", None).unwrap();
        assert_eq!(t.board, Board { rows: 4, cols: 3 });
        assert_eq!(t.path.len(), 3);
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

    /// A tour of 3x4 by the knight (open; its ends are not a move apart).
    const OPEN_3X4: &str = "a1 c2 a3 b1 d2 b3 c1 a2 c3 d1 b2 d3";

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let t = parse_tour(&format!("\u{feff}{OPEN_3X4}\n"), None).unwrap();
        assert_eq!(t.path.len(), 12);
    }

    #[test]
    fn the_named_piece_checks_the_tour_unless_overridden() {
        let j = r#"{"rows":3,"cols":4,"closed":false,"path":[[0,0],[1,2]],"piece":"zebra"}"#;
        let t = parse_tour(j, None).unwrap();
        assert_eq!(t.piece(None).unwrap().to_string(), "zebra");
        assert!(t.piece(Some(&Piece::knight())).unwrap().is_knight());
        let t = parse_tour(&j.replace("zebra", "dragon"), None).unwrap();
        assert!(matches!(t.piece(None), Err(ParseError::Format(_))));
        let t = parse_tour(OPEN_3X4, None).unwrap();
        assert!(t.piece(None).unwrap().is_knight());
    }

    #[test]
    fn a_false_closed_claim_is_invalid() {
        let path: Vec<String> = OPEN_3X4
            .split(' ')
            .map(|s| {
                let sq = parse_square_unchecked(s).unwrap();
                format!("[{},{}]", sq.row, sq.col)
            })
            .collect();
        let j = format!(
            r#"{{"rows":3,"cols":4,"closed":true,"path":[{}]}}"#,
            path.join(",")
        );
        let t = parse_tour(&j, None).unwrap();
        assert!(t.closed_claim.is_some());
        let e = t.verify(&Piece::knight(), false).unwrap_err();
        assert!(matches!(e, Invalid::Claim(_)), "{e}");
        let open = parse_tour(&j.replace("true", "false"), None).unwrap();
        assert!(open.verify(&Piece::knight(), false).is_ok());
        let long = parse_tour(
            &j.replace("true", "false").replace("}", r#","length":13}"#),
            None,
        );
        assert!(matches!(
            long.unwrap().verify(&Piece::knight(), false),
            Err(Invalid::Claim(_))
        ));
    }

    #[test]
    fn a_cycle_written_back_to_its_start_is_a_closed_tour() {
        let b = Board { rows: 5, cols: 6 };
        let t = crate::find::find_tour(
            b,
            &Piece::knight(),
            &crate::find::FindOptions::new(true, None, 0),
        )
        .unwrap()
        .tour;
        let mut text = super::super::moves(&t);
        text = format!("{} {}", text.trim(), b.name(t.path[0]));
        let parsed = parse_tour(&text, None).unwrap();
        assert_eq!(parsed.path, t.path);
        assert!(parsed.closed_claim.is_some());
        assert!(parsed.verify(&Piece::knight(), true).unwrap().closed);
        // an open path written back to its start claims a move it does not have
        let parsed = parse_tour(&format!("{OPEN_3X4} a1"), None).unwrap();
        assert!(matches!(
            parsed.verify(&Piece::knight(), false),
            Err(Invalid::Claim(_))
        ));
    }

    #[test]
    fn a_grids_summary_line_is_checked() {
        let b = Board { rows: 3, cols: 4 };
        let t = parse_tour(OPEN_3X4, None)
            .unwrap()
            .verify(&Piece::knight(), false)
            .unwrap();
        let grid = super::super::grid(&t);
        let with = |line: &str| parse_tour(&format!("{grid}{line}\n"), None);
        let ok =
            with("open tour of 3x4 by the knight from a1 to d3, verified (x, 0.001 s)").unwrap();
        assert_eq!(ok.board, b);
        assert_eq!(ok.piece.as_deref(), Some("knight"));
        assert!(ok.verify(&Piece::knight(), false).is_ok());
        let zebra = with("open tour of 3x4 by the zebra from a1 to d3, verified").unwrap();
        let piece = zebra.piece(None).unwrap();
        assert!(matches!(zebra.verify(&piece, false), Err(Invalid::Tour(_))));
        let closed = with("closed tour of 3x4 by the knight from a1 to d3, verified").unwrap();
        assert!(matches!(
            closed.verify(&Piece::knight(), false),
            Err(Invalid::Claim(_))
        ));
        let ends = with("open tour of 3x4 by the knight from a1 to c3, verified").unwrap();
        assert!(matches!(
            ends.verify(&Piece::knight(), false),
            Err(Invalid::Claim(_))
        ));
        assert!(matches!(
            with("open tour of 4x4 by the knight from a1 to d3, verified"),
            Err(ParseError::Format(_))
        ));
        assert!(matches!(
            with("open tour of 3x4 by the knight, verified"),
            Err(ParseError::Format(_))
        ));
        let note = with("found on Tuesday").unwrap();
        assert_eq!((note.piece, note.closed_claim), (None, None));
    }

    /// A 5x5 tour of the knight in each form `verify` reads, and another board's tour.
    fn seeds() -> (Vec<Vec<u8>>, Vec<u8>) {
        let grid =
            " 1 14  9 20  3\n24 19  2 15 10\n13  8 25  4 21\n18 23  6 11 16\n 7 12 17 22  5\n";
        let knight = Piece::knight();
        let tour = parse_tour(grid, None)
            .unwrap()
            .verify(&knight, false)
            .unwrap();
        let forms = [
            super::super::Format::Grid,
            super::super::Format::Moves,
            super::super::Format::Json,
        ]
        .into_iter()
        .map(|f| super::super::render(&tour, &knight, f).into_bytes())
        .collect();
        (forms, b"a1 c2 a3 b1 c3 a2 c1 b3\n".to_vec())
    }

    /// Reads `bytes` as `verify` does: a refusal, or a tour that is one (checked here square by
    /// square, apart from the reader and `Tour`'s own check).
    fn read_back(bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let Ok(parsed) = parse_tour(&text, None) else {
            return;
        };
        let Ok(tour) = parsed.verify(&Piece::knight(), false) else {
            return;
        };
        let b = tour.board;
        let mut seen = vec![false; (b.rows * b.cols) as usize];
        for sq in &tour.path {
            assert!(sq.row < b.rows && sq.col < b.cols, "{text}");
            let i = (sq.row * b.cols + sq.col) as usize;
            assert!(!seen[i], "a square twice: {text}");
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s), "a square missed: {text}");
        for w in tour.path.windows(2) {
            let (dr, dc) = (w[0].row.abs_diff(w[1].row), w[0].col.abs_diff(w[1].col));
            assert!(
                matches!((dr, dc), (1, 2) | (2, 1)),
                "not a knight's move: {text}"
            );
        }
    }

    #[test]
    fn no_single_damage_makes_the_reader_panic_or_lie() {
        let (forms, other) = seeds();
        for form in &forms {
            let variants = crate::damage::single(form, &[&other]);
            assert!(variants.len() > 500, "{}", variants.len());
            for v in variants {
                read_back(&v);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::damage::config())]
        #[test]
        fn no_random_damage_makes_the_reader_panic_or_lie(form in 0usize..3, ops in crate::damage::ops()) {
            let (forms, other) = seeds();
            read_back(&crate::damage::apply(&forms[form], &ops, &[&other]));
        }
    }
}
