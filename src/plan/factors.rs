//! The option lists of the stdio, preadv and uring methods, multiplied into
//! the cases of the methods they belong to (as the mmap options multiply
//! only the mapping methods), and `--latency`, which multiplies every case.
use crate::error::{Error, Result};
use crate::method::{IoOptions, MethodKind};
use crate::plan::Case;
use crate::size::format_size;

/// Largest stdio buffer.
pub const MAX_STDIO_BUFFER: u64 = 64 << 20;

/// Most memory the buffers of one trial may take (`--iov` or `--depth`
/// buffers of one block each).
pub const MAX_BUFFERS: u64 = 1 << 30;

/// The values given for each option.
#[derive(Clone, Debug, Default)]
pub struct IoFactors {
    /// `--stdio-buffer`.
    pub stdio_buffers: Vec<u64>,
    /// `--iov` (clap keeps it within 1 to [`crate::method::MAX_IOV`]).
    pub iovs: Vec<u32>,
    /// `--depth` (clap keeps it within 1 to [`crate::method::MAX_DEPTH`]).
    pub depths: Vec<u32>,
    /// `--uring-registered`: off, on, or both.
    pub registered: Vec<bool>,
    /// `--latency`: off, on, or both (it applies to every method).
    pub latency: Vec<bool>,
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
    let latencies = or_default(&factors.latency, false);
    for case in cases {
        for io in options_of(case.method, factors) {
            for &latency in &latencies {
                let case = Case {
                    io,
                    latency,
                    ..case.clone()
                };
                check_buffers(&case)?;
                out.push(case);
            }
        }
    }
    Ok(out)
}

/// Refuses a case whose buffers would take more than [`MAX_BUFFERS`].
fn check_buffers(case: &Case) -> Result<()> {
    let given = case.io.iov.map(|n| ("--iov", n));
    let Some((flag, count)) = given.or(case.io.depth.map(|d| ("--depth", d))) else {
        return Ok(());
    };
    let bytes = u64::from(count).saturating_mul(case.block_size);
    if bytes > MAX_BUFFERS {
        return Err(Error::Plan(format!(
            "{flag} {count} with --block {} needs {} of buffers; keep {flag} × --block at or below {}",
            format_size(case.block_size),
            format_size(bytes),
            format_size(MAX_BUFFERS)
        )));
    }
    Ok(())
}

/// `values`, or `default` alone when none was given.
fn or_default<T: Copy>(values: &[T], default: T) -> Vec<T> {
    if values.is_empty() {
        vec![default]
    } else {
        values.to_vec()
    }
}

/// Every combination of the options of `method`.
fn options_of(method: MethodKind, factors: &IoFactors) -> Vec<IoOptions> {
    let none = IoOptions::default();
    match method {
        MethodKind::Stdio => {
            or_default(&factors.stdio_buffers, crate::method::DEFAULT_STDIO_BUFFER)
                .into_iter()
                .map(|b| IoOptions {
                    stdio_buffer: Some(b),
                    ..none
                })
                .collect()
        }
        MethodKind::Preadv => or_default(&factors.iovs, crate::method::DEFAULT_IOV)
            .into_iter()
            .map(|n| IoOptions {
                iov: Some(n),
                ..none
            })
            .collect(),
        MethodKind::Uring
        | MethodKind::UringDirect
        | MethodKind::UringWrite
        | MethodKind::UringDirectWrite => {
            let registered = or_default(&factors.registered, false);
            or_default(&factors.depths, crate::method::DEFAULT_DEPTH)
                .into_iter()
                .flat_map(|d| {
                    registered.iter().map(move |&r| IoOptions {
                        depth: Some(d),
                        registered: Some(r),
                        ..none
                    })
                })
                .collect()
        }
        _ => vec![none],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    pub(crate) fn case(method: MethodKind) -> Case {
        let mut case = crate::fixtures::case(method);
        (case.block_size, case.file_size) = (4096, 1 << 20);
        case
    }

    #[test]
    fn options_multiply_only_their_own_method_in_order() {
        let factors = IoFactors {
            stdio_buffers: vec![4096, 65536],
            iovs: vec![1, 8],
            depths: vec![1, 32],
            registered: vec![false, true],
            latency: Vec::new(),
        };
        let cases = expand(
            vec![
                case(MethodKind::Read),
                case(MethodKind::Stdio),
                case(MethodKind::Preadv),
                case(MethodKind::UringDirect),
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
                "preadv(iov=1)",
                "preadv(iov=8)",
                "uring-direct(depth=1)",
                "uring-direct(depth=1,registered)",
                "uring-direct(depth=32)",
                "uring-direct(depth=32,registered)",
                "mmap"
            ]
        );
        let defaults = expand(
            vec![
                case(MethodKind::Stdio),
                case(MethodKind::Preadv),
                case(MethodKind::Uring),
            ],
            &IoFactors::default(),
        )
        .unwrap();
        assert_eq!(defaults[0].io.stdio_buffer, Some(8192));
        assert_eq!(defaults[1].io.iov, Some(4));
        assert_eq!(
            (defaults[2].io.depth, defaults[2].io.registered),
            (Some(1), Some(false))
        );
        assert!(defaults.iter().all(|c| !c.latency));
    }

    #[test]
    fn latency_off_and_on_multiplies_every_case_within_its_group() {
        let factors = IoFactors {
            latency: vec![false, true],
            ..IoFactors::default()
        };
        let cases = expand(
            vec![case(MethodKind::Read), case(MethodKind::Uring)],
            &factors,
        )
        .unwrap();
        let labels: Vec<String> = cases.iter().map(Case::method_label).collect();
        assert_eq!(
            labels,
            [
                "read",
                "read(latency)",
                "uring(depth=1)",
                "uring(depth=1,latency)"
            ]
        );
        assert!(cases.iter().all(|c| c.group_key() == cases[0].group_key()));
    }

    #[test]
    fn out_of_range_options_are_plan_errors() {
        for b in [0, MAX_STDIO_BUFFER + 1] {
            let factors = IoFactors {
                stdio_buffers: vec![b],
                ..IoFactors::default()
            };
            let err = expand(vec![case(MethodKind::Read)], &factors).unwrap_err();
            assert!(matches!(err, Error::Plan(_)), "{err}");
            assert!(err.to_string().contains("--stdio-buffer"));
        }
        let mut big = case(MethodKind::Preadv);
        big.block_size = 64 << 20;
        let factors = IoFactors {
            iovs: vec![32],
            ..IoFactors::default()
        };
        let err = expand(vec![big], &factors).unwrap_err().to_string();
        assert_eq!(
            err,
            "--iov 32 with --block 64 MiB needs 2 GiB of buffers; keep --iov × --block at or below 1 GiB"
        );
        let mut deep = case(MethodKind::Uring);
        deep.block_size = 16 << 20;
        let factors = IoFactors {
            depths: vec![64, 65],
            ..IoFactors::default()
        };
        let err = expand(vec![deep], &factors).unwrap_err().to_string();
        assert!(err.starts_with("--depth 65 with --block 16 MiB"), "{err}");
    }

    #[test]
    fn cases_saved_before_these_options_existed_still_load() {
        // A case as journals and exports held it before stdio, preadv, uring and --latency.
        let old = r#"{"method":"read","pattern":"seq","block_size":4096,"file_size":1048576,
            "workload":"sum","cache":"warm","warm_by":"seq","populate":null,"advice":null,
            "share":null,"seed":1}"#;
        let case: Case = serde_json::from_str(old).unwrap();
        assert_eq!(case.io, IoOptions::default());
        assert!(!case.latency);
        let mut new = super::tests::case(MethodKind::Uring);
        new.io.depth = Some(32);
        new.latency = true;
        let back: Case = serde_json::from_str(&serde_json::to_string(&new).unwrap()).unwrap();
        assert_eq!(back, new);
    }
}
