//! Reading a run back from the JSON that `toll export --format json` and
//! `--json` write (`toll import`, a push to `toll board`), each point's
//! samples read straight into samples (lean.rs): checked against the committed schema
//! (schema.json: required fields and their types, recursively), its
//! `schema_version` no newer than this toll's, its family one this toll
//! knows, then read into a [`Run`]. Fields the schema does not name are
//! ignored, as the schema says readers must.

mod lean;

use crate::export::SCHEMA_VERSION;
use lean::type_name;
use serde_json::Value;
use toll_store::Run;

/// The families a run can be of (what `NewRun::family` is set to).
pub const FAMILIES: &[&str] = &[
    "transfer",
    "spawn",
    "ring",
    "http",
    "http-compare",
    "http-sweep",
    "exec",
    "file",
    "rpc",
    "ffi",
    "replicate",
    "atlas",
];

/// How to make the file toll can import, for the end of messages.
const FIX: &str = "give a file written by `toll export RUN --format json` or a command's --json";

/// Why a file cannot be imported; each message names the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImportError {
    #[error("not JSON ({0}): {FIX}")]
    NotJson(String),
    #[error("not a toll run (no schema_version, family and series at the top): {FIX}")]
    NotTollRun,
    #[error("written by a newer toll (export schema {found}; this toll reads up to {known}): upgrade toll to import it")]
    TooNew { found: i64, known: u32 },
    #[error("a run of family `{0}`, which this toll does not know (it knows {list}): upgrade toll to import it", list = FAMILIES.join(", "))]
    UnknownFamily(String),
    #[error("not a valid toll run: {0}; export it again with `toll export RUN --format json`")]
    Invalid(String),
}

/// Read and check one exported run.
pub fn read_run(text: &str) -> Result<Run, ImportError> {
    read(serde_json::Deserializer::from_str(text))
}

/// [`read_run`] from a reader, a piece at a time: neither the text nor a
/// whole [`Value`] of the run is held, only the run itself (`toll board`
/// reads a push as it arrives). A read that fails is NotJson.
pub fn read_run_from(reader: impl std::io::Read) -> Result<Run, ImportError> {
    read(serde_json::Deserializer::from_reader(reader))
}

fn read<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<Run, ImportError> {
    let json = |e: serde_json::Error| match e.classify() {
        serde_json::error::Category::Data => ImportError::Invalid(e.to_string()),
        _ => ImportError::NotJson(e.to_string()),
    };
    let lean::Lean {
        doc: mut v,
        samples,
        bad,
    } = lean::read(&mut de).map_err(json)?;
    de.end().map_err(json)?;
    let obj = v.as_object().ok_or(ImportError::NotTollRun)?;
    if !["schema_version", "family", "series"]
        .iter()
        .all(|k| obj.contains_key(*k))
    {
        return Err(ImportError::NotTollRun);
    }
    let version = obj["schema_version"]
        .as_i64()
        .ok_or_else(|| ImportError::Invalid("$.schema_version: not an integer".into()))?;
    if version > i64::from(SCHEMA_VERSION) {
        return Err(ImportError::TooNew {
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    if version < i64::from(SCHEMA_VERSION) {
        // An older toll's export: its config in today's shape (durations as
        // `_ns`), as the store reads its own older runs.
        if let Some(config) = v.get_mut("config") {
            toll_store::upgrade::config(config);
        }
        if let Some(series) = v.get_mut("series").and_then(Value::as_array_mut) {
            for point in series
                .iter_mut()
                .filter_map(|s| s.get_mut("points").and_then(Value::as_array_mut))
                .flatten()
            {
                if let Some(extra) = point.get_mut("extra") {
                    toll_store::upgrade::point_extra(extra);
                }
            }
        }
        v["schema_version"] = SCHEMA_VERSION.into();
    }
    let schema: Value =
        serde_json::from_str(include_str!("../schema.json")).expect("schema.json is JSON");
    check(&schema, &schema["$defs"], &v, "$").map_err(ImportError::Invalid)?;
    if let Some(why) = bad {
        return Err(ImportError::Invalid(why));
    }
    let family = v["family"].as_str().unwrap_or_default();
    if !FAMILIES.contains(&family) {
        return Err(ImportError::UnknownFamily(family.to_string()));
    }
    let mut run: Run =
        serde_json::from_value(v).map_err(|e| ImportError::Invalid(e.to_string()))?;
    for (s, p, kept) in samples {
        if let Some(point) = run.series.get_mut(s).and_then(|s| s.points.get_mut(p)) {
            point.samples = kept;
        }
    }
    Ok(run)
}

/// Check `value` against `schema`: `type`, `required`, `enum`, `properties`
/// and `items`, recursively (what the export schema uses to say a run's
/// shape); the first mismatch, with where it is.
fn check(schema: &Value, defs: &Value, value: &Value, at: &str) -> Result<(), String> {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => &defs[r.trim_start_matches("#/$defs/")],
        None => schema,
    };
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = type_name(value);
        if !(types.contains(&actual) || (actual == "integer" && types.contains(&"number"))) {
            return Err(format!("{at}: {actual}, not {}", types.join(" or ")));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            return Err(format!(
                "{at}: {value} is not one of {}",
                Value::from(allowed.clone())
            ));
        }
    }
    if let (Some(req), Some(obj)) = (
        schema.get("required").and_then(Value::as_array),
        value.as_object(),
    ) {
        if let Some(k) = req
            .iter()
            .filter_map(Value::as_str)
            .find(|k| !obj.contains_key(*k))
        {
            return Err(format!("{at}: `{k}` is missing"));
        }
    }
    if let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        let required = |k: &str| {
            schema
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|x| x == k))
        };
        for (k, sub) in props {
            if k == "schema_version" {
                // Checked above: an older version is read as it is.
                continue;
            }
            // An optional field may be null: serde writes an absent Option so.
            if let Some(v) = obj.get(k).filter(|v| !v.is_null() || required(k)) {
                check(sub, defs, v, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(items, defs, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}
