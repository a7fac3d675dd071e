//! The GPU backend of [`crate::Engine`]: one device ([`GpuContext`]) and the two engines'
//! kernels on it, each built on first use (the planar path never pays for the general
//! pipeline, nor the general for the planar), each with its own reused slots. The native
//! blocking edge of the device layer's async code.

use std::time::Duration;

use crate::device::{block_on, GpuContext, Slots};
use crate::general::host::{finish_into, GeneralKernel, GeneralStats};
use crate::general::types::GeneralHint;
use crate::general::{GeneralBatch, GeneralOutcome};
use crate::planar::host::{chunk_cases, GpuOptions, PlanarKernel};
use crate::{Case, Error, Outcome};

/// A kernel with the slots it streams through.
struct Built<K> {
    kernel: K,
    slots: Slots,
}

/// Both engines on one device.
pub struct GpuEngine {
    ctx: GpuContext,
    options: GpuOptions,
    planar: Option<Built<PlanarKernel>>,
    general: Option<Built<GeneralKernel>>,
    /// Kernel time of the last call (either kernel), summed over its chunks.
    kernel_time: Option<Duration>,
}

impl GpuEngine {
    /// The adapter from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`).
    ///
    /// # Errors
    ///
    /// Those of [`GpuContext::from_env`] and [`GpuEngine::new`].
    pub fn from_env() -> Result<GpuEngine, Error> {
        GpuEngine::new(GpuContext::from_env()?, GpuOptions::default())
    }

    /// An engine on a context the caller built (tests inject their device this way), the
    /// planar chunks bounded by `options`.
    ///
    /// # Errors
    ///
    /// [`Error::Limits`] when the device's limits (or `options`) admit no chunk of one case.
    pub fn new(ctx: GpuContext, options: GpuOptions) -> Result<GpuEngine, Error> {
        chunk_cases(&ctx.device.limits(), options)?;
        Ok(GpuEngine {
            ctx,
            options,
            planar: None,
            general: None,
            kernel_time: None,
        })
    }

    /// The device and queue the engine runs on.
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Planar cases per chunk (one dispatch).
    pub fn chunk_cases(&self) -> usize {
        chunk_cases(&self.ctx.device.limits(), self.options).expect("checked in new")
    }

    /// The adapter, as [`GpuContext::describe`].
    pub fn describe(&self) -> String {
        self.ctx.describe()
    }

    /// GPU time spent in the kernel during the last call (planar or general), from
    /// timestamp queries; `None` where the adapter has none.
    pub fn last_kernel_time(&self) -> Option<Duration> {
        self.kernel_time
    }

    /// Evaluates every case into `out` (same length). Allocates nothing once the slots
    /// have grown to the batch (or chunk) size.
    ///
    /// # Errors
    ///
    /// Those of [`PlanarKernel::build`] on first use, and of [`PlanarKernel::evaluate_into`].
    pub fn evaluate_into(&mut self, cases: &[Case], out: &mut [Outcome]) -> Result<(), Error> {
        let ctx = &self.ctx;
        if self.planar.is_none() {
            let kernel = block_on(PlanarKernel::build(ctx, self.options))?;
            self.planar = Some(Built {
                kernel,
                slots: Slots::default(),
            });
        }
        let built = self.planar.as_mut().expect("built above");
        self.kernel_time = block_on(
            built
                .kernel
                .evaluate_into(ctx, &mut built.slots, cases, out),
        )?;
        Ok(())
    }

    /// The general kernel, built on first use.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralKernel::build`].
    pub fn general_kernel(&mut self) -> Result<&mut GeneralKernel, Error> {
        if self.general.is_none() {
            let kernel = block_on(GeneralKernel::build(&self.ctx))?;
            self.general = Some(Built {
                kernel,
                slots: Slots::default(),
            });
        }
        Ok(&mut self.general.as_mut().expect("built above").kernel)
    }

    /// The GPU's float32 search of every case of `batch` into `hints`.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralKernel::build`] and [`GeneralKernel::hints_into`].
    pub fn general_hints_into(
        &mut self,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<(), Error> {
        self.general_kernel()?;
        let built = self.general.as_mut().expect("built above");
        self.kernel_time = block_on(built.kernel.hints_into(
            &self.ctx,
            &mut built.slots,
            batch,
            hints,
        ))?;
        Ok(())
    }

    /// The general test of every case of `batch` into `out` (same length): the float32
    /// search on the GPU, then every case finished and checked in float64 on all cores.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the lengths differ; those of [`GpuEngine::general_hints_into`].
    pub fn evaluate_general_into(
        &mut self,
        batch: &GeneralBatch,
        out: &mut [GeneralOutcome],
    ) -> Result<GeneralStats, Error> {
        self.evaluate_general_with(batch, out, true)
    }

    /// [`GpuEngine::evaluate_general_into`], with the inside margin or without
    /// ([`Solver::with_inside_margin`](crate::general::solver::Solver::with_inside_margin)).
    ///
    /// # Errors
    ///
    /// As [`GpuEngine::evaluate_general_into`].
    pub fn evaluate_general_with(
        &mut self,
        batch: &GeneralBatch,
        out: &mut [GeneralOutcome],
        inside_margin: bool,
    ) -> Result<GeneralStats, Error> {
        if batch.len() != out.len() {
            return Err(Error::Input(format!(
                "{} general cases but {} outcome slots",
                batch.len(),
                out.len()
            )));
        }
        let mut hints = Vec::new();
        self.general_hints_into(batch, &mut hints)?;
        Ok(finish_into(batch, &hints, out, inside_margin))
    }
}
