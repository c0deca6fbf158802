//! Building the pipeline a scenario names: the one place that knows every implementation.

use std::path::Path;

use crate::corpus::scenario::{Depth, PipelineKind, PipelineSpec, BUILTIN_DEEP};
use crate::pipeline::builtin::{gate_kind_rules, InProcess};
use crate::pipeline::command::CommandPipeline;
use crate::pipeline::round::Pipeline;
use crate::score::trial_score::Scoring;
use crate::score::typing::KindMap;

/// Builds the pipeline a scenario names. Relative paths in a command are resolved against
/// `scenario_dir`.
pub fn from_spec(spec: &PipelineSpec, scenario_dir: &Path) -> Box<dyn Pipeline> {
    match spec {
        PipelineSpec::Command(command) => Box::new(CommandPipeline::new(command, scenario_dir)),
        PipelineSpec::Builtin { depth } => Box::new(InProcess {
            name: match depth {
                Depth::Light => "builtin",
                Depth::Deep => BUILTIN_DEEP,
            },
            gate: gatebench_gate::run_gate,
            kinds: gate_kind_rules(),
            depth: *depth,
        }),
        PipelineSpec::Legacy => Box::new(InProcess {
            name: "legacy",
            gate: gatebench_gate::legacy::run_legacy,
            // The legacy checker's findings say what document is wrong, not what is omitted:
            // it has no mapping, so none of its findings is typed.
            kinds: Vec::new(),
            depth: gatebench_gate::Depth::Light,
        }),
    }
}

/// How a pipeline's trials are scored: its taxonomy mapping, and the fixtures' reference-gate
/// matchers for the built-in gate only.
pub fn scoring(pipeline: &dyn Pipeline) -> Scoring {
    Scoring {
        // Every pattern was compiled when the scenario was loaded, and the gate's table is tested.
        kinds: KindMap::new(&pipeline.kind_rules()).unwrap_or_default(),
        gate_matchers: PipelineKind::of_name(pipeline.name()) == Some(PipelineKind::Builtin),
    }
}
