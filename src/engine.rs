//! The one door: a [`Batch`] of cases of both kinds, decided once by [`CaseKind`],
//! answered by one [`Engine`] with its [`Options`] as a value, into [`Answers`]. Cone tests,
//! the gate's rounds (`scene::gate`), grasps (the lifted cones of a batch are finished here)
//! and support regions (the engine lends its solvers) all come through it.
//!
//! The strategy (CPU or GPU) is chosen once, when the engine is made; the float64 solvers
//! are the engine's cache, kept between calls and lent one per thread while a call runs
//! (regex-automata's `Cache`). The core is async, as the device layer under it is: the page
//! awaits [`Engine::evaluate_async`], native callers block on [`Engine::evaluate`].

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rayon::prelude::*;

use crate::device::block_on;
use crate::general::grasp::{self, finish, GraspOutcome};
use crate::general::proof::Proof;
use crate::general::solver::Solver;
use crate::general::types::GeneralHint;
use crate::general::{GeneralBatch, GeneralOutcome, GRASP_DIM};
use crate::gpu::GpuBackend;
use crate::planar::types::{Case, Outcome, MAX_GENERATORS};
use crate::{planar, Error};

/// Which implementation runs: the one word for where the work happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The CPU on all cores (the SIMD path; same answers as the reference, bit for bit).
    Cpu,
    /// The WGSL shaders through wgpu, adapter chosen from the environment.
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

    /// The engine of a case read in float64 (`numbers`: its generators' and its need's):
    /// [`CaseKind::of`] its shape, except that a case of R³ with a number float32 does not
    /// hold (beyond its range, or nonzero below its normal range, where 1e-50 would be read
    /// as 0 and a generator lost) goes to the general engine, which answers it in float64. A
    /// cone's answer does not change when a generator is scaled (docs/contract-general.md
    /// §1), so such a case is as valid as any; the enumeration's float32 could only refuse
    /// it or answer another cone.
    pub fn of_numbers(
        dim: usize,
        generators: usize,
        numbers: impl IntoIterator<Item = f64>,
    ) -> CaseKind {
        match CaseKind::of(dim, generators) {
            CaseKind::Planar if dim == 3 && !numbers.into_iter().all(float32_holds) => {
                CaseKind::General
            }
            kind => kind,
        }
    }
}

/// Whether the enumeration's float32 holds `x` as it is: 0, or within float32's normal
/// range (to its relative precision). A number that is not finite is left to the planar
/// reader, which says so.
#[inline]
pub(crate) fn float32_holds(x: f64) -> bool {
    let a = x.abs();
    a == 0.0 || !a.is_finite() || (f64::from(f32::MIN_POSITIVE)..=f64::from(f32::MAX)).contains(&a)
}

/// Where a case sits in a [`Batch`]: its engine and its index among that engine's cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CaseId(u32);

/// Set in a [`CaseId`] of the general engine; the other bits are the index.
const GENERAL_BIT: u32 = 1 << 31;

impl CaseId {
    /// Planar case `index` of a batch (below 2³¹).
    pub(crate) fn planar(index: usize) -> CaseId {
        debug_assert!(index < GENERAL_BIT as usize);
        CaseId(index as u32)
    }

    /// General case `index` of a batch (below 2³¹).
    pub(crate) fn general(index: usize) -> CaseId {
        debug_assert!(index < GENERAL_BIT as usize);
        CaseId(index as u32 | GENERAL_BIT)
    }

    /// Whether the case is the general engine's.
    pub(crate) fn is_general(self) -> bool {
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

/// Cases of both kinds, each kind's in the order they were pushed: what
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
    /// Appends a planar case.
    #[inline]
    pub fn push(&mut self, case: Case) -> CaseId {
        self.planar.push(case);
        CaseId::planar(self.planar.len() - 1)
    }

    /// Appends a general case, checked as [`GeneralCase::new`](crate::GeneralCase::new) checks it.
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

    /// Cases held, of both kinds.
    pub fn len(&self) -> usize {
        self.planar.len() + self.general.len()
    }

    /// Whether no case is held.
    pub fn is_empty(&self) -> bool {
        self.planar.is_empty() && self.general.is_empty()
    }

    /// Forgets every case, keeping the buffers.
    pub(crate) fn clear(&mut self) {
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
            general: GeneralBatch::default(),
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

/// How [`Engine::evaluate`] answers: a value, passed with every call, honoured by every
/// answer the engine gives (cone tests, the gate's rounds, grasps, support regions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The general engine's inside margin (its facet search). Without it a supported general
    /// case's margin is 0 and its facet none; verdicts, witnesses, certificates and
    /// distances outside are unchanged: for callers who ask only whether it holds. The
    /// planar enumeration always gives its margin.
    pub inside_margin: bool,
    /// Where the CPU's work runs (on the GPU backend: the general cases' float64 finish,
    /// grasps and regions).
    pub threads: Threads,
    /// Each general answer's proof of its two bounds ([`Answers::proofs`], docs/proof.md),
    /// which `planar-hold check-proof` checks.
    pub proof: bool,
    /// Each spatial scene's support region (docs/contract-support-region.md), about a third
    /// of a small scene's time. Without it a spatial answer has no `support_region` fields;
    /// its needs' answers are unchanged: for callers who ask only whether the needs hold.
    pub support_region: bool,
}

impl Default for Options {
    /// With the inside margin and the support regions, on all cores, no proof object.
    fn default() -> Options {
        Options {
            inside_margin: true,
            threads: Threads::All,
            proof: false,
            support_region: true,
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
    /// The metrics of the batch's lifted grasp cones ([`GeneralBatch::push_grasp`]), checked:
    /// one per general case (the default for a case that is not a grasp's) when the batch
    /// holds any, else none.
    pub grasps: Vec<GraspOutcome>,
    /// General cases the device searched in float32 (0 on the CPU backend).
    pub searched: usize,
    /// Of those, the cases whose hint the float64 solve did not confirm (searched on from
    /// there on the host).
    pub resolved: usize,
    /// Kernel time on the device, summed over the call's dispatches, where the adapter has
    /// timestamp queries (`None` on the CPU).
    pub kernel_time: Option<Duration>,
    /// With [`Options::proof`]: each general case's proof (docs/proof.md; a grasp's in its
    /// own measure), `None` where there is nothing to prove or the whole facet set
    /// answered; empty without.
    pub proofs: Vec<Option<Proof>>,
}

/// One case's answer, of either kind.
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
    pub(crate) fn fit(&self, batch: &Batch) -> bool {
        self.planar.len() == batch.planar.len() && self.general.len() == batch.general.len()
    }

    /// How case `id` of `batch` is answered here and in `other` (the same batch answered
    /// by another backend) beyond tolerance, if it is: the verdicts (unless one is
    /// uncertain) or the margins (planar: docs/contract-planar.md §7's; general: 1e-6
    /// relative to max(1, |need|, |m|)). How `--backend both` checks the GPU against the CPU.
    pub fn disagreement(&self, other: &Answers, batch: &Batch, id: CaseId) -> Option<String> {
        match (self.get(id), other.get(id)) {
            (Some(Answer::Planar(a)), Some(Answer::Planar(b))) => a.disagreement(b),
            (Some(Answer::General(a)), Some(Answer::General(b))) => {
                let need = batch.general.get(id.index()).need;
                a.disagreement(b, crate::general::linalg::norm(need))
            }
            _ => Some("not answered by both".into()),
        }
    }
}

/// How the engine answers, chosen once.
enum Strategy {
    /// The enumeration's lane-parallel path and the general engine in float64.
    Cpu,
    /// The device (boxed: it holds the context and kernels).
    Gpu(Box<GpuBackend>),
}

/// The engine: every answer comes through it. Made once and shared by reference (calls may
/// overlap: each takes its own buffers and solvers).
pub struct Engine {
    strategy: Strategy,
    /// Float64 solvers kept between calls, with the inside margin and without: each thread
    /// of a call takes one and gives it back.
    solvers: [Mutex<Vec<Solver>>; 2],
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A solver lent by the engine for one thread's share of a call, given back when dropped.
struct Lent<'a> {
    solver: Option<Solver>,
    pool: &'a Mutex<Vec<Solver>>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(solver) = self.solver.take() {
            lock(self.pool).push(solver);
        }
    }
}

impl From<GpuBackend> for Engine {
    /// The engine on a device the caller set up ([`GpuBackend::new`]: tests, the page).
    fn from(gpu: GpuBackend) -> Engine {
        Engine::with(Strategy::Gpu(Box::new(gpu)))
    }
}

impl Engine {
    fn with(strategy: Strategy) -> Engine {
        Engine {
            strategy,
            solvers: Default::default(),
        }
    }

    /// An engine of `backend`. The CPU one is free to create; the GPU one chooses the adapter
    /// from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`), creates
    /// the device once; each kernel is built on its first batch.
    ///
    /// # Errors
    ///
    /// Never for [`Backend::Cpu`]. For [`Backend::Gpu`]: [`Error::NoAdapter`] when no adapter
    /// matches, [`Error::RequestDevice`] when the device cannot be created, [`Error::Limits`]
    /// when the device's limits do not admit one case.
    pub fn new(backend: Backend) -> Result<Engine, Error> {
        Ok(match backend {
            Backend::Cpu => Engine::cpu(),
            Backend::Gpu => Engine::from(GpuBackend::from_env()?),
        })
    }

    /// The CPU engine.
    pub fn cpu() -> Engine {
        Engine::with(Strategy::Cpu)
    }

    /// The device, for what only a GPU has (chunk sizes, the kernels); `None` on the CPU.
    pub fn gpu(&self) -> Option<&GpuBackend> {
        match &self.strategy {
            Strategy::Cpu => None,
            Strategy::Gpu(gpu) => Some(gpu),
        }
    }

    /// A human-readable name of what runs: "cpu (N threads)" or the adapter.
    pub fn describe(&self) -> String {
        match &self.strategy {
            Strategy::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Strategy::Gpu(gpu) => gpu.describe(),
        }
    }

    /// Every case of `batch`, planar and general, answered as `options` say: the one call
    /// every front end makes (the CLI's `eval`, `gate` and `bench --input`, the page, Python),
    /// blocking until done (native callers; the page awaits [`Engine::evaluate_async`]).
    /// On the CPU the enumeration's SIMD path (bit for bit the reference's answers) and the
    /// general engine in float64; on the GPU the shader for the planar cases, and for the
    /// general ones the float32 search (`shaders/search.wgsl`) finished and checked in
    /// float64 from the passive set found, on the CPU as `options.threads` say. The lifted
    /// grasp cones of the batch are finished into [`Answers::grasps`].
    ///
    /// # Errors
    ///
    /// On the GPU: [`Error::OutOfMemory`], [`Error::DeviceLost`], [`Error::Gpu`] (readback,
    /// validation); never on the CPU.
    pub fn evaluate(&self, batch: &Batch, options: Options) -> Result<Answers, Error> {
        block_on(self.evaluate_async(batch, options))
    }

    /// [`Engine::evaluate`] into `answers` (resized to the batch), reusing their buffers.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate`]; `answers` may then be partly written.
    pub fn evaluate_into(
        &self,
        batch: &Batch,
        options: Options,
        answers: &mut Answers,
    ) -> Result<(), Error> {
        block_on(self.evaluate_into_async(batch, options, answers))
    }

    /// [`Engine::evaluate`], awaited: the core, on the page and under the native edge.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate`].
    pub async fn evaluate_async(&self, batch: &Batch, options: Options) -> Result<Answers, Error> {
        let mut answers = Answers::default();
        self.evaluate_into_async(batch, options, &mut answers)
            .await?;
        Ok(answers)
    }

    /// [`Engine::evaluate_into`], awaited.
    ///
    /// # Errors
    ///
    /// As [`Engine::evaluate`].
    pub(crate) async fn evaluate_into_async(
        &self,
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
        (answers.searched, answers.resolved, answers.kernel_time) = (0, 0, None);
        match &self.strategy {
            Strategy::Cpu => {
                match options.threads {
                    Threads::All => {
                        planar::cone_test_batch_into(&batch.planar, &mut answers.planar)
                    }
                    Threads::Current => planar::cone_test_slice(&batch.planar, &mut answers.planar),
                }
                self.solve_general(
                    &batch.general,
                    None,
                    &mut answers.general,
                    &mut answers.proofs,
                    options,
                );
            }
            Strategy::Gpu(gpu) => {
                if !batch.planar.is_empty() {
                    answers.kernel_time =
                        gpu.planar_into(&batch.planar, &mut answers.planar).await?;
                }
                if !batch.general.is_empty() {
                    let mut hints = Vec::new();
                    let time = gpu.hints_into(&batch.general, &mut hints).await?;
                    answers.kernel_time = match (answers.kernel_time, time) {
                        (Some(a), Some(b)) => Some(a + b),
                        (a, b) => a.or(b),
                    };
                    answers.searched = batch.general.len();
                    answers.resolved = self.solve_general(
                        &batch.general,
                        Some(&hints),
                        &mut answers.general,
                        &mut answers.proofs,
                        options,
                    );
                }
            }
        }
        self.finish_grasps(&batch.general, answers, options);
        Ok(())
    }

    /// "One solver per thread over a batch", written once: `f(solver, i, &mut out[i])` for
    /// every slot of `out`, on all cores or on this thread as `options.threads` say, each
    /// thread with a solver lent from the engine's cache (with the inside margin or without,
    /// as `options` say), in shares of at least `grain` slots; `f` returns a count (of cases
    /// it had to search on, say), and the call their sum. What the physical layer (`scene`) asks of the float64 engine beyond cone
    /// tests (support regions) goes through here, so that it makes no solver of its own.
    pub fn each_with_solver<T: Send>(
        &self,
        out: &mut [T],
        options: Options,
        grain: usize,
        f: impl Fn(&mut Solver, usize, &mut T) -> usize + Sync + Send,
    ) -> usize {
        let pool = &self.solvers[usize::from(options.inside_margin)];
        let lend = || Lent {
            solver: Some(
                lock(pool)
                    .pop()
                    .unwrap_or_else(|| Solver::with_inside_margin(options.inside_margin)),
            ),
            pool,
        };
        let run = |lent: &mut Lent<'_>, (i, o): (usize, &mut T)| {
            f(lent.solver.as_mut().expect("lent until dropped"), i, o)
        };
        // On all cores only where there is more than one share and more than one thread: else
        // on this thread, with no hand-off to the pool and back (tens of microseconds a call,
        // which a small gate chunk pays several times).
        let parallel = options.threads == Threads::All
            && out.len() > grain.max(1)
            && rayon::current_num_threads() > 1;
        if parallel {
            out.par_iter_mut()
                .enumerate()
                .with_min_len(grain.max(1))
                .map_init(lend, run)
                .sum()
        } else {
            let mut lent = lend();
            out.iter_mut()
                .enumerate()
                .map(|io| run(&mut lent, io))
                .sum()
        }
    }

    /// [`Engine::each_with_solver`] over runs of slots: `out` cut where a run starts
    /// (`starts`, ascending, the first 0), each run by one solver in order, `f(solver, i,
    /// &mut out[i], after)` with `after` true past a run's first slot. A scene's needs, one
    /// run, share their cone: each need's inside margin may go on from the last one's
    /// search, and does whatever thread takes the run, so the answers do not depend on how
    /// the batch was shared out. `grain` counts slots.
    fn each_run_with_solver<T: Send>(
        &self,
        out: &mut [T],
        starts: &[usize],
        options: Options,
        grain: usize,
        f: impl Fn(&mut Solver, usize, &mut T, bool) -> usize + Sync + Send,
    ) -> usize {
        let mut runs: Vec<(usize, &mut [T])> = Vec::with_capacity(starts.len());
        let mut rest = out;
        for (t, &first) in starts.iter().enumerate() {
            let end = starts.get(t + 1).copied().unwrap_or(first + rest.len());
            let (run, tail) = std::mem::take(&mut rest).split_at_mut(end - first);
            runs.push((first, run));
            rest = tail;
        }
        let slots = runs.iter().map(|(_, run)| run.len()).sum::<usize>().max(1);
        let grain = (grain * runs.len()).div_ceil(slots);
        self.each_with_solver(&mut runs, options, grain, |solver, _, (first, run)| {
            let each = run.iter_mut().enumerate();
            each.map(|(j, o)| f(solver, *first + j, o, j > 0)).sum()
        })
    }

    /// The general engine's float64 part: every case of `batch` solved into `out`, or with
    /// `hints` (the GPU's float32 search) finished from each hint's passive set; with
    /// [`Options::proof`] each case's proof into `proofs` (else it is emptied). Returns how
    /// many hints the solve did not confirm.
    fn solve_general(
        &self,
        batch: &GeneralBatch,
        hints: Option<&[GeneralHint]>,
        out: &mut [GeneralOutcome],
        proofs: &mut Vec<Option<Proof>>,
        options: Options,
    ) -> usize {
        // `after`: case i follows, on the same solver, case i − 1 of its cone (a scene's needs).
        let solve = |solver: &mut Solver, i: usize, after: bool| -> (GeneralOutcome, usize) {
            let case = batch.get(i);
            let hint = hints.map_or(&[][..], |hints| {
                let h = &hints[i];
                &h.index[..(h.len as usize).min(h.index.len())]
            });
            let (outcome, confirmed) = solver.solve_hinted(&case, hint, after);
            (outcome, usize::from(hints.is_some() && !confirmed))
        };
        let runs = batch.runs();
        proofs.clear();
        if !options.proof {
            return self.each_run_with_solver(out, &runs, options, 16, |solver, i, o, after| {
                let (outcome, unconfirmed) = solve(solver, i, after);
                *o = outcome;
                unconfirmed
            });
        }
        let mut both: Vec<(GeneralOutcome, Option<Proof>)> = vec![Default::default(); out.len()];
        let unconfirmed =
            self.each_run_with_solver(&mut both, &runs, options, 16, |solver, i, slot, after| {
                let (outcome, unconfirmed) = solve(solver, i, after);
                *slot = (outcome, solver.proof(&batch.get(i), &outcome));
                unconfirmed
            });
        for (o, (outcome, proof)) in out.iter_mut().zip(both) {
            *o = outcome;
            proofs.push(proof);
        }
        unconfirmed
    }

    /// The metric of every lifted grasp cone of `batch` from its answer, checked
    /// ([`finish`]) into `answers.grasps`; none when the batch holds no grasp.
    fn finish_grasps(&self, batch: &GeneralBatch, answers: &mut Answers, options: Options) {
        let Answers {
            general,
            grasps,
            proofs,
            ..
        } = answers;
        grasps.clear();
        if !batch.iter().any(|case| case.dim == GRASP_DIM) {
            return;
        }
        grasps.resize(batch.len(), GraspOutcome::default());
        self.each_with_solver(grasps, options, 1, |solver, i, g| {
            let case = batch.get(i);
            if case.dim == GRASP_DIM {
                *g = finish(&case, &general[i], solver);
            }
            0
        });
        // Each grasp's proof in its own measure, from its lifted cone's (checked there).
        for (i, p) in proofs.iter_mut().enumerate() {
            let case = batch.get(i);
            if case.dim == GRASP_DIM {
                *p = grasp::proof(&case, &grasps[i], &general[i], p.as_ref());
            }
        }
    }
}
