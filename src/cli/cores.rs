//! The pipeline's threads, each on a core of its own.
//!
//! Linux places a new thread on its parent's core, and on the 2-core VMs this project is
//! measured on it did not move it to the idle core for milliseconds: two threads each
//! spinning 1.8 ms took 3.2–3.5 ms together, and a pipeline thread spawned at the start of a
//! 6 ms run often joined in only at its end (2026-12-07, Linux 6.18, 2 vCPUs). A thread
//! spawned while its parent runs on another core starts there (in 0.1 ms; the two spins
//! then took 2.0 ms). So the parent steps onto each helper's core to spawn it, and back to
//! its own; each stays on its core until the run ends (set free, the threads were again
//! found sharing one core: the 69 public spatial scenes took 7.3 ms, not 6.2, the median
//! of 200 runs). The pipeline shares its chunks out as each thread asks for one, so a
//! thread whose core is busy with something else does less of the work, not hold it up.

/// At most this many workers are placed: each step is a migration (tens of microseconds),
/// and many cores are left to the system.
const MOST: usize = 16;

/// The cores this thread may use, the one it runs on, and the others to spawn on.
#[cfg(target_os = "linux")]
pub(super) struct Spread {
    allowed: libc::cpu_set_t,
    home: usize,
    others: Vec<usize>,
    next: usize,
}

#[cfg(target_os = "linux")]
impl Spread {
    /// Placement for `workers` threads (this one among them), or `None` where there is
    /// nothing to place: one worker, more than [`MOST`], one core, or cores not readable.
    pub(super) fn new(workers: usize) -> Option<Spread> {
        if !(2..=MOST).contains(&workers) {
            return None;
        }
        // SAFETY: a zeroed cpu_set_t is an empty set, and sched_getaffinity writes at most
        // its size; sched_getcpu takes nothing.
        let (allowed, home) = unsafe {
            let mut allowed: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            (libc::sched_getaffinity(0, size, &mut allowed) == 0).then_some(())?;
            (allowed, libc::sched_getcpu())
        };
        let home = usize::try_from(home).ok()?;
        // SAFETY: CPU_ISSET reads a bit of the set below CPU_SETSIZE.
        let others: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| cpu != home && unsafe { libc::CPU_ISSET(cpu, &allowed) })
            .collect();
        (!others.is_empty()).then_some(Spread {
            allowed,
            home,
            others,
            next: 0,
        })
    }

    /// Calls `spawn` on the next core (cycling through the others): the thread it starts
    /// is kept there.
    pub(super) fn spawn<T>(&mut self, spawn: impl FnOnce() -> T) -> T {
        pin(self.others[self.next % self.others.len()]);
        self.next += 1;
        spawn()
    }

    /// This thread back on its own core, kept there until [`Spread::release`].
    pub(super) fn home(&self) {
        pin(self.home);
    }

    /// This thread free to use every core it was given again.
    pub(super) fn release(&self) {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: sets this thread's affinity to a set this process read; a failure leaves
        // it as it was.
        unsafe { libc::sched_setaffinity(0, size, &self.allowed) };
    }
}

/// This thread on `cpu` alone.
#[cfg(target_os = "linux")]
fn pin(cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes a bit below CPU_SETSIZE
    // (`cpu` came from CPU_ISSET); a failure leaves the affinity as it was.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
    }
}

/// Elsewhere threads start and run where the system puts them.
#[cfg(not(target_os = "linux"))]
pub(super) struct Spread;

#[cfg(not(target_os = "linux"))]
impl Spread {
    pub(super) fn new(_workers: usize) -> Option<Spread> {
        let _ = MOST;
        None
    }
    pub(super) fn spawn<T>(&mut self, spawn: impl FnOnce() -> T) -> T {
        spawn()
    }
    pub(super) fn home(&self) {}
    pub(super) fn release(&self) {}
}
