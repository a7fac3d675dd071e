//! Reports straight to Python objects: what `json.loads` would make of the CLI's JSON text
//! (`serde_json::to_string`), without the text. A report of the gate is kilobytes of JSON
//! (the needs, their witnesses and facets, the support region); writing it out and having
//! Python's `json` module read it back was a third of `planar_hold.gate`'s time.
//!
//! The objects are those serde_json's text reads back as: structs and maps as dicts (in the
//! order written), every sequence and tuple as a list, a non-finite float as None (serde_json
//! writes `null`), a float32 as its shortest decimal read as float64, an enum as serde_json
//! tags it, a `RawValue` as its text read by `json`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyModule, PyString};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};

/// `value` as the Python object `json.loads(serde_json::to_string(value))` would be.
pub(crate) fn to_py<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let _paused = CollectorPaused::new(py)?;
    to_py_paused(py, value)
}

/// [`to_py`] where the caller holds the collector off ([`CollectorPaused`]) around many calls.
pub(crate) fn to_py_paused<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPy { py }).map_err(|e| e.0)
}

/// Python's cyclic garbage collector held off while a value's objects are made, and turned
/// back on (if it was on) when they are. They hold no cycles, but every 700 new lists and
/// dicts start a collection that walks the young ones, and every tenth of those the older
/// ones, these included: about a seventh of `planar_hold.gate`'s time on 500 stances, more
/// in a process holding many objects.
pub(crate) struct CollectorPaused<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> CollectorPaused<'py> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if !gc.call_method0("isenabled")?.is_truthy()? {
            return Ok(CollectorPaused { gc: None });
        }
        gc.call_method0("disable")?;
        Ok(CollectorPaused { gc: Some(gc) })
    }
}

impl Drop for CollectorPaused<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            // Turning it back on cannot fail but by a broken `gc` module; nothing to undo then.
            let _ = gc.call_method0("enable");
        }
    }
}

/// What went wrong: a Python error, or serde's (a custom one from a `Serialize`).
#[derive(Debug)]
pub(crate) struct Failed(PyErr);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for Failed {}

impl ser::Error for Failed {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        Failed(pyo3::exceptions::PyValueError::new_err(format!(
            "cannot serialise: {msg}"
        )))
    }
}

impl From<PyErr> for Failed {
    fn from(e: PyErr) -> Self {
        Failed(e)
    }
}

type Made<'py> = Result<Bound<'py, PyAny>, Failed>;

/// The name serde_json gives a `RawValue`'s newtype (its text, written as is).
const RAW_VALUE: &str = "$serde_json::private::RawValue";

#[derive(Clone, Copy)]
struct ToPy<'py> {
    py: Python<'py>,
}

impl<'py> ToPy<'py> {
    fn int(self, v: impl IntoPyObject<'py, Target = PyInt>) -> Made<'py> {
        Ok(v.into_bound_py_any(self.py)?)
    }

    /// `{variant: value}`: serde_json's external tag.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Made<'py> {
        let d = PyDict::new(self.py);
        d.set_item(PyString::intern(self.py, variant), value)?;
        Ok(d.into_any())
    }
}

/// A sequence or tuple being made (a list), and the variant it is tagged with, if any.
struct Items<'py> {
    to: ToPy<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Items<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failed> {
        self.items.push(value.serialize(self.to)?);
        Ok(())
    }

    fn finish(self) -> Made<'py> {
        let list = PyList::new(self.to.py, self.items)?.into_any();
        match self.variant {
            Some(v) => self.to.tagged(v, list),
            None => Ok(list),
        }
    }
}

/// A map or struct being made (a dict), its pending key, and the variant it is tagged with.
struct Fields<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Fields<'py> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Failed> {
        let value = value.serialize(self.to)?;
        self.dict
            .set_item(PyString::intern(self.to.py, key), value)?;
        Ok(())
    }

    fn finish(self) -> Made<'py> {
        let dict = self.dict.into_any();
        match self.variant {
            Some(v) => self.to.tagged(v, dict),
            None => Ok(dict),
        }
    }
}

impl<'py> ser::Serializer for ToPy<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    type SerializeSeq = Items<'py>;
    type SerializeTuple = Items<'py>;
    type SerializeTupleStruct = Items<'py>;
    type SerializeTupleVariant = Items<'py>;
    type SerializeMap = Fields<'py>;
    type SerializeStruct = Fields<'py>;
    type SerializeStructVariant = Fields<'py>;

    fn serialize_bool(self, v: bool) -> Made<'py> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Made<'py> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Made<'py> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Made<'py> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Made<'py> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Made<'py> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Made<'py> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Made<'py> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Made<'py> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Made<'py> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Made<'py> {
        self.int(v)
    }
    /// As serde_json's text reads back: the shortest decimal that is `v` as float32, read
    /// as float64 (0.9525f32 is 0.9525, not 0.9524999856948853).
    fn serialize_f32(self, v: f32) -> Made<'py> {
        let shortest = v.to_string().parse::<f64>().unwrap_or(f64::NAN);
        self.serialize_f64(shortest)
    }
    /// A non-finite float is None, as serde_json writes it `null`.
    fn serialize_f64(self, v: f64) -> Made<'py> {
        if v.is_finite() {
            Ok(PyFloat::new(self.py, v).into_any())
        } else {
            self.serialize_none()
        }
    }
    fn serialize_char(self, v: char) -> Made<'py> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Made<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    /// A list of numbers, as serde_json writes bytes.
    fn serialize_bytes(self, v: &[u8]) -> Made<'py> {
        Ok(PyList::new(self.py, v)?.into_any())
    }
    fn serialize_none(self) -> Made<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Made<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Made<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Made<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Made<'py> {
        Ok(PyString::intern(self.py, variant).to_owned().into_any())
    }
    /// The value itself; a `RawValue`'s text read by `json`.
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Made<'py> {
        let v = value.serialize(self)?;
        if name == RAW_VALUE {
            return Ok(self.py.import("json")?.getattr("loads")?.call1((v,))?);
        }
        Ok(v)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Made<'py> {
        let v = value.serialize(self)?;
        self.tagged(variant, v)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<'py>, Failed> {
        Ok(Items {
            to: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'py>, Failed> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Items<'py>, Failed> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<'py>, Failed> {
        let mut items = self.serialize_seq(Some(len))?;
        items.variant = Some(variant);
        Ok(items)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Fields<'py>, Failed> {
        Ok(Fields {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Fields<'py>, Failed> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Fields<'py>, Failed> {
        let mut fields = self.serialize_map(Some(len))?;
        fields.variant = Some(variant);
        Ok(fields)
    }
}

/// The sequence kinds serde tells apart, each a list here: `$add` pushes an element.
macro_rules! items {
    ($($kind:ident :: $add:ident),*) => {$(
        impl<'py> ser::$kind for Items<'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Failed;
            fn $add<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failed> {
                self.push(value)
            }
            fn end(self) -> Made<'py> {
                self.finish()
            }
        }
    )*};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<'py> ser::SerializeMap for Fields<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Failed;
    /// A key as JSON has it: a string (serde_json writes a number or a bool key as its text).
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Failed> {
        let k = key.serialize(self.to)?;
        let k = if k.is_instance_of::<PyString>() {
            k
        } else if k.is_instance_of::<PyBool>() {
            let b: bool = k.extract()?;
            PyString::new(self.to.py, if b { "true" } else { "false" }).into_any()
        } else {
            k.str()?.into_any()
        };
        self.key = Some(k);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failed> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Failed as ser::Error>::custom("a map's value without its key"))?;
        let value = value.serialize(self.to)?;
        self.dict.set_item(key, value)?;
        Ok(())
    }
    fn end(self) -> Made<'py> {
        self.finish()
    }
}

/// A struct and a struct variant, each a dict here.
macro_rules! fields {
    ($($kind:ident),*) => {$(
        impl<'py> ser::$kind for Fields<'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Failed;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Failed> {
                self.field(key, value)
            }
            fn end(self) -> Made<'py> {
                self.finish()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);
