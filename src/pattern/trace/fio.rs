//! fio iologs, as fio's `write_iolog` writes them and `read_iolog` reads
//! them (fio's `iolog.c`):
//!
//! ```text
//! fio version 2 iolog            fio version 3 iolog
//! data.bin add                   22 data.bin add
//! data.bin open                  244 data.bin open
//! data.bin read 12288 4096       248 data.bin read 12288 4096
//! data.bin write 0 512           400 data.bin write 0 512
//! data.bin close                 5560 data.bin close
//! ```
//!
//! Version 3 starts each line with the microseconds since the job started.
//! File actions (`add`, `open`, `close`) have no offset and length; I/O
//! actions are `read`, `write`, `trim`, `sync`, `datasync` and `wait`
//! (`sync_file_range` and `syncfs` are accepted too). Only reads are
//! replayed; writes are reported; the rest is counted as skipped. Version 1
//! (no header) is refused, as fio itself refuses it. Like fio's `sscanf`, a
//! length is an unsigned 32-bit number and file names hold no spaces.
use super::{Collector, Kind, LineParser, TraceError, TraceFormat};

/// Parses fio iolog lines.
#[derive(Debug, Default)]
pub(super) struct FioParser {
    version: Option<TraceFormat>,
}

impl LineParser for FioParser {
    fn line(&mut self, number: u32, line: &str, out: &mut Collector) -> Result<(), TraceError> {
        let Some(version) = self.version else {
            self.version = Some(match line.trim() {
                s if s.starts_with("fio version 2 iolog") => TraceFormat::FioV2,
                s if s.starts_with("fio version 3 iolog") => TraceFormat::FioV3,
                s if s.starts_with("fio version") => {
                    return Err(TraceError::at(
                        number,
                        format!(
                            "'{}': only fio iolog versions 2 and 3 are read",
                            super::clip(s)
                        ),
                    ))
                }
                s => {
                    return Err(TraceError::at(
                        number,
                        format!(
                            "expected 'fio version 2 iolog' or 'fio version 3 iolog', got '{}'",
                            super::clip(s)
                        ),
                    ))
                }
            });
            return Ok(());
        };
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            return Ok(());
        }
        let bad = |why: String| TraceError::at(number, format!("{why} in '{}'", super::clip(line)));
        if version == TraceFormat::FioV3 {
            if words[0].parse::<u64>().is_err() {
                return Err(bad(format!(
                    "a version 3 line starts with a time in microseconds, not '{}'",
                    words[0]
                )));
            }
            words.remove(0);
        }
        match words[..] {
            [file, "add" | "open" | "close"] => {
                out.target(file);
                out.other += 1;
                Ok(())
            }
            [_, action] => Err(bad(format!(
                "'{action}' is not a file action (add, open, close)"
            ))),
            [file, action, offset, length] => {
                let offset: u64 = offset
                    .parse()
                    .map_err(|_| bad(format!("offset '{offset}' is not a whole number")))?;
                let length: u32 = length.parse().map_err(|_| {
                    bad(format!(
                        "length '{length}' is not a whole number below 2^32"
                    ))
                })?;
                let kind = match action {
                    "read" if length == 0 => Kind::Empty,
                    "read" => Kind::Read,
                    "write" => Kind::Write,
                    "trim" | "sync" | "datasync" | "wait" | "sync_file_range" | "syncfs" => {
                        out.other += 1;
                        return Ok(());
                    }
                    _ => {
                        return Err(bad(format!(
                            "'{action}' is not an I/O action (read, write, trim, sync, \
                             datasync, wait)"
                        )))
                    }
                };
                let target = out.target(file);
                out.push(target, None, kind, offset, length as u64, number)
            }
            _ => Err(bad(format!(
                "expected {}FILE ACTION [OFFSET LENGTH]",
                if version == TraceFormat::FioV3 {
                    "USEC "
                } else {
                    ""
                }
            ))),
        }
    }

    fn format(&self) -> Option<TraceFormat> {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_str, Follow, TraceOptions};
    use super::*;

    fn parse(text: &str) -> Result<super::super::Trace, TraceError> {
        parse_str(text, &TraceOptions::default())
    }

    #[test]
    fn version_2_and_3_give_the_same_reads() {
        let v2 = "fio version 2 iolog\nd add\nd open\nd read 4096 512\nd write 0 512\nd read 0 4096\nd close\n";
        let v3 = "fio version 3 iolog\n1 d add\n2 d open\n3 d read 4096 512\n4 d write 0 512\n5 d read 0 4096\n6 d close\n";
        let (a, b) = (parse(v2).unwrap(), parse(v3).unwrap());
        assert_eq!(a.format, TraceFormat::FioV2);
        assert_eq!(b.format, TraceFormat::FioV3);
        assert_eq!(a.reads, b.reads);
        assert_eq!(a.reads.len(), 2);
        assert_eq!(
            (a.reads[1].offset, a.reads[1].len, a.reads[1].line),
            (0, 4096, 6)
        );
        assert_eq!(a.writes.len(), 1);
        assert_eq!(a.skipped.other, 3);
        assert_eq!(a.target.as_deref(), Some("d"));
    }

    #[test]
    fn follows_the_busiest_file_or_the_one_named() {
        let log = "fio version 2 iolog\na add\nb add\na read 0 10\nb read 0 10\nb read 10 10\n";
        let t = parse(log).unwrap();
        assert_eq!((t.target.as_deref(), t.reads.len()), (Some("b"), 2));
        assert_eq!(t.skipped.other_files, 1);
        let opts = TraceOptions {
            follow: Follow::Path("a".into()),
            ..TraceOptions::default()
        };
        assert_eq!(parse_str(log, &opts).unwrap().reads.len(), 1);
        let fd = TraceOptions {
            follow: Follow::Fd(3),
            ..TraceOptions::default()
        };
        assert!(parse_str(log, &fd)
            .unwrap_err()
            .to_string()
            .contains("strace traces only"));
    }

    #[test]
    fn malformed_lines_name_their_line() {
        for (text, line, needle) in [
            ("fio version 2 iolog\nd read x 10\n", 2, "offset 'x'"),
            (
                "fio version 2 iolog\nd read 0 4294967296\n",
                2,
                "below 2^32",
            ),
            (
                "fio version 2 iolog\nd frobnicate 0 1\n",
                2,
                "not an I/O action",
            ),
            ("fio version 2 iolog\nd opn\n", 2, "not a file action"),
            (
                "fio version 3 iolog\nd read 0 1\n",
                2,
                "time in microseconds",
            ),
            ("fio version 3 iolog\n\n1 d read 0\n", 3, "USEC FILE ACTION"),
            ("fio version 1 iolog\n", 1, "versions 2 and 3"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("line {line}: ")), "{e}");
            assert!(e.contains(needle), "{e}");
        }
        let forced = TraceOptions {
            format: Some(TraceFormat::FioV2),
            ..TraceOptions::default()
        };
        let e = parse_str("0,10\n", &forced).unwrap_err().to_string();
        assert!(e.contains("expected 'fio version 2 iolog'"), "{e}");
    }

    #[test]
    fn zero_length_reads_and_other_actions_are_skipped() {
        let t = parse("fio version 2 iolog\nd read 0 0\nd trim 0 4096\nd sync 0 0\nd read 1 1\n")
            .unwrap();
        assert_eq!((t.reads.len(), t.skipped.empty, t.skipped.other), (1, 1, 2));
    }
}
