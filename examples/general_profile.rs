//! Runs the general engine over `N` contact cones of dimension `D` with `K` generators
//! (arguments, default 50 6 32) on one thread: a fixed workload to profile
//! (`valgrind --tool=callgrind target/release/examples/general_profile 50 6 32`).
//! `NOMARGIN=1`: the solver without the inside margin. `RANDOM=1`: the random pointed cones of `scripts/general_peers.py` instead
//! (`general::sample::random_cases`).
use planar_hold::details::sample::contact_cases;
use planar_hold::details::sample::random_cases;
use planar_hold::details::solver::Solver;
use planar_hold::Verdict;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let (n, d, k) = (
        *args.first().unwrap_or(&50),
        *args.get(1).unwrap_or(&6),
        *args.get(2).unwrap_or(&32),
    );
    let seed = 2026 + (d * 1000 + k) as u64;
    let batch = if std::env::var("RANDOM").is_ok() {
        random_cases(seed, n, d, k)
    } else {
        contact_cases(seed, n, d, k)
    };
    // NOMARGIN=1: without the inside margin (the NNLS alone: verdict, witness, certificate).
    let mut solver = if std::env::var("NOMARGIN").is_ok() {
        Solver::without_inside_margin()
    } else {
        Solver::new()
    };
    // REPS=r: the batch r times, the best pass reported (steadier on a loaded machine).
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let mut best = std::time::Duration::MAX;
    let mut held = 0;
    let mut facets = 0;
    for _ in 0..reps.max(1) {
        let t = std::time::Instant::now();
        held = 0;
        facets = 0;
        for case in batch.iter() {
            let o = solver.solve(&case);
            held += usize::from(o.verdict == Verdict::Supported);
            if std::env::var("FACETS").is_ok() {
                facets += solver.facets_proven(&case).0.len();
            }
        }
        best = best.min(t.elapsed());
    }
    println!(
        "{n} cases, d = {d}, K = {k}: {held} held, {facets} facets, {:?} per case",
        best / n as u32
    );
}
