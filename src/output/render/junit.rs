//! `junit.xml` (quick-junit), so any CI test viewer shows a run: one test suite per category, one
//! test case per fixture trial (`classname` = category, `name` = `fixture [trial]`), failures
//! carrying the reason; and a `thresholds` suite with one case per threshold. Written streaming:
//! each case is built and written in turn (in quick-junit's own layout), never the whole document
//! in memory.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

use crate::error::{Error, Result};
use crate::output::render::reported;
use crate::output::store::objects::Store;
use crate::output::store::results::{FixtureInfo, RunResults};
use crate::output::store::trial_logs;
use crate::score::outcome::Outcome;
use crate::score::record::TrialRecord;

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// How a trial's outcome counts in JUnit: `None` for a success, else a failure or an error.
pub fn kind(outcome: Outcome) -> Option<NonSuccessKind> {
    match outcome {
        Outcome::Detected | Outcome::Passed => None,
        Outcome::Error | Outcome::Timeout => Some(NonSuccessKind::Error),
        _ => Some(NonSuccessKind::Failure),
    }
}

/// The failure text: what was expected, what round 1 reported, and how the rounds went.
fn description(
    trial: &TrialRecord,
    fixture: Option<&FixtureInfo>,
    objects: Option<&Store>,
) -> String {
    let mut lines = Vec::new();
    if let Some(f) = fixture {
        lines.push(format!("planted: {}", f.description));
        lines.push(format!("expected: {}", f.expected_verdict.as_str()));
        lines.extend(
            reported::expected_lines(&f.expected_findings)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    if let Some(r) = reported::round_one(trial, objects) {
        match (r.verdict, &r.error) {
            (Some(v), _) => lines.push(format!(
                "round 1: {} with {} finding(s)",
                v.as_str(),
                r.total()
            )),
            (None, Some(e)) => lines.push(format!("round 1: no usable answer: {e}")),
            (None, None) => lines.push("round 1: no usable answer".into()),
        }
        lines.extend(r.findings.iter().map(|f| format!("  {}", f.line())));
        if r.unreadable > 0 {
            lines.push(format!("  ({} finding(s) could not be read)", r.unreadable));
        }
        if r.left_out > 0 {
            lines.push(format!("  ({} more finding(s) not shown)", r.left_out));
        }
    }
    for round in trial.rounds.iter().skip(1) {
        let verdict = round.verdict.map_or("no answer", |v| v.as_str());
        lines.push(format!("round {}: {verdict}", round.round));
    }
    lines.join("\n")
}

/// One trial as a test case (`name` = `fixture [trial]`, `classname` = category); `log` is the
/// trial's log folder, named in `system-out`.
pub fn case(
    trial: &TrialRecord,
    fixture: Option<&FixtureInfo>,
    log: Option<String>,
    objects: Option<&Store>,
) -> TestCase {
    let status = match kind(trial.outcome) {
        None => TestCaseStatus::success(),
        Some(kind) => {
            let mut status = TestCaseStatus::non_success(kind);
            status
                .set_type(trial.outcome.as_str())
                .set_message(xml(&format!(
                    "{}: {}",
                    trial.outcome.as_str(),
                    trial.reason
                )))
                .set_description(xml(&description(trial, fixture, objects)));
            status
        }
    };
    let mut case = TestCase::new(xml(&format!("{} [{}]", trial.fixture, trial.trial)), status);
    case.set_classname(xml(&trial.category))
        .set_time(ms(trial.duration_ms));
    let mut out: Vec<String> = fixture.map(|f| f.description.clone()).into_iter().collect();
    if let Some(dir) = log {
        out.push(format!("trial log: {dir}/ (relative to the run folder)"));
    }
    if !out.is_empty() {
        case.set_system_out(xml(&out.join("\n")));
    }
    case
}

/// Renders the run as JUnit XML.
pub fn render(results: &RunResults) -> Result<String> {
    render_linked(results, false)
}

/// Renders the run as JUnit XML; with `linked`, each case's `system-out` names its trial log
/// folder (`trials/<case>`, `trial_logs.rs`). The same bytes [`write`] streams into its file.
pub fn render_linked(results: &RunResults, linked: bool) -> Result<String> {
    let mut out = Vec::new();
    write_to(&mut out, results, linked)
        .map_err(|e| Error::Internal(format!("rendering junit.xml: {e}")))?;
    String::from_utf8(out).map_err(|e| Error::Internal(format!("rendering junit.xml: {e}")))
}

/// Writes the run as JUnit XML to `path` atomically, streamed into the file one test case at a
/// time; `linked` as for [`render_linked`].
pub fn write(path: &std::path::Path, results: &RunResults, linked: bool) -> Result<()> {
    crate::atomic::write_atomic_with(path, |w| write_to(w, results, linked))
}

/// A suite's counts, known before its cases are written (its opening tag carries them).
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    time: Option<Duration>,
}

impl Counts {
    fn add(&mut self, kind: Option<NonSuccessKind>) {
        self.tests += 1;
        match kind {
            Some(NonSuccessKind::Failure) => self.failures += 1,
            Some(NonSuccessKind::Error) => self.errors += 1,
            None => {}
        }
    }

    fn add_counts(&mut self, other: &Counts) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
    }
}

/// Writes the run as JUnit XML into `out`, one test case at a time: the counts first (one pass
/// over the trials' outcomes), then each case built, written and dropped in turn. The layout is
/// quick-junit's (`Report::serialize`): four-space indents, `time` in seconds with 3 decimals.
pub fn write_to(out: &mut dyn Write, results: &RunResults, linked: bool) -> io::Result<()> {
    // Each category's trials by their place in the run: read again one at a time when written.
    let mut by_category: BTreeMap<String, (Counts, Vec<usize>)> = BTreeMap::new();
    let mut time: BTreeMap<String, u64> = BTreeMap::new();
    for (i, t) in results.trials.iter().enumerate() {
        let (counts, trials) = by_category.entry(t.category.clone()).or_default();
        counts.add(kind(t.outcome));
        trials.push(i);
        *time.entry(t.category.clone()).or_default() += t.duration_ms;
    }
    for (category, (counts, _)) in by_category.iter_mut() {
        counts.time = Some(ms(time.get(category).copied().unwrap_or(0)));
    }
    let threshold_cases: Vec<TestCase> = results.thresholds.iter().map(threshold_case).collect();
    let mut thresholds = Counts::default();
    for c in &threshold_cases {
        thresholds.add(non_success(&c.status));
    }
    let mut total = Counts {
        time: Some(ms(results.duration_ms)),
        ..Counts::default()
    };
    for (counts, _) in by_category.values() {
        total.add_counts(counts);
    }
    total.add_counts(&thresholds);

    let mut w = Writer::new_with_indent(out, b' ', 4);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("testsuites");
    root.push_attribute((
        "name",
        xml(&format!("gatebench {}", results.scenario.name)).as_str(),
    ));
    root.extend_attributes([
        ("tests", total.tests.to_string().as_str()),
        ("skipped", "0"),
        ("failures", total.failures.to_string().as_str()),
        ("errors", total.errors.to_string().as_str()),
    ]);
    push_time(&mut root, total.time);
    w.write_event(Event::Start(root))?;
    for (category, (counts, trials)) in &by_category {
        write_suite_start(&mut w, category, counts, trials.is_empty())?;
        for t in trials.iter().filter_map(|i| results.trials.get(*i)) {
            let log = linked.then(|| {
                format!(
                    "{}/{}",
                    trial_logs::TRIALS,
                    trial_logs::case_of(results, &t)
                )
            });
            let case = case(
                &t,
                results.fixtures.find(&t.fixture).as_deref(),
                log,
                results.objects.as_ref(),
            );
            write_case(&mut w, &case)?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    }
    write_suite_start(
        &mut w,
        "thresholds",
        &thresholds,
        threshold_cases.is_empty(),
    )?;
    if !threshold_cases.is_empty() {
        for case in &threshold_cases {
            write_case(&mut w, case)?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    }
    w.write_event(Event::End(BytesEnd::new("testsuites")))?;
    w.write_event(Event::Eof)?;
    // quick-junit ends the document with a newline.
    w.write_indent()
}

/// A threshold as a test case (class `thresholds`): a failure when its bar is not met.
pub fn threshold_case(t: &crate::score::metrics::ThresholdResult) -> TestCase {
    let status = if t.met {
        TestCaseStatus::success()
    } else {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_type("threshold")
            .set_message(xml(&format!("{}: {} (bar {})", t.name, t.figure, t.bar)));
        s
    };
    let mut case = TestCase::new(xml(&t.name), status);
    case.set_classname("thresholds");
    case
}

/// Text as it can stand in XML 1.0: quick-junit's `XmlString` removes ANSI escapes and C0
/// control characters, and this every other character XML 1.0 forbids (U+FFFE, U+FFFF; a lone
/// surrogate cannot be in a Rust string). Every text a report, a fixture or a scenario supplies
/// goes through it before it reaches the document, so `junit.xml` is well-formed whatever they hold.
pub fn xml(text: &str) -> quick_junit::XmlString {
    let stripped = quick_junit::XmlString::new(text);
    if stripped.as_str().chars().all(xml_char) {
        return stripped;
    }
    quick_junit::XmlString::new(stripped.as_str().replace(|c| !xml_char(c), ""))
}

/// Whether XML 1.0 allows `c` in a document (its `Char` production).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn non_success(status: &TestCaseStatus) -> Option<NonSuccessKind> {
    match status {
        TestCaseStatus::NonSuccess { kind, .. } => Some(*kind),
        _ => None,
    }
}

fn push_time(tag: &mut BytesStart<'_>, time: Option<Duration>) {
    if let Some(time) = time {
        tag.push_attribute(("time", format!("{:.3}", time.as_secs_f64()).as_str()));
    }
}

/// A suite's opening tag (self-closing when it has no case, as quick-junit writes it).
fn write_suite_start<W: Write>(
    w: &mut Writer<W>,
    name: &str,
    counts: &Counts,
    empty: bool,
) -> io::Result<()> {
    let mut tag = BytesStart::new("testsuite");
    tag.extend_attributes([
        ("name", xml(name).as_str()),
        ("tests", counts.tests.to_string().as_str()),
        ("skipped", "0"),
        ("errors", counts.errors.to_string().as_str()),
        ("failures", counts.failures.to_string().as_str()),
    ]);
    push_time(&mut tag, counts.time);
    if empty {
        w.write_event(Event::Empty(tag))
    } else {
        w.write_event(Event::Start(tag))
    }
}

/// One test case, as quick-junit serializes it, for the parts [`case`] and the thresholds set:
/// name, classname, time, a failure or error with its message, type and description, and
/// `system-out`.
fn write_case<W: Write>(w: &mut Writer<W>, case: &TestCase) -> io::Result<()> {
    let mut tag = BytesStart::new("testcase");
    tag.push_attribute(("name", case.name.as_str()));
    if let Some(classname) = &case.classname {
        tag.push_attribute(("classname", classname.as_str()));
    }
    push_time(&mut tag, case.time);
    let failure = match &case.status {
        TestCaseStatus::NonSuccess {
            kind,
            message,
            ty,
            description,
            ..
        } => Some((kind, message, ty, description)),
        _ => None,
    };
    if failure.is_none() && case.system_out.is_none() {
        return w.write_event(Event::Empty(tag));
    }
    w.write_event(Event::Start(tag))?;
    if let Some((kind, message, ty, description)) = failure {
        let name = match kind {
            NonSuccessKind::Failure => "failure",
            NonSuccessKind::Error => "error",
        };
        let mut tag = BytesStart::new(name);
        if let Some(message) = message {
            tag.push_attribute(("message", message.as_str()));
        }
        if let Some(ty) = ty {
            tag.push_attribute(("type", ty.as_str()));
        }
        match description {
            Some(description) => {
                w.write_event(Event::Start(tag))?;
                w.write_event(Event::Text(BytesText::new(description.as_str())))?;
                w.write_event(Event::End(BytesEnd::new(name)))?;
            }
            None => w.write_event(Event::Empty(tag))?,
        }
    }
    if let Some(out) = &case.system_out {
        w.write_event(Event::Start(BytesStart::new("system-out")))?;
        w.write_event(Event::Text(BytesText::new(out.as_str())))?;
        w.write_event(Event::End(BytesEnd::new("system-out")))?;
    }
    w.write_event(Event::End(BytesEnd::new("testcase")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn trial(fixture: &str, category: &str, reason: &str) -> TrialRecord {
        serde_json::from_value(serde_json::json!({
            "fixture": fixture, "category": category, "golden": false, "trial": 0,
            "outcome": "false-pass", "reason": reason, "matchers": [], "rounds": [],
            "convergence": null, "commits": {}, "materialize_ms": 0, "duration_ms": 0,
            "work_dir": "", "kept_at": null
        }))
        .unwrap()
    }

    fn info(id: &str, category: &str, description: &str) -> FixtureInfo {
        serde_json::from_value(serde_json::json!({
            "id": id, "category": category, "description": description, "golden": "g",
            "expected_verdict": "fail", "expected_findings": [], "expected_rounds": null,
            "content_hash": ""
        }))
        .unwrap()
    }

    /// Parses `xml` to its end with quick-xml: an error is a document that is not well-formed
    /// (or holds a character XML 1.0 forbids, which quick-xml's unescaping and our check below
    /// catch).
    fn well_formed(xml: &str) -> std::result::Result<(), String> {
        if let Some(c) = xml.chars().find(|c| !xml_char(*c)) {
            return Err(format!("U+{:04X} is not an XML 1.0 character", c as u32));
        }
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut depth = 0i32;
        loop {
            match reader.read_event() {
                Ok(Event::Eof) => break,
                Ok(Event::Start(e)) => {
                    depth += 1;
                    for a in e.attributes() {
                        let a = a.map_err(|e| e.to_string())?;
                        a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                            .map_err(|e| e.to_string())?;
                    }
                }
                Ok(Event::Empty(e)) => {
                    for a in e.attributes() {
                        let a = a.map_err(|e| e.to_string())?;
                        a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                            .map_err(|e| e.to_string())?;
                    }
                }
                Ok(Event::End(_)) => depth -= 1,
                Ok(Event::Text(t)) => {
                    t.decode().map_err(|e| e.to_string())?;
                }
                Ok(_) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        (depth == 0)
            .then_some(())
            .ok_or_else(|| "unbalanced".to_owned())
    }

    /// One suite holding one case, written as `write_to` writes them, from texts others supply.
    fn document(fixture: &str, category: &str, reason: &str, description: &str) -> String {
        let t = trial(fixture, category, reason);
        let f = info(fixture, category, description);
        let case = case(&t, Some(&f), Some(format!("trials/{fixture}")), None);
        let mut out = Vec::new();
        let mut w = Writer::new_with_indent(&mut out, b' ', 4);
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
            .unwrap();
        let counts = Counts {
            tests: 1,
            failures: 1,
            ..Counts::default()
        };
        write_suite_start(&mut w, category, &counts, false).unwrap();
        write_case(&mut w, &case).unwrap();
        w.write_event(Event::End(BytesEnd::new("testsuite")))
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_characters_xml_forbids_are_dropped() {
        // Was: U+FFFE and U+FFFF passed quick-junit's filter and made junit.xml not well-formed.
        let xml = document("f", "cat\u{FFFF}", "title \u{FFFE}\u{1}\u{1b}[2J", "d\u{0}");
        well_formed(&xml).unwrap();
        assert!(xml.contains("name=\"cat\""), "{xml}");
    }

    /// Any text, with the characters that break XML (controls, noncharacters, markup) common.
    fn text() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            4 => any::<char>(),
            1 => Just('\u{FFFE}'),
            1 => Just('\u{FFFF}'),
            1 => proptest::char::range('\u{0}', '\u{1f}'),
            1 => proptest::char::range('\u{7f}', '\u{9f}'),
            1 => prop::sample::select(vec!['<', '>', '&', '"', '\'', ']']),
        ];
        prop::collection::vec(c, 0..40).prop_map(String::from_iter)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Whatever a report, a fixture or a scenario holds (any Unicode scalar values, controls
        /// and noncharacters included), junit.xml is well-formed.
        #[test]
        fn junit_xml_is_well_formed_whatever_the_texts(
            fixture in text(),
            category in text(),
            reason in text(),
            description in text(),
        ) {
            let xml = document(&fixture, &category, &reason, &description);
            prop_assert!(well_formed(&xml).is_ok(), "{:?}\n{}", well_formed(&xml), xml);
        }
    }
}
