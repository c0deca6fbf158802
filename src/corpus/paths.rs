//! Repository paths that come from data files: relative, `/`-separated, never leaving the root.

use std::path::Path;

/// Checks that `path` is a safe repository path: relative, no `..`, no empty or `.` components,
/// no backslashes, and not inside `.git`. Returns the reason when it is not.
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
            ".git" => return Err(format!("`{path}` points into `.git`")),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_repo_path;

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
