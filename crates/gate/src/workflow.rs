//! `templates/workflow.yaml`: the declared pipeline, the JSON Schema generated from it
//! (`config/pipeline.schema.json`), and the `workflow-drift` checks between them and the gate.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::check::rules::*;
use crate::check::{Check, Group};
use crate::finding::GateFinding;
use crate::ledger::Workflow;
use crate::load::{quoted, FeatureLedger, TextFile};
use crate::repo::RepoView;

/// Where the workflow lives, relative to the repository root.
pub const WORKFLOW_PATH: &str = "templates/workflow.yaml";
/// Where the schema generated from the workflow is committed.
pub const SCHEMA_PATH: &str = "config/pipeline.schema.json";

/// Parses a workflow; the error names line and column.
pub fn parse_workflow(workflow_yaml: &str) -> Result<Workflow, (String, Option<(u64, u64)>)> {
    yaml_serde::from_str::<Workflow>(workflow_yaml).map_err(|error| {
        let position = error
            .location()
            .map(|location| (location.line() as u64, location.column() as u64));
        (error.to_string(), position)
    })
}

/// The JSON Schema `config/pipeline.schema.json` must equal for this workflow: a deterministic
/// document that describes `pipeline.state.json` under the declared steps and records the
/// validators each step declares and the required reviewers.
pub fn workflow_schema(workflow_yaml: &str) -> Result<Value, String> {
    let workflow = parse_workflow(workflow_yaml)
        .map_err(|(message, _)| format!("invalid {WORKFLOW_PATH}: {message}"))?;
    Ok(schema_of(&workflow))
}

/// The schema of a parsed workflow (see `workflow_schema`).
pub fn schema_of(workflow: &Workflow) -> Value {
    let step_ids: Vec<&str> = workflow.steps.iter().map(|step| step.id.as_str()).collect();
    let steps: Vec<Value> = workflow
        .steps
        .iter()
        .map(|step| json!({"id": step.id, "validators": step.validators}))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pipeline",
        "description": "The pipeline declared by templates/workflow.yaml: the steps pipeline.state.json may be at, the validators each step declares (x-steps) and the reviewers whose evaluations are required (x-reviewers). Generated from that file; do not edit.",
        "type": "object",
        "required": ["schema_version", "pipeline_schema_version", "current_step", "worktree"],
        "additionalProperties": false,
        "properties": {
            "schema_version": {"const": 1},
            "pipeline_schema_version": {"type": "integer", "minimum": 1},
            "current_step": {"enum": step_ids},
            "worktree": {
                "type": "object",
                "required": ["linked"],
                "additionalProperties": false,
                "properties": {"linked": {"type": "boolean"}}
            }
        },
        "x-steps": steps,
        "x-reviewers": workflow.reviewers,
    })
}

/// Reads the workflow and checks it for drift. Returns the workflow the gate applies (the
/// built-in default when the file is absent or does not parse) and the `workflow-drift` findings.
pub fn load_workflow(repo: &RepoView) -> (Workflow, Vec<GateFinding>) {
    let Some(bytes) = repo.read(WORKFLOW_PATH) else {
        return (Workflow::builtin_default(), Vec::new());
    };
    let text = TextFile {
        path: WORKFLOW_PATH.to_owned(),
        text: String::from_utf8_lossy(&bytes).into_owned(),
    };
    let workflow = match parse_workflow(&text.text) {
        Ok(workflow) => workflow,
        Err((message, position)) => {
            let (line, column) = position.unwrap_or((1, 0));
            let finding = GateFinding::new(
                workflow_drift::UNPARSABLE,
                format!("{WORKFLOW_PATH} does not parse"),
                format!(
                    "{WORKFLOW_PATH} line {line}, column {column}: {message}. The gate applied \
                     the built-in default workflow instead. Fix the file (keys: steps[].id, \
                     steps[].validators, steps[].outputs, reviewers; docs/LEDGER.md)."
                ),
            )
            .at(WORKFLOW_PATH, Some(line));
            return (Workflow::builtin_default(), vec![finding]);
        }
    };
    let mut findings = drift(&workflow, &text);
    findings.extend(schema_drift(repo, &workflow));
    (workflow, findings)
}

/// The workflow's own drift: a required validator not declared, an unknown validator name, a
/// step id used twice.
fn drift(workflow: &Workflow, text: &TextFile) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let declared: BTreeSet<&str> = workflow
        .steps
        .iter()
        .flat_map(|step| step.validators.iter().map(String::as_str))
        .collect();
    for required in Check::in_group(Group::Required) {
        if !declared.contains(required.as_str()) {
            findings.push(
                GateFinding::new(
                    workflow_drift::UNDECLARED,
                    format!("the workflow does not declare {}", required.as_str()),
                    format!(
                        "{WORKFLOW_PATH} declares {} in no step, but it is one of the 14 \
                         required validators (the Loom plan). The gate runs it anyway; declare \
                         it in the step that must enforce it.",
                        required.as_str()
                    ),
                )
                .at(WORKFLOW_PATH, Some(1)),
            );
        }
    }
    let mut step_ids = BTreeSet::new();
    for step in &workflow.steps {
        if !step_ids.insert(step.id.as_str()) {
            findings.push(
                GateFinding::new(
                    workflow_drift::STEP_TWICE,
                    format!("the workflow declares step {} twice", step.id),
                    format!(
                        "{WORKFLOW_PATH} has two steps with id {}; step ids are unique.",
                        step.id
                    ),
                )
                .at(WORKFLOW_PATH, text.line_of(&step.id)),
            );
        }
        for name in &step.validators {
            if Check::validator(name).is_none() {
                findings.push(
                    GateFinding::new(
                        workflow_drift::UNKNOWN_VALIDATOR,
                        format!("the workflow names unknown validator {name}"),
                        format!(
                            "Step {} of {WORKFLOW_PATH} declares `{name}`, which no validator \
                             implements, so the step enforces less than it says. Use a known id \
                             (docs/LEDGER.md) or implement the validator.",
                            step.id
                        ),
                    )
                    .at(WORKFLOW_PATH, text.line_of(name)),
                );
            }
        }
    }
    findings
}

/// `config/pipeline.schema.json` must exist and equal the schema generated from the workflow.
fn schema_drift(repo: &RepoView, workflow: &Workflow) -> Vec<GateFinding> {
    let regenerate = "Regenerate it with `gatebench workflow-schema` and commit both files.";
    let Some(bytes) = repo.read(SCHEMA_PATH) else {
        return vec![GateFinding::new(
            workflow_drift::SCHEMA,
            format!("{SCHEMA_PATH} is missing"),
            format!("{WORKFLOW_PATH} exists but its generated schema {SCHEMA_PATH} does not. {regenerate}"),
        )
        .at(SCHEMA_PATH, None)];
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Err(error) => vec![GateFinding::new(
            workflow_drift::SCHEMA,
            format!("{SCHEMA_PATH} is not JSON"),
            format!(
                "{SCHEMA_PATH} line {}, column {}: {error}. {regenerate}",
                error.line(),
                error.column()
            ),
        )
        .at(SCHEMA_PATH, Some(error.line().max(1) as u64))],
        Ok(committed) if committed != schema_of(workflow) => vec![GateFinding::new(
            workflow_drift::SCHEMA,
            format!("{SCHEMA_PATH} drifted from {WORKFLOW_PATH}"),
            format!(
                "{SCHEMA_PATH} is not what `gatebench workflow-schema` generates from \
                 {WORKFLOW_PATH}: the two definitions of the pipeline disagree. {regenerate}"
            ),
        )
        .at(SCHEMA_PATH, Some(1))],
        Ok(_) => Vec::new(),
    }
}

/// A feature's `pipeline.state.json` must be at a step the workflow declares.
pub fn current_step_declared(workflow: &Workflow, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(state) = &feature.pipeline_state else {
        return Vec::new();
    };
    let step = &state.value.current_step;
    if workflow.steps.iter().any(|declared| declared.id == *step) {
        return Vec::new();
    }
    let known: Vec<&str> = workflow.steps.iter().map(|s| s.id.as_str()).collect();
    vec![GateFinding::new(
        workflow_drift::UNDECLARED_STEP,
        format!("pipeline is at undeclared step {step}"),
        format!(
            "{} says `current_step` {step}, but the workflow declares only [{}]. Record a \
             declared step, or declare the step in {WORKFLOW_PATH}.",
            state.file.path,
            known.join(", ")
        ),
    )
    .at(&state.file.path, state.file.line_of(&quoted(step)))]
}
