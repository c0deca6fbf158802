//! The repository a trial judges cannot steer gatebench's own git operations (issue 46, items 2
//! and 11): a hostile `command` pipeline (tests/pipelines/steers-git.sh) and a hostile loop
//! fixture under the default built-in pipeline try, and say what they reached. What must hold:
//! the answer key never enters the repository, nothing is written outside it through a link, the
//! in-process gate never judges another folder, and every change to `.git` is a change the
//! read-only check reports.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use gatebench::corpus::scenario::{PipelineSpec, Scenario};
use gatebench::output::store::results::RunResults;
use gatebench::repo::fingerprint;
use gatebench::repo::materialize::materialize;
use gatebench::repo::workdir::WorkRoot;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::run::runner::{run_trial, RunConfig};
use gatebench::score::record::TrialRecord;

const GOLDEN: &str = "subscription-cancel";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> &'static gatebench::corpus::Corpus {
    static CORPUS: OnceLock<gatebench::corpus::Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| gatebench::corpus::load(&root().join("fixtures")).unwrap())
}

/// Every file below `dir` with its bytes, to tell that nothing changed there.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn stdout_of(t: &TrialRecord, round: usize) -> String {
    t.rounds[round]
        .process
        .as_ref()
        .unwrap()
        .stdout
        .text
        .clone()
}

/// The hostile pipeline points `core.worktree` at the fixture's folder in round 1 and says FAIL;
/// the fixer runs and gatebench commits its work; in round 2 the pipeline looks for the answer
/// key in that commit. On the main branch before this fix gatebench committed the fixture folder
/// (`fixture.yaml` included) and round 2 read it, and round 1's changes to `.git` were no change.
#[test]
fn a_hostile_pipeline_cannot_make_gatebench_commit_the_answer_key_and_its_git_changes_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let answer_dir = root().join("fixtures").join(GOLDEN);
    let answers_before = snapshot(&answer_dir);
    let pipelines = root().join("tests/pipelines");
    let text = format!(
        "name: t\nfixtures_dir: {}\nmax_rounds: 3\npipeline:\n  kind: command\n  command: [sh, {}]\n  \
         timeout_secs: 20\n  env: {{ANSWER_DIR: '{}'}}\n  sandbox: {{read: ['{}']}}\n  fixer:\n    \
         command: [sh, {}]\n    timeout_secs: 20\n",
        root().join("fixtures").display(),
        pipelines.join("steers-git.sh").display(),
        answer_dir.display(),
        pipelines.display(),
        pipelines.join("fixer-touch.sh").display(),
    );
    let file = dir.path().join("scenario.yaml");
    std::fs::write(&file, text).unwrap();
    let scenario = Scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions::resolve(
        scenario,
        Overrides {
            filters: vec![GOLDEN.into()],
            jobs: Some(1),
            reports_dir: Some(dir.path().join("reports")),
            no_cache: true,
            ..Overrides::default()
        },
    );
    let mut results: RunResults = execute::execute(&options, &|_, _, _| {})
        .unwrap_or_else(|e| panic!("{e:?}"))
        .results;
    results.resolve().unwrap();
    let t = results
        .trials
        .iter()
        .find(|t| t.fixture == GOLDEN)
        .unwrap()
        .into_owned();
    assert!(t.rounds.len() >= 2, "{:?}", t.harness_error);
    // What the pipeline says it reached in round 2.
    let reached = stdout_of(&t, 1);
    assert!(
        reached.contains("reached: nothing"),
        "round 2 reached: {reached}"
    );
    assert_eq!(t.rounds.len(), 2);
    // The fixer's commit is the fixer's work in the repository, never the fixture's folder.
    let diff = t.rounds[0].fix_diff.as_deref().expect("the fixer's diff");
    assert!(!diff.contains("fixture.yaml"), "{diff}");
    assert!(diff.contains("+++ b/FIXED\n"), "{diff}");
    assert!(!diff.contains("+++ /dev/null"), "nothing deleted: {diff}");
    // Every change round 1 made to `.git` and the self-ignoring folder is seen.
    let changed = &t.rounds[0].modified_paths;
    for key in [
        ".git/config",
        ".git/hooks/post-commit",
        ".git/shallow",
        ".git/info/exclude",
        "stash/.gitignore",
        "hidden-by-excludes-file.txt",
    ] {
        assert!(changed.iter().any(|k| k == key), "{key} in {changed:?}");
    }
    assert!(t.modified_repo);
    // The fixer's commit is what the work tree holds by the rules gatebench wrote: the file
    // `.git/info/exclude` hid is committed once the rules are restored.
    assert!(diff.contains("+++ b/hidden-by-exclude.txt\n"), "{diff}");
    assert_eq!(snapshot(&answer_dir), answers_before);
}

/// A loop fixture whose build command (run by the in-process gate, the default pipeline) points
/// `core.worktree` at the fixture's own folder and replaces the loop's state folder by a link to
/// a folder outside the repository. Before this fix the gate wrote its state file through the
/// link and its V4 judged the fixture's folder; the read-only check saw neither change.
#[test]
fn a_hostile_fixture_cannot_steer_the_in_process_gate() {
    let corpus_dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let fixture_dir = corpus_dir.path().join("loop-hostile");
    copy_tree(&root().join("fixtures/loop-wordcount"), &fixture_dir);
    let yaml = std::fs::read_to_string(fixture_dir.join("fixture.yaml"))
        .unwrap()
        .replace("id: loop-wordcount", "id: loop-hostile");
    std::fs::write(fixture_dir.join("fixture.yaml"), yaml).unwrap();
    let scripts = fixture_dir.join("base/scripts");
    std::fs::rename(scripts.join("build.sh"), scripts.join("build-real.sh")).unwrap();
    std::fs::write(
        scripts.join("build.sh"),
        format!(
            "# Hostile: steers what the gate does next, then builds.\n\
             if [ ! -L docs/delivery/.state ]; then\n\
             \x20 printf '[core]\\n\\tworktree = {answers}\\n' >> .git/config\n\
             \x20 rm -rf docs/delivery/.state\n\
             \x20 ln -s {outside} docs/delivery/.state\n\
             \x20 mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/post-commit\n\
             fi\n\
             exec sh scripts/build-real.sh\n",
            answers = fixture_dir.display(),
            outside = outside.path().display()
        ),
    )
    .unwrap();
    let corpus = gatebench::corpus::load(corpus_dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
    let fixture = corpus.get("loop-hostile").unwrap();
    let answers_before = snapshot(&fixture_dir);

    let work = WorkRoot::create(None, false).expect("work root");
    let gate = gatebench::pipeline::select::from_spec(&PipelineSpec::builtin(), root());
    let scoring = gatebench::pipeline::select::scoring(gate.as_ref());
    let cfg = RunConfig {
        jobs: 1,
        trials: 1,
        max_rounds: 3,
        base_ref: "main".into(),
        work_root: &work,
        cache: None,
        scoring: &scoring,
        scenario: "t".into(),
        on_modified: Default::default(),
        retries: 0,
        objects: None,
        on_fixture: None,
    };
    let t = run_trial(fixture, 0, gate.as_ref(), &cfg);
    let reports = serde_json::to_string(
        &t.rounds
            .iter()
            .map(|r| r.report.clone())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    // The build command ran (V1), so the attempt was made (its changes are listed below).
    assert!(reports.contains("V1_BUILD"), "{reports}");
    // Nothing was written through the link, outside the repository.
    let written_outside: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(written_outside.is_empty(), "{written_outside:?}");
    // The gate never judged the fixture's folder: no report names its files.
    assert!(!reports.contains("fixture.yaml"), "{reports}");
    assert_eq!(snapshot(&fixture_dir), answers_before);
    // The read-only check reports the changes.
    let changed = &t.rounds[0].modified_paths;
    for key in [
        ".git/config",
        ".git/hooks/post-commit",
        "docs/delivery/.state",
    ] {
        assert!(changed.iter().any(|k| k == key), "{key} in {changed:?}");
    }
    assert!(t.modified_repo);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The read-only check against each change to `.git` (and the self-ignoring folder) item 11 of
/// issue 46 lists, one at a time on a freshly materialized repository: every one is a change.
/// Before this fix none was.
#[test]
fn the_read_only_check_sees_every_change_to_git() {
    let fixture = corpus().get("wordcount-cli").unwrap();
    let dir = tempfile::tempdir().unwrap();
    type Change = fn(&Path);
    let changes: [(&str, Change, &str); 8] = [
        (
            "a new folder whose .gitignore ignores itself",
            |r| {
                std::fs::create_dir(r.join("stash")).unwrap();
                std::fs::write(r.join("stash/.gitignore"), "*\n").unwrap();
                std::fs::write(r.join("stash/loot"), "x").unwrap();
            },
            "stash/.gitignore",
        ),
        (
            "core.excludesFile hiding a new file",
            |r| {
                let mut config = std::fs::read_to_string(r.join(".git/config")).unwrap();
                config.push_str(&format!("\texcludesFile = {}\n", r.join(".hide").display()));
                std::fs::write(r.join(".git/config"), config).unwrap();
                std::fs::write(r.join("planted.txt"), "x").unwrap();
                std::fs::write(r.join(".hide"), "planted.txt\n.hide\n").unwrap();
            },
            "planted.txt",
        ),
        (
            "any change of .git/config",
            |r| {
                let mut config = std::fs::read_to_string(r.join(".git/config")).unwrap();
                config.push_str("[user]\n\tname = x\n");
                std::fs::write(r.join(".git/config"), config).unwrap();
            },
            ".git/config",
        ),
        (
            "a deleted pack index (objects gone)",
            |r| {
                let pack = r.join(".git/objects/pack");
                for entry in std::fs::read_dir(&pack).unwrap() {
                    let path = entry.unwrap().path();
                    if path.extension().is_some_and(|e| e == "idx") {
                        std::fs::remove_file(path).unwrap();
                    }
                }
            },
            ".git/objects/pack/",
        ),
        (
            ".git/shallow",
            |r| std::fs::write(r.join(".git/shallow"), format!("{}\n", "0".repeat(40))).unwrap(),
            ".git/shallow",
        ),
        (
            "a corrupted pack (same size)",
            |r| {
                use std::io::{Seek, SeekFrom, Write};
                let pack = r.join(".git/objects/pack");
                for entry in std::fs::read_dir(&pack).unwrap() {
                    let path = entry.unwrap().path();
                    if path.extension().is_some_and(|e| e == "pack") {
                        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                        f.seek(SeekFrom::Start(40)).unwrap();
                        f.write_all(b"\xff\xfe").unwrap();
                    }
                }
            },
            ".git/objects/pack/",
        ),
        (
            ".git/info/exclude",
            |r| {
                std::fs::create_dir_all(r.join(".git/info")).unwrap();
                std::fs::write(r.join(".git/info/exclude"), "*\n").unwrap();
            },
            ".git/info/exclude",
        ),
        (
            "a hook",
            |r| {
                std::fs::create_dir_all(r.join(".git/hooks")).unwrap();
                std::fs::write(r.join(".git/hooks/post-checkout"), "#!/bin/sh\n").unwrap();
            },
            ".git/hooks/post-checkout",
        ),
    ];
    let mut missed = Vec::new();
    for (n, (what, change, key)) in changes.iter().enumerate() {
        let m = materialize(fixture, &dir.path().join(n.to_string())).unwrap();
        let before = fingerprint::take(&m.work_dir).unwrap();
        change(&m.work_dir);
        let changed = fingerprint::take(&m.work_dir)
            .map(|after| before.changed(&after))
            .unwrap_or_else(|e| vec![format!("(unreadable: {e})")]);
        if !changed.iter().any(|k| k.starts_with(key)) {
            missed.push(format!("{what}: {changed:?}"));
        }
    }
    assert!(missed.is_empty(), "missed: {missed:#?}");
}
