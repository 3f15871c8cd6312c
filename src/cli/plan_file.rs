//! Plan files: `run --plan FILE.toml` reads a run's flags from TOML, and
//! `run --print-plan` writes the TOML of the flags given, so a plan can be
//! saved, edited, shared and run again elsewhere.
//!
//! Every key is a `run` flag's long name (`warm-by`, or `warm_by`), and its
//! value what the flag takes: a string or number, a list of them for a list
//! flag, `true`/`false` for a switch. The keys come from clap's definition
//! of `run`, so a flag added to `run` is a key at once, and the values are
//! checked by the same parsers as on the command line: the plan is turned
//! into the flags it stands for and parsed again. A flag given on the
//! command line overrides the plan's key.
use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches};

use faultline::error::Error;

/// `run` flags that are not plan keys: they say what to do with the plan.
const NOT_KEYS: &[&str] = &["help", "plan", "print-plan", "dry-run", "resume", "run"];

/// The key of a plan's named runs: `[run.NAME]` tables.
pub const RUNS_KEY: &str = "run";

/// The flags whose files a run writes: when one command runs several named
/// runs, each run's file is named after it ([`per_run`]) unless the run's own
/// table names it.
pub const OUTPUT_KEYS: &[&str] = &[
    "export-json",
    "export-csv",
    "export-markdown",
    "journal",
    "keep-output",
];

/// One run a command line stands for: the flags it runs with, and, for a
/// `[run.NAME]` table of a plan, its name and the keys its own table set.
#[derive(Debug)]
pub struct PlannedRun {
    /// The `[run.NAME]` it comes from; `None` for a plan without named
    /// runs, or no plan.
    pub name: Option<String>,
    /// The command line with the plan's keys read in.
    pub matches: ArgMatches,
    /// The keys the run's own table set (long flag names).
    pub own_keys: Vec<String>,
}

/// What a plan file holds: its flags shared by every run, and its named runs
/// in the order they come (none for a plan of one run).
struct PlanText {
    shared: toml::Table,
    runs: Vec<(String, toml::Table)>,
}

/// `matches` with a `run --plan FILE` read in: the plan's keys become flags,
/// after which come the flags given on the command line (which override
/// the plan's). Without `--plan`, `matches` as they are. A plan with named
/// runs (`[run.NAME]` tables) gives one set of matches per run `--run`
/// picks (all of them, in the plan's order, without `--run`): the plan's
/// top-level keys, then the run's own keys, then the command line.
pub fn resolve(matches: ArgMatches) -> Result<Vec<PlannedRun>, Error> {
    let one = |matches| {
        Ok(vec![PlannedRun {
            name: None,
            matches,
            own_keys: Vec::new(),
        }])
    };
    let Some(run) = matches.subcommand_matches("run") else {
        return one(matches);
    };
    let Some(path) = run.get_one::<std::path::PathBuf>("plan").cloned() else {
        return one(matches);
    };
    let bad = |why: String| Error::Plan(format!("--plan {}: {why}", path.display()));
    let bytes = faultline::input::read_limited(&path, "plan", faultline::input::MAX_PLAN_BYTES)
        .map_err(|e| match e {
            Error::BadFile { why, .. } => bad(why),
            other => bad(other.to_string()),
        })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let plan = read_plan(&text).map_err(bad)?;
    let picked: Vec<String> = run
        .get_many::<String>("run")
        .map(|names| names.cloned().collect())
        .unwrap_or_default();
    if plan.runs.is_empty() {
        if let Some(name) = picked.first() {
            return Err(bad(format!(
                "--run {name}: this plan has no named runs (`[run.NAME]` tables); leave out --run"
            )));
        }
        let matches = with_keys(run, &[(&plan.shared, None)], &text).map_err(bad)?;
        return one(matches);
    }
    let names: Vec<&str> = plan.runs.iter().map(|(n, _)| n.as_str()).collect();
    for name in &picked {
        if !names.contains(&name.as_str()) {
            return Err(bad(format!(
                "--run {name}: no run of that name; the plan's runs are {}",
                names.join(", ")
            )));
        }
    }
    let mut planned = Vec::new();
    for (name, own) in &plan.runs {
        if !picked.is_empty() && !picked.contains(name) {
            continue;
        }
        let matches = with_keys(run, &[(&plan.shared, None), (own, Some(name))], &text)
            .map_err(|why| bad(format!("[run.{name}]: {why}")))?;
        planned.push(PlannedRun {
            name: Some(name.clone()),
            matches,
            own_keys: own.keys().map(|k| k.replace('_', "-")).collect(),
        });
    }
    Ok(planned)
}

/// The plan's text as its shared keys and its named runs, or why it is
/// refused (a TOML error with its line; a `run` key that is not a table of
/// tables; no runs in it; a name that cannot be part of a file name).
fn read_plan(text: &str) -> Result<PlanText, String> {
    let mut shared: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e
            .span()
            .map(|s| text[..s.start].matches('\n').count() + 1)
            .map_or(String::new(), |l| format!("line {l}: "));
        let message = e.message().trim();
        // A key given twice (a run named twice) is shown as written.
        let shown = match e.span() {
            Some(span) if message.starts_with("duplicate key") => {
                let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
                let end = text[span.start..]
                    .find('\n')
                    .map_or(text.len(), |i| span.start + i);
                let written: String = text[start..end].trim().chars().take(60).collect();
                format!(" (`{written}`)")
            }
            _ => String::new(),
        };
        format!("{line}{message}{shown}")
    })?;
    let Some(value) = shared.remove(RUNS_KEY) else {
        return Ok(PlanText {
            shared,
            runs: Vec::new(),
        });
    };
    let at = |path: &[&str]| line_of(text, path).map_or(String::new(), |l| format!("line {l}: "));
    let toml::Value::Table(table) = value else {
        return Err(format!(
            "{}`run` holds the plan's named runs, as `[run.NAME]` tables of flags; it is no flag",
            at(&[RUNS_KEY])
        ));
    };
    if table.is_empty() {
        return Err(format!(
            "{}`[run]` holds no runs; give each run a `[run.NAME]` table, or leave `[run]` out",
            at(&[RUNS_KEY])
        ));
    }
    let mut runs = Vec::new();
    for (name, value) in table {
        let where_ = at(&[RUNS_KEY, &name]);
        if !valid_name(&name) {
            return Err(format!(
                "{where_}run name `{name}`: a run's name is part of its exports' names: \
                 use letters, digits, `-` and `_` (at most 64)"
            ));
        }
        let toml::Value::Table(keys) = value else {
            return Err(format!(
                "{where_}`run.{name}` is not a table; a named run is a `[run.{name}]` table of flags"
            ));
        };
        runs.push((name, keys));
    }
    Ok(PlanText { shared, runs })
}

/// A run's name: what it may be, since it becomes part of file names.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The line (from 1) of the key at `path` in the plan's `text`.
fn line_of(text: &str, path: &[&str]) -> Option<usize> {
    let parsed = toml::de::DeTable::parse(text).ok()?;
    let mut table = parsed.get_ref();
    let mut span = None;
    for (i, part) in path.iter().enumerate() {
        let (key, value) = table.get_key_value(*part)?;
        span = Some(key.span());
        if i + 1 < path.len() {
            match value.get_ref() {
                toml::de::DeValue::Table(t) => table = t,
                _ => return None,
            }
        }
    }
    span.map(|s| text[..s.start].matches('\n').count() + 1)
}

/// `run`'s command line with the keys of `layers` read in, each layer's
/// keys over the ones before (a named run's over the plan's shared ones),
/// and the command line's flags over them all.
fn with_keys(
    run: &ArgMatches,
    layers: &[(&toml::Table, Option<&str>)],
    text: &str,
) -> Result<ArgMatches, String> {
    let command = super::command();
    let run_command = command.find_subcommand("run").expect("run exists");
    let keys: Vec<&Arg> = run_command.get_arguments().filter(|a| is_key(a)).collect();
    let mut merged: Vec<(String, &toml::Value, Vec<&str>)> = Vec::new();
    for (table, name) in layers {
        for (key, value) in table.iter() {
            let long = key.replace('_', "-");
            let mut path: Vec<&str> = name.map_or(vec![], |n| vec![RUNS_KEY, n]);
            path.push(key);
            merged.retain(|(k, _, _)| k.replace('_', "-") != long);
            merged.push((key.clone(), value, path));
        }
    }
    let mut argv: Vec<OsString> = vec!["faultline".into(), "run".into()];
    for (key, value, path) in &merged {
        let at = line_of(text, path).map_or(String::new(), |l| format!("line {l}: "));
        let name = key.replace('_', "-");
        let arg = keys
            .iter()
            .find(|a| a.get_long() == Some(name.as_str()))
            .ok_or_else(|| {
                format!(
                    "{at}unknown key `{key}`: the keys are `faultline run` flags without their dashes \
                     (`faultline run --print-plan` lists them){}",
                    if value.is_table() {
                        "; a plan's named runs are `[run.NAME]` tables"
                    } else {
                        ""
                    }
                )
            })?;
        if value.is_table() {
            return Err(format!(
                "{at}`{key}` is a table, and the --{name} flag takes a value; a plan's named runs \
                 are `[run.NAME]` tables"
            ));
        }
        if run.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine) {
            continue; // the command line's flag overrides the plan's key
        }
        let values = plain_values(value).map_err(|why| format!("{at}`{key}`: {why}"))?;
        argv.extend(flag_tokens(arg, &values).map_err(|why| format!("{at}`{key}`: {why}"))?);
    }
    for arg in run_command.get_arguments() {
        let id = arg.get_id().as_str();
        if run.value_source(id) == Some(ValueSource::CommandLine) {
            // --plan too: the plan is an input no output may be.
            argv.extend(given_tokens(arg, run));
        }
    }
    command.try_get_matches_from(argv).map_err(|e| {
        let rendered = e.render().to_string();
        let first = rendered.lines().next().unwrap_or_default();
        first.trim_start_matches("error: ").to_string()
    })
}

/// `dir/stem-NAME.ext` for `dir/stem.ext`: the file a named run writes for
/// an output the command names once for several runs (as `reproduce all`
/// names each preset's).
pub fn per_run(path: &std::path::Path, name: &str) -> std::path::PathBuf {
    // Built from the bytes given: a name that is not UTF-8 keeps them.
    let mut file = path
        .file_stem()
        .map_or_else(|| OsString::from("results"), |s| s.to_os_string());
    file.push("-");
    file.push(name);
    if let Some(ext) = path.extension() {
        file.push(".");
        file.push(ext);
    }
    path.with_file_name(file)
}

/// The `faultline run` flags a plan file holds, parsed as `run --plan
/// FILE` would parse them (for `advise --plan`, which takes its access
/// pattern from them).
pub fn run_args(path: &std::path::Path) -> Result<super::run::RunArgs, Error> {
    use clap::FromArgMatches;
    let argv: Vec<OsString> = vec![
        "faultline".into(),
        "run".into(),
        "--plan".into(),
        path.as_os_str().to_owned(),
    ];
    let bad = |why: String| Error::Plan(format!("--plan {}: {why}", path.display()));
    let matches = super::command()
        .try_get_matches_from(argv)
        .map_err(|e| bad(e.kind().to_string()))?;
    let mut runs = resolve(matches)?;
    if runs.len() > 1 {
        let names: Vec<&str> = runs.iter().filter_map(|r| r.name.as_deref()).collect();
        return Err(bad(format!(
            "it holds {} named runs ({}); advise takes a plan of one run",
            runs.len(),
            names.join(", ")
        )));
    }
    let planned = runs.pop().ok_or_else(|| bad("not a run plan".into()))?;
    let run = planned
        .matches
        .subcommand_matches("run")
        .ok_or_else(|| bad("not a run plan".into()))?;
    super::run::RunArgs::from_arg_matches(run).map_err(|e| {
        let rendered = e.render().to_string();
        bad(rendered
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_string())
    })
}

/// The TOML plan of `run`'s flags as given: one key per flag, the ones
/// given set, the others commented out (with their default, if any), each
/// after its help line.
///
/// A TOML plan holds text: a value that is not UTF-8 (a path, say) is
/// refused with a message, never written lossily as another file's name.
pub fn render(run: &ArgMatches) -> Result<String, Error> {
    let command = super::command();
    let run_command = command.find_subcommand("run").expect("run exists");
    let mut out = String::from(
        "# faultline run plan: `faultline run --plan THIS.toml` runs it.\n\
         # Each key is a `faultline run` flag; a commented-out key keeps its default.\n",
    );
    let args: Vec<&Arg> = run_command
        .get_arguments()
        .filter(|a| is_key(a) && !a.is_hide_set())
        .collect();
    // Grouped as `run --help` groups them: by heading, in the order each
    // heading first comes.
    let mut headings: Vec<Option<&str>> = Vec::new();
    for arg in &args {
        if !headings.contains(&arg.get_help_heading()) {
            headings.push(arg.get_help_heading());
        }
    }
    let grouped = headings
        .iter()
        .flat_map(|h| args.iter().filter(move |a| a.get_help_heading() == *h));
    let mut heading = None;
    for arg in grouped {
        let id = arg.get_id().as_str();
        let long = arg.get_long().unwrap_or(id);
        if Some(arg.get_help_heading()) != heading {
            heading = Some(arg.get_help_heading());
            out.push_str(&format!(
                "\n# {}\n",
                arg.get_help_heading().unwrap_or("Options")
            ));
        }
        if let Some(help) = arg.get_help() {
            let help = help.to_string();
            out.push_str(&format!("# {}\n", help.lines().next().unwrap_or_default()));
        }
        let given = run.value_source(id) == Some(ValueSource::CommandLine);
        let value = if is_switch(arg) {
            Some(toml::Value::Boolean(given && run.get_flag(id)))
        } else {
            match run.get_raw(id) {
                None => None,
                Some(raw) => {
                    let values: Vec<String> = raw
                        .map(|v| {
                            v.to_str().map(str::to_string).ok_or_else(|| {
                                Error::Plan(format!(
                                    "--print-plan: the value of --{long} ({}) is not UTF-8, and a TOML plan holds only text; \
                                     rename the file, or give the flag on the command line instead of in a plan",
                                    v.to_string_lossy()
                                ))
                            })
                        })
                        .collect::<Result<_, _>>()?;
                    Some(if is_list(arg) {
                        toml::Value::Array(values.iter().map(|v| scalar(v)).collect())
                    } else {
                        scalar(values.first().map_or("", String::as_str))
                    })
                }
            }
        };
        match value {
            Some(v) if given => out.push_str(&format!("{long} = {v}\n")),
            Some(v) => out.push_str(&format!("# {long} = {v}\n")),
            None => out.push_str(&format!("# {long} =\n")),
        }
    }
    Ok(out)
}

/// A flag that is a plan key: a visible or hidden `run` flag with a long
/// name, other than the ones that act on the plan.
fn is_key(arg: &Arg) -> bool {
    arg.get_long().is_some_and(|l| !NOT_KEYS.contains(&l))
}

/// A flag that takes no value (`--keep`).
fn is_switch(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::SetTrue)
}

/// A flag that takes a list (`--method read,mmap`).
fn is_list(arg: &Arg) -> bool {
    arg.get_value_delimiter().is_some() || matches!(arg.get_action(), ArgAction::Append)
}

/// A flag's value as TOML: a whole number as an integer, else a string.
fn scalar(value: &str) -> toml::Value {
    match value.parse::<i64>() {
        Ok(n) if n.to_string() == value => toml::Value::Integer(n),
        _ => toml::Value::String(value.to_string()),
    }
}

/// A plan value as the strings a flag takes: one for a scalar, one per
/// element of a list. `true`/`false` stay as booleans' text.
fn plain_values(value: &toml::Value) -> Result<Vec<String>, String> {
    let one = |v: &toml::Value| match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(n) => Ok(n.to_string()),
        toml::Value::Float(x) => Ok(x.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        _ => Err("must be a string, a number, true/false, or a list of those".to_string()),
    };
    match value {
        toml::Value::Array(items) if items.is_empty() => {
            Err("is an empty list (leave the key out for the default)".to_string())
        }
        toml::Value::Array(items) => items.iter().map(one).collect(),
        v => one(v).map(|s| vec![s]),
    }
}

/// The command-line tokens a plan key stands for.
fn flag_tokens(arg: &Arg, values: &[String]) -> Result<Vec<OsString>, String> {
    let long = arg.get_long().expect("keys have long names");
    if is_switch(arg) {
        return match values {
            [v] if v == "true" => Ok(vec![format!("--{long}").into()]),
            [v] if v == "false" => Ok(vec![]),
            _ => Err("must be true or false".to_string()),
        };
    }
    if !is_list(arg) && values.len() > 1 {
        return Err("takes one value, not a list".to_string());
    }
    Ok(tokens(long, arg, values))
}

/// The tokens that give `arg` the values the command line gave it.
fn given_tokens(arg: &Arg, run: &ArgMatches) -> Vec<OsString> {
    let id = arg.get_id().as_str();
    let long = arg.get_long().unwrap_or(id);
    match arg.get_action() {
        ArgAction::SetTrue if run.get_flag(id) => vec![format!("--{long}").into()],
        ArgAction::SetTrue | ArgAction::SetFalse => vec![],
        ArgAction::Count => (0..run.get_count(id))
            .map(|_| format!("--{long}").into())
            .collect(),
        _ => {
            // Kept as the bytes given: a path that is not UTF-8 stays the
            // file it names.
            let values: Vec<OsString> = run
                .get_raw(id)
                .into_iter()
                .flatten()
                .map(|v| v.to_os_string())
                .collect();
            os_tokens(long, arg, &values)
        }
    }
}

/// [`tokens`] for values as the command line gave them, any bytes.
fn os_tokens(long: &str, arg: &Arg, values: &[OsString]) -> Vec<OsString> {
    let flag = |value: &std::ffi::OsStr| {
        let mut token = OsString::from(format!("--{long}="));
        token.push(value);
        token
    };
    match arg.get_value_delimiter() {
        Some(d) => {
            let mut joined = OsString::new();
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    joined.push(d.to_string());
                }
                joined.push(v);
            }
            vec![flag(&joined)]
        }
        None => values.iter().map(|v| flag(v)).collect(),
    }
}

/// `--long=a,b` for a list flag, `--long=a` for each value otherwise (the
/// `=` keeps a value such as `-2` from reading as a flag).
fn tokens(long: &str, arg: &Arg, values: &[String]) -> Vec<OsString> {
    match arg.get_value_delimiter() {
        Some(d) => vec![format!("--{long}={}", values.join(&d.to_string())).into()],
        None => values
            .iter()
            .map(|v| format!("--{long}={v}").into())
            .collect(),
    }
}
