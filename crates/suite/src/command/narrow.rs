//! A test command narrowed to a few tests, one way per framework: pytest's node ids, node's
//! `--test-name-pattern`, cargo's target flags and libtest's exact name filters. Each takes the
//! command's words and gives `None` when they are not that framework's command.

use std::path::Path;

use super::base_name;
use crate::error::SuiteError;
use crate::results::TestOutcome;

/// pytest options whose value is the next word (written `-k EXPR`, not `-kEXPR` or
/// `--tb=short`): their value is not a path to leave out.
const PYTEST_VALUED: &[&str] = &[
    "-k",
    "-m",
    "-p",
    "-c",
    "-o",
    "-W",
    "-r",
    "-n",
    "--rootdir",
    "--basetemp",
    "--confcutdir",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--tb",
    "--maxfail",
    "--durations",
    "--durations-min",
    "--import-mode",
    "--capture",
    "--override-ini",
    "--config-file",
    "--log-level",
    "--log-format",
    "--log-date-format",
    "--log-cli-level",
    "--log-cli-format",
    "--log-cli-date-format",
    "--log-file",
    "--log-file-level",
    "--log-file-format",
    "--log-file-date-format",
    "--show-capture",
    "--color",
    "--code-highlight",
    "--doctest-glob",
    "--doctest-report",
    "--pdbcls",
    "--numprocesses",
    "--dist",
    "--timeout",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--cov-fail-under",
];

/// cargo test options whose value is the next word.
const CARGO_VALUED: &[&str] = &[
    "-p",
    "--package",
    "--exclude",
    "--test",
    "--bench",
    "--bin",
    "--example",
    "-F",
    "--features",
    "-j",
    "--jobs",
    "--target",
    "--target-dir",
    "--manifest-path",
    "--profile",
    "--color",
    "--message-format",
    "-Z",
    "--config",
    "--lockfile-path",
];

/// libtest options whose value is the next word.
const LIBTEST_VALUED: &[&str] = &[
    "--skip",
    "--test-threads",
    "--format",
    "--color",
    "--logfile",
    "-Z",
    "--shuffle-seed",
];

/// Where pytest's own arguments start: after a `pytest` / `py.test` word, or after `-m pytest`.
pub(super) fn pytest_args_start(argv: &[String]) -> Option<usize> {
    argv.iter().enumerate().find_map(|(i, word)| {
        let name = base_name(word);
        if name == "pytest" || name == "py.test" {
            // `-m pytest`: the module, after a Python; a bare `pytest`: the program or a
            // runner's argument (`uv run pytest`).
            Some(i + 1)
        } else {
            None
        }
    })
}

/// The words of `args` that are options or their values, the positional words left out.
fn options_only(args: &[String], valued: &[&str]) -> Vec<String> {
    let mut kept = Vec::with_capacity(args.len());
    let mut value_next = false;
    for word in args {
        if value_next {
            kept.push(word.clone());
            value_next = false;
        } else if word.starts_with('-') && word.len() > 1 {
            value_next = valued.contains(&word.as_str());
            kept.push(word.clone());
        }
    }
    kept
}

/// pytest narrowed to node ids: the command up to pytest, its options, then the ids.
pub(super) fn pytest(
    argv: &[String],
    tests: &[&TestOutcome],
) -> Option<Result<Vec<String>, SuiteError>> {
    let start = pytest_args_start(argv)?;
    let mut narrowed = argv[..start].to_vec();
    narrowed.extend(options_only(&argv[start..], PYTEST_VALUED));
    for test in tests {
        if !selectable_by_pytest(&test.id) {
            return Some(Err(SuiteError::NotSelectable {
                id: test.id.clone(),
            }));
        }
        if !narrowed[start..].contains(&test.id) {
            narrowed.push(test.id.clone());
        }
    }
    Some(Ok(narrowed))
}

/// A node id pytest can be given: `path::name...` or a file; not `path:line` (a skip reported
/// by location) and not an option.
fn selectable_by_pytest(id: &str) -> bool {
    if id.is_empty() || id.starts_with('-') {
        return false;
    }
    let path = id.split("::").next().unwrap_or(id);
    !path
        .rsplit_once(':')
        .is_some_and(|(_, line)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

/// Where node's `--test` flag is, when the program is node.
pub(super) fn node_test_flag(argv: &[String]) -> Option<usize> {
    let program = base_name(argv.first()?);
    if program != "node" && program != "nodejs" {
        return None;
    }
    argv.iter().position(|w| w == "--test")
}

/// node narrowed by name patterns: each test's own title anchored and escaped, right after
/// `--test`; the command's own name patterns left out.
pub(super) fn node(
    argv: &[String],
    tests: &[&TestOutcome],
) -> Option<Result<Vec<String>, SuiteError>> {
    let flag = node_test_flag(argv)?;
    let mut patterns: Vec<String> = Vec::new();
    for test in tests {
        let title = test.id.rsplit(" > ").next().unwrap_or(&test.id);
        let pattern = format!("--test-name-pattern=^{}$", escape_js_regex(title));
        if !patterns.contains(&pattern) {
            patterns.push(pattern);
        }
    }
    let mut narrowed: Vec<String> = Vec::with_capacity(argv.len() + patterns.len());
    let mut skip_next = false;
    for (i, word) in argv.iter().enumerate() {
        if skip_next {
            skip_next = false;
            continue;
        }
        if word == "--test-name-pattern" {
            skip_next = true;
            continue;
        }
        if word.starts_with("--test-name-pattern=") {
            continue;
        }
        narrowed.push(word.clone());
        if i == flag {
            narrowed.append(&mut patterns);
        }
    }
    Some(Ok(narrowed))
}

/// `text` as a JavaScript regular expression that matches it literally.
fn escape_js_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "\\^$.|?*+()[]{}/-".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Where cargo's `test` subcommand is (after a `+toolchain` and cargo's own options).
pub(super) fn cargo_test_at(argv: &[String]) -> Option<usize> {
    if base_name(argv.first()?) != "cargo" {
        return None;
    }
    let at = argv
        .iter()
        .skip(1)
        .position(|w| !w.starts_with('+') && !w.starts_with('-'))?
        + 1;
    (argv[at] == "test" || argv[at] == "t").then_some(at)
}

/// cargo test narrowed: the tests' targets, then libtest's exact filters after `--`.
pub(super) fn cargo(
    argv: &[String],
    tests: &[&TestOutcome],
) -> Option<Result<Vec<String>, SuiteError>> {
    let at = cargo_test_at(argv)?;
    let rest = &argv[at + 1..];
    let split = rest.iter().position(|w| w == "--").unwrap_or(rest.len());
    let (cargo_args, libtest_args) = (&rest[..split], rest.get(split + 1..).unwrap_or(&[]));
    let mut narrowed = argv[..=at].to_vec();
    let targets = target_flags(tests);
    let options = options_only(cargo_args, CARGO_VALUED);
    if targets.is_empty() {
        narrowed.extend(options);
    } else {
        // The tests' own targets replace the command's (cargo refuses a flag given twice).
        narrowed.extend(without_targets(&options));
        narrowed.extend(targets);
    }
    narrowed.push("--".into());
    narrowed.extend(options_only(libtest_args, LIBTEST_VALUED));
    if !narrowed.iter().skip(at).any(|w| w == "--exact") {
        narrowed.push("--exact".into());
    }
    for test in tests {
        let name = libtest_name(test).to_owned();
        if !narrowed.contains(&name) {
            narrowed.push(name);
        }
    }
    Some(Ok(narrowed))
}

/// cargo options with those that select targets (`--lib`, `--test NAME`, `--all-targets`, ...)
/// left out.
fn without_targets(options: &[String]) -> Vec<String> {
    const SWITCHES: &[&str] = &[
        "--lib",
        "--bins",
        "--tests",
        "--benches",
        "--examples",
        "--all-targets",
        "--doc",
    ];
    const VALUED: &[&str] = &["--test", "--bin", "--bench", "--example"];
    let mut kept = Vec::with_capacity(options.len());
    let mut skip_value = false;
    for word in options {
        if skip_value {
            skip_value = false;
        } else if VALUED.contains(&word.as_str()) {
            skip_value = true;
        } else if !SWITCHES.contains(&word.as_str())
            && !VALUED.iter().any(|v| word.starts_with(&format!("{v}=")))
        {
            kept.push(word.clone());
        }
    }
    kept
}

/// The name libtest knows a test by: its id without the `unittests::` or `path::` cargo put
/// before it.
fn libtest_name(test: &TestOutcome) -> &str {
    let id = test.id.as_str();
    match test.target.as_deref() {
        Some(target) if !target.starts_with("Doc-tests ") => id
            .strip_prefix("unittests::")
            .or_else(|| id.strip_prefix(target).and_then(|r| r.strip_prefix("::")))
            .unwrap_or(id),
        _ => id,
    }
}

/// cargo's flags selecting the targets of `tests`; none when a test's target is not known or
/// doc tests are mixed with other targets (cargo refuses `--doc` with other target flags).
fn target_flags(tests: &[&TestOutcome]) -> Vec<String> {
    let mut flags: Vec<Vec<String>> = Vec::new();
    for test in tests {
        let Some(flag) = test.target.as_deref().and_then(target_flag) else {
            return Vec::new();
        };
        if !flags.contains(&flag) {
            flags.push(flag);
        }
    }
    let doc = vec!["--doc".to_owned()];
    if flags.contains(&doc) && flags.len() > 1 {
        return Vec::new();
    }
    flags.concat()
}

/// The cargo flag of one target, from the path in its `Running` header: `src/lib.rs` is the
/// library, another file under `src/` a binary, `tests/NAME.rs` or `tests/NAME/main.rs` the
/// integration test NAME (benches and examples alike).
fn target_flag(target: &str) -> Option<Vec<String>> {
    if target.starts_with("Doc-tests ") {
        return Some(vec!["--doc".into()]);
    }
    let path = Path::new(target);
    if target.ends_with("src/lib.rs") {
        return Some(vec!["--lib".into()]);
    }
    let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
    let (kind, name) = match parts.as_slice() {
        [.., kind, name, "main.rs"] if is_kind(kind) => (*kind, *name),
        [.., kind, file] if is_kind(kind) => (*kind, file.strip_suffix(".rs")?),
        _ if parts.contains(&"src") => return Some(vec!["--bins".into()]),
        _ => return None,
    };
    let flag = match kind {
        "tests" => "--test",
        "benches" => "--bench",
        _ => "--example",
    };
    Some(vec![flag.into(), name.into()])
}

fn is_kind(folder: &str) -> bool {
    matches!(folder, "tests" | "benches" | "examples")
}
