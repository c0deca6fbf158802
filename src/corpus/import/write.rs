//! `gatebench import`, writing the fixture: each layer's folder (repository-like names disarmed),
//! `fixture.yaml` serialized from the fixture format's own type (as `mutate --write` writes it)
//! under a comment of what was left out or lost, checked by loading it, then moved into place.

use std::collections::BTreeMap;
use std::path::Path;

use crate::corpus::import::source::{LayerKind, Source, Tree};
use crate::corpus::import::{ImportOptions, Imported};
use crate::corpus::loader::compose::DISARM_SUFFIX;
use crate::corpus::model::fixture::{Expect, FixtureFile, Layer};
use crate::error::{Error, Result};
use gatebench_report::Verdict;

/// Writes the fixture `opts.out/<id>` from each layer's kept files (`kept`), as stored
/// (`templated`): in a temporary folder beside the destination, checked by loading it, then moved
/// into place (replacing the folder there, which `import` checked may be replaced).
pub(crate) fn write_fixture(
    opts: &ImportOptions,
    sources: &[Source],
    kept: &[Tree],
    templated: &[BTreeMap<String, Vec<u8>>],
    imported: &mut Imported,
) -> Result<()> {
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::io("create", &opts.out, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".import-")
        .tempdir_in(&opts.out)
        .map_err(|e| Error::io("create a temporary folder in", &opts.out, e))?;
    let tmp = staging.path().join(&opts.id);
    std::fs::create_dir(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
    let mut file = fixture_file(opts, imported);
    for (i, source) in sources.iter().enumerate() {
        let layer = write_layer(&tmp, i, sources, kept, templated, imported)?;
        match source.kind {
            LayerKind::Base => {}
            LayerKind::Head => file.head = Some(layer),
            LayerKind::Staged => file.staged = Some(layer),
            LayerKind::Unstaged => file.unstaged = Some(layer),
        }
    }
    imported.disarmed.sort();
    imported.disarmed.dedup();
    let yaml = file.to_yaml(&header(opts, imported))?;
    let yaml_path = tmp.join("fixture.yaml");
    std::fs::write(&yaml_path, yaml).map_err(|e| Error::io("write", &yaml_path, e))?;

    if let Err(errors) = crate::corpus::load(staging.path()) {
        let message = errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(Error::Internal(format!(
            "the imported fixture does not load: {message}"
        )));
    }
    let folder = &imported.folder;
    if folder.exists() {
        std::fs::remove_dir_all(folder).map_err(|e| Error::io("remove", folder, e))?;
    }
    std::fs::rename(&tmp, folder).map_err(|e| Error::io("move into place", folder, e))
}

/// Layer `i`'s folder under `tmp` written: the base layer whole, a later one as its overlay on
/// the layer before; what it writes and deletes is recorded in `imported`, and returned as the
/// fixture's entry for it.
fn write_layer(
    tmp: &Path,
    i: usize,
    sources: &[Source],
    kept: &[Tree],
    templated: &[BTreeMap<String, Vec<u8>>],
    imported: &mut Imported,
) -> Result<Layer> {
    let name = sources[i].kind.name();
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let (written, deleted) = if i == 0 {
        (templated[0].keys().cloned().collect::<Vec<_>>(), Vec::new())
    } else {
        layer_diff(&kept[i - 1], &kept[i], &imported.folder)?
    };
    for path in &written {
        write_file(&dir, path, &templated[i][path], &mut imported.disarmed)?;
    }
    imported
        .layers
        .push((name.to_owned(), written.len(), deleted.len()));
    Ok(Layer {
        overlay: (!written.is_empty()).then(|| name.to_owned()),
        delete: deleted,
    })
}

/// The fixture's fields, its layers still to come: a golden whose base is the `base` folder.
fn fixture_file(opts: &ImportOptions, imported: &Imported) -> FixtureFile {
    let short = |id: &str| id.chars().take(12).collect::<String>();
    let description = opts.description.clone().unwrap_or_else(|| {
        let name = opts
            .repo
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| opts.repo.display().to_string());
        format!(
            "Imported from the repository {name}: base {}, head {}.",
            short(&imported.base_commit),
            short(&imported.head_commit)
        )
    });
    FixtureFile {
        id: opts.id.clone(),
        description,
        category: "golden".into(),
        tags: vec!["imported".into()],
        extends: None,
        base: Some("base".into()),
        head: None,
        staged: None,
        unstaged: None,
        worktree: false,
        plant: None,
        expect: Expect {
            verdict: Verdict::Pass,
            kind: None,
            locus: Vec::new(),
            findings: Vec::new(),
            rounds: None,
        },
        fixes: Vec::new(),
        tier: Default::default(),
        signal: None,
        suite: None,
    }
}

/// The comment `fixture.yaml` starts with: where it was imported from, and what was left out,
/// lost, or kept as recorded.
fn header(opts: &ImportOptions, imported: &Imported) -> String {
    let mut out = format!(
        "# Imported by `gatebench import` from {}: base {}, head {}{}{}.\n",
        comment_safe(&opts.repo.display().to_string()),
        imported.base_commit,
        imported.head_commit,
        if opts.staged {
            ", staged (the index)"
        } else {
            ""
        },
        if opts.unstaged {
            ", unstaged (the work tree)"
        } else {
            ""
        },
    );
    let mut comment = |title: &str, list: &[(String, String)]| {
        if list.is_empty() {
            return;
        }
        out.push_str(&format!("# {title}:\n"));
        // Escaped: a path may hold a newline (which would end the comment) or another control
        // character (which YAML does not allow, even in a comment).
        for (path, why) in list {
            out.push_str(&format!(
                "#   {}: {}\n",
                comment_safe(path),
                comment_safe(why)
            ));
        }
    };
    comment("Left out (in no layer)", &imported.left_out);
    comment("Kept with a loss", &imported.lossy);
    let literal: Vec<(String, String)> = imported
        .literal
        .iter()
        .map(|(layer, path, why)| (format!("{path} ({layer})"), why.clone()))
        .collect();
    comment("Ledger ids kept as recorded", &literal);
    out
}

/// The overlay (files new or changed) and deletions from one layer to the next.
fn layer_diff(before: &Tree, after: &Tree, folder: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let written: Vec<String> = after
        .iter()
        .filter(|(p, e)| before.get(*p) != Some(*e))
        .map(|(p, _)| p.clone())
        .collect();
    let deleted: Vec<String> = before
        .keys()
        .filter(|p| !after.contains_key(*p))
        .cloned()
        .collect();
    // The loader writes the overlay, then deletes: a deleted file whose path became a folder
    // would take the folder's new files with it.
    for path in &deleted {
        let prefix = format!("{path}/");
        if let Some(clash) = written.iter().find(|w| w.starts_with(&prefix)) {
            return Err(Error::invalid(
                folder,
                format!("`{path}` is a file in one layer and a folder (`{clash}`) in the next; the fixture format cannot express that"),
            ));
        }
    }
    Ok((written, deleted))
}

/// Whether a file name must be stored with the `.fixture` suffix: names that make the outer
/// project mistake the fixture for a project of its own, and names that already end in it.
pub(super) fn needs_disarm(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "Cargo.toml" | "Cargo.lock" | "package.json" | "package-lock.json"
    ) || name.starts_with(".git")
        || name.ends_with(DISARM_SUFFIX)
}

fn write_file(dir: &Path, path: &str, content: &[u8], disarmed: &mut Vec<String>) -> Result<()> {
    let stored = if needs_disarm(path) {
        disarmed.push(path.to_owned());
        format!("{path}{DISARM_SUFFIX}")
    } else {
        path.to_owned()
    };
    let target = dir.join(&stored);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    std::fs::write(&target, content).map_err(|e| Error::io("write", &target, e))
}

/// `text` with each control character written as its escape (`\u{1}`, `\n`): fit for one line
/// of a YAML comment.
fn comment_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
