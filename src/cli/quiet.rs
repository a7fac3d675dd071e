//! A quiet first run on a headless machine.
//!
//! wgpu 30 always enables the window-system instance extensions it finds
//! (`VK_KHR_wayland_surface`, `VK_KHR_xcb_surface`, ...: wgpu-hal's `desired_extensions`; no
//! `InstanceFlags` turns them off, and a display-handle-less instance still asks for them).
//! Seeing `VK_KHR_wayland_surface` enabled, Mesa's Vulkan device-selection layer asks the
//! Wayland compositor which GPU is the default, at every enumeration of the adapters, and
//! libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` when
//! there is no runtime directory: a connection that cannot exist there, reported as an error
//! before the first answer.
//!
//! So, exactly where libwayland would refuse to connect for want of a runtime directory
//! (`XDG_RUNTIME_DIR` unset or not an absolute path, `WAYLAND_DISPLAY` not an absolute socket
//! path, no `WAYLAND_SOCKET`), the CLI points `XDG_RUNTIME_DIR` at an empty directory of its
//! own before any adapter is enumerated: the probe finds no socket and fails quietly, as it
//! failed before. Nothing that could connect is changed, and a set variable is never touched.

use std::path::{Path, PathBuf};

/// Sets `XDG_RUNTIME_DIR` to a private empty directory when libwayland could not connect
/// without one. Call first in `main`, while the process has one thread (the environment
/// is not safe to change once others may read it).
pub(super) fn runtime_dir_for_headless_drivers() {
    if !wayland_needs_runtime_dir() {
        return;
    }
    if let Some(dir) = private_dir() {
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
}

/// Whether libwayland's `wl_display_connect(NULL)` would fail for want of a runtime
/// directory (and say so on stderr).
fn wayland_needs_runtime_dir() -> bool {
    let absolute = |name: &str| std::env::var_os(name).is_some_and(|v| Path::new(&v).is_absolute());
    std::env::var_os("WAYLAND_SOCKET").is_none()
        && !absolute("WAYLAND_DISPLAY")
        && !absolute("XDG_RUNTIME_DIR")
}

/// `$TMPDIR/planar-hold-runtime-<uid>`, created with mode 0700, or `None` where it exists and
/// is not this user's own private directory (another user's socket there must not be reached).
#[cfg(target_os = "linux")]
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // The process's own user: /proc/self belongs to it.
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let dir = std::env::temp_dir().join(format!("planar-hold-runtime-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0).then_some(dir)
}

#[cfg(not(target_os = "linux"))]
fn private_dir() -> Option<PathBuf> {
    None
}
