//! Rows of Arrow columns read by serde, and grasps from them: [`Columns`] looks at a record
//! batch's columns once (their types, offsets and values), then [`Columns::row`] is a
//! [`Deserializer`] of row `i` as a map of its non-null columns, so that any
//! `Deserialize` type (a grasp line's fields, a `serde_json::Value`) reads a row straight
//! from the columns, with no JSON text in between and the same checks as on a line.
//! [`grasps`] reads a batch of grasp rows so (Parquet's, `io::parquet::grasps`; Ray's,
//! through the Python package).
//!
//! Numbers of any integer or float type (float32 and float16 at their exact values; a
//! non-finite one is refused, as JSON has none), booleans, strings (any offset width, or
//! views), lists (either offset width, or fixed size) as sequences, structs as maps of their
//! non-null fields; null is absent in a map, unit elsewhere. Errors name the value's place,
//! `contacts[1].normal: invalid length 2, expected an array of length 3`.

use std::fmt;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, GenericStringArray, RecordBatch,
    StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde::Deserialize;
use serde_json::Value as Json;

use crate::scene::{grasp_from_fields, SpatialScene};

/// Grasp rows (docs/contract-grasp.md §1, docs/cli.md): each row read column by column into
/// a grasp line's fields (its non-null columns, `"dim": 3` and `"grasp": true` where it has
/// none) and checked as a line is (`grasp_from_fields`). For each row its scene, or its id
/// (where it could be read) and the problem; every row refused alike when a column has a
/// type no row can be read from (see `check_grasp_columns`).
pub fn grasps(batch: &RecordBatch) -> Vec<Result<SpatialScene, (Option<Json>, String)>> {
    let columns = match Columns::of(batch, grasp_implied()) {
        Ok(columns) => columns,
        Err(e) => {
            return (0..batch.num_rows())
                .map(|_| Err((None, e.clone())))
                .collect()
        }
    };
    let ids = columns.get("id");
    (0..batch.num_rows())
        .map(|i| {
            grasp_from_fields(columns.row(i)).map_err(|e| {
                let id = ids
                    .filter(|c| !c.is_null(i))
                    .and_then(|c| Json::deserialize(c.at(i)).ok());
                (id, e.to_string())
            })
        })
        .collect()
}

/// Whether every column of `schema` is one a grasp row can be read from; `Err` names the
/// first that is not (binary, dates, decimals, maps...).
#[cfg(feature = "parquet")]
pub(crate) fn check_grasp_columns(schema: &arrow_schema::SchemaRef) -> Result<(), String> {
    Columns::of(&RecordBatch::new_empty(schema.clone()), grasp_implied()).map(|_| ())
}

/// What a grasp row says without a column for it.
fn grasp_implied() -> Vec<(&'static str, Implied)> {
    vec![("dim", Implied::U64(3)), ("grasp", Implied::Bool(true))]
}

/// Why a row could not be read: where (`contacts[1].normal`, empty at the top) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct RowError {
    path: String,
    message: String,
}

impl RowError {
    /// The error inside field `name`.
    fn in_field(mut self, name: &str) -> RowError {
        self.path = match self.path.as_str() {
            "" => name.to_string(),
            p if p.starts_with('[') => format!("{name}{p}"),
            p => format!("{name}.{p}"),
        };
        self
    }

    /// The error inside item `j` of a list.
    fn in_item(mut self, j: usize) -> RowError {
        self.path = match self.path.as_str() {
            "" => format!("[{j}]"),
            p if p.starts_with('[') => format!("[{j}]{p}"),
            p => format!("[{j}].{p}"),
        };
        self
    }
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for RowError {}

impl de::Error for RowError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        RowError {
            path: String::new(),
            message: msg.to_string(),
        }
    }

    /// As serde's, but a null entry (read as unit) is called null, as on a JSON line.
    fn invalid_type(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        match unexpected {
            de::Unexpected::Unit => {
                de::Error::custom(format!("invalid type: null, expected {expected}"))
            }
            other => de::Error::custom(format!("invalid type: {other}, expected {expected}")),
        }
    }
}

/// A column's values, by type, looked at once.
enum Values<'a> {
    Null,
    Bool(&'a BooleanArray),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [<Float16Type as ArrowPrimitiveType>::Native]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Utf8(&'a GenericStringArray<i32>),
    LargeUtf8(&'a GenericStringArray<i64>),
    Utf8View(&'a StringViewArray),
    List(Offsets<'a>, Box<Column<'a>>),
    Struct(Vec<(&'a str, Column<'a>)>),
}

/// Where a list's items lie in its values.
enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    Fixed(usize),
}

impl Offsets<'_> {
    #[inline]
    fn range(&self, i: usize) -> (usize, usize) {
        match *self {
            Offsets::I32(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::I64(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::Fixed(n) => (i * n, (i + 1) * n),
        }
    }
}

/// One column (or a list's items, a struct's field), looked at once: its nulls and values.
pub(crate) struct Column<'a> {
    nulls: Option<&'a NullBuffer>,
    values: Values<'a>,
}

impl<'a> Column<'a> {
    /// The column `a`; `Err` names a type serde cannot read here (binary, dates, decimals,
    /// maps, unions...).
    pub(crate) fn of(a: &'a ArrayRef) -> Result<Column<'a>, String> {
        use DataType::*;
        macro_rules! primitive {
            ($variant:ident, $t:ty) => {
                Values::$variant(a.as_primitive::<$t>().values())
            };
        }
        let values = match a.data_type() {
            Null => Values::Null,
            Boolean => Values::Bool(a.as_boolean()),
            Int8 => primitive!(I8, Int8Type),
            Int16 => primitive!(I16, Int16Type),
            Int32 => primitive!(I32, Int32Type),
            Int64 => primitive!(I64, Int64Type),
            UInt8 => primitive!(U8, UInt8Type),
            UInt16 => primitive!(U16, UInt16Type),
            UInt32 => primitive!(U32, UInt32Type),
            UInt64 => primitive!(U64, UInt64Type),
            Float16 => primitive!(F16, Float16Type),
            Float32 => primitive!(F32, Float32Type),
            Float64 => primitive!(F64, Float64Type),
            Utf8 => Values::Utf8(a.as_string::<i32>()),
            LargeUtf8 => Values::LargeUtf8(a.as_string::<i64>()),
            Utf8View => Values::Utf8View(a.as_string_view()),
            List(_) => {
                let l = a.as_list::<i32>();
                Values::List(
                    Offsets::I32(l.value_offsets()),
                    Box::new(Column::of(l.values())?),
                )
            }
            LargeList(_) => {
                let l = a.as_list::<i64>();
                Values::List(
                    Offsets::I64(l.value_offsets()),
                    Box::new(Column::of(l.values())?),
                )
            }
            FixedSizeList(_, n) => {
                let l = a.as_fixed_size_list();
                Values::List(
                    Offsets::Fixed((*n).max(0) as usize),
                    Box::new(Column::of(l.values())?),
                )
            }
            Struct(_) => {
                let s = a.as_struct();
                let fields = s.column_names().into_iter().zip(s.columns());
                Values::Struct(
                    fields
                        .map(|(name, c)| Ok((name, Column::of(c).map_err(|e| in_name(name, e))?)))
                        .collect::<Result<_, String>>()?,
                )
            }
            t => return Err(format!("has type {t}, which has no JSON form")),
        };
        Ok(Column {
            nulls: a.nulls().filter(|n| n.null_count() > 0),
            values,
        })
    }

    /// Whether entry `i` is null.
    #[inline]
    pub(crate) fn is_null(&self, i: usize) -> bool {
        matches!(self.values, Values::Null) || self.nulls.is_some_and(|n| n.is_null(i))
    }

    /// Entry `i`, for serde.
    pub(crate) fn at(&self, i: usize) -> Entry<'_, 'a> {
        Entry { column: self, i }
    }
}

/// "`name`'s " before a nested column's problem.
fn in_name(name: &str, problem: String) -> String {
    if problem.starts_with("has type") {
        format!("field `{name}` {problem}")
    } else {
        format!("field `{name}`: {problem}")
    }
}

/// A record batch's columns, looked at once, and the fields every row has unless its own
/// column gives them (`"dim": 3` and `"grasp": true` for grasp rows).
pub struct Columns<'a> {
    columns: Vec<(&'a str, Column<'a>)>,
    implied: Vec<(&'static str, Implied)>,
}

/// A field's value when the row has none.
#[derive(Clone, Copy)]
pub enum Implied {
    /// A non-negative integer.
    U64(u64),
    /// A boolean.
    Bool(bool),
}

impl<'a> Columns<'a> {
    /// The columns of `batch`; `Err` names a column of a type serde cannot read here.
    pub fn of(
        batch: &'a RecordBatch,
        implied: Vec<(&'static str, Implied)>,
    ) -> Result<Columns<'a>, String> {
        let schema = batch.schema_ref();
        let columns = schema
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, c)| {
                let name = f.name().as_str();
                Ok((
                    name,
                    Column::of(c).map_err(|e| format!("column `{name}` {e}"))?,
                ))
            })
            .collect::<Result<_, String>>()?;
        Ok(Columns { columns, implied })
    }

    /// The column called `name`, if any.
    pub(crate) fn get(&self, name: &str) -> Option<&Column<'a>> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c)
    }

    /// Row `i` as a map of its non-null columns, then its implied fields that no column
    /// gave.
    pub fn row(&self, i: usize) -> Row<'_, 'a> {
        Row {
            columns: self,
            i,
            next: 0,
            value: None,
        }
    }
}

/// One row of [`Columns`], for serde: a map of its non-null columns and implied fields.
pub struct Row<'c, 'a> {
    columns: &'c Columns<'a>,
    i: usize,
    /// The next column (then implied field, past the columns) to look at.
    next: usize,
    /// The value of the key just handed out, and its name.
    value: Option<(&'c str, Value<'c, 'a>)>,
}

enum Value<'c, 'a> {
    Entry(Entry<'c, 'a>),
    Implied(Implied),
}

impl<'de, 'c, 'a> MapAccess<'de> for Row<'c, 'a> {
    type Error = RowError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, RowError> {
        let (columns, i) = (self.columns, self.i);
        while self.next < columns.columns.len() {
            let (name, column) = &columns.columns[self.next];
            self.next += 1;
            if !column.is_null(i) {
                self.value = Some((name, Value::Entry(column.at(i))));
                return seed.deserialize(name.into_deserializer()).map(Some);
            }
        }
        while let Some(&(name, value)) = columns.implied.get(self.next - columns.columns.len()) {
            self.next += 1;
            if columns.get(name).is_none_or(|c| c.is_null(i)) {
                self.value = Some((name, Value::Implied(value)));
                return seed.deserialize(name.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, RowError> {
        match self.value.take() {
            Some((name, Value::Entry(e))) => seed.deserialize(e).map_err(|e| e.in_field(name)),
            Some((name, Value::Implied(Implied::U64(v)))) => seed
                .deserialize(v.into_deserializer())
                .map_err(|e: RowError| e.in_field(name)),
            Some((name, Value::Implied(Implied::Bool(v)))) => seed
                .deserialize(v.into_deserializer())
                .map_err(|e: RowError| e.in_field(name)),
            None => Err(de::Error::custom("a value asked for before its key")),
        }
    }
}

impl<'de> Deserializer<'de> for Row<'_, '_> {
    type Error = RowError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RowError> {
        visitor.visit_map(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Entry `i` of a column, for serde.
#[derive(Clone, Copy)]
pub(crate) struct Entry<'c, 'a> {
    column: &'c Column<'a>,
    i: usize,
}

/// A number as serde takes it: finite, or refused.
fn finite<'de, V: Visitor<'de>>(x: f64, visitor: V) -> Result<V::Value, RowError> {
    if x.is_finite() {
        visitor.visit_f64(x)
    } else {
        Err(de::Error::custom(format!("non-finite number {x}")))
    }
}

impl<'de> Deserializer<'de> for Entry<'_, '_> {
    type Error = RowError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RowError> {
        let i = self.i;
        if self.column.is_null(i) {
            return visitor.visit_unit();
        }
        match &self.column.values {
            Values::Null => visitor.visit_unit(),
            Values::Bool(b) => visitor.visit_bool(b.value(i)),
            Values::I8(v) => visitor.visit_i64(v[i].into()),
            Values::I16(v) => visitor.visit_i64(v[i].into()),
            Values::I32(v) => visitor.visit_i64(v[i].into()),
            Values::I64(v) => visitor.visit_i64(v[i]),
            Values::U8(v) => visitor.visit_u64(v[i].into()),
            Values::U16(v) => visitor.visit_u64(v[i].into()),
            Values::U32(v) => visitor.visit_u64(v[i].into()),
            Values::U64(v) => visitor.visit_u64(v[i]),
            Values::F16(v) => finite(f64::from(v[i]), visitor),
            Values::F32(v) => finite(v[i].into(), visitor),
            Values::F64(v) => finite(v[i], visitor),
            Values::Utf8(s) => visitor.visit_str(s.value(i)),
            Values::LargeUtf8(s) => visitor.visit_str(s.value(i)),
            Values::Utf8View(s) => visitor.visit_str(s.value(i)),
            Values::List(offsets, items) => {
                let (start, end) = offsets.range(i);
                let mut seq = Items {
                    items,
                    next: start,
                    end,
                    start,
                };
                let value = visitor.visit_seq(&mut seq)?;
                if seq.next < end {
                    return Err(de::Error::invalid_length(
                        end - start,
                        &"fewer items in the list",
                    ));
                }
                Ok(value)
            }
            Values::Struct(fields) => visitor.visit_map(Fields {
                fields,
                i,
                next: 0,
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, RowError> {
        if self.column.is_null(self.i) {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A list's items, for serde.
struct Items<'c, 'a> {
    items: &'c Column<'a>,
    next: usize,
    end: usize,
    start: usize,
}

impl<'de> SeqAccess<'de> for &mut Items<'_, '_> {
    type Error = RowError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, RowError> {
        if self.next >= self.end {
            return Ok(None);
        }
        let j = self.next;
        self.next += 1;
        seed.deserialize(self.items.at(j))
            .map(Some)
            .map_err(|e| e.in_item(j - self.start))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.end - self.next)
    }
}

/// A struct's non-null fields, for serde.
struct Fields<'c, 'a> {
    fields: &'c [(&'a str, Column<'a>)],
    i: usize,
    next: usize,
    value: Option<(&'c str, Entry<'c, 'a>)>,
}

impl<'de> MapAccess<'de> for Fields<'_, '_> {
    type Error = RowError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, RowError> {
        while let Some((name, column)) = self.fields.get(self.next) {
            self.next += 1;
            if !column.is_null(self.i) {
                self.value = Some((name, column.at(self.i)));
                return seed.deserialize(name.into_deserializer()).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, RowError> {
        match self.value.take() {
            Some((name, e)) => seed.deserialize(e).map_err(|e| e.in_field(name)),
            None => Err(de::Error::custom("a value asked for before its key")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{
        FixedSizeListBuilder, Float64Builder, Int64Builder, LargeListBuilder,
    };
    use arrow_array::{Float32Array, Float64Array, Int32Array, NullArray, StructArray};
    use arrow_schema::Field;
    use serde_json::json;
    use std::sync::Arc;

    fn json_of(c: &Column, i: usize) -> Result<Json, RowError> {
        Json::deserialize(c.at(i))
    }

    #[test]
    fn entries_read_as_their_json() {
        let mut fixed = FixedSizeListBuilder::new(Float64Builder::new(), 3);
        fixed.values().append_slice(&[1.0, 0.0, -2.5]);
        fixed.append(true);
        fixed.values().append_slice(&[0.0, 0.0, 0.0]);
        fixed.append(false);
        let mut large = LargeListBuilder::new(Int64Builder::new());
        large.values().append_value(7);
        large.append(true);
        large.values().append_null();
        large.append(true);
        let mu: ArrayRef = Arc::new(Float32Array::from(vec![Some(0.5), None]));
        let n: ArrayRef = Arc::new(Int32Array::from(vec![3, 4]));
        let nothing: ArrayRef = Arc::new(NullArray::new(2));
        let s: ArrayRef = Arc::new(StructArray::from(vec![
            (Arc::new(Field::new("mu", DataType::Float32, true)), mu),
            (Arc::new(Field::new("k", DataType::Int32, true)), n),
            (Arc::new(Field::new("none", DataType::Null, true)), nothing),
        ]));
        let (fixed, large): (ArrayRef, ArrayRef) =
            (Arc::new(fixed.finish()), Arc::new(large.finish()));
        let (fixed, large, s) = (
            Column::of(&fixed).unwrap(),
            Column::of(&large).unwrap(),
            Column::of(&s).unwrap(),
        );
        assert_eq!(json_of(&fixed, 0).unwrap(), json!([1.0, 0.0, -2.5]));
        assert_eq!(json_of(&fixed, 1).unwrap(), Json::Null);
        assert_eq!(json_of(&large, 1).unwrap(), json!([null]));
        assert_eq!(json_of(&s, 0).unwrap(), json!({"mu": 0.5, "k": 3}));
        assert_eq!(json_of(&s, 1).unwrap(), json!({"k": 4}), "nulls dropped");
        let nan: ArrayRef = Arc::new(Float64Array::from(vec![f64::NAN]));
        let e = json_of(&Column::of(&nan).unwrap(), 0).unwrap_err();
        assert!(e.to_string().contains("non-finite"), "{e}");
        let bytes: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![&b"x"[..]]));
        assert!(Column::of(&bytes).is_err());
    }

    #[test]
    fn errors_name_their_place_and_lists_must_be_used_up() {
        #[derive(Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct C {
            normal: [f64; 3],
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Top {
            contacts: Vec<C>,
        }
        let make = |values: Vec<f64>, lengths: Vec<usize>| {
            let normal = arrow_array::ListArray::new(
                Arc::new(Field::new_list_field(DataType::Float64, true)),
                arrow_buffer::OffsetBuffer::from_lengths(lengths),
                Arc::new(Float64Array::from(values)),
                None,
            );
            let s = StructArray::from(vec![(
                Arc::new(Field::new("normal", normal.data_type().clone(), true)),
                Arc::new(normal) as ArrayRef,
            )]);
            let contacts = arrow_array::ListArray::new(
                Arc::new(Field::new_list_field(s.data_type().clone(), true)),
                arrow_buffer::OffsetBuffer::from_lengths([2]),
                Arc::new(s),
                None,
            );
            RecordBatch::try_from_iter([("contacts", Arc::new(contacts) as ArrayRef)]).unwrap()
        };
        let short = make(vec![1.0, 0.0, 0.0, 1.0, 0.0], vec![3, 2]);
        let cols = Columns::of(&short, vec![]).unwrap();
        let e = Top::deserialize(cols.row(0)).unwrap_err().to_string();
        assert_eq!(
            e,
            "contacts[1].normal: invalid length 2, expected an array of length 3"
        );
        let long = make(vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], vec![3, 4]);
        let cols = Columns::of(&long, vec![]).unwrap();
        let e = Top::deserialize(cols.row(0)).unwrap_err().to_string();
        assert!(e.starts_with("contacts[1].normal: invalid length 4"), "{e}");
    }
}
