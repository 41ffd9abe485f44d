//! Progress of a count on standard error: an indicatif bar, a plain line every few seconds, or
//! nothing; and the driver's warnings and notes.
//!
//! Each kind of line begins with its own word, so that a script (or a reader) tells them apart:
//! `progress:` for the plain display, `note:` and `warning:` for the driver's messages, and
//! `knights:` only for what ends the command (errors, an interruption, no tour found).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use knights::count::driver::{LayerProgress, Observer};
use knights::count::report::{group_u64, human_bytes};
use num_bigint::BigUint;

/// The first word of a note (what the count is doing, or will do).
pub(crate) const NOTE: &str = "note";

/// The first word of a warning (something was dropped or left, and the count goes on).
pub(crate) const WARNING: &str = "warning";

/// How often the plain display prints a line.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Thousands separated by commas.
pub(crate) fn group(n: u64) -> String {
    group_u64(n)
}

/// What is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Bar,
    Plain,
    None,
}

/// What a unit count has done so far, updated from the worker threads.
struct Units {
    total: u64,
    /// Units done when this process started (from a checkpoint).
    resumed: u64,
    done: AtomicU64,
    /// Tours in the units done, exact however large (3x100 is one unit of 53 digits).
    tours: Mutex<BigUint>,
}

/// The display of one count.
pub(crate) struct Progress {
    mode: Mode,
    /// No notes (`--json`, `--quiet`): only warnings reach standard error.
    quiet: bool,
    bar: OnceLock<ProgressBar>,
    units: OnceLock<Units>,
    layer: Mutex<Option<LayerProgress>>,
    /// The engine's projection of the time left, and when it was made.
    rest: Mutex<Option<(Instant, Option<f64>)>>,
    start: Instant,
}

impl Progress {
    pub(crate) fn new(mode: Mode, quiet: bool) -> Progress {
        Progress {
            mode,
            quiet,
            bar: OnceLock::new(),
            units: OnceLock::new(),
            layer: Mutex::new(None),
            rest: Mutex::new(None),
            start: Instant::now(),
        }
    }

    /// Runs `f` with this display as its observer: a ticker prints the plain line every few
    /// seconds, and the bar is cleared at the end.
    pub(crate) fn run<T: Send>(&self, f: impl FnOnce(&dyn Observer) -> T + Send) -> T {
        let finished = AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            // parked between lines and woken at the end, so a short count does not wait for it
            let ticker = (self.mode == Mode::Plain).then(|| {
                scope.spawn(|| {
                    let mut last = Instant::now();
                    while !finished.load(Ordering::Relaxed) {
                        std::thread::park_timeout(Duration::from_millis(250));
                        if last.elapsed() >= PLAIN_EVERY {
                            last = Instant::now();
                            if let Some(line) = self.line() {
                                eprintln!("{line}");
                            }
                        }
                    }
                })
            });
            // a panic of the count stops the ticker too (the scope would wait for it forever)
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self)));
            finished.store(true, Ordering::Relaxed);
            if let Some(t) = &ticker {
                t.thread().unpark();
            }
            r.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
        result
    }

    fn bar(&self, len: u64, template: &str) -> Option<&ProgressBar> {
        if self.mode != Mode::Bar {
            return None;
        }
        Some(self.bar.get_or_init(|| {
            let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        }))
    }

    /// The plain display's line, or `None` before any work.
    fn line(&self) -> Option<String> {
        let secs = self.start.elapsed().as_secs_f64();
        if let Some(l) = self
            .layer
            .lock()
            .expect("no panic holding the lock")
            .as_ref()
        {
            return Some(format!(
                "progress: {}layer {}/{} ({}), {} states, {}, {secs:.0} s elapsed{}",
                Self::piece_of(l),
                group(l.done as u64),
                group(l.total as u64),
                l.phase,
                group(l.states),
                human_bytes(l.bytes),
                self.pieces_so_far(secs)
            ));
        }
        let u = self.units.get()?;
        let done = u.done.load(Ordering::Relaxed);
        let tours = u.tours();
        let rate = Self::rate(u, done, secs);
        let eta = if rate > 0.0 {
            format!("{:.0} s", (u.total - done) as f64 / rate)
        } else {
            "unknown".into()
        };
        Some(format!(
            "progress: {}/{} units, {} so far, {rate:.1} units/s, {secs:.0} s elapsed, ETA {eta}",
            group(done),
            group(u.total),
            tours_shown(&tours),
        ))
    }

    /// Units per second counted by this process.
    fn rate(u: &Units, done: u64, secs: f64) -> f64 {
        (done - u.resumed) as f64 / secs.max(1e-9)
    }

    /// `piece 3 of 24, ` for a layer of a piece; nothing for the work all pieces share.
    fn piece_of(l: &LayerProgress) -> String {
        l.piece.map_or(String::new(), |(i, n)| {
            format!("piece {} of {}, ", group(i as u64 + 1), group(n as u64))
        })
    }

    /// `; 5 of 24 pieces done, 1,234 tours so far, ETA 3 min` once pieces are known.
    fn pieces_so_far(&self, secs: f64) -> String {
        let Some(u) = self.units.get() else {
            return String::new();
        };
        let done = u.done.load(Ordering::Relaxed);
        let tours = u.tours();
        let rate = Self::rate(u, done, secs);
        let rest = *self.rest.lock().expect("no panic holding the lock");
        let eta = match rest {
            // the engine cannot project yet (the pieces drawn first, of every class, are not
            // all counted): the pieces' mean would take the lighter for all
            Some((_, None)) if done < u.total => {
                ", ETA once the pieces drawn first are counted".into()
            }
            _ => {
                let left = rest.and_then(|(at, left)| Some(left? - at.elapsed().as_secs_f64()));
                eta(left, done, u.total, rate).map_or(String::new(), |s| {
                    format!(", ETA {}", knights::human::human_duration(s))
                })
            }
        };
        format!(
            "; {} of {} pieces done, {} so far{eta}",
            group(done),
            group(u.total),
            tours_shown(&tours),
        )
    }

    /// Whether the count reports layers (the frontier engine): its display follows them.
    fn layered(&self) -> bool {
        self.layer
            .lock()
            .expect("no panic holding the lock")
            .is_some()
    }

    /// One line on standard error, above the bar where one is drawn.
    fn say(&self, kind: &str, message: &str) {
        match self.bar.get() {
            Some(bar) => bar.suspend(|| eprintln!("{kind}: {message}")),
            None => eprintln!("{kind}: {message}"),
        }
    }
}

impl Observer for Progress {
    fn warn(&self, message: &str) {
        self.say(WARNING, message);
    }

    fn info(&self, message: &str) {
        if !self.quiet {
            self.say(NOTE, message);
        }
    }

    fn units(&self, total: u64, done: u64, tours: &BigUint) {
        let _ = self.units.set(Units {
            total,
            resumed: done,
            done: AtomicU64::new(done),
            tours: Mutex::new(tours.clone()),
        });
        if self.layered() {
            return;
        }
        if let Some(bar) = self.bar(
            total,
            "{wide_bar} {pos}/{len} units, {msg} [{elapsed_precise}, ETA {eta_precise}]",
        ) {
            bar.set_position(done);
            bar.reset_eta();
            bar.set_message(tours_shown(tours));
        }
    }

    fn unit_done(&self, tours: &BigUint) {
        let Some(u) = self.units.get() else { return };
        // Relaxed: these are statistics for display; the totals reported come from elsewhere
        let done = u.done.fetch_add(1, Ordering::Relaxed) + 1;
        let t = {
            let mut sum = u.tours.lock().expect("no panic holding the lock");
            *sum += tours;
            sum.clone()
        };
        if self.layered() {
            // the bar counts a piece's layers; the pieces are in its message
            return;
        }
        if let Some(bar) = self.bar.get() {
            bar.inc(1);
            bar.set_message(format!(
                "{}, {:.1} units/s",
                tours_shown(&t),
                Self::rate(u, done, self.start.elapsed().as_secs_f64())
            ));
        }
    }

    fn layer(&self, p: &LayerProgress) {
        if let Some(bar) = self.bar(
            p.total as u64,
            "{wide_bar} layer {pos}/{len}, {msg} [{elapsed_precise}]",
        ) {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            let secs = self.start.elapsed().as_secs_f64();
            bar.set_message(format!(
                "{}{}: {} states, {}{}",
                Self::piece_of(p),
                p.phase,
                group(p.states),
                human_bytes(p.bytes),
                self.pieces_so_far(secs)
            ));
        }
        *self.layer.lock().expect("no panic holding the lock") = Some(p.clone());
    }

    fn rest(&self, seconds: Option<f64>) {
        *self.rest.lock().expect("no panic holding the lock") = Some((Instant::now(), seconds));
    }
}

impl Units {
    /// The tours of the units done so far.
    fn tours(&self) -> BigUint {
        self.tours
            .lock()
            .expect("no panic holding the lock")
            .clone()
    }
}

/// Tours so far for display, exact: `1 tour`, `1,234 tours`.
fn tours_shown(tours: &BigUint) -> String {
    let one = *tours == BigUint::from(1u32);
    format!(
        "{} tour{}",
        knights::human::group(tours),
        if one { "" } else { "s" }
    )
}

/// The seconds left: the engine's projection where it gave one (`left`: the time left when it
/// was made, less the time since) while it is not overdue, else the pieces' mean `rate`.
fn eta(left: Option<f64>, done: u64, total: u64, rate: f64) -> Option<f64> {
    match left {
        Some(left) if done < total && left > 0.0 => Some(left),
        _ if rate > 0.0 => Some((total - done) as f64 / rate),
        _ => None,
    }
}

/// Warnings and notes on standard error, with no progress display (for `merge`).
pub(crate) struct Stderr {
    /// Drop the notes, keep the warnings.
    pub(crate) quiet: bool,
}

impl Observer for Stderr {
    fn warn(&self, message: &str) {
        eprintln!("{WARNING}: {message}");
    }

    fn info(&self, message: &str) {
        if !self.quiet {
            eprintln!("{NOTE}: {message}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer() -> LayerProgress {
        LayerProgress {
            done: 3,
            total: 17,
            states: 1000,
            bytes: 1 << 20,
            phase: "crossing",
            piece: Some((4, 10)),
        }
    }

    /// Pieces of more than 2^64 tours (3x100 is one piece of 53 digits) are shown exactly, their
    /// sum too (a display that held 64 bits showed "more than 18,446,744,073,709,551,614").
    #[test]
    fn tours_past_two_to_the_sixty_fourth_are_shown_exactly() {
        let p = Progress::new(Mode::Plain, true);
        p.units(3, 0, &BigUint::ZERO);
        let max = BigUint::from(u64::MAX);
        p.unit_done(&max);
        p.unit_done(&max);
        p.unit_done(&BigUint::from(7u32));
        let line = p.line().unwrap();
        // 2 * (2^64 - 1) + 7
        assert!(
            line.contains("3/3 units, 36,893,488,147,419,103,237 tours so far"),
            "{line}"
        );
        let q = Progress::new(Mode::Plain, true);
        q.units(2, 1, &BigUint::from(1u32));
        assert!(q.line().unwrap().contains("1/2 units, 1 tour so far"));
    }

    /// A panic of the count ends the plain display's ticker, and the panic goes on to the
    /// caller: the scope waited for the ticker forever, and the process hung.
    #[test]
    fn a_panic_of_the_count_ends_the_plain_display() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let p = Progress::new(Mode::Plain, true);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.run(|_| -> u8 { panic!("a count's panic") })
            }));
            tx.send(r.is_err()).unwrap();
        });
        // a hang check, not a time limit on the work: the run returns at once or never
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(300)),
            Ok(true),
            "the display's run did not return the panic"
        );
    }

    #[test]
    fn the_eta_is_the_engine_s_projection_where_it_gave_one() {
        let p = Progress::new(Mode::Plain, false);
        p.units(10, 4, &BigUint::ZERO);
        p.layer(&layer());
        // no piece counted by this process yet: no rate, no ETA
        assert!(!p.line().unwrap().contains("ETA"), "{:?}", p.line());
        p.unit_done(&BigUint::from(5u32));
        // one piece in a moment: the mean rate says 5 pieces in no time at all
        let by_rate = p.line().unwrap();
        assert!(by_rate.contains("ETA"), "{by_rate}");
        assert!(!by_rate.contains("hours"), "{by_rate}");
        // the engine says 5,000 s (1.4 hours, however long the test takes to get here)
        p.rest(Some(5000.0));
        let line = p.line().unwrap();
        assert!(line.ends_with("ETA 1.4 hours"), "{line}");
        // while the pieces drawn first are counted, the engine has none: none is made up
        p.rest(None);
        let line = p.line().unwrap();
        assert!(
            line.ends_with("ETA once the pieces drawn first are counted"),
            "{line}"
        );
    }

    #[test]
    fn an_overdue_projection_gives_way_to_the_mean_rate() {
        // 5 of 10 pieces left at half a piece a second: 10 s
        assert_eq!(eta(Some(100.0), 5, 10, 0.5), Some(100.0));
        assert_eq!(eta(Some(-1.0), 5, 10, 0.5), Some(10.0), "overdue");
        assert_eq!(eta(Some(0.0), 5, 10, 0.5), Some(10.0), "overdue");
        assert_eq!(eta(None, 5, 10, 0.5), Some(10.0));
        assert_eq!(eta(Some(100.0), 10, 10, 0.5), Some(0.0), "all done");
        assert_eq!(eta(Some(-1.0), 5, 10, 0.0), None, "no rate yet");
    }
}
