//! The tree shows the pipeline: this test reads every `crate::` (and, in the
//! binary, `faultline::`) path in `src/`, outside comments and test modules,
//! and fails when a top-level part of `src/` (a folder or a loose file)
//! imports a part of a higher layer, when two parts import each other, or
//! when the tree loses the shape the README's Layout section describes.
//!
//! Run it alone with `cargo test --release --test architecture -- --nocapture`
//! to print the import graph it checked.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A part may import only parts of its own layer
/// or lower ones, and never a part of its own layer that imports it back.
const LAYERS: &[&[&str]] = &[
    &["error", "size", "system", "os_path", "console", "input"],
    &["stats"],
    &["pattern", "workload"],
    &["method"],
    &["measure"],
    &["plan"],
    &["files", "results"],
    &["trial"],
    &["runner"],
    &["analysis"],
    &["report"],
    &["studies"],
    &["session"],
    &["cli", "main"],
];

/// Parts that are not code of the pipeline: the crate root and the test fixtures.
const OUTSIDE: &[&str] = &["lib", "fixtures"];

fn layer_of(part: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&part))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level part a file of `src/` belongs to: `plan` for
/// `src/plan/case.rs`, `size` for `src/size.rs`.
fn part_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path under src/");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The code of a file without comments and without its test module (which
/// by this project's convention starts at the first `#[cfg(test)]` and runs
/// to the end of the file).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The first path segment after every `root::` in `code`, including each
/// member of a `root::{a, b::c}` group.
fn imported_parts(code: &str, root: &str) -> BTreeSet<String> {
    let mut parts = BTreeSet::new();
    let prefix = format!("{root}::");
    let mut rest = code;
    while let Some(i) = rest.find(&prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `my_crate::`, not `crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut member = String::new();
            let mut at_start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => {
                        at_start = true;
                        member.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 1 && at_start {
                    if c.is_alphanumeric() || c == '_' {
                        member.push(c);
                    } else if !member.is_empty() {
                        parts.insert(std::mem::take(&mut member));
                        at_start = false;
                    }
                }
            }
            if !member.is_empty() {
                parts.insert(member);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                parts.insert(name);
            }
        }
    }
    parts
}

/// Every arrow `part -> part` of `src/`, with the files that draw it.
fn import_graph() -> BTreeMap<(String, String), BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut binary_parts = BTreeSet::from(["main".to_string(), "cli".to_string()]);
    binary_parts.retain(|p| src.join(p).exists() || src.join(format!("{p}.rs")).exists());
    let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().to_path_buf();
        let from = part_of(&relative);
        if OUTSIDE.contains(&from.as_str()) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        // The binary reaches the library as `faultline::`, its own modules as `crate::`.
        let mut targets = imported_parts(&code, "faultline");
        targets.extend(imported_parts(&code, "crate"));
        for to in targets {
            if to == from || OUTSIDE.contains(&to.as_str()) {
                continue;
            }
            arrows
                .entry((from.clone(), to))
                .or_default()
                .insert(relative.display().to_string());
        }
    }
    arrows
}

#[test]
fn no_part_imports_a_higher_layer_or_one_that_imports_it_back() {
    let arrows = import_graph();
    if std::env::var_os("FAULTLINE_PRINT_GRAPH").is_some() {
        for ((from, to), files) in &arrows {
            println!(
                "{from} -> {to}  ({})",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    let mut wrong = Vec::new();
    for ((from, to), files) in &arrows {
        let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) else {
            wrong.push(format!(
                "{from} -> {to}: a part with no layer; add it to LAYERS ({files:?})"
            ));
            continue;
        };
        if b > a {
            wrong.push(format!("{from} -> {to} runs up a layer, in {files:?}"));
        } else if arrows.contains_key(&(to.clone(), from.clone())) && from < to {
            wrong.push(format!("{from} <-> {to} import each other, in {files:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_tree_keeps_its_shape() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let loose: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        loose.len() <= 8,
        "{} loose files in src/: {loose:?}",
        loose.len()
    );
    let main = std::fs::read_to_string(src.join("main.rs")).unwrap();
    assert!(
        main.lines().count() <= 150,
        "main.rs has {} lines; it should read straight through",
        main.lines().count()
    );
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let undocumented: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    assert!(
        undocumented.is_empty(),
        "every module starts with a //! comment saying what it is for: {undocumented:?}"
    );
    for part in LAYERS.iter().flat_map(|l| l.iter()) {
        let exists = src.join(part).is_dir() || src.join(format!("{part}.rs")).is_file();
        assert!(exists, "LAYERS names {part}, which is not in src/");
    }
}

#[test]
fn the_parser_sees_grouped_and_plain_imports_but_not_comments_or_tests() {
    let code = code_of(
        "use crate::{plan::Case, stats::{self, Summary}};\n\
         // use crate::report;\n\
         fn f() { crate::files::atomic::x(); my_crate::other(); }\n\
         #[cfg(test)]\nmod tests { use crate::studies; }\n",
    );
    let parts = imported_parts(&code, "crate");
    assert_eq!(
        parts.into_iter().collect::<Vec<_>>(),
        ["files", "plan", "stats"]
    );
}

// ---- Inside a folder: no import circle between its files ----

/// The code of a file with comments, string and char literals blanked out
/// (each replaced by spaces, newlines kept), so that braces and paths are
/// counted only where they are code.
fn blank_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &chars[i..j.min(chars.len())] {
                out.push(blank(ch));
            }
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            for &ch in &chars[i..(j + 1).min(chars.len())] {
                out.push(blank(ch));
            }
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{7f}'), or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(j) => {
                    for _ in i..=j {
                        out.push(' ');
                    }
                    i = j + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code of a file without its test module (from the first
/// `#[cfg(test)]` on), comments and literals blanked.
fn code_outside_tests(text: &str) -> String {
    let code = blank_comments_and_literals(text);
    match code.find("#[cfg(test)]") {
        Some(i) => code[..i].to_string(),
        None => code,
    }
}

/// The folder a module path lives in and its entry there: for
/// `src/files/atomic.rs`, folder `files` and entry `atomic`; a folder's
/// `mod.rs` is the folder itself (no entry); a file of a subfolder belongs
/// to that subfolder's entry in its parent.
fn module_path(relative: &Path) -> Vec<String> {
    let mut path: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = path.pop().expect("a file");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        path.push(stem.to_string());
    }
    path
}

/// Every module a file's code names, as absolute module paths (as far as
/// the path goes): `crate::a::b::C` gives `[a, b, C]`, `super::x` in
/// `src/a/b.rs` gives `[a, x]`, `self::y` in `src/a/mod.rs` gives `[a, y]`.
fn named_paths(module: &[String], is_mod_rs: bool, code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // Every maximal run of `ident::ident::...` (with `{a, b::c}` groups).
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && (ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut paths: Vec<Vec<String>> = Vec::new();
        i = read_path(&chars, i, Vec::new(), &mut paths);
        for p in paths {
            if p.len() < 2 {
                continue;
            }
            let mut base: Vec<String> = match p[0].as_str() {
                "crate" => Vec::new(),
                "self" => {
                    if is_mod_rs {
                        module.to_vec()
                    } else {
                        continue;
                    }
                }
                // `super` seen from a file is its folder; from a `mod.rs`,
                // the folder above.
                "super" => {
                    let mut m = module.to_vec();
                    m.pop();
                    m
                }
                _ => continue,
            };
            let mut rest = &p[1..];
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            found.push(base);
        }
    }
    found
}

/// Reads one path starting at `i` (`a::b::{c, d::e}`), appending every
/// complete path to `out` with `prefix` before it; returns where it ended.
fn read_path(
    chars: &[char],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut path = prefix;
    loop {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i < chars.len() && chars[i] == '{' {
            i += 1;
            loop {
                while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                    i += 1;
                }
                if i >= chars.len() || chars[i] == '}' {
                    return i + 1;
                }
                if ident(chars[i]) {
                    i = read_path(chars, i, path.clone(), out);
                } else {
                    i += 1;
                }
            }
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        if start == i {
            out.push(path);
            return i;
        }
        path.push(chars[start..i].iter().collect());
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
        } else {
            out.push(path);
            return i;
        }
    }
}

/// In every folder of `src/`, the arrows between its entries (its files but
/// `mod.rs`, and its subfolders): `folder: entry -> entry`. A name the
/// folder's `mod.rs` re-exports (`pub use entry::Name`) counts as an arrow
/// to that entry.
fn folder_graph() -> BTreeMap<String, BTreeSet<(String, String)>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut modules = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let is_mod_rs = relative.file_name().is_some_and(|n| n == "mod.rs")
            || relative == Path::new("lib.rs")
            || relative == Path::new("main.rs");
        let mut module = module_path(relative);
        if relative == Path::new("lib.rs") || relative == Path::new("main.rs") {
            module.clear();
        }
        let code = code_outside_tests(&std::fs::read_to_string(file).unwrap());
        modules.insert(module, (is_mod_rs, code));
    }
    // Re-exports: folder -> name -> entry.
    let mut reexports: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    for (module, (is_mod_rs, code)) in &modules {
        if !is_mod_rs {
            continue;
        }
        for line in code.split(';') {
            let line = line.trim();
            let Some(rest) = line
                .strip_prefix("pub use ")
                .or_else(|| line.strip_prefix("pub(crate) use "))
                .or_else(|| line.strip_prefix("pub(super) use "))
            else {
                continue;
            };
            let chars: Vec<char> = rest.chars().collect();
            let mut paths = Vec::new();
            read_path(&chars, 0, Vec::new(), &mut paths);
            for p in paths {
                let p: Vec<String> = if p.first().is_some_and(|s| s == "self") {
                    p[1..].to_vec()
                } else {
                    p
                };
                if p.len() >= 2 {
                    reexports
                        .entry(module.clone())
                        .or_default()
                        .insert(p.last().unwrap().clone(), p[0].clone());
                }
            }
        }
    }
    // A file of the folder, or a subfolder (with a `mod.rs` or not).
    let is_entry = |folder: &[String], name: &str| {
        let mut m = folder.to_vec();
        m.push(name.to_string());
        modules.keys().any(|k| k.starts_with(&m))
    };
    let mut graph: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    for (module, (is_mod_rs, code)) in &modules {
        for path in named_paths(module, *is_mod_rs, code) {
            // Every folder that holds both this module and the named one.
            for depth in 0..module.len().min(path.len()) {
                if module[..depth] != path[..depth] {
                    break;
                }
                let folder = &module[..depth];
                let from = &module[depth];
                let Some(name) = path.get(depth) else { break };
                let to = if is_entry(folder, name) {
                    name.clone()
                } else if let Some(entry) = reexports.get(folder).and_then(|r| r.get(name)) {
                    entry.clone()
                } else {
                    break;
                };
                if &to != from && is_entry(folder, from) {
                    graph
                        .entry(if folder.is_empty() {
                            "src".to_string()
                        } else {
                            folder.join("/")
                        })
                        .or_default()
                        .insert((from.clone(), to));
                }
            }
        }
    }
    graph
}

/// The circles of a graph: its strongly connected parts of two or more nodes.
fn circles(arrows: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = arrows.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| {
        let mut seen = BTreeSet::from([from.clone()]);
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for (a, b) in arrows {
                if *a == n && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        let part: Vec<String> = nodes
            .iter()
            .filter(|m| reached[n].contains(**m) && reached[**m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if part.len() > 1 && !out.contains(&part) {
            out.push(part);
        }
    }
    out
}

#[test]
fn no_import_circle_inside_a_folder() {
    let mut wrong = Vec::new();
    for (folder, arrows) in folder_graph() {
        for circle in circles(&arrows) {
            wrong.push(format!(
                "src/{folder}: {} import each other",
                circle.join(" <-> ")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "move the names they share into a small leaf file:\n{}",
        wrong.join("\n")
    );
}

// ---- Small files and small functions ----

/// The longest a file of `src/` may be, in lines (its tests included).
const MAX_FILE_LINES: usize = 800;
/// The longest a function outside tests may be, in lines.
const MAX_FUNCTION_LINES: usize = 120;

/// Files allowed past [`MAX_FILE_LINES`], each with the reason it stays
/// (one line each, so the list reads as a table).
#[rustfmt::skip]
const LONG_FILES: &[(&str, &str)] = &[
    ("runner/journal.rs", "the journal: its header (the RunSpec), entries, reader and writer, with their tests"),
    ("studies/claims.rs", "the claim checker: one rule per kind of claim, each with its tests"),
    ("studies/crotty2022.rs", "a preset is one file: published tables, plan, claims, notes and their tests"),
    ("studies/dillon2004.rs", "a preset is one file: published tables, plan, claims, notes and their tests"),
    ("studies/fedorova2019.rs", "a preset is one file: published tables, plan, claims, notes and their tests"),
    ("studies/liege2018.rs", "a preset is one file: published tables, plan, claims, notes and their tests"),
    ("workload/ppm.rs", "the PPM reader and the scale workload's kernels, with their tests"),
];

/// Functions allowed past [`MAX_FUNCTION_LINES`] (`file::function`), each
/// with the reason it stays.
#[rustfmt::skip]
const LONG_FUNCTIONS: &[(&str, &str)] = &[
    ("studies/claims.rs::judge_effects", "one claim rule's decision table, read as one piece"),
    ("studies/claims.rs::judge_trend", "one claim rule's decision table, read as one piece"),
    ("studies/fedorova2019.rs::judge_consistency", "one claim rule's decision table, read as one piece"),
    ("trial/mod.rs::run_trial", "the trial's sequence around its clocks, in the order it runs (hot path)"),
    ("trial/timed.rs::run_for_duration", "the timed trial's sequence around its clocks, in the order it runs (hot path)"),
];

/// Every function outside tests, as (name, first line, lines long).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(at) = find_fn(line) else { continue };
        let name: String = line[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The body: from the first `{` after the signature (unless a `;`
        // ends it first: a declaration) to its matching `}`.
        let mut depth = 0usize;
        let mut opened = false;
        let mut end = None;
        'scan: for (k, l) in lines.iter().enumerate().skip(n) {
            let from = if k == n { at } else { 0 };
            for c in l[from..].chars() {
                match c {
                    ';' if !opened => break 'scan,
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' if opened => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(k);
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(end) = end {
            out.push((name, n + 1, end - n + 1));
        }
    }
    out
}

/// Where `fn name` starts on a line of code, if it does.
fn find_fn(line: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = line[from..].find("fn ") {
        let at = from + i;
        let before_ok = at == 0 || !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let after = line[at + 3..].chars().next();
        if before_ok && after.is_some_and(|c| c.is_alphabetic() || c == '_') {
            return Some(at);
        }
        from = at + 3;
    }
    None
}

#[test]
fn files_and_functions_stay_small() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut allowed_used = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            if LONG_FILES.iter().any(|(f, _)| *f == relative) {
                allowed_used.insert(relative.clone());
            } else {
                wrong.push(format!(
                    "{relative}: {lines} lines (at most {MAX_FILE_LINES})"
                ));
            }
        }
        for (name, line, long) in functions(&code_outside_tests(&text)) {
            if long <= MAX_FUNCTION_LINES {
                continue;
            }
            let key = format!("{relative}::{name}");
            if LONG_FUNCTIONS.iter().any(|(f, _)| *f == key) {
                allowed_used.insert(key);
            } else {
                wrong.push(format!(
                    "{relative}:{line}: fn {name} is {long} lines (at most {MAX_FUNCTION_LINES})"
                ));
            }
        }
    }
    for (entry, why) in LONG_FILES.iter().chain(LONG_FUNCTIONS) {
        assert!(!why.trim().is_empty(), "{entry} is allowed with no reason");
        if !allowed_used.contains(*entry) {
            wrong.push(format!(
                "{entry} is allow-listed but no longer too long: remove it"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_checks_see_circles_long_functions_and_paths_but_not_literals() {
    // Braces in strings, chars and comments are not code.
    let code = code_outside_tests(
        "fn a() {\n    let s = \"}{\";\n    let c = '}';\n    // }\n    let r = r#\"{\"#;\n}\n\
         fn b<'x>(v: &'x str) -> &'x str {\n    v\n}\n#[cfg(test)]\nfn c() {\n}\n",
    );
    assert_eq!(
        functions(&code),
        [("a".to_string(), 1, 6), ("b".to_string(), 7, 3)]
    );
    // `super::` from a file is its folder; groups name every member.
    let module = ["files".to_string(), "clean".to_string()];
    let paths = named_paths(
        &module,
        false,
        "use super::{atomic::TEMP, sweep};\nfn f() { crate::files::dataset::x(); }",
    );
    let names: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        names,
        ["files::atomic::TEMP", "files::sweep", "files::dataset::x"]
    );
    // A circle of three is one circle; a chain is none.
    let arrows: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .iter()
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect();
    assert_eq!(circles(&arrows), [["a", "b", "c"]]);
    let chain: BTreeSet<(String, String)> = [("a".to_string(), "b".to_string())].into();
    assert!(circles(&chain).is_empty());
}
