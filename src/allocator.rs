//! The process-wide allocator (the default `mimalloc` feature): mimalloc, entered through its
//! plain functions whenever they already give the alignment asked for.
//!
//! Why not `mimalloc::MiMalloc`: it calls `mi_malloc_aligned` for every allocation, and for a
//! block size that is not a power of two mimalloc v3 serves that call from its generic path once
//! the page's free list has run dry, and then never refills that free list: every later
//! allocation of the size takes the slow path too (measured under callgrind: about 155
//! instructions per `Tensor` allocation, 1.2M allocations for 200k CSV lines). `mi_malloc`
//! refills the free list from the blocks freed since, as usual. Its blocks are always aligned
//! to 8 bytes; larger alignments still go through `mi_malloc_aligned`.
//!
//! Freed memory stays with the process: at start-up, unless `MIMALLOC_PURGE_DELAY` is set,
//! mimalloc's purging is turned off, so a process keeps the memory it has used for the next run.
//! With purging on (after 1 s by default), memory that a dropped session, its queue slots or an
//! exited queue-runner thread gave back was returned to the OS and the next session faulted it
//! in again, zeroing a 2 MiB huge page at a time: on a 2-core VM the kernel's page clearing took
//! half of the first two repetitions of `mnist_bytes_t2` (perf), which ran at 240-420k ex/s
//! against 460-500k once warm. The peak resident size does not change (same maxrss either way).
//!
//! This is the workspace's one use of `unsafe`: implementing `GlobalAlloc` and calling
//! mimalloc's C API require it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_long, c_void};

use libmimalloc_sys as mi;

/// The alignment every mimalloc block has (its word size).
const PLAIN_ALIGN: usize = 8;

/// mimalloc as a `GlobalAlloc`.
pub struct MiMalloc;

// SAFETY: every method forwards to the mimalloc function with the same contract as the
// `GlobalAlloc` method (size, alignment and ownership of the pointer), using the unaligned
// variant only for alignments mimalloc gives every block.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

/// `mi_option_purge_delay`: its place in mimalloc v3's `mi_option_e`, which libmimalloc-sys does
/// not name.
const OPTION_PURGE_DELAY: mi::mi_option_t = 15;

/// Turns mimalloc's purging off (`-1`) unless the user chose a delay through the environment.
extern "C" fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mi_option_set only stores the value; mimalloc reads options lazily, so it may
        // be called before mimalloc's own initialisation.
        unsafe { mi::mi_option_set(OPTION_PURGE_DELAY, -1 as c_long) };
    }
}

/// Runs [`keep_freed_memory`] while the process starts, before `main` and any session.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static KEEP_FREED_MEMORY: extern "C" fn() = keep_freed_memory;

#[cfg(test)]
mod tests {
    /// The start-up hook ran in this test binary too.
    #[cfg(target_os = "linux")]
    #[test]
    fn freed_memory_is_kept_unless_the_environment_says_otherwise() {
        let expected = match std::env::var("MIMALLOC_PURGE_DELAY") {
            Ok(v) => v.trim().parse().unwrap_or(1000),
            Err(_) => -1,
        };
        // SAFETY: reading an option has no precondition.
        let delay = unsafe { super::mi::mi_option_get(super::OPTION_PURGE_DELAY) };
        assert_eq!(delay, expected);
    }

    /// Allocations of many sizes and alignments through the global allocator come back aligned
    /// and hold their contents across growth.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        #[repr(align(32))]
        struct Wide([u8; 40]);
        for n in [1usize, 3, 7, 8, 13, 24, 100, 1000, 5000, 70_000, 300_000] {
            let mut v: Vec<u8> = (0..n).map(|i| i as u8).collect();
            v.extend_from_slice(&[7; 64]);
            assert_eq!(v[n - 1], (n - 1) as u8);
            let b: Vec<u64> = vec![9; n];
            assert_eq!(b.as_ptr() as usize % 8, 0);
            let w: Vec<Wide> = (0..n.min(1000)).map(|_| Wide([1; 40])).collect();
            assert_eq!(w.as_ptr() as usize % 32, 0);
            assert!(w.iter().all(|x| x.0[39] == 1));
            let z = vec![0u128; n.min(1000)];
            assert_eq!(z.as_ptr() as usize % std::mem::align_of::<u128>(), 0);
        }
    }
}
