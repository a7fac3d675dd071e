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

/// The cores this thread may use, the one it runs on, and the helpers' cores in turn: the
/// others first, then this one (more workers than cores share them evenly).
#[cfg(target_os = "linux")]
pub(super) struct Spread {
    allowed: libc::cpu_set_t,
    home: usize,
    turns: Vec<usize>,
    next: usize,
}

#[cfg(target_os = "linux")]
impl Spread {
    /// Placement for `workers` threads (this one among them), or `None` where there is
    /// nothing to place: one worker, more than [`MOST`], one core, or cores not readable
    /// (or this thread on none of them).
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
        let mut turns: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &allowed) })
            .collect();
        let at = turns.iter().position(|&cpu| cpu == home)?;
        turns.rotate_left(at + 1);
        (turns.len() > 1).then_some(Spread {
            allowed,
            home,
            turns,
            next: 0,
        })
    }

    /// Calls `spawn` with the next core in turn, for the thread it starts to
    /// [`Core::take`] first thing, and lets that thread run: it starts on this thread's
    /// core, which this one keeps (see [`Spread::home`]).
    pub(super) fn spawn<T>(&mut self, spawn: impl FnOnce(Core) -> T) -> T {
        let core = Core(self.turns[self.next % self.turns.len()]);
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// This thread's cores as a list.
    fn cores_of_this_thread() -> Vec<usize> {
        // SAFETY: as in `Spread::new`.
        let set = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
            set
        };
        // SAFETY: CPU_ISSET reads a bit of the set below CPU_SETSIZE.
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect()
    }

    #[test]
    fn helpers_run_each_on_its_core_in_turn_and_every_thread_is_set_free_after() {
        assert!(Spread::new(1).is_none(), "one worker: nothing to place");
        assert!(Spread::new(MOST + 1).is_none(), "past the most placed");
        std::thread::scope(|s| {
            // On a thread of its own, so the test harness's thread keeps its cores.
            s.spawn(|| {
                let allowed = cores_of_this_thread();
                let Some(mut spread) = Spread::new(3) else {
                    assert!(
                        allowed.len() < 2,
                        "{allowed:?}: two cores or more, no placement"
                    );
                    return;
                };
                spread.home();
                let home = cores_of_this_thread();
                assert_eq!(home.len(), 1, "the caller kept on one core");
                let mut placed = Vec::new();
                std::thread::scope(|inner| {
                    for _ in 0..3 {
                        let handle = spread.spawn(|core| {
                            inner.spawn(move || {
                                core.take();
                                // SAFETY: takes nothing.
                                let running = unsafe { libc::sched_getcpu() } as usize;
                                (cores_of_this_thread(), running)
                            })
                        });
                        placed.push(handle.join().unwrap());
                    }
                });
                // Each helper on one core, running there: those after the caller's first, then
                // those before it, then the caller's own, in turn.
                let at = allowed.iter().position(|c| *c == home[0]).unwrap();
                let turns: Vec<usize> = allowed[at + 1..]
                    .iter()
                    .chain(&allowed[..=at])
                    .copied()
                    .collect();
                let expected: Vec<(Vec<usize>, usize)> = (0..3)
                    .map(|i| (vec![turns[i % turns.len()]], turns[i % turns.len()]))
                    .collect();
                assert_eq!(placed, expected);
                spread.release();
                assert_eq!(cores_of_this_thread(), allowed, "the caller set free again");
            });
        });
    }
}
