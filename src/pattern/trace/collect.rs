//! The operations of every file a trace touches, gathered while parsing,
//! and the choice of the one file to replay ([`Follow`]) once all are known.
use std::collections::HashMap;

use super::{Follow, Skipped, Trace, TraceError, TraceFormat, TraceOp};

/// What an operation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
    Empty,
    Failed,
}

#[derive(Debug)]
struct RawOp {
    target: u32,
    fd: Option<i32>,
    kind: Kind,
    op: TraceOp,
}

#[derive(Debug)]
struct TargetInfo {
    name: String,
    reads: u64,
}

/// The operations of every file a trace touches, before one is chosen.
#[derive(Debug, Default)]
pub(super) struct Collector {
    targets: Vec<TargetInfo>,
    by_name: HashMap<String, u32>,
    ops: Vec<RawOp>,
    /// Lines that are neither reads nor writes.
    pub(super) other: u64,
}

impl Collector {
    /// The target called `name`, created on first use.
    pub(super) fn target(&mut self, name: &str) -> u32 {
        if let Some(&t) = self.by_name.get(name) {
            return t;
        }
        let t = self.targets.len() as u32;
        self.targets.push(TargetInfo {
            name: name.to_string(),
            reads: 0,
        });
        self.by_name.insert(name.to_string(), t);
        t
    }

    /// Records an operation; `len` is what it moved (reads of 4 GiB or more are refused).
    pub(super) fn push(
        &mut self,
        target: u32,
        fd: Option<i32>,
        kind: Kind,
        offset: u64,
        len: u64,
        line: u32,
    ) -> Result<(), TraceError> {
        let len = u32::try_from(len).map_err(|_| {
            TraceError::at(
                line,
                format!("an operation of {len} bytes is 4 GiB or more"),
            )
        })?;
        if kind == Kind::Read {
            self.targets[target as usize].reads += 1;
        }
        let op = TraceOp { offset, len, line };
        self.ops.push(RawOp {
            target,
            fd,
            kind,
            op,
        });
        Ok(())
    }

    pub(super) fn select(self, format: TraceFormat, follow: &Follow) -> Result<Trace, TraceError> {
        let chosen: Box<dyn Fn(&RawOp) -> bool> = match follow {
            Follow::Busiest => {
                let best = (0..self.targets.len())
                    .max_by_key(|&t| (self.targets[t].reads, std::cmp::Reverse(t)));
                match best {
                    Some(t) => Box::new(move |op: &RawOp| op.target as usize == t),
                    None => Box::new(|_| false),
                }
            }
            Follow::Path(p) => {
                let wanted: Vec<u32> = (0..self.targets.len() as u32)
                    .filter(|&t| same_path(&self.targets[t as usize].name, p))
                    .collect();
                Box::new(move |op: &RawOp| wanted.contains(&op.target))
            }
            Follow::Fd(fd) => {
                if format != TraceFormat::Strace {
                    return Err(TraceError::Options(format!(
                        "a file descriptor can be followed in strace traces only, not {format}"
                    )));
                }
                let fd = *fd;
                Box::new(move |op: &RawOp| op.fd == Some(fd))
            }
        };
        let mut trace = Trace {
            format,
            target: None,
            reads: Vec::new(),
            writes: Vec::new(),
            skipped: Skipped {
                other: self.other,
                ..Skipped::default()
            },
        };
        for raw in &self.ops {
            if !chosen(raw) {
                trace.skipped.other_files += 1;
                continue;
            }
            if trace.target.is_none() && format != TraceFormat::Csv {
                trace.target = Some(self.targets[raw.target as usize].name.clone());
            }
            match raw.kind {
                Kind::Read => trace.reads.push(raw.op),
                Kind::Write => trace.writes.push(raw.op),
                Kind::Empty => trace.skipped.empty += 1,
                Kind::Failed => trace.skipped.failed += 1,
            }
        }
        if trace.reads.is_empty() && trace.writes.is_empty() {
            return Err(TraceError::Options(format!(
                "the trace has no reads or writes to replay{}",
                self.describe(follow)
            )));
        }
        if let Follow::Fd(fd) = follow {
            trace.target.get_or_insert_with(|| format!("fd {fd}"));
        }
        Ok(trace)
    }

    /// ` for ...; files seen: ...`, for the no-reads error.
    fn describe(&self, follow: &Follow) -> String {
        let which = match follow {
            Follow::Busiest => String::new(),
            Follow::Path(p) => format!(" for path '{p}'"),
            Follow::Fd(fd) => format!(" for fd {fd}"),
        };
        let seen: Vec<String> = self
            .targets
            .iter()
            .take(8)
            .map(|t| format!("{} ({} reads)", t.name, t.reads))
            .collect();
        if seen.is_empty() {
            which
        } else {
            format!("{which}; files seen: {}", seen.join(", "))
        }
    }
}

/// Whether a traced path is the one asked for: equal, or ending with `/asked`
/// (or the other way round, as a trace may hold relative paths).
pub(super) fn same_path(traced: &str, asked: &str) -> bool {
    let ends = |long: &str, short: &str| {
        long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes()[long.len() - short.len() - 1] == b'/'
    };
    traced == asked || ends(traced, asked) || ends(asked, traced)
}
