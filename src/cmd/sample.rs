//! `knights sample`: random tours, each verified, printed as they are drawn in batches.

use std::io::{self, BufWriter, Write};
use std::time::Instant;

use anyhow::Result;
use knights::count::driver::with_threads;
use knights::render::json::SampledJson;
use knights::render::{self, Format};
use knights::sample::{Options, SampleError, Sampler};
use knights::tour::CompactTour;

use super::on_board;
use crate::EXIT_NOT_FOUND;
use knights::cli::{SampleArgs, SampleFormat};

pub(crate) fn run(a: &SampleArgs) -> Result<u8> {
    let board = a.board;
    let mut opts =
        Options::new(a.closed, on_board(board, a.from, "--from")?, a.seed).with_method(a.method);
    if let Some(m) = a.max_memory {
        opts.max_memory = m;
    }
    opts.thin = a.thin;
    opts.burn_in = a.burn_in;
    opts.tables = a.tables;
    opts.ledger.clone_from(&a.ledger);
    opts.leaves.clone_from(&a.leaves);
    opts.nodes.clone_from(&a.nodes);
    if let Some(d) = &a.scratch {
        if !d.is_dir() {
            anyhow::bail!(
                "--scratch '{}' is not a folder: give an existing folder for the tables that pass the memory bound",
                d.display()
            );
        }
    }
    opts.scratch.clone_from(&a.scratch);
    opts.tell = Some(|s| eprintln!("{}: {s}", crate::progress::NOTE));
    with_threads(a.threads, || sample(a, &opts))?
}

fn sample(a: &SampleArgs, opts: &Options) -> Result<u8> {
    let board = a.board;
    let piece = &a.piece.piece;
    let mut sampler = match Sampler::new(board, piece, opts) {
        Ok(s) => s,
        Err(e @ (SampleError::NoTour { .. } | SampleError::Find(_))) => {
            eprintln!("knights: {e}");
            return Ok(EXIT_NOT_FOUND);
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(note) = sampler.note() {
        eprintln!("{}: {note}", crate::progress::NOTE);
    }
    let t0 = Instant::now();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut index = 0u64;
    while index < a.number {
        let tours = sampler.draw(sampler.batch().min(a.number - index) as usize)?;
        for t in tours {
            match a.format {
                SampleFormat::Grid => {
                    if index > 0 {
                        out.write_all(b"\n")?;
                    }
                    render::write(&mut out, CompactTour::from_tour(&t), piece, Format::Grid)?;
                }
                SampleFormat::Moves => {
                    render::write(&mut out, CompactTour::from_tour(&t), piece, Format::Moves)?;
                }
                SampleFormat::Json => {
                    let j = SampledJson::new(
                        &t,
                        piece,
                        sampler.method(),
                        sampler.uniform(),
                        opts.seed,
                        index,
                    );
                    serde_json::to_writer(&mut out, &j)?;
                    out.write_all(b"\n")?;
                }
                SampleFormat::None => {}
            }
            index += 1;
        }
    }
    out.flush()?;
    let draw = t0.elapsed().as_secs_f64();
    let kind = if opts.closed { "closed" } else { "open" };
    let from = opts
        .from
        .map(|s| format!(" from {}", board.name(s)))
        .unwrap_or_default();
    eprintln!(
        "{} {kind} tour{} of {board} by the {piece}{from}, each verified; method: {} ({}); {}; setup {:.3} s, drawing {:.3} s ({:.0} tours/s)",
        a.number,
        if a.number == 1 { "" } else { "s" },
        sampler.method(),
        if sampler.uniform() {
            "exactly uniform"
        } else {
            "approximately uniform, not exact"
        },
        sampler.how(),
        sampler.build_seconds(),
        draw,
        a.number as f64 / draw.max(1e-9)
    );
    Ok(0)
}
