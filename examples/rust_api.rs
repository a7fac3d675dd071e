//! The Rust snippet of docs/api.md, verbatim, in a `main` with one closing `println!` (built by
//! `cargo test --release`, run by `scripts/test`): keep the two in step.

use planar_hold::{Answers, Backend, Batch, Case, Engine, Options, Verdict};

#[rustfmt::skip] // the layout of docs/api.md, verbatim
fn main() -> Result<(), planar_hold::Error> {
    let engine = Engine::new(Backend::Cpu)?;  // or Backend::Gpu: adapter, device, pipeline, once
    let case = Case::new(&[[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]],
                         [0.0, 1.0, 0.0])?;
    let mut batch = Batch::from(vec![case; 1_000_000]);         // the enumeration's cases (d = 3, K <= 16)
    let lift = batch.push_general(6, &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0],  // and a general one: R^6, K <= 256
                                  &[0.0, 0.0, 2.0, 0.0, 0.0, 0.0])?;
    let answers = engine.evaluate(&batch, Options::default())?; // one call for both kinds, any size
    assert_eq!(answers.planar[0].verdict(), Verdict::Supported);
    println!("{:?} margin {}", answers.planar[0].witness(), answers.planar[0].margin);
    println!("{:?}", answers.get(lift));                         // either kind's answer, by CaseId
    let mut reused = Answers::default();
    let verdicts_only = Options { inside_margin: false, ..Options::default() };
    engine.evaluate_into(&batch, verdicts_only, &mut reused)?;   // no allocation per call
    let scenes = vec![planar_hold::parse_line(r#"{"id": "s1", "half_size": 1.0,
        "contacts": [{"pair": 0, "p0": [-1, -1], "p1": [1, -1], "normal": [0, 1], "mu": 0.2}]}"#)?];
    let reports = planar_hold::hold_reports(&engine, &scenes, Options::default())?;  // physical layer
    println!("held {} robust margin {}", reports[0].held(), reports[0].robust_margin());
    Ok(())
}
