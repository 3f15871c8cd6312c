//! What faultline writes for a person to read, fitted to the terminal: its
//! width (`COLUMNS` first, even into a pipe; else the terminal's; else
//! [`DEFAULT_WIDTH`]), text wrapped to it at spaces (never cut mid-word
//! unless one word is wider than the line), small tables whose last column
//! wraps, and the warnings, each printed wrapped and silenced by `--quiet`
//! ([`set_quiet`]; errors are never silenced).
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The width when neither `COLUMNS` nor a terminal tells one.
pub const DEFAULT_WIDTH: usize = 100;
/// The narrowest width honoured: below it text would be all breaks.
pub const MIN_WIDTH: usize = 40;

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--quiet`: from now on [`warning`] and [`note`] print nothing.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The width to fit output to: `COLUMNS` when it is a number (so that a
/// pipe or a script can ask for one), else the width of the terminal on
/// standard output or standard error, else [`DEFAULT_WIDTH`]; at least
/// [`MIN_WIDTH`].
pub fn width_of_terminal() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n.max(MIN_WIDTH);
    }
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let size = if stdout.is_terminal() {
        terminal_size::terminal_size_of(&stdout)
    } else if stderr.is_terminal() {
        terminal_size::terminal_size_of(&stderr)
    } else {
        None
    };
    size.map_or(DEFAULT_WIDTH, |(w, _)| usize::from(w.0).max(MIN_WIDTH))
}

/// Display width: characters, not counting ANSI colour sequences (`±` is
/// one column).
pub fn width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI ... final letter
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// `text` cut to `max` columns, ending in `…` when cut. Only for one word
/// wider than a line: text is wrapped, not cut.
pub fn fit(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// `text` wrapped at spaces into lines of at most `max` columns (a word
/// longer than that is cut); continuation lines keep the first line's
/// indentation plus two spaces.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let indent_len = text.len() - text.trim_start().len();
    wrap_hanging(text, max, indent_len + 2)
}

/// [`wrap`] with continuation lines indented by `hang` spaces. A line that
/// fits is returned as it is (its spacing kept).
pub fn wrap_hanging(text: &str, max: usize, hang: usize) -> Vec<String> {
    if width(text) <= max && !text.contains('\n') {
        return if text.trim().is_empty() {
            Vec::new()
        } else {
            vec![text.trim_end().to_string()]
        };
    }
    let indent_len = text.len() - text.trim_start().len();
    let hang = hang.min(max / 2);
    let indent = " ".repeat(hang);
    let mut lines = Vec::new();
    let mut current = " ".repeat(indent_len);
    for word in text.split_whitespace() {
        let empty = current.trim().is_empty();
        let extra = if empty { 0 } else { 1 };
        if !empty && width(&current) + extra + width(word) > max {
            lines.push(current);
            current = indent.clone();
        }
        if !current.trim().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.trim().is_empty() {
        lines.push(current);
    }
    lines.into_iter().map(|l| fit(&l, max)).collect()
}

/// Each line of `text` wrapped to `max` ([`wrap`]), joined again; a
/// trailing newline is kept.
pub fn wrap_lines(text: &str, max: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if width(line) <= max {
            out.push_str(line);
            out.push('\n');
        } else {
            for part in wrap(line, max) {
                out.push_str(&part);
                out.push('\n');
            }
        }
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

/// A small table, indented by `indent`: the columns but the last padded to
/// their widest cell, the last wrapped under itself to fit `max`. When the
/// other columns leave the last under a third of the line, each row is
/// one wrapped line instead, `first: second; third`, without the header.
pub fn table(header: &[&str], rows: &[Vec<String>], indent: usize, max: usize) -> Vec<String> {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(width(cell));
        }
    }
    let fixed: usize = indent + widths[..columns - 1].iter().map(|w| w + 2).sum::<usize>();
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    let narrow = fixed > max * 2 / 3;
    let mut render = |cells: Vec<&str>| {
        if narrow {
            let rest: Vec<&str> = cells[1..]
                .iter()
                .copied()
                .filter(|c| !c.is_empty())
                .collect();
            let line = format!("{pad}{}: {}", cells[0], rest.join("; "));
            out.extend(wrap_hanging(&line, max, indent + 4));
            return;
        }
        let mut head = pad.clone();
        for (i, cell) in cells.iter().enumerate().take(columns - 1) {
            head.push_str(cell);
            head.push_str(&" ".repeat(widths[i] - width(cell) + 2));
        }
        let last = cells.get(columns - 1).copied().unwrap_or("");
        let parts = wrap_hanging(last, max - fixed, 0);
        if parts.is_empty() {
            out.push(head.trim_end().to_string());
        }
        for (i, part) in parts.iter().enumerate() {
            let lead = if i == 0 {
                head.clone()
            } else {
                " ".repeat(fixed)
            };
            out.push(format!("{lead}{part}").trim_end().to_string());
        }
    };
    if !narrow {
        render(header.to_vec());
    }
    for row in rows {
        render(row.iter().map(String::as_str).collect());
    }
    out
}

/// Prints `warning: TEXT` to standard error, wrapped to the terminal
/// (continuation lines indented), unless `--quiet`.
pub fn warning(text: &str) {
    say("warning", text);
}

/// Prints `note: TEXT` as [`warning`] does.
pub fn note(text: &str) {
    say("note", text);
}

/// Prints a warning that concerns several cases once: `warning: TEXT`
/// wrapped, then the cases as a [`table`] under `header`, unless `--quiet`.
pub fn warning_table(text: &str, header: &[&str], rows: &[Vec<String>]) {
    if quiet() {
        return;
    }
    let max = width_of_terminal();
    let mut out = String::new();
    for line in wrap_hanging(&format!("warning: {text}"), max, 2) {
        out.push_str(&line);
        out.push('\n');
    }
    for line in table(header, rows, 4, max) {
        out.push_str(&line);
        out.push('\n');
    }
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

fn say(kind: &str, text: &str) {
    if quiet() {
        return;
    }
    let max = width_of_terminal();
    let mut out = String::new();
    for line in wrap_hanging(&format!("{kind}: {text}"), max, 2) {
        out.push_str(&line);
        out.push('\n');
    }
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_counts_no_colour_codes() {
        let lines = wrap("  aaa bbb ccc ddd", 9);
        assert_eq!(lines, ["  aaa bbb", "    ccc", "    ddd"]);
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(width("\x1b[1;32mfaster\x1b[0m"), 6);
        assert_eq!(wrap_lines("ab cd\nef\n", 4), "ab\n  cd\nef\n");
    }

    #[test]
    fn a_table_wraps_its_last_column_under_itself() {
        let rows = vec![
            vec![
                "read (seq)".to_string(),
                "one two three four five six".into(),
            ],
            vec!["mmap".to_string(), "x".into()],
        ];
        let lines = table(&["case", "why"], &rows, 2, 30);
        assert_eq!(lines[0], "  case        why");
        assert_eq!(lines[1], "  read (seq)  one two three");
        assert_eq!(lines[2], "              four five six");
        assert_eq!(lines[3], "  mmap        x");
        assert!(lines.iter().all(|l| width(l) <= 30));
        // Too narrow for columns: each row is one wrapped line.
        let narrow = table(&["case", "why"], &rows, 2, 14);
        assert!(narrow.iter().all(|l| width(l) <= 14), "{narrow:?}");
        assert_eq!(narrow[0], "  read (seq):", "{narrow:?}");
        assert_eq!(narrow.last().unwrap(), "  mmap: x", "{narrow:?}");
    }
}
