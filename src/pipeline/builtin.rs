//! The in-process pipelines: the reference gate (`builtin`) and the legacy document-style checker
//! (`legacy`), both from the `gatebench-gate` crate.

use std::path::Path;

use gatebench_gate::check::Group;
use gatebench_gate::{Check, GateOptions};
use gatebench_report::Report;

use crate::corpus::scenario::KindRule;
use crate::corpus::taxonomy::Kind;
use crate::pipeline::round::{Pipeline, RoundInput, RoundOutput, RoundRun};

/// The reference gate's mapping onto the taxonomy, the same shape a scenario gives for an external
/// verifier (its findings are typed by the same code as anyone's): one rule per rule of the gate's
/// registry (`gatebench_gate::check`), matching a finding's `rule` exactly. A rule whose kind is
/// not a taxonomy id is left out; a test says there is none.
pub fn gate_kind_rules() -> Vec<KindRule> {
    Check::all_rules()
        .filter_map(|rule| {
            Some(KindRule {
                kind: Kind::from_id(rule.kind)?,
                class: None,
                validator: None,
                rule: Some(format!("^{}$", regex::escape(&rule.id()))),
                title: None,
                description: None,
            })
        })
        .collect()
}

/// The first and last line of the generated section of `docs/TAXONOMY.md`.
pub const TAXONOMY_MAPPING_MARKERS: (&str, &str) = (
    "<!-- generated from crates/gate/src/check.rs: GATEBENCH_BLESS=1 cargo test --lib taxonomy_page -->",
    "<!-- end of the generated section -->",
);

/// The reference gate's mapping as `docs/TAXONOMY.md` shows it, rendered from the registry: one
/// row a check (group, severity, class), with each of its rules and the kind it reports.
pub fn taxonomy_mapping_markdown() -> String {
    use strum::IntoEnumIterator;
    let count = |group| Check::in_group(group).count();
    let mut out = format!(
        "{}\n\n{} checks and {} rules: {} validators ({} required by [the Loom plan](CONCEPTS.md#loom-required-validators), {} on the \
         detail ledger, {} on the pipeline configuration, {} independent recomputations, {} of deep \
         mode that run the tests) and {} checks of the verification loop, the delivery-documents \
         gate and skein-check.\n\n\
         | check | group | severity | class | rules: `rule` → kind |\n|---|---|---|---|---|\n",
        TAXONOMY_MAPPING_MARKERS.0,
        Check::iter().count(),
        Check::all_rules().count(),
        Check::validators().count(),
        count(Group::Required),
        count(Group::Ledger),
        count(Group::Pipeline),
        count(Group::Independent),
        count(Group::Deep),
        count(Group::Loop),
    );
    for check in Check::iter() {
        let spec = check.spec();
        let rules: Vec<String> = spec
            .rules
            .iter()
            .map(|rule| format!("`{}` → `{}`", rule.name, rule.kind))
            .collect();
        out.push_str(&format!(
            "| `{}` | {:?} | {} | {} | {} |\n",
            check.as_str(),
            spec.group,
            spec.severity,
            spec.class.as_str(),
            rules.join("<br>")
        ));
    }
    out.push('\n');
    out.push_str(TAXONOMY_MAPPING_MARKERS.1);
    out
}

/// A gate that runs inside this process. Its report goes through the same checks as any
/// external pipeline's: gatebench does not trust its own gate more than anyone else's.
pub struct InProcess {
    pub name: &'static str,
    pub gate: fn(&Path, &GateOptions) -> Report,
    /// How its findings map onto the taxonomy.
    pub kinds: Vec<KindRule>,
    /// How far the gate goes.
    pub depth: gatebench_gate::Depth,
}

impl Pipeline for InProcess {
    fn name(&self) -> &str {
        self.name
    }

    fn kind_rules(&self) -> Vec<KindRule> {
        self.kinds.clone()
    }

    fn run_round(&self, input: &RoundInput<'_>) -> RoundRun {
        // The repository is data from a fixture: the commands it declares run sandboxed.
        let options = GateOptions {
            base_ref: input.base_ref.to_owned(),
            sandbox_commands: true,
            pinned: Some(input.pinned.clone()),
            depth: self.depth,
        };
        // A read or write the machine refused inside the gate (no space, a file size limit, too
        // many open files, no memory) makes the round an error: the verdict the gate gave then
        // would be the machine's (a full disk made a golden a false alarm; too few descriptors
        // turned FAILs into BLOCKED).
        let (report, faults) =
            gatebench_gate::fault::collect(|| (self.gate)(input.work_dir, &options));
        if let Some(first) = faults.first() {
            return RoundRun {
                output: RoundOutput::Error(format!(
                    "the machine failed the built-in gate ({} environment fault(s)), so its \
                     verdict is not the repository's: {first}",
                    faults.len()
                )),
                process: None,
                report_file: None,
            };
        }
        let output = match serde_json::to_value(&report) {
            Ok(value) => match gatebench_report::check::check_value(value) {
                Ok((report, value)) => RoundOutput::Report(Box::new(report), value),
                Err(reason) => RoundOutput::Error(reason.to_string()),
            },
            Err(e) => RoundOutput::Error(format!("the report could not be serialized: {e}")),
        };
        RoundRun {
            output,
            process: None,
            report_file: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::typing::KindMap;

    fn finding(rule: &str, title: &str) -> gatebench_report::Finding {
        let validator = rule.split('/').next().unwrap();
        serde_json::from_value(serde_json::json!({
            "title": title, "severity": 9, "description": "", "validator": validator, "rule": rule,
        }))
        .unwrap()
    }

    /// Every check of the gate's registry has a rule, every rule's kind is a taxonomy kind, and a
    /// finding raised under a rule is typed as that rule's kind whatever its title says: a check
    /// without a mapping, or a mapping to no kind, fails here.
    #[test]
    fn every_gate_check_and_rule_maps_to_a_kind_by_its_rule_not_its_title() {
        use strum::IntoEnumIterator;
        let map = KindMap::new(&gate_kind_rules()).unwrap();
        for check in Check::iter() {
            assert!(
                !check.spec().rules.is_empty(),
                "{} has no rule",
                check.as_str()
            );
        }
        let mut count = 0;
        for rule in Check::all_rules() {
            let kind = Kind::from_id(rule.kind)
                .unwrap_or_else(|| panic!("{}: `{}` is not a taxonomy kind", rule.id(), rule.kind));
            assert_eq!(
                map.kind_of(&finding(&rule.id(), "anything")),
                Some(kind),
                "{}",
                rule.id()
            );
            count += 1;
        }
        assert_eq!(gate_kind_rules().len(), count);
        assert_eq!(
            map.kind_of(&finding(
                "ledger-schema/file-missing",
                "specs/f/requirements.json: expected value"
            )),
            Some(Kind::LedgerFileMissing)
        );
        // A rule the registry does not have, or a finding without a rule, is not typed.
        assert_eq!(
            map.kind_of(&finding("ledger-schema/no-such-rule", "x")),
            None
        );
        assert_eq!(map.kind_of(&finding("ledger-schema", "x is missing")), None);
    }

    /// The mapping section of docs/TAXONOMY.md is the registry's, rendered: a check or rule added,
    /// or a kind changed, without the page regenerated fails here (`GATEBENCH_BLESS=1` rewrites it).
    #[test]
    fn the_taxonomy_page_shows_the_gate_mapping_of_the_registry() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/TAXONOMY.md");
        let page = std::fs::read_to_string(&path).unwrap();
        let (start, end) = TAXONOMY_MAPPING_MARKERS;
        let from = page
            .find(start)
            .expect("docs/TAXONOMY.md has no generated section");
        let to = page[from..]
            .find(end)
            .expect("the generated section has no end")
            + from
            + end.len();
        let updated = format!(
            "{}{}{}",
            &page[..from],
            taxonomy_mapping_markdown(),
            &page[to..]
        );
        if std::env::var_os("GATEBENCH_BLESS").is_some() {
            std::fs::write(&path, &updated).unwrap();
            return;
        }
        if let Some((written, generated)) = page
            .lines()
            .zip(updated.lines())
            .find(|(written, generated)| written != generated)
            .or((page != updated).then_some(("(the page's end)", "(the generated end)")))
        {
            panic!(
                "docs/TAXONOMY.md's mapping section differs from the gate's registry; regenerate \
                 it with `GATEBENCH_BLESS=1 cargo test --lib taxonomy_page`. The first line that \
                 differs:\n  page:      {written}\n  generated: {generated}"
            );
        }
    }

    /// In a child process (the test binary run again for this one test): materializes the loop
    /// golden `loop-wordcount`, then lowers a limit (`nofile`: no descriptor left to open;
    /// `fsize`: no byte may be written, SIGXFSZ ignored so a write fails with EFBIG) and runs
    /// the built-in gate's round, printing what it came to.
    fn child_round(fault: &str) {
        let corpus =
            crate::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")).unwrap();
        let fixture = corpus.get("loop-wordcount").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let m = crate::repo::materialize::materialize(fixture, &dir.path().join("r")).unwrap();
        let pipeline = crate::pipeline::select::from_spec(
            &crate::corpus::scenario::PipelineSpec::builtin(),
            Path::new("."),
        );
        let input = RoundInput {
            work_dir: &m.work_dir,
            repo_dir: &m.repo_dir,
            case_id: "c",
            round: 1,
            trial: 0,
            base_ref: "main",
            scratch_dir: scratch.path(),
            pinned: &m.pinned,
        };
        // SAFETY: setrlimit and signal on this process, which only runs this test.
        unsafe {
            match fault {
                "nofile" => {
                    // The lowest descriptor not open: every one below it is, so none is left.
                    let lowest = (0..1024).find(|fd| libc::fcntl(*fd, libc::F_GETFD) == -1);
                    let n = lowest.unwrap() as libc::rlim_t;
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
                    limit.rlim_cur = n;
                    assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
                }
                "fsize" => {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit), 0);
                    limit.rlim_cur = 0;
                    assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
                }
                _ => unreachable!(),
            }
        }
        let out = match pipeline.run_round(&input).output {
            RoundOutput::Error(e) => format!("error: {e}"),
            RoundOutput::Timeout(e) => format!("timeout: {e}"),
            RoundOutput::Report(r, _) => format!(
                "verdict: {:?} {:?}",
                r.overall,
                r.findings
                    .iter()
                    .map(|f| &f.description)
                    .collect::<Vec<_>>()
            ),
        };
        // Written whole with one system call: no file is opened, no descriptor needed.
        let line = format!("ROUND {out}\n");
        unsafe { libc::write(1, line.as_ptr().cast(), line.len()) };
    }

    /// A fault of the machine inside a built-in round (too few file descriptors, a file size limit
    /// standing for a full disk) is the round's error, never a verdict: on main the first gave
    /// BLOCKED (an omission "caught") and the second FAIL on a golden (a false alarm).
    #[test]
    fn a_machine_fault_inside_the_builtin_gate_is_an_error_not_a_verdict() {
        if let Ok(fault) = std::env::var("GATEBENCH_TEST_FAULT") {
            child_round(&fault);
            return;
        }
        for fault in ["nofile", "fsize"] {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "pipeline::builtin::tests::a_machine_fault_inside_the_builtin_gate_is_an_error_not_a_verdict",
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env("GATEBENCH_TEST_FAULT", fault)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            // The test harness's "test ... " may stand before it on its line.
            let line = stdout
                .lines()
                .find_map(|l| l.find("ROUND ").map(|at| &l[at..]))
                .unwrap_or_else(|| {
                    panic!(
                        "{fault}: {stdout}\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                });
            assert!(
                line.starts_with("ROUND error: the machine failed the built-in gate"),
                "{fault}: {line}"
            );
        }
    }
}
