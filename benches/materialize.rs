//! Materialization cost per fixture: gatebench's in-process materializer on tmpfs and on the
//! default temp dir, beside the same repository built by a `git` CLI shell script, in one run.
//!
//! The script builds the very same commits (same author, committer, dates and messages), and the
//! bench checks that its head commit id equals the materializer's before timing anything, so the
//! two sides do the same work. gatebench stores objects uncompressed (`src/repo/pack.rs`), so the script
//! also runs a second time with `core.compression = 0` (`git-cli-level0`): the comparison that
//! leaves compression out.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gatebench::corpus::{self, Fixture};
use gatebench::repo::materialize::{materialize, tree_files};

const SCRIPT: &str = r#"set -e
export GIT_AUTHOR_NAME=gatebench GIT_AUTHOR_EMAIL=gatebench@invalid GIT_COMMITTER_NAME=gatebench GIT_COMMITTER_EMAIL=gatebench@invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q -b main "$REPO"
cd "$REPO"
cp -r "$BASE/." .
git add -A
GIT_AUTHOR_DATE="1767225600 +0000" GIT_COMMITTER_DATE="1767225600 +0000" git commit -q -m base
git checkout -q -b feature
git rm -rq --cached .
find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
cp -r "$HEAD/." .
git add -A
GIT_AUTHOR_DATE="1767225660 +0000" GIT_COMMITTER_DATE="1767225660 +0000" git commit -q -m feature
"#;

/// Writes the files of `rev` in `repo` under `out`.
fn export(repo: &Path, rev: &str, out: &Path) {
    let repo = git2::Repository::open(repo).unwrap();
    let tree = repo.revparse_single(rev).unwrap().peel_to_tree().unwrap();
    for (path, content) in tree_files(&repo, tree.id()).unwrap() {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

fn cli_build(base: &Path, head: &Path, repo: &Path, compression: Option<u32>) {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(SCRIPT)
        .env("BASE", base)
        .env("HEAD", head)
        .env("REPO", repo);
    if let Some(level) = compression {
        command
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "core.compression")
            .env("GIT_CONFIG_VALUE_0", level.to_string());
    }
    let status = command.status().unwrap();
    assert!(status.success());
}

/// What builds the repository: gatebench's materializer, or the CLI script with git's default
/// zlib level or the one given.
#[derive(Clone, Copy)]
enum Builder {
    Gatebench,
    Cli { compression: Option<u32> },
}

struct Place {
    name: &'static str,
    root: PathBuf,
}

fn places() -> Vec<Place> {
    let mut out = Vec::new();
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        out.push(Place {
            name: "tmpfs",
            root: shm.to_path_buf(),
        });
    }
    out.push(Place {
        name: "tempdir",
        root: std::env::temp_dir(),
    });
    out
}

fn bench(c: &mut Criterion) {
    let fixtures_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let corpus = corpus::load(&fixtures_dir).unwrap_or_else(|e| panic!("{e:?}"));
    let goldens: Vec<&Fixture> = corpus
        .fixtures
        .iter()
        .filter(|f| f.is_golden() && !f.worktree)
        .collect();
    let mut group = c.benchmark_group("materialize");
    for place in places() {
        let scratch = tempfile::Builder::new()
            .prefix("gatebench-bench-")
            .tempdir_in(&place.root)
            .unwrap();
        for fixture in &goldens {
            // The CLI script's input: the resolved trees, exported once from a materialized copy.
            let reference = scratch.path().join(format!("{}-ref", fixture.id));
            let m = materialize(fixture, &reference).unwrap();
            let (base, head) = (scratch.path().join("base"), scratch.path().join("head"));
            let _ = std::fs::remove_dir_all(&base);
            let _ = std::fs::remove_dir_all(&head);
            export(&reference, "main", &base);
            export(&reference, "feature", &head);
            for compression in [None, Some(0)] {
                let check = scratch.path().join("check");
                cli_build(&base, &head, &check, compression);
                let cli_head = git2::Repository::open(&check)
                    .unwrap()
                    .revparse_single("feature")
                    .unwrap()
                    .id()
                    .to_string();
                assert_eq!(
                    cli_head, m.commits["head"],
                    "the CLI script must build the same commits"
                );
                std::fs::remove_dir_all(&check).unwrap();
            }

            // Each builder is timed building into a fresh folder and deleting it.
            let builders = [
                ("gatebench", Builder::Gatebench),
                ("git-cli", Builder::Cli { compression: None }),
                (
                    "git-cli-level0",
                    Builder::Cli {
                        compression: Some(0),
                    },
                ),
            ];
            let mut n = 0u64;
            for (series, builder) in builders {
                group.bench_with_input(
                    BenchmarkId::new(format!("{series}/{}", place.name), &fixture.id),
                    fixture,
                    |b, f| {
                        b.iter(|| {
                            n += 1;
                            let dir = scratch.path().join(format!("r{n}"));
                            match builder {
                                Builder::Gatebench => drop(materialize(f, &dir).unwrap()),
                                Builder::Cli { compression } => {
                                    cli_build(&base, &head, &dir, compression)
                                }
                            }
                            std::fs::remove_dir_all(&dir).unwrap();
                        })
                    },
                );
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
