//! A run's libgit2 options (`repo::hermetic`): no configuration read outside the repository, and
//! objects read without their ids checked again. In a test binary of its own: the options are
//! global to the process, and no other test may use libgit2 while they change (the two tests here
//! take turns on `LIBGIT2`).

use git2::ConfigLevel;

static LIBGIT2: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_global_excludes_file_no_longer_hides_untracked_files() {
    let _turn = LIBGIT2.lock().unwrap_or_else(|p| p.into_inner());
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
    // SAFETY: the other test of this binary waits for `_turn`: no other thread is inside libgit2.
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

#[test]
fn an_object_is_read_without_its_id_checked_again() {
    let _turn = LIBGIT2.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let a = repo.blob(b"a\n").unwrap();
    let b = repo.blob(b"b\n").unwrap();
    // The loose object of `a` replaced by that of `b`: its content no longer hashes to its id.
    let loose = |id: git2::Oid| {
        let hex = id.to_string();
        dir.path()
            .join(".git/objects")
            .join(&hex[..2])
            .join(&hex[2..])
    };
    std::fs::remove_file(loose(a)).unwrap();
    std::fs::copy(loose(b), loose(a)).unwrap();
    let read = |id| {
        let repo = git2::Repository::open(dir.path()).unwrap();
        repo.find_blob(id).map(|blob| blob.content().to_vec())
    };
    assert!(
        read(a).is_err(),
        "libgit2 checks an object's id on reading it by default"
    );
    gatebench::repo::hermetic::skip_read_verification();
    assert_eq!(read(a).unwrap(), b"b\n");
    git2::opts::strict_hash_verification(true);
}
