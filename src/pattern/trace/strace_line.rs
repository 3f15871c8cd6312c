//! The syntax of one line of `strace` output: an optional pid (`-f`, as
//! `1234 ` or `[pid 1234] `), an optional timestamp (`-t`, `-tt`, `-ttt`,
//! `-r`), then a call `name(args) = result [ERRNO (text)] [<time>]`, the
//! first half of a call cut by another thread (`name(args <unfinished ...>`),
//! its second half (`<... name resumed>args) = result`), or a line strace
//! adds (`+++ exited with 0 +++`, `--- SIGCHLD {...} ---`, `strace: ...`).
//! Nothing here knows what a call means.

/// One line, classified.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// A whole call: `name(args) = result`.
    Call { pid: u32, text: &'a str },
    /// The first half of a call: `name(args` without ` <unfinished ...>`.
    Unfinished { pid: u32, text: &'a str },
    /// The second half: `args) = result`, for call `name`.
    Resumed {
        pid: u32,
        name: &'a str,
        rest: &'a str,
    },
    /// A line strace adds: exits, signals, attach messages.
    Note,
}

/// Whether a line looks like strace output (for format detection).
pub(super) fn looks_like(line: &str) -> bool {
    matches!(
        classify(line),
        Some(Line::Call { .. } | Line::Unfinished { .. } | Line::Note)
    ) && !line.trim_start().starts_with("<...")
}

/// Classifies a line; `None` when it is not strace output.
pub(super) fn classify(line: &str) -> Option<Line<'_>> {
    let (pid, s) = prefix(line);
    if s.starts_with("+++ ")
        || s.starts_with("--- ")
        || s.starts_with("strace: ")
        || s.starts_with("[ Process")
    {
        return Some(Line::Note);
    }
    if let Some(rest) = s.strip_prefix("<... ") {
        let (name, rest) = rest.split_once(" resumed>")?;
        return is_name(name).then_some(Line::Resumed { pid, name, rest });
    }
    let open = s.find('(')?;
    if !is_name(&s[..open]) {
        return None;
    }
    Some(match s.trim_end().strip_suffix("<unfinished ...>") {
        Some(head) => Line::Unfinished {
            pid,
            text: head.strip_suffix(' ').unwrap_or(head),
        },
        None => Line::Call { pid, text: s },
    })
}

/// Strips the pid and timestamp; returns the pid (0 without `-f`).
fn prefix(line: &str) -> (u32, &str) {
    let mut s = line.trim_start();
    let mut pid = 0;
    if let Some(rest) = s.strip_prefix("[pid") {
        if let Some((n, rest)) = rest.split_once(']') {
            if let Ok(n) = n.trim().parse() {
                pid = n;
                s = rest.trim_start();
            }
        }
    }
    for _ in 0..2 {
        let Some((word, rest)) = s.split_once(|c: char| c.is_ascii_whitespace()) else {
            break;
        };
        let numeric = !word.is_empty()
            && word.bytes().any(|c| c.is_ascii_digit())
            && word
                .bytes()
                .all(|c| c.is_ascii_digit() || c == b':' || c == b'.');
        if !numeric {
            break;
        }
        if word.bytes().all(|c| c.is_ascii_digit()) && pid == 0 {
            pid = word.parse().unwrap_or(0);
        }
        s = rest.trim_start();
    }
    (pid, s)
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A whole call, split into its parts.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Call<'a> {
    /// The system call's name.
    pub name: &'a str,
    /// The arguments as printed, split at top-level commas.
    pub args: Vec<&'a str>,
    /// The result; `None` for `= ?`.
    pub result: Option<i64>,
    /// The path strace `-y` printed after the result (`= 5</tmp/f>`).
    pub result_path: Option<&'a str>,
}

/// Splits `name(args) = result ...`. Errors say what is missing.
pub(super) fn parse_call(text: &str) -> Result<Call<'_>, String> {
    let open = text.find('(').ok_or("no '('")?;
    let name = &text[..open];
    let (args, after) = split_args(&text[open + 1..]).ok_or("no closing ')'")?;
    let result = after
        .trim_start()
        .strip_prefix('=')
        .ok_or("no '= RESULT' after the arguments")?
        .trim_start();
    let end = result
        .find(|c: char| c.is_ascii_whitespace() || c == '<')
        .unwrap_or(result.len());
    let (number, rest) = result.split_at(end);
    let value = match number {
        "?" => None,
        n if n.starts_with("0x") => Some(
            i64::from_str_radix(&n[2..], 16)
                .map_err(|_| format!("result '{n}' is not a number"))?,
        ),
        n => Some(
            n.parse::<i64>()
                .map_err(|_| format!("result '{n}' is not a number"))?,
        ),
    };
    let result_path = rest
        .strip_prefix('<')
        .and_then(|r| r.split_once('>'))
        .map(|(path, _)| path);
    Ok(Call {
        name,
        args,
        result: value,
        result_path,
    })
}

/// Splits the arguments up to the `)` that closes them, at commas outside
/// quotes, brackets, braces and `-y` decorations (`3</path>`).
fn split_args(s: &str) -> Option<(Vec<&str>, &str)> {
    let bytes = s.as_bytes();
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    let (mut args, mut start) = (Vec::new(), 0);
    for (i, &c) in bytes.iter().enumerate() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => quoted = true,
            b'[' | b'{' => depth += 1,
            b'<' if i > 0 && bytes[i - 1].is_ascii_digit() => depth += 1,
            b']' | b'}' | b'>' if depth > 0 => depth -= 1,
            b',' if depth == 0 => {
                args.push(s[start..i].trim());
                start = i + 1;
            }
            b')' if depth == 0 => {
                let last = s[start..i].trim();
                if !last.is_empty() || !args.is_empty() {
                    args.push(last);
                }
                return Some((args, &s[i + 1..]));
            }
            _ => {}
        }
    }
    None
}

/// A file descriptor argument: `5` or `5</path>` (`-y`); the path if shown.
pub(super) fn fd_arg(arg: &str) -> Option<(i32, Option<&str>)> {
    let end = arg.find('<').unwrap_or(arg.len());
    let fd = arg[..end].trim().parse().ok()?;
    let path = arg[end..]
        .strip_prefix('<')
        .and_then(|p| p.strip_suffix('>'));
    Some((fd, path))
}

/// A quoted string argument, unescaped (`\"`, `\\`, `\n`, `\t`, octal, hex).
pub(super) fn string_arg(arg: &str) -> Option<String> {
    let inner = arg.strip_prefix('"')?;
    let inner = inner
        .strip_suffix("\"...")
        .or_else(|| inner.strip_suffix('"'))?;
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.bytes().peekable();
    while let Some(c) = bytes.next() {
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let e = bytes.next()?;
        out.push(match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'a' => 0x07,
            b'b' => 0x08,
            b'x' => {
                let mut v = 0u8;
                for _ in 0..2 {
                    match bytes.peek().and_then(|&d| (d as char).to_digit(16)) {
                        Some(d) => {
                            v = v.wrapping_mul(16).wrapping_add(d as u8);
                            bytes.next();
                        }
                        None => break,
                    }
                }
                v
            }
            b'0'..=b'7' => {
                let mut v = e - b'0';
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            v = v.wrapping_mul(8).wrapping_add(d - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                v
            }
            other => other,
        });
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        let call = |pid, text| Some(Line::Call { pid, text });
        assert_eq!(
            classify("read(3, \"\", 5) = 0"),
            call(0, "read(3, \"\", 5) = 0")
        );
        assert_eq!(classify("15232 read(3) = 0"), call(15232, "read(3) = 0"));
        assert_eq!(classify("[pid  15] read(3) = 0"), call(15, "read(3) = 0"));
        assert_eq!(
            classify("15 03:40:47.908835 read(3) = 0"),
            call(15, "read(3) = 0")
        );
        assert_eq!(
            classify("1700000000.123456 read(3) = 0"),
            call(0, "read(3) = 0")
        );
        assert_eq!(
            classify("     0.000123 read(3) = 0"),
            call(0, "read(3) = 0")
        );
        assert_eq!(classify("15 +++ exited with 0 +++"), Some(Line::Note));
        assert_eq!(
            classify("--- SIGCHLD {si_signo=SIGCHLD} ---"),
            Some(Line::Note)
        );
        assert_eq!(classify("hello world"), None);
        assert_eq!(classify("12345"), None);
    }

    #[test]
    fn split_halves() {
        assert_eq!(
            classify("15365 read(3,  <unfinished ...>"),
            Some(Line::Unfinished {
                pid: 15365,
                text: "read(3, "
            })
        );
        assert_eq!(
            classify("15365 <... read resumed>\"!\", 1) = 1"),
            Some(Line::Resumed {
                pid: 15365,
                name: "read",
                rest: "\"!\", 1) = 1"
            })
        );
    }

    #[test]
    fn calls() {
        let c = parse_call(r#"read(5, "a,b)\"c"..., 4096) = 4096 <0.000014>"#).unwrap();
        assert_eq!(c.name, "read");
        assert_eq!(c.args, vec!["5", r#""a,b)\"c"..."#, "4096"]);
        assert_eq!(c.result, Some(4096));
        let c = parse_call(
            "readv(5, [{iov_base=\"x\", iov_len=10}, {iov_base=\"y\", iov_len=20}], 2) = 30",
        )
        .unwrap();
        assert_eq!(c.args.len(), 3);
        let c = parse_call(
            "read(3, 0x7efc76027200, 10)       = -1 EAGAIN (Resource temporarily unavailable)",
        )
        .unwrap();
        assert_eq!(c.result, Some(-1));
        let c = parse_call(
            r#"openat(AT_FDCWD</tmp/fx>, "rw.bin", O_RDWR) = 5</tmp/fx/rw.bin> <0.000012>"#,
        )
        .unwrap();
        assert_eq!((c.result, c.result_path), (Some(5), Some("/tmp/fx/rw.bin")));
        assert_eq!(fd_arg("5</a,b)>"), Some((5, Some("/a,b)"))));
        let c = parse_call("read(5</a,b)>, \"\", 1) = 0").unwrap();
        assert_eq!(c.args[0], "5</a,b)>");
        assert_eq!(parse_call("exit_group(0) = ?").unwrap().result, None);
        assert!(parse_call("read(3, \"abc").is_err());
        assert!(parse_call("read(3) 5").is_err());
        assert!(parse_call("read(3) = five").is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(string_arg(r#""a\"b\\c\n\101\x41""#).unwrap(), "a\"b\\c\nAA");
        assert_eq!(string_arg(r#""abc"..."#).unwrap(), "abc");
        assert_eq!(string_arg("abc"), None);
        assert_eq!(string_arg("\"abc\\"), None);
    }
}
