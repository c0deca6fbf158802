//! libgit2's process-wide options for a run.
//!
//! It reads no configuration from outside the repository it opens: not the
//! system's (`/etc/gitconfig`), the user's (`~/.gitconfig`) nor the XDG one. A trial's result must
//! not depend on whose machine runs it (a global `core.excludesFile` would hide untracked files
//! from the read-only check and the reference gate), and every `Repository::open` otherwise
//! searches for those files again (a few percent of a trial's CPU). Tested in its own process
//! (`tests/it/hermetic_git.rs`): the option is global to libgit2.
//!
//! And it reads an object without hashing it again to check its id, as `git` does (libgit2 does by
//! default: every blob the reference gate's scope detection reads was hashed a second time, with
//! collision detection, 3% of a Loom trial's CPU). A repository's integrity is `git fsck`'s
//! question, not every read's.

use git2::ConfigLevel;

/// Empties libgit2's search paths for configuration outside the repository. `gatebench run`
/// calls it first thing, while it has one thread.
///
/// # Safety
/// No other thread may use libgit2 meanwhile: libgit2 does not lock these options.
pub unsafe fn ignore_outside_config() -> Result<(), git2::Error> {
    for level in [ConfigLevel::System, ConfigLevel::XDG, ConfigLevel::Global] {
        // SAFETY: the caller's promise is `set_search_path`'s only requirement.
        unsafe { git2::opts::set_search_path(level, "")? };
    }
    Ok(())
}

/// Objects read without their id checked against their content again (`git` does not either).
/// `gatebench run` calls it with [`ignore_outside_config`].
pub fn skip_read_verification() {
    git2::opts::strict_hash_verification(false);
}
