//! The JSON Lines form of cases and answers (`planar-hold eval`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tables::Candidate;
use crate::types::{Case, Outcome, MAX_GENERATORS};

/// One input line: `{"id": ..., "generators": [[fx, fz, m], ...], "need": [x, y, z]}`.
#[derive(Deserialize)]
struct CaseLine {
    #[serde(default)]
    id: Option<Value>,
    generators: Vec<Vec<f64>>,
    #[serde(default)]
    need: Option<Vec<f64>>,
}

/// Parses one line into its id (echoed back as given) and case; the error says what is wrong.
pub fn parse_case(text: &str) -> Result<(Option<Value>, Case), String> {
    let line: CaseLine =
        serde_json::from_str(text).map_err(|e| format!("not a valid case: {e}"))?;
    if line.generators.len() > MAX_GENERATORS {
        return Err(format!(
            "{} generators, more than {MAX_GENERATORS} (at most 4 body pairs × 2 endpoints × 2 rays)",
            line.generators.len()
        ));
    }
    let to_f32 = |v: &[f64], what: &str| -> Result<[f32; 3], String> {
        if v.len() != 3 {
            return Err(format!("{what} must be three numbers, got {}", v.len()));
        }
        let x = [v[0] as f32, v[1] as f32, v[2] as f32];
        if x.iter().all(|c| c.is_finite()) {
            Ok(x)
        } else {
            Err(format!("{what} = {v:?} is not finite in float32"))
        }
    };
    let generators = line
        .generators
        .iter()
        .enumerate()
        .map(|(i, g)| to_f32(g, &format!("generator {i}")))
        .collect::<Result<Vec<_>, _>>()?;
    let need = match &line.need {
        Some(n) => to_f32(n, "need")?,
        None => [0.0, 1.0, 0.0],
    };
    let case = Case::new(&generators, need).map_err(|e| e.to_string())?;
    Ok((line.id, case))
}

/// One output line.
#[derive(Serialize)]
pub struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    pub verdict: &'static str,
    pub margin: f32,
    /// True when no candidate supports the cone (it fills R³) and the margin is the cap.
    pub capped: bool,
    pub witness: Option<WitnessJson>,
    pub certificate: Option<[f32; 3]>,
    pub binding: Option<u32>,
    /// The binding candidate in words, e.g. "+(w0 x w3)".
    pub binding_candidate: Option<String>,
}

#[derive(Serialize)]
pub struct WitnessJson {
    pub generators: Vec<u32>,
    /// Re-solved in float64 on the subset found (`Witness::polished`).
    pub weights: Vec<f64>,
}

impl Answer {
    pub fn new(id: Option<Value>, case: &Case, o: &Outcome) -> Answer {
        Answer {
            id,
            verdict: o.verdict().as_str(),
            margin: o.margin,
            capped: o.is_capped(),
            witness: o.witness().map(|w| WitnessJson {
                weights: w.polished(case),
                generators: w.indices,
            }),
            certificate: o.certificate(),
            binding: o.binding(),
            binding_candidate: o.binding().and_then(Candidate::at).map(|c| c.to_string()),
        }
    }
}
