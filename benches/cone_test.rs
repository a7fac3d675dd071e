//! Criterion benches of the cone test: `cpu` (the fast path, rayon, all threads), `cpu1`
//! (the fast path, one thread), `cpu-ref` (the scalar reference, one thread) and `gpu` (skipped with a notice when no adapter is found), at 256 and 65,536 cases, plus
//! 1,000,000 for `cpu` and `gpu` when that stays quick. Run with `cargo bench`; for a quick
//! table of every backend use `planar-hold bench` instead.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use planar_hold::details::planar;
use planar_hold::details::sample::mixed_cases;
use planar_hold::{Backend, Case, Engine, Outcome};

const SMALL: [usize; 2] = [256, 65_536];
const LARGE: usize = 1_000_000;

/// The 1,000,000-case batch is timed only when one evaluation takes under this long,
/// (extrapolated from 65,536 cases) so that ten samples fit the measurement time.
const LARGE_BUDGET: Duration = Duration::from_millis(300);

/// Benches `f` over prefixes of `cases`, one group per backend, outputs allocated once.
fn bench_backend(
    c: &mut Criterion,
    name: &str,
    cases: &[Case],
    large: bool,
    mut f: impl FnMut(&[Case], &mut [Outcome]),
) {
    let mut sizes = SMALL.to_vec();
    if large {
        let probe = &cases[..SMALL[1]];
        let mut out = vec![Outcome::default(); probe.len()];
        f(probe, &mut out); // warm-up
        let start = Instant::now();
        f(probe, &mut out);
        let estimate = start.elapsed().mul_f64(LARGE as f64 / probe.len() as f64);
        if estimate <= LARGE_BUDGET {
            sizes.push(LARGE);
        } else {
            println!("{name}: skipping {LARGE} cases (about {estimate:.2?} per batch)");
        }
    }
    let mut group = c.benchmark_group(name);
    for n in sizes {
        let mut out = vec![Outcome::default(); n];
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &cases[..n], |b, batch| {
            b.iter(|| {
                f(black_box(batch), &mut out);
                black_box(&out);
            })
        });
    }
    group.finish();
}

fn cone_test(c: &mut Criterion) {
    let cases = mixed_cases(2026, LARGE);
    bench_backend(c, "cpu", &cases, true, planar::cone_test_batch_into);
    bench_backend(c, "cpu1", &cases, false, planar::cone_test_slice);
    bench_backend(c, "cpu-ref", &cases, false, |batch, out| {
        for (o, case) in out.iter_mut().zip(batch) {
            *o = planar::cone_test(case);
        }
    });
    // The planar host itself, as the engine's GPU backend runs it on a batch's planar cases.
    match Engine::new(Backend::Gpu) {
        Ok(engine) => {
            println!("gpu: {}", engine.describe());
            let gpu = engine.gpu().expect("a GPU engine has its device");
            bench_backend(c, "gpu", &cases, true, |batch, out| {
                pollster::block_on(gpu.planar_into(batch, out)).expect("GPU evaluation");
            });
        }
        Err(e) => println!("gpu: skipped: {e}"),
    }
}

criterion_group! {
    name = benches;
    // Ten samples in about three seconds per backend and size: minutes in all, not hours.
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = cone_test
}
criterion_main!(benches);
