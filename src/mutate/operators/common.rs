//! Helpers the operators share: editing a ledger JSON file by lines and re-parsing it, finding an
//! obligation's object, comment syntax by language, and appending lines.

use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;

/// Edits the JSON file at `path` by lines; the result must parse, else the site is unviable.
pub fn edit_json(
    ledger: &Ledger,
    path: &str,
    edit: impl FnOnce(&[String]) -> Option<Vec<String>>,
) -> Result<String, String> {
    let text = ledger
        .text(path)
        .ok_or_else(|| format!("{path} is not a text file of the golden"))?;
    let lines = jsontext::lines(text);
    let out = edit(&lines).ok_or_else(|| format!("the site was not found in {path}"))?;
    let out = jsontext::join(&out);
    if !jsontext::parses(&out) {
        return Err(format!("the edit of {path} does not parse as JSON"));
    }
    Ok(out)
}

/// The lines of the object whose `id` member is `id` (an obligation, a receipt entry).
pub fn object_of(lines: &[String], id: &str) -> Option<(usize, usize)> {
    let at = jsontext::find_member(lines, "id", id)?;
    jsontext::enclosing_object(lines, at)
}

/// The 1-based lines of the object whose `id` is `id` in `text`.
pub fn object_lines(text: &str, id: &str) -> Option<[u64; 2]> {
    object_of(&jsontext::lines(text), id).map(jsontext::one_based)
}

/// The line comment of a source file, by extension; `None` for files that take none.
pub fn comment(path: &str) -> Option<&'static str> {
    let ext = path.rsplit('.').next().unwrap_or_default();
    match ext {
        "py" | "sh" | "toml" | "yaml" | "yml" | "cfg" | "txt" | "gitignore" => Some("#"),
        "rs" | "js" | "ts" | "mjs" | "cjs" | "go" | "c" | "java" => Some("//"),
        "md" => Some(""),
        _ if path.ends_with(".gitignore") => Some("#"),
        _ => None,
    }
}

/// `content` with `line` appended as a line of its own.
pub fn append_line(content: &[u8], line: &str) -> Vec<u8> {
    let mut out = content.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
    out
}

/// Splits a ref `path:lines` or `path::symbol` into its path and the rest.
pub fn ref_path(r: &str) -> &str {
    match r.find(':') {
        Some(i) => &r[..i],
        None => r,
    }
}

/// The 1-based lines `[a, b]` of a ref `path:a-b` or `path:a`.
pub fn ref_lines(r: &str) -> Option<[u64; 2]> {
    let (_, spec) = r.split_once(':')?;
    if spec.starts_with(':') {
        return None;
    }
    let (a, b) = spec.split_once('-').unwrap_or((spec, spec));
    Some([a.trim().parse().ok()?, b.trim().parse().ok()?])
}

/// `path` with its file name given a `missing_` prefix: a file no layer has.
pub fn missing_path(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, name)) => format!("{dir}/missing_{name}"),
        None => format!("missing_{path}"),
    }
}

/// Replaces, inside the object of obligation `id` in the requirements, the element `old` of
/// its list `key` with `new`.
pub fn replace_ref(
    ledger: &Ledger,
    id: &str,
    key: &str,
    old: &str,
    new: &str,
) -> Result<String, String> {
    let path = ledger.requirements_path();
    edit_json(ledger, &path, |lines| {
        let obj = object_of(lines, id)?;
        let list = jsontext::member(lines, obj, key)?;
        let quoted = serde_json::Value::from(old).to_string();
        let at = (list.0..=list.1).find(|&i| lines[i].trim_start().starts_with(&quoted))?;
        Some(jsontext::replace(
            lines,
            (at, at),
            &[serde_json::Value::from(new).to_string()],
        ))
    })
}
