//! A parsed fixture file built into a `Fixture`: a golden's layers composed, an omission fixture
//! planted over its golden's trees, its fixes composed and its placeholders checked; then kept as
//! trees, a recipe or slim (`Build`); a slim fixture loaded again in full (`Fixture::full`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use sha2::Digest;

use crate::corpus::loader::checks::{check_locus_paths, check_placeholders, common_checks};
use crate::corpus::loader::compose::{self, read_tree, Composed, Ctx, States};
use crate::corpus::loader::yaml;
use crate::corpus::loader::Seen;
use crate::corpus::model::corpus::{Expectation, Fixture};
use crate::corpus::model::fixture::FixtureFile;
use crate::corpus::model::recipe::{GoldenRef, Layers, Recipe};
use crate::error::Error;
use gatebench_report::Verdict;

impl Fixture {
    /// The fixture in full: itself, or, loaded slim, loaded again from its file on its golden,
    /// its trees composed and kept. An error names the file that cannot be read, or says the
    /// fixture changed since the corpus was loaded (its content hash differs).
    pub fn full(&self) -> Result<std::borrow::Cow<'_, Fixture>, Error> {
        let Layers::Reload(golden) = &self.layers else {
            return Ok(std::borrow::Cow::Borrowed(self));
        };
        let file = self.yaml_file();
        let p = yaml::load::<FixtureFile>(&file)?;
        let goldens = BTreeMap::from([(golden.id.clone(), golden.clone())]);
        let again = Build::Again(&self.content_hash);
        let full = build_omission(&file, &p, &goldens, &BTreeMap::new(), again)?;
        Ok(std::borrow::Cow::Owned(full))
    }
}

pub(crate) fn build_golden(file: &Path, p: &yaml::Parsed<FixtureFile>) -> Result<Fixture, Error> {
    let f = &p.value;
    let ctx = Ctx::new(file, &p.text);
    let expect = common_checks(&ctx, f)?;
    if f.plant.is_some() {
        return Err(ctx.err(
            "plant",
            "plant",
            "`plant` needs `extends`: an omission is planted in a golden",
        ));
    }
    if expect.verdict != Verdict::Pass {
        return Err(ctx.err(
            "verdict",
            expect.verdict.as_str(),
            "a golden (a fixture without `extends`) must expect `verdict: pass`",
        ));
    }
    if !expect.findings.is_empty() {
        return Err(ctx.err("findings", "findings", "a golden expects no findings"));
    }
    if expect.kind.is_some() || !expect.locus.is_empty() {
        return Err(ctx.err(
            "expect",
            "expect",
            "a golden plants nothing: it has no `kind` and no `locus`",
        ));
    }
    let base_dir = f
        .base
        .as_deref()
        .ok_or_else(|| ctx.err_at(None, "a golden needs `base` (the folder committed on main)"))?;
    let head = f.head.as_ref().ok_or_else(|| {
        ctx.err_at(
            None,
            "a golden needs `head` (the layer committed on the feature branch)",
        )
    })?;
    let base = read_tree(&ctx, "base", base_dir)?;
    let mut states = States {
        base: base.clone(),
        head: compose::apply_layer(&ctx, "head", base, head)?,
        ..States::default()
    };
    if let Some(staged) = &f.staged {
        states.staged = Some(compose::apply_layer(
            &ctx,
            "staged",
            states.head.clone(),
            staged,
        )?);
    }
    if let Some(unstaged) = &f.unstaged {
        let from = states.staged.clone().unwrap_or_else(|| states.head.clone());
        states.unstaged = Some(compose::apply_layer(&ctx, "unstaged", from, unstaged)?);
    }
    finish(&ctx, f, None, states, expect, f.worktree, Build::Trees)
}

pub(crate) fn build_omission(
    file: &Path,
    p: &yaml::Parsed<FixtureFile>,
    goldens: &BTreeMap<String, Arc<GoldenRef>>,
    seen: &BTreeMap<String, Seen>,
    build: Build,
) -> Result<Fixture, Error> {
    let f = &p.value;
    let ctx = Ctx::new(file, &p.text);
    let expect = common_checks(&ctx, f)?;
    let extends = f.extends.as_deref().unwrap_or_default();
    for (key, present) in [
        ("base", f.base.is_some()),
        ("head", f.head.is_some()),
        ("staged", f.staged.is_some()),
        ("unstaged", f.unstaged.is_some()),
        ("worktree", f.worktree),
        ("suite", f.suite.is_some()),
    ] {
        if present {
            return Err(ctx.err(key, key, format!("`{key}` belongs to the golden; an omission fixture only plants (`plant`) into the golden it extends")));
        }
    }
    if extends == f.id {
        return Err(ctx.err(
            "extends",
            extends,
            format!("`extends: {extends}` names this fixture itself; it must name a golden"),
        ));
    }
    let golden = match goldens.get(extends) {
        Some(g) => g,
        _ if seen.get(extends).is_some_and(|s| s.omission) => {
            return Err(ctx.err(
                "extends",
                extends,
                format!("`extends: {extends}` names an omission fixture; it must name a golden"),
            ))
        }
        _ if seen.contains_key(extends) => {
            return Err(ctx.err(
                "extends",
                extends,
                format!("`extends: {extends}` names a golden that failed to load (see its error)"),
            ))
        }
        _ => {
            return Err(ctx.err(
                "extends",
                extends,
                format!(
                    "`extends: {extends}` names no fixture; it must name a golden in the corpus"
                ),
            ))
        }
    };
    let plant = f.plant.as_ref().ok_or_else(|| {
        ctx.err(
            "extends",
            extends,
            "an omission fixture needs `plant`: the overlay or deletions that plant the omission",
        )
    })?;
    if plant.overlay.is_none() && plant.delete.is_empty() {
        return Err(ctx.err("plant", "plant", "`plant` needs an overlay or deletions"));
    }
    if expect.verdict == Verdict::Pass && f.fixes.is_empty() {
        return Err(ctx.err("verdict", "pass", "an omission fixture must expect `fail` or `blocked`: a correct gate never passes a known omission"));
    }
    if expect.kind.is_none() {
        return Err(ctx.err("expect", "expect", "an omission fixture must state the `kind` of omission it plants (an id of docs/TAXONOMY.md)"));
    }
    if expect.locus.is_empty() {
        return Err(ctx.err("expect", "expect", "an omission fixture must state the `locus` of what it plants (paths with optional lines, requirement, obligation or task ids)"));
    }
    let golden_trees = &golden.trees;
    let states = compose::plant(&ctx, &golden_trees.states, plant)?;
    check_locus_paths(&ctx, &expect.locus, &[&states, &golden_trees.states])?;
    ctx.hasher
        .borrow_mut()
        .update(golden.content_hash.as_bytes());
    finish(
        &ctx,
        f,
        Some(golden),
        states,
        expect,
        golden.worktree,
        build,
    )
}

/// What an omission fixture keeps once built, and how it is checked.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Build<'a> {
    /// Checked in full; keeps the recipe to compose its trees again.
    Recipe,
    /// Checked in full; keeps its trees (to test composing from a recipe against them).
    Trees,
    /// Checked in full; kept slim (`Layers::Reload`): a run's corpus.
    Slim,
    /// Loaded again for a trial (`Fixture::full`): keeps its trees; refused unless its content
    /// hash is this one, the one it was checked with, and then not checked again (the same
    /// inputs compose the same trees).
    Again(&'a str),
}

/// The fixes composed and every placeholder checked; then a golden keeps its trees and an
/// omission fixture (`golden` given: its id and trees) what `build` says.
fn finish(
    ctx: &Ctx,
    f: &FixtureFile,
    golden: Option<&Arc<GoldenRef>>,
    states: States,
    expect: Expectation,
    worktree: bool,
    build: Build,
) -> Result<Fixture, Error> {
    let fixes = compose::fixes(ctx, &states, &f.fixes)?;
    let content_hash = {
        let mut hasher = ctx.hasher.borrow_mut();
        // A golden's `suite` says how its tests run, not what it materializes or how a trial is
        // scored: left out, so that declaring one changes no fixture's hash.
        let hashed = match &f.suite {
            None => serde_json::to_vec(f),
            Some(_) => serde_json::to_vec(&FixtureFile {
                suite: None,
                ..f.clone()
            }),
        };
        hasher.update(hashed.unwrap_or_default());
        let digest = std::mem::take(&mut *hasher).finalize();
        gatebench_gittree::hex(&digest)
    };
    match build {
        Build::Recipe | Build::Trees | Build::Slim => check_placeholders(ctx, &states, &fixes)?,
        Build::Again(hash) if hash == content_hash => {}
        Build::Again(_) => {
            return Err(Error::invalid(
                ctx.folder,
                "the fixture changed since the corpus was loaded (a file of it added, removed \
                 or edited, or its fixture.yaml); load it again",
            ))
        }
    }
    let layers = match (golden, build) {
        (None, _) | (Some(_), Build::Trees | Build::Again(_)) => {
            Layers::Composed(Arc::new(Composed { states, fixes }))
        }
        (Some(golden), Build::Recipe) => Layers::OnDisk(Box::new(Recipe {
            golden: golden.trees.clone(),
            plant: f
                .plant
                .clone()
                .ok_or_else(|| ctx.err_at(None, "an omission fixture needs `plant`"))?,
            fixes: f.fixes.clone(),
            inputs: ctx.take_inputs(),
        })),
        (Some(golden), Build::Slim) => Layers::Reload(golden.clone()),
    };
    let fixture = Fixture {
        id: f.id.clone(),
        description: f.description.clone(),
        category: f.category.clone(),
        tags: f.tags.clone(),
        golden: golden.map(|g| g.id.clone()),
        file: ctx.file.to_path_buf(),
        worktree,
        layers,
        expect,
        tier: f.tier,
        signal: f.signal,
        suite: f.suite.clone(),
        content_hash,
    };
    Ok(match (golden, build) {
        (Some(_), Build::Slim) => fixture.slimmed(),
        _ => fixture,
    })
}
