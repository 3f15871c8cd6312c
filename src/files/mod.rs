//! The files faultline reads and writes: generated test files and the user's
//! file ([`dataset`]), the PPM test image ([`image`]), the scratch directory
//! write trials write in ([`scratch`]) and the read-back of what they wrote
//! ([`readback`]), free disk space ([`disk_space`]), the one atomic writer
//! ([`atomic`]), the check that no output clobbers an input ([`outputs`]), the locks between
//! faultline processes ([`locks`]) and who holds them ([`lock_holders`]), the fingerprint that shows a file changed ([`fingerprint`]), `faultline clean` ([`clean`]), the sweep of what killed
//! processes left ([`sweep`]) and the names of faultline's files ([`names`]).
pub mod atomic;
pub mod clean;
pub mod dataset;
pub mod disk_space;
pub mod file_set;
pub mod fingerprint;
pub mod image;
pub mod lock_holders;
pub mod locks;
pub mod made;
pub mod names;
pub mod noise;
pub mod outputs;
pub mod readback;
pub mod record;
pub mod scratch;
pub mod sweep;
pub mod trial_times;
