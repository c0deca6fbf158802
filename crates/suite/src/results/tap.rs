//! `node --test`'s TAP output read as per-test results: `ok N - title` and `not ok N - title`,
//! with a `# SKIP` or `# TODO` directive, subtests indented by 4 spaces a level and announced by
//! `# Subtest: title` before their results, each result followed by a YAML block (`---` to
//! `...`, indented 2 more) that is passed over. A result line with subtests (a `describe`, or a
//! test with `t.test` inside) is not a test itself, except when it failed and none of its
//! subtests did (a failed hook): that failure is kept under its own id. A test skipped only
//! because `--test-name-pattern` did not match it is not reported: it was not selected.

use super::{lines, outcome, TestOutcome, TestResult};

/// The directive node gives a test its name pattern did not match.
const NOT_SELECTED: &str = "test name does not match pattern";

/// What the results seen so far at one depth tell the result line that will close them.
#[derive(Debug, Default, Clone, Copy)]
struct Below {
    /// A result was reported at this depth: the line closing it is a parent.
    any: bool,
    /// A test at this depth or deeper failed.
    failed: bool,
}

/// One `ok` / `not ok` line, read.
struct ResultLine {
    ok: bool,
    title: String,
    directive: Option<String>,
}

/// The per-test results in node's TAP output.
pub(super) fn parse(stdout: &str) -> Vec<TestOutcome> {
    let mut tests = Vec::new();
    // The titles of the subtests announced at each depth, outermost first.
    let mut titles: Vec<String> = Vec::new();
    let mut below: Vec<Below> = Vec::new();
    // The indentation of the YAML block being passed over.
    let mut yaml: Option<usize> = None;
    let mut last_result_indent: Option<usize> = None;
    for line in lines(stdout) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let text = &line[indent..];
        if let Some(block) = yaml {
            if indent == block && text.trim_end() == "..." {
                yaml = None;
            }
            continue;
        }
        if text.trim_end() == "---" && last_result_indent.is_some_and(|r| indent == r + 2) {
            yaml = Some(indent);
            last_result_indent = None;
            continue;
        }
        last_result_indent = None;
        let depth = indent / 4;
        if let Some(title) = text.strip_prefix("# Subtest: ") {
            titles.truncate(depth);
            titles.resize(depth, String::new());
            titles.push(unescape(title));
            continue;
        }
        let Some(result) = read_result(text) else {
            continue;
        };
        last_result_indent = Some(indent);
        let inner = below.get(depth + 1).copied().unwrap_or_default();
        below.truncate(depth + 1);
        below.resize(depth + 1, Below::default());
        let found = judge(&result);
        let keep = match found {
            // Not selected: not run, not reported.
            None => None,
            Some(_) if !inner.any => found,
            Some(TestResult::Failed) if !inner.failed => Some(TestResult::Failed),
            Some(_) => None,
        };
        if let Some(kept) = keep {
            let mut path: Vec<&str> = titles.iter().take(depth).map(String::as_str).collect();
            path.push(&result.title);
            tests.push(outcome(path.join(" > "), kept));
        }
        let here = &mut below[depth];
        here.any = true;
        here.failed |= inner.failed || keep == Some(TestResult::Failed);
        titles.truncate(depth);
    }
    tests
}

/// The result a line gives its test; `None` for a test its name pattern left out.
fn judge(line: &ResultLine) -> Option<TestResult> {
    let directive = line.directive.as_deref().map(str::trim).unwrap_or("");
    let word: String = directive
        .chars()
        .take(4)
        .flat_map(char::to_lowercase)
        .collect();
    match word.as_str() {
        "todo" => Some(TestResult::Todo),
        "skip" if directive.get(4..).is_some_and(|r| r.trim() == NOT_SELECTED) => None,
        "skip" => Some(TestResult::Skipped),
        _ if line.ok => Some(TestResult::Passed),
        _ => Some(TestResult::Failed),
    }
}

/// `ok N - title # DIRECTIVE` or `not ok N - title`, the indentation already taken off.
fn read_result(text: &str) -> Option<ResultLine> {
    let (ok, rest) = if let Some(rest) = text.strip_prefix("not ok") {
        (false, rest)
    } else {
        (true, text.strip_prefix("ok")?)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("- ").unwrap_or(rest);
    let (title, directive) = split_directive(rest);
    Some(ResultLine {
        ok,
        title: unescape(title.trim_end()),
        directive: directive.map(str::to_owned),
    })
}

/// A result line's title and the directive after its first `#` not escaped by a backslash.
fn split_directive(rest: &str) -> (&str, Option<&str>) {
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '#' => return (&rest[..i], Some(&rest[i + 1..])),
            _ => {}
        }
    }
    (rest, None)
}

/// A title as node wrote it into TAP, its escapes undone (`\#`, `\\`, `\n`, `\t`, ...).
fn unescape(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let mut chars = title.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_undone_and_the_directive_starts_at_the_first_bare_hash() {
        assert_eq!(unescape(r"caps \# here \\ x\n"), "caps # here \\ x\n");
        assert_eq!(
            split_directive(r"a \# b # SKIP why"),
            (r"a \# b ", Some(" SKIP why"))
        );
        assert_eq!(split_directive(r"ends with \\"), (r"ends with \\", None));
    }

    #[test]
    fn a_result_line_gives_its_state_title_and_directive() {
        let r = read_result("not ok 15 - caps \\# here # TODO later").unwrap();
        assert_eq!(
            (r.ok, r.title.as_str(), r.directive.as_deref()),
            (false, "caps # here", Some(" TODO later"))
        );
        assert!(read_result("okay 1 - x").is_none());
        assert!(read_result("nothing").is_none());
    }
}
