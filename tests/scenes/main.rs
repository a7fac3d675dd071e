//! The physical layer: planar and spatial scenes, the gate, grasps (docs/contract-scenes.md, contract-spatial.md, contract-grasp.md), their pictures, GPU against CPU.
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod draw_planar;
mod draw_spatial;
mod grasp;
mod grasp_circular;
mod planar;
mod planar_gpu;
mod sliding;
mod spatial;
