//! Every crate faultline builds with is under a licence docs/licences.md
//! allows: `cargo metadata` (locked, offline) lists them, each licence
//! expression is read as SPDX (`OR`, `AND`, `WITH`, parentheses, and the old
//! `/` for `OR`), and a crate whose expression cannot be satisfied with the
//! allowed licences fails the test by name. The allowed list here and the
//! table in docs/licences.md must match.
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The licences any crate may be under (docs/licences.md's table).
const ALLOWED: &[&str] = &[
    "MIT",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "Zlib",
    "Unlicense",
    "0BSD",
    "CC0-1.0",
    "MIT-0",
    "BSL-1.0",
    "Unicode-3.0",
];

/// Exceptions (`WITH ...`) allowed with an allowed licence.
const ALLOWED_EXCEPTIONS: &[&str] = &["LLVM-exception"];

/// Licences allowed for one crate only, by name (docs/licences.md says why).
const ALLOWED_FOR: &[(&str, &str)] = &[("inferno", "CDDL-1.0")];

/// `rustc`'s host triple (`cargo metadata --filter-platform`: the crates
/// only other platforms build are not downloaded on an offline machine).
fn host_triple() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).arg("-vV").output().expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names its host")
        .to_string()
}

/// The packages `cargo metadata` lists for this platform.
fn packages() -> Vec<Value> {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host_triple()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    metadata["packages"].as_array().expect("packages").clone()
}

/// The tokens of an SPDX expression: `(`, `)`, `OR`, `AND`, `WITH` and ids.
fn tokens(expression: &str) -> Vec<String> {
    expression
        .replace('(', " ( ")
        .replace(')', " ) ")
        .replace('/', " OR ")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Whether the expression can be satisfied with licences `ok` allows.
/// `OR` binds looser than `AND`, which binds looser than `WITH`. `None`
/// when it is not a well-formed expression.
fn satisfiable(expression: &str, ok: &dyn Fn(&str) -> bool) -> Option<bool> {
    struct Parser<'a> {
        tokens: Vec<String>,
        at: usize,
        ok: &'a dyn Fn(&str) -> bool,
    }
    impl Parser<'_> {
        fn peek(&self) -> Option<&str> {
            self.tokens.get(self.at).map(String::as_str)
        }
        fn next(&mut self) -> Option<String> {
            let t = self.tokens.get(self.at).cloned();
            self.at += 1;
            t
        }
        fn or(&mut self) -> Option<bool> {
            let mut value = self.and()?;
            while self.peek() == Some("OR") {
                self.next();
                value |= self.and()?;
            }
            Some(value)
        }
        fn and(&mut self) -> Option<bool> {
            let mut value = self.term()?;
            while self.peek() == Some("AND") {
                self.next();
                value &= self.term()?;
            }
            Some(value)
        }
        fn term(&mut self) -> Option<bool> {
            let token = self.next()?;
            if token == "(" {
                let value = self.or()?;
                return (self.next()? == ")").then_some(value);
            }
            if matches!(token.as_str(), ")" | "OR" | "AND" | "WITH") {
                return None;
            }
            let mut value = (self.ok)(&token);
            if self.peek() == Some("WITH") {
                self.next();
                let exception = self.next()?;
                value &= ALLOWED_EXCEPTIONS.contains(&exception.as_str());
            }
            Some(value)
        }
    }
    let mut parser = Parser {
        tokens: tokens(expression),
        at: 0,
        ok,
    };
    let value = parser.or()?;
    (parser.at == parser.tokens.len()).then_some(value)
}

/// Whether licence `id` is allowed for the crate `name`.
fn allowed_for(name: &str, id: &str) -> bool {
    ALLOWED.contains(&id) || ALLOWED_FOR.iter().any(|&(n, l)| n == name && l == id)
}

#[test]
fn every_dependency_is_under_an_allowed_licence() {
    let packages = packages();
    assert!(packages.len() > 50, "cargo metadata lists the whole tree");
    let mut refused = Vec::new();
    for p in &packages {
        let name = p["name"].as_str().expect("a name");
        let version = p["version"].as_str().unwrap_or("?");
        match p["license"].as_str() {
            None => refused.push(format!(
                "{name} {version}: no SPDX licence expression (license_file {})",
                p["license_file"]
            )),
            Some(expr) => match satisfiable(expr, &|id| allowed_for(name, id)) {
                Some(true) => {}
                Some(false) => refused.push(format!(
                    "{name} {version}: `{expr}` is outside the allowed licences"
                )),
                None => refused.push(format!(
                    "{name} {version}: `{expr}` is not an SPDX expression"
                )),
            },
        }
    }
    assert!(
        refused.is_empty(),
        "dependencies under licences docs/licences.md does not allow:\n{}",
        refused.join("\n")
    );
    // faultline's own.
    let own = packages.iter().find(|p| p["name"] == "faultline").unwrap();
    assert_eq!(own["license"], "MIT OR Apache-2.0");
    // The one crate-specific exception is in use (else it should go).
    for (name, licence) in ALLOWED_FOR {
        let p = packages.iter().find(|p| p["name"] == *name);
        assert!(
            p.is_some_and(|p| p["license"] == *licence),
            "{name} is no longer {licence}: remove it from ALLOWED_FOR and docs/licences.md"
        );
    }
}

#[test]
fn the_allowed_list_matches_docs_licences_md() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/licences.md"))
            .expect("docs/licences.md");
    // The table's first column: | `ID` | ...
    let listed: Vec<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let mut expected: Vec<String> = ALLOWED
        .iter()
        .chain(ALLOWED_EXCEPTIONS)
        .chain(ALLOWED_FOR.iter().map(|(_, l)| l))
        .map(|s| s.to_string())
        .collect();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    expected.sort();
    assert_eq!(
        listed_sorted, expected,
        "docs/licences.md's table and ALLOWED differ"
    );
    for (name, licence) in ALLOWED_FOR {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{licence}`")))
            .unwrap();
        assert!(row.contains(&format!("`{name}` only")), "{row}");
    }
}

#[test]
fn expressions_are_read_as_spdx() {
    let ok = |id: &str| ["MIT", "Apache-2.0"].contains(&id);
    assert_eq!(satisfiable("MIT", &ok), Some(true));
    assert_eq!(satisfiable("GPL-3.0", &ok), Some(false));
    assert_eq!(satisfiable("GPL-3.0 OR MIT", &ok), Some(true));
    assert_eq!(satisfiable("MIT/Apache-2.0", &ok), Some(true));
    assert_eq!(satisfiable("MIT AND GPL-3.0", &ok), Some(false));
    assert_eq!(
        satisfiable("(MIT OR GPL-3.0) AND Apache-2.0", &ok),
        Some(true)
    );
    assert_eq!(
        satisfiable("(MIT OR Apache-2.0) AND Unicode-3.0", &ok),
        Some(false)
    );
    assert_eq!(
        satisfiable("Apache-2.0 WITH LLVM-exception", &ok),
        Some(true)
    );
    assert_eq!(
        satisfiable("Apache-2.0 WITH Classpath-exception-2.0", &ok),
        Some(false)
    );
    assert_eq!(satisfiable("MIT OR", &ok), None);
    assert_eq!(satisfiable("(MIT", &ok), None);
    assert_eq!(satisfiable("MIT MIT", &ok), None);
    // The crate-specific exception is for its crate alone.
    assert!(allowed_for("inferno", "CDDL-1.0"));
    assert!(!allowed_for("other", "CDDL-1.0"));
}
