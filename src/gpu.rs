//! The GPU strategy of [`crate::Engine`]: one device ([`GpuContext`]) and the two kernels on
//! it, each built on first use (the planar path never pays for the general pipeline, nor the
//! general for the planar). Async at its core, as the device layer is: the page awaits it,
//! the native engine blocks on it at its edge. Calls may overlap (the CLI's workers, the
//! page's drag during a sweep): each takes a set of reused buffers ([`Slots`]) from its
//! kernel's pool for its duration, so the engine is shared by reference.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::device::{block_on, GpuContext, Slots};
use crate::general::host::GeneralKernel;
use crate::general::types::GeneralHint;
use crate::general::GeneralBatch;
pub(crate) use crate::planar::host::GpuOptions;
use crate::planar::host::{chunk_cases, PlanarKernel};
use crate::{Case, Error, Outcome};

/// A kernel with a pool of the buffers its calls stream through.
struct Built<K> {
    kernel: K,
    idle: Mutex<Vec<Slots>>,
}

impl<K> Built<K> {
    /// Runs `f` with a set of slots from the pool (a new one when every set is in use),
    /// and puts it back.
    async fn with_slots<T>(&self, f: impl AsyncFnOnce(&K, &mut Slots) -> T) -> T {
        let mut slots = lock(&self.idle).pop().unwrap_or_default();
        let out = f(&self.kernel, &mut slots).await;
        lock(&self.idle).push(slots);
        out
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A kernel built on first use. Two calls that both find it missing both build it; the
/// first to finish is kept (no lock is held across an await: the page has one thread).
struct Lazy<K>(Mutex<Option<Arc<Built<K>>>>);

impl<K> Default for Lazy<K> {
    fn default() -> Self {
        Lazy(Mutex::new(None))
    }
}

impl<K> Lazy<K> {
    async fn get(
        &self,
        build: impl AsyncFnOnce() -> Result<K, Error>,
    ) -> Result<Arc<Built<K>>, Error> {
        if let Some(built) = lock(&self.0).clone() {
            return Ok(built);
        }
        let kernel = build().await?;
        let mut slot = lock(&self.0);
        Ok(slot
            .get_or_insert_with(|| {
                Arc::new(Built {
                    kernel,
                    idle: Mutex::default(),
                })
            })
            .clone())
    }
}

/// Both engines' kernels on one device.
pub struct GpuBackend {
    ctx: GpuContext,
    options: GpuOptions,
    planar: Lazy<PlanarKernel>,
    general: Lazy<GeneralKernel>,
}

impl GpuBackend {
    /// The adapter from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`).
    ///
    /// # Errors
    ///
    /// Those of [`GpuContext::from_env`] and [`GpuBackend::new`].
    pub(crate) fn from_env() -> Result<GpuBackend, Error> {
        GpuBackend::new(GpuContext::from_env()?, GpuOptions::default())
    }

    /// An engine on a context the caller built (tests inject their device this way, the page
    /// the browser's), the planar chunks bounded by `options`.
    ///
    /// # Errors
    ///
    /// [`Error::Limits`] when the device's limits (or `options`) admit no chunk of one case.
    pub fn new(ctx: GpuContext, options: GpuOptions) -> Result<GpuBackend, Error> {
        chunk_cases(&ctx.device.limits(), options)?;
        Ok(GpuBackend {
            ctx,
            options,
            planar: Lazy::default(),
            general: Lazy::default(),
        })
    }

    /// Planar cases per chunk (one dispatch).
    pub fn chunk_cases(&self) -> usize {
        chunk_cases(&self.ctx.device.limits(), self.options).expect("checked in new")
    }

    /// The adapter, as `GpuContext::describe`.
    pub(crate) fn describe(&self) -> String {
        self.ctx.describe()
    }

    /// Builds both kernels now rather than on first use (the page does, so that a shader the
    /// browser refuses fails at start).
    ///
    /// # Errors
    ///
    /// Those of `PlanarKernel::build` and `GeneralKernel::build`.
    pub async fn prepare(&self) -> Result<(), Error> {
        self.planar_kernel().await?;
        self.general_kernel().await?;
        Ok(())
    }

    async fn planar_kernel(&self) -> Result<Arc<Built<PlanarKernel>>, Error> {
        self.planar
            .get(async || PlanarKernel::build(&self.ctx, self.options).await)
            .await
    }

    async fn general_kernel(&self) -> Result<Arc<Built<GeneralKernel>>, Error> {
        self.general
            .get(async || GeneralKernel::build(&self.ctx).await)
            .await
    }

    /// The enumeration's shader on every case, into `out` (same length); returns the kernel
    /// time where the device has timestamp queries.
    ///
    /// # Errors
    ///
    /// Those of `PlanarKernel::build` on first use, and of `PlanarKernel::evaluate_into`.
    pub async fn planar_into(
        &self,
        cases: &[Case],
        out: &mut [Outcome],
    ) -> Result<Option<Duration>, Error> {
        let built = self.planar_kernel().await?;
        built
            .with_slots(async |kernel, slots| {
                kernel.evaluate_into(&self.ctx, slots, cases, out).await
            })
            .await
    }

    /// The general engine's float32 search (`shaders/search.wgsl`) of every case of
    /// `batch` into `hints` (resized to the batch); returns the kernel time where the device
    /// has timestamp queries.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralKernel::build`] on first use, and of [`GeneralKernel::hints_into`].
    pub(crate) async fn hints_into(
        &self,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<Option<Duration>, Error> {
        let built = self.general_kernel().await?;
        built
            .with_slots(async |kernel, slots| {
                kernel.hints_into(&self.ctx, slots, batch, hints).await
            })
            .await
    }

    /// `GpuBackend::hints_into`, blocking (native callers: tests, `bench`).
    ///
    /// # Errors
    ///
    /// As `GpuBackend::hints_into`.
    pub fn general_hints_into(
        &self,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<Option<Duration>, Error> {
        block_on(self.hints_into(batch, hints))
    }

    /// The general kernel, built now if it was not, to set its entry point or lower its
    /// chunks (tests); every later call runs with what is set.
    ///
    /// # Errors
    ///
    /// Those of `GeneralKernel::build`.
    #[cfg(test)]
    pub(crate) fn general_kernel_mut(&mut self) -> Result<&mut GeneralKernel, Error> {
        block_on(self.general_kernel())?;
        let built = self
            .general
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let built = built.as_mut().expect("built above");
        let built = Arc::get_mut(built).expect("no call is in flight: the engine is borrowed");
        Ok(&mut built.kernel)
    }
}
