//! Repository paths that come from data files: relative, `/`-separated, never leaving the root.

use std::path::Path;

/// Whether one path component is, or is taken by some filesystem as, `.git`: git's own rules
/// (`verify_path` in git's `read-cache.c`): `.git` in any letter case; with trailing dots or spaces,
/// or an NTFS stream (`.git::$INDEX_ALLOCATION`), or the 8.3 short name `git~1` (NTFS); or with
/// characters HFS+ ignores (zero-width joiners, direction marks, U+FEFF) anywhere in it.
pub fn is_dotgit(component: &str) -> bool {
    // HFS+ drops these code points when it compares names.
    let hfs_ignorable = |c: char| matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}');
    let folded: String = component
        .chars()
        .filter(|c| !hfs_ignorable(*c))
        .flat_map(char::to_lowercase)
        .collect();
    if folded == ".git" || folded == "git~1" {
        return true;
    }
    // NTFS ignores trailing dots and spaces, and `:stream` suffixes.
    let ntfs = folded.split(':').next().unwrap_or_default();
    let ntfs = ntfs.trim_end_matches(['.', ' ']);
    ntfs == ".git" || ntfs == "git~1"
}

/// Checks that `path` is a safe repository path: relative, no `..`, no empty or `.` components,
/// no backslashes, no control characters, and no component git would take for `.git`
/// ([`is_dotgit`]). Every path a fixture puts in a repository (each layer's files after the
/// `.fixture` suffix is removed, deletions, `sha256:` placeholders) is checked by this one
/// function, in `check` and `run` alike. Returns the reason when it is not safe.
pub fn check_repo_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.starts_with('/')
        || Path::new(path).is_absolute()
        || path.contains(':') && path.len() > 1 && path.as_bytes()[1] == b':'
    {
        return Err(format!(
            "`{path}` is an absolute path; paths are relative to the repository"
        ));
    }
    if path.contains('\\') {
        return Err(format!("`{path}` contains a backslash; use `/`"));
    }
    for part in path.split('/') {
        match part {
            ".." => {
                return Err(format!(
                    "`{path}` contains `..`; paths must stay inside the repository"
                ))
            }
            "" | "." => return Err(format!("`{path}` has an empty or `.` component")),
            part if is_dotgit(part) => {
                let what = if part == path {
                    format!("`{}`", part.escape_debug())
                } else {
                    format!("`{}` (in `{}`)", part.escape_debug(), path.escape_debug())
                };
                return Err(format!(
                    "{what} is taken by git for `.git`: a fixture cannot write git's control files"
                ));
            }
            part if part.chars().any(|c| c.is_control()) => {
                return Err(format!(
                    "`{}` contains a control character",
                    path.escape_debug()
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_repo_path, is_dotgit};

    #[test]
    fn every_spelling_git_refuses_is_dotgit() {
        for bad in [
            ".git",
            ".GIT",
            ".Git",
            ".git.",
            ".git ",
            ".git. .",
            "git~1",
            "GIT~1",
            ".git::$INDEX_ALLOCATION",
            ".g\u{200c}it",
            "\u{feff}.git",
            ".gi\u{200d}T",
        ] {
            assert!(is_dotgit(bad), "{bad:?}");
            assert!(
                check_repo_path(&format!("x/{bad}/config")).is_err(),
                "{bad:?}"
            );
        }
        for good in [
            ".gitignore",
            ".github",
            "git",
            ".git2",
            "x.git",
            "git~2",
            ".gitkeep",
        ] {
            assert!(!is_dotgit(good), "{good:?}");
        }
    }

    #[test]
    fn relative_paths_are_accepted() {
        assert!(check_repo_path("specs/a/tasks/T1.md").is_ok());
    }

    #[test]
    fn escaping_and_absolute_paths_are_rejected() {
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "a//b",
            "./a",
            ".git/config",
            "a\\b",
            "",
        ] {
            assert!(check_repo_path(bad).is_err(), "{bad}");
        }
    }
}
