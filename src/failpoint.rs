//! Fail points: places in the code where a test can make the process pause or fail on purpose,
//! set by the environment variable `KNIGHTS_FAILPOINTS` (the `fail` crate's syntax,
//! `NAME=ACTIONS;NAME=ACTIONS`). A test that kills a count mid-way must know that the count was
//! still running when it was killed: `saved=100*off->sleep(60000)` lets the first 100 saves pass
//! and then holds the count after each save, however fast the machine, so the kill always finds
//! it running and its files at a known point. Unset, every fail point does nothing; a build
//! without the feature `failpoints` (every release build) has none, and refuses the variable.
//!
//! The fail points:
//! - `saved`: just after a count made something durable (a checkpoint record, a file replaced
//!   atomically, a leaf of a piece recorded), or the exact sampler wrote a node it keeps
//!   (`sample --nodes`).
//! - `stepped`: after a layer of a frontier sweep that is finished and not saved (the save due
//!   after it, if any, is made first); `return(PATH)` creates the file PATH and holds the count
//!   there until a stop signal (at most a minute), so that a test stops a count at a moment it
//!   knows, with work the last save does not hold, whatever the machine's load.
//! - `stopping`: as a stopping count has said it saves its work in progress, before the save;
//!   `return` holds it until a second stop signal (at most a minute), which the save then sees
//!   at its first 4,096 states and gives up.
//! - `projected-seconds`: `return(SECONDS)` sets a frontier count's projected time at its
//!   first projection (what a count of hours says, tested on a count of seconds).
//! - `scratch-free`: the free space of the scratch folder, `return(BYTES)` (a refusal for want
//!   of disk, tested the same on a machine with any disk).
//! - `spill`: as a table's file on disk is begun (a partition's runs mid-layer, or a layer
//!   written whole); `return` kills the process there with SIGKILL, so that a test kills a
//!   count at the Nth file (`spill=N*off->return`), a moment no signal from outside can hit.
//! - `sample-shared-disk`: `return` sends the exact sampler's shared layers (`sample::meet`) to
//!   a file however small they are, as they go past a quarter of the memory bound.
//! - `sample-child-groups`: `return` makes every table of the exact sampler (`sample::meet`) in
//!   groups of buckets, each group's successors from the whole layer again, as the tables
//!   whose unsummed successors pass an eighth of the memory bound are made.
//! - `sample-path-disk`: `return` sends the exact sampler's nodes above a leaf to a file, the
//!   deepest of each side kept in memory too, as they go when they pass a quarter of the bound.
//! - `sample-nodes-full`: `return` makes the exact sampler's kept nodes (`sample --nodes`) see a
//!   disk with no room, as a node is about to be written: the writing stops, said once, and
//!   the sampler makes its nodes as it needs them.
//! - `sample-join-pairwise`: `return` makes the exact sampler join each leaf pair by pair, as it
//!   does where a right state's count passes one word, instead of by the count's runs of a group.
//! - `sample-narrow-full`: `return` makes a table of the exact sampler met in the middle with
//!   one-word counts (`sample::entry`) find a count past the word as it is made (checked once a
//!   table): the sampler is made again with two-word counts (`N*off->return`: at the table after
//!   the Nth, in the setup or in a batch).

/// The environment variable that sets the fail points.
pub const ENV: &str = "KNIGHTS_FAILPOINTS";

/// Whether this build has its fail points (the feature `failpoints`, which the tests' build
/// turns on; a release build has none).
pub const COMPILED: bool = cfg!(feature = "failpoints");

/// Sets the fail points `KNIGHTS_FAILPOINTS` names; an error names the entry it cannot read, or
/// says that this build has none.
pub fn configure_from_env() -> Result<(), String> {
    let Some(v) = std::env::var_os(ENV) else {
        return Ok(());
    };
    if !COMPILED {
        return Err(format!(
            "{ENV} is set, but this build of knights has no fail points (they are for its tests: build with --features failpoints); unset it"
        ));
    }
    let v = v.to_string_lossy();
    for entry in v.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, actions) = entry.split_once('=').ok_or_else(|| {
            format!("{ENV}: '{entry}' is not NAME=ACTIONS (for example saved=10*off->sleep(1000))")
        })?;
        fail::cfg(name.trim(), actions.trim()).map_err(|e| format!("{ENV}: '{entry}': {e}"))?;
    }
    Ok(())
}

/// The fail points `stepped` and `stopping` (see the module's doc): where `name` is set to
/// `return(PATH)` or `return`, creates the file PATH (if named) and waits until `flag` is set or
/// a minute has passed.
pub(crate) fn hold(name: &str, flag: &std::sync::atomic::AtomicBool) {
    let Some(marker) = fail::eval(name, |arg| arg) else {
        return;
    };
    if let Some(path) = marker.filter(|p| !p.is_empty()) {
        // the test waits for this file; a failure to make it is the test's to see (a hang)
        let _ = std::fs::write(path, b"");
    }
    let t0 = std::time::Instant::now();
    // Relaxed: a flag polled until it is set
    while !flag.load(std::sync::atomic::Ordering::Relaxed)
        && t0.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The `spill` fail point (see the module's doc): SIGKILL to this process where it is set to
/// `return`.
pub(crate) fn spill() {
    if fail::eval("spill", |_| ()).is_some() {
        // SAFETY: kill(2) of this process by its own id, with a constant signal; it does not
        // return
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
