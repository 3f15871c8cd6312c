//! Paths in JSON (the journal, the trial spec, the exports) without losing a
//! byte: a path that is valid UTF-8 is a JSON string, as before; any other
//! path (Linux allows any bytes but `/` and NUL in a name) is an object
//! `{"unix_bytes": "<hex>"}`. Both forms read back to the same `PathBuf`,
//! so a file whose name is not UTF-8 can be measured, journalled and
//! resumed. Messages show paths lossily (`Path::display`), nothing else does.
//!
//! Use with `#[serde(with = "crate::os_path")]` on a `PathBuf`, and
//! `#[serde(default, with = "crate::os_path::option")]` on an `Option<PathBuf>`.
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The two forms a path takes in JSON.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Form {
    Text(String),
    Bytes { unix_bytes: String },
}

fn to_form(path: &Path) -> Form {
    match path.to_str() {
        Some(text) => Form::Text(text.to_string()),
        None => Form::Bytes {
            unix_bytes: path
                .as_os_str()
                .as_bytes()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        },
    }
}

fn from_form<E: serde::de::Error>(form: Form) -> Result<PathBuf, E> {
    match form {
        Form::Text(text) => Ok(PathBuf::from(text)),
        Form::Bytes { unix_bytes } => {
            if unix_bytes.len() % 2 != 0 || !unix_bytes.is_ascii() {
                return Err(E::custom("unix_bytes must be pairs of hex digits"));
            }
            let bytes = (0..unix_bytes.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&unix_bytes[i..i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| E::custom("unix_bytes must be pairs of hex digits"))?;
            Ok(PathBuf::from(OsString::from_vec(bytes)))
        }
    }
}

/// Serializes a path (see the module docs).
pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    to_form(path).serialize(serializer)
}

/// Deserializes a path written by [`serialize`] (or a plain string).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    from_form(Form::deserialize(deserializer)?)
}

/// The same for `Option<PathBuf>` (`null` for `None`).
pub mod option {
    use super::*;

    /// Serializes an optional path.
    pub fn serialize<S: Serializer>(
        path: &Option<PathBuf>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        path.as_deref().map(to_form).serialize(serializer)
    }

    /// Deserializes an optional path.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<PathBuf>, D::Error> {
        Option::<Form>::deserialize(deserializer)?
            .map(from_form)
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        #[serde(with = "super")]
        path: PathBuf,
        #[serde(default, with = "super::option")]
        maybe: Option<PathBuf>,
    }

    #[test]
    fn any_bytes_round_trip_and_utf8_stays_a_string() {
        let odd = PathBuf::from(OsString::from_vec(b"/tmp/\xff\xfe x".to_vec()));
        let h = Holder {
            path: odd.clone(),
            maybe: Some(odd),
        };
        let json = serde_json::to_string(&h).unwrap();
        assert!(json.contains("unix_bytes"), "{json}");
        assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
        let plain = Holder {
            path: "/a/b".into(),
            maybe: None,
        };
        let json = serde_json::to_string(&plain).unwrap();
        assert_eq!(json, r#"{"path":"/a/b","maybe":null}"#);
        assert_eq!(
            serde_json::from_str::<Holder>(r#"{"path":"/a/b"}"#).unwrap(),
            plain
        );
        for bad in [
            r#"{"path":{"unix_bytes":"f"}}"#,
            r#"{"path":{"unix_bytes":"zz"}}"#,
            r#"{"path":{"unix_bytes":"é1"}}"#,
        ] {
            assert!(serde_json::from_str::<Holder>(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn every_byte_string_round_trips(bytes in proptest::collection::vec(1u8..=255, 0..40)) {
            let h = Holder { path: PathBuf::from(OsString::from_vec(bytes)), maybe: None };
            let json = serde_json::to_string(&h).unwrap();
            proptest::prop_assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
        }
    }
}
