//! Strict YAML loading: unknown keys and wrong types are errors that name the file, line and
//! column; positions of values found wrong after parsing are looked up in the source text.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::error::{Error, Position, Result};

/// A parsed YAML document and the text it came from (kept to locate later errors).
pub struct Parsed<T> {
    pub value: T,
    pub text: String,
}

/// Reads and parses `path` into `T`.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<Parsed<T>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
    let value = parse(path, &text)?;
    Ok(Parsed { value, text })
}

/// Parses `text` (read from `path`) into `T`.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    if text.trim().is_empty()
        || text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(Error::invalid(path, "the file is empty"));
    }
    yaml_serde::from_str(text).map_err(|e| {
        let position = e.location().map(|l| Position {
            line: l.line(),
            column: l.column(),
        });
        Error::invalid_at(path, position, strip_position(&e.to_string()))
    })
}

/// yaml_serde appends " at line L column C" to its messages; the error type already carries the
/// position, so the message should not say it twice.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// The position of the first line in `text` that holds `key:` followed by `value` (or, failing
/// that, `value` alone), for errors about a value that parsed but is wrong.
pub fn locate(text: &str, key: &str, value: &str) -> Option<Position> {
    let find = |pred: &dyn Fn(&str) -> Option<usize>| {
        text.lines().enumerate().find_map(|(i, line)| {
            pred(line).map(|col| Position {
                line: i + 1,
                column: col + 1,
            })
        })
    };
    find(&|line: &str| {
        let k = line.find(&format!("{key}:"))?;
        line[k..].find(value).map(|v| k + v)
    })
    .or_else(|| find(&|line: &str| line.find(value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: u32,
    }

    #[test]
    fn unknown_key_names_line_and_column() {
        let err = parse::<T>(Path::new("f.yaml"), "a: 1\nb: 2\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("f.yaml:2:1: unknown field `b`"), "{text}");
    }

    #[test]
    fn wrong_type_names_line() {
        let err = parse::<T>(Path::new("f.yaml"), "\na: [x]\n").unwrap_err();
        assert!(err.to_string().starts_with("f.yaml:2:"), "{err}");
    }

    #[test]
    fn empty_file_is_an_error() {
        let err = parse::<T>(Path::new("f.yaml"), "# only a comment\n").unwrap_err();
        assert_eq!(err.to_string(), "f.yaml: the file is empty");
    }

    #[test]
    fn locate_finds_the_key_line() {
        let text = "id: a\nextends: nope\n";
        let p = locate(text, "extends", "nope").unwrap();
        assert_eq!((p.line, p.column), (2, 10));
    }
}
