//! A fixture's layers: composed trees in memory (goldens, mutants), or, for an omission fixture
//! loaded from disk, the recipe to compose them again when a trial needs them (the golden's trees,
//! the plant and fix specs, every file the validated composition read), so that a loaded corpus
//! holds no trees per omission fixture.

use std::path::Path;
use std::sync::Arc;

use crate::corpus::loader::compose::{self, Composed, Ctx, Input};
use crate::corpus::model::fixture::{Fix, Plant};
use crate::error::Error;

/// Where a fixture's trees are.
#[derive(Debug, Clone)]
pub enum Layers {
    /// Composed in memory: goldens (every omission composes onto them, sharing their nodes) and
    /// generated mutants (composed from their golden by an operator).
    Composed(Arc<Composed>),
    /// An omission fixture loaded from disk: composed again from its files on each use.
    OnDisk(Box<Recipe>),
    /// An omission fixture a run loaded slim: no recipe, no description, locus or finding
    /// matchers, only what selects, orders and names it. Loaded again in full from its file, on
    /// the golden it extends, when its trial starts (`Fixture::full`), so that a run's memory
    /// does not grow with its corpus.
    Reload(Arc<GoldenRef>),
}

/// What an omission fixture is built on: its golden's id, trees, content hash and worktree flag.
/// One per golden, shared by every fixture planted in it.
#[derive(Debug)]
pub struct GoldenRef {
    pub id: String,
    pub trees: Arc<Composed>,
    pub content_hash: String,
    pub worktree: bool,
    /// The fixtures folder the golden is in: a slim fixture in `<dir>/<its id>/` holds no path
    /// of its own (`Fixture::yaml_file`).
    pub dir: std::path::PathBuf,
}

impl GoldenRef {
    /// The `fixture.yaml` of fixture `id` when its folder is named by its id.
    pub fn fixture_file(&self, id: &str) -> std::path::PathBuf {
        self.dir.join(id).join("fixture.yaml")
    }
}

/// How to compose an omission fixture again: what the loader validated, without the trees.
#[derive(Debug, Clone)]
pub struct Recipe {
    /// The golden's trees (the golden's own, shared, not a copy).
    pub golden: Arc<Composed>,
    /// What is planted, and into which layer.
    pub plant: Plant,
    /// The scripted fixes.
    pub fixes: Vec<Fix>,
    /// Every file the validated composition read, sorted by path: a composition that reads
    /// anything else is refused.
    pub inputs: Vec<Input>,
}

impl Layers {
    /// The composed trees of the fixture whose `fixture.yaml` is `file`: shared for trees in
    /// memory, composed from the fixture's files for a recipe.
    pub fn compose(&self, file: &Path) -> Result<Arc<Composed>, Error> {
        match self {
            Layers::Composed(trees) => Ok(trees.clone()),
            Layers::OnDisk(recipe) => recipe.compose(file).map(Arc::new),
            Layers::Reload(_) => Err(Error::Internal(format!(
                "{} was loaded slim: compose it through `Fixture::compose`",
                file.display()
            ))),
        }
    }
}

impl Recipe {
    /// Composes the fixture again: the plant over the golden's trees, then the fixes, read from
    /// the fixture folder. An error when a file is gone or unreadable, or when the files read are
    /// not, byte for byte, those the loader validated (a file removed, added or changed since).
    pub fn compose(&self, file: &Path) -> Result<Composed, Error> {
        let ctx = Ctx::new(file, "");
        let states = compose::plant(&ctx, &self.golden.states, &self.plant)?;
        let fixes = compose::fixes(&ctx, &states, &self.fixes)?;
        unchanged(ctx.folder, &self.inputs, &ctx.take_inputs())?;
        Ok(Composed { states, fixes })
    }
}

/// `Ok` when `now` (sorted) holds exactly the files of `then` (sorted), with the same contents;
/// otherwise an error naming the first file that differs.
fn unchanged(folder: &Path, then: &[Input], now: &[Input]) -> Result<(), Error> {
    let since = "since the corpus was loaded; load it again";
    let (mut a, mut b) = (then.iter().peekable(), now.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (None, None) => return Ok(()),
            (Some(t), Some(n)) if t == n => {
                a.next();
                b.next();
            }
            (Some(t), Some(n)) if t.path == n.path => {
                let how = if t.len == n.len {
                    format!("its content changed (same size, {} bytes)", t.len)
                } else {
                    format!("its size changed from {} to {} bytes", t.len, n.len)
                };
                return Err(Error::invalid(
                    folder.join(&t.path),
                    format!("{how} {since}"),
                ));
            }
            (Some(t), n) if n.is_none_or(|n| t.path < n.path) => {
                return Err(Error::invalid(
                    folder.join(&t.path),
                    format!("the file was removed {since}"),
                ))
            }
            (_, Some(n)) => {
                return Err(Error::invalid(
                    folder.join(&n.path),
                    format!("the file was added {since}"),
                ))
            }
            (Some(_), None) => unreachable!("handled above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(path: &str, content: &[u8]) -> Input {
        use sha2::Digest;
        Input {
            path: path.into(),
            len: content.len() as u64,
            sha256: sha2::Sha256::digest(content).into(),
        }
    }

    #[test]
    fn a_removed_added_or_changed_file_is_named() {
        let folder = Path::new("/f");
        let then = vec![input("plant/a.py", b"a\n"), input("plant/b.py", b"b\n")];
        assert!(unchanged(folder, &then, &then).is_ok());
        let message = |now: &[Input]| unchanged(folder, &then, now).unwrap_err().to_string();
        let removed = message(&[input("plant/b.py", b"b\n")]);
        assert!(
            removed.contains("/f/plant/a.py") && removed.contains("removed"),
            "{removed}"
        );
        let removed_last = message(&[input("plant/a.py", b"a\n")]);
        assert!(removed_last.contains("/f/plant/b.py") && removed_last.contains("removed"));
        let added = message(&[
            input("plant/a.py", b"a\n"),
            input("plant/a2.py", b""),
            input("plant/b.py", b"b\n"),
        ]);
        assert!(
            added.contains("/f/plant/a2.py") && added.contains("added"),
            "{added}"
        );
        let resized = message(&[input("plant/a.py", b"aa\n"), input("plant/b.py", b"b\n")]);
        assert!(resized.contains("/f/plant/a.py") && resized.contains("from 2 to 3 bytes"));
        let edited = message(&[input("plant/a.py", b"A\n"), input("plant/b.py", b"b\n")]);
        assert!(
            edited.contains("/f/plant/a.py") && edited.contains("same size"),
            "{edited}"
        );
    }
}
