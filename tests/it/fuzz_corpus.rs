//! Replays every committed fuzz corpus (`fuzz/corpus/<target>/`) on stable through the same
//! functions the libFuzzer targets call (`fuzz/src/targets.rs`): none may panic.

#[path = "../../fuzz/src/targets.rs"]
mod targets;

#[test]
fn every_fuzz_corpus_input_runs_without_a_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut total = 0;
    for (name, target) in targets::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{name}: an empty corpus");
        for input in &inputs {
            let data = std::fs::read(input).unwrap();
            if let Err(panic) = std::panic::catch_unwind(|| target(&data)) {
                panic!("{name}: {} panicked: {panic:?}", input.display());
            }
        }
        total += inputs.len();
    }
    assert!(total >= targets::TARGETS.len());
}
