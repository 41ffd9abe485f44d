//! `knights bench`: run the fixed suite with a progress bar on a terminal, print the table, and
//! draw the chart when asked.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use knights::bench::{self, Settings, plot, scaling, table};
use knights::cli::{BenchArgs, BenchFormat};

use crate::{EXIT_NOT_FOUND, emit};

pub(crate) fn run(a: &BenchArgs) -> Result<u8> {
    if let Some(list) = &a.scaling {
        return scaling(a, list);
    }
    let settings = Settings::new(a.suite, a.threads);
    let tasks = only(a, bench::items(a.suite), |t| t.name(), "suite")?;
    let mut plot_file = plot_file(a)?;
    let bar = progress_bar(a);
    let report = bench::run_tasks(&settings, tasks, &mut |step| {
        bar.set_length(step.total as u64);
        bar.set_position(step.done as u64);
        bar.set_message(step.label.clone());
    })?;
    bar.finish_and_clear();
    let text = match a.format {
        BenchFormat::Text => table::text(&report),
        BenchFormat::Markdown => table::markdown(&report),
        BenchFormat::Csv => table::csv(&report),
        BenchFormat::Json => table::json(&report).to_string() + "\n",
    };
    emit(&text)?;
    if let (Some(file), Some(path)) = (&mut plot_file, &a.plot) {
        write_plot(file, path, &plot::svg(&report)?)?;
    }
    if !report.all_checked() {
        eprintln!("knights: an answer failed its check (see WRONG above)");
        return Ok(EXIT_NOT_FOUND);
    }
    Ok(0)
}

/// The items of `all` whose `name` holds `--only`'s text, all of them without it; none is an
/// error that names the items of the `what` there are.
fn only<T>(
    a: &BenchArgs,
    mut all: Vec<T>,
    name: impl Fn(&T) -> String,
    what: &str,
) -> Result<Vec<T>> {
    let Some(only) = &a.only else {
        return Ok(all);
    };
    let names: Vec<String> = all.iter().map(&name).collect();
    all.retain(|t| name(t).contains(only.as_str()));
    if all.is_empty() {
        bail!(
            "--only '{only}': no item of the {} {what} has it in its name (items: {})",
            a.suite.name(),
            names.join(", ")
        );
    }
    Ok(all)
}

/// `bench --scaling`: the scaling suite (see `knights::bench::scaling`).
fn scaling(a: &BenchArgs, list: &str) -> Result<u8> {
    let threads = scaling::parse_threads(list)?;
    let items = only(a, scaling::items(a.suite), |t| t.name(), "scaling suite")?;
    let mut plot_file = plot_file(a)?;
    let bar = progress_bar(a);
    let report = scaling::run(
        &items,
        &threads,
        knights::engine::cores(),
        SCALING_LIMIT,
        &mut |done, total, label| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(label.to_string());
        },
    )?;
    bar.finish_and_clear();
    let text = match a.format {
        BenchFormat::Text => scaling::text(&report),
        BenchFormat::Markdown => scaling::markdown(&report),
        BenchFormat::Csv => scaling::csv(&report),
        BenchFormat::Json => scaling::json_rows(&report)
            .iter()
            .map(|v| v.to_string() + "\n")
            .collect(),
    };
    emit(&text)?;
    if let (Some(file), Some(path)) = (&mut plot_file, &a.plot) {
        write_plot(file, path, &plot::scaling_svg(&report)?)?;
    }
    if !report.all_checked() {
        eprintln!("knights: an answer failed its check (see 'wrong' above)");
        return Ok(EXIT_NOT_FOUND);
    }
    Ok(0)
}

/// The longest one run of the scaling suite may take (8x8 closed on one thread of this
/// machine takes about 3 minutes, 6x9 closed through the wide window about 40).
const SCALING_LIMIT: Duration = Duration::from_secs(3 * 3600);

fn write_plot(file: &mut File, path: &std::path::Path, svg: &str) -> Result<()> {
    file.write_all(svg.as_bytes())
        .and_then(|()| file.flush())
        .with_context(|| format!("--plot: cannot write '{}'", path.display()))
}

fn progress_bar(a: &BenchArgs) -> ProgressBar {
    if a.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} [{elapsed_precise}] {msg}")
                .expect("a valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }
}

/// The `--plot` file, made before the suite runs: a bad one fails now, not after minutes.
fn plot_file(a: &BenchArgs) -> Result<Option<File>> {
    Ok(match &a.plot {
        Some(path) => {
            if path
                .extension()
                .is_none_or(|e| !e.eq_ignore_ascii_case("svg"))
            {
                bail!(
                    "--plot '{}': the chart is an SVG picture; give a file name ending in .svg",
                    path.display()
                );
            }
            Some(
                File::create(path)
                    .with_context(|| format!("--plot: cannot create '{}'", path.display()))?,
            )
        }
        None => None,
    })
}
