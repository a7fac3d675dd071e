//! The JSON Lines form of cases and answers (`planar-hold eval`), typed end to end: a line is
//! read straight into a [`Case`] (no `serde_json::Value` tree; the id is kept as its raw
//! text) and an answer is written straight from the [`Outcome`].

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::one_line;
use crate::planar::tables::{Candidate, CANDIDATE_COUNT};
use crate::planar::types::{Case, Outcome, MAX_GENERATORS};
use crate::CaseKind;

/// The need when a line gives none: gravity on a unit mass, (0, 1, 0).
pub(crate) const DEFAULT_NEED: [f32; 3] = [0.0, 1.0, 0.0];

/// One input line: `{"id": ..., "generators": [[fx, fz, m], ...], "need": [x, y, z]}`.
/// Unknown fields are refused: a typo such as `"Need"` must not fall back to the default.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseLine<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    generators: Generators,
    #[serde(default)]
    need: Option<Triple>,
}

/// Up to [`MAX_GENERATORS`] generators, read in place (no allocation per line).
struct Generators {
    len: usize,
    items: [[f32; 3]; MAX_GENERATORS],
}

/// Three numbers, checked finite in float32.
struct Triple([f32; 3]);

/// Reads one triple, naming it ("generator 3", "need") in its errors.
struct TripleSeed<'w>(&'w dyn fmt::Display);

impl<'de> DeserializeSeed<'de> for TripleSeed<'_> {
    type Value = [f32; 3];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 3], D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TripleSeed<'_> {
    type Value = [f32; 3];
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: an array of three numbers", self.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f32; 3], A::Error> {
        let mut wide = [0f64; 3];
        let mut n = 0;
        while let Some(x) = seq.next_element::<f64>()? {
            if n < 3 {
                wide[n] = x;
            }
            n += 1;
        }
        if n != 3 {
            return Err(de::Error::custom(format_args!(
                "{} must be three numbers, got {n}",
                self.0
            )));
        }
        let narrow = wide.map(|x| x as f32);
        if narrow.iter().all(|c| c.is_finite()) {
            Ok(narrow)
        } else {
            Err(de::Error::custom(format_args!(
                "{} = {wide:?} is not finite in float32",
                self.0
            )))
        }
    }
}

impl<'de> Deserialize<'de> for Triple {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Triple, D::Error> {
        TripleSeed(&"need").deserialize(d).map(Triple)
    }
}

struct GeneratorIndex(usize);

impl fmt::Display for GeneratorIndex {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "generator {}", self.0)
    }
}

impl<'de> Deserialize<'de> for Generators {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Generators, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Generators;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("generators: an array of [fx, fz, m] triples")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Generators, A::Error> {
                let mut out = Generators {
                    len: 0,
                    items: [[0.0; 3]; MAX_GENERATORS],
                };
                while out.len < MAX_GENERATORS {
                    let seed = TripleSeed(&GeneratorIndex(out.len));
                    match seq.next_element_seed(seed)? {
                        Some(g) => out.items[out.len] = g,
                        None => return Ok(out),
                    }
                    out.len += 1;
                }
                // Count the rest for the message without keeping them.
                let mut n = out.len;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                if n > MAX_GENERATORS {
                    return Err(de::Error::custom(format_args!(
                        "{n} generators, more than {MAX_GENERATORS} \
                         (at most 4 body pairs × 2 endpoints × 2 rays)"
                    )));
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V)
    }
}

/// Parses one line (bytes: invalid UTF-8 is this line's error, no one else's) into its id
/// (its JSON text, echoed back as given) and case. No allocation unless the line is bad.
pub(crate) fn parse_case_raw(text: &[u8]) -> Result<(Option<&str>, Case), String> {
    match plain_case(text) {
        Some(parsed) => Ok(parsed),
        None => parse_serde(text),
    }
}

/// The line's id and case when it is a planar case in the plain form (keys without escapes,
/// each once, 0 to 16 generators of three numbers): read and classified in one pass, the
/// hot path. `None` for any other line, which [`line_kind`] then classifies.
pub(crate) fn plain_case(text: &[u8]) -> Option<(Option<&str>, Case)> {
    fast::parse(text)
}

/// A plain general line read: its id's JSON text, dimension and need (its generators go to
/// the caller's buffer).
pub(crate) type PlainGeneral<'a> = (Option<&'a str>, usize, Option<[f64; 6]>);

/// A general line in the plain form ([`fast::parse_general`]): its generators into `flat`,
/// its id's JSON text, dimension and need; `None` for any other line.
pub(crate) fn plain_general<'a>(text: &'a [u8], flat: &mut Vec<f64>) -> Option<PlainGeneral<'a>> {
    fast::parse_general(text, flat)
}

/// The planar reader of any line [`plain_case`] leaves, valid or not: its case, or its
/// error (serde's words, with the column).
pub(crate) fn parse_serde(text: &[u8]) -> Result<(Option<&str>, Case), String> {
    let line: CaseLine =
        serde_json::from_slice(text).map_err(|e| format!("not a valid case: {}", one_line(&e)))?;
    let need = line.need.map_or(DEFAULT_NEED, |t| t.0);
    let case = Case::new(&line.generators.items[..line.generators.len], need)
        .map_err(|e| e.to_string())?;
    Ok((line.id.map(RawValue::get), case))
}

/// The engine a line is for ([`CaseKind::of`]), from its shape alone: the generators'
/// count and the dimension (the first generator's numbers; without generators, the need's;
/// else 3). A line whose shape cannot be read (not JSON, not an object, `generators` not
/// an array) is planar: the planar reader says what is wrong with it.
pub(crate) fn line_kind(text: &[u8]) -> CaseKind {
    match serde_json::from_slice::<shape::Shape>(text) {
        Ok(shape) => shape.kind(),
        Err(_) => CaseKind::Planar,
    }
}

/// Parses one line into its id (echoed back as given) and case; the error says what is wrong.
pub fn parse_case(text: &str) -> Result<(Option<Value>, Case), String> {
    let (id, case) = parse_case_raw(text.as_bytes())?;
    let id = id
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| format!("not a valid case: id: {e}"))?;
    Ok((id, case))
}

/// The id of a line that could not be parsed, when it is a JSON object with one: read up to
/// the first broken value (a truncated or NaN-bearing line keeps the id before the break),
/// so that an error line can be matched to its input.
pub fn salvage_id(text: &[u8]) -> Option<Value> {
    crate::probe::probe(text).id
}

/// One output line. `I` is the id's form: `Value`, or `&RawValue` to echo the input's text.
#[derive(Serialize)]
pub struct Answer<I = Value> {
    /// The input line's `id`, omitted when it had none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<I>,
    /// "supported", "unsupported" or "uncertain" (docs/contract-planar.md §4–§7).
    pub verdict: &'static str,
    /// Signed distance of the need to the cone's boundary (docs/contract-planar.md §6), at most 1000.
    pub margin: f32,
    /// True when no candidate supports the cone (it fills R³) and the margin is the cap.
    pub capped: bool,
    /// Present only when supported (docs/contract-planar.md §4).
    pub witness: Option<WitnessJson>,
    /// Unit normal `y` with `y·wᵢ ≥ 0` and `y·need < 0`; present only when unsupported (docs/contract-planar.md §5).
    pub certificate: Option<[f32; 3]>,
    /// Index of the nearest supporting candidate in the table of docs/contract-planar.md §5; none when capped.
    pub binding: Option<u32>,
    /// The binding candidate in words, e.g. "+(w0 x w3)".
    pub binding_candidate: Option<&'static str>,
}

/// The witness of an answer: `need = Σ weights[k] · w[generators[k]]` (docs/contract-planar.md §4).
#[derive(Serialize)]
pub struct WitnessJson {
    /// Generator slots, ascending, 0 to 3 of them.
    pub generators: Vec<u32>,
    /// Re-solved in float64 on the subset found (`Witness::polished`).
    pub weights: Vec<f64>,
}

impl<I> Answer<I> {
    /// The answer to `case` from its outcome `o`, with the witness weights polished.
    pub fn new(id: Option<I>, case: &Case, o: &Outcome) -> Answer<I> {
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
            binding_candidate: o.binding().and_then(candidate_name),
        }
    }
}

/// The name of candidate `index` ("+(w0 x w3)"), formatted once per table entry.
pub(crate) fn candidate_name(index: u32) -> Option<&'static str> {
    candidate_names()
        .get(index as usize)
        .map(|(name, _)| name.as_str())
}

/// Each candidate's name, and its JSON string as serde_json writes it.
fn candidate_names() -> &'static [(String, String)] {
    static NAMES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        (0..CANDIDATE_COUNT as u32)
            .map(|i| {
                let name = Candidate::at(i).map_or_else(String::new, |c| c.to_string());
                let json = serde_json::to_string(&name).expect("a string serializes");
                (name, json)
            })
            .collect()
    })
}

/// The output line of an input line that was refused: its number, its id when it had one.
#[derive(Serialize)]
pub struct ErrorLine<'a> {
    /// The line's `id` when it could be read, else `null`.
    pub id: Option<Value>,
    /// 1-based line number in the input.
    pub line: u64,
    /// Why the line was refused.
    pub error: &'a str,
}

/// Appends `value` and a newline to `out`.
pub fn write_line<T: Serialize>(out: &mut Vec<u8>, value: &T) {
    write_serde(out, value);
    out.push(b'\n');
}

/// Appends `[a,b,...]`, each item written by `item`.
pub(crate) fn write_array<T: Copy>(out: &mut Vec<u8>, items: &[T], item: impl Fn(&mut Vec<u8>, T)) {
    out.push(b'[');
    for (k, &x) in items.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}

/// Appends the line that `write_line(out, &Answer::new(id, case, o))` appends, byte for
/// byte, without building the [`Answer`] and its vectors: eval's answers, which the serde
/// path took twice as long to write. Same keys in the same order, floats by `zmij` and
/// integers by `itoa` as serde_json writes them, a non-finite float as `null`. `id` is the
/// id's JSON text, written as it is.
pub(crate) fn write_answer(out: &mut Vec<u8>, id: Option<&str>, case: &Case, o: &Outcome) {
    out.push(b'{');
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        out.extend_from_slice(id.as_bytes());
        out.push(b',');
    }
    // The verdicts are lowercase words: no escapes.
    out.extend_from_slice(b"\"verdict\":\"");
    out.extend_from_slice(o.verdict().as_str().as_bytes());
    out.extend_from_slice(b"\",\"margin\":");
    write_f32(out, o.margin);
    out.extend_from_slice(if o.is_capped() {
        b",\"capped\":true,\"witness\":"
    } else {
        b",\"capped\":false,\"witness\":"
    });
    match o.witness_parts() {
        Some((slots, weights)) => {
            let polished = crate::planar::types::polish(case, slots, &weights[..slots.len()]);
            out.extend_from_slice(b"{\"generators\":");
            write_array(out, slots, |out, slot| {
                out.extend_from_slice(itoa::Buffer::new().format(slot).as_bytes());
            });
            out.extend_from_slice(b",\"weights\":");
            write_array(out, &polished[..slots.len()], write_f64);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"certificate\":");
    match o.certificate() {
        Some(certificate) => write_array(out, &certificate, write_f32),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"binding\":");
    match o.binding() {
        Some(b) => out.extend_from_slice(itoa::Buffer::new().format(b).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"binding_candidate\":");
    match o.binding().and_then(|b| candidate_names().get(b as usize)) {
        Some((_, json)) => out.extend_from_slice(json.as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b"}\n");
}

fn write_f32(out: &mut Vec<u8>, x: f32) {
    if x.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends `x` as serde_json writes a float64: its shortest decimal by zmij, `null` where
/// it is not finite.
pub(crate) fn write_f64(out: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends an unsigned integer as serde_json writes it.
pub(crate) fn write_usize(out: &mut Vec<u8>, x: usize) {
    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// Appends `s` as a JSON string as serde_json writes it: as it is between quotes where it
/// has nothing to escape (a quote, a backslash, a control character), else by serde_json.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        write_serde(out, s);
    }
}

/// Appends a JSON value (an echoed id, a verdict word) as serde_json writes it: the
/// usual forms directly, any other by serde_json.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::String(s) => write_str(out, s),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes()),
            (None, Some(i)) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
            _ => write_serde(out, n),
        },
        _ => write_serde(out, v),
    }
}

/// Appends `value` as serde_json writes it (no newline).
pub(crate) fn write_serde<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Writing into a Vec fails only for a non-string map key, which these types never have.
    serde_json::to_writer(&mut *out, value).expect("answers serialize to JSON");
}

/// The float64 that a JSON reader gets back from the shortest decimal of `x`, as
/// `serde_json` writes it: columnar outputs store this so that they read back as the
/// JSON answers do.
#[cfg(any(test, feature = "parquet"))]
pub(crate) fn f32_as_written(x: f32) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x);
    decimal_fast(text.as_bytes()).unwrap_or_else(|| fast_float2::parse(text).unwrap_or(f64::NAN))
}

/// A short decimal (`-`, digits, `.`, digits, `e`, exponent: what zmij writes) read exactly
/// where that takes one correctly rounded operation (Clinger's fast path: the digits below
/// 2⁵³, the power of ten at most 10²² either way, both exact in float64), as every correct
/// reader rounds it; `None` for any other text, which the general reader takes.
#[cfg(any(test, feature = "parquet"))]
fn decimal_fast(text: &[u8]) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (negative, mut rest) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    let (mut digits, mut mantissa, mut scale) = (0u32, 0u64, 0i32);
    let mut point = false;
    while let [b, tail @ ..] = rest {
        match b {
            b'0'..=b'9' => {
                if digits == 0 && *b == b'0' {
                    // Leading zeros count for nothing but the scale below the point.
                } else {
                    digits += 1;
                }
                if digits > 17 {
                    return None;
                }
                mantissa = mantissa * 10 + u64::from(b - b'0');
                scale -= i32::from(point);
            }
            b'.' if !point => point = true,
            _ => break,
        }
        rest = tail;
    }
    let exponent = match rest {
        [] => 0,
        [b'e' | b'E', tail @ ..] => {
            let (sign, tail) = match tail {
                [b'-', t @ ..] => (-1, t),
                [b'+', t @ ..] => (1, t),
                t => (1, t),
            };
            if tail.is_empty() || tail.len() > 4 || !tail.iter().all(u8::is_ascii_digit) {
                return None;
            }
            sign * tail.iter().fold(0i32, |e, d| e * 10 + i32::from(d - b'0'))
        }
        _ => return None,
    };
    let e = scale + exponent;
    if mantissa >= 1 << 53 || e.unsigned_abs() as usize >= POW10.len() {
        return None;
    }
    let m = mantissa as f64;
    let value = if e >= 0 {
        m * POW10[e as usize]
    } else {
        m / POW10[(-e) as usize]
    };
    Some(if negative { -value } else { value })
}

/// A line's shape for [`line_kind`], read without keeping a number: how many generators,
/// the first one's length, the need's length. Unknown keys are skipped (the readers refuse
/// them); a repeated key's last value counts.
mod shape {
    use std::fmt;

    use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer};

    use crate::CaseKind;

    pub(super) struct Shape {
        /// The generators' count and the first one's length, when `generators` is a list.
        generators: Option<(usize, Option<usize>)>,
        need: Option<usize>,
    }

    impl Shape {
        pub(super) fn kind(&self) -> CaseKind {
            match self.generators {
                None => CaseKind::Planar,
                Some((k, first)) => {
                    let dim = first.or(if k == 0 { self.need } else { None });
                    CaseKind::of(dim.unwrap_or(3), k)
                }
            }
        }
    }

    /// A value's length when it is a list, else `None`.
    struct Len(Option<usize>);

    impl<'de> Deserialize<'de> for Len {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Len, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Len;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("any value")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Len, A::Error> {
                    let mut n = 0;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Len(Some(n)))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Len, A::Error> {
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    Ok(Len(None))
                }
                fn visit_bool<E: de::Error>(self, _: bool) -> Result<Len, E> {
                    Ok(Len(None))
                }
                fn visit_i64<E: de::Error>(self, _: i64) -> Result<Len, E> {
                    Ok(Len(None))
                }
                fn visit_u64<E: de::Error>(self, _: u64) -> Result<Len, E> {
                    Ok(Len(None))
                }
                fn visit_f64<E: de::Error>(self, _: f64) -> Result<Len, E> {
                    Ok(Len(None))
                }
                fn visit_str<E: de::Error>(self, _: &str) -> Result<Len, E> {
                    Ok(Len(None))
                }
                fn visit_unit<E: de::Error>(self) -> Result<Len, E> {
                    Ok(Len(None))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// The generators' count and the first one's length, when a list.
    struct Generators(Option<(usize, Option<usize>)>);

    impl<'de> Deserialize<'de> for Generators {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Generators, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Generators;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("any value")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Generators, A::Error> {
                    let first = match seq.next_element::<Len>()? {
                        None => return Ok(Generators(Some((0, None)))),
                        Some(Len(first)) => first,
                    };
                    let mut n = 1;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Generators(Some((n, first))))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Generators, A::Error> {
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    Ok(Generators(None))
                }
                fn visit_bool<E: de::Error>(self, _: bool) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
                fn visit_i64<E: de::Error>(self, _: i64) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
                fn visit_u64<E: de::Error>(self, _: u64) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
                fn visit_f64<E: de::Error>(self, _: f64) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
                fn visit_str<E: de::Error>(self, _: &str) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
                fn visit_unit<E: de::Error>(self) -> Result<Generators, E> {
                    Ok(Generators(None))
                }
            }
            d.deserialize_any(V)
        }
    }

    #[derive(Deserialize)]
    #[serde(field_identifier, rename_all = "lowercase")]
    enum Key {
        Generators,
        Need,
        #[serde(other)]
        Other,
    }

    impl<'de> Deserialize<'de> for Shape {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Shape;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
                    let mut shape = Shape {
                        generators: None,
                        need: None,
                    };
                    while let Some(key) = map.next_key::<Key>()? {
                        match key {
                            Key::Generators => shape.generators = map.next_value::<Generators>()?.0,
                            Key::Need => shape.need = map.next_value::<Len>()?.0,
                            Key::Other => {
                                map.next_value::<IgnoredAny>()?;
                            }
                        }
                    }
                    Ok(shape)
                }
            }
            d.deserialize_map(V)
        }
    }
}

/// The hot path of [`parse_case_raw`]: a scanner for the plain shape of a case line (keys
/// without escapes, each once, numbers parsed by `fast-float2`, correctly rounded as
/// `serde_json`'s `float_roundtrip` does). It gives up (`None`) on anything else, valid or
/// not, and the `serde` path then answers, with its error messages: the two agree on
/// every line the scanner accepts.
mod fast {
    use super::DEFAULT_NEED;
    use crate::engine::float32_holds;
    use crate::general::MAX_GENERAL_GENERATORS;
    use crate::planar::types::{Case, MAX_GENERATORS};
    use crate::scan::Scanner;

    enum Key {
        Id,
        Generators,
        Need,
    }

    /// One of the keys, quoted, as written without escapes; `None` for any other.
    fn key(s: &mut Scanner<'_>) -> Option<Key> {
        s.skip_ws();
        if s.eat(b"\"generators\"") {
            Some(Key::Generators)
        } else if s.eat(b"\"need\"") {
            Some(Key::Need)
        } else if s.eat(b"\"id\"") {
            Some(Key::Id)
        } else {
            None
        }
    }

    /// `[x, y, z]`, finite in float32, each as float32 holds it ([`float32_holds`]: a
    /// line with another number goes to the general engine).
    fn triple(s: &mut Scanner<'_>) -> Option<[f32; 3]> {
        let mut wide = [0f64; 3];
        if s.numbers_into(&mut wide)? != 3 || !wide.into_iter().all(float32_holds) {
            return None;
        }
        let v = wide.map(|x| x as f32);
        v.iter().all(|x| x.is_finite()).then_some(v)
    }

    pub(super) fn parse(text: &[u8]) -> Option<(Option<&str>, Case)> {
        let mut s = Scanner { text, at: 0 };
        let mut gens = [[0f32; 3]; MAX_GENERATORS];
        let (mut count, mut need, mut id) = (None, None, None);
        let mut seen_id = false;
        s.expect(b'{')?;
        if s.peek()? == b'}' {
            return None; // no generators: the serde path says so
        }
        loop {
            let key = key(&mut s)?;
            s.expect(b':')?;
            match key {
                Key::Generators if count.is_none() => {
                    s.expect(b'[')?;
                    let mut n = 0;
                    if s.peek()? == b']' {
                        s.at += 1;
                    } else {
                        loop {
                            if n == MAX_GENERATORS {
                                return None;
                            }
                            gens[n] = triple(&mut s)?;
                            n += 1;
                            if !s.more_elements()? {
                                break;
                            }
                        }
                    }
                    count = Some(n);
                }
                Key::Need if need.is_none() => {
                    s.skip_ws();
                    need = Some(if s.eat(b"null") {
                        DEFAULT_NEED
                    } else {
                        triple(&mut s)?
                    });
                }
                Key::Id if !seen_id => {
                    seen_id = true;
                    id = s.id()?;
                }
                _ => return None,
            }
            if !s.more_members()? {
                break;
            }
        }
        if !s.at_end() {
            return None;
        }
        // What `Case::new` builds, in place: its checks have passed (at most 16 triples, each
        // finite) and its copy of a slice of variable length costs 4% of a line.
        let case = Case {
            generators: gens,
            need: need.unwrap_or(DEFAULT_NEED),
            active_mask: ((1u64 << count?) - 1) as u32,
        };
        Some((id, case))
    }

    /// A general line (docs/contract-general.md) in the plain form: keys without escapes,
    /// each once; `generators` one or more lists of 3 or 6 finite numbers, all as long,
    /// at most [`MAX_GENERAL_GENERATORS`]; `need` (optional, or `null`) as long; `id`. Its
    /// generators appended to `flat` (cleared first); returns its id's JSON text, the
    /// dimension and the need. `None` on anything else, valid or not, which the serde path
    /// reads with its error messages: the two agree on every line this one accepts.
    pub(super) fn parse_general<'a>(
        text: &'a [u8],
        flat: &mut Vec<f64>,
    ) -> Option<super::PlainGeneral<'a>> {
        let mut s = Scanner { text, at: 0 };
        flat.clear();
        let (mut dim, mut need, mut id) = (None, None, None);
        let (mut seen_id, mut seen_need) = (false, false);
        let mut need_values = [0.0; 6];
        s.expect(b'{')?;
        loop {
            let key = key(&mut s)?;
            s.expect(b':')?;
            match key {
                Key::Generators if dim.is_none() => {
                    s.expect(b'[')?;
                    let mut k = 0;
                    loop {
                        let len = s.numbers(flat)?;
                        if len != 3 && len != 6 || dim.is_some_and(|d| d != len) {
                            return None;
                        }
                        dim = Some(len);
                        k += 1;
                        if k > MAX_GENERAL_GENERATORS {
                            return None;
                        }
                        if !s.more_elements()? {
                            break;
                        }
                    }
                }
                Key::Need if !seen_need => {
                    seen_need = true;
                    s.skip_ws();
                    if !s.eat(b"null") {
                        let mut v = Vec::with_capacity(6);
                        let len = s.numbers(&mut v)?;
                        if len > 6 {
                            return None;
                        }
                        need_values[..len].copy_from_slice(&v);
                        need = Some(len);
                    }
                }
                Key::Id if !seen_id => {
                    seen_id = true;
                    id = s.id()?;
                }
                _ => return None,
            }
            if !s.more_members()? {
                break;
            }
        }
        s.skip_ws();
        let dim = dim?;
        if s.at != text.len() || need.is_some_and(|n| n != dim) {
            return None;
        }
        Some((id, dim, need.map(|_| need_values)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planar::types::NO_BINDING;
    use crate::Verdict;

    /// The scanner accepts the plain lines and agrees with the serde path on each; it
    /// leaves the rest to serde.
    #[test]
    fn the_fast_path_agrees_with_serde() {
        let mut lines: Vec<String> = crate::planar::sample::cone_cases(5, 3000)
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let gens: Vec<[f64; 3]> = c
                    .active_generators()
                    .map(|(_, g)| g.map(|x| x as f64 * (1.0 + 1e-9 * i as f64)))
                    .collect();
                serde_json::json!({"id": i, "generators": gens, "need": c.need}).to_string()
            })
            .collect();
        lines.extend(
            [
                r#" { "generators" : [ [ 0 , 1 , 0 ] ] , "id" : { "a" : [1, "x"] } } "#,
                r#"{"need": null, "generators": [[1e-3, -2E+2, 0.5e1]], "id": null}"#,
                r#"{"generators": [], "id": "e"}"#,
                r#"{"id": "s\"q", "generators": [[-0, 1, 0]], "need": [0.1, 0.2, 0.30000000000000004]}"#,
                r#"{"generators": [[1.00000001, 1, 0]], "need": [1, 1, 1]}"#,
                // Ids read by the plain-string scan, and by serde (escapes, other types).
                r#"{"id": "", "generators": [[0, 1, 0]]}"#,
                "{\"id\": \"ü € 😀 \u{7f}\", \"generators\": [[0, 1, 0]]}",
                r#"{"id": "tab\tand \u00e9 and \\", "generators": [[0, 1, 0]]}"#,
                r#"{"id": "nul\u0000", "generators": [[0, 1, 0]]}"#,
                r#"{"id": -1.5e3, "generators": [[0, 1, 0]]}"#,
                r#"{"id": ["a", {"b": null}], "generators": [[0, 1, 0]]}"#,
            ]
            .map(String::from),
        );
        for line in &lines {
            assert!(
                fast::parse(line.as_bytes()).is_some(),
                "fast path gave up on {line}"
            );
            assert_agree(line);
        }
        // Valid lines it leaves to serde, and invalid ones.
        for line in [
            r#"{"gen\u0065rators": [[0, 1, 0]]}"#,
            r#"{"generators": [[0, 1, 0]], "generators": [[0, 1, 0]]}"#,
            r#"{"generators": [[0, 1, 0]], "Need": [0, 1, 0]}"#,
            r#"{"generators": [[0, 1, 0]], "ids": 1}"#,
            r#"{"generators": [[0, 1, 0]], "need": nul}"#,
            r#"{"generators": [[0, 1, 0]], "need": nulls}"#,
            r#"{"generators": [[0, 1, 0]], "need": [0, 1, 0], "need": null}"#,
            r#"{"generators": [[0, 1, 0]], "id": 1, "id": 2}"#,
            r#"{"generators": [[0, 1, 0]], "id": tru}"#,
            "{\"generators\": [[0, 1, 0]], \"id\": \"raw\ttab\"}",
            "{\"generators\": [[0, 1, 0]], \"id\": \"raw\nnewline\"}",
            r#"{"generators": [[0, 1, 0]], "id": "unterminated}"#,
            r#"{"generators" [[0, 1, 0]]}"#,
            r#"{"generators": [[0, 1, 0]] "need": [0, 1, 0]}"#,
            r#"{"generators": [[0, 1, 0]]"#,
            r#"{"generators": [[0, 1]]}"#,
            r#"{"generators": [[0, 1, 1e39]]}"#,
            r#"{"generators": [[01, 1, 0]]}"#,
            r#"{"generators": [[0, 1, 0]]} x"#,
            r#"{"generators": [[0, 1, 0],]}"#,
            r#"{}"#,
        ] {
            assert!(fast::parse(line.as_bytes()).is_none(), "{line}");
            assert_agree(line);
        }
        assert!(parse_case_raw(br#"{"gen\u0065rators": [[0, 1, 0]]}"#).is_ok());
        // An id that is not UTF-8 spoils its line on either path.
        let bad = b"{\"id\": \"\xff\", \"generators\": [[0, 1, 0]]}";
        assert!(fast::parse(bad).is_none() && parse_case_raw(bad).is_err());
    }

    /// The direct writer appends what serde writes from an [`Answer`], byte for byte: the
    /// outcomes of the engine's degenerate cones, then outcomes of every verdict, cap, binding
    /// (none, in the table, past it) and witness size with extreme floats (±0, 1e±30,
    /// subnormal, max, NaN, ∞), under ids of every JSON type.
    #[test]
    fn write_answer_appends_the_serde_line() {
        let ids = [
            None,
            Some("null"),
            Some("true"),
            Some("false"),
            Some("0"),
            Some("-12"),
            Some("1.5e300"),
            Some("18446744073709551616"),
            Some(r#""c0000001""#),
            Some(r#""é \"q\" \\ \n \u0001 \ud83d\ude00""#),
            Some(r#"[1, "a", null, 2.50]"#),
            Some(r#"{"a": {"b": []}, "c": -0.0}"#),
            Some("[]"),
            Some("{}"),
        ]
        .map(|t| t.map(|t| RawValue::from_string(t.to_string()).unwrap()));
        let mut answers: Vec<(Case, Outcome)> = crate::planar::sample::cone_cases(11, 4000)
            .into_iter()
            .map(|c| (c, crate::planar::cone_test::cone_test(&c)))
            .collect();
        let real = answers.len();
        let extremes = [
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            1e30,
            -1e30,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            -f32::MAX,
            1000.0,
            1.0 / 3.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let bindings = [
            NO_BINDING,
            0,
            384,
            CANDIDATE_COUNT as u32 - 1,
            CANDIDATE_COUNT as u32,
        ];
        for (k, &x) in extremes.iter().enumerate() {
            for (case, o) in answers[..real]
                .iter()
                .step_by(97)
                .copied()
                .collect::<Vec<_>>()
            {
                for verdict in 0..4 {
                    let o = Outcome {
                        verdict,
                        margin: x,
                        capped: (k % 2) as u32,
                        certificate: [x, -x, extremes[(k + 1) % extremes.len()]],
                        witness_len: (k % 5) as u32,
                        witness_weight: [x, 1.5, o.witness_weight[2]],
                        witness_exponent: [10 * k as i32 - 70, 100, -100],
                        binding: bindings[k % bindings.len()],
                        ..o
                    };
                    answers.push((case, o));
                }
            }
        }
        let verdicts = |v: Verdict| {
            answers[..real]
                .iter()
                .filter(move |(_, o)| o.verdict() == v)
        };
        assert!(verdicts(Verdict::Supported).any(|(_, o)| o.witness_len == 3));
        assert!(verdicts(Verdict::Supported).any(|(_, o)| o.is_capped()));
        assert!(verdicts(Verdict::Unsupported).any(|(_, o)| !o.is_capped()));
        let (mut direct, mut serde) = (Vec::new(), Vec::new());
        for (n, (case, o)) in answers.iter().enumerate() {
            let id = ids[n % ids.len()].as_deref();
            let (from_direct, from_serde) = (direct.len(), serde.len());
            write_answer(&mut direct, id.map(RawValue::get), case, o);
            write_line(&mut serde, &Answer::new(id, case, o));
            assert_eq!(
                String::from_utf8_lossy(&direct[from_direct..]),
                String::from_utf8_lossy(&serde[from_serde..]),
                "{o:?}"
            );
        }
        assert_eq!(direct, serde);
    }

    /// The fast reading of a written float32 gives the general reader's float64, bit for
    /// bit, on every kind of float32: random bit patterns, the extremes, powers of ten.
    #[test]
    fn floats_read_back_as_the_general_reader_reads_them() {
        let slow = |x: f32| {
            let mut buffer = zmij::Buffer::new();
            fast_float2::parse::<f64, _>(buffer.format_finite(x)).unwrap()
        };
        let mut rng = crate::rng::Rng::new(7);
        let mut xs: Vec<f32> = (0..400_000)
            .map(|_| f32::from_bits(rng.next_u64() as u32))
            .filter(|x| x.is_finite())
            .collect();
        xs.extend((0..200_000).map(|_| (rng.next_u64() % 2_000_001) as f32 / 1000.0 - 1000.0));
        xs.extend((-45..39).map(|e| 10f32.powi(e)));
        xs.extend([
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            -f32::MAX,
            1000.0,
            0.1,
            1.0 / 3.0,
        ]);
        for x in xs {
            let (fast, slow) = (f32_as_written(x), slow(x));
            assert_eq!(fast.to_bits(), slow.to_bits(), "{x:e}");
        }
    }

    /// Lines are classified by their shape alone (the first generator's numbers, or the
    /// need's without generators; the count), a shape that cannot be read going planar.
    #[test]
    fn lines_are_classified_by_shape() {
        let g6 = "[1, 0, 0, 0, 0, 0]";
        let many: Vec<&str> = vec!["[0, 1, 0]"; 17];
        for (line, kind) in [
            (
                r#"{"generators": [[0, 1, 0]]}"#.to_string(),
                CaseKind::Planar,
            ),
            (format!(r#"{{"generators": [{g6}]}}"#), CaseKind::General),
            (
                format!(r#"{{"generators": [{}]}}"#, many.join(",")),
                CaseKind::General,
            ),
            (
                format!(r#"{{"generators": [{}]}}"#, many[..16].join(",")),
                CaseKind::Planar,
            ),
            (
                r#"{"need": [0, 0, 1, 0, 0, 0], "generators": []}"#.to_string(),
                CaseKind::General,
            ),
            (
                format!(r#"{{"generators": [[1, 2, 3], {g6}]}}"#),
                CaseKind::Planar,
            ),
            (
                format!(r#"{{"x": {{"a": [1]}}, "generators": [{g6}, 1], "Need": 2}}"#),
                CaseKind::General,
            ),
            (r#"{"generators": [[1, 2]]}"#.to_string(), CaseKind::Planar),
            (format!(r#"{{"generators": [{g6}]}}"#), CaseKind::General),
            (format!(r#"{{"generators": "{g6}"}}"#), CaseKind::Planar),
            (format!(r#"{{"generators": [{g6}]}} x"#), CaseKind::Planar),
            (format!("[{g6}]"), CaseKind::Planar),
            (
                r#"{"need": [0, 0, 1, 0, 0, 0]}"#.to_string(),
                CaseKind::Planar,
            ),
        ] {
            assert_eq!(line_kind(line.as_bytes()), kind, "{line}");
        }
    }

    /// The two paths agree on `line`: where the scanner accepts it, serde reads the same
    /// bits; where it does not, the answer is serde's, error message included.
    fn assert_agree(line: &str) {
        let slow = parse_serde(line.as_bytes());
        match fast::parse(line.as_bytes()) {
            Some((id, case)) => {
                let (slow_id, slow_case) = slow.unwrap_or_else(|e| panic!("{line}: {e}"));
                let bits = bytemuck::bytes_of::<Case>;
                assert_eq!(bits(&case), bits(&slow_case), "{line}");
                assert_eq!(id, slow_id, "{line}");
            }
            None => {
                let answer = parse_case_raw(line.as_bytes());
                assert_eq!(answer, slow, "{line}");
            }
        }
    }

    /// Every number form fast-float reads, strict JSON or not, in a generator and in the
    /// need, first and last in its triple, with and without blanks: the scanner takes the
    /// JSON ones float32 holds (with serde's bits) and leaves the others to serde, which
    /// refuses those that are not JSON (and the general engine takes those float32 does not
    /// hold, [`crate::engine::float32_holds`]).
    #[test]
    fn the_fast_path_reads_numbers_as_serde_does() {
        let json = "0 -0 1 -1 0.5 -0.5 -0.0 0e0 0E+0 0.0e-0 1e5 1E5 1e+5 1e-5 -1.5E-05 1e0010 123
            0.30000000000000004 1.00000001 -0.4617292881011963 1.7235408254339812
            0.29290000000000005 9007199254740993 18446744073709551615 18446744073709551616
            -9223372036854775808 -9223372036854775809 123456789012345678901234567890
            0.1000000000000000055511151231257827021181583404541015625
            1.000000059604644775390625 1.0000000596046447753906250000000001
            0.0000000000000000000000000000000000000000000014012984643248170709237295832899161
            3.4028235e38 -3.4028235677973366e38 1.1754943508222875e-38 1e-45 7e-46
            2.2250738585072014e-308 4.9e-324 1e-400 -1e-400 1e-99999999999999999999
            0.0000000000000000000000000000000000000000001e40 3.4028236e38 1e39 -1e39 1e308
            1e400 1e99999999999999999999";
        let not_json = "+1 +0 +.5 01 -01 00 -00 0123 1. -1. 1.e5 0.E1 .5 -.5 . - --1 +-1 -+1 1e 1e+
            1E- 1ee5 1e5e5 1.5.5 1..5 0x10 1_000 inf -inf +inf Inf INF infinity -Infinity
            +Infinity infinit nan NaN -nan +NAN n i e5 E5 true null \"1\" [1] 1e5.5 0.5e ١ 1\\u0030";
        let lines = |x: &str| {
            [
                format!(r#"{{"generators":[[{x},1,0]]}}"#),
                format!(r#"{{"generators":[[0,1,{x}]]}}"#),
                format!(r#"{{"generators": [[ {x} , 1, 0]]}}"#),
                format!(r#"{{"generators": [[0, 1, {x} ]]}}"#),
                format!(r#"{{"generators":[[0,1,0]],"need":[{x},1,0]}}"#),
                format!(r#"{{"generators":[[0,1,0]],"need":[0,1,{x}]}}"#),
                format!(r#"{{"generators": [[0, 1, 0]], "need": [ {x} , 1, 0]}}"#),
                format!("{{\"need\":\t[0,\r\n1,\n{x}\t]\n, \"generators\":[[0,1,0]]}}"),
            ]
        };
        let mut left = 0;
        for x in json.split_whitespace() {
            let holds = serde_json::from_str::<f64>(x).map_or(true, crate::engine::float32_holds);
            left += usize::from(!holds);
            for line in lines(x) {
                let finite = parse_serde(line.as_bytes()).is_ok();
                assert_eq!(
                    fast::parse(line.as_bytes()).is_some(),
                    finite && holds,
                    "{line}"
                );
                assert_agree(&line);
            }
        }
        // Below float32's normal range (1e-45, 7e-46, ...) and beyond its range (1e39, ...).
        assert!(left >= 8, "{left}");
        for x in not_json.split_whitespace().chain(["- 1", "1 2", "1,5", ""]) {
            for line in lines(x) {
                assert!(fast::parse(line.as_bytes()).is_none(), "{line}");
                assert!(parse_serde(line.as_bytes()).is_err(), "{line}");
                assert_agree(&line);
            }
        }
    }
}
