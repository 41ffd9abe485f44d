//! `knights bench --scaling 1,2,4,16,64`: fixed counts timed on each number of threads asked
//! for, with the speedup and efficiency against one thread, and a model's projected speedup
//! where the machine has too few cores to measure.
//!
//! Each item is projected by its own work–span record (`engine::WorkSpan`, from the run on the
//! most threads measured: for the frontier Amdahl's law phase by phase, for the DFS its units
//! handed out in turn to the thread free first), its speedup the record's own time at one
//! thread over its time at `n` (between 1 and `n`). The serial fraction fitted to the runs
//! measured is printed beside it (and projects an item whose runs left no record that
//! projects): from one thread's time `T1` and the
//! time `Tp` on the most threads `p > 1` this machine has, the serial fraction (the Karp–Flatt
//! metric) `e = (p / S − 1) / (p − 1)` with `S = T1 / Tp`, and the speedup at `n` threads
//! `1 / (e + (1 − e) / n)`. It names no cause (memory bandwidth, a serial phase, coarse units
//! all show as `e`), and from two threads a few per cent of noise in `S` moves its 16-thread
//! figure by several times that: a bound to check on a machine of many cores, not a
//! measurement. Thread counts past this machine's cores are projected only, and say so.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::known;
use super::table::human_time;
use super::{Status, Suite};
use crate::board::Board;
use crate::count::report::group;
use crate::count::{CountSpec, Engine};
use crate::engine::WorkSpan;
use crate::error::{Error, Result};

/// One count of the scaling suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    pub board: Board,
    pub closed: bool,
    /// `Engine::Dfs` or `Engine::Frontier`.
    pub engine: Engine,
    /// Walked the long way round (`--window wide`, the frontier engine only).
    pub wide: bool,
}

impl Item {
    /// `dfs 6x6 open`, `frontier 6x9 closed wide`.
    #[must_use]
    pub fn name(self) -> String {
        let engine = match self.engine {
            Engine::Frontier => "frontier",
            _ => "dfs",
        };
        let kind = if self.closed { "closed" } else { "open" };
        let wide = if self.wide { " wide" } else { "" };
        format!("{engine} {} {kind}{wide}", self.board)
    }
}

/// The suite's counts: the DFS on 6x6 open, 5x8 open and 6x8 closed, the frontier engine on
/// 7x7 open and 8x8 closed, and in the full suite 6x9 closed through the wide window (about 20
/// minutes on two cores). Issue 69's "piece of 8x8 open" is not here: its shared tables take 15
/// minutes and 3.5 GB to make.
#[must_use]
pub fn items(suite: Suite) -> Vec<Item> {
    let item = |rows, cols, closed, engine, wide| Item {
        board: Board { rows, cols },
        closed,
        engine,
        wide,
    };
    let mut items = vec![
        item(6, 6, false, Engine::Dfs, false),
        item(5, 8, false, Engine::Dfs, false),
        item(6, 8, true, Engine::Dfs, false),
        item(7, 7, false, Engine::Frontier, false),
        item(8, 8, true, Engine::Frontier, false),
    ];
    if suite == Suite::Full {
        items.push(item(6, 9, true, Engine::Frontier, true));
    }
    items
}

/// One item on one number of threads.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub item: String,
    pub threads: usize,
    /// Wall-clock seconds (the fastest run); `None` where the threads are past the machine's
    /// cores (projected only) or the run did not finish.
    pub seconds: Option<f64>,
    /// One thread's time over this one.
    pub speedup: Option<f64>,
    /// The model's speedup at these threads (see the module's doc); `None` where it has no fit.
    pub projected_speedup: Option<f64>,
    /// `checked` (the answer is the known count), `timeout`, `wrong`, or `projected`.
    pub status: String,
    /// The answer, where the run finished.
    pub answer: Option<String>,
}

impl Row {
    /// Speedup over threads.
    #[must_use]
    pub fn efficiency(&self) -> Option<f64> {
        self.speedup.map(|s| s / self.threads as f64)
    }
}

/// The suite's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub rows: Vec<Row>,
    /// The serial fraction fitted for each item, where two thread counts were measured.
    pub serial: Vec<(String, Option<f64>)>,
    pub cores: usize,
    pub load: Option<f64>,
    pub seconds: f64,
}

impl Report {
    /// Whether every answer passed its check.
    #[must_use]
    pub fn all_checked(&self) -> bool {
        self.rows.iter().all(|r| r.status != "wrong")
    }
}

/// The serial fraction of Amdahl's law that gives speedup `s` on `p` threads (the Karp–Flatt
/// metric), within 0 and 1: a speedup above `p` is taken as none serial.
#[must_use]
pub fn serial_fraction(s: f64, p: usize) -> Option<f64> {
    (p > 1 && s > 0.0).then(|| ((p as f64 / s - 1.0) / (p as f64 - 1.0)).clamp(0.0, 1.0))
}

/// Amdahl's speedup at `n` threads for the serial fraction `e`.
#[must_use]
pub fn amdahl(e: f64, n: usize) -> f64 {
    1.0 / (e + (1.0 - e) / n as f64)
}

/// The thread counts of `--scaling`, from `1,2,4,16,64`: each from 1 to 1024, sorted, without
/// repeats, and one thread added where it is missing (the speedups are against it).
pub fn parse_threads(s: &str) -> Result<Vec<usize>> {
    let mut out = vec![1];
    for part in s.split(',').map(str::trim) {
        match part.parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => out.push(n),
            _ => {
                return Err(Error::Invalid(format!(
                    "--scaling '{s}': '{part}' is not a number of threads from 1 to 1024 (give a list such as 1,2,4,16,64)"
                )));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// One timed run of `item` on `threads` threads, stopped at `limit`: its seconds and answer,
/// checked against the known count.
fn run_once(item: Item, threads: usize, limit: Duration) -> Result<Once> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start {threads} threads: {e}")))?;
    let spec = CountSpec {
        closed: item.closed,
        symmetry: true,
        wide: item.wide,
        ..CountSpec::default()
    };
    let timed = pool.install(|| super::time_count_spec(item.board, spec, item.engine, limit));
    let t = match timed {
        Ok(t) => t,
        Err(e) => {
            return Ok((
                0.0,
                Status::Wrong(format!("the count failed: {e}")),
                None,
                None,
            ));
        }
    };
    let Some(got) = t.figure else {
        return Ok((t.seconds, Status::Timeout, None, None));
    };
    let status = match known::count(item.board, item.closed) {
        Some(want) if want == got => Status::Checked,
        Some(want) => Status::Wrong(format!(
            "counted {}, the known count is {}",
            group(&got),
            group(&want)
        )),
        None => Status::Wrong(format!(
            "no known {} count of {} to check against",
            known::figure(item.closed),
            item.board
        )),
    };
    Ok((t.seconds, status, Some(group(&got)), t.work))
}

/// The model's speedup at `t` threads: by the work–span `record` where the run left one that
/// projects (its own time at one thread over its time at `t`, so between 1 and `t`), otherwise
/// by the serial fraction `fit`.
fn projected_speedup(record: Option<&WorkSpan>, fit: Option<f64>, t: usize) -> Option<f64> {
    record
        .and_then(|w| Some(w.projected(1)? / w.projected(t)?))
        .or_else(|| fit.map(|e| amdahl(e, t)))
}

/// A timed run: its seconds, status, answer, and where the count's time went.
type Once = (f64, Status, Option<String>, Option<Box<WorkSpan>>);

/// A step of the suite, told before it runs: `(done, total, label)`.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str);

/// Times each of `items` on each of `threads` up to this machine's `cores` (a count of under
/// two seconds three times, the fastest kept; each run stopped at `limit`), and projects the
/// rest by the model.
pub fn run(
    items: &[Item],
    threads: &[usize],
    cores: usize,
    limit: Duration,
    progress: Progress<'_>,
) -> Result<Report> {
    let t0 = Instant::now();
    let load = super::load_average();
    let measured: Vec<usize> = threads.iter().copied().filter(|&t| t <= cores).collect();
    let total = items.len() * measured.len();
    let mut done = 0;
    let mut rows = Vec::new();
    let mut serial = Vec::new();
    for &item in items {
        let name = item.name();
        let mut times: Vec<(usize, Option<f64>, Status, Option<String>)> = Vec::new();
        // the work–span record that projects, of the finished run on the most threads
        let mut record: Option<Box<WorkSpan>> = None;
        for &t in &measured {
            progress(done, total, &format!("{name}, {t} thread{}", plural(t)));
            let mut best: Option<Once> = None;
            let mut spent = 0.0;
            for _ in 0..3 {
                let run = run_once(item, t, limit)?;
                spent += run.0;
                let finished = run.1.finished();
                if best.as_ref().is_none_or(|b| finished && run.0 < b.0) {
                    best = Some(run);
                }
                if !finished || spent > 2.0 {
                    break;
                }
            }
            let (s, status, answer, work) = best.expect("one run");
            let secs = status.finished().then_some(s);
            if secs.is_some() && work.as_ref().is_some_and(|w| w.projected(2).is_some()) {
                record = work;
            }
            times.push((t, secs, status, answer));
            done += 1;
        }
        let one = times.iter().find(|x| x.0 == 1).and_then(|x| x.1);
        let fit = times
            .iter()
            .rev()
            .find(|x| x.0 > 1 && x.1.is_some())
            .and_then(|x| serial_fraction(one? / x.1?, x.0));
        serial.push((name.clone(), fit));
        let projected = |t: usize| projected_speedup(record.as_deref(), fit, t);
        for &t in threads {
            let got = times.iter().find(|x| x.0 == t);
            let (seconds, status, answer) = match got {
                Some((_, s, status, answer)) => (*s, status.name().to_string(), answer.clone()),
                None => (None, "projected".to_string(), None),
            };
            rows.push(Row {
                item: name.clone(),
                threads: t,
                seconds,
                speedup: one.zip(seconds).map(|(a, b)| a / b),
                projected_speedup: projected(t),
                status,
                answer,
            });
        }
    }
    progress(done, total, "done");
    Ok(Report {
        rows,
        serial,
        cores,
        load,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn times(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{v:.2}x"))
}

fn percent(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.0} %", v * 100.0))
}

/// The header line: the machine and the model.
fn heading(r: &Report) -> String {
    let load = r
        .load
        .map_or(String::new(), |l| format!(", load {l:.2} at the start"));
    format!(
        "scaling on {} core{}{load}; the model: each count's work–span record of its run on the most threads, Amdahl's law phase by phase for the frontier, the units handed to the threads as they free for the DFS (rows past {} threads are projected only)",
        r.cores,
        plural(r.cores),
        r.cores
    )
}

/// The report as a table, one line an item and thread count.
#[must_use]
pub fn text(r: &Report) -> String {
    let mut out = heading(r) + "\n\n";
    let w = r
        .rows
        .iter()
        .map(|x| x.item.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:<w$}  {:>7}  {:>10}  {:>8}  {:>10}  {:>9}  status",
        "item", "threads", "time", "speedup", "efficiency", "projected"
    );
    for x in &r.rows {
        let time = x.seconds.map_or("–".into(), human_time);
        let _ = writeln!(
            out,
            "{:<w$}  {:>7}  {:>10}  {:>8}  {:>10}  {:>9}  {}",
            x.item,
            x.threads,
            time,
            times(x.speedup),
            percent(x.efficiency()),
            times(x.projected_speedup),
            x.status
        );
    }
    for (item, e) in &r.serial {
        if let Some(e) = e {
            let _ = writeln!(out, "{item}: serial fraction {:.2} %", e * 100.0);
        } else {
            let _ = writeln!(
                out,
                "{item}: no fit (one thread and one more thread count must both finish)"
            );
        }
    }
    out
}

/// The report in Markdown.
#[must_use]
pub fn markdown(r: &Report) -> String {
    let mut out = heading(r) + "\n\n";
    out += "| item | threads | time | speedup | efficiency | projected speedup | status |\n";
    out += "|---|---:|---:|---:|---:|---:|---|\n";
    for x in &r.rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            x.item,
            x.threads,
            x.seconds.map_or("–".into(), human_time),
            times(x.speedup),
            percent(x.efficiency()),
            times(x.projected_speedup),
            x.status
        );
    }
    out
}

/// One CSV row an item and thread count.
#[must_use]
pub fn csv(r: &Report) -> String {
    let mut out =
        String::from("item,threads,seconds,speedup,efficiency,projected_speedup,status\n");
    let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
    for x in &r.rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            x.item,
            x.threads,
            num(x.seconds),
            num(x.speedup),
            num(x.efficiency()),
            num(x.projected_speedup),
            x.status
        );
    }
    out
}

/// One JSON object a row: `item`, `threads`, `seconds` (null where projected or unfinished),
/// `speedup`, `efficiency`, `projected_speedup`, `status`, `answer`, `cores`.
#[must_use]
pub fn json_rows(r: &Report) -> Vec<Value> {
    r.rows
        .iter()
        .map(|x| {
            json!({
                "item": x.item,
                "threads": x.threads,
                "seconds": x.seconds,
                "speedup": x.speedup,
                "efficiency": x.efficiency(),
                "projected_speedup": x.projected_speedup,
                "status": x.status,
                "answer": x.answer,
                "cores": r.cores,
            })
        })
        .collect()
}

/// The answers of a report's finished rows, for a check that every thread count gave the same.
#[must_use]
pub fn answers(r: &Report, item: &str) -> Vec<(usize, String)> {
    r.rows
        .iter()
        .filter(|x| x.item == item)
        .filter_map(|x| Some((x.threads, x.answer.clone()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_is_projected_by_its_record_else_by_its_fit() {
        use crate::engine::PhaseTime;
        // 2 threads on 2 cores: 1 s outside the phases, a step of 10 s wall and 20 s of CPU
        let step = PhaseTime {
            wall: 10.0,
            cpu: 20.0,
            calls: 1,
        };
        let w = WorkSpan {
            threads: 2,
            cores: 2,
            wall: 11.0,
            cpu: 21.0,
            phases: [
                step,
                PhaseTime::default(),
                PhaseTime::default(),
                PhaseTime::default(),
            ],
            units: None,
        };
        // the record's own one thread (21 s) over its 8 threads (1 + 20 / 8 s), whatever the fit
        let at8 = projected_speedup(Some(&w), Some(0.5), 8).unwrap();
        assert!((at8 - 21.0 / 3.5).abs() < 1e-9);
        assert!((projected_speedup(Some(&w), None, 1).unwrap() - 1.0).abs() < 1e-9);
        // no record: the fraction fitted, or nothing
        assert!((projected_speedup(None, Some(0.5), 3).unwrap() - 1.5).abs() < 1e-9);
        assert_eq!(projected_speedup(None, None, 3), None);
        // a frontier record of one core projects nothing: the fit, if any, speaks
        let one_core = WorkSpan {
            cores: 1,
            ..w.clone()
        };
        assert_eq!(projected_speedup(Some(&one_core), None, 8), None);
        assert!((projected_speedup(Some(&one_core), Some(0.5), 3).unwrap() - 1.5).abs() < 1e-9);
        // a DFS record projects from one core too: 4 s of units and 4 of 1 s, 1 s outside
        let dfs = WorkSpan {
            threads: 1,
            cores: 1,
            wall: 9.0,
            cpu: 9.0,
            phases: [PhaseTime::default(); 4],
            units: Some(crate::engine::UnitTimes {
                wall: 8.0,
                cpu: 8.0,
                seconds: vec![4.0, 1.0, 1.0, 1.0, 1.0],
            }),
        };
        assert!((projected_speedup(Some(&dfs), None, 16).unwrap() - 9.0 / 5.0).abs() < 1e-9);
    }

    #[test]
    fn the_thread_list_is_read_and_refused_as_a_user_would_expect() {
        assert_eq!(parse_threads("1,2,4,16,64").unwrap(), [1, 2, 4, 16, 64]);
        assert_eq!(parse_threads("4, 2,4").unwrap(), [1, 2, 4]);
        for bad in ["0", "2,x", "", "2000"] {
            let e = parse_threads(bad).unwrap_err().to_string();
            assert!(e.contains("from 1 to 1024"), "{bad}: {e}");
        }
    }

    /// The frontier engine's count is the same on every number of threads (the DFS's is tested
    /// in `tests/all`): 1 to 4 threads, whatever this machine's cores, each answer checked
    /// against the known count.
    #[test]
    fn the_frontier_counts_the_same_on_any_number_of_threads() {
        let item = |rows, cols, closed, wide| Item {
            board: Board { rows, cols },
            closed,
            engine: Engine::Frontier,
            wide,
        };
        let items = [
            item(5, 6, false, false),
            item(6, 6, true, false),
            item(4, 8, false, true),
        ];
        let r = run(
            &items,
            &[1, 2, 3, 4],
            4,
            Duration::from_secs(3600),
            &mut |_, _, _| {},
        )
        .unwrap();
        assert_eq!(r.rows.len(), 12);
        for it in &items {
            let got = answers(&r, &it.name());
            assert_eq!(got.len(), 4, "{got:?}");
            assert!(got.iter().all(|g| g.1 == got[0].1), "{got:?}");
        }
        assert!(r.rows.iter().all(|x| x.status == "checked"), "{:?}", r.rows);
    }

    #[test]
    fn amdahl_fitted_to_two_threads_gives_them_back() {
        // a speedup of 1.8 on 2 threads is a serial fraction of 1/9
        let e = serial_fraction(1.8, 2).unwrap();
        assert!((e - 1.0 / 9.0).abs() < 1e-12);
        assert!((amdahl(e, 2) - 1.8).abs() < 1e-12);
        assert!((amdahl(e, 1) - 1.0).abs() < 1e-12);
        // 16 threads at e = 1/9: 1 / (1/9 + 8/144) = 6.0
        assert!((amdahl(e, 16) - 6.0).abs() < 1e-9);
        // a speedup past the threads is none serial; one thread fits nothing
        assert_eq!(serial_fraction(2.1, 2), Some(0.0));
        assert_eq!(serial_fraction(1.5, 1), None);
    }
}
