//! libgit2 in a run reads no configuration from outside the repository it opens: not the
//! system's (`/etc/gitconfig`), the user's (`~/.gitconfig`) nor the XDG one. A trial's result must
//! not depend on whose machine runs it (a global `core.excludesFile` would hide untracked files
//! from the read-only check and the reference gate), and every `Repository::open` otherwise
//! searches for those files again (a few percent of a trial's CPU). Tested in its own process
//! (`tests/hermetic_git.rs`): the option is global to libgit2.

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
