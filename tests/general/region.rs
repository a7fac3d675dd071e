//! The support region by iterative projection (docs/contract-support-region.md): its inner
//! polygon lies in the region cut from the whole facet set and that region in its outer
//! polygon; every proof passes the checker and every planted bug in one is caught; moving
//! the whole scene moves the region with it, more friction never shrinks it; a quadruped of
//! 256 generators is proven.

use planar_hold::details::proof::{distance_to_polygon, Bound, RegionProof};
use planar_hold::details::sample::Rng;
use planar_hold::details::scene::{check_support_region, main_pyramid, support_region};
use planar_hold::details::solver::{Route, Solver};
use planar_hold::{parse_line, SceneLine, SpatialScene, SupportRegion};
use serde_json::{json, Value};

fn f(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit() as f64
}

fn spatial(v: &Value) -> SpatialScene {
    match parse_line(&v.to_string()).unwrap_or_else(|e| panic!("{v}: {e}")) {
        SceneLine::Spatial(s) => s,
        _ => panic!("{v}: not a spatial scene"),
    }
}

/// The region of `scene` by `route`, with its proof.
fn region(scene: &SpatialScene, route: Route) -> SupportRegion {
    let g = scene.generators(scene.pyramid, main_pyramid(scene.friction));
    support_region(&mut Solver::with_route(route), &g, &scene.body, true)
}

/// A stance: one or two feet anywhere, or a quadruped's four square feet (`k` edges per
/// pyramid, four corners a foot), on a floor or tilted feet (normals up to ~0.4 rad off).
fn stance(rng: &mut Rng, id: usize, quadruped: bool, k: usize, mu: f64) -> Value {
    let l = f(rng, 0.3, 2.0);
    let feet = if quadruped { 4 } else { 1 + rng.below(2) };
    let tilt = rng.below(2) == 1;
    let contacts: Vec<Value> = (0..feet)
        .map(|foot| {
            let c = if quadruped {
                let sx = if foot % 2 == 0 { 1.0 } else { -1.0 };
                let sy = if foot < 2 { 1.0 } else { -1.0 };
                [sx * f(rng, 0.4, 0.9) * l, sy * f(rng, 0.3, 0.8) * l]
            } else {
                [f(rng, -l, l), f(rng, -l, l)]
            };
            let h = f(rng, 0.05, 0.3) * l;
            let normal = if tilt {
                [f(rng, -0.4, 0.4), f(rng, -0.4, 0.4), 1.0]
            } else {
                [0.0, 0.0, 1.0]
            };
            // The foot's corners on the plane through its centre with that normal.
            let corners: Vec<[f64; 3]> = [[-h, -h], [h, -h], [h, h], [-h, h]]
                .iter()
                .map(|o| {
                    let (x, y) = (c[0] + o[0], c[1] + o[1]);
                    let z = -l - (normal[0] * o[0] + normal[1] * o[1]) / normal[2];
                    [x, y, z]
                })
                .collect();
            json!({"pair": foot, "points": corners, "normal": normal, "mu": mu})
        })
        .collect();
    json!({"id": id, "dim": 3, "half_size": l, "pyramid": k,
           "mass": {"nominal": 1.0}, "contacts": contacts})
}

fn stances(seed: u64, n: usize) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let quadruped = rng.below(2) == 1;
            let k = [4, 8, 16][rng.below(3)];
            let mu = (f(&mut rng, 0.2, 1.0) * 1000.0).round() / 1000.0;
            stance(&mut rng, i, quadruped, k, mu)
        })
        .collect()
}

/// The largest distance from a point of `a` to the polygon `b`.
fn beyond(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    a.iter()
        .map(|&p| distance_to_polygon(p, b))
        .fold(0.0, f64::max)
}

#[test]
fn inner_lies_in_the_whole_facet_sets_region_and_that_in_outer_each_proof_checked() {
    let mut compared = 0;
    for v in stances(33, 80) {
        let s = spatial(&v);
        let l = s.body.half_size;
        let ours = region(&s, Route::Local);
        let whole = region(&s, Route::Whole);
        assert!(ours.checked, "{}: region not closed", v["id"]);
        let proof = ours
            .proof
            .as_ref()
            .expect("a closed region carries its proof");
        check_support_region(&s, &ours.vertices, ours.checked, proof)
            .unwrap_or_else(|e| panic!("{}: {e}", v["id"]));
        if !whole.checked || whole.vertices.is_empty() {
            continue;
        }
        // Inner ⊆ true region ⊆ outer (the reported polygon), each within float rounding.
        assert!(
            beyond(&ours.inner, &whole.vertices) <= 1e-9 * l,
            "{}: inner {:?} leaves the region {:?}",
            v["id"],
            ours.inner,
            whole.vertices
        );
        assert!(
            beyond(&whole.vertices, &ours.vertices) <= 1e-9 * l,
            "{}: region {:?} leaves the outer polygon {:?}",
            v["id"],
            whole.vertices,
            ours.vertices
        );
        // Closed: the two polygons are the one region.
        assert!(beyond(&ours.vertices, &whole.vertices) <= 2e-9 * l);
        compared += 1;
    }
    assert!(compared >= 60, "only {compared} regions compared");
}

/// One planted bug: its name and the proof (and reported polygon, and `checked`) it leaves.
type Planted = (&'static str, Vec<[f64; 2]>, bool, RegionProof);

/// A bug planted in a reported polygon, its `checked` and its proof.
type Plant<'a> = dyn Fn(&mut Vec<[f64; 2]>, &mut bool, &mut RegionProof) + 'a;

fn planted(vertices: &[[f64; 2]], proof: &RegionProof, l: f64, count: u32) -> Vec<Planted> {
    let mut out: Vec<Planted> = Vec::new();
    let mut with = |name, f: &Plant<'_>| {
        let (mut v, mut c, mut p) = (vertices.to_vec(), true, proof.clone());
        f(&mut v, &mut c, &mut p);
        out.push((name, v, c, p));
    };
    with("a witness's largest weight nudged by 1e-6", &|_, _, p| {
        let w = &mut p.inner[0].weights;
        let big = (0..w.len())
            .max_by(|&a, &b| w[a].total_cmp(&w[b]))
            .unwrap_or(0);
        w[big] *= 1.0 + 1e-6;
    });
    with("a witness with a wrong generator", &|_, _, p| {
        // The one of largest weight swapped for one half the list away (another foot's).
        let w = &p.inner[0].weights;
        let big = (0..w.len())
            .max_by(|&a, &b| w[a].total_cmp(&w[b]))
            .unwrap_or(0);
        let g = &mut p.inner[0].generators[big];
        *g = (*g + count / 2) % count;
    });
    with("a witnessed point moved by 1e-6 ℓ", &|_, _, p| {
        p.inner[0].at[0] += 1e-6 * l;
    });
    with("a dropped outer line", &|_, _, p| {
        let t = p
            .outer
            .iter()
            .position(|e| matches!(e.bound, Bound::Plane(_)));
        p.outer.remove(t.unwrap_or(0));
    });
    with("an outer line repeated out of place", &|_, _, p| {
        let mut e = p.outer[1];
        e.from = p.outer.last().and_then(|l| l.from);
        p.outer.push(e);
    });
    with("two outer lines swapped", &|_, _, p| {
        p.outer.swap(0, 1);
    });
    with("a plane nudged by 1e-6", &|_, _, p| {
        for e in &mut p.outer {
            if let Bound::Plane(z) = &mut e.bound {
                z[2] -= 1e-6 * (z.iter().map(|x| x * x).sum::<f64>().sqrt());
                break;
            }
        }
    });
    with("a reported vertex moved out by 1e-6 ℓ", &|v, _, _| {
        let c = v.iter().fold([0.0, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
        let c = [c[0] / v.len() as f64, c[1] / v.len() as f64];
        let d = [v[0][0] - c[0], v[0][1] - c[1]];
        let n = d[0].hypot(d[1]);
        v[0] = [v[0][0] + 1e-6 * l * d[0] / n, v[0][1] + 1e-6 * l * d[1] / n];
    });
    with("a dropped inner point, still checked", &|_, _, p| {
        p.inner.remove(0);
    });
    with("a gap smaller than the polygons'", &|_, _, p| {
        p.inner.remove(0);
        p.gap = 0.0;
        // not checked: only the gap is wrong.
    });
    // The last one claims nothing closed.
    if let Some(last) = out.last_mut() {
        last.2 = false;
    }
    out
}

#[test]
fn every_planted_bug_in_a_region_proof_is_caught() {
    let mut caught = 0;
    for v in stances(7, 12) {
        let s = spatial(&v);
        let r = region(&s, Route::Local);
        let proof = r.proof.as_ref().expect("a proof");
        if r.shape != "polygon" || proof.inner.len() < 3 {
            continue;
        }
        check_support_region(&s, &r.vertices, true, proof).expect("the honest proof passes");
        let count = s.generators(s.pyramid, main_pyramid(s.friction)).len() as u32;
        for (name, vertices, checked, p) in planted(&r.vertices, proof, s.body.half_size, count) {
            assert!(
                check_support_region(&s, &vertices, checked, &p).is_err(),
                "{}: {name} was not caught",
                v["id"]
            );
            caught += 1;
        }
    }
    assert!(caught >= 45, "only {caught} planted bugs tried");
}

#[test]
fn moving_the_whole_scene_moves_the_region_and_more_friction_never_shrinks_it() {
    let mut rng = Rng::new(4);
    let mut moved = 0;
    for v in stances(11, 40) {
        let s = spatial(&v);
        let l = s.body.half_size;
        let r = region(&s, Route::Local);
        assert!(r.checked);
        // Every contact point moved by t (the centre of mass stays the body's origin, so the
        // region moves by t's horizontal part).
        let t = [
            f(&mut rng, -0.5, 0.5) * l,
            f(&mut rng, -0.5, 0.5) * l,
            f(&mut rng, -0.5, 0.5) * l,
        ];
        let mut w = v.clone();
        for c in w["contacts"].as_array_mut().unwrap() {
            for p in c["points"].as_array_mut().unwrap() {
                for (a, x) in p.as_array_mut().unwrap().iter_mut().enumerate() {
                    *x = json!(x.as_f64().unwrap() + t[a]);
                }
            }
        }
        let m = region(&spatial(&w), Route::Local);
        assert!(m.checked);
        let inside = |p: &[f64; 2]| p[0].abs() < 3.4 * l && p[1].abs() < 3.4 * l;
        if !r.clipped && !m.clipped {
            let shifted: Vec<[f64; 2]> = r
                .vertices
                .iter()
                .map(|p| [p[0] + t[0], p[1] + t[1]])
                .collect();
            if shifted.iter().all(inside) {
                assert!(
                    beyond(&shifted, &m.vertices).max(beyond(&m.vertices, &shifted)) <= 4e-9 * l,
                    "{}: {:?} moved is not {:?}",
                    v["id"],
                    shifted,
                    m.vertices
                );
                moved += 1;
            }
        }
        // μ raised by half: the old region lies in the new one.
        let mut more = v.clone();
        for c in more["contacts"].as_array_mut().unwrap() {
            c["mu"] = json!(c["mu"].as_f64().unwrap() * 1.5);
        }
        let g = region(&spatial(&more), Route::Local);
        assert!(g.checked);
        assert!(
            beyond(&r.vertices, &g.vertices) <= 4e-9 * l,
            "{}: more friction lost {:?} (now {:?})",
            v["id"],
            r.vertices,
            g.vertices
        );
    }
    assert!(moved >= 20, "only {moved} regions moved");
}

#[test]
fn a_quadruped_of_256_generators_has_its_region_proven() {
    let mut rng = Rng::new(256);
    for i in 0..6 {
        let v = stance(&mut rng, i, true, 16, 0.6);
        let s = spatial(&v);
        let g = s.generators(s.pyramid, main_pyramid(s.friction));
        assert_eq!(g.len(), 256);
        let r = region(&s, Route::Local);
        assert!(r.checked, "{}: not closed", v["id"]);
        assert_eq!(r.shape, "polygon");
        let proof = r.proof.as_ref().expect("a proof");
        let found = check_support_region(&s, &r.vertices, true, proof).expect("it checks");
        assert!(found.gap <= 1e-9 * s.body.half_size);
        // Every vertex a polygon corner of the feet's hull or a friction limit: the region
        // of a flat stance at μ = 0.6 is the feet's hull, whose corners are foot corners.
        if v["contacts"][0]["normal"] == json!([0.0, 0.0, 1.0]) {
            let corners: Vec<[f64; 2]> = s
                .contacts
                .iter()
                .flat_map(|c| c.points.iter().map(|p| [p[0], p[1]]))
                .collect();
            for p in &r.vertices {
                let near = corners
                    .iter()
                    .map(|c| (c[0] - p[0]).hypot(c[1] - p[1]))
                    .fold(f64::INFINITY, f64::min);
                assert!(near <= 1e-9 * s.body.half_size, "{p:?} is no foot corner");
            }
        }
    }
}

/// The distance to a polygon, as the checker measures a region's gap: 0 inside, the nearest
/// edge's distance outside (against each edge's own, by `hypot`), and NaN for a vertex that
/// is no number (so that no comparison with it passes).
#[test]
fn the_distance_to_a_polygon_is_the_nearest_edges_and_nan_where_a_vertex_is() {
    let mut rng = Rng::new(12);
    let square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    for _ in 0..2000 {
        let p = [f(&mut rng, -2.0, 3.0), f(&mut rng, -2.0, 3.0)];
        let outside = |v: f64| (-v).max(v - 1.0).max(0.0);
        let want = outside(p[0]).hypot(outside(p[1]));
        let got = distance_to_polygon(p, &square);
        assert!(
            (got - want).abs() <= 1e-15 * want.max(1.0),
            "{p:?}: {got} vs {want}"
        );
    }
    assert_eq!(distance_to_polygon([0.5, 0.5], &square), 0.0);
    assert_eq!(distance_to_polygon([3.0, 4.0], &[[0.0, 0.0]]), 5.0);
    assert_eq!(distance_to_polygon([3.0, 4.0], &[]), f64::INFINITY);
    let mut spoilt = square;
    spoilt[2] = [f64::NAN, 1.0];
    assert!(distance_to_polygon([5.0, 5.0], &spoilt).is_nan());
}
