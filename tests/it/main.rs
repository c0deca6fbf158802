//! The integration tests, one binary (issue 47: each test binary linked the whole harness).
//! `cargo test --test it MODULE::` runs one file's tests, e.g. `cargo test --test it bad_input::`.

mod architecture;
mod bad_input;
mod ci_outputs;
mod closed_pipe;
mod command_pipeline;
mod common;
mod fuzz_corpus;
mod gate_scope;
mod git_steering;
mod ground_truth;
mod hermetic_git;
mod hostile_sandbox;
mod hostile_text;
mod html_report;
mod import;
mod interrupt;
mod interrupt_resume;
mod isolation;
mod lazy_compose;
mod materialize_props;
mod matrix;
mod mutate;
mod mutation_outputs;
mod object_store;
mod out_of_memory;
mod run;
mod schemas;
mod semantic;
mod shard;
mod streaming_outputs;
mod tiers;
mod verification_loop;
