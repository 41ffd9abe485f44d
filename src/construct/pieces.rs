//! The construction's pieces: small cycles found once by the exact search (`search.rs`, run by
//! `examples/make_pieces.rs`) and embedded as data in `pieces.txt`, checked by the tests below.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::lanes::{self, Kind, Lanes};
use super::search::Cell;

/// The embedded data (see the file's header for the format).
pub const DATA: &str = include_str!("pieces.txt");

/// One cycle through a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub rows: u8,
    pub cols: u8,
    /// The square left out, for a cycle through an odd×odd block less one square.
    pub hole: Option<Cell>,
    /// The squares in cycle order; the last is one move from the first.
    pub cycle: Vec<Cell>,
    /// `pos[row * cols + col]`: where the square stands in `cycle` ([`NOT_ON`] for the hole).
    pub pos: Vec<u16>,
}

/// `pos` of a square that is not on the cycle.
pub const NOT_ON: u16 = u16::MAX;

impl Piece {
    fn new(rows: u8, cols: u8, hole: Option<Cell>, cycle: Vec<Cell>) -> Piece {
        let mut pos = vec![NOT_ON; usize::from(rows) * usize::from(cols)];
        for (k, &(r, c)) in cycle.iter().enumerate() {
            pos[usize::from(r) * usize::from(cols) + usize::from(c)] = k as u16;
        }
        Piece {
            rows,
            cols,
            hole,
            cycle,
            pos,
        }
    }

    /// The same piece under a symmetry of its block: transpose first, then flip rows, then cols.
    #[must_use]
    pub fn mapped(&self, transpose: bool, flip_rows: bool, flip_cols: bool) -> Piece {
        let (rows, cols) = if transpose {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        };
        let map = |(r, c): Cell| {
            let (r, c) = if transpose { (c, r) } else { (r, c) };
            (
                if flip_rows { rows - 1 - r } else { r },
                if flip_cols { cols - 1 - c } else { c },
            )
        };
        Piece::new(
            rows,
            cols,
            self.hole.map(map),
            self.cycle.iter().map(|&c| map(c)).collect(),
        )
    }

    /// `Some(true)` when the cycle goes from `a` to `b`, `Some(false)` when from `b` to `a`,
    /// `None` when `a`-`b` is not one of its edges.
    #[must_use]
    pub fn direction(&self, a: Cell, b: Cell) -> Option<bool> {
        let at = |(r, c): Cell| {
            (r < self.rows && c < self.cols)
                .then(|| self.pos[usize::from(r) * usize::from(self.cols) + usize::from(c)])
                .filter(|&p| p != NOT_ON)
        };
        let (pa, pb) = (usize::from(at(a)?), usize::from(at(b)?));
        let len = self.cycle.len();
        if (pa + 1) % len == pb {
            Some(true)
        } else if (pb + 1) % len == pa {
            Some(false)
        } else {
            None
        }
    }
}

/// A chain piece's key: strip height, kind, width and start square.
pub type ChainKey = (u8, Kind, u8, Option<Cell>);

/// Every piece, by block size (closed) and by block size and hole (holey), in every orientation;
/// the lanes of strips and the chain pieces for them.
#[derive(Debug, Default)]
pub struct Catalogue {
    closed: HashMap<(u8, u8), Piece>,
    holey: HashMap<(u8, u8, Cell), Piece>,
    /// By strip height and number of lanes.
    lanes: HashMap<(u8, u8), Lanes>,
    /// By strip height, kind, width and start square.
    chains: HashMap<ChainKey, Vec<Cell>>,
}

/// Why a line of the data cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("pieces.txt line {line}: {why}")]
pub struct DataError {
    pub line: usize,
    pub why: String,
}

fn digit(b: u8) -> Option<u8> {
    (b as char).to_digit(36).map(|d| d as u8)
}

/// Parses `ROWSxCOLS`.
fn size(s: &str) -> Option<(u8, u8)> {
    let (r, c) = s.split_once('x')?;
    Some((r.parse().ok()?, c.parse().ok()?))
}

/// Parses the cells: two base-36 digits each.
fn cells(s: &str) -> Option<Vec<Cell>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks(2)
        .map(|p| Some((digit(p[0])?, digit(p[1])?)))
        .collect()
}

/// Writes cells as the data file holds them: two base-36 digits each.
#[must_use]
pub fn encode(cycle: &[Cell]) -> String {
    let d = |x: u8| char::from_digit(u32::from(x), 36).expect("a base-36 digit");
    cycle.iter().flat_map(|&(r, c)| [d(r), d(c)]).collect()
}

/// Reads one line of data: `closed RxC CELLS` or `holey RxC R,C CELLS`.
pub fn parse_line(line: &str) -> Option<Piece> {
    let mut w = line.split_whitespace();
    let kind = w.next()?;
    let (rows, cols) = size(w.next()?)?;
    let hole = match kind {
        "closed" => None,
        "holey" => {
            let (r, c) = w.next()?.split_once(',')?;
            Some((r.parse().ok()?, c.parse().ok()?))
        }
        _ => return None,
    };
    let cycle = cells(w.next()?)?;
    if w.next().is_some() || cycle.iter().any(|&(r, c)| r >= rows || c >= cols) {
        return None;
    }
    Some(Piece::new(rows, cols, hole, cycle))
}

/// Reads `lanes H t2|t3 LANE...`.
fn parse_lanes(line: &str) -> Option<(u8, u8, Lanes)> {
    let mut w = line.split_whitespace().skip(1);
    let rows: u8 = w.next()?.parse().ok()?;
    let n = match w.next()? {
        "t2" => 2,
        "t3" => 3,
        _ => return None,
    };
    let ls: Lanes = w.map(lanes::parse_lane).collect::<Option<_>>()?;
    (ls.len() == usize::from(n)).then_some((rows, n, ls))
}

/// Reads `chain H KIND W [R,C] CELLS`.
fn parse_chain(line: &str) -> Option<(ChainKey, Vec<Cell>)> {
    let w: Vec<&str> = line.split_whitespace().skip(1).collect();
    let rows: u8 = w.first()?.parse().ok()?;
    let kind = Kind::parse(w.get(1)?)?;
    let width: u8 = w.get(2)?.parse().ok()?;
    let (start, rest) = if kind.has_start() {
        let (r, c) = w.get(3)?.split_once(',')?;
        (Some((r.parse().ok()?, c.parse().ok()?)), &w[4..])
    } else {
        (None, &w[3..])
    };
    if rest.len() != 1 {
        return None;
    }
    let cells = cells(rest[0])?;
    cells
        .iter()
        .all(|&(r, c)| r < rows && c < width)
        .then_some(((rows, kind, width, start), cells))
}

impl Catalogue {
    /// Reads `text`, adding every symmetric image of every piece.
    pub fn parse(text: &str) -> Result<Catalogue, DataError> {
        let mut cat = Catalogue::default();
        for (k, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || DataError {
                line: k + 1,
                why: format!("cannot read '{line}'"),
            };
            if line.starts_with("lanes ") {
                let (rows, n, ls) = parse_lanes(line).ok_or_else(bad)?;
                cat.lanes.insert((rows, n), ls);
                continue;
            }
            if line.starts_with("chain ") {
                let (key, cells) = parse_chain(line).ok_or_else(bad)?;
                cat.chains.insert(key, cells);
                continue;
            }
            let piece = parse_line(line).ok_or_else(bad)?;
            for t in [false, true] {
                for fr in [false, true] {
                    for fc in [false, true] {
                        let p = piece.mapped(t, fr, fc);
                        match p.hole {
                            None => {
                                // the first listed orientation of a size wins
                                cat.closed.entry((p.rows, p.cols)).or_insert(p);
                            }
                            Some(h) => {
                                cat.holey.entry((p.rows, p.cols, h)).or_insert(p);
                            }
                        }
                    }
                }
            }
        }
        Ok(cat)
    }

    /// The embedded catalogue, read once.
    pub fn get() -> &'static Catalogue {
        static CAT: OnceLock<Catalogue> = OnceLock::new();
        CAT.get_or_init(|| {
            Catalogue::parse(DATA).expect("the embedded pieces are readable (tested)")
        })
    }

    /// A closed tour of a `rows`×`cols` block.
    #[must_use]
    pub fn closed(&self, rows: u8, cols: u8) -> Option<&Piece> {
        self.closed.get(&(rows, cols))
    }

    /// A cycle through a `rows`×`cols` block less the square `hole`.
    #[must_use]
    pub fn holey(&self, rows: u8, cols: u8, hole: Cell) -> Option<&Piece> {
        self.holey.get(&(rows, cols, hole))
    }

    /// The lanes (2 or 3) of strips `rows` high.
    #[must_use]
    pub fn lanes(&self, rows: u8, n: u8) -> Option<&Lanes> {
        self.lanes.get(&(rows, n))
    }

    /// The chain piece of `kind`, `width` wide, in a strip `rows` high (from `start`).
    #[must_use]
    pub fn chain(&self, rows: u8, kind: Kind, width: u8, start: Option<Cell>) -> Option<&[Cell]> {
        self.chains
            .get(&(rows, kind, width, start))
            .map(Vec::as_slice)
    }

    /// Widths with a piece of `kind` (without a start square) in strips `rows` high.
    #[must_use]
    pub fn chain_widths(&self, rows: u8, kind: Kind) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .chains
            .keys()
            .filter(|k| k.0 == rows && k.1 == kind && k.3.is_none())
            .map(|k| k.2)
            .collect();
        v.sort_unstable();
        v
    }

    /// All chain pieces with their keys.
    pub fn chains(&self) -> impl Iterator<Item = (&ChainKey, &Vec<Cell>)> {
        self.chains.iter()
    }

    /// All pieces (each orientation once).
    pub fn all(&self) -> impl Iterator<Item = &Piece> {
        self.closed.values().chain(self.holey.values())
    }
}

#[cfg(test)]
mod tests {
    use super::super::search::{Spec, satisfies};
    use super::*;

    fn spec(p: &Piece) -> Spec {
        Spec {
            rows: p.rows,
            cols: p.cols,
            holes: p.hole.into_iter().collect(),
            ..Spec::default()
        }
    }

    #[test]
    fn every_embedded_piece_is_a_cycle_of_its_block() {
        let cat = Catalogue::parse(DATA).unwrap();
        let mut n = 0;
        for p in cat.all() {
            assert!(
                satisfies(&spec(p), &p.cycle),
                "{}x{} {:?}",
                p.rows,
                p.cols,
                p.hole
            );
            n += 1;
        }
        assert!(n > 0);
    }

    #[test]
    fn every_chain_piece_runs_its_lanes() {
        let cat = Catalogue::parse(DATA).unwrap();
        let mut n = 0;
        for (&(rows, kind, width, start), cells) in cat.chains() {
            let side = |k: Option<u8>| k.and_then(|k| cat.lanes(rows, k));
            let (l, r) = kind.sides();
            let spec = lanes::spec(kind, rows, width, side(l), side(r), start)
                .unwrap_or_else(|| panic!("{rows} {kind:?} {width}: the lanes do not fit"));
            assert!(satisfies(&spec, cells), "{rows} {kind:?} {width} {start:?}");
            n += 1;
        }
        assert!(n > 0);
        for rows in [3, 4] {
            for kind in [Kind::Mid2, Kind::CapR2, Kind::Mid3, Kind::CapL3] {
                assert!(!cat.chain_widths(rows, kind).is_empty(), "{rows} {kind:?}");
            }
        }
    }

    #[test]
    fn lines_round_trip_and_bad_lines_are_named() {
        let line = DATA
            .lines()
            .find(|l| l.starts_with("closed"))
            .expect("a closed piece");
        let p = parse_line(line).unwrap();
        assert_eq!(encode(&p.cycle), line.split_whitespace().nth(2).unwrap());
        let err = Catalogue::parse("# header\nclosed 6x6 0z\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(parse_line("open 6x6 00").is_none());
    }

    #[test]
    fn directions_follow_the_cycle() {
        let p = Catalogue::get().closed(6, 6).expect("6x6");
        let (a, b) = (p.cycle[0], p.cycle[1]);
        assert_eq!(p.direction(a, b), Some(true));
        assert_eq!(p.direction(b, a), Some(false));
        assert_eq!(p.direction(a, p.cycle[3]), None);
        let t = p.mapped(true, false, true);
        assert!(satisfies(&spec(&t), &t.cycle));
    }
}
