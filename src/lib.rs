//! planar-hold: can a set of planar frictional contacts hold a rigid box against gravity?
//!
//! The cone test of `SPEC.md` answers exactly, in large batches, on the GPU (wgpu) or the
//! CPU: a witness (contact forces that hold), a certificate (a plane that proves nothing can)
//! and a margin (signed distance to the boundary). The physical layer (`scene`) turns
//! contacts, masses and edits into cone tests.
//!
//! ```
//! use planar_hold::{Backend, Case, Engine, Verdict};
//!
//! // SPEC §6: a flat box on two floor corners, μ = 0.2, holding its own weight.
//! let gens = [[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]];
//! let case = Case::new(&gens, [0.0, 1.0, 0.0])?;
//! let mut engine = Engine::new(Backend::Cpu)?; // or Backend::Gpu
//! let outcome = engine.evaluate(&[case])?[0];
//! assert_eq!(outcome.verdict(), Verdict::Supported);
//! assert_eq!(outcome.witness().unwrap().indices, vec![0, 3]); // ½·A₊ + ½·B₋
//! assert!((outcome.margin - 0.19612).abs() < 1e-5); // μ/√(1+μ²): sliding binds
//! # Ok::<(), planar_hold::Error>(())
//! ```

pub mod cpu;
pub mod draw;
pub mod gpu;
pub mod io;
pub mod sample;
pub mod scene;
pub mod tables;
pub mod types;

/// The JSON Lines form of cases and answers (the name it had before `io` held every format).
pub use io::json as jsonl;

pub use types::{Case, Outcome, Verdict, Witness, MARGIN_CAP, MAX_GENERATORS, NO_BINDING};

/// Everything that can go wrong, as a value: input, adapter, device.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A case with more generators than its 16 slots (the count given).
    #[error("more than {max} generators: {0}", max = MAX_GENERATORS)]
    TooManyGenerators(usize),
    /// A generator or need with a NaN or infinite component (which one, and its value).
    #[error("non-finite number in {0}")]
    NonFinite(String),
    /// Any other bad input: a malformed scene, mismatched lengths; the message says what.
    #[error("invalid input: {0}")]
    Input(String),
    /// No GPU adapter matched the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`); the
    /// message says how to install a software one.
    #[error(
        "no GPU adapter found{0}. Install a software one (Debian: `apt-get install mesa-vulkan-drivers` \
         for lavapipe, or Mesa's EGL/llvmpipe for WGPU_BACKEND=gl), or run with `--backend cpu`"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device (features or limits it lacks).
    #[error("GPU device could not be created: {0}")]
    RequestDevice(String),
    /// The device was lost while a batch ran (driver reset, removal).
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// A buffer could not be allocated on the device.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// The device's limits cannot hold even the smallest chunk.
    #[error("GPU limits exceeded: {0}")]
    Limits(String),
    /// Any other error wgpu reported (validation, mapping, a timeout).
    #[error("GPU error: {0}")]
    Gpu(String),
}

/// Which implementation of the cone test to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU reference on all cores.
    Cpu,
    /// The WGSL shader through wgpu, adapter chosen from the environment.
    Gpu,
}

/// A cone-test engine of either backend, created once and reused for every batch.
pub enum Engine {
    /// The CPU fast path on all cores (no state to keep).
    Cpu,
    /// The GPU engine: device, pipeline and reused buffers.
    Gpu(Box<gpu::GpuEngine>),
}

impl Engine {
    /// An engine of `backend`: for the GPU, finds the adapter the environment selects,
    /// creates the device and compiles the pipeline (once; reuse the engine).
    ///
    /// # Errors
    ///
    /// GPU only: [`Error::NoAdapter`] when no adapter matches (the message says how to get a
    /// software one), [`Error::RequestDevice`] when the adapter refuses a device,
    /// [`Error::Limits`] when its limits cannot hold one case, [`Error::Gpu`] when the
    /// pipeline does not build. The CPU engine never fails.
    pub fn new(backend: Backend) -> Result<Engine, Error> {
        Ok(match backend {
            Backend::Cpu => Engine::Cpu,
            Backend::Gpu => Engine::Gpu(Box::new(gpu::GpuEngine::from_env()?)),
        })
    }

    /// Evaluates every case, in order.
    pub fn evaluate(&mut self, cases: &[Case]) -> Result<Vec<Outcome>, Error> {
        let mut out = vec![Outcome::default(); cases.len()];
        self.evaluate_into(cases, &mut out)?;
        Ok(out)
    }

    /// Evaluates every case into `out` (same length), allocating nothing per call.
    pub fn evaluate_into(&mut self, cases: &[Case], out: &mut [Outcome]) -> Result<(), Error> {
        match self {
            Engine::Cpu if cases.len() != out.len() => Err(Error::Input(format!(
                "{} cases but {} outcome slots",
                cases.len(),
                out.len()
            ))),
            Engine::Cpu => {
                cpu::cone_test_batch_into(cases, out);
                Ok(())
            }
            Engine::Gpu(gpu) => gpu.evaluate_into(cases, out),
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
