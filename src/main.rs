//! The `gatebench` binary: parse the command line, call the library, exit with its code.

mod cli;

use std::alloc::{GlobalAlloc, Layout};

use gatebench::run::memory;

/// mimalloc instead of glibc's allocator: measured in docs/PERFORMANCE.md ("Per-trial CPU").
/// A failed allocation goes to `memory::on_failure` (the reserve released, the run marked out of
/// memory, the allocation tried again) instead of Rust's abort.
struct Allocator;

// SAFETY: every call is mimalloc's, with the layout it was given; a retry is the same call.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        loop {
            let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
            if !p.is_null() || !memory::on_failure(layout.size(), "gatebench") {
                return p;
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        loop {
            let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
            if !p.is_null() || !memory::on_failure(layout.size(), "gatebench") {
                return p;
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        loop {
            let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
            if !p.is_null() || !memory::on_failure(new_size, "gatebench") {
                return p;
            }
        }
    }
}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

fn main() {
    memory::guard();
    std::process::exit(cli::main());
}
