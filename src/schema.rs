//! JSON Schemas generated from the Rust types, committed under `schemas/`. A test fails when a
//! committed schema drifts from what the code generates (`gatebench schema --write` refreshes).

use std::path::Path;

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

use crate::error::{Error, Result};

fn generate<T: JsonSchema>(id: &str) -> serde_json::Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).expect("a schema serializes");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("$id".into(), serde_json::Value::String(id.into()));
    }
    value
}

/// The report v1 schema, as pipelines' reports are validated against it.
pub fn report_schema() -> serde_json::Value {
    generate::<crate::report::Report>("https://gatebench.invalid/schemas/report-v1.schema.json")
}

/// The verification loop's machine state file (seed 000's exact shape), as the gate reads it.
pub fn verification_state_schema() -> serde_json::Value {
    let mut schema = generate::<crate::gate::state_file::VerificationState>(
        "https://gatebench.invalid/schemas/verification-state.schema.json",
    );
    crate::gate::state_file::require_every_key(&mut schema);
    schema
}

/// Every schema gatebench publishes: (file name under `schemas/`, content).
pub fn all() -> Vec<(String, serde_json::Value)> {
    let id = |name: &str| format!("https://gatebench.invalid/schemas/{name}");
    let mut out = vec![
        (
            "fixture.schema.json".to_owned(),
            generate::<crate::fixture::FixtureFile>(&id("fixture.schema.json")),
        ),
        (
            "scenario.schema.json".to_owned(),
            generate::<crate::scenario::ScenarioFile>(&id("scenario.schema.json")),
        ),
        ("report-v1.schema.json".to_owned(), report_schema()),
        (
            "verification-state.schema.json".to_owned(),
            verification_state_schema(),
        ),
        (
            "results.schema.json".to_owned(),
            generate::<crate::results::RunResults>(&id("results.schema.json")),
        ),
    ];
    // The ledger files the reference gate reads (docs/LEDGER.md).
    out.extend(
        crate::ledger::schemas()
            .into_iter()
            .map(|(name, value)| (format!("ledger/{name}"), value)),
    );
    out
}

/// The text a schema file holds: pretty JSON and a final newline.
pub fn render(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value serializes");
    text.push('\n');
    text
}

/// Writes every schema into `dir`.
pub fn write_all(dir: &Path) -> Result<()> {
    for (name, value) in all() {
        let path = dir.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        std::fs::write(&path, render(&value)).map_err(|e| Error::io("write", &path, e))?;
    }
    Ok(())
}

/// The schemas in `dir` that differ from what the code generates (missing ones included).
pub fn drifted(dir: &Path) -> Vec<String> {
    all()
        .into_iter()
        .filter(|(name, value)| {
            std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(render(value).as_str())
        })
        .map(|(name, _)| name.to_owned())
        .collect()
}
