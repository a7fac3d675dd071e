//! Runs the CPU fast path (one thread, `PLANAR_HOLD_SIMD` as usual) over N mixed cases, or
//! the scalar reference with `--reference`, for a profiler:
//! `valgrind --tool=callgrind target/release/examples/fast_path_profile 65536` counts the
//! instructions per case (divide `cone_test_slice_with`'s inclusive count by N).

use planar_hold::details::planar;
use planar_hold::details::sample::mixed_cases;
use planar_hold::Outcome;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args
        .iter()
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(65_536);
    let cases = mixed_cases(2026, n);
    let mut out = vec![Outcome::default(); n];
    let start = std::time::Instant::now();
    if args.iter().any(|a| a == "--reference") {
        for (o, c) in out.iter_mut().zip(&cases) {
            *o = planar::cone_test(c);
        }
    } else {
        planar::cone_test_slice(&cases, &mut out);
    }
    let s = start.elapsed().as_secs_f64();
    let supported = out.iter().filter(|o| o.verdict == 0).count();
    println!(
        "{n} cases ({}) in {s:.3} s: {:.0} cases/s, {supported} supported",
        planar_hold::details::Simd::chosen(),
        n as f64 / s
    );
}
