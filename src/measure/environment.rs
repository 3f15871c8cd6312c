//! The environment every number depends on.
use serde::{Deserialize, Serialize};

/// Machine, kernel, file system and faultline build.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Environment {
    /// faultline's version.
    pub faultline_version: String,
}

/// Captures the environment; `file` selects the file system and device described.
pub fn capture(file: Option<&std::path::Path>) -> Environment {
    let _ = file;
    todo!("measure helper")
}

impl Environment {
    /// Label/value rows for people.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![("faultline", self.faultline_version.clone())]
    }
}
