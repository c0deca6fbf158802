//! The loader's tests: goldens' trees shared, omission fixtures as recipes, a slim fixture
//! loaded again, a fixture whose files changed after loading refused.

use super::*;
use crate::corpus::model::corpus::Entry;
use crate::corpus::model::files::Blob;
use crate::corpus::model::recipe::Layers;

fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The bundled corpus: every omission fixture, composed, holds its golden's base tree itself
/// (not a copy), and every file a layer leaves unchanged is the golden's content, not a second
/// copy of it: what a composed fixture costs is what it plants, not its golden again.
#[test]
fn omission_fixtures_share_their_goldens_trees_and_contents() {
    let corpus = load(&bundled()).expect("the bundled corpus loads");
    let mut shared_files = 0;
    for f in corpus.fixtures.iter().filter(|f| !f.is_golden()) {
        let golden = corpus.get(f.golden.as_deref().unwrap()).unwrap();
        let golden = golden.in_memory().expect("a golden's trees are in memory");
        let trees = f.compose().unwrap();
        let (mine, theirs) = (&trees.states, &golden.states);
        assert!(
            mine.base.ptr_eq(&theirs.base),
            "{}: its base tree is a copy of its golden's",
            f.id
        );
        let pairs = [
            (Some(&mine.head), Some(&theirs.head)),
            (mine.staged.as_ref(), theirs.staged.as_ref()),
            (mine.unstaged.as_ref(), theirs.unstaged.as_ref()),
        ];
        for (mine, theirs) in pairs {
            let (Some(mine), Some(theirs)) = (mine, theirs) else {
                continue;
            };
            for (path, content) in mine {
                if let Some(golden_content) = theirs.get(path) {
                    if content == golden_content {
                        assert!(
                            Blob::ptr_eq(content, golden_content),
                            "{}: {path} equals its golden's but is a copy",
                            f.id
                        );
                        shared_files += 1;
                    }
                }
            }
        }
    }
    assert!(shared_files > 1000, "only {shared_files} shared files");
}

/// A loaded corpus holds trees for its goldens only: every omission fixture is a recipe.
#[test]
fn omission_fixtures_are_loaded_as_recipes_and_goldens_as_trees() {
    let corpus = load(&bundled()).expect("the bundled corpus loads");
    let omissions = corpus.fixtures.iter().filter(|f| !f.is_golden()).count();
    assert!(omissions > 50, "{omissions} omission fixtures");
    for f in &corpus.fixtures {
        match (&f.layers, f.is_golden()) {
            (Layers::Composed(_), true) | (Layers::OnDisk(_), false) => {}
            _ => panic!(
                "{}: golden {} with layers {:?}",
                f.id,
                f.is_golden(),
                f.layers
            ),
        }
    }
}

/// Composing from a recipe gives exactly the trees the loader composed and validated: every
/// fixture, every layer, every scripted fix (and nothing else is different about it).
#[test]
fn a_fixture_composed_from_its_recipe_has_the_trees_the_loader_validated() {
    let lazy = load(&bundled()).expect("the bundled corpus loads");
    let eager = load_with(&bundled(), Build::Trees).expect("the bundled corpus loads");
    assert_eq!(lazy.fixtures.len(), eager.fixtures.len());
    let mut fixes = 0;
    for (l, e) in lazy.fixtures.iter().zip(&eager.fixtures) {
        assert_eq!((&l.id, &l.content_hash), (&e.id, &e.content_hash));
        let validated = e.in_memory().expect("an eager load keeps every tree");
        let composed = l.compose().unwrap();
        let (a, b) = (&composed.states, &validated.states);
        assert_eq!(a.base, b.base, "{}: base", l.id);
        assert_eq!(a.head, b.head, "{}: head", l.id);
        assert_eq!(a.staged, b.staged, "{}: staged", l.id);
        assert_eq!(a.unstaged, b.unstaged, "{}: unstaged", l.id);
        assert_eq!(composed.fixes.len(), validated.fixes.len(), "{}", l.id);
        for (x, y) in composed.fixes.iter().zip(&validated.fixes) {
            assert_eq!(x.after_round, y.after_round, "{}", l.id);
            assert_eq!(x.files, y.files, "{}: fix after {}", l.id, x.after_round);
            fixes += 1;
        }
    }
    assert!(fixes > 10, "only {fixes} scripted fixes compared");
}

/// A corpus loaded slim holds no omission fixture's description, locus, finding matchers or
/// recipe; loaded again in full, each is the fixture a full load gives, trees included. An
/// edit after loading makes loading it again an error, never the fixture as it is now.
#[test]
fn a_slim_fixture_loaded_again_is_the_fixture_a_full_load_gives() {
    let slim = load_slim(&bundled()).expect("the bundled corpus loads slim");
    let eager = load_with(&bundled(), Build::Trees).expect("the bundled corpus loads");
    let entries: Vec<Entry> = slim.entries().collect();
    assert_eq!(entries.len(), eager.fixtures.len());
    assert_eq!(
        slim.slim.len(),
        eager.fixtures.iter().filter(|f| !f.is_golden()).count(),
        "every omission fixture is held slim"
    );
    let mut reloaded = 0;
    for (entry, e) in entries.iter().zip(&eager.fixtures) {
        assert_eq!(
            (entry.id(), entry.category(), entry.tags(), entry.golden()),
            (
                e.id.as_str(),
                e.category.as_str(),
                &e.tags[..],
                e.golden.as_deref()
            )
        );
        assert_eq!(entry.rounds(), e.expect.rounds);
        assert_eq!(slim.entry(&e.id).map(|x| x.id()), Some(e.id.as_str()));
        let s = entry.fixture();
        assert_eq!((&s.id, &s.content_hash), (&e.id, &e.content_hash));
        assert_eq!(
            (&s.category, &s.tags, &s.golden),
            (&e.category, &e.tags, &e.golden)
        );
        assert_eq!(
            (s.expect.verdict, s.expect.kind),
            (e.expect.verdict, e.expect.kind)
        );
        assert_eq!(s.expect.rounds, e.expect.rounds);
        if e.is_golden() {
            assert!(!s.is_slim(), "{}: a golden is held in full", s.id);
            continue;
        }
        assert!(s.is_slim(), "{}", s.id);
        assert!(
            s.description.is_empty() && s.expect.locus.is_empty(),
            "{}",
            s.id
        );
        assert!(s.expect.findings.is_empty(), "{}", s.id);
        // Its path found from its id (the bundled folders are named by their ids).
        assert_eq!(s.file, PathBuf::new(), "{}", s.id);
        assert_eq!(*s.yaml_file(), e.file, "{}", s.id);
        let full = s.full().unwrap();
        assert!(!full.is_slim());
        assert_eq!(full.file, e.file, "{}", s.id);
        assert_eq!(full.description, e.description, "{}", s.id);
        assert_eq!(
            format!("{:?}", full.expect),
            format!("{:?}", e.expect),
            "{}",
            s.id
        );
        let (a, b) = (full.in_memory().unwrap(), e.in_memory().unwrap());
        assert_eq!(a.states.final_files(), b.states.final_files(), "{}", s.id);
        assert_eq!(a.states.base, b.states.base, "{}", s.id);
        assert_eq!(a.fixes.len(), b.fixes.len(), "{}", s.id);
        for (x, y) in a.fixes.iter().zip(&b.fixes) {
            assert_eq!(x.files, y.files, "{}: fix after {}", s.id, x.after_round);
        }
        assert_eq!(s.compose().unwrap().states.head, b.states.head, "{}", s.id);
        reloaded += 1;
    }
    assert!(reloaded > 50, "only {reloaded} slim fixtures loaded again");

    // An edit after loading: loading it again names the fixture's folder and says so.
    let dir = tempfile::tempdir().unwrap();
    for id in [
        "subscription-cancel",
        "subscription-cancel-task-state-missing",
    ] {
        copy_dir(&bundled().join(id), &dir.path().join(id));
    }
    let corpus = load_slim(dir.path()).unwrap();
    let planted = corpus
        .entry("subscription-cancel-task-state-missing")
        .unwrap()
        .fixture();
    assert!(planted.full().is_ok());
    let yaml = planted.yaml_file().into_owned();
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        text.replacen("description:", "description: edited,", 1),
    )
    .unwrap();
    let err = planted.full().unwrap_err().to_string();
    let folder = yaml.parent().unwrap().display().to_string();
    assert!(
        err.contains(&folder) && err.contains("changed since"),
        "{err}"
    );
    assert!(planted.compose().is_err());

    // A folder not named by its fixture's id: the slim fixture keeps its path.
    let renamed = dir.path().join("renamed");
    std::fs::rename(yaml.parent().unwrap(), &renamed).unwrap();
    std::fs::write(renamed.join("fixture.yaml"), text).unwrap();
    let corpus = load_slim(dir.path()).unwrap();
    let planted = corpus
        .entry("subscription-cancel-task-state-missing")
        .unwrap()
        .fixture();
    assert!(planted.is_slim());
    assert_eq!(planted.file, renamed.join("fixture.yaml"));
    assert_eq!(planted.full().unwrap().file, planted.file);
}

/// A fixture's overlay file removed, changed or added after loading: composing it is an error
/// naming the file, never the trees of the files as they are now.
#[test]
fn a_fixture_whose_files_changed_after_loading_does_not_compose() {
    let dir = tempfile::tempdir().unwrap();
    for id in [
        "subscription-cancel",
        "subscription-cancel-acceptance-unchecked",
    ] {
        copy_dir(&bundled().join(id), &dir.path().join(id));
    }
    let corpus = load(dir.path()).expect("the copied fixtures load");
    let f = corpus
        .get("subscription-cancel-acceptance-unchecked")
        .unwrap();
    f.compose().expect("composes while its files are unchanged");
    let Layers::OnDisk(recipe) = &f.layers else {
        panic!("an omission fixture is a recipe")
    };
    let read = |p: &str| dir.path().join(&f.id).join(p);
    let first = recipe
        .inputs
        .first()
        .expect("the fixture reads files")
        .path
        .clone();
    let file = read(&first);
    let bytes = std::fs::read(&file).unwrap();
    let mut edited = bytes.clone();
    edited[0] ^= 0x20;
    std::fs::write(&file, &edited).unwrap();
    let e = f.compose().unwrap_err().to_string();
    assert!(
        e.contains(&*file.to_string_lossy()) && e.contains("changed"),
        "{e}"
    );
    std::fs::remove_file(&file).unwrap();
    let e = f.compose().unwrap_err().to_string();
    assert!(
        e.contains(&*file.to_string_lossy()) && e.contains("removed"),
        "{e}"
    );
    std::fs::write(&file, &bytes).unwrap();
    f.compose().expect("composes again once the file is back");
}

/// A plant folder swapped for a link to a folder outside the fixture after loading, holding
/// the very same files (so the recipe's record of what was read still matches): composing
/// the fixture when its trial starts refuses the link, as loading does.
#[test]
fn a_layer_folder_swapped_for_a_link_outside_after_loading_does_not_compose() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    for id in [
        "subscription-cancel",
        "subscription-cancel-acceptance-unchecked",
    ] {
        copy_dir(&bundled().join(id), &fixtures.join(id));
    }
    let corpus = load(&fixtures).expect("the copied fixtures load");
    let f = corpus
        .get("subscription-cancel-acceptance-unchecked")
        .unwrap();
    f.compose().expect("composes while its files are unchanged");
    let Layers::OnDisk(recipe) = &f.layers else {
        panic!("an omission fixture is a recipe")
    };
    let first = recipe.inputs.first().expect("the fixture reads files");
    let layer = first.path.split('/').next().unwrap().to_owned();
    let inside = fixtures.join(&f.id).join(&layer);
    let outside = dir.path().join("elsewhere");
    std::fs::rename(&inside, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &inside).unwrap();
    let e = f.compose().unwrap_err().to_string();
    assert!(
        e.contains("symlink pointing outside the fixture folder"),
        "{e}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
