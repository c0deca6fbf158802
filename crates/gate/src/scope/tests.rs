//! Tests of `scope.rs` (moved out of it: its production code alone is under 800 lines).

use super::*;
use crate::testutil::Golden;
use proptest::prelude::*;

/// libgit2's hunks for a file added with `content`, as the patch of two buffers finds them.
fn libgit2_added_lines(content: &[u8]) -> Vec<String> {
    let mut options = DiffOptions::new();
    options.context_lines(0);
    let patch = Patch::from_buffers(&[], None, content, None, Some(&mut options)).unwrap();
    let mut lines = Vec::new();
    for index in 0..patch.num_hunks() {
        let (hunk, _) = patch.hunk(index).unwrap();
        push_range(&mut lines, hunk.new_start(), hunk.new_lines());
    }
    lines
}

proptest! {
    #[test]
    fn an_added_file_without_a_nul_is_the_hunk_libgit2_finds(
        bytes in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), 1u8..=255],
            0..160,
        )
    ) {
        prop_assert!(plainly_text(&bytes));
        prop_assert_eq!(whole_file(&bytes), libgit2_added_lines(&bytes));
    }
}

#[test]
fn a_file_with_a_nul_is_left_to_libgit2() {
    assert!(!plainly_text(b"a\0b\n"));
    // libgit2 takes it for binary: no hunk at all.
    assert!(libgit2_added_lines(b"a\0b\n").is_empty());
    assert_eq!(libgit2_added_lines(b"a\nb"), ["1-2"]);
    assert_eq!(whole_file(b"a\nb"), ["1-2"]);
}

/// The base (`main`) content of a file of the test golden.
fn base_text(repo: &Repository, path: &str) -> String {
    let tree = repo
        .revparse_single("main")
        .and_then(|object| object.peel_to_tree())
        .unwrap();
    let blob = tree
        .get_path(Path::new(path))
        .unwrap()
        .to_object(repo)
        .unwrap();
    String::from_utf8(blob.as_blob().unwrap().content().to_vec()).unwrap()
}

fn branch_diff(repo: &Repository) -> Diff<'_> {
    let base = repo
        .revparse_single("main")
        .unwrap()
        .peel_to_tree()
        .unwrap();
    let head = repo.head().unwrap().peel_to_tree().unwrap();
    let mut options = DiffOptions::new();
    options.context_lines(0);
    repo.diff_tree_to_tree(Some(&base), Some(&head), Some(&mut options))
        .unwrap()
}

#[test]
fn hunks_from_blobs_are_the_repository_diffs_hunks() {
    let built = Golden::new().build();
    let repo = Repository::open(built.path()).unwrap();
    let readme = base_text(&repo, "README.md");
    let lines = readme.lines().count() as u32;
    // Two hunks in a file of the base, a file added, a file of the base deleted, and a staged
    // change of two lines.
    built.commit(&[
        (
            "README.md",
            &format!("inserted\n{readme}appended one\nappended two\n"),
        ),
        ("docs/new.md", "one\ntwo\nthree\n"),
        ("docs/no-newline.md", "one\ntwo"),
        ("docs/empty.md", ""),
    ]);
    built.stage("README.md", "replaced\n");
    let repo = Repository::open(built.path()).unwrap();
    let diff = branch_diff(&repo);
    assert!(!attributes_may_apply(
        &repo,
        built.path(),
        &Outside::new(&repo),
        &diff
    ));
    let fast = changed_between_blobs(&repo, built.path(), &Outside::new(&repo), &diff).unwrap();
    assert_eq!(fast, changed(&diff).unwrap());
    assert_eq!(
        fast["README.md"],
        (
            "modified".to_owned(),
            vec!["1".to_owned(), format!("{}-{}", lines + 2, lines + 3)]
        )
    );
    assert_eq!(
        fast["docs/new.md"],
        ("added".to_owned(), vec!["1-3".to_owned()])
    );
    assert_eq!(fast["docs/no-newline.md"].1, ["1-2"]);
    assert_eq!(fast["docs/empty.md"], ("added".to_owned(), Vec::new()));

    let head = repo.head().unwrap().peel_to_tree().unwrap();
    let mut options = DiffOptions::new();
    options.context_lines(0);
    let staged = repo
        .diff_tree_to_index(Some(&head), None, Some(&mut options))
        .unwrap();
    let fast = changed_between_blobs(&repo, built.path(), &Outside::new(&repo), &staged).unwrap();
    assert_eq!(fast, changed(&staged).unwrap());
    assert_eq!(
        fast["README.md"],
        ("modified".to_owned(), vec!["1".to_owned()])
    );
}

#[test]
fn attribute_files_fall_back_to_the_attributed_diff() {
    let built = Golden::new().build();
    let repo = Repository::open(built.path()).unwrap();
    let readme = base_text(&repo, "README.md");
    // `-diff` makes git treat the file as binary: no line ranges, whatever its bytes.
    built.commit(&[
        ("README.md", &format!("inserted\n{readme}")),
        ("docs/.gitattributes", "*.md -diff\n"),
        ("docs/notes.md", "one\n"),
    ]);
    let repo = Repository::open(built.path()).unwrap();
    let diff = branch_diff(&repo);
    assert!(attributes_may_apply(
        &repo,
        built.path(),
        &Outside::new(&repo),
        &diff
    ));
    let files = changed_between_blobs(&repo, built.path(), &Outside::new(&repo), &diff).unwrap();
    // The attribute applies below docs/ only.
    assert_eq!(files["README.md"].1, ["1"]);
    assert_eq!(files["docs/notes.md"], ("added".to_owned(), Vec::new()));

    // An attributes file git does not track, in the work tree, counts too.
    let built = Golden::new().build();
    built.commit(&[("README.md", "replaced\n")]);
    built.write(".gitattributes", "README.md -diff\n");
    let repo = Repository::open(built.path()).unwrap();
    let diff = branch_diff(&repo);
    assert!(attributes_may_apply(
        &repo,
        built.path(),
        &Outside::new(&repo),
        &diff
    ));
    let files = changed_between_blobs(&repo, built.path(), &Outside::new(&repo), &diff).unwrap();
    assert_eq!(files["README.md"], ("modified".to_owned(), Vec::new()));
}

/// The work tree's changes both ways: from the view's snapshot (`None` when it falls back)
/// and from libgit2's diff.
fn unstaged_both_ways(built: &crate::testutil::TestRepo) -> (Option<ChangeSet>, ChangeSet) {
    let view = RepoView::open(built.path(), "main").unwrap();
    let from_snapshot = unstaged_from_snapshot(&view).map(Result::unwrap);
    (from_snapshot, unstaged_by_libgit2(&view).unwrap())
}

fn set_executable(path: &Path, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn the_snapshots_unstaged_changes_are_libgit2s() {
    let built = Golden::new().build();
    built.commit(&[
        (".gitignore", "build/\n*.log\n"),
        ("docs/gone.md", "going\n"),
        ("build/kept.txt", "tracked inside an ignored folder\n"),
        ("data.bin", "a\0b\n"),
    ]);
    built.commit(&[("tools/mode.sh", "echo mode\n")]);
    set_executable(&built.path().join("tools/mode.sh"), true);
    let repo = Repository::open(built.path()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("tools/mode.sh")).unwrap();
    index.write().unwrap();
    // Nothing changed yet: both empty.
    assert_eq!(
        unstaged_both_ways(&built),
        (Some(ChangeSet::new()), ChangeSet::new())
    );

    built.write("README.md", "inserted\n# subscriptions\n");
    built.delete("docs/gone.md");
    built.write("notes/todo.md", "one\ntwo\n");
    built.write("build/kept.txt", "changed\n");
    built.write("build/out.txt", "ignored\n");
    built.write("app.log", "ignored\n");
    built.write("data.bin", "a\0c\n");
    set_executable(&built.path().join("tools/mode.sh"), false);
    let (from_snapshot, by_libgit2) = unstaged_both_ways(&built);
    assert_eq!(from_snapshot.as_ref(), Some(&by_libgit2));
    let entry = |status: &str, lines: &[&str]| {
        (
            status.to_owned(),
            lines
                .iter()
                .map(|line| line.to_string())
                .collect::<Vec<_>>(),
        )
    };
    let expected: ChangeSet = [
        ("README.md", entry("modified", &["1"])),
        ("build/kept.txt", entry("modified", &["1"])),
        // Binary: no line ranges.
        ("data.bin", entry("modified", &[])),
        ("docs/gone.md", entry("deleted", &[])),
        ("notes/todo.md", entry("added", &["1-2"])),
        // Only its executable bit changed.
        ("tools/mode.sh", entry("modified", &[])),
    ]
    .into_iter()
    .map(|(path, change)| (path.to_owned(), change))
    .collect();
    assert_eq!(by_libgit2, expected);
}

#[test]
fn what_the_snapshot_cannot_settle_falls_back_to_libgit2() {
    type Setup = fn(&crate::testutil::TestRepo);
    let cases: [(&str, Setup); 7] = [
        ("a symlink", |built| {
            std::os::unix::fs::symlink("README.md", built.path().join("link.md")).unwrap();
        }),
        ("an untracked attributes file", |built| {
            built.write("docs/.gitattributes", "*.md text eol=crlf\n");
        }),
        ("a nested repository", |built| {
            Repository::init(built.path().join("vendor/lib")).unwrap();
            built.write("vendor/lib/a.txt", "a\n");
        }),
        ("core.autocrlf", |built| {
            let repo = Repository::open(built.path()).unwrap();
            repo.config()
                .unwrap()
                .set_str("core.autocrlf", "input")
                .unwrap();
        }),
        ("core.filemode off", |built| {
            let repo = Repository::open(built.path()).unwrap();
            repo.config()
                .unwrap()
                .set_bool("core.filemode", false)
                .unwrap();
        }),
        ("a conflict in the index", |built| {
            let repo = Repository::open(built.path()).unwrap();
            let mut index = repo.index().unwrap();
            let mut entry = index.get_path(Path::new("README.md"), 0).unwrap();
            index.remove_path(Path::new("README.md")).unwrap();
            for stage in 1..=3u16 {
                entry.flags = (entry.flags & !0x3000) | (stage << 12);
                index.add(&entry).unwrap();
            }
            index.write().unwrap();
        }),
        ("an intent-to-add entry", |built| {
            let repo = Repository::open(built.path()).unwrap();
            let mut index = repo.index().unwrap();
            let mut entry = index.get_path(Path::new("README.md"), 0).unwrap();
            entry.flags |= 0x4000;
            entry.flags_extended |= 1 << 13;
            index.add(&entry).unwrap();
            index.write().unwrap();
        }),
    ];
    for (what, setup) in cases {
        let built = Golden::new().build();
        built.write("README.md", "changed\n");
        setup(&built);
        let (from_snapshot, by_libgit2) = unstaged_both_ways(&built);
        assert_eq!(from_snapshot, None, "{what}");
        // Scope detection still answers, through libgit2.
        let view = RepoView::open(built.path(), "main").unwrap();
        assert!(detect(&view, None).is_ok(), "{what}");
        assert!(!by_libgit2.is_empty(), "{what}");
    }
}
