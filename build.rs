//! Parses and validates every shader with naga at build time, so a broken shader fails the
//! build with its span instead of failing at pipeline creation on some user's adapter; and
//! links the command-line tool at a fixed address on x86-64 Linux (see `link_cli`).

use std::{fs, path::Path};

fn main() {
    link_cli();
    let dir = Path::new("shaders");
    println!("cargo:rerun-if-changed=shaders");
    let mut entries: Vec<_> = fs::read_dir(dir).expect("shaders/").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let source = fs::read_to_string(&path).expect("readable shader");
        let module = match naga::front::wgsl::parse_str(&source) {
            Ok(m) => m,
            Err(e) => panic!(
                "{}",
                e.emit_to_string_with_path(&source, &path.display().to_string())
            ),
        };
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        if let Err(e) = validator.validate(&module) {
            panic!(
                "{}",
                e.emit_to_string_with_path(&source, &path.display().to_string())
            );
        }
    }
}

/// The command-line tool, on x86-64 Linux with glibc, links as a fixed-address executable
/// (`-no-pie`). As a position-independent one, every start relocated 30,000 pointers of its
/// dependencies' tables and copied the 118 pages they sit in: 0.4 ms of each run (a gate of
/// the 69 public spatial scenes, end to end from Python, 5.47 ms against 5.04; `--version`
/// 1.75 against 1.37; 2026-12-07, 2-core AMD EPYC VM). The price is the address-space
/// randomisation of the tool's own image (not of its stack, heap or libraries): it reads
/// numbers and writes answers, and runs with its user's rights only. The library, the
/// Python module and the page are untouched.
fn link_cli() {
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux"
        && target("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && target("CARGO_CFG_TARGET_ENV") == "gnu"
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
