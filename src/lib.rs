//! planar-hold: can a set of planar frictional contacts hold a rigid box against gravity?
//!
//! The cone test of docs/contract-planar.md answers exactly, in large batches, on the GPU (wgpu) or the
//! CPU: a witness (contact forces that hold), a certificate (a plane that proves nothing can)
//! and a margin (signed distance to the boundary). The physical layer (`scene`) turns
//! contacts, masses and edits into cone tests.
//!
//! ```
//! use planar_hold::{Backend, Case, Engine, Verdict};
//!
//! // docs/contract-planar.md §6: a flat box on two floor corners, μ = 0.2, holding its own weight.
//! let gens = [[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]];
//! let case = Case::new(&gens, [0.0, 1.0, 0.0])?;
//! let mut engine = Engine::new(Backend::Cpu)?; // or Backend::Gpu
//! let outcome = engine.evaluate(&[case])?[0];
//! assert_eq!(outcome.verdict(), Verdict::Supported);
//! assert_eq!(outcome.witness().unwrap().indices, vec![0, 3]); // ½·A₊ + ½·B₋
//! assert!((outcome.margin - 0.19612).abs() < 1e-5); // μ/√(1+μ²): sliding binds
//! # Ok::<(), planar_hold::Error>(())
//! ```

#![warn(missing_docs)]

pub mod device;
pub mod draw;
pub mod general;
pub mod gpu;
pub mod io;
pub mod planar;
pub mod rng;
pub mod scene;
pub mod simd;

/// The JSON Lines form of cases and answers (the name it had before `io` held every format).
pub use io::json as jsonl;

pub use planar::types::{Case, Outcome, Verdict, Witness, MARGIN_CAP, MAX_GENERATORS, NO_BINDING};

/// Everything that can go wrong, as a value: input, adapter, device.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A case with more than [`MAX_GENERATORS`] generators (docs/contract-planar.md §2); holds the count given.
    #[error("more than {max} generators: {0}", max = MAX_GENERATORS)]
    TooManyGenerators(usize),
    /// A NaN or infinity in a case; names the generator or the need.
    #[error("non-finite number in {0}")]
    NonFinite(String),
    /// Malformed or out-of-range input (a scene line, a file, mismatched lengths), in words.
    #[error("invalid input: {0}")]
    Input(String),
    /// No GPU adapter matches the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`); holds
    /// what was asked for. The message says how to install a software adapter.
    #[error(
        "no GPU adapter found{0}. Install a software one (Debian: `apt-get install mesa-vulkan-drivers` \
         for lavapipe, or Mesa's EGL/llvmpipe for WGPU_BACKEND=gl), or run with `--backend cpu`"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device with the features and limits asked for.
    #[error("GPU device could not be created: {0}")]
    RequestDevice(String),
    /// The device was lost (driver reset, timeout) during or between batches.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// Allocating a chunk's buffers failed; a smaller
    /// [`GpuOptions::max_chunk_cases`](planar::host::GpuOptions::max_chunk_cases) may fit.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// The device's limits do not admit a chunk of even one case.
    #[error("GPU limits exceeded: {0}")]
    Limits(String),
    /// Any other GPU failure: shader or pipeline validation, readback, mapping.
    #[error("GPU error: {0}")]
    Gpu(String),
}

/// Which implementation of the cone test to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU on all cores (the SIMD path; same answers as the reference, bit for bit).
    Cpu,
    /// The WGSL shader through wgpu, adapter chosen from the environment.
    Gpu,
}

/// A cone-test engine of either backend, created once and reused for every batch.
pub enum Engine {
    /// The CPU's lane-parallel path ([`planar::cone_test_batch_into`]), bit for bit the
    /// reference's answers, on rayon's thread pool.
    Cpu,
    /// The shader on the device chosen from the environment (boxed: it holds the device).
    Gpu(Box<gpu::GpuEngine>),
}

impl Engine {
    /// An engine of `backend`. The CPU one is free to create; the GPU one chooses the adapter
    /// from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), creates
    /// the device once; each engine's pipeline is built on its first batch.
    ///
    /// # Errors
    ///
    /// Never for [`Backend::Cpu`]. For [`Backend::Gpu`]: [`Error::NoAdapter`] when no adapter
    /// matches, [`Error::RequestDevice`] when the device cannot be created, [`Error::Limits`]
    /// when the device's limits do not admit one case.
    pub fn new(backend: Backend) -> Result<Engine, Error> {
        Ok(match backend {
            Backend::Cpu => Engine::Cpu,
            Backend::Gpu => Engine::Gpu(Box::new(gpu::GpuEngine::from_env()?)),
        })
    }

    /// Evaluates every case, in order: one outcome per case.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate_into`].
    pub fn evaluate(&mut self, cases: &[Case]) -> Result<Vec<Outcome>, Error> {
        let mut out = vec![Outcome::default(); cases.len()];
        self.evaluate_into(cases, &mut out)?;
        Ok(out)
    }

    /// Evaluates every case into `out` (same length), allocating nothing per call.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when `out` and `cases` differ in length. On the GPU also
    /// [`Error::OutOfMemory`], [`Error::DeviceLost`] and [`Error::Gpu`] (readback, validation);
    /// `out` may then be partly written.
    pub fn evaluate_into(&mut self, cases: &[Case], out: &mut [Outcome]) -> Result<(), Error> {
        match self {
            Engine::Cpu if cases.len() != out.len() => Err(Error::Input(format!(
                "{} cases but {} outcome slots",
                cases.len(),
                out.len()
            ))),
            Engine::Cpu => {
                planar::cone_test_batch_into(cases, out);
                Ok(())
            }
            Engine::Gpu(gpu) => gpu.evaluate_into(cases, out),
        }
    }

    /// The general test (docs/contract-general.md) of every case of `batch` into `out` (same
    /// length). On the CPU: [`general::solver::solve_batch_into`] on all cores. On the GPU: the
    /// float32 search in `shaders/search.wgsl`, then every case finished and checked in
    /// float64 on all cores from the passive set found; the stats count the cases whose
    /// hint the host did not confirm (re-solved on the host; always 0 on the CPU).
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when `out` and `batch` differ in length. On the GPU also those of
    /// [`gpu::GpuEngine::evaluate_general_into`]; `out` may then be partly written.
    pub fn evaluate_general_into(
        &mut self,
        batch: &general::GeneralBatch,
        out: &mut [general::GeneralOutcome],
    ) -> Result<general::GeneralStats, Error> {
        self.evaluate_general_with(batch, out, true)
    }

    /// [`Engine::evaluate_general_into`], or without the inside margin when not
    /// `inside_margin` (a supported case's margin 0 and facet none; verdicts, witnesses,
    /// certificates and distances outside unchanged): for callers who ask only whether it
    /// holds, and the NNLS's cost alone.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate_general_into`].
    pub fn evaluate_general_with(
        &mut self,
        batch: &general::GeneralBatch,
        out: &mut [general::GeneralOutcome],
        inside_margin: bool,
    ) -> Result<general::GeneralStats, Error> {
        match self {
            Engine::Cpu if batch.len() != out.len() => Err(Error::Input(format!(
                "{} general cases but {} outcome slots",
                batch.len(),
                out.len()
            ))),
            Engine::Cpu => {
                general::solver::solve_batch_with(batch, out, inside_margin);
                Ok(general::GeneralStats {
                    cases: batch.len(),
                    resolved: 0,
                })
            }
            Engine::Gpu(gpu) => gpu.evaluate_general_with(batch, out, inside_margin),
        }
    }

    /// A human-readable name of what runs: "cpu (N threads)" or the adapter.
    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Engine::Gpu(gpu) => gpu.describe(),
        }
    }
}
