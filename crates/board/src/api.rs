//! The API: `GET /api/runs` (the runs page's filter as a query), and
//! `POST /api/runs` (a run in toll's JSON export, with a bearer token):
//! read as it arrives and checked against the schema as `toll import`
//! checks it, every point's summary made again from its samples (a summary
//! is what its samples say, not what was sent), stored with who pushed it
//! and its content's hash — a run the board holds already (the same
//! machine, start time and hash) is answered with its id, not stored
//! again. `GET /api/runs/{id}` is export.rs.

use crate::cache::Board;
use crate::pages::runs::Filter;
use crate::pages::Problem;
use crate::token::sha256_hex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::time::Instant;
use toll_measure::Summary;
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

/// Why a write is refused: a status and a one-line reason.
pub struct Refusal(pub u16, pub String, pub Option<u64>);

/// Who may write: the name of the bearer token's owner.
pub fn who(board: &Board, authorization: Option<&str>) -> Result<String, Refusal> {
    let token = authorization
        .and_then(bearer)
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

/// The token of an `Authorization` header in the Bearer scheme, whose name
/// is case-insensitive (RFC 7235: `Bearer`, `bearer`, `BEARER`).
fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim_start().split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// `POST /api/runs`: read the run from `body` as it arrives and store it,
/// pushed by `name`; the answer, and whether the board held the run
/// already.
pub fn submit(board: &Board, name: &str, body: impl Read) -> Result<(Value, bool), Refusal> {
    let mut run =
        toll_report::import::read_run_from(body).map_err(|e| Refusal(400, format!("{e}"), None))?;
    // The hash of the run as it was sent: pushed again, it is the same run.
    let hash = content_hash(&mut run);
    let remade = remake_summaries(&mut run).map_err(|why| Refusal(400, why, None))?;
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
    drop(run);
    board.written();
    Ok((
        json!({"id": id, "url": format!("/runs/{id}"), "summaries_remade": remade}),
        false,
    ))
}

/// Make every point's summary again from its samples, as the families
/// make it ([`Summary::of_samples`]); how many said something else (their
/// count, median, mean, least or greatest value more than half a
/// nanosecond off: `toll exec` summarises its times before rounding them
/// to whole nanoseconds). A summary with no samples to make it from is
/// refused.
fn remake_summaries(run: &mut Run) -> Result<usize, String> {
    let mut remade = 0;
    for s in &mut run.series {
        for p in &mut s.points {
            let Some(sent) = &p.summary else { continue };
            let Some(made) = Summary::of_samples(&p.samples) else {
                return Err(format!(
                    "series {}, n = {}: a summary of {} values but no samples it could be made from: \
                     push the run `toll export RUN --format json` writes",
                    s.label, p.n, sent.count
                ));
            };
            let off = |a: f64, b: f64| (a - b).abs() > 0.5 + 1e-9 * b.abs();
            if sent.count != made.count
                || off(sent.median, made.median)
                || off(sent.mean, made.mean)
                || off(sent.min, made.min)
                || off(sent.max, made.max)
            {
                remade += 1;
            }
            p.summary = Some(made);
        }
    }
    Ok(remade)
}

/// Where a pushed run's content hash is kept, in its origin.
const HASH_KEY: &str = "content_sha256";

/// The SHA-256 of a run's JSON without its and its series' ids (numbers
/// of the store it came from, not part of what was measured: they are set
/// to 0), hashed as it is written, not held.
fn content_hash(run: &mut Run) -> String {
    run.id = 0;
    for s in &mut run.series {
        s.id = 0;
    }
    let mut hasher = Hashing(Sha256::new());
    serde_json::to_writer(&mut hasher, &*run).expect("a run serialises");
    hasher
        .0
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What is written, hashed.
struct Hashing(Sha256);

impl std::io::Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
            None => content_hash(&mut store.load_run(row.id)?),
        };
        if theirs == hash {
            return Ok(Some(row.id));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toll_measure::{Fingerprint, Sample};
    use toll_store::{Point, PointStatus, RunStatus, Series};

    #[test]
    fn the_bearer_scheme_is_named_in_any_case() {
        for h in [
            "Bearer t1",
            "bearer t1",
            "BEARER t1",
            "bEaReR   t1 ",
            " Bearer\tt1",
        ] {
            assert_eq!(bearer(h), Some("t1"), "{h:?}");
        }
        for h in ["Basic dTpw", "Bearert1", "t1", "Token t1", ""] {
            assert_eq!(bearer(h), None, "{h:?}");
        }
    }

    fn run(samples: Vec<Sample>, mean: f64) -> Run {
        let mut summary = Summary::of(&[mean]);
        summary.count = samples.len();
        Run {
            id: 7,
            family: "exec".into(),
            started_at: "2026-01-02T03:04:05Z".into(),
            finished_at: None,
            status: RunStatus::Complete,
            summary: String::new(),
            error: None,
            config: json!({}),
            env: Fingerprint::default(),
            tool_version: "0".into(),
            series: vec![Series {
                id: 3,
                label: "true".into(),
                attrs: json!({}),
                fit: None,
                points: vec![Point {
                    n: 0,
                    status: PointStatus::Ok,
                    error: None,
                    summary: Some(summary),
                    samples,
                    extra: None,
                }],
            }],
        }
    }

    #[test]
    fn the_hash_is_of_the_run_as_written_without_its_ids() {
        let one = |t| Sample {
            iters: 1,
            total_ns: t,
        };
        let mut r = run(vec![one(5), one(6)], 5.5);
        let mut bare = r.clone();
        bare.id = 0;
        bare.series[0].id = 0;
        let expected = sha256_hex(&serde_json::to_string(&bare).unwrap());
        assert_eq!(content_hash(&mut r), expected);
        r.id = 99;
        assert_eq!(content_hash(&mut r), expected, "ids are not content");
    }

    #[test]
    fn summaries_are_what_their_samples_say() {
        let ones: Vec<Sample> = (0..1000)
            .map(|_| Sample {
                iters: 1,
                total_ns: 1,
            })
            .collect();
        // Every sample 1 ns, the summary sent says 259 µs.
        let mut r = run(ones.clone(), 259_000.0);
        assert_eq!(remake_summaries(&mut r), Ok(1));
        let s = r.series[0].points[0].summary.clone().unwrap();
        assert_eq!((s.count, s.mean, s.median, s.max), (1000, 1.0, 1.0, 1.0));
        // Sent as made: nothing said to be remade.
        assert_eq!(remake_summaries(&mut r), Ok(0));
        // A summary with no samples behind it is refused.
        let mut r = run(vec![], 5.0);
        let e = remake_summaries(&mut r).unwrap_err();
        assert!(
            e.contains("series true, n = 0") && e.contains("no samples"),
            "{e}"
        );
    }
}
