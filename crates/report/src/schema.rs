//! JSON Schemas generated from Rust types (draft 2020-12, with an `$id`): the report v1 schema, and
//! the generator every other gatebench schema uses, so that all of them are written alike.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;

/// The `$id` of a schema published under `schemas/` (`name` is its path there).
pub fn schema_id(name: &str) -> String {
    format!("https://gatebench.invalid/schemas/{name}")
}

/// The schema of `T`, with `$id` set to `id`.
pub fn generate<T: JsonSchema>(id: &str) -> serde_json::Value {
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
    generate::<crate::Report>(&schema_id("report-v1.schema.json"))
}
