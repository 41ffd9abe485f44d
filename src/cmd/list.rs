//! `knights list`: every tour, streamed in work-unit order, or the census of them (`--where`,
//! `--histogram`).

use std::io::{self, BufWriter};

use anyhow::{Context, Result, bail};
use knights::count::driver::with_threads;
use knights::list::report::{self as census, Heading};
use knights::list::{Format, ListOptions, Listing};

use super::on_board;
use crate::{EXIT_NOT_FOUND, emit};
use knights::cli::ListArgs;

pub(crate) fn run(a: &ListArgs) -> Result<u8> {
    let board = a.board;
    let format = match (a.histogram, a.format) {
        (Some(h), Some(f)) if f != Format::None => bail!(
            "--histogram {} prints a table on standard output, where the tours would go: drop --format (the histogram takes --format none)",
            h.name()
        ),
        (Some(_), _) => Format::None,
        (None, f) => f.unwrap_or_default(),
    };
    let opts = ListOptions {
        closed: a.closed,
        from: on_board(board, a.from, "--from")?,
        to: on_board(board, a.to, "--to")?,
        limit: a.limit,
        filters: a.filters.clone(),
        histogram: a.histogram,
        format,
    };
    with_threads(a.threads, || list(a, &opts))?
}

fn list(a: &ListArgs, opts: &ListOptions) -> Result<u8> {
    let piece = &a.piece.piece;
    let listing = Listing::new(a.board, piece, opts)?;
    if !a.force {
        listing.check_reach(rayon::current_num_threads())?;
    }
    // a bad path fails before the listing runs
    if let Some(p) = &a.plot {
        std::fs::write(p, "").with_context(|| format!("cannot write '{}'", p.display()))?;
    }
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    let summary = listing.run(&mut out)?;
    drop(out);
    eprintln!("{}", listing.report(&summary));
    if let Some(reason) = &summary.reason {
        eprintln!("knights: no {}: {reason}", listing.describe());
    }
    if let (Some(h), Some(property)) = (&summary.histogram, opts.histogram) {
        let heading = Heading {
            board: a.board,
            piece,
            opts,
            what: listing.describe(),
        };
        if a.json {
            let v = census::json(h, property, &heading, summary.limited);
            emit(&(v.to_string() + "\n"))?;
        } else {
            emit(&census::table(h, property, &heading))?;
        }
        if let Some(p) = &a.plot {
            let svg = census::svg(h, property, &heading)?;
            std::fs::write(p, svg).with_context(|| format!("cannot write '{}'", p.display()))?;
        }
    }
    Ok(if summary.listed == 0 {
        EXIT_NOT_FOUND
    } else {
        0
    })
}
