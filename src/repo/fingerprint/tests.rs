//! Tests of `repo/fingerprint.rs` (moved out of it: its production code alone is under 800 lines).

use super::*;

fn repo_with_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("a.txt")).unwrap();
    index.write().unwrap();
    dir
}

#[test]
fn an_untracked_file_is_a_change_and_an_ignored_one_is_not() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("build/out"), "x").unwrap();
    assert!(before.changed(&take(dir.path()).unwrap()).is_empty());
    std::fs::write(dir.path().join("new.txt"), "x").unwrap();
    assert_eq!(before.changed(&take(dir.path()).unwrap()), vec!["new.txt"]);
}

/// What the walk reads: a file deep in folders by its content, the executable bit, a symlink
/// by its target and never followed (a file inside a linked folder is no entry of its own),
/// and an empty folder is nothing.
#[test]
fn nested_files_modes_and_links_are_what_the_walk_reads() {
    use std::os::unix::fs::PermissionsExt;
    let dir = repo_with_file();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    std::fs::create_dir_all(dir.path().join("src/deep/er")).unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("src/deep/er/x.rs"), "fn x() {}\n").unwrap();
    std::fs::write(dir.path().join("run.sh"), "echo\n").unwrap();
    std::os::unix::fs::symlink("a.txt", dir.path().join("to-a")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("to-outside")).unwrap();
    let before = take(dir.path()).unwrap();
    let keys: Vec<&str> = before
        .entries
        .keys()
        .map(String::as_str)
        .filter(|k| !k.starts_with("index:") && !k.starts_with(".git/") && *k != "HEAD")
        .collect();
    assert_eq!(
        keys,
        [
            ".gitignore",
            "a.txt",
            "run.sh",
            "src/deep/er/x.rs",
            "to-a",
            "to-outside"
        ]
    );
    assert_eq!(before.entries["to-a"], "link a.txt");
    let file = before.entries["src/deep/er/x.rs"].clone();
    assert_eq!(
        file,
        format!(
            "file {}",
            gatebench_gittree::hex(&Sha256::digest(b"fn x() {}\n"))
        )
    );
    std::fs::write(dir.path().join("src/deep/er/x.rs"), "fn y() {}\n").unwrap();
    std::fs::set_permissions(
        dir.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("to-a")).unwrap();
    std::os::unix::fs::symlink("run.sh", dir.path().join("to-a")).unwrap();
    std::fs::write(outside.path().join("secret"), "changed").unwrap();
    let after = take(dir.path()).unwrap();
    assert_eq!(
        before.changed(&after),
        vec!["run.sh", "src/deep/er/x.rs", "to-a"]
    );
    assert!(after.entries["run.sh"].starts_with("file x "));
}

/// `as_written` applies the ignore rules as `take` does: an untracked file in an ignored
/// folder is left out, another untracked file is in.
#[test]
fn the_fingerprint_as_written_is_the_one_read() {
    let dir = repo_with_file();
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("build/out"), "x").unwrap();
    std::fs::write(dir.path().join("new.txt"), "y").unwrap();
    let repo = Repository::open(dir.path()).unwrap();
    let written = Written {
        head: "refs/heads/master".into(),
        refs: Vec::new(),
        index: vec![("a.txt".into(), repo.blob(b"a\n").unwrap())],
    };
    let files: [(&str, &[u8]); 4] = [
        (".gitignore", b"build/\n"),
        ("a.txt", b"a\n"),
        ("build/out", b"x"),
        ("new.txt", b"y"),
    ];
    let fingerprinter = Fingerprinter::open(
        &Pinned::now(dir.path(), Path::new(".git")).unwrap(),
        dir.path(),
    )
    .unwrap();
    let computed = fingerprinter
        .as_written(&written, files.into_iter())
        .unwrap();
    let mut read = fingerprinter.take().unwrap();
    // The repository has no commit: HEAD is unborn on disk, and no ref names it here.
    assert!(read
        .entries
        .remove("HEAD")
        .unwrap()
        .starts_with("unreadable"));
    assert_eq!(computed, read);
    assert!(!computed.entries.contains_key("build/out"));
    assert!(computed.entries.contains_key("new.txt"));
}

#[test]
fn an_edited_file_and_a_staged_file_are_changes() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    std::fs::write(dir.path().join("a.txt"), "b\n").unwrap();
    assert_eq!(before.changed(&take(dir.path()).unwrap()), vec!["a.txt"]);
    let repo = Repository::open(dir.path()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("a.txt")).unwrap();
    index.write().unwrap();
    // Staging stored the new content: its object is a new entry of `.git`.
    let blob = repo.blob(b"b\n").unwrap().to_string();
    let object = format!(".git/objects/{}/{}", &blob[..2], &blob[2..]);
    assert_eq!(
        before.changed(&take(dir.path()).unwrap()),
        vec![object.as_str(), "a.txt", "index:a.txt"]
    );
}

#[test]
fn a_fifo_and_a_socket_are_changes_and_are_never_opened() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    // A FIFO opened for reading would block this call forever (no writer ever comes).
    let after = take(dir.path()).unwrap();
    assert_eq!(before.changed(&after), vec!["pipe", "sock"]);
    assert_eq!(after.entries["pipe"], "special fifo");
    assert_eq!(after.entries["sock"], "special socket");
}

#[test]
fn a_large_file_is_hashed_by_content_in_blocks() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    let big = dir.path().join("big.bin");
    let mut f = std::fs::File::create(&big).unwrap();
    let block = vec![7u8; 1 << 20];
    for _ in 0..3 {
        std::io::Write::write_all(&mut f, &block).unwrap();
    }
    drop(f);
    let after = take(dir.path()).unwrap();
    let mut whole = Sha256::new();
    for _ in 0..3 {
        whole.update(&block);
    }
    let hex = gatebench_gittree::hex(&whole.finalize());
    assert_eq!(after.entries["big.bin"], format!("file {hex}"));
    assert_eq!(before.changed(&after), vec!["big.bin"]);
}

/// A file over the read limit (here a sparse terabyte, which would take hours to hash) is
/// fingerprinted by its size and change time without a byte read, and is a change.
#[test]
fn a_file_over_the_read_limit_is_a_change_and_is_not_read() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    let f = std::fs::File::create(dir.path().join("huge.bin")).unwrap();
    f.set_len(1 << 40).unwrap();
    drop(f);
    let started = std::time::Instant::now();
    let after = take(dir.path()).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert!(
        after.entries["huge.bin"].starts_with(&format!("file unread {}", 1u64 << 40)),
        "{:?}",
        after.entries["huge.bin"]
    );
    assert_eq!(before.changed(&after), vec!["huge.bin"]);
}

#[test]
fn one_fingerprinter_sees_what_changed_after_it_opened() {
    let dir = repo_with_file();
    let fingerprinter = Fingerprinter::open(
        &Pinned::now(dir.path(), Path::new(".git")).unwrap(),
        dir.path(),
    )
    .unwrap();
    let before = fingerprinter.take().unwrap();
    assert!(before.changed(&fingerprinter.take().unwrap()).is_empty());
    // Staged by another handle on the repository, as a fixer or a scripted fix stages.
    std::fs::write(dir.path().join("a.txt"), "b\n").unwrap();
    let repo = Repository::open(dir.path()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("a.txt")).unwrap();
    index.write().unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "c", &tree, &[])
        .unwrap();
    std::fs::write(dir.path().join("new.txt"), "x").unwrap();
    let after = fingerprinter.take().unwrap();
    let changed = before.changed(&after);
    // What a repository opened now sees, and what was done: HEAD and its branch (born by
    // the commit), the file, its index entry, the untracked file; in `.git`, the branch's
    // file, the reflogs and three new objects (blob, tree, commit).
    assert_eq!(changed, before.changed(&take(dir.path()).unwrap()));
    let outside_git: Vec<&String> = changed.iter().filter(|k| !k.starts_with(".git/")).collect();
    assert_eq!(outside_git.len(), 5, "{changed:?}");
    assert_eq!(changed.len(), 11, "{changed:?}");
    for key in ["HEAD", "a.txt", "index:a.txt", "new.txt"] {
        assert!(changed.iter().any(|k| k == key), "{key} in {changed:?}");
    }
    assert!(changed.iter().any(|k| k.starts_with("refs/heads/")));
}

#[test]
fn rewriting_the_index_with_the_same_entries_is_no_change() {
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    let repo = Repository::open(dir.path()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("a.txt")).unwrap();
    index.write().unwrap();
    assert!(before.changed(&take(dir.path()).unwrap()).is_empty());
}

/// libgit2 opens `.git`'s files and every `.gitignore` following links and blocking on a
/// FIFO: a FIFO as `.git/HEAD`, or as a folder's `.gitignore`, is an entry of its kind and the
/// fingerprint returns (run on a thread: a hang fails the test instead of stalling it).
#[test]
fn a_fifo_in_git_or_as_a_gitignore_is_an_entry_and_never_opened() {
    fn mkfifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
    }
    let dir = repo_with_file();
    let before = take(dir.path()).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    mkfifo(&dir.path().join("sub/.gitignore"));
    std::fs::write(dir.path().join("sub/x"), "x").unwrap();
    let path = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(take(&path).map(|after| before.changed(&after))));
    let changed = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the fingerprint returned")
        .unwrap();
    assert_eq!(changed, ["sub/.gitignore", "sub/x"]);

    let before = take(dir.path()).unwrap();
    std::fs::remove_file(dir.path().join(".git/HEAD")).unwrap();
    mkfifo(&dir.path().join(".git/HEAD"));
    let path = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(take(&path).map(|after| before.changed(&after))));
    let changed = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the fingerprint returned");
    // Refused when pinned (`take` pins the repository as it is), or read as a change.
    match changed {
        Ok(changed) => assert!(changed.iter().any(|k| k == ".git/HEAD"), "{changed:?}"),
        Err(e) => assert!(e.contains(".git/HEAD"), "{e}"),
    }
}
