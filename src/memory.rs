//! The process's memory: the machine's, the resident size a bound is held against, the margin
//! it keeps, and giving memory the allocator holds freed back to the system.

/// Three quarters of the machine's memory (8 GiB where it cannot be read): a safe share.
#[must_use]
pub fn default_max_memory() -> u64 {
    total_memory().map_or(8 << 30, |bytes| bytes / 4 * 3)
}

/// The machine's memory: `MemTotal`, the first line of `/proc/meminfo` (which a container's
/// file system may rewrite to the container's limit, where `sysinfo(2)` would give the host's),
/// read with one small read: reading the whole file took a standard library's growing reads,
/// eleven system calls, a fiftieth of `knights count 6x6 --closed` in the process.
pub(crate) fn total_memory() -> Option<u64> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open("/proc/meminfo")
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    kib_field(std::str::from_utf8(&head[..n]).ok()?, "MemTotal:")
}

/// The bytes of a `KEY:  N kB` line of a `/proc` file's text (`/proc/meminfo`,
/// `/proc/self/status`).
pub(crate) fn kib_field(text: &str, key: &str) -> Option<u64> {
    let kb: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix(key))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Switches the system's transparent huge pages (2 MiB) on or off for this process (Linux;
/// elsewhere nothing). The `knights` command starts with them off, so that a small count is not
/// resident in 2 MiB steps, and switches them on at its first large allocation; an engine whose
/// tables are large from the start switches them on before it makes any (the frontier engine:
/// its first layers are small, and memory faulted in small pages then stays small when the
/// large tables reuse it: 7x8 closed had 80 MB of its 420 in huge pages, against all of it).
/// A failure changes speed and memory only, never results, so it is ignored.
pub fn set_huge_pages(on: bool) {
    #[cfg(target_os = "linux")]
    {
        let disable: libc::c_ulong = if on { 0 } else { 1 };
        // SAFETY: PR_SET_THP_DISABLE takes one integer flag and touches no memory of ours.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, disable, 0, 0, 0);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}

/// The process's resident memory in bytes, where the system says (`/proc/self/statm`): checked
/// against `--max-memory` before each allocation of an engine's tables, so that the bound holds
/// for the whole process (the tables, the layers kept beside them, buffers and the memory the
/// allocator keeps for reuse), not for the tables alone.
#[must_use]
pub fn resident_bytes() -> Option<u64> {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let page = *PAGE.get_or_init(|| {
        // SAFETY: sysconf reads a configuration value and has no preconditions
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(p).unwrap_or(4096)
    });
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page)
}

/// The most memory the process has been resident in so far, in bytes, where the system says
/// (`VmHWM` in `/proc/self/status`): a projection of a count's peak made partway through it is
/// at least that.
#[must_use]
pub fn peak_resident_bytes() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
}

/// The bytes a bound of `limit` keeps free for what is allocated between two checks (the
/// workers' batches, other threads' tables, the allocator's rounding): a 16th of it, 8 to
/// 512 MiB. Without it a count under `--max-memory 200M` peaked at 204 MiB.
#[must_use]
pub fn margin(limit: u64) -> u64 {
    (limit / 16).clamp(8 << 20, 512 << 20)
}

/// The resident size the process would need for `extra` more bytes, its margin included: what
/// [`fits`] holds against the bound.
#[must_use]
pub fn needed(limit: u64, extra: u64) -> u64 {
    resident_bytes()
        .unwrap_or(0)
        .saturating_add(extra)
        .saturating_add(margin(limit))
}

/// Whether `extra` more bytes keep the process within `limit`, with its [`margin`] (always,
/// where the resident size cannot be read, or with no bound).
#[must_use]
pub fn fits(limit: u64, extra: u64) -> bool {
    if limit == u64::MAX || resident_bytes().is_none() || needed(limit, extra) <= limit {
        return true;
    }
    // memory freed and kept by the allocator for reuse is resident too: given back, and the
    // size read again (see the binary's allocator)
    give_back_freed_memory();
    needed(limit, extra) <= limit
}

/// Asks mimalloc to give the memory it keeps, freed, back to the system now. Where mimalloc is
/// not the allocator (a library user's program, the tests), it holds nothing and this costs
/// nothing.
pub fn give_back_freed_memory() {
    // SAFETY: a collection of the allocator's own free lists; safe at any time from any thread
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Where the process holds more than half of `bound`, [`give_back`]: only then, since pages
/// given back are cleared again when next used (a seventh of 8x8 closed's exact draws, where
/// the sampler gave back after every node).
pub(crate) fn relieve(bound: u64) {
    if bound != u64::MAX && resident_bytes().is_some_and(|r| r > bound / 2) {
        give_back();
    }
}

/// Asks every thread's allocator, and this one's, to give back the memory it keeps freed (at a
/// point where no table is being filled).
pub(crate) fn give_back() {
    rayon::broadcast(|_| give_back_freed_memory());
    give_back_freed_memory();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one read finds the figure a reading of the whole of `/proc/meminfo` finds.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_machine_s_memory_is_meminfo_s_total() {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
        let kb: u64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a MemTotal line");
        assert_eq!(total_memory(), Some(kb * 1024));
        assert_eq!(default_max_memory(), kb * 1024 / 4 * 3);
    }
}
