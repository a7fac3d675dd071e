//! The machine a figure was measured on, as every `bench` names it: the CPU's model and its
//! widest vector instruction set, the threads, the GPU adapter.

/// The CPU's model and the widest vector instruction set it has, for every figure printed.
pub(super) fn cpu_features() -> String {
    #[cfg(target_arch = "x86_64")]
    let set = if std::arch::is_x86_feature_detected!("avx512f") {
        "AVX-512"
    } else if std::arch::is_x86_feature_detected!("avx2") {
        "AVX2"
    } else {
        "no AVX2"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let set = std::env::consts::ARCH;
    format!("{} ({set})", cpu_model())
}

/// "model name" from /proc/cpuinfo (Linux), else "unknown CPU".
pub(super) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The rest of a bench's header after the CPU: the worker threads, and the GPU adapter when
/// one is used (`"2 threads; gpu: …"`).
pub(super) fn threads_and_gpu(adapter: Option<&str>) -> String {
    let gpu = adapter.map(|a| format!("; gpu: {a}")).unwrap_or_default();
    format!("{} threads{gpu}", rayon::current_num_threads())
}
