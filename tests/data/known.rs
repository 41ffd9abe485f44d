//! The known whole-board knight counts of `counts.tsv`, for code that checks a figure against
//! them: the estimate's tests and the results examples include this file with `#[path]`, and
//! `knights bench` embeds `counts.tsv` itself (`src/bench/known.rs`) to check its answers. No
//! engine reads it.

const DATA: &str = include_str!("counts.tsv");

/// The known figure of the knight's tours of `board` (e.g. `"8x8"`): directed open tours, or
/// closed tours as undirected cycles; `None` when the table has no such row.
pub(crate) fn known(board: &str, closed: bool) -> Option<f64> {
    let (kind, figure) = if closed {
        ("closed", "undirected")
    } else {
        ("open", "directed")
    };
    DATA.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| {
            f.len() == 8
                && f[0] == board
                && f[1] == "knight"
                && f[2] == kind
                && f[3] == "-"
                && f[4] == "-"
                && f[5] == figure
        })
        .and_then(|f| f[6].parse().ok())
}
