//! The Rust structs and tables against what the shader expects, as naga reflects it (a unit
//! test: the tables are the kernel's business, not the crate's public surface).

use std::mem::{offset_of, size_of};

use super::host::{CONE_TEST_WGSL, WORKGROUP_SIZE};
use super::tables::{
    candidates, pair_index, triple_index, witness_subsets, Candidate, APEX, CANDIDATE_COUNT,
    FIRST_GENERATOR_DIRECTION, FIRST_GENERATOR_PLANE, FIRST_PAIR, FIRST_PERPENDICULAR,
    FIRST_TRIPLE, WITNESS_COUNT,
};
use super::types::{Case, Outcome, Params, NO_BINDING};

fn module() -> naga::Module {
    let module = naga::front::wgsl::parse_str(CONE_TEST_WGSL).expect("shader parses");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .expect("shader validates");
    module
}

/// (size, [(member, offset)]) of a struct of the shader.
fn reflect(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("{name}"));
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => (
            *span,
            members
                .iter()
                .map(|m| (m.name.clone().unwrap(), m.offset))
                .collect(),
        ),
        other => panic!("{name} is {other:?}"),
    }
}

fn constant(module: &naga::Module, name: &str) -> u32 {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap();
    match module.global_expressions[c.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref e => panic!("{name} = {e:?}"),
    }
}

#[test]
fn case_matches_the_shader() {
    let (size, members) = reflect(&module(), "Case");
    assert_eq!(size as usize, size_of::<Case>());
    assert_eq!(size, 208);
    let rust = [
        ("generators", offset_of!(Case, generators)),
        ("need", offset_of!(Case, need)),
        ("active_mask", offset_of!(Case, active_mask)),
    ];
    let shader: Vec<(String, usize)> = members.into_iter().map(|(n, o)| (n, o as usize)).collect();
    assert_eq!(shader, rust.map(|(n, o)| (n.to_string(), o)).to_vec());
}

#[test]
fn outcome_matches_the_shader() {
    let (size, members) = reflect(&module(), "Outcome");
    assert_eq!(size as usize, size_of::<Outcome>());
    assert_eq!(size, 68);
    let rust = [
        ("verdict", offset_of!(Outcome, verdict)),
        ("witness_len", offset_of!(Outcome, witness_len)),
        ("witness_index", offset_of!(Outcome, witness_index)),
        ("witness_weight", offset_of!(Outcome, witness_weight)),
        ("certificate", offset_of!(Outcome, certificate)),
        ("margin", offset_of!(Outcome, margin)),
        ("capped", offset_of!(Outcome, capped)),
        ("binding", offset_of!(Outcome, binding)),
        ("witness_exponent", offset_of!(Outcome, witness_exponent)),
    ];
    let shader: Vec<(String, usize)> = members.into_iter().map(|(n, o)| (n, o as usize)).collect();
    assert_eq!(shader, rust.map(|(n, o)| (n.to_string(), o)).to_vec());
}

#[test]
fn params_match_the_shader() {
    let (size, members) = reflect(&module(), "Params");
    assert_eq!(size as usize, size_of::<Params>());
    let rust = [
        ("count", offset_of!(Params, count)),
        ("zero", offset_of!(Params, zero)),
        ("_pad1", offset_of!(Params, _pad)),
        ("_pad2", offset_of!(Params, _pad) + 4),
    ];
    let shader: Vec<(String, usize)> = members.into_iter().map(|(n, o)| (n, o as usize)).collect();
    assert_eq!(shader, rust.map(|(n, o)| (n.to_string(), o)).to_vec());
}

#[test]
fn shader_constants_match_the_host() {
    let m = module();
    assert_eq!(constant(&m, "WORKGROUP_SIZE"), WORKGROUP_SIZE);
    assert_eq!(constant(&m, "WITNESS_COUNT") as usize, WITNESS_COUNT);
    assert_eq!(constant(&m, "CANDIDATE_COUNT") as usize, CANDIDATE_COUNT);
    assert_eq!(constant(&m, "FIRST_PAIR") as usize, FIRST_PAIR);
    assert_eq!(constant(&m, "FIRST_TRIPLE") as usize, FIRST_TRIPLE);
    assert_eq!(
        constant(&m, "FIRST_GENERATOR_DIRECTION") as usize,
        FIRST_GENERATOR_DIRECTION
    );
    assert_eq!(
        constant(&m, "FIRST_PERPENDICULAR") as usize,
        FIRST_PERPENDICULAR
    );
    assert_eq!(
        constant(&m, "FIRST_GENERATOR_PLANE") as usize,
        FIRST_GENERATOR_PLANE
    );
    assert_eq!(constant(&m, "APEX") as usize, APEX);
    assert_eq!(constant(&m, "NO_BINDING"), NO_BINDING);
}

#[test]
fn witness_table_is_in_spec_order() {
    let t = witness_subsets();
    assert_eq!(t.len(), 696);
    assert_eq!((FIRST_PAIR, FIRST_TRIPLE), (16, 136));
    assert_eq!(t[0], [0, 0, 0, 1]);
    assert_eq!(t[15], [15, 0, 0, 1]);
    assert_eq!(t[16], [0, 1, 0, 2]);
    assert_eq!(t[30], [0, 15, 0, 2]);
    assert_eq!(t[31], [1, 2, 0, 2]);
    assert_eq!(t[135], [14, 15, 0, 2]);
    assert_eq!(t[136], [0, 1, 2, 3]);
    assert_eq!(t[695], [13, 14, 15, 3]);
    assert_eq!(t.iter().filter(|s| s[3] == 3).count(), 560);
    // Strictly increasing indices within a subset, lexicographic order between subsets.
    for block in [&t[..16], &t[16..136], &t[136..]] {
        assert!(block.windows(2).all(|p| p[0][..3] < p[1][..3]));
    }
    for s in &t[16..] {
        let n = s[3] as usize;
        assert!(s[..n].windows(2).all(|p| p[0] < p[1]), "{s:?}");
    }
    // The pair index the shader computes is the pair's position in the table.
    for (p, s) in t[16..136].iter().enumerate() {
        assert_eq!(pair_index(s[0], s[1]) as usize, p);
    }
    // And the triple index the triple's.
    for (p, s) in t[136..].iter().enumerate() {
        assert_eq!(triple_index(s[0], s[1], s[2]) as usize, p);
    }
    // Uniform arrays need a 16-byte stride: one entry is one vec4<u32>.
    assert_eq!(size_of::<[u32; 4]>(), 16);
    assert!(
        size_of_val(t) <= 16 << 10,
        "fits the downlevel 16 KiB uniform binding"
    );
}

#[test]
fn candidate_table_is_in_spec_order() {
    let t = candidates();
    assert_eq!(t.len(), 385);
    assert_eq!(
        (
            FIRST_GENERATOR_DIRECTION,
            FIRST_PERPENDICULAR,
            FIRST_GENERATOR_PLANE,
            APEX
        ),
        (240, 272, 288, 384)
    );
    let at = |i: usize| Candidate::unpack(t[i]);
    assert_eq!(
        at(0),
        Candidate::PairPlane {
            i: 0,
            j: 1,
            negative: false
        }
    );
    assert_eq!(
        at(1),
        Candidate::PairPlane {
            i: 0,
            j: 1,
            negative: true
        }
    );
    assert_eq!(
        at(2),
        Candidate::PairPlane {
            i: 0,
            j: 2,
            negative: false
        }
    );
    assert_eq!(
        at(239),
        Candidate::PairPlane {
            i: 14,
            j: 15,
            negative: true
        }
    );
    assert_eq!(
        at(240),
        Candidate::GeneratorDirection {
            i: 0,
            negative: false
        }
    );
    assert_eq!(
        at(241),
        Candidate::GeneratorDirection {
            i: 0,
            negative: true
        }
    );
    assert_eq!(
        at(271),
        Candidate::GeneratorDirection {
            i: 15,
            negative: true
        }
    );
    assert_eq!(at(272), Candidate::Perpendicular { i: 0 });
    assert_eq!(at(287), Candidate::Perpendicular { i: 15 });
    assert_eq!(
        at(288),
        Candidate::GeneratorPlane {
            i: 0,
            axis: 0,
            negative: false
        }
    );
    assert_eq!(
        at(293),
        Candidate::GeneratorPlane {
            i: 0,
            axis: 2,
            negative: true
        }
    );
    assert_eq!(
        at(383),
        Candidate::GeneratorPlane {
            i: 15,
            axis: 2,
            negative: true
        }
    );
    assert_eq!(at(384), Candidate::Apex);
    assert_eq!(at(7).to_string(), "-(w0 x w4)");
    // Within each kind's block the generator never decreases: the kernel leaves a block at
    // its first inactive slot.
    for block in [&t[240..272], &t[272..288], &t[288..384]] {
        assert!(block.windows(2).all(|p| p[0][1] <= p[1][1]));
    }
    assert!(size_of_val(t) <= 16 << 10);
}
