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
    &["error", "size", "system", "os_path", "console"],
    &["pattern", "workload"],
    &["method"],
    &["measure"],
    &["plan"],
    &["files", "results"],
    &["trial"],
    &["runner"],
    &["stats"],
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
