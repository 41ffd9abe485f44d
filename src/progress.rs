//! Progress of a count on standard error: an indicatif bar, a plain line every few seconds, or
//! nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the plain display prints a line.
pub(crate) const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// What is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Bar,
    Plain,
    None,
}

/// Units done and tours found so far, updated from the worker threads.
pub(crate) struct Progress {
    mode: Mode,
    bar: Option<ProgressBar>,
    total: u64,
    /// Units done when this process started (from a checkpoint).
    resumed: u64,
    done: AtomicU64,
    tours: AtomicU64,
    start: Instant,
}

impl Progress {
    pub(crate) fn new(mode: Mode, total: u64, resumed: u64, tours: u64) -> Progress {
        let bar = (mode == Mode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{wide_bar} {pos}/{len} units, {msg} [{elapsed_precise}, ETA {eta_precise}]",
                )
                .expect("a valid template"),
            );
            bar.set_position(resumed);
            bar.reset_eta();
            bar.set_message(format!("{} tours", group(tours)));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress {
            mode,
            bar,
            total,
            resumed,
            done: AtomicU64::new(resumed),
            tours: AtomicU64::new(tours),
            start: Instant::now(),
        }
    }

    /// One more unit done, adding `tours`.
    pub(crate) fn add(&self, tours: u64) {
        // Relaxed: these are statistics for display; the totals reported come from elsewhere
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let t = self.tours.fetch_add(tours, Ordering::Relaxed) + tours;
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!(
                "{} tours, {:.1} units/s",
                group(t),
                self.rate(done)
            ));
        }
    }

    /// The plain display's line, or `None` for the other modes.
    pub(crate) fn line(&self) -> Option<String> {
        if self.mode != Mode::Plain {
            return None;
        }
        let done = self.done.load(Ordering::Relaxed);
        let secs = self.start.elapsed().as_secs_f64();
        let rate = self.rate(done);
        let eta = if rate > 0.0 {
            format!("{:.0} s", (self.total - done) as f64 / rate)
        } else {
            "unknown".into()
        };
        Some(format!(
            "knights: {}/{} units, {} tours so far, {rate:.1} units/s, {secs:.0} s elapsed, ETA {eta}",
            group(done),
            group(self.total),
            group(self.tours.load(Ordering::Relaxed)),
        ))
    }

    /// Units per second counted by this process.
    fn rate(&self, done: u64) -> f64 {
        (done - self.resumed) as f64 / self.start.elapsed().as_secs_f64().max(1e-9)
    }

    /// Removes the bar (a plain display has nothing to remove).
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Thousands separated by commas.
pub(crate) fn group(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
