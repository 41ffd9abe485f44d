//! The bench's picture: a bar chart of the median times, one group of bars an item, one colour a
//! solver, on a log scale (the solvers differ by factors of thousands). Drawn with plotters as
//! SVG.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use thiserror::Error;

use super::table::human_time;
use super::{Report, Solver, Status};

/// Drawing the chart failed (plotters' own error, as text).
#[derive(Debug, Error)]
#[error("cannot draw the bench chart: {0}")]
pub struct PlotError(String);

/// Pixels of the legend's column on the right.
const LEGEND: u32 = 220;

/// An axis label: the time without trailing zeros (`10 µs`, `1 s`).
pub fn axis_time(seconds: f64) -> String {
    let t = human_time(seconds);
    let (num, unit) = t.split_once(' ').unwrap_or((&t, ""));
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num} {unit}")
}

fn fail(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

/// The picture's note at its foot, and the picture written out.
fn finish<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    note: &str,
) -> Result<(), PlotError> {
    root.draw(&Text::new(
        note,
        (90, 540),
        ("sans-serif", 13).into_font().color(&BLACK),
    ))
    .map_err(fail)?;
    root.present().map_err(fail)
}

/// Row `row` of a legend: a square of colour `c` and its label.
fn legend_row<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    row: i32,
    c: RGBColor,
    label: String,
) -> Result<(), PlotError> {
    let y = 60 + 22 * row;
    area.draw(&Rectangle::new([(10, y - 6), (24, y + 6)], c.filled()))
        .map_err(fail)?;
    area.draw(&Text::new(
        label,
        (32, y),
        ("sans-serif", 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(fail)?;
    Ok(())
}

/// One colour a solver, the same in every picture of the report.
fn colour(s: Solver) -> RGBColor {
    match s {
        Solver::Naive => RGBColor(120, 120, 120),
        Solver::DfsOne => RGBColor(31, 78, 153),
        Solver::DfsAll => RGBColor(86, 150, 220),
        Solver::Frontier => RGBColor(46, 139, 87),
        Solver::Backtrack => RGBColor(90, 90, 90),
        Solver::Warnsdorff => RGBColor(230, 126, 34),
        Solver::Lookahead => RGBColor(192, 57, 43),
        Solver::Tour => RGBColor(142, 68, 173),
    }
}

/// The chart as an SVG document: median seconds of every solver on every item; a pale bar with a
/// `>` on top is a run stopped at its limit or budget (its time is a lower bound), and a wrong
/// answer draws no bar.
pub fn svg(r: &Report) -> Result<String, PlotError> {
    let times: Vec<f64> = r
        .items
        .iter()
        .flat_map(|i| &i.entries)
        .filter(|e| !matches!(e.status, Status::Wrong(_)))
        .map(super::Entry::median)
        .filter(|t| t.is_finite() && *t > 0.0)
        .collect();
    let lo = times.iter().copied().fold(1.0f64, f64::min);
    let hi = times.iter().copied().fold(1e-3f64, f64::max);
    let (lo, hi) = (
        // a decade of room below the fastest bar, so that it shows
        10f64.powf(lo.log10().floor() - 1.0),
        10f64.powf((hi * 3.0).log10().ceil()),
    );
    let groups = r.items.len().max(1);
    let mut text = String::new();
    {
        let width = (130 * groups as u32 + 160).max(700) + LEGEND;
        let root = SVGBackend::with_string(&mut text, (width, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        // the legend gets its own column: over the bars it would hide some
        let (plot_area, legend_area) = root.split_horizontally(width - LEGEND);
        let caption = format!(
            "knights bench --suite {}: median time of up to {} runs (log scale)",
            r.settings.suite.name(),
            r.settings.runs
        );
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(caption, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..groups as f64, (lo..hi).log_scale())
            .map_err(fail)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc("seconds (median)")
            .y_label_formatter(&|y| axis_time(*y))
            .draw()
            .map_err(fail)?;
        let mut legend_rows = 0;
        for solver in Solver::ALL {
            let c = colour(solver);
            let mut bars = Vec::new();
            let mut marks = Vec::new();
            for (g, item) in r.items.iter().enumerate() {
                let slots = item.entries.len() as f64;
                for (j, e) in item.entries.iter().enumerate() {
                    if e.solver != solver || matches!(e.status, Status::Wrong(_)) {
                        continue;
                    }
                    let w = 0.8 / slots;
                    let x0 = g as f64 + 0.1 + w * j as f64;
                    let t = e.median().max(lo);
                    let style = if e.status.finished() {
                        c.filled()
                    } else {
                        c.mix(0.35).filled()
                    };
                    bars.push(Rectangle::new(
                        [(x0 + w * 0.08, lo), (x0 + w * 0.92, t)],
                        style,
                    ));
                    if !e.status.finished() {
                        marks.push((x0 + w / 2.0, t));
                    }
                }
            }
            if bars.is_empty() {
                continue;
            }
            let label = r
                .items
                .iter()
                .flat_map(|i| &i.entries)
                .find(|e| e.solver == solver)
                .map_or_else(|| solver.name().to_string(), |e| e.label.clone());
            chart.draw_series(bars).map_err(fail)?;
            legend_row(&legend_area, legend_rows, c, label)?;
            legend_rows += 1;
            let above = ("sans-serif", 14)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(
                    marks
                        .into_iter()
                        .map(|p| Text::new(">".to_string(), p, above.clone())),
                )
                .map_err(fail)?;
        }
        // item names under their groups, placed in the picture's pixels
        let below = ("sans-serif", 15)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (g, item) in r.items.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(g as f64 + 0.5, lo));
            plot_area
                .draw(&Text::new(item.task.name(), (x, y + 8), below.clone()))
                .map_err(fail)?;
        }
        let note = "pale bar with '>': stopped at the time limit or node budget (a lower bound)";
        finish(&root, note)?;
    }
    Ok(text)
}

/// The colours of a chart's series in turn (the scaling chart's items, and the results'
/// plots of counts against the bound).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 78, 153),
    RGBColor(86, 150, 220),
    RGBColor(46, 139, 87),
    RGBColor(230, 126, 34),
    RGBColor(192, 57, 43),
    RGBColor(142, 68, 173),
    RGBColor(90, 90, 90),
    RGBColor(200, 160, 20),
];

/// The `bench --scaling` chart as an SVG document: speedup against threads, both on log
/// scales; each item's measured speedups as dots joined by a line, the model's projection as a
/// dashed line of the same colour, and the ideal (speedup = threads) in grey.
pub fn scaling_svg(r: &super::scaling::Report) -> Result<String, PlotError> {
    let max_t = r.rows.iter().map(|x| x.threads).max().unwrap_or(2).max(2) as f64;
    let mut items: Vec<&str> = Vec::new();
    for x in &r.rows {
        if !items.contains(&x.item.as_str()) {
            items.push(&x.item);
        }
    }
    let mut text = String::new();
    {
        let width = 760 + LEGEND;
        let root = SVGBackend::with_string(&mut text, (width, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let (plot_area, legend_area) = root.split_horizontally(width - LEGEND);
        let caption = format!(
            "knights bench --scaling: speedup against one thread ({} core{} measured)",
            r.cores,
            if r.cores == 1 { "" } else { "s" }
        );
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(caption, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (1f64..max_t * 1.2).log_scale(),
                (0.8f64..max_t * 1.2).log_scale(),
            )
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("speedup")
            .x_labels(12)
            .y_labels(12)
            // one line a label: a log scale's fine lines crowd into grey bands
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(fail)?;
        let grey = RGBColor(170, 170, 170);
        chart
            .draw_series(LineSeries::new(
                [(1.0, 1.0), (max_t, max_t)],
                grey.stroke_width(1),
            ))
            .map_err(fail)?;
        for (k, item) in items.iter().enumerate() {
            let c = PALETTE[k % PALETTE.len()];
            let rows: Vec<_> = r.rows.iter().filter(|x| x.item == *item).collect();
            let measured: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|x| Some((x.threads as f64, x.speedup?)))
                .collect();
            let model: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|x| Some((x.threads as f64, x.projected_speedup?)))
                .collect();
            chart
                .draw_series(LineSeries::new(measured.clone(), c.stroke_width(2)))
                .map_err(fail)?;
            chart
                .draw_series(measured.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(fail)?;
            chart
                .draw_series(DashedLineSeries::new(model, 6, 4, c.stroke_width(1)))
                .map_err(fail)?;
            legend_row(&legend_area, k as i32, c, item.to_string())?;
        }
        let note = "dots: measured; dashed: the model from each count's own record of its run; grey: ideal";
        finish(&root, note)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::bench::{Entry, ItemResult, Report, Settings, Suite, Task};
    use crate::board::Board;

    fn entry(solver: Solver, status: Status, seconds: &[f64]) -> Entry {
        Entry {
            solver,
            label: solver.label(2),
            answer: None,
            status,
            seconds: seconds.to_vec(),
        }
    }

    #[test]
    fn the_chart_names_every_item_and_solver_and_marks_timeouts() {
        let report = Report {
            settings: Settings::new(Suite::Quick, None),
            items: vec![ItemResult {
                task: Task::Count {
                    board: Board { rows: 5, cols: 6 },
                    closed: false,
                },
                expected: String::new(),
                entries: vec![
                    entry(Solver::Naive, Status::Timeout, &[5.0]),
                    entry(Solver::DfsOne, Status::Checked, &[0.01, 0.012]),
                    entry(Solver::Frontier, Status::Wrong("x".into()), &[0.2]),
                ],
            }],
            cores: 2,
            load: None,
            seconds: Duration::from_secs(6).as_secs_f64(),
        };
        let svg = svg(&report).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(svg.contains("5x6 open"));
        assert!(svg.contains("naive backtracking"));
        assert!(svg.contains("dfs, 1 thread"));
        // a wrong answer draws no bar and no legend entry
        assert!(!svg.contains("frontier"));
        // one '>' over the timed-out bar
        assert_eq!(svg.matches("\n&gt;\n</text>").count(), 1);
        // the timed-out bar is pale
        assert!(svg.contains(r#"opacity="0.35""#));
    }

    #[test]
    fn axis_labels_have_no_trailing_zeros() {
        assert_eq!(axis_time(1.0), "1 s");
        assert_eq!(axis_time(1e-5), "10 µs");
        assert_eq!(axis_time(0.1), "100 ms");
        assert_eq!(axis_time(0.0025), "2.5 ms");
    }
}
