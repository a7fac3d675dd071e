//! The Rust snippet of docs/api.md, verbatim, in a `main` with one closing `println!` (built by
//! `cargo test --release`, run by `scripts/test`): keep the two in step.

use planar_hold::{Backend, Case, Engine, Verdict};

#[rustfmt::skip] // the layout of docs/api.md, verbatim
fn main() -> Result<(), planar_hold::Error> {
    let mut engine = Engine::new(Backend::Cpu)?;  // or Backend::Gpu: adapter, device, pipeline, once
    let case = Case::new(&[[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]],
                         [0.0, 1.0, 0.0])?;
    let cases = vec![case; 1_000_000];
    let mut outcomes = engine.evaluate(&cases)?;                 // chunked, any size
    assert_eq!(outcomes[0].verdict(), Verdict::Supported);
    println!("{:?} margin {}", outcomes[0].witness(), outcomes[0].margin);
    engine.evaluate_into(&cases, &mut outcomes)?;                // no allocation per call
    let scenes = vec![planar_hold::scene::parse_line(r#"{"id": "s1", "half_size": 1.0,
        "contacts": [{"pair": 0, "p0": [-1, -1], "p1": [1, -1], "normal": [0, 1], "mu": 0.2}]}"#)?];
    let reports = planar_hold::scene::hold_reports(&mut engine, &scenes)?;  // physical layer
    println!("held {} robust margin {}", reports[0].held(), reports[0].robust_margin());
    Ok(())
}
