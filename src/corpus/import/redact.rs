//! `gatebench import`, what is kept and how: files a fixture cannot hold or that look like secrets
//! left out (the same rules for every layer, so deletions stay consistent), what kept files lose
//! (the executable bit, symlinks), and the ids ledger files record turned into placeholders.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use globset::GlobSet;
use regex::Regex;

use crate::corpus::import::source::{Entry, LayerKind, Mode, Source, Tree};
use crate::corpus::import::{ImportOptions, Imported};
use crate::corpus::model::paths::check_repo_path;
use gatebench_gittree as gittree;

/// Each layer's files that are kept; the others recorded in `imported` as left out, with why.
pub(crate) fn keep(
    sources: &[Source],
    opts: &ImportOptions,
    allow: &GlobSet,
    imported: &mut Imported,
) -> Vec<Tree> {
    let mut left_out: BTreeMap<String, String> =
        std::mem::take(&mut imported.left_out).into_iter().collect();
    let kept: Vec<Tree> = sources
        .iter()
        .map(|s| {
            s.files
                .iter()
                .filter(|(path, entry)| match refusal(path, entry, opts, allow) {
                    Some(reason) => {
                        left_out.entry((*path).clone()).or_insert(reason);
                        false
                    }
                    None => true,
                })
                .map(|(p, e)| (p.clone(), e.clone()))
                .collect()
        })
        .collect();
    imported.left_out = left_out.into_iter().collect();
    kept
}

/// Kept files stored with less than they had (path, what was lost), once a path.
pub(crate) fn losses(kept: &[Tree]) -> Vec<(String, String)> {
    let mut lossy: BTreeMap<String, String> = BTreeMap::new();
    for tree in kept {
        for (path, entry) in tree {
            match entry.mode {
                Mode::Executable => {
                    lossy.entry(path.clone()).or_insert_with(|| {
                        "executable bit lost: fixture files are materialized with mode 100644"
                            .into()
                    });
                }
                Mode::Symlink => {
                    lossy.entry(path.clone()).or_insert_with(|| {
                        "symlink written as a plain file holding its target (as git does with core.symlinks=false): fixtures have no symlinks".into()
                    });
                }
                Mode::Plain => {}
            }
        }
    }
    lossy.into_iter().collect()
}

/// Each layer's kept files as the fixture stores them: ledger files with the ids they record
/// turned into placeholders, layer by layer; a file a layer leaves unchanged keeps the bytes the
/// earlier layer was given.
pub(crate) fn templated(
    sources: &[Source],
    kept: &[Tree],
    imported: &mut Imported,
) -> Vec<BTreeMap<String, Vec<u8>>> {
    let mut templated: Vec<BTreeMap<String, Vec<u8>>> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let values = placeholder_values(&sources[..i], source, &kept[i]);
        let mut out = BTreeMap::new();
        for (path, entry) in &kept[i] {
            let unchanged = i > 0 && kept[i - 1].get(path) == Some(entry);
            if unchanged {
                out.insert(path.clone(), templated[i - 1][path].clone());
                continue;
            }
            let content = template_file(
                source.kind,
                path,
                &entry.content,
                &values,
                i.checked_sub(1).and_then(|p| templated[p].get(path)),
                imported,
            );
            out.insert(path.clone(), content);
        }
        templated.push(out);
    }
    templated
}

/// Why a file is left out, if it is.
fn refusal(path: &str, entry: &Entry, opts: &ImportOptions, allow: &GlobSet) -> Option<String> {
    if let Err(e) = check_repo_path(path) {
        return Some(format!("not a path fixtures can hold: {e}"));
    }
    if std::str::from_utf8(&entry.content).is_ok_and(|t| t.contains("{{gatebench:")) {
        return Some(
            "holds `{{gatebench:` text, which the fixture format reads as a placeholder".into(),
        );
    }
    let size = entry.size;
    let largest = crate::corpus::loader::compose::MAX_FILE_BYTES;
    if size > largest {
        return Some(format!(
            "{size} bytes, over the largest file a fixture can hold ({largest} bytes)"
        ));
    }
    if allow.is_match(path) {
        return None;
    }
    if size > opts.max_file_size {
        return Some(format!(
            "{size} bytes, over the limit of {} (--max-file-size; or --allow it)",
            opts.max_file_size
        ));
    }
    if let Some(why) = secret_like(path, &entry.content) {
        return Some(format!(
            "looks like a secret: {why} (--allow it if it is not)"
        ));
    }
    None
}

pub(super) fn secret_like(path: &str, content: &[u8]) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    if lower == ".env" || lower.starts_with(".env.") {
        return Some("an environment file (.env)");
    }
    if [".pem", ".key", ".p12", ".pfx"]
        .iter()
        .any(|ext| lower.ends_with(ext))
    {
        return Some("a key or certificate file name");
    }
    if ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return Some("an SSH key file name");
    }
    if lower.starts_with("credentials") {
        return Some("a credentials file name");
    }
    static PRIVATE_KEY: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let re = PRIVATE_KEY.get_or_init(|| {
        regex::bytes::Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----").expect("valid regex")
    });
    if re.is_match(content) {
        return Some("contains a PEM private key block");
    }
    None
}

/// Hex ids a layer's ledger files may record, each with the placeholder that reproduces it after
/// materialization. Later insertions win: the current layer's ids before earlier layers'.
fn placeholder_values(earlier: &[Source], current: &Source, kept: &Tree) -> Ids {
    let mut stable = BTreeMap::new();
    for source in earlier {
        let name = source.kind.name();
        if let Some((commit, tree)) = source.commit {
            stable.insert(
                commit.to_string(),
                format!("{{{{gatebench:commit:{name}}}}}"),
            );
            stable.insert(tree.to_string(), format!("{{{{gatebench:tree:{name}}}}}"));
        }
    }
    for source in earlier {
        // `source-tree:unstaged` does not exist: nothing comes after the unstaged layer.
        if source.kind != LayerKind::Unstaged {
            stable.insert(
                source.source_tree.clone(),
                format!("{{{{gatebench:source-tree:{}}}}}", source.kind.name()),
            );
        }
    }
    let mut own = BTreeMap::new();
    // Every file of this layer by content; the first path (in order) for equal contents.
    for (path, entry) in kept.iter().rev() {
        own.insert(
            gittree::sha256_hex(&entry.content),
            format!("{{{{gatebench:sha256:{path}}}}}"),
        );
    }
    own.insert(
        current.source_tree.clone(),
        "{{gatebench:source-tree}}".to_owned(),
    );
    Ids { stable, own }
}

/// Placeholders by the hex value they replace: `stable` name earlier layers (the same in every
/// later layer), `own` name this layer's source tree and files.
pub(crate) struct Ids {
    pub(crate) stable: BTreeMap<String, String>,
    pub(crate) own: BTreeMap<String, String>,
}

/// A file of layer `kind` with the ids it records replaced by placeholders (ledger files only,
/// UTF-8 text only). When the result would equal the earlier layer's bytes although the file
/// changed, the materializer would carry the earlier layer's resolution over; the layer's own ids
/// are then kept as they are.
pub(super) fn template_file(
    kind: LayerKind,
    path: &str,
    content: &[u8],
    ids: &Ids,
    earlier: Option<&Vec<u8>>,
    imported: &mut Imported,
) -> Vec<u8> {
    if !gittree::in_ledger(path) {
        return content.to_vec();
    }
    let Ok(text) = std::str::from_utf8(content) else {
        return content.to_vec();
    };
    let (full, used) = replace_ids(text, ids, true);
    let (out, used) = if earlier == Some(&full.as_bytes().to_vec()) && full != text {
        let (partial, used_partial) = replace_ids(text, ids, false);
        imported.literal.push((
            kind.name().to_owned(),
            path.to_owned(),
            "with its source tree and file hashes as placeholders it would read like the earlier layer's file, whose resolution the fixture format carries over; they stay as recorded".into(),
        ));
        (partial, used_partial)
    } else {
        (full, used)
    };
    for placeholder in used {
        imported
            .placeholders
            .push((kind.name().to_owned(), path.to_owned(), placeholder));
    }
    out.into_bytes()
}

pub(super) fn replace_ids(text: &str, ids: &Ids, own: bool) -> (String, Vec<String>) {
    static HEX: OnceLock<Regex> = OnceLock::new();
    let hex = HEX.get_or_init(|| Regex::new(r"[0-9A-Fa-f]+").expect("valid regex"));
    let mut out = String::with_capacity(text.len());
    let mut used = Vec::new();
    let mut last = 0;
    for m in hex.find_iter(text) {
        let value = m.as_str();
        if !matches!(value.len(), 40 | 64) {
            continue;
        }
        let found = own
            .then(|| ids.own.get(value))
            .flatten()
            .or_else(|| ids.stable.get(value));
        if let Some(placeholder) = found {
            out.push_str(&text[last..m.start()]);
            out.push_str(placeholder);
            last = m.end();
            if !used.contains(placeholder) {
                used.push(placeholder.clone());
            }
        }
    }
    out.push_str(&text[last..]);
    (out, used)
}
