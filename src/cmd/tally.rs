//! `knights tally`: read sets of tours, check each, and set their statistics side by side (the
//! Markov chain against the exact sampler, one seed against another, a sample against every tour
//! listed).

use std::path::Path;

use anyhow::{Context, Result, bail};
use knights::cli::{TallyArgs, TallyFormat};
use knights::render::heat::{Panel, heat_maps};
use knights::render::parse::parse_tour;
use knights::tally::{Comparison, FAMILY_ALPHA, Moments, Tally};
use serde_json::{Value, json};

use crate::emit;

pub(crate) fn run(a: &TallyArgs) -> Result<u8> {
    let mut tallies: Vec<(String, Tally, String)> = Vec::new();
    for file in &a.files {
        let name = if file.as_os_str() == "-" {
            "standard input".to_string()
        } else {
            file.display().to_string()
        };
        let (tally, piece) = read(a, file, &name)?;
        if let Some((first, t, p)) = tallies.first() {
            if t.board != tally.board || t.closed != tally.closed || *p != piece {
                bail!(
                    "{name} holds {} by the {piece}, but {first} holds {} by the {p}: a tally sets side by side tours of one board, kind and piece",
                    tally.kind(),
                    t.kind()
                );
            }
        }
        tallies.push((name, tally, piece));
    }
    if let Some(path) = &a.svg {
        let panels: Vec<Panel<'_>> = tallies
            .iter()
            .map(|(name, t, _)| Panel {
                caption: short(name),
                tally: t,
            })
            .collect();
        std::fs::write(path, heat_maps(&panels))
            .with_context(|| format!("cannot write the heat maps to '{}'", path.display()))?;
    }
    let text = match a.format {
        TallyFormat::Text => text(&tallies, a.top),
        TallyFormat::Json => format!("{}\n", json(&tallies)),
    };
    emit(&text)?;
    Ok(0)
}

/// The tours of one file, each checked, tallied; and the piece they are of, in words.
fn read(a: &TallyArgs, file: &Path, name: &str) -> Result<(Tally, String)> {
    let text = super::verify::read_tour_text(file, "a file of tours")?;
    let mut tally: Option<(Tally, String)> = None;
    for (k, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{name} line {}", k + 1);
        let parsed = parse_tour(line, a.reading.board).map_err(|e| {
            anyhow::anyhow!(
                "{}: {e} (tally reads one tour a line: JSON lines or move lists)",
                at()
            )
        })?;
        let piece = parsed
            .piece(a.reading.piece.as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        let closed = a.closed || parsed.closed_claim.is_some();
        let board = parsed.board;
        let tour = parsed
            .verify(&piece, closed)
            .map_err(|e| anyhow::anyhow!("{}: not a tour: {e}", at()))?;
        let (t, named) = match &mut tally {
            Some(t) => t,
            None => tally.insert((Tally::new(board, &piece, closed)?, piece.to_string())),
        };
        if *named != piece.to_string() {
            bail!(
                "{}: a tour of the {piece}, but the file's first tour is of the {named}",
                at()
            );
        }
        t.add(board, closed, &tour.path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
    }
    tally.ok_or_else(|| {
        anyhow::anyhow!("{name} holds no tours (one a line: JSON lines or move lists)")
    })
}

/// A file's name without its folders, for captions.
fn short(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |f| f.to_string_lossy().into_owned())
}

fn mean_se(m: &Moments) -> String {
    format!("{:.3} ± {:.3}", m.mean(), m.se())
}

fn text(tallies: &[(String, Tally, String)], top: usize) -> String {
    let (_, first, piece) = &tallies[0];
    let moves = first.shares().count();
    let width = tallies
        .iter()
        .map(|(n, _, _)| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut s = format!(
        "{} by the {piece}; means with their standard errors, differences from {} in standard errors (z)\n\n",
        first.kind(),
        tallies[0].0
    );
    s += &format!(
        "{:<width$}  {:>7}  {:>22}  {:>8}  {:>22}  {:>8}\n",
        "file", "tours", "straight moves", "z", "crossings", "z"
    );
    let mut comparisons = Vec::new();
    for (k, (name, t, _)) in tallies.iter().enumerate() {
        let c = (k > 0).then(|| t.against(first));
        let z = |d: Option<f64>| d.map_or_else(|| "".to_string(), |z| format!("{z:+.2}"));
        let row = format!(
            "{:<width$}  {:>7}  {:>22}  {:>8}  {:>22}  {:>8}",
            name,
            t.tours,
            mean_se(&t.straight),
            z(c.as_ref().map(|c| c.straight.z)),
            mean_se(&t.crossings),
            z(c.as_ref().map(|c| c.crossings.z)),
        );
        s += row.trim_end();
        s += "\n";
        if let Some(c) = c {
            comparisons.push((name, t, c));
        }
    }
    for (name, t, c) in comparisons {
        s += &format!(
            "\n{name} against {}: {} of the {moves} moves differ in share past |z| {:.2} (probability {FAMILY_ALPHA} of any where the two draw alike); {:.2} % of a tour's moves would move to match",
            tallies[0].0,
            c.beyond,
            c.bound,
            100.0 * c.distance
        );
        s += &most_different(t, &c, top);
    }
    s
}

fn most_different(t: &Tally, c: &Comparison, top: usize) -> String {
    let mut s = String::new();
    for m in c.moves.iter().take(top) {
        s += &format!(
            "\n  {}-{}: {:.2} % of tours against {:.2} % (z {:+.2})",
            t.board.name(m.from),
            t.board.name(m.to),
            100.0 * m.share,
            100.0 * m.reference,
            m.z
        );
    }
    s + "\n"
}

fn json(tallies: &[(String, Tally, String)]) -> Value {
    let first = &tallies[0].1;
    let stat = |m: &Moments| json!({"mean": m.mean(), "sd": m.sd(), "se": m.se()});
    let files: Vec<Value> = tallies
        .iter()
        .enumerate()
        .map(|(k, (name, t, _))| {
            let shares: Vec<Value> = t
                .shares()
                .map(|(a, b, share)| json!({"from": t.board.name(a), "to": t.board.name(b), "share": share}))
                .collect();
            let mut v = json!({
                "file": name,
                "tours": t.tours,
                "straight": stat(&t.straight),
                "crossings": stat(&t.crossings),
                "moves": shares,
            });
            if k > 0 {
                let c = t.against(first);
                let moves: Vec<Value> = c
                    .moves
                    .iter()
                    .map(|m| json!({"from": t.board.name(m.from), "to": t.board.name(m.to), "share": m.share, "reference": m.reference, "z": m.z}))
                    .collect();
                v["against_first"] = json!({
                    "straight": {"difference": c.straight.mean, "z": c.straight.z},
                    "crossings": {"difference": c.crossings.mean, "z": c.crossings.z},
                    "bound": c.bound,
                    "family_alpha": FAMILY_ALPHA,
                    "beyond": c.beyond,
                    "distance": c.distance,
                    "moves": moves,
                });
            }
            v
        })
        .collect();
    json!({
        "rows": first.board.rows,
        "cols": first.board.cols,
        "closed": first.closed,
        "piece": tallies[0].2,
        "files": files,
    })
}
