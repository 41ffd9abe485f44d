//! The ledger of a long count: finished pieces kept apart from the run's own log, one small
//! file each (see [`checkpoint::write_ledger`]), in a folder that any number of machines add to
//! over weeks (a repository, say). A run given `--ledger DIR` counts only the pieces no file
//! there holds, and writes each piece it finishes there with how it was counted; `knights merge
//! DIR/*` puts them together, `knights status DIR` says what is left (see [`super::folder`]).
//!
//! The figures of a record (wall and CPU seconds, peak memory) are the process's own while it
//! counted that piece: the frontier engine counts its pieces one after another, each on every
//! thread, so the time since the last record is the piece's. The peak is the resident high-water
//! mark, reset at the start of each piece where the system allows (Linux's `clear_refs`), else
//! the process's peak so far (said by the key `peak_mib_since_start`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use num_bigint::BigUint;

use super::checkpoint::{self, RunId};
use crate::durable::CheckpointError;
use crate::engine::{Made, Timed};

/// What a ledger holds of one run ([`read`]).
pub struct Held {
    /// The pieces counted, by number.
    pub done: BTreeMap<usize, BigUint>,
    /// The file each piece counted is read from.
    pub from: BTreeMap<usize, PathBuf>,
    /// The files of this run.
    pub files: usize,
    /// The files of other runs (left aside).
    pub other: Vec<PathBuf>,
    /// The pieces with their records' wall seconds (see [`crate::engine::Host::earlier`]).
    pub timed: Vec<Timed>,
}

/// The pieces of run `id` that the ledger in `dir` holds (none where `dir` does not exist).
pub fn read(dir: &Path, id: &RunId) -> Result<Held, CheckpointError> {
    let mut done: BTreeMap<usize, BigUint> = BTreeMap::new();
    let mut from: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let (mut ours, mut other) = (0, Vec::new());
    let mut notes = BTreeMap::new();
    let Ok(paths) = log_files(dir) else {
        return Ok(Held {
            done,
            from,
            files: 0,
            other,
            timed: Vec::new(),
        });
    };
    for path in paths {
        let Ok(l) = checkpoint::read(&path) else {
            other.push(path);
            continue;
        };
        if !l.ledger || l.id.differs(id, true).is_some() {
            other.push(path);
            continue;
        }
        ours += 1;
        notes.extend(l.notes);
        for (u, c) in l.done {
            if let Some(a) = done.get(&u) {
                if *a != c {
                    return Err(CheckpointError::Disagree {
                        unit: u,
                        first: from[&u].clone(),
                        a: a.to_string(),
                        second: path,
                        b: c.to_string(),
                    });
                }
            }
            done.insert(u, c);
            from.entry(u).or_insert_with(|| path.clone());
        }
    }
    Ok(Held {
        done,
        from,
        files: ours,
        other,
        timed: NoteFigures::of(&notes).timed(),
    })
}

/// The cut and the pieces counted that the records in `dir` give for a request like `id`'s
/// (its board, piece, kind and engine; the cut and the shard are not compared): `(pieces of
/// the cut, pieces counted)`, read before the engine has cut the count. `None` where no record
/// is of such a run.
#[must_use]
pub fn peek(dir: &Path, id: &RunId) -> Option<(usize, BTreeSet<usize>)> {
    let mut found: Option<(usize, BTreeSet<usize>)> = None;
    for path in log_files(dir).ok()? {
        let Ok(l) = checkpoint::read(&path) else {
            continue;
        };
        if !l.ledger || l.id.differs_in_request(id).is_some() {
            continue;
        }
        let (units, done) = found.get_or_insert_with(|| (l.id.units, BTreeSet::new()));
        if *units == l.id.units {
            done.extend(l.done.keys().copied());
        }
    }
    found
}

/// The note of a ledger record copied from the run's checkpoint (the piece was counted, its
/// record missing from the ledger): its figures are the checkpoint's.
pub const FROM_CHECKPOINT_NOTE: &str = "from_checkpoint";

/// The note of a ledger record whose piece went on from parts an earlier run counted (the
/// number of them): its time and memory are the rest's only, and no projection takes them.
pub const RESUMED_NOTE: &str = "resumed_parts";

/// The note of a record whose piece made nodes of the digit tree above it (see
/// [`crate::engine::Host::above`]): `depth:wall_seconds:cpu_seconds` for each, joined by commas.
pub const ABOVE_NOTE: &str = "above_s";

/// The [`ABOVE_NOTE`] of the nodes `made`: `-` where it made none, so that a record tells a
/// piece that shared the nodes above it from one written before records said them.
#[must_use]
pub fn above_note(made: &[Made]) -> (&'static str, String) {
    if made.is_empty() {
        return (ABOVE_NOTE, NONE_ABOVE.to_string());
    }
    // (whole seconds from 100 on: a record's note holds at most 200 characters)
    let secs = |s: f64| {
        if s < 100.0 {
            format!("{s:.1}")
        } else {
            format!("{s:.0}")
        }
    };
    let parts: Vec<String> = made
        .iter()
        .map(|m| format!("{}:{}:{}", m.depth, secs(m.wall), secs(m.cpu)))
        .collect();
    (ABOVE_NOTE, parts.join(","))
}

/// The value of an [`ABOVE_NOTE`] of a piece that made no node above it.
const NONE_ABOVE: &str = "-";

/// The nodes an [`ABOVE_NOTE`]'s value gives, `None` where it is not one's.
fn parse_above(v: &str) -> Option<Vec<Made>> {
    if v == NONE_ABOVE {
        return Some(Vec::new());
    }
    v.split(',')
        .map(|p| {
            let mut f = p.split(':');
            let depth = f.next()?.parse::<usize>().ok()?;
            let wall = f.next()?.parse::<f64>().ok()?;
            let cpu = f.next()?.parse::<f64>().ok()?;
            let fine = |s: f64| s.is_finite() && s >= 0.0;
            (f.next().is_none() && depth > 0 && fine(wall) && fine(cpu)).then_some(Made {
                depth,
                wall,
                cpu,
            })
        })
        .collect()
}

/// The figures of the piece in progress, from its start.
pub struct Meter {
    wall: Instant,
    cpu: Option<f64>,
    /// Whether the peak was reset at the start.
    reset: bool,
}

impl Meter {
    /// Starts measuring a piece (resetting the process's peak memory where it can).
    #[must_use]
    pub fn start() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: crate::engine::cpu_seconds(),
            reset: reset_peak(),
        }
    }

    /// Starts measuring a piece's time only, for a checkpoint's record (the process's peak
    /// memory is left as it is: a checkpoint's count keeps its whole peak).
    #[must_use]
    pub fn timing() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: crate::engine::cpu_seconds(),
            reset: false,
        }
    }

    /// A meter of the same kind started now, for the next piece.
    #[must_use]
    pub fn restarted(&self) -> Meter {
        if self.reset {
            Meter::start()
        } else {
            Meter::timing()
        }
    }

    /// The notes of a checkpoint's record: the piece's wall and CPU seconds.
    #[must_use]
    pub fn time_notes(&self) -> Vec<(&'static str, String)> {
        let mut n = vec![(
            "wall_s",
            format!("{:.1}", self.wall.elapsed().as_secs_f64()),
        )];
        if let (Some(a), Some(b)) = (self.cpu, crate::engine::cpu_seconds()) {
            n.push(("cpu_s", format!("{:.1}", b - a)));
        }
        n
    }

    /// The notes of a ledger record: the program, the machine, and the piece's figures.
    #[must_use]
    pub fn notes(&self, threads: usize) -> Vec<(&'static str, String)> {
        let mut n = vec![
            ("commit", env!("KNIGHTS_COMMIT").to_string()),
            ("cores", crate::engine::cores().to_string()),
            ("threads", threads.to_string()),
            (
                "memory_gib",
                format!(
                    "{:.1}",
                    crate::memory::total_memory().unwrap_or(0) as f64 / GIB
                ),
            ),
        ];
        n.extend(self.time_notes());
        if let Some(p) = crate::memory::peak_resident_bytes() {
            let key = if self.reset {
                "peak_mib"
            } else {
                "peak_mib_since_start"
            };
            n.push((key, format!("{}", p >> 20)));
        }
        n
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Resets the process's resident high-water mark (Linux 4.0 on); whether it did.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The ledger records in `dir` (its `*.log` files), sorted. A run's temporary (a record being
/// written, `.knights-tmp.…`, left whole by a run killed before its rename) is not a record:
/// taken for one, its piece would be neither counted again nor written from the checkpoint.
pub(super) fn log_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(crate::durable::PREFIX))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// What the notes of a log's records say of the pieces' cost.
#[derive(Clone, Debug, Default)]
pub struct NoteFigures {
    /// The CPU seconds of each piece whose record has them (not those marked [`RESUMED_NOTE`]:
    /// theirs is a part's).
    pub cpu: BTreeMap<usize, f64>,
    /// The largest peak memory a record gives, in MiB.
    pub peak_mib: u64,
    /// The records marked [`RESUMED_NOTE`].
    pub resumed: usize,
    /// The wall seconds of each piece whose record has them (as `cpu`).
    pub wall: BTreeMap<usize, f64>,
    /// The nodes above its piece that each record's process made ([`ABOVE_NOTE`]), by piece.
    pub above: BTreeMap<usize, Vec<Made>>,
}

impl NoteFigures {
    /// The figures of `notes` (a log's, by piece).
    #[must_use]
    pub fn of(notes: &BTreeMap<usize, super::checkpoint::Notes>) -> NoteFigures {
        let mut f = NoteFigures::default();
        for (&piece, notes) in notes {
            let part = notes.iter().any(|(k, _)| k == RESUMED_NOTE);
            f.resumed += usize::from(part);
            for (k, v) in notes {
                match (k.as_str(), v.parse::<f64>()) {
                    ("cpu_s", Ok(c)) if !part && c.is_finite() && c >= 0.0 => {
                        f.cpu.insert(piece, c);
                    }
                    ("wall_s", Ok(w)) if !part && w.is_finite() && w >= 0.0 => {
                        f.wall.insert(piece, w);
                    }
                    ("peak_mib" | "peak_mib_since_start", Ok(m)) if m.is_finite() => {
                        f.peak_mib = f.peak_mib.max(m as u64);
                    }
                    (ABOVE_NOTE, _) => {
                        if let Some(made) = parse_above(v) {
                            f.above.insert(piece, made);
                        }
                    }
                    _ => {}
                }
            }
        }
        f
    }

    /// The pieces with wall seconds, each with the nodes above it that it made, as a run that
    /// goes on takes them (see [`crate::engine::Host::earlier`]).
    #[must_use]
    pub fn timed(&self) -> Vec<Timed> {
        self.wall
            .iter()
            .map(|(&piece, &wall)| Timed {
                piece,
                wall,
                above: self.above.get(&piece).cloned(),
            })
            .collect()
    }
}

/// How a projection by class (see [`crate::frontier::project_left`]) is made, in parentheses, for
/// `unmeasured` pieces left of a class no record times.
pub(crate) fn by_class_basis(unmeasured: usize) -> String {
    let mut s = " (each piece at the mean CPU time of the pieces counted of its class, how many of its digits are 1 (the squares where the path crosses the cut), less the nodes above it that its record says it made; those nodes still to make for the pieces left, once each at the mean of their depth".to_string();
    if unmeasured > 0 {
        s += &format!(
            "; {unmeasured} of a class none of whose pieces has figures, at the mean of all"
        );
    }
    s + ")"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nodes_above_a_piece_are_noted_and_read_back() {
        let made = [
            Made {
                depth: 1,
                wall: 3.04,
                cpu: 6.04,
            },
            Made {
                depth: 3,
                wall: 0.0,
                cpu: 1234.56,
            },
        ];
        let (k, v) = above_note(&made);
        assert_eq!((k, v.as_str()), (ABOVE_NOTE, "1:3.0:6.0,3:0.0:1235"));
        let back = parse_above(&v).unwrap();
        assert_eq!((back[0].depth, back[0].wall, back[0].cpu), (1, 3.0, 6.0));
        assert_eq!((back[1].depth, back[1].wall, back[1].cpu), (3, 0.0, 1235.0));
        let notes: BTreeMap<usize, super::super::checkpoint::Notes> = [
            (5, vec![(ABOVE_NOTE.to_string(), v.clone())]),
            // damaged values are no figure
            (6, vec![(ABOVE_NOTE.to_string(), "1:x:1".to_string())]),
            (7, vec![(ABOVE_NOTE.to_string(), "0:1.0:1.0".to_string())]),
            (
                8,
                vec![(ABOVE_NOTE.to_string(), "1:-2:1,2:1:1".to_string())],
            ),
            (9, vec![(ABOVE_NOTE.to_string(), "1:1:NaN".to_string())]),
            (10, vec![(ABOVE_NOTE.to_string(), "1:1".to_string())]),
            (11, vec![(ABOVE_NOTE.to_string(), "1:1:1:1".to_string())]),
            (12, vec![(ABOVE_NOTE.to_string(), String::new())]),
            // a piece that made none: said, and told from a record that says nothing
            (13, vec![(ABOVE_NOTE.to_string(), above_note(&[]).1)]),
            (14, vec![("wall_s".to_string(), "2.0".to_string())]),
        ]
        .into();
        let f = NoteFigures::of(&notes);
        assert_eq!(f.above.keys().copied().collect::<Vec<_>>(), [5, 13]);
        assert_eq!(f.above[&13], []);
        assert_eq!(f.timed()[0].above, None);
    }
}
