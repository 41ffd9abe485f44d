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

/// The longest a board is against its side across, at the least, for `Method::Auto` to sweep it
/// by sums ([`sweeps_by_sums`]).
const SUMS_LENGTH: u32 = 4;

/// The widest window `Method::Auto` sweeps an open count by sums: the knight's 6 wide, the
/// widest measured (7 wide open saturates at far more states).
const SUMS_WINDOW: u32 = 16;

/// The widest window `Method::Auto` sweeps a closed count by sums: the knight's 7 wide (7x28
/// closed: 101 s swept, 400 s met in the middle, on 2 cores).
const SUMS_WINDOW_CLOSED: u32 = 19;

/// Whether `Method::Auto` counts `walk` in one sweep along it, the columns where its states
/// have saturated walked as sums over them (`Method::Sums`), rather than met in the middle. A
/// long board's meeting joins tables that stop growing with the length while its crossing's
/// join grows, where a sweep past saturation costs a sum over the same states a column:
/// measured on 2 cores (`results/rows.md`), 6x24 open took 256 s met in the middle and 72 s so,
/// 6x30 closed 10.2 s against 2.7 s, 5x40 open 2.0 s against 1.0 s; the two cross at about 4
/// columns a row on 5 and 6 wide (6x20 open: 60 s met, 76 s swept; 6x16 closed even). So a
/// symmetric count walked along the long side with a window of at most [`SUMS_WINDOW`] squares
/// open, [`SUMS_WINDOW_CLOSED`] closed (the knight up to 6 wide open, 7 closed; wider boards
/// are not measured) and at least [`SUMS_LENGTH`] columns a row. The sweep is the row's
/// (`row.rs`): every piece's moves are its leaps both ways round, so the row's walk of `w x
/// len` is this count's walk, of a board or its transpose.
pub(super) fn sweeps_by_sums(walk: &Walk, spec: &CountSpec) -> bool {
    symmetric(spec)
        && !spec.wide
        && walk.window()
            <= if spec.closed {
                SUMS_WINDOW_CLOSED
            } else {
                SUMS_WINDOW
            }
        && walk.w > 1
        && walk.len >= SUMS_LENGTH * walk.w
}
