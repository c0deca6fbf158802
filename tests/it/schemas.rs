//! The JSON Schemas committed under `schemas/` must be exactly what the code generates; when a
//! type changes, `cargo run -- schema --write` refreshes them and the diff shows in review.

use std::path::Path;

#[test]
fn committed_schemas_match_the_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let drifted = gatebench::schema::drifted(&dir);
    assert!(
        drifted.is_empty(),
        "these schemas differ from the code (run `cargo run -- schema --write`): {drifted:?}"
    );
}

#[test]
fn every_bundled_fixture_and_scenario_validates_against_its_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schemas: std::collections::BTreeMap<_, _> = gatebench::schema::all().into_iter().collect();
    for (dir, schema_name, file_name) in [
        ("fixtures", "fixture.schema.json", Some("fixture.yaml")),
        ("scenarios", "scenario.schema.json", None),
    ] {
        let validator = jsonschema::validator_for(&schemas[schema_name]).unwrap();
        let mut count = 0;
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let file = match file_name {
                // A fixture folder's file (the folder's other entries, such as the semantic
                // tier's record, are not fixtures).
                Some(name) if path.is_dir() => path.join(name),
                Some(_) => continue,
                None if path.extension().is_some_and(|e| e == "yaml") => path,
                None => continue,
            };
            let text = std::fs::read_to_string(&file).unwrap();
            let value: serde_json::Value = yaml_serde::from_str(&text).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            assert!(
                text.starts_with("# yaml-language-server: $schema="),
                "{} should name its schema on line 1",
                file.display()
            );
            count += 1;
        }
        assert!(count > 0, "no files checked in {dir}");
    }
}
