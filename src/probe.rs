//! What a JSON line says about itself before it is read: its `id` and whether it names a
//! `dim` and a `grasp`, read from its top-level keys in one pass that keeps what it saw up
//! to the first broken value. A truncated or NaN-bearing line is still known by the keys
//! before the break: a `"dim": 3` line goes to the spatial reader, which says what is wrong
//! (not the planar one's "unknown field `dim`"), and a refused line keeps its `id`.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// A line's top-level keys as far as they could be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Probe {
    /// The `id`'s value, when it was read whole.
    pub id: Option<Value>,
    /// A `dim` key was seen (its value may be broken).
    pub dim: bool,
    /// A `grasp` key was seen.
    pub grasp: bool,
}

/// The keys of `text`'s top-level object up to the first error (see the module's doc).
pub(crate) fn probe(text: &[u8]) -> Probe {
    let mut probe = Probe::default();
    let mut de = serde_json::Deserializer::from_slice(text);
    // The error, if any, ends the scan: what was seen before it stays in `probe`.
    let _ = (&mut de).deserialize_map(Keys(&mut probe));
    probe
}

enum Key {
    Id,
    Dim,
    Grasp,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "id" => Key::Id,
                    "dim" => Key::Dim,
                    "grasp" => Key::Grasp,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

struct Keys<'a>(&'a mut Probe);

impl<'de> Visitor<'de> for Keys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => self.0.id = Some(map.next_value::<Value>()?),
                Key::Dim => {
                    self.0.dim = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Grasp => {
                    self.0.grasp = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_before_the_break_are_kept() {
        let p = probe(br#"{"id": "a", "dim": 3, "half_size": NaN, "grasp": true}"#);
        assert_eq!((p.id, p.dim, p.grasp), (Some(json!("a")), true, false));
        let p = probe(br#"{"id": 7, "dim": 3, "grasp": true, "contacts": [{"points": [[0,"#);
        assert_eq!((p.id, p.dim, p.grasp), (Some(json!(7)), true, true));
        let p = probe(br#"{"dim": 3, "id": {"a": [1, 2]}}"#);
        assert_eq!((p.id, p.dim), (Some(json!({"a": [1, 2]})), true));
        // Nested keys are not the line's; a broken id is no id.
        let p = probe(br#"{"contacts": [{"dim": 3, "grasp": true}], "id": tru"#);
        assert_eq!(p, Probe::default());
        assert_eq!(probe(b"[1, 2]"), Probe::default());
        assert_eq!(probe(b"").id, None);
        let p = probe(b"{\"id\": \"\\u00e9\xff\", \"dim\": 3}");
        assert_eq!(p.id, None);
    }
}
