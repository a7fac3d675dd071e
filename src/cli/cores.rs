//! The pipeline's threads, each on a core of its own.
//!
//! Linux places a new thread on its parent's core, and on the 2-core VMs this project is
//! measured on it did not move it to the idle core for milliseconds: two threads each
//! spinning 1.8 ms took 3.2–3.5 ms together, and a pipeline thread spawned at the start of a
//! 6 ms run often joined in only at its end (2026-12-07, Linux 6.18, 2 vCPUs). A thread
//! that moves itself to another core runs there at once. So the command's thread keeps to
//! its own core, lets each helper it spawns run (it starts on the same core) and the helper
//! moves itself to a core of its own first thing; each stays on its core until the run
//! ends. Set free, the threads were again found sharing one core (the 69 public spatial
//! scenes took 7.3 ms, not 6.2, the median of 200 runs); where the parent stepped onto each
//! helper's core to spawn it there and back, the step back waited up to a millisecond
//! behind the helper (6.8 ms, against 6.5 this way). The pipeline shares its chunks out as
//! each thread asks for one, so a thread whose core is busy with something else does less
//! of the work, not hold it up.

/// At most this many workers are placed (each a migration, tens of microseconds); many
/// cores are left to the system.
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

    /// Calls `spawn` with the next core (cycling through the others), for the thread it
    /// starts to [`Core::take`] first thing, and lets that thread run: it starts on this
    /// thread's core, which this one keeps (see [`Spread::home`]).
    pub(super) fn spawn<T>(&mut self, spawn: impl FnOnce(Core) -> T) -> T {
        let core = Core(self.others[self.next % self.others.len()]);
        self.next += 1;
        let spawned = spawn(core);
        std::thread::yield_now();
        spawned
    }

    /// This thread kept on its own core until [`Spread::release`].
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

/// A core a helper thread is to run on.
#[derive(Clone, Copy)]
pub(super) struct Core(#[cfg_attr(not(target_os = "linux"), allow(dead_code))] usize);

impl Core {
    /// The calling thread onto this core, kept there.
    pub(super) fn take(self) {
        #[cfg(target_os = "linux")]
        pin(self.0);
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
    pub(super) fn spawn<T>(&mut self, spawn: impl FnOnce(Core) -> T) -> T {
        spawn(Core(0))
    }
    pub(super) fn home(&self) {}
    pub(super) fn release(&self) {}
}
