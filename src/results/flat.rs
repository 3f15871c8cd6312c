//! Pieces for reading a struct that flattens another (`#[serde(flatten)]`)
//! in one pass: serde's derived reader of such a struct gathers every key
//! it does not know itself, whatever its size, into a buffer and parses it
//! again; a hand-written visitor built from these parses its own fields in
//! place and gathers only the flattened struct's keys.
use std::borrow::Cow;

use serde::de::{self, DeserializeOwned, MapAccess};
use serde::Deserialize;

/// A key of a JSON object, borrowed from the input where it can be.
pub struct Key<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor;
        impl<'de> de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// Parses the value of the field `name` into `slot`; a second `name` in the
/// same object is an error, as it is for a derived reader.
pub fn take<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value of a field that must be present.
pub fn required<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// The flattened struct, from the keys gathered for it.
pub fn rest<T: DeserializeOwned, E: de::Error>(
    rest: serde_json::Map<String, serde_json::Value>,
) -> Result<T, E> {
    T::deserialize(serde_json::Value::Object(rest)).map_err(E::custom)
}
