//! The printed forms of a bench report: a text table read at a glance, Markdown, CSV (one row a
//! solver and item) and one JSON object.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Entry, ItemResult, Report, Status, Task};
use crate::count::report::group_u64;

/// A duration with three significant digits in the unit that suits it (`112 µs`, `1.46 s`).
#[must_use]
pub fn human_time(seconds: f64) -> String {
    let (v, unit) = if seconds < 1e-3 {
        (seconds * 1e6, "µs")
    } else if seconds < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// The answer column: the count or tours found, or why there is none.
fn answer(e: &Entry) -> String {
    match (&e.status, &e.answer) {
        (Status::Timeout, _) => "timeout".into(),
        (Status::Wrong(_), _) => "WRONG".into(),
        (Status::Budget { .. }, Some(a)) => format!("{a} (budget)"),
        (_, Some(a)) => a.clone(),
        (_, None) => "-".into(),
    }
}

/// The median column: a timeout shows the limit it ran into as a lower bound.
fn median(e: &Entry) -> String {
    match e.status {
        Status::Timeout => format!("> {}", human_time(e.median())),
        _ => human_time(e.median()),
    }
}

/// The range column: empty for a single run.
fn range(e: &Entry) -> String {
    if e.seconds.len() < 2 {
        String::new()
    } else {
        format!("{} - {}", human_time(e.min()), human_time(e.max()))
    }
}

fn ratio(item: &ItemResult, e: &Entry) -> String {
    item.ratio(e).map_or_else(|| "-".into(), |r| r.to_string())
}

/// The suite's settings in one sentence.
fn heading(r: &Report) -> String {
    let s = &r.settings;
    let load = r.load.map_or_else(String::new, |l| {
        format!(", load average {l:.2} at the start")
    });
    format!(
        "knights bench, {} suite: up to {} runs a solver (no new run after {} s of them), median \
         (min - max); a count run is stopped after {} s; plain backtracking gives up after {} \
         nodes a start; {} thread{} on {} core{}{load}",
        s.suite.name(),
        s.runs,
        s.repeat_within.as_secs(),
        s.limit.as_secs(),
        group_u64(s.budget),
        s.threads,
        if s.threads == 1 { "" } else { "s" },
        r.cores,
        if r.cores == 1 { "" } else { "s" },
    )
}

/// What the columns mean, and every failed check spelled out.
fn notes(r: &Report) -> Vec<String> {
    let mut notes = vec![
        "answer: counts are checked against the known values of tests/data/counts.tsv (open: \
         directed tours; closed: undirected cycles); tours are open tours found from every \
         square (one start after another, on one thread), each verified"
            .to_string(),
        "vs baseline: the first solver's median (naive backtracking; plain backtracking for \
         tours) over this one's; '>' where the baseline ran out of time or budget"
            .into(),
    ];
    for item in &r.items {
        for e in &item.entries {
            if let Status::Wrong(why) = &e.status {
                notes.push(format!("WRONG: {}, {}: {why}", item.task.name(), e.label));
            }
        }
    }
    notes.push(format!("total: {}", human_time(r.seconds)));
    notes
}

/// The rows of the table: item, solver, answer, runs, median, range, ratio.
fn rows(r: &Report) -> Vec<[String; 7]> {
    let mut rows = Vec::new();
    for item in &r.items {
        for (k, e) in item.entries.iter().enumerate() {
            rows.push([
                if k == 0 {
                    item.task.name()
                } else {
                    String::new()
                },
                e.label.clone(),
                answer(e),
                e.seconds.len().to_string(),
                median(e),
                range(e),
                ratio(item, e),
            ]);
        }
    }
    rows
}

const HEADER: [&str; 7] = [
    "item",
    "solver",
    "answer",
    "runs",
    "median",
    "min - max",
    "vs baseline",
];

/// The text table: one line a solver, the item named on its first line, numbers right-aligned.
#[must_use]
pub fn text(r: &Report) -> String {
    let rows = rows(r);
    let mut width = HEADER.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 7]| {
        let mut s = String::new();
        for (k, cell) in cells.iter().enumerate() {
            let pad = width[k] - cell.chars().count();
            if k < 2 {
                s += cell;
                s += &" ".repeat(pad);
            } else {
                s += &" ".repeat(pad);
                s += cell;
            }
            s += "  ";
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = wrap(&heading(r), WIDTH) + "\n";
    out += &line(HEADER);
    for (k, row) in rows.iter().enumerate() {
        if k > 0 && !row[0].is_empty() {
            out.push('\n');
        }
        out += &line([
            &row[0], &row[1], &row[2], &row[3], &row[4], &row[5], &row[6],
        ]);
    }
    out.push('\n');
    for n in notes(r) {
        out += &wrap(&n, WIDTH);
    }
    out
}

/// The text table's prose is wrapped to this many columns.
const WIDTH: usize = 100;

/// `text` broken into lines of at most `width` columns at spaces (a longer word keeps its own
/// line), each ending with a newline.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    out += &line;
    out.push('\n');
    out
}

/// The same table in Markdown.
#[must_use]
pub fn markdown(r: &Report) -> String {
    let mut out = heading(r) + ".\n\n";
    out += &format!("| {} |\n", HEADER.join(" | "));
    out += "|---|---|---:|---:|---:|---:|---:|\n";
    for row in rows(r) {
        out += &format!("| {} |\n", row.join(" | "));
    }
    out.push('\n');
    for n in notes(r) {
        let _ = writeln!(out, "- {n}");
    }
    out
}

/// CSV, one row a solver and item, times in seconds (every run's median, min and max).
#[must_use]
pub fn csv(r: &Report) -> String {
    let mut out = String::from(
        "suite,item,kind,board,closed,solver,threads,answer,status,runs,median_s,min_s,max_s,ratio,ratio_at_least\n",
    );
    for item in &r.items {
        let (board, closed) = match item.task {
            Task::Count { board, closed } => (board, closed),
            Task::Tours { board } => (board, false),
        };
        for e in &item.entries {
            let ratio = item.ratio(e);
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{:.9},{:.9},{:.9},{},{}",
                r.settings.suite.name(),
                item.task.name(),
                item.task.kind(),
                board,
                closed,
                e.solver.name(),
                threads(r, e),
                e.answer.clone().unwrap_or_default().replace(',', ""),
                e.status.name(),
                e.seconds.len(),
                e.median(),
                e.min(),
                e.max(),
                ratio.map_or_else(String::new, |x| format!("{:.3}", x.value)),
                ratio.is_some_and(|x| x.at_least),
            );
        }
    }
    out
}

/// The threads a solver ran on.
fn threads(r: &Report, e: &Entry) -> usize {
    use super::Solver;
    if matches!(e.solver, Solver::DfsAll | Solver::Frontier) {
        r.settings.threads
    } else {
        1
    }
}

/// One JSON object: the settings, the machine, and per item its entries with every run's time.
#[must_use]
pub fn json(r: &Report) -> Value {
    let items: Vec<Value> = r
        .items
        .iter()
        .map(|item| {
            let (board, closed) = match item.task {
                Task::Count { board, closed } => (board, closed),
                Task::Tours { board } => (board, false),
            };
            let entries: Vec<Value> = item
                .entries
                .iter()
                .map(|e| {
                    let ratio = item.ratio(e);
                    json!({
                        "solver": e.solver.name(),
                        "label": e.label,
                        "threads": threads(r, e),
                        "answer": e.answer,
                        "status": e.status.name(),
                        "problem": match &e.status { Status::Wrong(why) => Some(why.clone()), _ => None },
                        "budget_starts": match e.status { Status::Budget { starts } => Some(starts), _ => None },
                        "seconds": e.seconds,
                        "median_s": e.median(),
                        "min_s": e.min(),
                        "max_s": e.max(),
                        "ratio": ratio.map(|x| x.value),
                        "ratio_at_least": ratio.is_some_and(|x| x.at_least),
                    })
                })
                .collect();
            json!({
                "item": item.task.name(),
                "kind": item.task.kind(),
                "board": board.to_string(),
                "closed": closed,
                "expected": item.expected,
                "entries": entries,
            })
        })
        .collect();
    json!({
        "suite": r.settings.suite.name(),
        "runs": r.settings.runs,
        "repeat_within_s": r.settings.repeat_within.as_secs_f64(),
        "limit_s": r.settings.limit.as_secs_f64(),
        "budget": r.settings.budget,
        "threads": r.settings.threads,
        "cores": r.cores,
        "load": r.load,
        "seconds": r.seconds,
        "all_checked": r.all_checked(),
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_spaces() {
        assert_eq!(wrap("aa bb cc dd", 5), "aa bb\ncc dd\n");
        assert_eq!(wrap("abcdefgh ij", 5), "abcdefgh\nij\n");
        assert_eq!(wrap("", 5), "\n");
    }

    #[test]
    fn times_have_three_significant_digits() {
        assert_eq!(human_time(0.000_112_3), "112 µs");
        assert_eq!(human_time(0.007_41), "7.41 ms");
        assert_eq!(human_time(12.345), "12.3 s");
        assert_eq!(human_time(0.5), "500 ms");
    }
}
