//! A run's libgit2 reads no configuration outside the repository (`repo::hermetic`). In a test
//! binary of its own: the option is global to the process, and no other test may use libgit2
//! while it changes.

use git2::ConfigLevel;

#[test]
fn a_global_excludes_file_no_longer_hides_untracked_files() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("ignore"), "*.log\n").unwrap();
    std::fs::write(
        home.path().join(".gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.path().join("ignore").display()
        ),
    )
    .unwrap();
    let repo_dir = tempfile::tempdir().unwrap();
    git2::Repository::init(repo_dir.path()).unwrap();
    // The user's configuration, where libgit2 looks for it on this machine.
    // SAFETY: this test binary runs no other test, so no other thread is inside libgit2.
    unsafe { git2::opts::set_search_path(ConfigLevel::Global, home.path()).unwrap() };
    let before = git2::Repository::open(repo_dir.path()).unwrap();
    assert!(
        before.is_path_ignored("evidence.log").unwrap(),
        "the set-up must make the user's excludes file effective"
    );
    // SAFETY: as above.
    unsafe { gatebench::repo::hermetic::ignore_outside_config() }.unwrap();
    let after = git2::Repository::open(repo_dir.path()).unwrap();
    assert!(!after.is_path_ignored("evidence.log").unwrap());
}
