//! Columns: a chunk's Arrow arrays into cases, without a dynamic call per row. Each row is
//! classified once by its shape (the first generator's numbers, the count) and read by the
//! planar reader (its plain form in a tight path, any other by the full one, with the
//! errors) or by the general one.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use serde_json::value::RawValue;

use crate::engine::float32_holds;
use crate::io::json::DEFAULT_NEED;
use crate::io::{CaseBatch, Ids, JsonIds};
use crate::planar::types::{Case, MAX_GENERATORS};
use crate::CaseKind;

/// The cases of one record batch (columns as [`super`] describes), first row
/// numbered `first`, into `out` (cleared first).
pub(super) fn cases_of(
    batch: &RecordBatch,
    first: u64,
    ids_as_json: bool,
    out: &mut CaseBatch,
) -> Result<(), String> {
    out.clear();
    let n = batch.num_rows();
    let column = |name: &str| batch.column_by_name(name);
    let generators = column("generators").ok_or("no `generators` column")?;
    let gens = Nested::of(generators, "generators")?;
    let inner = Nested::of(gens.values, "generators' items")?;
    let floats = Floats::of(inner.values, "generators' numbers")?;
    let need = match column("need") {
        Some(a) => {
            let nested = Nested::of(a, "need")?;
            let floats = Floats::of(nested.values, "need's numbers")?;
            Some((nested, floats))
        }
        None => None,
    };
    let mut numbers = Vec::new();
    out.numbers.reserve(n);
    out.rows.reserve(n);
    out.batch.planar.reserve(n);
    let plain = plain_generators(&inner, &floats);
    for i in 0..n {
        let number = first + i as u64;
        // The plainest rows of the plainest chunks, straight from the numbers: a case as
        // `plain_row` makes it, each number read once.
        if let Some((values, start)) = &plain {
            if let Some(case) = plain_case(&gens, values, *start, need.as_ref(), i) {
                out.push_planar(number, case);
                continue;
            }
        }
        // Each row classified once, by its shape, then read by its engine's reader.
        match row_shape(&gens, &inner, need.as_ref(), i) {
            Some((range, dim))
                if row_kind(range, dim, &inner, &floats, need.as_ref(), i) == CaseKind::General =>
            {
                match general_row(
                    range,
                    dim,
                    &inner,
                    &floats,
                    need.as_ref(),
                    i,
                    &mut numbers,
                    out,
                ) {
                    Ok(index) => out.push_general(number, index),
                    Err(e) => out.push(number, Err(e)),
                }
            }
            shape => {
                let plain = shape
                    .and_then(|(range, _)| plain_row(range, &inner, &floats, need.as_ref(), i));
                match plain {
                    Some(case) => out.push(number, Ok(case)),
                    None => out.push(number, row_case(&gens, &inner, &floats, need.as_ref(), i)),
                }
            }
        }
    }
    out.ids = match column("id") {
        None => Ids::None,
        Some(a) if ids_as_json => {
            let mut ids = match std::mem::take(&mut out.ids) {
                Ids::Json(ids) => ids,
                _ => JsonIds::default(),
            };
            ids.clear();
            for i in 0..n {
                ids.push(id_json(a, i).as_deref().map(RawValue::get));
            }
            Ids::Json(ids)
        }
        Some(a) => Ids::Arrow(a.clone()),
    };
    Ok(())
}

/// A list column of any offset width, or a fixed-size one, read without a dynamic call
/// per row.
struct Nested<'a> {
    nulls: Option<&'a NullBuffer>,
    offsets: Offsets<'a>,
    values: &'a ArrayRef,
}

enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    /// (the array's offset, the list size).
    Fixed(usize, usize),
}

impl<'a> Nested<'a> {
    fn of(a: &'a ArrayRef, what: &str) -> Result<Nested<'a>, String> {
        let (offsets, values) = if let Some(l) = a.as_list_opt::<i32>() {
            (Offsets::I32(l.value_offsets()), l.values())
        } else if let Some(l) = a.as_list_opt::<i64>() {
            (Offsets::I64(l.value_offsets()), l.values())
        } else if let Some(l) = a.as_fixed_size_list_opt() {
            let size = l.value_length().max(0) as usize;
            (Offsets::Fixed(l.offset(), size), l.values())
        } else {
            return Err(format!("{what} must be a list, got {}", a.data_type()));
        };
        Ok(Nested {
            nulls: a.nulls().filter(|n| n.null_count() > 0),
            offsets,
            values,
        })
    }

    /// The range of row `i` in `values`, or `None` when the row is null.
    #[inline]
    fn range(&self, i: usize) -> Option<(usize, usize)> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return None;
        }
        Some(match self.offsets {
            Offsets::I32(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::I64(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::Fixed(first, n) => ((first + i) * n, (first + i + 1) * n),
        })
    }
}

/// A column of float32 or float64 numbers: its values and its nulls, if any.
enum Floats<'a> {
    F32(&'a [f32], Option<&'a NullBuffer>),
    F64(&'a [f64], Option<&'a NullBuffer>),
}

impl<'a> Floats<'a> {
    fn of(a: &'a ArrayRef, what: &str) -> Result<Floats<'a>, String> {
        let nulls = a.nulls().filter(|n| n.null_count() > 0);
        if let Some(f) = a.as_primitive_opt::<Float32Type>() {
            Ok(Floats::F32(f.values(), nulls))
        } else if let Some(f) = a.as_primitive_opt::<Float64Type>() {
            Ok(Floats::F64(f.values(), nulls))
        } else {
            Err(format!(
                "{what} must be float32 or float64, got {}",
                a.data_type()
            ))
        }
    }

    /// Number `j`, or `None` when it is null.
    #[inline]
    fn get(&self, j: usize) -> Option<f64> {
        use Floats::{F32, F64};
        let (F32(_, nulls) | F64(_, nulls)) = self;
        if nulls.is_some_and(|n| n.is_null(j)) {
            return None;
        }
        Some(match self {
            F32(v, _) => v[j] as f64,
            F64(v, _) => v[j],
        })
    }

    /// The three numbers from `a`, or `None` when one is null.
    #[inline]
    fn three(&self, a: usize) -> Option<[f64; 3]> {
        use Floats::{F32, F64};
        let (F32(_, nulls) | F64(_, nulls)) = self;
        if nulls.is_some_and(|n| (a..a + 3).any(|i| n.is_null(i))) {
            return None;
        }
        Some(match self {
            F32(v, _) => [v[a] as f64, v[a + 1] as f64, v[a + 2] as f64],
            F64(v, _) => [v[a], v[a + 1], v[a + 2]],
        })
    }
}

impl Floats<'_> {
    /// The three numbers from `a` in float32, or `None` when one is null, not finite there
    /// (as [`triple`] takes them) or not as float32 holds it ([`float32_holds`]).
    #[inline]
    fn three_f32(&self, a: usize) -> Option<[f32; 3]> {
        let wide = self.three(a)?;
        let narrow = wide.map(|x| x as f32);
        (narrow.iter().all(|x| x.is_finite()) && wide.into_iter().all(float32_holds))
            .then_some(narrow)
    }
}

/// Three numbers at `range`, finite in float32; errors name `what`.
#[inline]
fn triple(
    floats: &Floats,
    (a, b): (usize, usize),
    what: &dyn std::fmt::Display,
) -> Result<[f32; 3], String> {
    if b - a != 3 {
        return Err(format!("{what} must be three numbers, got {}", b - a));
    }
    let wide = floats
        .three(a)
        .ok_or_else(|| format!("{what} has a null number"))?;
    let narrow = wide.map(|x| x as f32);
    if narrow.iter().all(|x| x.is_finite()) {
        Ok(narrow)
    } else {
        Err(format!("{what} = {wide:?} is not finite in float32"))
    }
}

/// Row `i`'s generators' range in `inner` and its dimension (the first generator's
/// numbers; without generators, the need's), or `None` when either is null: the planar
/// reader then says what is wrong.
#[inline]
fn row_shape(
    gens: &Nested,
    inner: &Nested,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Option<((usize, usize), usize)> {
    let (a, b) = gens.range(i)?;
    let dim = if b > a {
        inner.range(a).map(|(x, y)| y - x)
    } else {
        need.and_then(|(n, _)| n.range(i)).map(|(x, y)| y - x)
    }?;
    Some(((a, b), dim))
}

/// The engine of row `i` ([`CaseKind::of_numbers`]), its generators at `(a, b)` in `inner`:
/// by its shape, and by its numbers where its shape is planar (a null or a missing number
/// leaves it planar, whose reader says what is wrong).
fn row_kind(
    (a, b): (usize, usize),
    dim: usize,
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> CaseKind {
    let generators = (a..b)
        .filter_map(|k| inner.range(k))
        .flat_map(|(x, y)| (x..y).map(|j| floats.get(j).unwrap_or(0.0)));
    let need = need
        .and_then(|(n, f)| n.range(i).map(|r| (r, f)))
        .into_iter()
        .flat_map(|((x, y), f)| (x..y).map(move |j| f.get(j).unwrap_or(0.0)));
    CaseKind::of_numbers(dim, b - a, generators.chain(need))
}

/// Row `i`, a general case ([`row_kind`]: generators of 6 numbers, more than 16, or a number
/// float32 does not hold), its generators at `(a, b)` in `inner`, into `out.batch.general`:
/// its index there, or why it is refused. `numbers` is scratch.
#[allow(clippy::too_many_arguments)]
fn general_row(
    (a, b): (usize, usize),
    dim: usize,
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
    numbers: &mut Vec<f64>,
    out: &mut CaseBatch,
) -> Result<u32, String> {
    if dim != 3 && dim != 6 {
        return Err(format!("generator 0 has {dim} numbers: 3 or 6 are taken"));
    }
    numbers.clear();
    for k in 0..b - a {
        let (x, y) = inner
            .range(a + k)
            .ok_or_else(|| format!("generator {k} is null"))?;
        if y - x != dim {
            return Err(format!(
                "generator {k} has {} numbers, generator 0 has {dim}",
                y - x
            ));
        }
        for j in x..y {
            numbers.push(
                floats
                    .get(j)
                    .ok_or_else(|| format!("generator {k} has a null number"))?,
            );
        }
    }
    let mut need_numbers = [0.0; crate::general::MAX_DIM];
    let need_slice = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some(((x, y), f)) => {
            if y - x != dim {
                return Err(format!(
                    "the need has {} numbers, the generators {dim}",
                    y - x
                ));
            }
            for (slot, j) in need_numbers.iter_mut().zip(x..y) {
                *slot = f.get(j).ok_or("the need has a null number")?;
            }
            &need_numbers[..dim]
        }
        None => crate::general::default_need(dim),
    };
    out.batch
        .general
        .push(dim, numbers, need_slice)
        .map_err(|e| e.to_string())
}

/// A chunk's generators' numbers in float32, and the index of generator 0's first, when the
/// chunk has the plainest layout (pyarrow's and ours): every generator three numbers back to
/// back, none null, every number finite in float32. Generator `k`'s numbers are then at
/// `start + 3k`.
fn plain_generators<'a>(
    inner: &Nested<'a>,
    floats: &Floats<'a>,
) -> Option<(Cow<'a, [f32]>, usize)> {
    if inner.nulls.is_some() {
        return None;
    }
    let start = match inner.offsets {
        Offsets::I32(o) => {
            let stride3 = o.windows(2).all(|w| w[1].wrapping_sub(w[0]) == 3);
            (stride3 && o[0] >= 0).then_some(o[0] as usize)?
        }
        Offsets::I64(o) => {
            let stride3 = o.windows(2).all(|w| w[1].wrapping_sub(w[0]) == 3);
            (stride3 && o[0] >= 0).then_some(o[0] as usize)?
        }
        Offsets::Fixed(first, 3) => 3 * first,
        Offsets::Fixed(..) => return None,
    };
    let values: Cow<'a, [f32]> = match floats {
        Floats::F32(v, None) => Cow::Borrowed(v),
        Floats::F64(v, None) => {
            // Every number as float32 holds it ([`float32_holds`]), or the rows are read
            // one by one (those with another go to the general engine).
            if !v.iter().fold(true, |ok, &x| ok & float32_holds(x)) {
                return None;
            }
            Cow::Owned(v.iter().map(|&x| x as f32).collect())
        }
        _ => return None,
    };
    values
        .iter()
        .fold(true, |ok, &x| {
            ok & x.is_finite() & float32_holds(f64::from(x))
        })
        .then_some((values, start))
}

/// Row `i` of a chunk [`plain_generators`] read, as the case [`plain_row`] gives, when it
/// has 1 to 16 generators and a plain need (absent, null, or three numbers finite in
/// float32); `None` for any other row.
#[inline]
fn plain_case(
    gens: &Nested,
    values: &[f32],
    start: usize,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Option<Case> {
    let (a, b) = gens.range(i)?;
    let count = b - a;
    if count == 0 || count > MAX_GENERATORS {
        return None;
    }
    let need = match need.map(|(n, f)| (n.range(i), f)) {
        None | Some((None, _)) => DEFAULT_NEED,
        Some((Some((x, y)), f)) if y - x == 3 => f.three_f32(x)?,
        Some(_) => return None,
    };
    let mut case = Case {
        need,
        active_mask: ((1u64 << count) - 1) as u32,
        ..Case::default()
    };
    let numbers = &values[start + 3 * a..start + 3 * b];
    for (slot, g) in case.generators.iter_mut().zip(numbers.chunks_exact(3)) {
        *slot = [g[0], g[1], g[2]];
    }
    Some(case)
}

/// Row `i`, its generators at `(a, b)` in `inner`, as a planar case when it is one in the
/// plainest form (1 to 16 generators of three numbers each, finite in float32, no null; the
/// need absent, null, or three such numbers): the case [`row_case`] gives, without the
/// errors' bookkeeping; `None` for any other row, which [`row_case`] answers.
#[inline]
fn plain_row(
    (a, b): (usize, usize),
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Option<Case> {
    let count = b - a;
    if count == 0 || count > MAX_GENERATORS || inner.nulls.is_some() {
        return None;
    }
    let mut g = [[0f32; 3]; MAX_GENERATORS];
    for (k, slot) in g[..count].iter_mut().enumerate() {
        let (x, y) = inner.range(a + k)?;
        if y - x != 3 {
            return None;
        }
        *slot = floats.three_f32(x)?;
    }
    let need = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some(((x, y), f)) if y - x == 3 => f.three_f32(x)?,
        Some(_) => return None,
        None => DEFAULT_NEED,
    };
    Case::new(&g[..count], need).ok()
}

fn row_case(
    gens: &Nested,
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Result<Case, String> {
    let (a, b) = gens.range(i).ok_or("generators is null")?;
    if b - a > MAX_GENERATORS {
        return Err(format!(
            "{} generators, more than {MAX_GENERATORS} (at most 4 body pairs × 2 endpoints × 2 rays)",
            b - a
        ));
    }
    let mut g = [[0f32; 3]; MAX_GENERATORS];
    for (k, slot) in g[..b - a].iter_mut().enumerate() {
        let what = GeneratorName(k);
        let range = inner
            .range(a + k)
            .ok_or_else(|| format!("generator {k} is null"))?;
        *slot = triple(floats, range, &what)?;
    }
    let need = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some((range, f)) => triple(f, range, &"need")?,
        None => DEFAULT_NEED,
    };
    Case::new(&g[..b - a], need).map_err(|e| e.to_string())
}

/// "generator k", formatted only when an error needs it.
struct GeneratorName(usize);

impl std::fmt::Display for GeneratorName {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "generator {}", self.0)
    }
}

pub(super) fn id_json_supported(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Null | Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float32
            | Float64
            | Utf8
            | LargeUtf8
            | Utf8View
    )
}

/// Row `i` of an id column as JSON text (`None` when null or of a type without a JSON form).
fn id_json(a: &ArrayRef, i: usize) -> Option<Box<RawValue>> {
    if a.is_null(i) {
        return None;
    }
    macro_rules! int {
        ($($t:ty),*) => {$(
            if let Some(p) = a.as_primitive_opt::<$t>() {
                return RawValue::from_string(p.value(i).to_string()).ok();
            }
        )*};
    }
    int!(Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type);
    let value = if let Some(p) = a.as_primitive_opt::<Float32Type>() {
        serde_json::json!(p.value(i))
    } else if let Some(p) = a.as_primitive_opt::<Float64Type>() {
        serde_json::json!(p.value(i))
    } else if let Some(s) = a.as_string_opt::<i32>() {
        serde_json::json!(s.value(i))
    } else if let Some(s) = a.as_string_opt::<i64>() {
        serde_json::json!(s.value(i))
    } else if let Some(s) = a.as_string_view_opt() {
        serde_json::json!(s.value(i))
    } else if let Some(b) = a.as_boolean_opt() {
        serde_json::json!(b.value(i))
    } else {
        return None;
    };
    serde_json::value::to_raw_value(&value).ok()
}
