//! What each fuzz target feeds its input to; shared by the libFuzzer targets (`fuzz_targets/`) and
//! the stable replay test (`tests/it/fuzz_corpus.rs`), so both exercise the same functions.
// Each libFuzzer binary uses one target only.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gatebench::corpus::loader::placeholder::{self, Known, Stage};
use gatebench::corpus::loader::yaml;
use gatebench::corpus::model::fixture::FixtureFile;
use gatebench::corpus::scenario::Scenario;
use gatebench_gate::ledger::{
    ApprovalReceipt, ConvergenceReport, EvaluationReceipt, ImplementationReceipt, LedgerFinding,
    PipelineState, Requirements, ReviewReceipt, TaskState, TestReceipt, Traceability,
};
use gatebench_gate::load::{parse_front_matter, parse_json, TextFile};

/// What a target does with one input.
pub type Target = fn(&[u8]);

/// The targets by name, for the replay test.
pub const TARGETS: [(&str, Target); 6] = [
    ("fixture_yaml", fixture_yaml),
    ("scenario", scenario),
    ("report_v1", report_v1),
    ("placeholder", placeholder),
    ("results", results),
    ("ledger", ledger),
];

/// A fixtures folder holding a valid golden `g` (base and head trees) and the fuzzed fixture
/// `f/fixture.yaml`, which may extend `g` or read the trees of its own folder.
fn corpus_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder").keep();
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "g/fixture.yaml",
            "id: g\ndescription: d\ncategory: golden\nbase: base\nhead:\n  overlay: head\nexpect:\n  verdict: pass\n",
        );
        write("g/base/README.md", "readme\n");
        write("g/head/src/a.py", "print(1)\n");
        write("f/base/README.md", "{{gatebench:sha256:src/a.py}}\n");
        write("f/head/src/a.py", "print(2)\n");
        write("f/head/specs/x/r.json", "{{gatebench:source-tree}}\n");
        dir
    })
}

/// fixture.yaml: strict parsing, then the whole loader (layers, paths, placeholders) on it.
pub fn fixture_yaml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = yaml::parse::<FixtureFile>(Path::new("fixture.yaml"), text);
    }
    let dir = corpus_dir();
    std::fs::write(dir.join("f/fixture.yaml"), data).expect("write the fuzzed fixture.yaml");
    let _ = gatebench::corpus::load(dir);
}

/// A scenario file: strict parsing and every check `Scenario::load` makes.
pub fn scenario(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Scenario::parse(Path::new("scenario.yaml"), text);
    }
}

/// A verify report v1: JSON, schema and consistency checks.
pub fn report_v1(data: &[u8]) {
    let _ = gatebench_report::check::parse(data);
}

/// The placeholder scanner, checker and resolver over a few files cut from the input at NUL
/// bytes (the first piece names nothing; pieces are files `a`, `b`, `specs/x/r`, `src/c`).
pub fn placeholder(data: &[u8]) {
    let names = ["a", "b", "specs/x/r", "src/c"];
    let files: gatebench::corpus::Files = data
        .split(|b| *b == 0)
        .zip(names)
        .map(|(content, name)| (name.to_owned(), gatebench::corpus::Blob::from(content)))
        .collect();
    for (path, content) in &files {
        if let Ok(text) = std::str::from_utf8(content) {
            let _ = placeholder::scan(text);
            let _ = placeholder::check_file(Stage::Head, path, text, &files, &|_| true);
        }
    }
    let mut known = Known::default();
    known.commits.insert(Stage::Base, "0".repeat(40));
    known.trees.insert(Stage::Base, "1".repeat(40));
    let _ = placeholder::resolve(&files, &gatebench::corpus::Files::new(), &known);
}

/// A results.json file.
pub fn results(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gatebench::output::store::results::parse(Path::new("results.json"), text);
    }
}

/// The reference gate's public ledger parsers: the first byte picks the file kind, the rest is
/// its text. (Whole-feature loading, `load::load_feature`, needs a git repository view and is
/// reached through these parsers, which it calls for every file.)
pub fn ledger(data: &[u8]) {
    let Some((kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let file = TextFile {
        path: "specs/x/file".into(),
        text: text.to_owned(),
    };
    match kind % 16 {
        0 => drop(parse_json::<Requirements>(&file)),
        1 => drop(parse_json::<Traceability>(&file)),
        2 => drop(parse_json::<TaskState>(&file)),
        3 => drop(parse_json::<ImplementationReceipt>(&file)),
        4 => drop(parse_json::<ReviewReceipt>(&file)),
        5 => drop(parse_json::<TestReceipt>(&file)),
        6 => drop(parse_json::<EvaluationReceipt>(&file)),
        7 => drop(parse_json::<ApprovalReceipt>(&file)),
        8 => drop(parse_json::<LedgerFinding>(&file)),
        9 => drop(parse_json::<ConvergenceReport>(&file)),
        10 => drop(parse_json::<PipelineState>(&file)),
        11 => drop(parse_front_matter(&file)),
        12 => drop(gatebench_gate::verification_loop::loop_config::parse(text)),
        13 => drop(gatebench_gate::workflow::parse_workflow(text)),
        14 => drop(gatebench_gate::validators::refs::parse_reference(text)),
        _ => {
            let _ = file.line_of_json(text);
        }
    }
}
