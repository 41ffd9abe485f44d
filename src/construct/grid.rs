//! Boards with both sides at least 5: a grid of blocks with sides 5 to 11, each a piece, joined
//! into one cycle along a comb-shaped spanning tree, in one pass and 4 bytes a square.

use rayon::prelude::*;

use super::pieces::{Catalogue, Piece};
use super::ports::{self, Join};
use super::search::Cell;
use crate::board::{Board, Square};

/// Odd parts, in order of preference (the 5-high pieces hold fewer port moves).
const ODD_PARTS: [u8; 4] = [7, 9, 5, 11];

/// How a side is cut into parts: even parts of 6, 8 or 10 and, on an odd side, one odd part.
///
/// Even lengths: 8s, with one 10, one 6 or two 6s for the rest. `None` for 2 and 4 (and odd
/// lengths), which no parts of 6 or more make.
fn even_parts(len: u32) -> Option<Vec<u8>> {
    if len % 2 == 1 || len == 2 || len == 4 {
        return None;
    }
    let (head, rest): (&[u8], u32) = match len % 8 {
        0 => (&[], len),
        2 if len >= 10 => (&[10], len - 10),
        4 if len >= 12 => (&[6, 6], len - 12),
        6 => (&[6], len - 6),
        _ => return None,
    };
    let mut v = head.to_vec();
    v.extend(std::iter::repeat_n(8u8, (rest / 8) as usize));
    Some(v)
}

/// The parts of a side of at least 5, with its odd part (if any) last.
fn parts(len: u32) -> Option<Vec<u8>> {
    if len.is_multiple_of(2) {
        return even_parts(len);
    }
    ODD_PARTS.iter().find_map(|&o| {
        let mut v = even_parts(len.checked_sub(u32::from(o))?)?;
        v.push(o);
        Some(v)
    })
}

/// The cuts of an odd side `len` whose odd part covers coordinate `at`: the parts, the index of
/// the odd part and `at`'s offset in it.
fn odd_options(len: u32, at: u32) -> Vec<(Vec<u8>, usize, u8)> {
    let mut out = Vec::new();
    for o in ODD_PARTS {
        let o32 = u32::from(o);
        // the odd part starts at an even `p` with p <= at < p + o
        let lowest = at.saturating_sub(o32 - 1);
        for p in (lowest..=at).rev().filter(|p| p % 2 == 0) {
            let Some(rest) = len.checked_sub(p + o32) else {
                continue;
            };
            if let (Some(mut before), Some(after)) = (even_parts(p), even_parts(rest)) {
                let at_odd = before.len();
                before.push(o);
                before.extend(after);
                out.push((before, at_odd, (at - p) as u8));
            }
        }
    }
    out
}

/// A grid of blocks: their heights (from rank 1 up) and widths (from file a), and on an odd×odd
/// board the block holding the square left out of the cycle, which starts the open tour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GridPlan {
    board: Board,
    heights: Vec<u8>,
    widths: Vec<u8>,
    /// `(block row, block col, square)` of the hole.
    hole: Option<(usize, usize, Square)>,
    from: Square,
}

impl GridPlan {
    /// A plan for `board` (both sides at least 5): a closed tour when the board has an even side,
    /// an open tour from `from` (which must be on a1's colour) when both sides are odd.
    pub(crate) fn new(board: Board, from: Square) -> Option<GridPlan> {
        let cat = Catalogue::get();
        if board.rows < 5 || board.cols < 5 {
            return None;
        }
        if board.squares().is_multiple_of(2) {
            return Some(GridPlan {
                board,
                heights: parts(board.rows)?,
                widths: parts(board.cols)?,
                hole: None,
                from,
            });
        }
        if Board::colour(from) != 0 {
            return None;
        }
        let rows = odd_options(board.rows, from.row);
        let cols = odd_options(board.cols, from.col);
        for (heights, bi, r) in &rows {
            for (widths, bj, c) in &cols {
                if cat.holey(heights[*bi], widths[*bj], (*r, *c)).is_some() {
                    return Some(GridPlan {
                        board,
                        heights: heights.clone(),
                        widths: widths.clone(),
                        hole: Some((*bi, *bj, from)),
                        from,
                    });
                }
            }
        }
        None
    }

    pub(crate) fn board(&self) -> Board {
        self.board
    }

    /// Block sizes used, for the summary.
    pub(crate) fn describe(&self) -> String {
        let mut h = self.heights.clone();
        let mut w = self.widths.clone();
        h.sort_unstable();
        h.dedup();
        w.sort_unstable();
        w.dedup();
        let list = |v: &[u8]| v.iter().map(u8::to_string).collect::<Vec<_>>().join("/");
        format!(
            "{} blocks of {} by {}",
            self.heights.len() * self.widths.len(),
            list(&h),
            list(&w)
        )
    }

    /// The piece of block `(i, j)`.
    fn piece(&self, i: usize, j: usize) -> &'static Piece {
        let cat = Catalogue::get();
        let (h, w) = (self.heights[i], self.widths[j]);
        match self.hole {
            Some((bi, bj, sq)) if (bi, bj) == (i, j) => {
                let y = self.heights[..i].iter().map(|&x| u32::from(x)).sum::<u32>();
                let x = self.widths[..j].iter().map(|&x| u32::from(x)).sum::<u32>();
                cat.holey(h, w, ((sq.row - y) as u8, (sq.col - x) as u8))
                    .expect("checked by the plan")
            }
            _ => cat
                .closed(h, w)
                .expect("a closed piece of every size (tested)"),
        }
    }

    /// The pieces in use, each once with its squares as offsets on this board, and which one
    /// each block takes: a few pieces serve a million blocks.
    fn placed(&self) -> (Vec<Placed>, impl Fn(usize, usize) -> usize + Sync + '_) {
        let cols = self.board.cols;
        let mut placed: Vec<Placed> = Vec::new();
        let mut id_of = |piece: &'static Piece| -> usize {
            if let Some(k) = placed.iter().position(|p| std::ptr::eq(p.piece, piece)) {
                return k;
            }
            let offs = piece
                .cycle
                .iter()
                .map(|&(r, c)| u32::from(r) * cols + u32::from(c))
                .collect();
            placed.push(Placed { piece, offs });
            placed.len() - 1
        };
        let distinct = |v: &[u8]| {
            let mut d = v.to_vec();
            d.sort_unstable();
            d.dedup();
            d
        };
        let (hs, ws) = (distinct(&self.heights), distinct(&self.widths));
        let hi: Vec<usize> = self
            .heights
            .iter()
            .map(|h| hs.binary_search(h).expect("listed"))
            .collect();
        let wi: Vec<usize> = self
            .widths
            .iter()
            .map(|w| ws.binary_search(w).expect("listed"))
            .collect();
        // one representative block of each size (not the hole's)
        let mut table = vec![usize::MAX; hs.len() * ws.len()];
        for (i, &a) in hi.iter().enumerate() {
            for (j, &b) in wi.iter().enumerate() {
                if table[a * ws.len() + b] == usize::MAX
                    && self.hole.is_none_or(|(bi, bj, _)| (bi, bj) != (i, j))
                {
                    table[a * ws.len() + b] = id_of(self.piece(i, j));
                }
            }
        }
        let hole = self
            .hole
            .map(|(bi, bj, _)| (bi, bj, id_of(self.piece(bi, bj))));
        let nw = ws.len();
        let which = move |i: usize, j: usize| match hole {
            Some((bi, bj, k)) if (bi, bj) == (i, j) => k,
            _ => table[hi[i] * nw + wi[j]],
        };
        (placed, which)
    }

    /// Builds the successor array: each block row on its own thread, then the joins between
    /// block rows. `None` if two blocks cannot be joined (the sweep tests say this never happens).
    pub(crate) fn build(&self) -> Option<(Vec<u32>, u32)> {
        let cols = self.board.cols;
        let (p, q) = (self.heights.len(), self.widths.len());
        let ys: Vec<u32> = offsets(&self.heights);
        let xs: Vec<u32> = offsets(&self.widths);
        let (placed, which) = self.placed();
        // column 0, bottom to top: each block joins the one below; this fixes the blocks'
        // directions there, from which each block row fixes its own
        let mut first_flip = vec![false; p];
        let mut vertical: Vec<Option<Merge>> = vec![None; p];
        for i in 1..p {
            let (a, b) = (placed[which(i - 1, 0)].piece, placed[which(i, 0)].piece);
            let joins = ports::above(self.widths[0], self.heights[i - 1]);
            let (flip, merge) = choose(&joins, a, first_flip[i - 1], b)?;
            first_flip[i] = flip;
            let at_a = |c: Cell| global(cols, ys[i - 1], xs[0], c);
            let at_b = |c: Cell| global(cols, ys[i], xs[0], c);
            vertical[i] = Some(merge.place(at_a, at_b));
        }
        let mut next = vec![0u32; self.board.squares() as usize];
        // the block rows' slices of the board, for the threads
        let mut slices: Vec<(usize, &mut [u32])> = Vec::with_capacity(p);
        let mut rest: &mut [u32] = &mut next;
        for (i, &h) in self.heights.iter().enumerate() {
            let (mine, tail) = rest.split_at_mut(h as usize * cols as usize);
            slices.push((i, mine));
            rest = tail;
        }
        let ok = slices.into_par_iter().all(|(i, slice)| {
            let base = ys[i] * cols;
            let local = |c: Cell, x: u32| u32::from(c.0) * cols + x + u32::from(c.1);
            // the join of two pieces depends on them alone: found once per pair
            let mut joins: Vec<Option<Option<(bool, CellMerge)>>> =
                vec![None; placed.len() * placed.len() * 2];
            let mut flip = first_flip[i];
            let mut a = which(i, 0);
            write(slice, base, &placed[a], flip, xs[0]);
            for j in 1..q {
                let b = which(i, j);
                let key = (a * placed.len() + b) * 2 + usize::from(flip);
                let found = *joins[key].get_or_insert_with(|| {
                    let options = ports::beside(self.heights[i], self.widths[j - 1]);
                    choose(&options, placed[a].piece, flip, placed[b].piece)
                });
                let Some((fb, merge)) = found else {
                    return false;
                };
                write(slice, base, &placed[b], fb, xs[j]);
                let m = merge.place(|c| local(c, xs[j - 1]), |c| local(c, xs[j]));
                slice[m.from_a as usize] = base + m.to_b;
                slice[m.from_b as usize] = base + m.to_a;
                (a, flip) = (b, fb);
            }
            true
        });
        if !ok {
            return None;
        }
        for m in vertical.into_iter().flatten() {
            next[m.from_a as usize] = m.to_b;
            next[m.from_b as usize] = m.to_a;
        }
        let first = self.board.index(self.from);
        if self.hole.is_some() {
            // the square left out starts the tour and steps onto the cycle
            let (r, c) = (i64::from(self.from.row), i64::from(self.from.col));
            let onto = crate::graph::KNIGHT_OFFSETS
                .iter()
                .map(|&(dr, dc)| (r + i64::from(dr), c + i64::from(dc)))
                .find(|&(nr, nc)| self.board.contains(nr, nc))
                .expect("every square of a board of 5x5 or more has a move");
            next[first as usize] = onto.0 as u32 * cols + onto.1 as u32;
        }
        Some((next, first))
    }
}

/// A piece with its squares as offsets from its block's first square on one board.
struct Placed {
    piece: &'static Piece,
    offs: Vec<u32>,
}

/// Where each part starts.
fn offsets(parts: &[u8]) -> Vec<u32> {
    parts
        .iter()
        .scan(0u32, |acc, &x| {
            let at = *acc;
            *acc += u32::from(x);
            Some(at)
        })
        .collect()
}

fn global(cols: u32, y: u32, x: u32, c: Cell) -> u32 {
    (y + u32::from(c.0)) * cols + x + u32::from(c.1)
}

/// A chosen join, in cells: the move `x0 -> x1` of A as A runs, and the cross moves that replace
/// it and B's move.
#[derive(Clone, Copy, Debug)]
struct CellMerge {
    /// A runs `a0 -> a1`; B then runs `b1 -> b0`, and the merge adds `a0 -> b0`, `b1 -> a1`.
    a0: Cell,
    a1: Cell,
    b0: Cell,
    b1: Cell,
}

/// A merge in board indices: `next[from_a] = to_b`, `next[from_b] = to_a`.
#[derive(Clone, Copy, Debug)]
struct Merge {
    from_a: u32,
    to_b: u32,
    from_b: u32,
    to_a: u32,
}

impl CellMerge {
    fn place(self, at_a: impl Fn(Cell) -> u32, at_b: impl Fn(Cell) -> u32) -> Merge {
        Merge {
            from_a: at_a(self.a0),
            to_b: at_b(self.b0),
            from_b: at_b(self.b1),
            to_a: at_a(self.a1),
        }
    }
}

/// The first join whose two moves both pieces hold, with the direction B must run in so that the
/// swap makes one cycle (A runs `a0 -> a1` exactly when B runs `b1 -> b0`).
fn choose(joins: &[Join], a: &Piece, a_flip: bool, b: &Piece) -> Option<(bool, CellMerge)> {
    joins.iter().find_map(|&j| {
        let da = a.direction(j.a.0, j.a.1)? != a_flip;
        let db = b.direction(j.b.0, j.b.1)?;
        // B must run b0 -> b1 exactly when A runs a1 -> a0
        let b_flip = db == da;
        let m = if da {
            CellMerge {
                a0: j.a.0,
                a1: j.a.1,
                b0: j.b.0,
                b1: j.b.1,
            }
        } else {
            CellMerge {
                a0: j.a.1,
                a1: j.a.0,
                b0: j.b.1,
                b1: j.b.0,
            }
        };
        Some((b_flip, m))
    })
}

/// Writes a piece's cycle into the block row's slice (`base`: the slice's first index on the
/// board; `x`: the block's first column), forwards or backwards.
fn write(slice: &mut [u32], base: u32, placed: &Placed, flip: bool, x: u32) {
    let o = &placed.offs;
    let n = o.len();
    let at = |k: usize| (x + o[k]) as usize;
    let to = |k: usize| base + x + o[k];
    if flip {
        slice[at(0)] = to(n - 1);
        for k in 1..n {
            slice[at(k)] = to(k - 1);
        }
    } else {
        for k in 0..n - 1 {
            slice[at(k)] = to(k + 1);
        }
        slice[at(n - 1)] = to(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_side_from_5_is_cut() {
        for len in 5..=200u32 {
            let p = parts(len).unwrap_or_else(|| panic!("{len}"));
            assert_eq!(p.iter().map(|&x| u32::from(x)).sum::<u32>(), len);
            assert!(p.iter().filter(|&&x| x % 2 == 1).count() <= 1);
        }
        assert_eq!(even_parts(4), None);
        assert_eq!(even_parts(10), Some(vec![10]));
        assert_eq!(even_parts(20), Some(vec![6, 6, 8]));
    }

    #[test]
    fn odd_options_cover_every_coordinate() {
        for len in (5..=61u32).step_by(2) {
            for at in 0..len {
                let opts = odd_options(len, at);
                assert!(!opts.is_empty(), "{len} at {at}");
                for (parts, k, off) in opts {
                    assert_eq!(parts.iter().map(|&x| u32::from(x)).sum::<u32>(), len);
                    let start: u32 = parts[..k].iter().map(|&x| u32::from(x)).sum();
                    assert_eq!(start + u32::from(off), at);
                    assert!(off < parts[k] && parts[k] % 2 == 1);
                }
            }
        }
    }
}
