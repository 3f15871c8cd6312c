//! The one way faultline writes to its standard output and standard error.
//!
//! Every `println!`, `print!`, `eprintln!` and `eprint!` of the library and
//! the binary comes here (lib.rs and main.rs shadow the standard macros with
//! ones that call [`line`] and [`text`]), and so does the coloured text of
//! the verdicts ([`styled`]). Two things hold for all of it:
//!
//! - **Nothing user-controlled reaches the terminal raw.** A file name, a
//!   trace line, a field of an input JSON or a plan value may hold control
//!   characters (an escape sequence that clears the screen or sets the
//!   window title, a carriage return that hides what came before, a
//!   bidirectional override that reorders text). Each is written as
//!   visible text instead ([`escape`]): `\x1b`, `\r`, `\u{202e}`. A line
//!   (`println!`) stays one line: a newline inside it is escaped too. Only
//!   the colour codes faultline itself paints verdict words with pass, and
//!   only on standard output, through [`styled`].
//! - **A closed stream ends the output quietly.** When the reader of
//!   standard output goes away (`faultline env | head -1`), the write fails
//!   with EPIPE: faultline stops writing to that stream and carries on with
//!   what it was doing (a run still writes its exports and keeps its journal),
//!   instead of panicking as the standard macros do. The same for standard
//!   error (`2>&-` into a closed pipe).
//!
//! Text is fitted to the terminal's width by [`fit`] (wrapping, tables);
//! the warnings and notes ([`warning`], [`note`], [`warning_table`]) are
//! wrapped to it, escaped, written here, and silenced by `--quiet`
//! ([`set_quiet`]; errors are never silenced).
mod fit;

pub use fit::{
    fit, table, width, width_of_terminal, wrap, wrap_hanging, wrap_lines, DEFAULT_WIDTH, MIN_WIDTH,
};

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Which of the two streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: results, tables, what was written.
    Out,
    /// Standard error: errors, warnings, notes, progress.
    Err,
}

static QUIET: AtomicBool = AtomicBool::new(false);
static OUT_CLOSED: AtomicBool = AtomicBool::new(false);
static ERR_CLOSED: AtomicBool = AtomicBool::new(false);

impl Stream {
    fn closed(self) -> &'static AtomicBool {
        match self {
            Stream::Out => &OUT_CLOSED,
            Stream::Err => &ERR_CLOSED,
        }
    }

    /// Whether a write to this stream has failed (its reader went away);
    /// nothing more is written to it.
    pub fn is_closed(self) -> bool {
        self.closed().load(Ordering::Relaxed)
    }

    /// Writes `bytes` whole and flushes; a failure closes the stream for
    /// the rest of the process, silently.
    fn write(self, bytes: &[u8]) {
        if self.is_closed() {
            return;
        }
        let written = match self {
            Stream::Out => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            Stream::Err => {
                let mut err = std::io::stderr().lock();
                err.write_all(bytes).and_then(|()| err.flush())
            }
        };
        if written.is_err() {
            self.closed().store(true, Ordering::Relaxed);
        }
    }
}

/// `println!` and `eprintln!`: one line, every control character in it
/// (a newline included) escaped, then a newline.
pub fn line(stream: Stream, args: fmt::Arguments<'_>) {
    let text = fmt::format(args);
    let mut out = escape(&text, false).into_owned();
    out.push('\n');
    stream.write(out.as_bytes());
}

/// `print!` and `eprint!`: text that may span lines (a plan, a table); its
/// newlines and tabs are kept, every other control character escaped.
pub fn text(stream: Stream, args: fmt::Arguments<'_>) {
    let text = fmt::format(args);
    stream.write(escape(&text, true).as_bytes());
}

/// Writes `text` (lines, with the colour codes faultline paints verdict
/// words with) to standard output: those colour codes are kept, then kept
/// or stripped as `choice` says (anstream: NO_COLOR, a terminal or not);
/// every other control character is escaped.
pub fn styled(text: &str, choice: anstream::ColorChoice) {
    let stream = Stream::Out;
    if stream.is_closed() {
        return;
    }
    let clean = escape_keeping_paint(text);
    let mut out = anstream::AutoStream::new(std::io::stdout(), choice);
    if out
        .write_all(clean.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        stream.closed().store(true, Ordering::Relaxed);
    }
}

/// `--quiet`: from now on [`warning`] and [`note`] print nothing.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Prints `warning: TEXT` to standard error, escaped and wrapped to the
/// terminal (continuation lines indented), unless `--quiet`.
pub fn warning(text: &str) {
    say("warning", text);
}

/// Prints `note: TEXT` as [`warning`] does.
pub fn note(text: &str) {
    say("note", text);
}

/// Prints `KIND: TEXT` (`trace: ...`) as [`warning`] does: wrapped to the
/// terminal, nothing with `--quiet`.
pub fn labelled(kind: &str, text: &str) {
    say(kind, text);
}

/// Prints `text` to standard error wrapped to the terminal (continuation
/// lines indented), `--quiet` or not: what a command says it does
/// (`reproducing sun2002 ...`).
pub fn info(text: &str) {
    Stream::Err.write(wrapped(text, width_of_terminal()).as_bytes());
}

/// Prints a warning that concerns several cases once: `warning: TEXT`
/// wrapped, then the cases as a [`table`] under `header`, unless `--quiet`.
/// Every cell is escaped before it is measured and wrapped.
pub fn warning_table(text: &str, header: &[&str], rows: &[Vec<String>]) {
    if quiet() {
        return;
    }
    let max = width_of_terminal();
    let mut out = wrapped(&format!("warning: {text}"), max);
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| escape(c, false).into_owned()).collect())
        .collect();
    for line in table(header, &rows, 4, max) {
        out.push_str(&line);
        out.push('\n');
    }
    Stream::Err.write(out.as_bytes());
}

fn say(kind: &str, text: &str) {
    if quiet() {
        return;
    }
    let out = wrapped(&format!("{kind}: {text}"), width_of_terminal());
    Stream::Err.write(out.as_bytes());
}

/// `text` escaped as one line, then wrapped to `max` with continuation
/// lines indented by two spaces, each ended by a newline.
fn wrapped(text: &str, max: usize) -> String {
    let mut out = String::new();
    for line in wrap_hanging(&escape(text, false), max, 2) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether `c` is written escaped: C0 controls (but a newline and a tab
/// when `keep_newlines`), DEL, C1 controls, and the invisible characters
/// that reorder or hide text (bidirectional embeddings, overrides and
/// isolates, the line and paragraph separators).
fn needs_escape(c: char, keep_newlines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_newlines,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with every control character written as visible text: `\n`,
/// `\r`, `\t` and `\x1b`-style escapes for C0 controls and DEL, `\u{…}` for
/// the others (see [`needs_escape`]). With `keep_newlines`, newlines and
/// tabs stay as they are. Borrowed when nothing needed escaping.
pub fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| needs_escape(c, keep_newlines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c, keep_newlines) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// The colour codes faultline paints with (bold, then green, red, yellow or
/// magenta for unsettled,
/// and the reset), as anstyle writes them: the only escape sequences that
/// reach standard output unescaped.
const PAINT: &[&str] = &[
    "\u{1b}[0m",
    "\u{1b}[1m",
    "\u{1b}[31m",
    "\u{1b}[32m",
    "\u{1b}[33m",
    "\u{1b}[35m",
];

/// [`escape`] keeping newlines, tabs and the [`PAINT`] sequences.
pub fn escape_keeping_paint(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\u{1b}' && needs_escape(c, true)) && !has_foreign_escape(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\u{1b}' {
            if let Some(seq) = PAINT.iter().find(|p| rest.starts_with(**p)) {
                out.push_str(seq);
                rest = &rest[seq.len()..];
                continue;
            }
        }
        if needs_escape(c, true) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// Whether `text` holds an escape character that does not start a [`PAINT`] sequence.
fn has_foreign_escape(text: &str) -> bool {
    text.match_indices('\u{1b}')
        .any(|(i, _)| !PAINT.iter().any(|p| text[i..].starts_with(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible_text() {
        assert_eq!(escape("plain, ünïcode", false), "plain, ünïcode");
        assert!(matches!(escape("plain", false), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{1b}[2Jb", false), "a\\x1b[2Jb");
        assert_eq!(escape("a\rb\nc\td", false), "a\\rb\\nc\\td");
        assert_eq!(escape("a\rb\nc\td", true), "a\\rb\nc\td");
        assert_eq!(escape("\u{7}\u{7f}\u{85}", false), "\\x07\\x7f\\u{85}");
        assert_eq!(escape("x\u{202e}y", false), "x\\u{202e}y");
    }

    #[test]
    fn only_faultline_s_own_colours_pass_through_styled_text() {
        let ours = "\u{1b}[1m\u{1b}[32mfaster than\u{1b}[0m\n";
        assert_eq!(escape_keeping_paint(ours), ours);
        let theirs = "\u{1b}]0;title\u{7}\u{1b}[8mhidden\u{1b}[0m";
        assert_eq!(
            escape_keeping_paint(theirs),
            "\\x1b]0;title\\x07\\x1b[8mhidden\u{1b}[0m"
        );
    }

    proptest::proptest! {
        #[test]
        fn escaped_text_holds_no_control_character(text in "\\PC*|[\\x00-\\x7f\\u{80}-\\u{9f}\\u{202a}-\\u{202e}]*") {
            let line = escape(&text, false);
            let raw = line.chars().any(|c| needs_escape(c, false));
            proptest::prop_assert!(!raw, "{:?}", line);
            let styled = escape_keeping_paint(&text);
            proptest::prop_assert!(!has_foreign_escape(&styled));
            let raw = styled.chars().any(|c| c != '\u{1b}' && needs_escape(c, true));
            proptest::prop_assert!(!raw, "{:?}", styled);
        }
    }
}
