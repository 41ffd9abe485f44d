//! Boards 3 or 4 wide: a chain of blocks joined by lanes (`lanes.rs`), planned from the widths
//! the pieces come in and written in one pass.

use super::lanes::{self, Kind, Lanes, Term};
use super::pieces::Catalogue;
use super::search::Cell;
use crate::board::{Board, Square};
use crate::tour::NO_SQUARE;

/// A block of the chain: its kind, width and (in the start's block) the start square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    kind: Kind,
    width: u8,
    start: Option<Cell>,
}

/// A chain along a strip `rows` high and `len` long, laid on the board (transposed when the
/// board is 3 or 4 files wide, mirrored when the chain runs from the right, flipped when its
/// rows run downwards).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StripPlan {
    board: Board,
    rows: u8,
    len: u32,
    transposed: bool,
    mirrored: bool,
    flipped: bool,
    blocks: Vec<Block>,
    from: Square,
}

/// Which sums of `parts` (each any number of times) make each length up to `len`: the last part
/// of a way to make it, 0 for none (and for 0 itself).
fn sums(parts: &[u8], len: u32) -> Vec<u8> {
    let mut last = vec![0u8; len as usize + 1];
    for x in 1..=len as usize {
        last[x] = parts
            .iter()
            .copied()
            .find(|&p| {
                usize::from(p) <= x && (usize::from(p) == x || last[x - usize::from(p)] != 0)
            })
            .unwrap_or(0);
    }
    last
}

/// The parts of a way to make `x` (from [`sums`]).
fn unroll(last: &[u8], mut x: usize) -> Vec<u8> {
    let mut v = Vec::new();
    while x > 0 {
        let p = last[x];
        v.push(p);
        x -= usize::from(p);
    }
    v
}

/// A cap and middles as blocks, the cap first or last.
fn capped(cap: (Kind, u8), mid: Kind, mids: Vec<u8>, cap_first: bool) -> Vec<Block> {
    let block = |kind, width| Block {
        kind,
        width,
        start: None,
    };
    let mut v: Vec<Block> = mids.into_iter().map(|w| block(mid, w)).collect();
    if cap_first {
        v.insert(0, block(cap.0, cap.1));
    } else {
        v.push(block(cap.0, cap.1));
    }
    v
}

/// A cap of one of `caps` widths and middles making `x` together: (cap, middles).
fn cap_and_middles(caps: &[u8], mids: &[u8], x: u32) -> Option<(u8, Vec<u8>)> {
    let last = sums(mids, x);
    caps.iter().find_map(|&c| {
        let rest = x.checked_sub(u32::from(c))? as usize;
        (rest == 0 || last[rest] != 0).then(|| (c, unroll(&last, rest)))
    })
}

impl StripPlan {
    /// A plan for a closed tour (3 high) or an open one from `from`; `None` where no chain of
    /// the pieces fits (short strips: the searches take those).
    pub(crate) fn new(
        cat: &Catalogue,
        board: Board,
        closed: bool,
        from: Square,
    ) -> Option<StripPlan> {
        let h = board.rows.min(board.cols);
        if !(3..=4).contains(&h) || board.rows == board.cols {
            return None;
        }
        let rows = h as u8;
        let transposed = board.cols == h;
        let len = board.rows.max(board.cols);
        let (vr, vc) = if transposed {
            (from.col, from.row)
        } else {
            (from.row, from.col)
        };
        let plan = |mirrored: bool, flipped: bool, blocks: Vec<Block>| StripPlan {
            board,
            rows,
            len,
            transposed,
            mirrored,
            flipped,
            blocks,
            from,
        };
        let widths = |k| cat.chain_widths(rows, k);
        if closed {
            let (a, mids) = widths(Kind::CapL2).iter().find_map(|&a| {
                let rest = len.checked_sub(u32::from(a))?;
                cap_and_middles(&widths(Kind::CapR2), &widths(Kind::Mid2), rest)
                    .map(|(c, mids)| (a, (c, mids)))
            })?;
            let (c, mids) = mids;
            let mut blocks = capped((Kind::CapL2, a), Kind::Mid2, Vec::new(), true);
            blocks.extend(capped((Kind::CapR2, c), Kind::Mid2, mids, false));
            return Some(plan(false, false, blocks));
        }
        for (mirrored, flipped) in [(false, false), (true, false), (false, true), (true, true)] {
            let sc = if mirrored { len - 1 - vc } else { vc };
            let sr = if flipped { h - 1 - vr } else { vr };
            for w in 3..=10u8 {
                let w32 = u32::from(w);
                for p in sc.saturating_sub(w32 - 1)..=sc {
                    if p + w32 > len {
                        continue;
                    }
                    let right = len - p - w32;
                    let kind = match (p, right) {
                        (0, 0) => continue,
                        (0, _) => Kind::StartL,
                        (_, 0) => Kind::StartR,
                        _ => Kind::Start,
                    };
                    let start = Some((sr as u8, (sc - p) as u8));
                    if cat.chain(rows, kind, w, start).is_none() {
                        continue;
                    }
                    let left_part = if p == 0 {
                        Some(Vec::new())
                    } else {
                        cap_and_middles(&widths(Kind::CapL3), &widths(Kind::Mid3), p)
                            .map(|(c, mids)| capped((Kind::CapL3, c), Kind::Mid3, mids, true))
                    };
                    let right_part = if right == 0 {
                        Some(Vec::new())
                    } else {
                        cap_and_middles(&widths(Kind::CapR2), &widths(Kind::Mid2), right)
                            .map(|(c, mids)| capped((Kind::CapR2, c), Kind::Mid2, mids, false))
                    };
                    if let (Some(mut blocks), Some(rp)) = (left_part, right_part) {
                        blocks.push(Block {
                            kind,
                            width: w,
                            start,
                        });
                        blocks.extend(rp);
                        return Some(plan(mirrored, flipped, blocks));
                    }
                }
            }
        }
        None
    }

    pub(crate) fn board(&self) -> Board {
        self.board
    }

    /// The blocks used, for the summary.
    pub(crate) fn describe(&self) -> String {
        format!("a chain of {} blocks", self.blocks.len())
    }

    /// The board index of the chain's square `(row, col)`.
    fn index(&self, row: u8, col: u32) -> u32 {
        let c = if self.mirrored {
            self.len - 1 - col
        } else {
            col
        };
        let row = if self.flipped {
            self.rows - 1 - row
        } else {
            row
        };
        if self.transposed {
            c * self.board.cols + u32::from(row)
        } else {
            u32::from(row) * self.board.cols + c
        }
    }

    /// Writes the chain: within each piece its moves; from each square where a path leaves the
    /// block, the move across the boundary to where its lane enters the neighbour.
    pub(crate) fn build(&self) -> Option<(Vec<u32>, u32)> {
        let cat = Catalogue::get();
        let mut next = vec![NO_SQUARE; self.board.squares() as usize];
        let lanes_of = |n: Option<u8>| n.and_then(|n| cat.lanes(self.rows, n));
        let mut x = 0u32;
        for (b, block) in self.blocks.iter().enumerate() {
            let cells = cat.chain(self.rows, block.kind, block.width, block.start)?;
            let (nl, nr) = block.kind.sides();
            let (left, right): (Option<&Lanes>, Option<&Lanes>) = (lanes_of(nl), lanes_of(nr));
            // where each exit square of the block leads
            let mut exits: Vec<(Cell, u32)> = Vec::new();
            let mut open = false;
            for (_, t) in lanes::route(block.kind) {
                match t {
                    Term::End => open = true,
                    Term::Lane { right: true, k } => {
                        let lane = right?[k];
                        let to = x + u32::from(block.width) + u32::from(lane.right.1);
                        exits.push((lane.left_cell(block.width), self.index(lane.right.0, to)));
                    }
                    Term::Lane { right: false, k } => {
                        let lane = left?[k];
                        if b == 0 {
                            return None;
                        }
                        let to = x - u32::from(lane.left.1);
                        exits.push((lane.right, self.index(lane.left.0, to)));
                    }
                    Term::Start => return None,
                }
            }
            let at = |c: Cell| self.index(c.0, x + u32::from(c.1));
            let n = cells.len();
            let steps = if open { n - 1 } else { n };
            for k in 0..steps {
                let (u, v) = (cells[k], cells[(k + 1) % n]);
                next[at(u) as usize] = match exits.iter().find(|e| e.0 == u) {
                    Some(&(_, to)) => to,
                    None => at(v),
                };
            }
            x += u32::from(block.width);
        }
        Some((next, self.board.index(self.from)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_make_lengths() {
        let last = sums(&[4, 6], 20);
        assert_eq!(last[0], 0);
        assert_eq!(last[5], 0);
        let mut v = unroll(&last, 14);
        v.sort_unstable();
        assert_eq!(v.iter().map(|&p| u32::from(p)).sum::<u32>(), 14);
        assert_eq!(cap_and_middles(&[5, 7], &[4, 6], 5), Some((5, vec![])));
        assert_eq!(cap_and_middles(&[5, 7], &[4, 6], 6), None);
    }
}
