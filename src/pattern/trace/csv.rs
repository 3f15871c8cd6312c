//! Plain CSV traces: one read per line, `offset,length` in bytes, both whole
//! numbers. The first line may be a header (any line whose first field is
//! not a number, e.g. `offset,length`); blank lines and lines starting with
//! `#` are ignored. Every line is a read.
use super::{Collector, Kind, LineParser, TraceError, TraceFormat};

/// Whether a first line looks like this format: `NUMBER,NUMBER` or a header
/// starting with `offset`.
pub(super) fn looks_like(line: &str) -> bool {
    let mut fields = line.split(',').map(str::trim);
    match (fields.next(), fields.next(), fields.next()) {
        (Some(a), Some(b), None) => {
            let number = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
            (number(a) && number(b)) || a.eq_ignore_ascii_case("offset")
        }
        _ => false,
    }
}

/// Parses CSV lines.
#[derive(Debug, Default)]
pub(super) struct CsvParser {
    seen_data: bool,
    target: Option<u32>,
}

impl LineParser for CsvParser {
    fn line(&mut self, number: u32, line: &str, out: &mut Collector) -> Result<(), TraceError> {
        let s = line.trim();
        if s.is_empty() || s.starts_with('#') {
            return Ok(());
        }
        let fields: Vec<&str> = s.split(',').map(str::trim).collect();
        let first_is_number = fields[0].parse::<u64>().is_ok();
        if !self.seen_data && !first_is_number {
            self.seen_data = true;
            out.other += 1;
            return Ok(()); // the header
        }
        self.seen_data = true;
        let bad = |why: String| TraceError::at(number, format!("{why} in '{}'", super::clip(s)));
        let [offset, length] = fields[..] else {
            return Err(bad(format!(
                "expected offset,length, got {} fields",
                fields.len()
            )));
        };
        let offset: u64 = offset
            .parse()
            .map_err(|_| bad(format!("offset '{offset}' is not a whole number")))?;
        let length: u64 = length
            .parse()
            .map_err(|_| bad(format!("length '{length}' is not a whole number")))?;
        let target = *self.target.get_or_insert_with(|| out.target("csv"));
        let kind = if length == 0 { Kind::Empty } else { Kind::Read };
        out.push(target, None, kind, offset, length, number)
    }

    fn format(&self) -> Option<TraceFormat> {
        Some(TraceFormat::Csv)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_str, TraceOptions};
    use super::*;

    #[test]
    fn with_and_without_header() {
        let opts = TraceOptions::default();
        let a = parse_str("offset,length\n0,4096\n\n# comment\n8192, 100\n", &opts).unwrap();
        let b = parse_str("0,4096\n8192,100\n", &opts).unwrap();
        assert_eq!(a.format, TraceFormat::Csv);
        assert_eq!(a.target, None);
        let pairs = |t: &super::super::Trace| {
            t.reads
                .iter()
                .map(|o| (o.offset, o.len))
                .collect::<Vec<_>>()
        };
        assert_eq!(pairs(&a), vec![(0, 4096), (8192, 100)]);
        assert_eq!(pairs(&a), pairs(&b));
        assert_eq!(a.reads[1].line, 5);
    }

    #[test]
    fn malformed_lines() {
        let opts = TraceOptions::default();
        for (text, needle) in [
            ("0,10\n5\n", "line 2: expected offset,length, got 1 fields"),
            (
                "0,10\n5,6,7\n",
                "line 2: expected offset,length, got 3 fields",
            ),
            ("0,10\n-5,6\n", "line 2: offset '-5'"),
            ("offset,length\nlength,offset\n", "line 2: offset 'length'"),
            (
                "0,10\n5,99999999999\n",
                "line 2: an operation of 99999999999 bytes",
            ),
        ] {
            let e = parse_str(text, &opts).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }

    #[test]
    fn detection() {
        assert!(looks_like("0,4096"));
        assert!(looks_like("Offset , Length"));
        assert!(!looks_like("0,4096,7"));
        assert!(!looks_like("read(3, \"a,b\", 3) = 3"));
    }
}
