//! The program's allocator: mimalloc, with two choices made for this program's work.
//!
//! **Small pages until a large table.** The system backs mimalloc's memory with transparent huge
//! pages (2 MiB each) where it may. For a large table that is a gain: one fault and one TLB
//! entry for 2 MiB instead of 512 (`knights count 6x6` with 4 KiB pages for its 6 MiB tables
//! took 7,285 page faults and 0.14 s against 0.09 s). For a count of a few milliseconds it is a
//! loss: each of the handful of regions a small process touches costs a whole huge page, so
//! `knights count 3x4` was resident in 10.8 MiB with them and 5.2 MiB without. So the process
//! starts with huge pages switched off (from before its first allocation, see
//! [`SMALL_PAGES_FIRST`]), and the first allocation of at least [`LARGE`] bytes
//! (a memo table grown for a large board, a sampler's cache) switches them on for the rest of
//! the run, before that allocation is made; the frontier engine switches them on as it starts
//! (`knights::memory::set_huge_pages`).
//!
//! **A small first arena.** mimalloc reserves its memory in arenas, the first of 1 GiB; making
//! one writes the header of each of its eighty bitmaps, a fresh page apiece for an arena that
//! size (42 of the 280 page faults of `knights count 3x4`, a twentieth of its time). The process
//! starts with the smallest reserve mimalloc takes, 32 MiB (it makes the first arena 64 MiB,
//! with room for its own records), whose bitmaps share a few pages, and the first large
//! allocation puts the reserve back (see [`SMALL_PAGES_FIRST`]). A program that never makes a
//! large allocation keeps small arenas, which mimalloc doubles every eighth arena.
//!
//! **Freed memory is kept**, see [`keep_freed_memory`].
//!
//! **Version 2.** mimalloc's version 3 keeps a page for each size class and thread, of 512 KiB
//! for blocks of 10 to 84 KiB and of 4 MiB for blocks up to 512 KiB: the partitions of a small
//! count's tables are such blocks, of many sizes, so `knights count 6x6 --engine frontier` was
//! resident in 43 to 48 MiB for 12 MiB of tables at its peak, 6x8 closed in 27 to 36 MiB for
//! 4.6. Version 2 (the crate's `v2` feature) took 34 and 19 MiB, 6x7 64 against 92. 7x7 open
//! and 8x8 closed took the same time with either (13.5 and 120 s); 7x8 open 95.5 to 102.1 s in
//! five runs against 96.3 to 97.7 in three, within this machine's noise between builds
//! (`results/estimates.md`, thirteenth stop).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_long;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use libmimalloc_sys::mi_option_t;

use mimalloc::MiMalloc;

/// Allocations of at least this many bytes switch huge pages on: one huge page's worth.
pub(crate) const LARGE: usize = 2 << 20;

/// mimalloc, switching huge pages on at the first large allocation (see the module's text).
pub(crate) struct Allocator;

/// Whether huge pages have been switched on (or the attempt made).
static HUGE: AtomicBool = AtomicBool::new(false);

/// `mi_option_arena_reserve` in mimalloc.h (the same number in its versions 2 and 3): the size,
/// in KiB, of the next arena mimalloc reserves. The bindings name no constant for it.
const ARENA_RESERVE: mi_option_t = 23;

/// The smallest arena reserve mimalloc takes (`MI_ARENA_MIN_SIZE`), in KiB.
const SMALL_ARENA: c_long = 32 << 10;

/// The arena reserve to put back at the first large allocation: mimalloc's default or the
/// user's `MIMALLOC_ARENA_RESERVE`, read before the process's first allocation.
static ARENA_DEFAULT: AtomicI64 = AtomicI64::new(0);

impl Allocator {
    #[inline]
    fn sized(size: usize) {
        // Relaxed: the flag only saves repeating a system call that is idempotent
        if size >= LARGE && !HUGE.load(Ordering::Relaxed) {
            HUGE.store(true, Ordering::Relaxed);
            knights::memory::set_huge_pages(true);
            let reserve = ARENA_DEFAULT.load(Ordering::Relaxed);
            if let Ok(reserve @ 1..) = c_long::try_from(reserve) {
                // SAFETY: sets a documented option to the value it had; mimalloc reads it when it
                // next reserves an arena, and setting it is safe at any time
                unsafe { libmimalloc_sys::mi_option_set(ARENA_RESERVE, reserve) }
            }
        }
    }
}

// SAFETY: every method forwards to mimalloc with the same arguments; the only addition is a
// system call that changes how the kernel backs later page faults, not any allocation's memory.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::sized(layout.size());
        // SAFETY: the caller's contract is passed on unchanged
        unsafe { MiMalloc.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::sized(layout.size());
        // SAFETY: as above
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::sized(new_size);
        // SAFETY: as above
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// Switches huge pages off and makes mimalloc's first arena small before anything in the process
/// allocates: a constructor that the loader runs ahead of mimalloc's own (priority 101) and of
/// `main`. Switched off in `main`, the first regions mimalloc had handed out before it (to the
/// runtime's start-up, to clap) were already backed by huge pages: two or three faults of 2 MiB,
/// each as slow to fill as 120 small pages, a quarter of `knights --version`'s time and a tenth
/// of `knights count 6x6 --closed`'s.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array.00100")]
static SMALL_PAGES_FIRST: extern "C" fn() = small_pages_first;

#[cfg(target_os = "linux")]
extern "C" fn small_pages_first() {
    knights::memory::set_huge_pages(false);
    // SAFETY: reads and sets one of the allocator's documented options; options are plain data
    // that mimalloc reads when it reserves an arena, so this is safe before it has started
    unsafe {
        let reserve = libmimalloc_sys::mi_option_get(ARENA_RESERVE);
        if reserve > SMALL_ARENA {
            // (c_long is i64 here, i32 on 32-bit systems)
            #[allow(clippy::useless_conversion)]
            ARENA_DEFAULT.store(i64::from(reserve), Ordering::Relaxed);
            libmimalloc_sys::mi_option_set(ARENA_RESERVE, SMALL_ARENA);
        }
    }
}

/// Tells the allocator to keep the memory a program frees for its next allocations instead of
/// giving it back to the system after a few milliseconds. A frontier count frees and takes
/// gigabytes layer after layer; each time the system hands memory back it zeroes it first,
/// which cost a sixth of the time of `knights count 7x7` (`results/frontier.md`). The memory
/// is kept for ten minutes rather than for ever: what is freed is then marked for giving back,
/// which a count near its `--max-memory` asks for at once (`knights::memory::fits`), so the
/// memory kept never stops a count that the memory it uses would let go on.
pub(crate) fn keep_freed_memory() {
    // `mi_option_purge_delay` in mimalloc.h (the same number in its versions 2 and 3); the
    // bindings name no constant for it
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets one of the allocator's documented options to a documented value (a delay in
    // milliseconds); it takes effect at its next purge and is safe to call at any time.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 600_000) }
}
