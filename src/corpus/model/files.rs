//! Fixture file trees: repository path to content, in a persistent map whose clones share
//! structure, so that a golden, the fixtures planted in it, their layers, their fixes and the
//! mutants generated from it hold only what they change; and the unified diff of two trees.

use std::fmt::Write;

use similar::TextDiff;

/// A file's content, shared by every tree that holds it unchanged.
pub type Blob = std::sync::Arc<[u8]>;

/// Repository path -> file content. Cloning is O(1); an insert or removal copies only the nodes
/// on its path (imbl's B-tree), so ten thousand fixtures over one golden do not hold ten thousand
/// copies of its tree.
pub type Files = imbl::OrdMap<String, Blob>;

/// Lines of context around each change in the diffs.
const CONTEXT: usize = 2;

fn text_of(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// A unified diff of every file that differs between two trees, `--- a/PATH` / `+++ b/PATH`.
pub fn diff(from: &Files, to: &Files) -> String {
    let mut out = String::new();
    // The persistent maps' own diff: subtrees the two trees share are skipped unread.
    for item in from.diff(to) {
        let (path, a, b) = match item {
            imbl::ordmap::DiffItem::Add(path, b) => (path, None, Some(b)),
            imbl::ordmap::DiffItem::Update {
                old: (path, a),
                new: (_, b),
            } => (path, Some(a), Some(b)),
            imbl::ordmap::DiffItem::Remove(path, a) => (path, Some(a), None),
        };
        let _ = writeln!(
            out,
            "--- {}\n+++ {}",
            a.map_or("/dev/null".to_owned(), |_| format!("a/{path}")),
            b.map_or("/dev/null".to_owned(), |_| format!("b/{path}"))
        );
        let (ta, tb) = (
            a.map_or(Some(""), |x| text_of(x)),
            b.map_or(Some(""), |x| text_of(x)),
        );
        match (ta, tb) {
            (Some(ta), Some(tb)) => {
                let diff = TextDiff::from_lines(ta, tb);
                let body = diff.unified_diff().context_radius(CONTEXT).to_string();
                out.push_str(&body);
                if !body.ends_with('\n') && !body.is_empty() {
                    out.push('\n');
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "binary file: {} -> {} bytes",
                    a.map_or(0, |c| c.len()),
                    b.map_or(0, |c| c.len())
                );
            }
        }
    }
    out
}
