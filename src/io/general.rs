//! The JSON Lines form of the general test (docs/contract-general.md): lines whose generators have 6
//! numbers, or more than 16 generators of 3 (the lines `super::json::line_kind` gives to
//! the general engine), and their answers.

use serde::Deserialize;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::general::proof::Proof;
use crate::general::{
    default_need, GeneralBatch, GeneralCase, GeneralOutcome, MAX_GENERAL_GENERATORS,
};
use crate::CaseKind;

/// One general input line, read whole (the general path is not the per-line hot path).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GeneralLine<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    generators: Vec<Vec<f64>>,
    #[serde(default)]
    need: Option<Vec<f64>>,
}

impl<'a> GeneralLine<'a> {
    /// Reads `text` in this form (any line of a case's fields whose generators are lists of
    /// numbers).
    ///
    /// # Errors
    ///
    /// serde's, when the line is not of this form.
    pub(crate) fn read(text: &'a [u8]) -> Result<GeneralLine<'a>, serde_json::Error> {
        serde_json::from_slice(text)
    }

    /// The engine the line is for ([`CaseKind::of_numbers`]): its generators' count and the
    /// first one's length (without generators, the need's; else 3), and its numbers.
    pub(crate) fn kind(&self) -> CaseKind {
        let numbers = self.generators.iter().chain(&self.need).flatten();
        CaseKind::of_numbers(self.dim(), self.generators.len(), numbers.copied())
    }

    fn dim(&self) -> usize {
        self.generators
            .first()
            .map(Vec::len)
            .or(self.need.as_ref().map(Vec::len))
            .unwrap_or(3)
    }

    /// Checks the line as a general case and appends it to `batch`; returns its id's JSON
    /// text and its index in the batch, or why it is refused.
    pub(crate) fn push_into(
        self,
        batch: &mut GeneralBatch,
    ) -> Result<(Option<&'a str>, u32), String> {
        let bad = |m: String| Err(format!("not a valid case: {m}"));
        let k = self.generators.len();
        let dim = self.dim();
        if k > MAX_GENERAL_GENERATORS {
            return bad(format!(
                "{k} generators, more than {MAX_GENERAL_GENERATORS}"
            ));
        }
        if dim != 3 && dim != 6 {
            return bad(format!("generator 0 has {dim} numbers: 3 or 6 are taken"));
        }
        if let Some((i, g)) = self
            .generators
            .iter()
            .enumerate()
            .find(|(_, g)| g.len() != dim)
        {
            return bad(format!(
                "generator {i} has {} numbers, generator 0 has {dim}",
                g.len()
            ));
        }
        let need = self.need.as_deref().unwrap_or(default_need(dim));
        if need.len() != dim {
            return bad(format!(
                "the need has {} numbers, the generators {dim}",
                need.len()
            ));
        }
        let flat: Vec<f64> = self.generators.concat();
        match batch.push(dim, &flat, need) {
            Ok(index) => Ok((self.id.map(RawValue::get), index)),
            Err(e) => bad(e.to_string()),
        }
    }
}

/// Reads `text`, a line [`super::json::line_kind`] classified as general, into `batch`;
/// returns its id's JSON text and its index in the batch, or why it is refused.
pub(crate) fn parse_general<'t>(
    text: &'t [u8],
    batch: &mut GeneralBatch,
) -> Result<(Option<&'t str>, u32), String> {
    match GeneralLine::read(text) {
        Ok(line) => line.push_into(batch),
        Err(e) => Err(format!("not a valid case: {}", crate::error::one_line(&e))),
    }
}

/// One general answer line (docs/contract-general.md).
#[derive(Serialize)]
pub struct GeneralAnswer<'a> {
    /// The input's id, as given.
    pub id: Option<&'a RawValue>,
    /// "supported", "unsupported" or "uncertain".
    pub verdict: &'static str,
    /// Signed distance to the boundary, at most 1000: the bound from above.
    pub margin: f64,
    /// The bound from below (docs/contract-general.md §9).
    pub margin_lower: f64,
    /// The cone is all of R^d.
    pub capped: bool,
    /// Indices and weights, when supported.
    pub witness: Option<WitnessOut<'a>>,
    /// The nearest certificate, when unsupported.
    pub certificate: Option<&'a [f64]>,
    /// What binds, when there is something.
    pub facet: Option<FacetOut<'a>>,
    /// The margin is proven: false only where the facet set could not be proven complete
    /// (the margin is then an upper bound).
    pub margin_checked: bool,
    /// With `--proof`: the proof of the two bounds (docs/proof.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<&'a Proof>,
}

/// A witness in an answer.
#[derive(Serialize)]
pub struct WitnessOut<'a> {
    /// Generator indices, ascending.
    pub generators: &'a [u32],
    /// Their weights.
    pub weights: &'a [f64],
}

/// A facet in an answer.
#[derive(Serialize)]
pub struct FacetOut<'a> {
    /// Unit inward normal.
    pub normal: &'a [f64],
    /// The generators on it, ascending.
    pub generators: Vec<u32>,
}

impl<'a> GeneralAnswer<'a> {
    /// The answer to a case of dimension `d` from its outcome `o`.
    pub fn new(id: Option<&'a RawValue>, d: usize, o: &'a GeneralOutcome) -> GeneralAnswer<'a> {
        GeneralAnswer {
            id,
            verdict: o.verdict.as_str(),
            margin: o.margin,
            margin_lower: o.margin_lower,
            capped: o.capped,
            witness: o.witness().map(|(generators, weights)| WitnessOut {
                generators,
                weights,
            }),
            certificate: o.certificate.as_ref().map(|c| &c[..d]),
            facet: o.facet.as_ref().map(|f| FacetOut {
                normal: &f.normal[..d],
                generators: f.generators.iter().collect(),
            }),
            margin_checked: o.margin_checked,
            proof: None,
        }
    }
}

/// Appends the answer line of a general case to `out`.
pub(crate) fn write_general_answer(
    out: &mut Vec<u8>,
    id: Option<&str>,
    case: &GeneralCase<'_>,
    o: &GeneralOutcome,
    proof: Option<&Proof>,
) {
    let raw = id.and_then(|t| serde_json::from_str::<&RawValue>(t).ok());
    let mut answer = GeneralAnswer::new(raw, case.dim, o);
    answer.proof = proof;
    super::json::write_line(out, &answer);
}

#[cfg(test)]
mod tests {
    use super::super::json::plain_general;
    use super::*;
    use crate::rng::Rng;

    /// The serde reading of a line: generators flat, dimension, need, id.
    type Read<'a> = (Option<&'a str>, Vec<f64>, usize, Option<Vec<f64>>);

    fn by_serde(text: &str) -> Option<Read<'_>> {
        let line = GeneralLine::read(text.as_bytes()).ok()?;
        let dim = line.dim();
        Some((
            line.id.map(RawValue::get),
            line.generators.concat(),
            dim,
            line.need,
        ))
    }

    fn by_scan(text: &str) -> Option<Read<'_>> {
        let mut flat = Vec::new();
        let (id, dim, need) = plain_general(text.as_bytes(), &mut flat)?;
        Some((id, flat, dim, need.map(|n| n[..dim].to_vec())))
    }

    /// The scanner reads the plain general lines as serde does, bit for bit (random
    /// numbers written shortest and with exponents, ids of every kind, spaces anywhere),
    /// and leaves every other line, valid or not, to serde.
    #[test]
    fn the_general_scan_agrees_with_serde() {
        let mut rng = Rng::new(6);
        let mut lines = Vec::new();
        for i in 0..2000 {
            let dim = if i % 3 == 0 { 3 } else { 6 };
            let k = 1 + rng.below(if dim == 3 { 256 } else { 64 });
            let number = |rng: &mut Rng| {
                let x = f64::from(rng.range(-1.0, 1.0)) * 10f64.powi(rng.below(41) as i32 - 20);
                match rng.below(4) {
                    0 => format!("{x:e}"),
                    1 => format!("{}", rng.below(1000) as i64 - 500),
                    _ => format!("{x}"),
                }
            };
            let list = |rng: &mut Rng, n: usize| {
                let v: Vec<String> = (0..n).map(|_| number(rng)).collect();
                format!("[{}]", v.join(if i % 5 == 0 { " , " } else { "," }))
            };
            let gens: Vec<String> = (0..k).map(|_| list(&mut rng, dim)).collect();
            let mut fields = vec![format!("\"generators\": [{}]", gens.join(", "))];
            match i % 4 {
                0 => fields.push(format!("\"need\": {}", list(&mut rng, dim))),
                1 => fields.push("\"need\": null".into()),
                _ => {}
            }
            match i % 6 {
                0 => fields.push(format!("\"id\": {i}")),
                1 => fields.push(format!("\"id\": \"case {i}\"")),
                2 => fields.push("\"id\": {\"a\": [1, \"\\u00e9\"]}".into()),
                3 => fields.push("\"id\": null".into()),
                4 => fields.push("\"id\": \"tab\\tescaped\"".into()),
                _ => {}
            }
            if i % 2 == 1 {
                fields.reverse();
            }
            lines.push(format!(" {{ {} }} ", fields.join(" , ")));
        }
        for line in &lines {
            let scanned = by_scan(line);
            assert!(scanned.is_some(), "the scan gave up on {line}");
            let (a, b) = (scanned.unwrap(), by_serde(line).unwrap());
            assert_eq!((a.0, a.2), (b.0, b.2), "{line}");
            assert!(a
                .1
                .iter()
                .zip(&b.1)
                .all(|(x, y)| x.to_bits() == y.to_bits()));
            assert_eq!(a.1.len(), b.1.len());
            assert_eq!(a.3, b.3, "{line}");
        }
        // Valid lines it leaves to serde (escaped or repeated keys, lengths serde's checks
        // refuse later), and invalid ones.
        let g = "[[1, 0, 0, 0, 0, 0]]";
        let many: Vec<&str> = vec!["[1, 0, 0]"; 257];
        for line in [
            format!(r#"{{"gen\u0065rators": {g}}}"#),
            format!(r#"{{"generators": {g}, "generators": {g}}}"#),
            format!(r#"{{"generators": {g}, "id": 1, "id": 2}}"#),
            format!(r#"{{"generators": {g}, "need": null, "need": [1, 0, 0, 0, 0, 0]}}"#),
            format!(r#"{{"generators": {g}, "extra": 1}}"#),
            format!(r#"{{"generators": {g}, "need": [1, 0, 0]}}"#),
            format!(r#"{{"generators": {g}}} x"#),
            format!(r#"{{"generators": {g},}}"#),
            format!("[{{\"generators\": [{}]}}]", many.join(",")),
            format!("{{\"generators\": [{}]}}", many.join(",")),
            r#"{"generators": [[1, 0, 0, 0, 0, 0], [1, 0, 0]]}"#.into(),
            r#"{"generators": [[1, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[1e400, 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[+1, 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[.5, 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[01, 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[1., 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[NaN, 0, 0, 0, 0, 0]]}"#.into(),
            r#"{"generators": [[]]}"#.into(),
            r#"{"generators": []}"#.into(),
            r#"{"need": [0, 0, 1]}"#.into(),
            r#"{"generators": [[1, 0, 0, 0, 0, 0]"#.into(),
        ] {
            assert!(by_scan(&line).is_none(), "the scan took {line}");
        }
    }
}
