//! The option lists of the stdio, preadv and uring methods, multiplied into
//! the cases of the methods they belong to (as the mmap options multiply
//! only the mapping methods).
use crate::error::{Error, Result};
use crate::method::{IoOptions, MethodKind};
use crate::plan::Case;
use crate::size::format_size;

/// Largest stdio buffer.
pub const MAX_STDIO_BUFFER: u64 = 64 << 20;

/// The values given for each option.
#[derive(Clone, Debug, Default)]
pub struct IoFactors {
    /// `--stdio-buffer`.
    pub stdio_buffers: Vec<u64>,
}

/// Replaces each case by one case per combination of its method's options,
/// in order, so the first case of each group stays the first. Cases of
/// methods without options are kept as they are.
pub fn expand(cases: Vec<Case>, factors: &IoFactors) -> Result<Vec<Case>> {
    for &b in &factors.stdio_buffers {
        if b == 0 || b > MAX_STDIO_BUFFER {
            return Err(Error::Plan(format!(
                "--stdio-buffer {} must be between 1 byte and {}",
                format_size(b),
                format_size(MAX_STDIO_BUFFER)
            )));
        }
    }
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        for io in options_of(case.method, factors) {
            out.push(Case { io, ..case.clone() });
        }
    }
    Ok(out)
}

/// Every combination of the options of `method`.
fn options_of(method: MethodKind, factors: &IoFactors) -> Vec<IoOptions> {
    let or_default = |v: &[u64], d: u64| if v.is_empty() { vec![d] } else { v.to_vec() };
    match method {
        MethodKind::Stdio => {
            or_default(&factors.stdio_buffers, crate::method::DEFAULT_STDIO_BUFFER)
                .into_iter()
                .map(|b| IoOptions {
                    stdio_buffer: Some(b),
                })
                .collect()
        }
        _ => vec![IoOptions::default()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{CacheState, WarmBy};
    use crate::pattern::Pattern;
    use crate::workload::WorkloadKind;

    pub(crate) fn case(method: MethodKind) -> Case {
        Case {
            method,
            pattern: Pattern::Seq,
            block_size: 4096,
            file_size: 1 << 20,
            workload: WorkloadKind::Sum,
            cache: CacheState::Warm,
            warm_by: WarmBy::Seq,
            populate: None,
            advice: None,
            share: None,
            seed: 1,
            io: IoOptions::default(),
        }
    }

    #[test]
    fn options_multiply_only_their_own_method_in_order() {
        let factors = IoFactors {
            stdio_buffers: vec![4096, 65536],
        };
        let cases = expand(
            vec![
                case(MethodKind::Read),
                case(MethodKind::Stdio),
                case(MethodKind::Mmap),
            ],
            &factors,
        )
        .unwrap();
        let labels: Vec<String> = cases.iter().map(Case::method_label).collect();
        assert_eq!(
            labels,
            [
                "read",
                "stdio(buffer=4 KiB)",
                "stdio(buffer=64 KiB)",
                "mmap"
            ]
        );
        let defaults = expand(vec![case(MethodKind::Stdio)], &IoFactors::default()).unwrap();
        assert_eq!(defaults[0].io.stdio_buffer, Some(8192));
    }

    #[test]
    fn out_of_range_options_are_plan_errors() {
        for b in [0, MAX_STDIO_BUFFER + 1] {
            let factors = IoFactors {
                stdio_buffers: vec![b],
            };
            let err = expand(vec![case(MethodKind::Read)], &factors).unwrap_err();
            assert!(matches!(err, Error::Plan(_)), "{err}");
            assert!(err.to_string().contains("--stdio-buffer"));
        }
    }
}
