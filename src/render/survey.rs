//! How a survey is printed: a board of per-start results with the totals, one table comparing
//! heuristics, CSV rows, and the JSON object.
//!
//! The JSON object is a contract: `{"board", "rows", "cols", "piece", "heuristic", "closed",
//! "seed", "budget", "every_square", "seconds", "starts": [{"from": [row, col], "square",
//! "complete", "closed", "length", "nodes", "stop"}, ...], "totals": {"starts", "complete",
//! "closed", "found", "distinct", "distinct_up_to_symmetry", "nodes"}}`, rows and cols 0-based
//! (row 0 = rank 1). `--heuristic all` prints `{"board", "surveys": [object, ...]}`.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::framed;
use crate::board::Square;
use crate::count::report::group_u64;
use crate::heuristics::{Heuristic, Stop};
use crate::piece::Piece;
use crate::survey::{Survey, Walk};

/// Boards wider than this get no picture of the starts, only the totals.
const PICTURE_MAX_COLS: u32 = 40;

fn kind(s: &Survey) -> &'static str {
    if s.options.closed { "closed" } else { "open" }
}

/// The text of one survey: which starts completed (a picture of the board on boards up to 40
/// files wide when every square was a start), then the totals.
#[must_use]
pub fn text(s: &Survey, piece: &Piece) -> String {
    let b = s.board;
    let t = &s.totals;
    let mut out = format!(
        "{} on {b} ({piece}), {} tours, from {}:\n",
        s.options.heuristic,
        kind(s),
        if s.every_square {
            match t.starts {
                1 => "its one square".to_string(),
                n => format!("every one of the {n} squares"),
            }
        } else {
            format!(
                "{} start square{} drawn at random (seed {})",
                t.starts,
                super::plural(t.starts as u64),
                s.options.seed
            )
        }
    );
    if s.every_square && b.cols <= PICTURE_MAX_COLS {
        // the widest cell: a walk's length, at most the number of squares
        out += &framed(b, b.squares().to_string().len(), |r, c| {
            let e = &s.starts[b.index(Square::new(r, c)) as usize];
            match (e.closed, e.complete) {
                (true, _) => "C".to_string(),
                (false, true) => "T".to_string(),
                _ => e.length.to_string(),
            }
        });
        out += "T = a complete open tour, C = a closed tour, a number = the squares reached before the walk stuck";
        if s.options.heuristic == Heuristic::Naive {
            out += " (backtracking: the longest path held when it stopped)";
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "found: {} {} tour{} from {} start{} ({:.1} %); complete: {}, closed: {}",
        t.found,
        kind(s),
        if t.found == 1 { "" } else { "s" },
        t.starts,
        super::plural(t.starts as u64),
        super::percent(t.found as u64, t.starts as u64),
        t.complete,
        t.closed
    );
    let _ = writeln!(
        out,
        "distinct tours: {} as directed {}, {} up to reversal and symmetry",
        t.distinct,
        if s.options.closed { "cycles" } else { "paths" },
        t.distinct_up_to_symmetry
    );
    if s.options.heuristic == Heuristic::Naive {
        let count = |stop| s.starts.iter().filter(|e| e.stop == stop).count();
        let _ = writeln!(
            out,
            "backtracking: {} proved no tour from their start, {} ran out of the budget of {} node{}",
            count(Stop::Exhausted),
            count(Stop::Budget),
            s.options.budget,
            super::plural(s.options.budget)
        );
    }
    let _ = writeln!(out, "nodes: {}; time: {:.3} s", t.nodes, s.seconds);
    out
}

/// One table comparing surveys of the same board by different heuristics.
#[must_use]
pub fn table(surveys: &[Survey]) -> String {
    let Some(first) = surveys.first() else {
        return String::new();
    };
    let mut out = format!(
        "{} {} tours from {} start square{}:\n",
        first.board,
        kind(first),
        first.totals.starts,
        super::plural(first.totals.starts as u64)
    );
    let _ = writeln!(
        out,
        "{:<14} {:>9} {:>7} {:>7} {:>9} {:>10} {:>14} {:>9}",
        "heuristic", "found", "rate", "closed", "distinct", "up to sym", "nodes", "seconds"
    );
    for s in surveys {
        let t = &s.totals;
        let _ = writeln!(
            out,
            "{:<14} {:>9} {:>6.1}% {:>7} {:>9} {:>10} {:>14} {:>9.3}",
            s.options.heuristic.name(),
            format!("{}/{}", t.found, t.starts),
            super::percent(t.found as u64, t.starts as u64),
            t.closed,
            t.distinct,
            t.distinct_up_to_symmetry,
            t.nodes,
            s.seconds
        );
    }
    out
}

/// CSV rows, one per start square of each survey, with a header.
#[must_use]
pub fn csv(surveys: &[Survey]) -> String {
    let mut out = String::from("heuristic,square,row,col,complete,closed,length,nodes,stop\n");
    for s in surveys {
        for e in &s.starts {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{}",
                s.options.heuristic,
                s.board.name(e.from),
                e.from.row,
                e.from.col,
                e.complete,
                e.closed,
                e.length,
                e.nodes,
                e.stop.name()
            );
        }
    }
    out
}

/// The JSON object of one survey.
#[must_use]
pub fn json(s: &Survey, piece: &Piece) -> Value {
    let t = &s.totals;
    json!({
        "board": s.board.to_string(),
        "rows": s.board.rows,
        "cols": s.board.cols,
        "piece": piece.to_string(),
        "heuristic": s.options.heuristic.name(),
        "closed": s.options.closed,
        "seed": s.options.seed,
        "budget": s.options.budget,
        "every_square": s.every_square,
        "seconds": s.seconds,
        "starts": s.starts.iter().map(|e| json!({
            "from": [e.from.row, e.from.col],
            "square": s.board.name(e.from),
            "complete": e.complete,
            "closed": e.closed,
            "length": e.length,
            "nodes": e.nodes,
            "stop": e.stop.name(),
        })).collect::<Vec<Value>>(),
        "totals": {
            "starts": t.starts,
            "complete": t.complete,
            "closed": t.closed,
            "found": t.found,
            "distinct": t.distinct,
            "distinct_up_to_symmetry": t.distinct_up_to_symmetry,
            "nodes": t.nodes,
        },
    })
}

/// The text of one walk: its numbered board (a dot where it never went), then one line saying
/// how it ended, e.g. `stuck after 60 of 64 squares at c8: no unvisited square a move away`.
#[must_use]
pub fn walk_text(w: &Walk, piece: &Piece) -> String {
    let b = w.board;
    let n = b.squares();
    let mut step = vec![0usize; n as usize];
    for (k, &sq) in w.path.iter().enumerate() {
        step[b.index(sq) as usize] = k + 1;
    }
    let mut out = format!(
        "{} on {b} ({piece}) from {}:\n",
        w.options.heuristic,
        b.name(w.from)
    );
    out += &framed(b, n.to_string().len(), |r, c| {
        match step[b.index(Square::new(r, c)) as usize] {
            0 => ".".to_string(),
            k => k.to_string(),
        }
    });
    out += &walk_ending(w, piece);
    out.push('\n');
    out
}

/// The line that says how a walk ended.
fn walk_ending(w: &Walk, piece: &Piece) -> String {
    let b = w.board;
    let n = b.squares();
    let len = w.path.len();
    let first = b.name(w.from);
    let last = w.path.last().map_or_else(|| first.clone(), |&s| b.name(s));
    match w.stop {
        Stop::Complete if w.options.closed && !w.closed => format!(
            "complete but open: the last square {last} is not a move of the {piece} from {first} (a closed tour was asked for)"
        ),
        Stop::Complete => format!(
            "complete: a{} tour of all {n} squares from {first} to {last}, verified",
            if w.closed { " closed" } else { "n open" }
        ),
        Stop::Stuck => {
            format!("stuck after {len} of {n} squares at {last}: no unvisited square a move away")
        }
        Stop::Exhausted => format!(
            "no {} tour starts on {first}: backtracking tried every path ({} nodes)",
            if w.options.closed { "closed" } else { "open" },
            group_u64(w.nodes)
        ),
        Stop::Budget => format!(
            "gave up after {} nodes (the budget) holding {len} of {n} squares, the last {last}; the longest path held {}",
            group_u64(w.nodes),
            w.reached
        ),
    }
}

/// The JSON object of one walk: `{"board", "rows", "cols", "piece", "heuristic", "closed_asked",
/// "seed", "budget", "from", "square", "complete", "closed", "length", "squares", "path",
/// "stop", "nodes", "reached", "message"}`, squares as `[row, col]` (row 0 = rank 1).
#[must_use]
pub fn walk_json(w: &Walk, piece: &Piece) -> Value {
    let b = w.board;
    json!({
        "board": b.to_string(),
        "rows": b.rows,
        "cols": b.cols,
        "piece": piece.to_string(),
        "heuristic": w.options.heuristic.name(),
        "closed_asked": w.options.closed,
        "seed": w.options.seed,
        "budget": w.options.budget,
        "from": [w.from.row, w.from.col],
        "square": b.name(w.from),
        "complete": w.complete,
        "closed": w.closed,
        "length": w.path.len(),
        "squares": b.squares(),
        "path": w.path.iter().map(|s| [s.row, s.col]).collect::<Vec<_>>(),
        "stop": w.stop.name(),
        "nodes": w.nodes,
        "reached": w.reached,
        "message": walk_ending(w, piece),
    })
}

/// The JSON object of several surveys of one board.
#[must_use]
pub fn json_all(surveys: &[Survey], piece: &Piece) -> Value {
    json!({
        "board": surveys.first().map(|s| s.board.to_string()),
        "surveys": surveys.iter().map(|s| json(s, piece)).collect::<Vec<Value>>(),
    })
}
