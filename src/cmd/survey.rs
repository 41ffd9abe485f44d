//! `knights survey`: one heuristic (or all) from every start square, per start and in total.

use anyhow::{Result, bail};
use knights::heuristics::Heuristic;
use knights::render::survey as show;
use knights::survey::{self, SurveyOptions};

use super::on_board;
use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::SurveyArgs;

pub(crate) fn run(a: &SurveyArgs) -> Result<u8> {
    let piece = &a.piece.piece;
    let all = a.heuristic == "all";
    if let Some(from) = a.from {
        return walk(a, from);
    }
    let square_knight = piece.is_knight() && a.board.rows == a.board.cols;
    let mut surveys = Vec::new();
    let chosen = match Heuristic::from_name(&a.heuristic) {
        Some(h) => vec![h],
        None => Heuristic::ALL.to_vec(),
    };
    for h in chosen {
        // the Squirrel-Cull rules exist only for the knight on square boards
        if all && h == Heuristic::SquirrelCull && !square_knight {
            continue;
        }
        let opts = SurveyOptions {
            heuristic: h,
            closed: a.closed,
            seed: a.seed,
            sample: a.starts,
            budget: a.budget,
        };
        surveys.push(survey::survey(a.board, piece, &opts)?);
    }
    let text = if a.json {
        let v = if all {
            show::json_all(&surveys, piece)
        } else {
            show::json(&surveys[0], piece)
        };
        v.to_string() + "\n"
    } else if a.csv {
        show::csv(&surveys)
    } else if all {
        show::table(&surveys)
    } else {
        show::text(&surveys[0], piece)
    };
    emit(&text)?;
    Ok(0)
}

/// `--from`: the one walk, numbered square by square; exit 1 when it stops short.
fn walk(a: &SurveyArgs, from: knights::Square) -> Result<u8> {
    let piece = &a.piece.piece;
    let Some(h) = Heuristic::from_name(&a.heuristic) else {
        bail!("--from runs one walk: name one heuristic with --heuristic (not all)");
    };
    let from = on_board(a.board, Some(from), "--from")?.expect("given");
    let opts = SurveyOptions {
        heuristic: h,
        closed: a.closed,
        seed: a.seed,
        sample: None,
        budget: a.budget,
    };
    let w = survey::walk(a.board, piece, &opts, from)?;
    if a.json {
        emit(&(show::walk_json(&w, piece).to_string() + "\n"))?;
    } else {
        emit(&show::walk_text(&w, piece))?;
    }
    Ok(if w.found() { 0 } else { EXIT_NOT_FOUND })
}
