//! After the corpus is loaded and before the trials start, the memory the load freed is handed
//! back to the system. The binary's allocator (mimalloc, `src/main.rs`) keeps freed pages in the
//! heap of the thread that freed them, and the load parses every `fixture.yaml` on the worker
//! threads: what it parsed and dropped stayed resident for the whole run, the part of peak memory
//! that grew with the corpus (docs/PERFORMANCE.md, "Scale", eighth section).
//!
//! Under another global allocator (the library's own tests) mimalloc holds nothing, and this
//! returns at once.

/// Returns the freed pages of every thread of rayon's global pool (where the load ran) and of the
/// calling thread to the system.
pub fn release_after_load() {
    // SAFETY: `mi_collect` takes no pointer and acts on the calling thread's own heap: it is
    // called on the thread whose freed memory it returns, as mimalloc documents it.
    rayon::broadcast(|_| unsafe { libmimalloc_sys::mi_collect(true) });
    // SAFETY: as above.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

/// Out of memory. A failed allocation used to end the process two ways, neither with anything
/// written: Rust's allocation failure aborts ("memory allocation of N bytes failed", exit 134),
/// and libgit2, handed NULL, dereferenced it in places (`config_snapshot_open`, a SIGSEGV with no
/// output; found with gdb under `ulimit -v 200000`, `--jobs 8`). Both allocators now go through
/// [`on_failure`]: the first failure releases a reserve of address space taken at start
/// ([`RESERVE_BYTES`]) and marks the run out of memory, so the allocation is retried and
/// succeeds; trials not yet started are then recorded as errors without running
/// (`runner::run_trial`), and the run writes its outputs as any run does: a partial run,
/// recorded, with a clear error. If memory runs out again before that, the process says so on
/// standard error and exits with [`EXIT_OUT_OF_MEMORY`], never a silent SIGSEGV.
pub const RESERVE_BYTES: usize = 64 << 20;
/// The exit code when memory ran out twice (the reserve did not suffice to finish the run).
pub const EXIT_OUT_OF_MEMORY: i32 = crate::exit_code::OUT_OF_MEMORY;

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

static RESERVE: AtomicPtr<libc::c_void> = AtomicPtr::new(std::ptr::null_mut());
static EXHAUSTED: AtomicBool = AtomicBool::new(false);

/// Takes the reserve (address space, never touched: it costs no resident memory) and routes
/// libgit2's allocations through [`on_failure`]. Called once, before anything else, by the binary.
pub fn guard() {
    // SAFETY: an anonymous private mapping, owned by RESERVE from here on.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            RESERVE_BYTES,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p != libc::MAP_FAILED {
        RESERVE.store(p, Ordering::SeqCst);
    }
    libgit2::install();
}

/// Whether memory ran out during this run (trials not started since are not run).
pub fn exhausted() -> bool {
    EXHAUSTED.load(Ordering::SeqCst)
}

/// What an allocator calls when an allocation of `size` bytes failed: the first time, the reserve
/// is released and the run marked out of memory (returns `true`: try again); after that, the
/// process ends with a message and [`EXIT_OUT_OF_MEMORY`]. Allocates nothing itself.
pub fn on_failure(size: usize, origin: &str) -> bool {
    let reserve = RESERVE.swap(std::ptr::null_mut(), Ordering::SeqCst);
    EXHAUSTED.store(true, Ordering::SeqCst);
    if !reserve.is_null() {
        // SAFETY: the mapping `guard` made, unmapped once (the swap took it).
        unsafe { libc::munmap(reserve, RESERVE_BYTES) };
        return true;
    }
    // No formatting (it could allocate): the message in pieces, the size in a stack buffer.
    let mut digits = [0u8; 20];
    let mut n = size;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for part in [
        &b"error: gatebench ran out of memory: an allocation of "[..],
        &digits[at..],
        b" bytes in ",
        origin.as_bytes(),
        b" failed after the reserve was used; the run is stopped (no outputs written). \
          Give it more memory or fewer --jobs.\n",
    ] {
        // SAFETY: writing a valid buffer to standard error.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: ends the process at once; nothing else is safe without memory.
    unsafe { libc::_exit(EXIT_OUT_OF_MEMORY) }
}

/// libgit2's allocator (`GIT_OPT_SET_ALLOCATOR`): the C library's, as libgit2's own default is,
/// with a failed allocation passed to [`on_failure`] instead of returned as NULL.
mod libgit2 {
    use std::ffi::{c_char, c_int, c_void};

    /// libgit2's `git_allocator` (`git2/sys/alloc.h`, libgit2 1.9).
    #[repr(C)]
    struct GitAllocator {
        gmalloc: unsafe extern "C" fn(usize, *const c_char, c_int) -> *mut c_void,
        grealloc: unsafe extern "C" fn(*mut c_void, usize, *const c_char, c_int) -> *mut c_void,
        gfree: unsafe extern "C" fn(*mut c_void),
    }

    unsafe extern "C" fn gmalloc(n: usize, _: *const c_char, _: c_int) -> *mut c_void {
        loop {
            // SAFETY: the C library's malloc, as libgit2's default allocator calls it.
            let p = unsafe { libc::malloc(n) };
            if !p.is_null() || n == 0 || !super::on_failure(n, "libgit2") {
                return p;
            }
        }
    }

    unsafe extern "C" fn grealloc(
        ptr: *mut c_void,
        n: usize,
        _: *const c_char,
        _: c_int,
    ) -> *mut c_void {
        loop {
            // SAFETY: `ptr` was allocated by this allocator's malloc or realloc (or libgit2's
            // default one before this was installed: the same C library functions).
            let p = unsafe { libc::realloc(ptr, n) };
            if !p.is_null() || n == 0 || !super::on_failure(n, "libgit2") {
                return p;
            }
        }
    }

    unsafe extern "C" fn gfree(ptr: *mut c_void) {
        // SAFETY: as for `grealloc`.
        unsafe { libc::free(ptr) }
    }

    static ALLOCATOR: GitAllocator = GitAllocator {
        gmalloc,
        grealloc,
        gfree,
    };

    pub fn install() {
        libgit2_sys::init();
        // SAFETY: the option takes a pointer to a `git_allocator`, copied by libgit2; ALLOCATOR
        // lives for the whole process anyway.
        unsafe {
            libgit2_sys::git_libgit2_opts(
                libgit2_sys::GIT_OPT_SET_ALLOCATOR as c_int,
                &ALLOCATOR as *const GitAllocator,
            );
        }
    }
}
