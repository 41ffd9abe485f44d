//! Boards 3 or 4 squares wide: chains of blocks crossed by lanes. The tour runs along the strip
//! in lanes, each lane a move across every boundary between blocks; a block's piece is a set of
//! paths joining the lanes that enter it to those that leave it.
//!
//! A closed tour of 3×n goes out along one lane and back along another (caps at the ends). An
//! open tour of 4×n from a square in the middle needs three lanes on one side: every move from
//! the outer lines reaches the middle lines, so a tour runs outer and middle squares by turns
//! except for one middle-to-middle move, and the outer squares before that move are all of the
//! start's colour, those after it all of the other (Schwenk's argument). So the tour goes out to
//! one end, back past the start to the other end, turns there (with that one move) and comes
//! back to end at the first end: three lanes on the first side, two on the other. The start's
//! block joins them; 3×n uses the same shapes.

use std::fmt;

use super::search::{Cell, Spec};

/// A move across the boundary between a block and the next: from `left` (row, and 1 or 2 for
/// the last or the second-last column of the left block) to `right` (row, column 0 or 1 of the
/// right block), taken left to right when `rightward`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lane {
    pub left: (u8, u8),
    pub right: Cell,
    pub rightward: bool,
}

/// The lanes that cross every boundary of one kind.
pub type Lanes = Vec<Lane>;

impl Lane {
    /// The left square in a block `width` wide.
    #[must_use]
    pub fn left_cell(self, width: u8) -> Cell {
        (self.left.0, width - self.left.1)
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},{}{}{},{}",
            self.left.0,
            self.left.1,
            if self.rightward { '>' } else { '<' },
            self.right.0,
            self.right.1
        )
    }
}

/// Reads a lane as [`Lane`]'s `Display` writes it: `R,D>R,C` or `R,D<R,C`.
#[must_use]
pub fn parse_lane(s: &str) -> Option<Lane> {
    let (rightward, (a, b)) = match (s.split_once('>'), s.split_once('<')) {
        (Some(p), None) => (true, p),
        (None, Some(p)) => (false, p),
        _ => return None,
    };
    let pair = |x: &str| -> Option<(u8, u8)> {
        let (p, q) = x.split_once(',')?;
        Some((p.parse().ok()?, q.parse().ok()?))
    };
    let lane = Lane {
        left: pair(a)?,
        right: pair(b)?,
        rightward,
    };
    (matches!(lane.left.1, 1 | 2) && lane.right.1 <= 1).then_some(lane)
}

/// Every move across a boundary of a strip `rows` high: a knight's move from the last two
/// columns of a block to the first two of the next.
#[must_use]
pub fn crossings(rows: u8) -> Vec<(u8, u8, Cell)> {
    let mut v = Vec::new();
    for r in 0..rows {
        for back in 1..=2u8 {
            for r2 in 0..rows {
                for c2 in 0..=1u8 {
                    let dist = back + c2;
                    let dr = r.abs_diff(r2);
                    if (dr, dist) == (1, 2) || (dr, dist) == (2, 1) {
                        v.push((r, back, (r2, c2)));
                    }
                }
            }
        }
    }
    v
}

/// The kinds of block in a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Two lanes through: out along the first, back along the second.
    Mid2,
    /// The left end of a closed chain: back along the second lane, out along the first.
    CapL2,
    /// The right end: in along the first lane, out along the second.
    CapR2,
    /// Three lanes through: back, out, back.
    Mid3,
    /// The left end of the three lanes: in on the first, out on the second; the third ends here.
    CapL3,
    /// The start's block, three lanes on its left, two on its right.
    Start,
    /// The start's block at the left end (two lanes on its right); the tour ends in it.
    StartL,
    /// The start's block at the right end (three lanes on its left).
    StartR,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Mid2,
        Kind::CapL2,
        Kind::CapR2,
        Kind::Mid3,
        Kind::CapL3,
        Kind::Start,
        Kind::StartL,
        Kind::StartR,
    ];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mid2 => "mid2",
            Kind::CapL2 => "capl2",
            Kind::CapR2 => "capr2",
            Kind::Mid3 => "mid3",
            Kind::CapL3 => "capl3",
            Kind::Start => "start",
            Kind::StartL => "startl",
            Kind::StartR => "startr",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Whether the block holds the tour's start.
    #[must_use]
    pub fn has_start(self) -> bool {
        matches!(self, Kind::Start | Kind::StartL | Kind::StartR)
    }

    /// The lanes on the block's left and right: 2 for the two-lane kind, 3 for the three-lane one.
    #[must_use]
    pub fn sides(self) -> (Option<u8>, Option<u8>) {
        match self {
            Kind::Mid2 => (Some(2), Some(2)),
            Kind::CapL2 => (None, Some(2)),
            Kind::CapR2 => (Some(2), None),
            Kind::Mid3 => (Some(3), Some(3)),
            Kind::CapL3 => (None, Some(3)),
            Kind::Start => (Some(3), Some(2)),
            Kind::StartL => (None, Some(2)),
            Kind::StartR => (Some(3), None),
        }
    }
}

/// A square where a path of a piece begins or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Lane `k` of the block's left (`false`) or right (`true`) boundary.
    Lane { right: bool, k: usize },
    /// The tour's start.
    Start,
    /// Anywhere: the tour's end.
    End,
}

/// The paths of a block of `kind`, in order: each from its first term to its second; the last
/// either ends the tour or comes back to the first path's beginning.
#[must_use]
pub fn route(kind: Kind) -> Vec<(Term, Term)> {
    let l = |k| Term::Lane { right: false, k };
    let r = |k| Term::Lane { right: true, k };
    match kind {
        Kind::Mid2 => vec![(l(0), r(0)), (r(1), l(1))],
        Kind::CapL2 => vec![(r(1), r(0))],
        Kind::CapR2 => vec![(l(0), l(1))],
        Kind::Mid3 => vec![(r(0), l(0)), (l(1), r(1)), (r(2), l(2))],
        Kind::CapL3 => vec![(r(0), r(1)), (r(2), Term::End)],
        Kind::Start => vec![(Term::Start, l(0)), (l(1), r(0)), (r(1), l(2))],
        Kind::StartL => vec![(Term::Start, r(0)), (r(1), Term::End)],
        Kind::StartR => vec![(Term::Start, l(0)), (l(1), l(2))],
    }
}

/// A block's terminal square for `term`: lanes `left` cross its left boundary, `right` its right.
#[must_use]
pub fn term_cell(
    term: Term,
    width: u8,
    left: Option<&Lanes>,
    right: Option<&Lanes>,
    start: Option<Cell>,
) -> Option<Cell> {
    match term {
        Term::Lane { right: false, k } => left.map(|ls| ls[k].right),
        Term::Lane { right: true, k } => right.map(|ls| ls[k].left_cell(width)),
        Term::Start => start,
        Term::End => None,
    }
}

/// Whether a lane is entered (not left) at this term's square: a lane on the block's left is
/// entered when it runs rightwards, one on its right when it runs leftwards.
#[must_use]
pub fn enters(term: Term, left: Option<&Lanes>, right: Option<&Lanes>) -> bool {
    match term {
        Term::Lane { right: false, k } => left.is_some_and(|ls| ls[k].rightward),
        Term::Lane { right: true, k } => right.is_some_and(|ls| !ls[k].rightward),
        Term::Start => true,
        Term::End => false,
    }
}

/// The search that finds a piece of `kind`, `width` wide (`rows` high), for the given lanes and
/// start square: the paths as one cycle joined by extra edges from each path's end to the next
/// one's beginning (a path from the first term when the tour ends in the block). `None` when the
/// terms do not fit the block (two on one square, or a lane running the wrong way).
#[must_use]
pub fn spec(
    kind: Kind,
    rows: u8,
    width: u8,
    left: Option<&Lanes>,
    right: Option<&Lanes>,
    start: Option<Cell>,
) -> Option<Spec> {
    let paths = route(kind);
    let mut cells: Vec<Cell> = Vec::new();
    let mut ends: Vec<(Cell, Option<Cell>)> = Vec::new();
    for &(a, b) in &paths {
        if !enters(a, left, right) || (b != Term::End && enters(b, left, right)) {
            return None;
        }
        let ca = term_cell(a, width, left, right, start)?;
        let cb = match b {
            Term::End => None,
            t => Some(term_cell(t, width, left, right, start)?),
        };
        cells.push(ca);
        cells.extend(cb);
        ends.push((ca, cb));
    }
    let mut sorted = cells.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != cells.len() || cells.iter().any(|&(r, c)| r >= rows || c >= width) {
        return None;
    }
    let open = ends.last().is_some_and(|e| e.1.is_none());
    let mut extra = Vec::new();
    for k in 0..ends.len() {
        if let Some(out) = ends[k].1 {
            extra.push((out, ends[(k + 1) % ends.len()].0));
        }
    }
    Some(Spec {
        rows,
        cols: width,
        holes: Vec::new(),
        required: Vec::new(),
        extra,
        open_from: open.then_some(ends[0].0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_print_and_read_back() {
        for rows in [3u8, 4] {
            for (r, back, right) in crossings(rows) {
                for rightward in [false, true] {
                    let lane = Lane {
                        left: (r, back),
                        right,
                        rightward,
                    };
                    assert_eq!(parse_lane(&lane.to_string()), Some(lane));
                    // a knight's move across the boundary of blocks 5 wide
                    let (a, b) = (lane.left_cell(5), right);
                    let (dr, dc) = (a.0.abs_diff(b.0), 5 + b.1 - a.1);
                    assert!((dr, dc) == (1, 2) || (dr, dc) == (2, 1), "{lane}");
                }
            }
        }
        assert_eq!(parse_lane("0,3>1,0"), None);
        assert!(Kind::ALL.iter().all(|&k| Kind::parse(k.name()) == Some(k)));
    }

    #[test]
    fn routes_enter_where_lanes_come_in() {
        let t2 = vec![
            Lane {
                left: (0, 1),
                right: (2, 0),
                rightward: true,
            },
            Lane {
                left: (2, 1),
                right: (0, 0),
                rightward: false,
            },
        ];
        let s = spec(Kind::Mid2, 3, 6, Some(&t2), Some(&t2), None).unwrap();
        assert_eq!(s.extra, vec![((0, 5), (2, 5)), ((0, 0), (2, 0))]);
        assert!(s.open_from.is_none());
        // a start on a terminal square does not fit
        assert!(spec(Kind::StartL, 3, 6, None, Some(&t2), Some((0, 5))).is_none());
        let open = spec(Kind::StartL, 3, 6, None, Some(&t2), Some((1, 1))).unwrap();
        assert_eq!(open.open_from, Some((1, 1)));
    }
}
