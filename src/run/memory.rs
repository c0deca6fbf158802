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
