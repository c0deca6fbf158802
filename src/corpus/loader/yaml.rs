//! Strict YAML loading: unknown keys and wrong types are errors that name the file, line and
//! column; positions of values found wrong after parsing are looked up in the source text.

use std::path::Path;

use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Position, Result};

/// A parsed YAML document and the text it came from (kept to locate later errors).
pub struct Parsed<T> {
    pub value: T,
    pub text: String,
}

/// The largest YAML file read (fixture.yaml, scenario files): they are a few KB.
pub const MAX_YAML_BYTES: u64 = 4 << 20;
/// The largest results or report file read.
pub const MAX_JSON_BYTES: u64 = 256 << 20;
/// The most bytes of scalars a YAML document may hold once its aliases are expanded: an alias
/// bomb (thousands of aliases of one big string) is refused before it is built.
pub const MAX_YAML_EXPANDED_BYTES: usize = 16 << 20;
/// The deepest nesting of flow collections (`[`, `{`) a YAML file may have; deeper nesting makes
/// the YAML scanner quadratic. Block nesting is bounded by the deserializer (128 levels).
pub const MAX_YAML_FLOW_DEPTH: usize = 64;

/// The UTF-8 byte order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads and parses `path` into `T`.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<Parsed<T>> {
    let text = read_text(path)?;
    let value = parse(path, &text)?;
    Ok(Parsed { value, text })
}

/// Reads an input file (YAML or JSON) as UTF-8 text: a missing, unreadable, non-regular (a FIFO, a
/// device, a folder), too large or non-UTF-8 file is invalid input naming the file, never a hang
/// or an internal error.
pub fn read_text(path: &Path) -> Result<String> {
    let limit = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => MAX_JSON_BYTES,
        _ => MAX_YAML_BYTES,
    };
    let mut bytes = read_input(path, limit)?;
    // A UTF-8 byte order mark (editors on Windows write one) is no part of the text: YAML allows
    // it, and JSON parsers may ignore it. Read without it, rather than as a stray character
    // before the first key.
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let column = valid.iter().rev().take_while(|b| **b != b'\n').count() + 1;
        Error::invalid_at(
            path,
            Some(Position { line, column }),
            "the file is not UTF-8 text",
        )
    })
}

/// Reads at most `limit` bytes of a regular file (`crate::input::read`: opened without blocking,
/// its kind and size checked on the open handle, so a FIFO or a device put in its place is refused
/// rather than waited on or read without end). A path the user or a fixture names may be a link.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>> {
    crate::input::read(path, limit, crate::input::Links::Follow)
        .map_err(|e| Error::invalid(path, e.to_string()))
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
    check_limits(path, text)?;
    yaml_serde::from_str(text).map_err(|e| {
        let message = strip_position(&e.to_string());
        // A key given twice is found after the mapping is read, and reported at its start (1:1
        // for the top level): the repetition's own line is found in the text.
        let position = duplicate_key(&message)
            .and_then(|key| locate_duplicate(text, key))
            .or_else(|| {
                e.location().map(|l| Position {
                    line: l.line(),
                    column: l.column(),
                })
            });
        Error::invalid_at(path, position, message)
    })
}

/// The key of a "given twice" error: serde's `duplicate field `id`` (a struct), yaml_serde's
/// `duplicate entry with key "id"` (a mapping).
fn duplicate_key(message: &str) -> Option<&str> {
    if let Some(rest) = message.strip_prefix("duplicate field `") {
        return rest.split('`').next();
    }
    let rest = message.strip_prefix("duplicate entry with key \"")?;
    rest.rsplit_once('"').map(|(key, _)| key)
}

/// The position of the second `key:` of one block mapping: the first line that gives `key` at a
/// column where it was already given, with no line less indented (which ends that mapping) in
/// between. Flow mappings and keys with escapes are not looked into (`None`).
fn locate_duplicate(text: &str, key: &str) -> Option<Position> {
    // The columns `key` was seen at, in mappings still open.
    let mut open: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let rest = line.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let indent = line.len() - rest.len();
        // A list item opens a mapping at the column of its first key.
        let (column, entry) = match rest.strip_prefix("- ") {
            Some(item) => {
                let item_rest = item.trim_start_matches(' ');
                let column = indent + 2 + (item.len() - item_rest.len());
                open.retain(|c| *c < column);
                (column, item_rest)
            }
            None => {
                open.retain(|c| *c <= indent);
                (indent, rest)
            }
        };
        let is_key = [key.to_owned(), format!("\"{key}\""), format!("'{key}'")]
            .iter()
            .any(|k| {
                entry
                    .strip_prefix(k.as_str())
                    .is_some_and(|after| after.trim_start_matches(' ').starts_with(':'))
            });
        if is_key {
            if open.contains(&column) {
                return Some(Position {
                    line: i + 1,
                    column: column + 1,
                });
            }
            open.push(column);
        }
    }
    None
}

/// Refuses flow nesting deeper than [`MAX_YAML_FLOW_DEPTH`] (counted on the raw text, before the
/// scanner sees it) and documents whose scalars, aliases expanded, exceed
/// [`MAX_YAML_EXPANDED_BYTES`] (measured by walking the document without building it).
fn check_limits(path: &Path, text: &str) -> Result<()> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_YAML_FLOW_DEPTH {
                    let before = &text.as_bytes()[..i];
                    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
                    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
                    return Err(Error::invalid_at(
                        path,
                        Some(Position { line, column }),
                        format!("YAML nested deeper than {MAX_YAML_FLOW_DEPTH} levels"),
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut budget = MAX_YAML_EXPANDED_BYTES;
    let walked = yaml_serde::Deserializer::from_str(text).deserialize_any(Budget(&mut budget));
    match walked {
        Err(e) if e.to_string().contains(BUDGET_EXCEEDED) => Err(Error::invalid(
            path,
            format!(
                "the YAML document expands (through its aliases) to more than {MAX_YAML_EXPANDED_BYTES} bytes"
            ),
        )),
        Err(e) if e.to_string().contains("recursion limit exceeded") => Err(Error::invalid_at(
            path,
            e.location().map(|l| Position {
                line: l.line(),
                column: l.column(),
            }),
            "YAML nested deeper than 128 levels",
        )),
        // Other errors are reported, with their position, by the real parse.
        _ => Ok(()),
    }
}

const BUDGET_EXCEEDED: &str = "gatebench: YAML expansion budget exceeded";

/// Walks a YAML document, subtracting the length of every scalar visited (aliases are replayed by
/// the deserializer, so they count every time) and failing when the budget runs out.
struct Budget<'b>(&'b mut usize);

impl Budget<'_> {
    fn spend<E: serde::de::Error>(&mut self, n: usize) -> std::result::Result<(), E> {
        // Every node costs at least one byte, so a billion tiny aliased nodes are refused too.
        match self.0.checked_sub(n.max(1)) {
            Some(left) => {
                *self.0 = left;
                Ok(())
            }
            None => Err(E::custom(BUDGET_EXCEEDED)),
        }
    }
}

impl<'de> Visitor<'de> for Budget<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: serde::de::Error>(mut self, _: bool) -> std::result::Result<(), E> {
        self.spend(1)
    }
    fn visit_i64<E: serde::de::Error>(mut self, _: i64) -> std::result::Result<(), E> {
        self.spend(8)
    }
    fn visit_u64<E: serde::de::Error>(mut self, _: u64) -> std::result::Result<(), E> {
        self.spend(8)
    }
    fn visit_f64<E: serde::de::Error>(mut self, _: f64) -> std::result::Result<(), E> {
        self.spend(8)
    }
    fn visit_str<E: serde::de::Error>(mut self, v: &str) -> std::result::Result<(), E> {
        self.spend(v.len())
    }
    fn visit_unit<E: serde::de::Error>(mut self) -> std::result::Result<(), E> {
        self.spend(1)
    }
    fn visit_none<E: serde::de::Error>(mut self) -> std::result::Result<(), E> {
        self.spend(1)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let budget = self.0;
        while seq.next_element_seed(BudgetSeed(budget))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let budget = self.0;
        while map.next_key_seed(BudgetSeed(budget))?.is_some() {
            map.next_value_seed(BudgetSeed(budget))?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(
        self,
        data: A,
    ) -> std::result::Result<(), A::Error> {
        use serde::de::VariantAccess;
        let (IgnoredAny, variant) = data.variant::<IgnoredAny>()?;
        variant.newtype_variant_seed(BudgetSeed(self.0))
    }
}

struct BudgetSeed<'b>(&'b mut usize);

impl<'de> serde::de::DeserializeSeed<'de> for BudgetSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(Budget(self.0))
    }
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
    fn a_key_given_twice_names_the_line_of_the_second() {
        let err = parse::<T>(Path::new("f.yaml"), "# c\na: 1\n\na: 2\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("f.yaml:4:1: duplicate field `a`"),
            "{err}"
        );
        // The same key in two mappings is no repetition; in one mapping nested in a list, it is.
        let text = "x:\n  a: 1\ny:\n  a: 2\nz:\n  - a: 1\n    b: 2\n  - a: 3\n    a: 4\n";
        assert_eq!(
            locate_duplicate(text, "a").map(|p| (p.line, p.column)),
            Some((9, 5))
        );
        let generic =
            parse::<yaml_serde::Value>(Path::new("f.yaml"), "a: 1\nb: 2\nb: 3\n").unwrap_err();
        assert!(generic.to_string().starts_with("f.yaml:3:1:"), "{generic}");
    }

    #[test]
    fn locate_finds_the_key_line() {
        let text = "id: a\nextends: nope\n";
        let p = locate(text, "extends", "nope").unwrap();
        assert_eq!((p.line, p.column), (2, 10));
    }
}
