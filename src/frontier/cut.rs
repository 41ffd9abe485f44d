//! The choice of cut: where a count meets in the middle, and why it cannot.

use super::*;

/// How a symmetric count is split for meeting in the middle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cut {
    /// Columns of the left half.
    pub(super) left: u32,
    /// Columns of the right half (the walk from the other end).
    pub(super) right: u32,
    /// Columns of the crossing (the piece's reach).
    pub(super) cross: u32,
}

/// Whether meeting in the middle applies: room for the crossing, a column past it (so every tour
/// crosses the cut: no tour fits the left half and the crossing alone), boundary squares the
/// join handles, and each with a move into the left half (so that the right half's walk, which
/// ends there, still has every boundary square in its window).
pub(super) fn cut_for(walk: &Walk, left: u32) -> Option<Cut> {
    let h = walk.reach;
    let right = walk.len.saturating_sub(left);
    let (first, w) = (left * walk.w, walk.w);
    let reaches_left = (first..(left + h).min(walk.len) * w)
        .all(|v| walk.nb[v as usize].iter().any(|&u| u < first));
    (h >= 1 && left >= 1 && right > h && h * walk.w <= MAX_BOUNDARY && reaches_left).then_some(
        Cut {
            left,
            right,
            cross: h,
        },
    )
}

/// The cut [`auto_cut`] makes on a board `len` columns long whose piece crosses `cross`
/// columns, where the board's width allows one: the left half `(len - 1) / 2` columns, and a
/// right half of at least one column more than the crossing.
pub(super) fn middle(len: u32, cross: u32) -> Option<Cut> {
    let left = len.saturating_sub(1) / 2;
    let right = len - left;
    (left >= 1 && right > cross).then_some(Cut { left, right, cross })
}

/// Why a count cannot meet in the middle, as the end of "meeting in the middle needs ...": a
/// symmetric count (mirror images are merged at the meeting), or a board long enough for two
/// halves and the crossing between them.
pub(super) fn no_meeting(walk: &Walk, symmetric: bool, board: Board) -> String {
    let (h, w) = (walk.reach.max(1), walk.w);
    // the shortest long side with a left half of a column and a right half longer than the
    // crossing, met at `(len - 1) / 2` as `cut_for` is asked
    let fits = |len: u32| (len - 1) / 2 >= 1 && len - (len - 1) / 2 > h;
    if !symmetric {
        "a symmetric count (no --from, --to or --no-symmetry)".to_string()
    } else if !fits(walk.len) {
        let shortest = (walk.len..).find(|&n| fits(n)).unwrap_or(walk.len);
        format!(
            "a board of at least {shortest} columns along its long side, and {board} has {}",
            walk.len
        )
    } else if h * w > MAX_BOUNDARY {
        format!(
            "a crossing of at most {MAX_BOUNDARY} squares, and the piece's crossing on {board} has {}",
            h * w
        )
    } else {
        format!(
            "a crossing whose every square the piece reaches from the left half, and on {board} some it does not"
        )
    }
}

/// The cut `Method::Auto` meets at, for a symmetric count: the left half one column shorter
/// than the right on a board of even length, as long as the right on an odd length. The
/// crossing, whose squares never leave its window, reads some hundreds of states for each state
/// it starts from, and the right half's last column some tens (see `meet.rs`), so the crossing
/// starts from the smaller table: 8x8 closed read 690 million states so, against 1.2 billion
/// meeting after four columns (6x8 open took 4.4 s against 21 s in the engine before the tree).
pub(super) fn auto_cut(walk: &Walk, symmetric: bool) -> Option<Cut> {
    if !symmetric {
        return None;
    }
    cut_for(walk, (walk.len - 1) / 2)
}
