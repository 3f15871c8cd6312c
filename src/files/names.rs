//! The names faultline gives the files and directories it makes, in one
//! leaf: the code that makes a file and the code that later recognises or
//! sweeps it ([`super::sweep`], [`super::clean`]) read the same constants.

/// Prefix of every file faultline creates in its directories.
pub const PREFIX: &str = "faultline-";

/// The name prefix of every temporary file the atomic writer creates.
pub const TEMP_PREFIX: &str = ".faultline-tmp-";

/// Name of the default scratch directory inside the data directory.
pub const SUBDIR: &str = "scratch";
