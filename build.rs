//! Parses and validates every shader with naga at build time, so a broken shader fails the
//! build with its span instead of failing at pipeline creation on some user's adapter.

use std::{fs, path::Path};

fn main() {
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
