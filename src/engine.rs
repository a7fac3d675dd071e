//! The one data path: a [`Batch`] of cases of both engines, decided once by [`CaseKind`],
//! answered by one [`Engine::evaluate`] with its [`Options`] as a value, into [`Answers`].

use rayon::prelude::*;

use crate::general::proof::Proof;
use crate::general::solver::Solver;
use crate::general::types::GeneralHint;
use crate::general::{GeneralBatch, GeneralOutcome};
use crate::planar::types::{Case, Outcome, MAX_GENERATORS};
use crate::{gpu, planar, Error};

/// Which implementation of the cone test to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU on all cores (the SIMD path; same answers as the reference, bit for bit).
    Cpu,
    /// The WGSL shader through wgpu, adapter chosen from the environment.
    Gpu,
}

/// Which engine decides a case: the one routing rule, of its dimension and its generator
/// count. Readers classify each line or row by it once, where they read it; the gate
/// routes scenes by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaseKind {
    /// The planar enumeration (docs/contract-planar.md): R³, at most [`MAX_GENERATORS`].
    Planar,
    /// The general engine (docs/contract-general.md): R⁶, or more than [`MAX_GENERATORS`].
    General,
}

impl CaseKind {
    /// The engine of a case of dimension `dim` with `generators` generators: for the
    /// dimensions taken (3 and 6) the enumeration exactly when `dim == 3 && generators <=
    /// 16`. Any other dimension goes with the enumeration at 16 generators or fewer (whose
    /// reader refuses it: three numbers a generator), with the general engine beyond (whose
    /// reader refuses it: 3 or 6).
    pub const fn of(dim: usize, generators: usize) -> CaseKind {
        if dim == 6 || generators > MAX_GENERATORS {
            CaseKind::General
        } else {
            CaseKind::Planar
        }
    }
}

/// Where a case sits in a [`Batch`]: its engine and its index among that engine's cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CaseId(u32);

/// Set in a [`CaseId`] of the general engine; the other bits are the index.
const GENERAL_BIT: u32 = 1 << 31;

impl CaseId {
    /// Planar case `index` of a batch (below 2³¹).
    pub fn planar(index: usize) -> CaseId {
        debug_assert!(index < GENERAL_BIT as usize);
        CaseId(index as u32)
    }

    /// General case `index` of a batch (below 2³¹).
    pub fn general(index: usize) -> CaseId {
        debug_assert!(index < GENERAL_BIT as usize);
        CaseId(index as u32 | GENERAL_BIT)
    }

    /// Whether the case is the general engine's.
    pub fn is_general(self) -> bool {
        self.0 & GENERAL_BIT != 0
    }

    /// The engine it goes to.
    pub fn kind(self) -> CaseKind {
        if self.is_general() {
            CaseKind::General
        } else {
            CaseKind::Planar
        }
    }

    /// Its index among the cases of its engine: in [`Batch::planar`] or [`Batch::general`].
    pub fn index(self) -> usize {
        (self.0 & !GENERAL_BIT) as usize
    }
}

/// Cases of both engines, each engine's in the order they were pushed: what
/// [`Engine::evaluate`] answers in one call. Which engine a case goes to is
/// [`CaseKind::of`] its shape; the [`CaseId`] a push returns finds its answer
/// ([`Answers::get`]). Cleared and refilled, it keeps its buffers.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// The planar enumeration's cases.
    pub planar: Vec<Case>,
    /// The general engine's cases.
    pub general: GeneralBatch,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Appends a planar case.
    #[inline]
    pub fn push(&mut self, case: Case) -> CaseId {
        self.planar.push(case);
        CaseId::planar(self.planar.len() - 1)
    }

    /// Appends a general case, checked as [`general::GeneralCase::new`] checks it.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralBatch::push`].
    pub fn push_general(
        &mut self,
        dim: usize,
        generators: &[f64],
        need: &[f64],
    ) -> Result<CaseId, Error> {
        let index = self.general.push(dim, generators, need)?;
        Ok(CaseId::general(index as usize))
    }

    /// Cases held, of both engines.
    pub fn len(&self) -> usize {
        self.planar.len() + self.general.len()
    }

    /// Whether no case is held.
    pub fn is_empty(&self) -> bool {
        self.planar.is_empty() && self.general.is_empty()
    }

    /// Forgets every case, keeping the buffers.
    pub fn clear(&mut self) {
        self.planar.clear();
        self.general.clear();
    }
}

impl From<&[Case]> for Batch {
    fn from(planar: &[Case]) -> Batch {
        Batch::from(planar.to_vec())
    }
}

impl<const N: usize> From<[Case; N]> for Batch {
    fn from(planar: [Case; N]) -> Batch {
        Batch::from(planar.to_vec())
    }
}

impl From<Vec<Case>> for Batch {
    fn from(planar: Vec<Case>) -> Batch {
        Batch {
            planar,
            general: GeneralBatch::new(),
        }
    }
}

impl From<GeneralBatch> for Batch {
    fn from(general: GeneralBatch) -> Batch {
        Batch {
            planar: Vec::new(),
            general,
        }
    }
}

/// Where the CPU's share of a call runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// On all cores (rayon's pool).
    #[default]
    All,
    /// On the calling thread alone: for callers whose own threads are the parallelism
    /// (the CLI's pipeline workers, a block of a parallel conversion), so that a batch stays
    /// in its core's caches.
    Current,
}

/// How [`Engine::evaluate`] answers: a value, passed with every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The general engine's inside margin (its facet search). Without it a supported general
    /// case's margin is 0 and its facet none; verdicts, witnesses, certificates and
    /// distances outside are unchanged: for callers who ask only whether it holds. The
    /// planar enumeration always gives its margin.
    pub inside_margin: bool,
    /// Where the CPU's work runs (on the GPU backend: the general cases' float64 finish).
    pub threads: Threads,
    /// Each general answer's proof of its two bounds ([`Answers::proofs`], docs/proof.md).
    pub proof: bool,
}

impl Default for Options {
    /// With the inside margin, on all cores.
    fn default() -> Options {
        Options {
            inside_margin: true,
            threads: Threads::All,
            proof: false,
        }
    }
}

/// The answers to a [`Batch`]: one outcome per case, each engine's in its cases' order.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// The planar cases' outcomes.
    pub planar: Vec<Outcome>,
    /// The general cases' outcomes.
    pub general: Vec<GeneralOutcome>,
    /// General cases whose GPU hint the float64 solve did not confirm (searched on from
    /// there on the host; always 0 on the CPU backend).
    pub resolved: usize,
    /// With [`Options::proof`]: each general case's proof (docs/proof.md), `None` where there
    /// is nothing to prove or the whole facet set answered; empty without.
    pub proofs: Vec<Option<Proof>>,
}

/// One case's answer, of either engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer<'a> {
    /// The planar enumeration's.
    Planar(&'a Outcome),
    /// The general engine's.
    General(&'a GeneralOutcome),
}

impl Answers {
    /// Case `id`'s answer, or `None` when there is none (answers to another batch).
    pub fn get(&self, id: CaseId) -> Option<Answer<'_>> {
        if id.is_general() {
            self.general.get(id.index()).map(Answer::General)
        } else {
            self.planar.get(id.index()).map(Answer::Planar)
        }
    }

    /// Whether they answer every case of `batch`, one each.
    pub fn fit(&self, batch: &Batch) -> bool {
        self.planar.len() == batch.planar.len() && self.general.len() == batch.general.len()
    }
}

/// A cone-test engine of either backend, created once and reused for every batch.
pub enum Engine {
    /// The CPU: the enumeration's lane-parallel path (bit for bit the reference's answers)
    /// and the general engine in float64, on all cores or the calling thread
    /// ([`Options::threads`]).
    Cpu,
    /// The device chosen from the environment: the enumeration's shader, and the general
    /// engine's float32 search finished in float64 on the CPU (boxed: it holds the device).
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

    /// Every case of `batch`, planar and general, answered as `options` say: the one call
    /// every front end makes (the CLI's `eval`, `gate` and `bench --input`, the page, Python).
    /// On the CPU the enumeration's SIMD path (bit for bit the reference's answers) and the
    /// general engine in float64; on the GPU the shader for the planar cases, and for the
    /// general ones the float32 search (`shaders/search.wgsl`) finished and checked in
    /// float64 from the passive set found, on the CPU as `options.threads` say.
    ///
    /// # Errors
    ///
    /// On the GPU: [`Error::OutOfMemory`], [`Error::DeviceLost`], [`Error::Gpu`] (readback,
    /// validation); never on the CPU.
    pub fn evaluate(&mut self, batch: &Batch, options: Options) -> Result<Answers, Error> {
        let mut answers = Answers::default();
        self.evaluate_into(batch, options, &mut answers)?;
        Ok(answers)
    }

    /// [`Engine::evaluate`] into `answers` (resized to the batch), reusing their
    /// buffers.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate`]; `answers` may then be partly written.
    pub fn evaluate_into(
        &mut self,
        batch: &Batch,
        options: Options,
        answers: &mut Answers,
    ) -> Result<(), Error> {
        // Every slot is written below: a buffer of the right length is kept as it is.
        answers
            .planar
            .resize(batch.planar.len(), Outcome::default());
        answers
            .general
            .resize(batch.general.len(), GeneralOutcome::default());
        answers.resolved = 0;
        answers.proofs.clear();
        if options.proof {
            answers.proofs.resize(batch.general.len(), None);
        }
        match self {
            Engine::Cpu => {
                match options.threads {
                    Threads::All => {
                        planar::cone_test_batch_into(&batch.planar, &mut answers.planar)
                    }
                    Threads::Current => planar::cone_test_slice(&batch.planar, &mut answers.planar),
                }
                solve_general(
                    &batch.general,
                    None,
                    &mut answers.general,
                    &mut answers.proofs,
                    options,
                );
            }
            Engine::Gpu(gpu) => {
                if !batch.planar.is_empty() {
                    gpu.evaluate_into(&batch.planar, &mut answers.planar)?;
                }
                if !batch.general.is_empty() {
                    let mut hints = Vec::new();
                    gpu.general_hints_into(&batch.general, &mut hints)?;
                    answers.resolved = solve_general(
                        &batch.general,
                        Some(&hints),
                        &mut answers.general,
                        &mut answers.proofs,
                        options,
                    );
                }
            }
        }
        Ok(())
    }

    /// A human-readable name of what runs: "cpu (N threads)" or the adapter.
    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Engine::Gpu(gpu) => gpu.describe(),
        }
    }
}

/// The general engine's float64 part, one solver a thread: every case of `batch` solved into
/// `out`, or with `hints` (the GPU's float32 search) finished from each hint's passive set;
/// with [`Options::proof`] each proof into `proofs` (as long as `out`). Returns how many
/// hints the solve did not confirm.
fn solve_general(
    batch: &GeneralBatch,
    hints: Option<&[GeneralHint]>,
    out: &mut [GeneralOutcome],
    proofs: &mut [Option<Proof>],
    options: Options,
) -> usize {
    let solve = |solver: &mut Solver,
                 i: usize,
                 o: &mut GeneralOutcome,
                 p: Option<&mut Option<Proof>>|
     -> usize {
        let case = batch.get(i);
        let unconfirmed = match hints {
            None => {
                *o = solver.solve(&case);
                0
            }
            Some(hints) => {
                let h = &hints[i];
                let passive = &h.index[..(h.len as usize).min(h.index.len())];
                let (outcome, confirmed) = solver.solve_hinted(&case, passive);
                *o = outcome;
                usize::from(!confirmed)
            }
        };
        if let Some(p) = p {
            *p = solver.proof(&case, o);
        }
        unconfirmed
    };
    let solver = || Solver::with_inside_margin(options.inside_margin);
    match (options.threads, proofs.is_empty()) {
        (Threads::All, true) => out
            .par_iter_mut()
            .enumerate()
            .with_min_len(16)
            .map_init(solver, |s, (i, o)| solve(s, i, o, None))
            .sum(),
        (Threads::All, false) => out
            .par_iter_mut()
            .zip(proofs.par_iter_mut())
            .enumerate()
            .with_min_len(16)
            .map_init(solver, |s, (i, (o, p))| solve(s, i, o, Some(p)))
            .sum(),
        (Threads::Current, no_proofs) => {
            let mut s = solver();
            let mut sum = 0;
            for (i, o) in out.iter_mut().enumerate() {
                sum += solve(&mut s, i, o, (!no_proofs).then(|| &mut proofs[i]));
            }
            sum
        }
    }
}
