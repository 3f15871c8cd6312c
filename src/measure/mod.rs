//! Measuring instruments: CPU and fault counters, /proc/vmstat, page-cache
//! residency and the environment. Each is read outside the timed loop.

pub mod device;
pub mod environment;
pub mod residency;
pub mod rusage;
pub mod vmstat;
