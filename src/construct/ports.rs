//! Where neighbouring blocks join: the pairs of moves a merge swaps, and the eight "port" moves a
//! closed piece holds so that it can join a neighbour on any side.
//!
//! Two cycles in neighbouring blocks become one by a 2-swap: drop a move `a0-a1` of block A and a
//! move `b0-b1` of block B, add the moves `a0-b0` and `a1-b1` across the boundary. Near each end
//! of a shared side there are two ways to place the four squares: one block uses a move at its
//! corner (which every closed tour of it holds, the corner having only two moves) and the other a
//! port move. Parberry's structured tours rest on the same idea with other moves.

use super::search::Cell;

/// The two moves a merge swaps, in each block's own coordinates: `a.0-a.1` in block A and
/// `b.0-b.1` in block B, with `a.0-b.0` and `a.1-b.1` moves across the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Join {
    pub a: (Cell, Cell),
    pub b: (Cell, Cell),
}

/// The four joins of A (left) and B (right), both `rows` high, A `wa` wide.
#[must_use]
pub fn beside(rows: u8, wa: u8) -> [Join; 4] {
    let h = rows;
    [
        Join {
            a: ((0, wa - 1), (2, wa - 2)),
            b: ((1, 1), (3, 0)),
        },
        Join {
            a: ((1, wa - 2), (3, wa - 1)),
            b: ((0, 0), (2, 1)),
        },
        Join {
            a: ((h - 1, wa - 1), (h - 3, wa - 2)),
            b: ((h - 2, 1), (h - 4, 0)),
        },
        Join {
            a: ((h - 2, wa - 2), (h - 4, wa - 1)),
            b: ((h - 1, 0), (h - 3, 1)),
        },
    ]
}

/// The four joins of A (below: lower ranks) and B (above), both `cols` wide, A `ha` high: the
/// transposes of [`beside`].
#[must_use]
pub fn above(cols: u8, ha: u8) -> [Join; 4] {
    let t = |(r, c): Cell| (c, r);
    beside(cols, ha).map(|j| Join {
        a: (t(j.a.0), t(j.a.1)),
        b: (t(j.b.0), t(j.b.1)),
    })
}

/// The eight port moves of a `rows`×`cols` block: the moves of the joins above that do not touch
/// a corner, two at each corner.
#[must_use]
pub fn port_moves(rows: u8, cols: u8) -> Vec<(Cell, Cell)> {
    let corner = |(r, c): Cell| (r == 0 || r == rows - 1) && (c == 0 || c == cols - 1);
    let mut v = Vec::new();
    // as B (left and bottom sides), as A (right and top sides)
    for j in beside(rows, cols).into_iter().chain(above(cols, rows)) {
        for m in [j.a, j.b] {
            let m = if corner(m.0) || corner(m.1) {
                continue;
            } else {
                m
            };
            if !v.contains(&m) {
                v.push(m);
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knight(a: (i32, i32), b: (i32, i32)) -> bool {
        let (dr, dc) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
        (dr, dc) == (1, 2) || (dr, dc) == (2, 1)
    }

    #[test]
    fn joins_swap_moves_for_moves() {
        for h in 5..=11u8 {
            for w in 5..=11u8 {
                // A at the origin, B beside it (columns from w) and above it (rows from h)
                let at = |(r, c): Cell, dr: u8, dc: u8| (i32::from(r + dr), i32::from(c + dc));
                for j in beside(h, w) {
                    let (a0, a1) = (at(j.a.0, 0, 0), at(j.a.1, 0, 0));
                    let (b0, b1) = (at(j.b.0, 0, w), at(j.b.1, 0, w));
                    assert!(knight(a0, a1) && knight(b0, b1), "{h}x{w} {j:?}");
                    assert!(knight(a0, b0) && knight(a1, b1), "{h}x{w} {j:?}");
                    assert!(a0.1 < i32::from(w) && b0.1 >= i32::from(w) && b1.1 >= i32::from(w));
                }
                for j in above(w, h) {
                    let (a0, a1) = (at(j.a.0, 0, 0), at(j.a.1, 0, 0));
                    let (b0, b1) = (at(j.b.0, h, 0), at(j.b.1, h, 0));
                    assert!(knight(a0, a1) && knight(b0, b1), "{h}x{w} {j:?}");
                    assert!(knight(a0, b0) && knight(a1, b1), "{h}x{w} {j:?}");
                }
                assert_eq!(port_moves(h, w).len(), 8, "{h}x{w}");
            }
        }
    }
}
