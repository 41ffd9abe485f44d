//! How a count is printed: the text lines and the JSON object of `knights count` and `merge`.
//!
//! The JSON fields are a contract (see the README): `board`, `rows`, `cols`, `piece`, `closed`,
//! `from`, `to`, `directed`, `undirected`, `engine`, `threads`, `seconds`, `how`, `reason`, and
//! `per_square` when asked for; counts are JSON integers of any size. Fields may be added.

use num_bigint::BigUint;

pub use crate::human::{group, group_u64, human_bytes};

use super::{Count, CountSpec};
use crate::board::{Board, file_name};
use crate::piece::Piece;

/// What is said about a count besides its figures.
#[derive(Clone, Debug)]
pub struct Report<'a> {
    pub board: Board,
    pub piece: &'a Piece,
    pub spec: &'a CountSpec,
    /// `dfs`, `naive` or `frontier`.
    pub engine: &'a str,
    /// Worker threads; 0 for a merge, which runs none.
    pub threads: usize,
    /// Appended to the description: which part of the run this is.
    pub scope: String,
    /// Lines printed after the figures.
    pub notes: Vec<String>,
}

impl<'a> Report<'a> {
    #[must_use]
    pub fn new(
        board: Board,
        piece: &'a Piece,
        spec: &'a CountSpec,
        engine: &'a str,
        threads: usize,
    ) -> Report<'a> {
        Report {
            board,
            piece,
            spec,
            engine,
            threads,
            scope: String::new(),
            notes: Vec::new(),
        }
    }

    /// `6x6 open tours of the knight from a1`, plus the scope.
    #[must_use]
    pub fn describe(&self) -> String {
        let b = self.board;
        let mut s = format!(
            "{} {} tours of the {}",
            b,
            if self.spec.closed { "closed" } else { "open" },
            self.piece
        );
        if let Some(f) = self.spec.from {
            s += &format!(" from {}", b.name(f));
        }
        if let Some(t) = self.spec.to {
            s += &format!(" to {}", b.name(t));
        }
        s + &self.scope
    }

    /// The text `knights count` prints.
    #[must_use]
    pub fn text(&self, c: &Count) -> String {
        let spec = self.spec;
        let mut s = self.describe();
        if spec.closed && (spec.from.is_none() || spec.to.is_none()) {
            s += &format!(
                ": {} (undirected cycles), {} directed\n",
                group(&c.undirected),
                group(&c.directed)
            );
        } else if !spec.closed && spec.from.is_none() && spec.to.is_none() {
            s += &format!(
                ": {} directed, {} undirected\n",
                group(&c.directed),
                group(&c.undirected)
            );
        } else {
            s += &format!(": {}\n", group(&c.directed));
        }
        if let Some(reason) = &c.reason {
            s += &format!("reason: {reason}\n");
        }
        let ran = if self.threads == 0 {
            "merged".to_string()
        } else {
            format!(
                "{} thread{}",
                self.threads,
                if self.threads == 1 { "" } else { "s" }
            )
        };
        s += &format!(
            "method: {} ({} engine, {ran}, {:.3} s)\n",
            c.how, self.engine, c.seconds
        );
        if let Some(peak) = &c.peak {
            s += &format!(
                "frontier: window of {} square{}, peak {} states, {}\n",
                peak.window,
                crate::human::plural(peak.window as u64),
                group_u64(peak.states),
                human_bytes(peak.bytes)
            );
            if peak.disk_written > 0 {
                s += &format!(
                    "disk: {} of tables written past the memory bound, {} held there at most\n",
                    human_bytes(peak.disk_written),
                    human_bytes(peak.disk_peak)
                );
            }
        }
        if let Some(table) = &c.per_square {
            s += &per_square_grid(self.board, table);
        }
        for n in &self.notes {
            s += n;
            s.push('\n');
        }
        s
    }

    /// The JSON object `knights count --json` prints.
    #[must_use]
    pub fn json(&self, c: &Count) -> serde_json::Value {
        let (b, spec) = (self.board, self.spec);
        let mut v = serde_json::json!({
            "board": b.to_string(),
            "rows": b.rows,
            "cols": b.cols,
            "piece": self.piece.to_string(),
            "closed": spec.closed,
            "from": spec.from.map(|s| b.name(s)),
            "to": spec.to.map(|s| b.name(s)),
            "directed": json_int(&c.directed),
            "undirected": json_int(&c.undirected),
            "engine": self.engine,
            "threads": self.threads,
            "seconds": c.seconds,
            "how": c.how,
            "reason": c.reason.as_ref().map(ToString::to_string),
        });
        if let Some(peak) = &c.peak {
            v["peak_states"] = serde_json::json!(peak.states);
            v["peak_bytes"] = serde_json::json!(peak.bytes);
            v["window"] = serde_json::json!(peak.window);
            v["disk_written_bytes"] = serde_json::json!(peak.disk_written);
            v["disk_peak_bytes"] = serde_json::json!(peak.disk_peak);
        }
        if let Some(w) = &c.work {
            v["work_span"] = work_span_json(w);
        }
        if let Some(table) = &c.per_square {
            let rows: Vec<Vec<u64>> = (0..b.rows)
                .map(|r| table[(r * b.cols) as usize..((r + 1) * b.cols) as usize].to_vec())
                .collect();
            v["per_square"] = serde_json::json!(rows);
        }
        v
    }
}

/// The threads `work_span.projected` projects a count at.
pub const PROJECTED_THREADS: [usize; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// `work_span` of `knights count --json` (see [`crate::engine::WorkSpan`]): the run's wall and
/// CPU seconds, each of the frontier's phases with the part that kept one core alone, the DFS's
/// units (how many, their work, the largest: null for the frontier), the time outside them,
/// and the model's seconds at [`PROJECTED_THREADS`] (null where a frontier run had one core).
fn work_span_json(w: &crate::engine::WorkSpan) -> serde_json::Value {
    let phases: Vec<serde_json::Value> = crate::engine::PHASES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            serde_json::json!({
                "phase": name,
                "wall_s": w.phases[i].wall,
                "cpu_s": w.phases[i].cpu,
                "calls": w.phases[i].calls,
                "serial_s": w.serial(i),
            })
        })
        .collect();
    let projected: Vec<serde_json::Value> = PROJECTED_THREADS
        .iter()
        .map(|&p| serde_json::json!({ "threads": p, "seconds": w.projected(p) }))
        .collect();
    let units = w.units.as_ref().map(|u| {
        serde_json::json!({
            "count": u.seconds.len(),
            "wall_s": u.wall,
            "cpu_s": u.cpu,
            "work_s": u.work(),
            "largest_s": u.largest(),
        })
    });
    serde_json::json!({
        "threads": w.threads,
        "cores": w.cores,
        "wall_s": w.wall,
        "cpu_s": w.cpu,
        "outside_s": w.outside(),
        "phases": phases,
        "units": units,
        "projected": projected,
    })
}

/// A count as a JSON integer, however large (serde_json keeps the digits).
#[must_use]
pub fn json_int(n: &BigUint) -> serde_json::Value {
    let digits = n.to_string();
    serde_json::Value::Number(digits.parse().expect("decimal digits are a JSON number"))
}

fn per_square_grid(b: Board, table: &[u64]) -> String {
    let w = table
        .iter()
        .map(|n| n.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    let mut s = String::from("directed open tours by start square:\n");
    for r in (0..b.rows).rev() {
        s += &format!("{:>3} ", r + 1);
        for c in 0..b.cols {
            s += &format!(" {:>w$}", table[(r * b.cols + c) as usize]);
        }
        s.push('\n');
    }
    s += "    ";
    for c in 0..b.cols {
        s += &format!(" {:>w$}", file_name(c));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_counts_are_json_integers() {
        let big: BigUint = "340282366920938463463374607431768211457".parse().unwrap();
        let v = serde_json::json!({ "n": json_int(&big) });
        let text = v.to_string();
        assert_eq!(text, r#"{"n":340282366920938463463374607431768211457}"#);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(back["n"].is_number());
        assert_eq!(json_int(&BigUint::from(5u32)), 5);
    }
}
