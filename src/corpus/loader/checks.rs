//! The checks a fixture file gets while loading that a schema cannot say: its id, category and
//! expectation (`common_checks`), its locus entries and paths, and every placeholder of every
//! layer and fix.

use std::collections::BTreeMap;
use std::sync::Arc;

use regex::Regex;

use crate::corpus::loader::compose::{Ctx, FixState, States};
use crate::corpus::loader::placeholder::{self, Stage};
use crate::corpus::model::corpus::{Expectation, Matcher};
use crate::corpus::model::files::Files;
use crate::corpus::model::fixture::{ExpectedRounds, FindingMatcher, FixtureFile, LocusEntry};
use crate::corpus::model::paths::check_repo_path;
use crate::corpus::taxonomy::Tier;
use crate::error::Error;

/// `pattern` compiled, once per distinct pattern in the process, and shared: a compiled regex
/// holds kilobytes (and a clone of one a cache pool of its own), and fixtures generated or copied
/// from one another repeat their patterns.
fn compiled(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    static COMPILED: std::sync::OnceLock<std::sync::Mutex<BTreeMap<String, Arc<Regex>>>> =
        std::sync::OnceLock::new();
    let cache = COMPILED.get_or_init(Default::default);
    if let Some(re) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(re);
    }
    let re = Arc::new(Regex::new(pattern)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(pattern.to_owned(), re.clone());
    }
    Ok(re)
}

pub(crate) fn common_checks(ctx: &Ctx, f: &FixtureFile) -> Result<Expectation, Error> {
    if !crate::ids::is_fixture_id(&f.id) {
        return Err(ctx.err(
            "id",
            &f.id,
            format!(
                "fixture id `{}` must be lowercase letters, digits and dashes",
                f.id
            ),
        ));
    }
    if f.category.trim().is_empty() || f.category == "~" || f.category == "null" {
        return Err(ctx.err(
            "category",
            "category",
            "`category` must name a category: not empty, not null (`~`)",
        ));
    }
    check_tier(ctx, f)?;
    let mut findings = Vec::with_capacity(f.expect.findings.len());
    for m in &f.expect.findings {
        if *m == FindingMatcher::default() {
            return Err(ctx.err("findings", "findings", "a finding matcher needs at least one of validator, requirement, obligation, path, pattern"));
        }
        if let Some(path) = &m.path {
            check_repo_path(path).map_err(|e| ctx.err("path", path, e))?;
        }
        let pattern = match &m.pattern {
            Some(p) => Some(
                compiled(p).map_err(|e| ctx.err("pattern", p, format!("invalid pattern: {e}")))?,
            ),
            None => None,
        };
        findings.push(Matcher {
            spec: m.clone(),
            pattern,
        });
    }
    for entry in &f.expect.locus {
        check_locus_entry(ctx, entry)?;
    }
    let mut last = 0;
    for fix in &f.fixes {
        if fix.after_round <= last {
            return Err(ctx.err(
                "after_round",
                &fix.after_round.to_string(),
                "fixes must be listed by increasing `after_round`, starting at 1",
            ));
        }
        last = fix.after_round;
        if fix.overlay.is_none() && fix.delete.is_empty() {
            return Err(ctx.err(
                "after_round",
                &fix.after_round.to_string(),
                "a fix needs an overlay or deletions",
            ));
        }
    }
    if let (Some(ExpectedRounds::After(n)), true) = (f.expect.rounds, f.fixes.is_empty()) {
        if n > 1 {
            return Err(ctx.err(
                "rounds",
                &n.to_string(),
                format!(
                    "`rounds: {n}` expects convergence after fixes, but the fixture has no `fixes`"
                ),
            ));
        }
    }
    Ok(Expectation {
        verdict: f.expect.verdict,
        kind: f.expect.kind,
        locus: f.expect.locus.clone(),
        findings,
        rounds: f.expect.rounds,
    })
}

/// `signal` goes with `tier: semantic`, which needs it; a golden plants nothing, so it is
/// `ledger`; a golden's `suite` names a command and a time limit of a second or more.
fn check_tier(ctx: &Ctx, f: &FixtureFile) -> Result<(), Error> {
    let golden = f.extends.is_none();
    match (f.tier, f.signal) {
        (Tier::Semantic, _) if golden => Err(ctx.err(
            "tier",
            "semantic",
            "a golden plants nothing: it is `tier: ledger` (leave `tier` out)",
        )),
        (Tier::Semantic, None) => Err(ctx.err(
            "tier",
            "semantic",
            "`tier: semantic` needs `signal: loud` (the golden's own test suite fails on the \
             fixture) or `signal: silent` (it stays green)",
        )),
        (Tier::Ledger, Some(signal)) => Err(ctx.err(
            "signal",
            signal.as_str(),
            format!(
                "`signal: {}` goes with `tier: semantic` only: a ledger omission has no test-suite \
                 signal",
                signal.as_str()
            ),
        )),
        _ => Ok(()),
    }?;
    let Some(suite) = &f.suite else {
        return Ok(());
    };
    if suite.command.trim().is_empty() {
        return Err(ctx.err(
            "command",
            "command",
            "`suite.command` must name the command that runs the golden's test suite",
        ));
    }
    if suite.timeout_seconds == 0 {
        return Err(ctx.err(
            "timeout_seconds",
            "0",
            "`suite.timeout_seconds` must be 1 or more",
        ));
    }
    Ok(())
}

/// One locus entry names exactly one place; lines go with a path and read `[START, END]`.
fn check_locus_entry(ctx: &Ctx, entry: &LocusEntry) -> Result<(), Error> {
    let named = [
        entry.path.is_some(),
        entry.requirement.is_some(),
        entry.obligation.is_some(),
        entry.task.is_some(),
    ]
    .into_iter()
    .filter(|b| *b)
    .count();
    let shown = entry.describe();
    if named != 1 {
        return Err(ctx.err(
            "locus",
            "locus",
            format!("a locus entry names exactly one of path, requirement, obligation or task (`{shown}`)"),
        ));
    }
    if let Some(path) = &entry.path {
        check_repo_path(path).map_err(|e| ctx.err("path", path, e))?;
    }
    for id in [&entry.requirement, &entry.obligation, &entry.task]
        .into_iter()
        .flatten()
    {
        if id.trim().is_empty() || id.chars().any(char::is_whitespace) {
            return Err(ctx.err("locus", id, format!("`{id}` is not an id")));
        }
    }
    match (entry.lines, &entry.path) {
        (Some(_), None) => Err(ctx.err("lines", "lines", "`lines` goes with a `path`")),
        (Some([start, end]), Some(path)) if start == 0 || end < start => Err(ctx.err(
            "lines",
            "lines",
            format!("`lines` of {path} must be [START, END] with 1 <= START <= END"),
        )),
        _ => Ok(()),
    }
}

/// A locus path is a file of the repository the fixture materializes, or one its golden had (a
/// deleted file is a locus when its absence is the omission); its lines exist in the file.
pub(crate) fn check_locus_paths(
    ctx: &Ctx,
    locus: &[LocusEntry],
    all: &[&States],
) -> Result<(), Error> {
    let layers: Vec<&Files> = all
        .iter()
        .flat_map(|states| {
            [
                states.unstaged.as_ref(),
                states.staged.as_ref(),
                Some(&states.head),
                Some(&states.base),
            ]
        })
        .flatten()
        .collect();
    for entry in locus {
        let Some(path) = &entry.path else { continue };
        let Some(content) = layers.iter().find_map(|files| files.get(path)) else {
            return Err(ctx.err(
                "path",
                path,
                format!("locus path {path} is in no layer of the fixture or its golden"),
            ));
        };
        if let Some([_, end]) = entry.lines {
            let count =
                content.split(|b| *b == b'\n').count() as u64 - u64::from(content.ends_with(b"\n"));
            if end > count {
                return Err(ctx.err(
                    "path",
                    path,
                    format!("locus lines of {path} end at {end}, past its {count} lines"),
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn check_placeholders(
    ctx: &Ctx,
    states: &States,
    fixes: &[FixState],
) -> Result<(), Error> {
    let has = |s: Stage| match s {
        Stage::Base | Stage::Head => true,
        Stage::Staged => states.staged.is_some(),
        Stage::Unstaged => states.unstaged.is_some(),
        Stage::Fix(n) => fixes.len() >= n as usize,
    };
    let mut all: Vec<(Stage, &Files)> =
        vec![(Stage::Base, &states.base), (Stage::Head, &states.head)];
    if let Some(s) = &states.staged {
        all.push((Stage::Staged, s));
    }
    if let Some(s) = &states.unstaged {
        all.push((Stage::Unstaged, s));
    }
    for (i, fix) in fixes.iter().enumerate() {
        all.push((Stage::Fix(i as u32 + 1), &fix.files));
    }
    let mut stand_in = placeholder::Known::default();
    for (stage, _) in &all {
        let id = "0".repeat(40);
        stand_in.commits.insert(*stage, id.clone());
        stand_in.trees.insert(*stage, id.clone());
        stand_in.source_trees.insert(*stage, id.clone());
        stand_in
            .diff_sha256s
            .insert(*stage, format!("sha256:{}", "0".repeat(64)));
    }
    for (stage, files) in all {
        if !files
            .values()
            .any(|c| c.windows(12).any(|w| w == b"{{gatebench:"))
        {
            continue;
        }
        for (path, content) in files {
            let Ok(text) = std::str::from_utf8(content) else {
                continue;
            };
            if !text.contains("{{gatebench:") {
                continue;
            }
            placeholder::check_file(stage, path, text, files, &has).map_err(
                |(line, message)| {
                    ctx.err_at(
                        None,
                        format!(
                            "in `{path}` (line {line}) of layer `{}`: {message}",
                            stage.name()
                        ),
                    )
                },
            )?;
        }
        // Resolve with stand-in ids, as materializing will with real ones: a cycle or a too-deep
        // `sha256:` chain is found here, by `check`, not first by `run`.
        placeholder::resolve(files, &Files::new(), &stand_in).map_err(|message| {
            ctx.err_at(None, format!("in layer `{}`: {message}", stage.name()))
        })?;
    }
    Ok(())
}
