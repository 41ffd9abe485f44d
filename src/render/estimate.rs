//! How an estimate is printed: two lines of text, or the JSON object.
//!
//! The JSON object is a contract: `{"board", "rows", "cols", "piece", "closed", "from",
//! "figure", "estimate", "low", "high", "probes", "hits", "max_share", "std_error",
//! "relative_half_width", "seed", "seconds", "reason", "method"}` (`max_share`: the share of the
//! estimate its largest probe carries). `estimate`, `low` and `high` are numbers (floats) of
//! the figure `figure` names; `high` is `null` when no probe reached a tour; `from` is the start
//! square's name or `null`; `reason` names the theorem when one settles the count at zero.

use serde_json::{Value, json};

use crate::board::Board;
use crate::count::report::group_u64;
use crate::estimate::{Estimate, EstimateSpec};
use crate::piece::Piece;

/// A figure for a person: three significant digits, thousands grouped, or `1.96e16` when long.
#[must_use]
pub fn approx(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e15).contains(&x.abs()) {
        return format!("{x:.2e}");
    }
    let digits = x.abs().log10().floor() as i32;
    let unit = 10f64.powi(digits - 2);
    let rounded = (x / unit).round() * unit;
    if rounded.abs() >= 1000.0 {
        let s = format!("{rounded:.0}");
        let (sign, d) = s.split_at(usize::from(s.starts_with('-')));
        let mut out = String::from(sign);
        for (i, ch) in d.chars().enumerate() {
            if i > 0 && (d.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        out
    } else {
        let decimals = (2 - digits).max(0) as usize;
        format!("{rounded:.decimals$}")
    }
}

/// Past this share of the estimate in one probe, the text warns that the interval is fragile.
const MAX_SHARE: f64 = 0.05;

/// How the probes walked, in words.
fn method(spec: &EstimateSpec) -> String {
    format!(
        "Knuth's random probes down the pruned search tree, moves weighted {}^-(onward moves), one move of look-ahead, exact counts from {} free squares down",
        spec.sampler.bias, spec.sampler.tail
    )
}

/// The text of an estimate.
#[must_use]
pub fn text(e: &Estimate, board: Board, piece: &Piece, spec: &EstimateSpec) -> String {
    let what = format!(
        "{board} {} tours of the {piece}{}",
        if spec.closed { "closed" } else { "open" },
        spec.from
            .map(|s| format!(" from {}", board.name(s)))
            .unwrap_or_default()
    );
    if let Some(reason) = &e.reason {
        return format!("{what}: 0 {}, exactly\nreason: {reason}\n", e.figure.name());
    }
    let interval = match e.high {
        Some(high) if e.estimate > 0.0 => format!(
            "95 % interval: {} to {} (-{:.1} % to +{:.1} %: it allows for the skew of the probes)",
            approx(e.low),
            approx(high),
            100.0 * (1.0 - e.low / e.estimate),
            100.0 * (high / e.estimate - 1.0)
        ),
        _ => "no probe reached a tour: there may be none, or too few probes to find them".into(),
    };
    let mut out = format!(
        "{what}: about {} {}\n{interval}\n{} probe{} ({} reached a tour) in {:.2} s: {}\n",
        approx(e.estimate),
        e.figure.name(),
        group_u64(e.probes),
        super::plural(e.probes),
        group_u64(e.hits),
        e.seconds,
        method(spec)
    );
    if e.max_share > MAX_SHARE {
        out += &format!(
            "warning: one probe carries {:.0} % of the estimate, so the spread is poorly known and the interval may be too narrow; take more probes\n",
            100.0 * e.max_share
        );
    }
    out
}

/// The JSON object of an estimate.
#[must_use]
pub fn json(e: &Estimate, board: Board, piece: &Piece, spec: &EstimateSpec) -> Value {
    json!({
        "board": board.to_string(),
        "rows": board.rows,
        "cols": board.cols,
        "piece": piece.to_string(),
        "closed": spec.closed,
        "from": spec.from.map(|s| board.name(s)),
        "figure": e.figure.name(),
        "estimate": e.estimate,
        "low": e.low,
        "high": e.high,
        "probes": e.probes,
        "hits": e.hits,
        "max_share": e.max_share,
        "std_error": e.std_error,
        "relative_half_width": e.relative_half_width(),
        "seed": spec.seed,
        "seconds": e.seconds,
        "reason": e.reason.as_ref().map(ToString::to_string),
        "method": if e.reason.is_some() { "a theorem".to_string() } else { method(spec) },
    })
}

#[cfg(test)]
mod tests {
    use super::approx;

    #[test]
    fn figures_for_people() {
        assert_eq!(approx(6_637_920.0), "6,640,000");
        assert_eq!(approx(1728.4), "1,730");
        assert_eq!(approx(8.04), "8.04");
        assert_eq!(approx(0.5), "0.500");
        assert_eq!(approx(1.9591e16), "1.96e16");
        assert_eq!(approx(0.0), "0");
    }
}
