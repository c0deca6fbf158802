//! JSON Schemas generated from the Rust types, committed under `schemas/`. A test fails when a
//! committed schema drifts from what the code generates (`gatebench schema --write` refreshes).

use std::path::Path;

use gatebench_report::schema::{generate, report_schema, schema_id};

use crate::error::{Error, Result};

/// Every schema gatebench publishes: (file name under `schemas/`, content).
pub fn all() -> Vec<(String, serde_json::Value)> {
    let mut out = vec![
        (
            "fixture.schema.json".to_owned(),
            generate::<crate::corpus::model::fixture::FixtureFile>(&schema_id(
                "fixture.schema.json",
            )),
        ),
        (
            "scenario.schema.json".to_owned(),
            generate::<crate::corpus::scenario::ScenarioFile>(&schema_id("scenario.schema.json")),
        ),
        ("report-v1.schema.json".to_owned(), report_schema()),
        (
            "verification-state.schema.json".to_owned(),
            gatebench_gate::verification_loop::state_file::verification_state_schema(),
        ),
        (
            "results.schema.json".to_owned(),
            generate::<crate::output::store::results::RunResults>(&schema_id(
                "results.schema.json",
            )),
        ),
        (
            "matrix.schema.json".to_owned(),
            generate::<crate::output::store::matrix::MatrixResults>(&schema_id(
                "matrix.schema.json",
            )),
        ),
    ];
    // The ledger files the reference gate reads (docs/LEDGER.md).
    out.extend(
        gatebench_gate::ledger::schemas()
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
