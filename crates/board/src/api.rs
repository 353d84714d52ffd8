//! The API: `GET /api/runs` (the runs page's filter as a query),
//! `GET /api/runs/{id}` (the run as toll's JSON export, schema.json), and
//! `POST /api/runs` (a run in that JSON, with a bearer token): checked
//! against the schema as `toll import` checks it, stored with who pushed it
//! and its content's hash — a run the board holds already (the same
//! machine, start time and hash) is answered with its id, not stored again.

use crate::cache::Board;
use crate::pages::runs::Filter;
use crate::pages::Problem;
use crate::token::sha256_hex;
use bytes::Bytes;
use serde_json::{json, Value};
use std::time::Instant;
use toll_report::export::{exporter, Format};
use toll_store::{Run, Store, StoreError};

/// `GET /api/runs`: every run the filter keeps, newest first.
pub fn list(board: &Board, f: &Filter) -> Result<Value, Problem> {
    f.check()?;
    let rows = board.runs()?;
    Ok(Value::Array(
        rows.iter()
            .filter(|r| f.keeps(r))
            .map(|r| {
                json!({
                    "id": r.id, "family": r.family, "host": r.host,
                    "started_at": r.started_at, "status": r.status.as_str(),
                    "summary": r.summary, "url": format!("/api/runs/{}", r.id),
                })
            })
            .collect(),
    ))
}

/// `GET /api/runs/{id}`: the run as `toll export --format json` writes it.
pub fn get(board: &Board, id: i64) -> Result<Bytes, Problem> {
    board.export(id, |run| {
        let mut out = Vec::new();
        exporter(Format::Json)
            .export(run, &mut out)
            .map_err(|e| Problem::Request(500, format!("writing run {id}: {e}")))?;
        Ok(out)
    })
}

/// Why a write is refused: a status and a one-line reason.
pub struct Refusal(pub u16, pub String, pub Option<u64>);

/// Who may write: the name of the bearer token's owner.
pub fn who(board: &Board, authorization: Option<&str>) -> Result<String, Refusal> {
    let token = authorization
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            Refusal(
                401,
                "no token: a write needs `Authorization: Bearer TOKEN` (`toll board token add NAME` on the board's machine makes one)".into(),
                None,
            )
        })?;
    let name = board
        .store()
        .token_name(&sha256_hex(token))
        .map_err(|e| Refusal(500, e.to_string(), None))?;
    let name = name.ok_or_else(|| {
        Refusal(
            401,
            "this board does not know that token: ask its keeper for one (`toll board token add NAME`)".into(),
            None,
        )
    })?;
    board
        .limit
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take(&name, Instant::now())
        .map_err(|wait| {
            Refusal(
                429,
                format!("too many writes for token `{name}`: try again in {wait} s"),
                Some(wait),
            )
        })?;
    Ok(name)
}

/// `POST /api/runs`: store the run in `body`, pushed by `name`; the answer,
/// and whether the board held the run already.
pub fn submit(board: &Board, name: &str, body: &[u8]) -> Result<(Value, bool), Refusal> {
    let text = std::str::from_utf8(body).map_err(|_| {
        Refusal(
            400,
            "the body is not UTF-8 JSON: send the file `toll export RUN --format json` writes"
                .into(),
            None,
        )
    })?;
    let run = toll_report::import::read_run(text).map_err(|e| Refusal(400, e.to_string(), None))?;
    let hash = content_hash(&run);
    let failed = |e: StoreError| Refusal(500, e.to_string(), None);
    // One hold of the store from the look to the write: two pushes of one
    // run at once still store it once.
    let store = board.store();
    if let Some(id) = held(&store, &run, &hash).map_err(failed)? {
        return Ok((
            json!({"id": id, "url": format!("/runs/{id}"), "existing": true}),
            true,
        ));
    }
    let id = store
        .import_run(
            &run,
            &json!({"pushed_by": name, "via": "toll board", HASH_KEY: hash}),
        )
        .map_err(failed)?;
    drop(store);
    board.written();
    Ok((json!({"id": id, "url": format!("/runs/{id}")}), false))
}

/// Where a pushed run's content hash is kept, in its origin.
const HASH_KEY: &str = "content_sha256";

/// The SHA-256 of a run's JSON without its and its series' ids (numbers
/// of the store it came from, not part of what was measured).
fn content_hash(run: &Run) -> String {
    let mut run = run.clone();
    run.id = 0;
    for s in &mut run.series {
        s.id = 0;
    }
    sha256_hex(&serde_json::to_string(&run).expect("a run serialises"))
}

/// The board's run with `run`'s machine, start time and content hash, if
/// any. A run stored without a hash (measured here, or pushed before hashes
/// were kept) is hashed as it loads.
fn held(store: &Store, run: &Run, hash: &str) -> Result<Option<i64>, StoreError> {
    for row in store
        .list_runs()?
        .iter()
        .filter(|r| r.started_at == run.started_at && r.host == run.env.hostname)
    {
        let kept = store
            .run_origin(row.id)?
            .and_then(|o| o.get(HASH_KEY).and_then(Value::as_str).map(str::to_string));
        let theirs = match kept {
            Some(h) => h,
            None => content_hash(&store.load_run(row.id)?),
        };
        if theirs == hash {
            return Ok(Some(row.id));
        }
    }
    Ok(None)
}
