//! Mutant generation throughput: every operator over every bundled golden (sites found, mutants
//! built as fixtures, viability by tree id), as `scenarios/mutants.yaml` does before it runs.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gatebench::corpus;
use gatebench::corpus::scenario::MutantSelection;
use gatebench::mutate::generate;

fn bench(c: &mut Criterion) {
    let corpus = corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
        .expect("the bundled corpus loads");
    let all = MutantSelection::default();
    let count = generate::generate(&corpus, &all).unwrap().len() as u64;
    let mut group = c.benchmark_group("mutate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(count));
    group.bench_function("generate-all", |b| {
        b.iter(|| generate::generate(&corpus, &all).unwrap().len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
