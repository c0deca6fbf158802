//! Text others wrote, shown everywhere gatebench shows it: a report whose findings hold terminal
//! control sequences (a clipboard write, a window title, clear screen), Markdown that would forge a
//! heading and an image, characters XML and HTML forbid, three hundred findings and titles of
//! 100,000 characters; a fixture whose category holds the same. `run`, `explain`, `list` and
//! `check` print none of the sequences; `summary.md` gets no line of the report's; `junit.xml`
//! is well-formed, `report.html` holds no forbidden character and stays small; `results.json`
//! is JSON.

use std::path::Path;
use std::process::Command;

const ESC_TITLE: &str = "\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}1m";
const FORGED: &str =
    "x\n\n# FORGED: all thresholds met\n\n![p](https://evil.example/p.png) <img src=x>";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn gatebench(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_no_controls(what: &str, text: &str) {
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{9b}'),
        "{what} printed a control sequence: {text:?}"
    );
}

/// Parses XML to its end with quick-xml.
fn well_formed(xml: &str) -> Result<(), String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => return Ok(()),
            Ok(quick_xml::events::Event::Text(t)) => {
                t.decode().map_err(|e| e.to_string())?;
            }
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[test]
fn what_others_wrote_is_escaped_everywhere_it_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        &d.join("fixtures/g/fixture.yaml"),
        "id: g\ndescription: a golden\ncategory: golden\nbase: base\nhead:\n  overlay: head\nexpect:\n  verdict: pass\n",
    );
    write(&d.join("fixtures/g/base/README.md"), "readme\n");
    write(&d.join("fixtures/g/head/src/a.py"), "print(1)\n");
    write(
        &d.join("fixtures/o/fixture.yaml"),
        // YAML's own escapes: a raw control character is refused by the YAML reader.
        "id: o\ndescription: an omission\ncategory: \"cat\\e]52;c;ZWNobyBwd25lZA==\\a\\e]0;owned\\a\\e[2J\\x9b1m\\uFFFFx\\n\\n# FORGED: all thresholds met\\n\\n![p](https://evil.example/p.png) <img src=x>\"\nextends: g\nplant:\n  delete: [src/a.py]\nexpect:\n  verdict: fail\n  kind: code-ref-broken\n  locus:\n    - path: src/a.py\n",
    );
    let mut findings = vec![serde_json::json!({
        "title": format!("{ESC_TITLE}{FORGED}\u{FFFE}\u{FFFF}\u{1}"),
        "severity": 7,
        "description": "d".repeat(100_000),
    })];
    for i in 0..300 {
        findings.push(serde_json::json!({
            "title": format!("finding {i} {}", "t".repeat(100_000)),
            "severity": 7,
            "description": "",
        }));
    }
    let report = serde_json::json!({
        "schemaVersion": 1, "status": "ok", "error": null, "findings": findings,
        "overall": {"result": "issues-found"},
        "scope": {"depth": "light", "mode": "branch", "baseRef": "main", "mergeBase": null,
                  "headSha": null, "includedFiles": [], "excludedFiles": [], "files": [], "excluded": []},
        "knownFindings": null, "deferredToEpic": [],
        "triage": {"skillsRun": [], "skillsSkipped": [], "skills_run": [], "skills_skipped": []},
        "skillResults": [], "issues": [], "exerciserVerification": [],
        "customGates": {"exerciser": [], "review": []}
    });
    write(&d.join("answer/report.json"), &report.to_string());
    write(
        &d.join("scenarios/s.yaml"),
        &format!(
            "name: s\npipeline:\n  kind: command\n  command: 'cat {} > \"$GATEBENCH_REPORT\"'\n  sandbox: {{read: ['{}']}}\n",
            d.join("answer/report.json").display(),
            d.join("answer").display()
        ),
    );

    let (_, stdout, stderr) = gatebench(
        d,
        &[
            "run",
            "scenarios/s.yaml",
            "--fixtures",
            "fixtures",
            "--reports-dir",
            "reports",
            "--quiet",
        ],
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_no_controls("run", &stdout);
    assert_no_controls("run (stderr)", &stderr);
    let run = std::fs::read_dir(d.join("reports"))
        .unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"))
        .map(|e| e.unwrap().path())
        .find(|p| p.join("results.json").is_file())
        .unwrap_or_else(|| panic!("no run: {stdout}{stderr}"));

    let summary = std::fs::read_to_string(run.join("summary.md")).unwrap();
    for line in summary.lines() {
        assert!(!line.starts_with("# FORGED"), "a forged heading: {summary}");
        // Escaped, they are text: `\!\[p\](...)`, `\<img`.
        assert!(!line.contains("!["), "an image: {line}");
        assert!(
            !line.replace("\\<", "").contains("<img"),
            "an HTML tag: {line}"
        );
    }
    let junit = std::fs::read_to_string(run.join("junit.xml")).unwrap();
    well_formed(&junit).unwrap_or_else(|e| panic!("junit.xml: {e}"));
    assert!(!junit.contains('\u{FFFF}') && !junit.contains('\u{FFFE}'));
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        !html.contains('\u{FFFF}') && !html.contains('\u{1b}') && !html.contains('\u{1}'),
        "report.html holds a character HTML forbids"
    );
    // 301 findings of 100 KB each (a 30 MB report, under the 64 MiB cap): at most 50 shown, each text cut at 2,000 characters.
    assert!(
        html.len() < 2_000_000,
        "report.html is {} bytes",
        html.len()
    );
    assert!(html.contains("more finding(s) not shown"));
    serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(run.join("results.json")).unwrap(),
    )
    .unwrap();

    let (_, stdout, stderr) = gatebench(
        d,
        &[
            "explain",
            "o",
            "--fixtures",
            "fixtures",
            "--reports-dir",
            "reports",
        ],
    );
    assert_no_controls("explain", &format!("{stdout}{stderr}"));
    assert!(stdout.contains("\\x1b]52;c;"), "{stdout}");
    assert!(stdout.contains("more finding(s) not shown"), "{stdout}");
    let (_, stdout, stderr) = gatebench(d, &["list", "--fixtures", "fixtures"]);
    assert_no_controls("list", &format!("{stdout}{stderr}"));
    assert!(stdout.contains("cat\\x1b]52"), "{stdout}");

    // An error quoting what a fixture holds: an unknown key made of control sequences.
    write(
        &d.join("fixtures/g/fixture.yaml"),
        "id: g\ndescription: a golden\ncategory: golden\nbase: base\n\"\\e]0;owned\\a\\e[2J\": 1\nexpect:\n  verdict: pass\n",
    );
    let (code, stdout, stderr) = gatebench(
        d,
        &[
            "check",
            "--fixtures",
            "fixtures",
            "--scenarios",
            "scenarios",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_no_controls("check", &format!("{stdout}{stderr}"));
    assert!(stderr.contains("\\x1b]0;owned"), "{stderr}");
}
