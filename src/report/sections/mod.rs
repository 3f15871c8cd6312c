//! The sections every output shares, in words: what each case's access
//! pattern did, the spread of its threads and processes, where its cycles
//! went (`--profile`), and the statistics lines under the verdicts. The
//! terminal, the Markdown and the HTML report each lay them out.

pub mod access;
pub mod precision;
pub mod profile;
pub mod spread;
