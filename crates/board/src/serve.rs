//! The server: axum on a tokio runtime, one route per page and API call,
//! each connection bounded by [`conn`]. Store work runs on tokio's blocking
//! pool; what it makes is kept in [`Board`] so a page under load is mostly
//! a lookup.

use crate::api::{self, Refusal};
use crate::body::{self, Cut};
use crate::cache::Board;
use crate::conn::{self, Limits};
use crate::export::{self, Answer};
use crate::layout;
use crate::pages::{self, compare::Pair, machines::View, runs::Filter, trend::Pick, Problem};
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use toll_store::Store;

/// How long a push's body may take to arrive: the connection's idle clock
/// stops while a request is answered, so a body sent a byte at a time is
/// bounded here.
const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// How the board is served.
#[derive(Debug, Clone)]
pub struct Options {
    /// `HOST:PORT` to listen on (port 0: any free port).
    pub listen: String,
    /// The largest body a write may have, bytes.
    pub max_body: usize,
    /// Writes a token may make a minute (after a burst of up to 10).
    pub writes_per_minute: u32,
    /// The store's name, for the first line it prints.
    pub db_name: String,
}

/// Why the board cannot start.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("--listen {0}: not an address to listen on: give HOST:PORT, e.g. 127.0.0.1:8080")]
    BadListen(String),
    #[error(
        "{0} is in use: stop what listens there, or pick another port with --listen HOST:PORT"
    )]
    InUse(SocketAddr),
    #[error("cannot listen on {0}: {1}: pick another address with --listen HOST:PORT")]
    Bind(SocketAddr, std::io::Error),
    #[error("the board's runtime: {0}")]
    Io(#[from] std::io::Error),
}

/// Serve `store` until Ctrl-C. Prints the board's URL on stdout (one line,
/// so a script can wait for it) once it accepts connections.
pub fn serve(store: Store, opts: Options) -> Result<(), BoardError> {
    let addr: SocketAddr = opts
        .listen
        .parse()
        .map_err(|_| BoardError::BadListen(opts.listen.clone()))?;
    let board = Arc::new(Board::new(store, opts.max_body, opts.writes_per_minute));
    // A page is CPU work: more blocking threads than a few per CPU only
    // add malloc arenas (memory that grows with the load), not speed.
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(2 * cpus)
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                BoardError::InUse(addr)
            } else {
                BoardError::Bind(addr, e)
            }
        })?;
        let local = listener.local_addr()?;
        eprintln!(
            "toll board: serving {} on http://{local}/ (reads open, writes need a token; Ctrl-C stops it)",
            opts.db_name
        );
        println!("http://{local}/");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        conn::serve(listener, router(board), Limits::default(), async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await;
        Ok(())
    })
}

fn router(board: Arc<Board>) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to("/machines") }))
        .route("/machines", get(machines))
        .route("/runs", get(runs))
        .route("/runs/{id}", get(run))
        .route("/trend", get(trend))
        .route("/compare", get(compare))
        .route("/seeds", get(seeds))
        .route("/atlas", get(atlas))
        .route("/api/runs", get(api_list).post(api_submit))
        .route("/api/runs/{id}", get(api_get))
        .fallback(|| async { page_error(404, "no such page: start at /machines or /runs") })
        .layer(axum::middleware::map_response(secure))
        .with_state(board)
}

/// Pages fetch nothing and run no script: say so to the browser.
async fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

type Shared = State<Arc<Board>>;

fn page_error(status: u16, text: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        Html(layout::page("Not shown", "", &layout::message(text))),
    )
        .into_response()
}

fn json_error(status: u16, text: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::json!({ "error": text }).to_string(),
    )
        .into_response()
}

/// A page made on the blocking pool.
async fn html<F, B>(make: F) -> Response
where
    F: FnOnce() -> Result<B, Problem> + Send + 'static,
    B: Into<bytes::Bytes> + Send + 'static,
{
    match tokio::task::spawn_blocking(make).await {
        Ok(Ok(page)) => Html(page.into()).into_response(),
        Ok(Err(p)) => page_error(p.status(), &p.to_string()),
        Err(_) => page_error(500, "the page failed to render"),
    }
}

async fn machines(State(b): Shared, q: Result<Query<View>, QueryRejection>) -> Response {
    let Query(v) = match q {
        Ok(q) => q,
        Err(r) => return page_error(400, &bad_query(&r)),
    };
    html(move || pages::machines::render(&b, &v)).await
}

async fn runs(State(b): Shared, q: Result<Query<Filter>, QueryRejection>) -> Response {
    let Query(f) = match q {
        Ok(q) => q,
        Err(r) => return page_error(400, &bad_query(&r)),
    };
    html(move || pages::runs::render(&b, &f)).await
}

async fn run(State(b): Shared, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return page_error(404, "no such run: run numbers are on /runs");
    };
    html(move || pages::run::render(&b, id)).await
}

async fn trend(State(b): Shared, q: Result<Query<Pick>, QueryRejection>) -> Response {
    let Query(q) = match q {
        Ok(q) => q,
        Err(r) => return page_error(400, &bad_query(&r)),
    };
    html(move || pages::trend::render(&b, &q)).await
}

async fn compare(State(b): Shared, q: Result<Query<Pair>, QueryRejection>) -> Response {
    let Query(q) = match q {
        Ok(q) => q,
        Err(r) => return page_error(400, &bad_query(&r)),
    };
    html(move || pages::compare::render(&b, &q)).await
}

async fn atlas(State(b): Shared) -> Response {
    html(move || pages::atlas::render(&b)).await
}

async fn seeds(State(b): Shared) -> Response {
    html(move || pages::seeds::render(&b)).await
}

async fn api_list(State(b): Shared, q: Result<Query<Filter>, QueryRejection>) -> Response {
    let Query(f) = match q {
        Ok(q) => q,
        Err(r) => return json_error(400, &bad_query(&r)),
    };
    match tokio::task::spawn_blocking(move || api::list(&b, &f)).await {
        Ok(Ok(v)) => ([(header::CONTENT_TYPE, "application/json")], v.to_string()).into_response(),
        Ok(Err(p)) => json_error(p.status(), &p.to_string()),
        Err(_) => json_error(500, "listing runs failed"),
    }
}

async fn api_get(State(b): Shared, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return json_error(404, "no such run: GET /api/runs lists them");
    };
    match export::answer(b, id).await {
        Ok(Answer::Kept(bytes)) => {
            ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
        }
        Ok(Answer::Sent(body)) => {
            ([(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Ok(Answer::Busy) => busy(&format!(
            "the board is sending {} runs already: try again in {BUSY_RETRY} s",
            crate::cache::SENDING
        )),
        Err(p) => json_error(p.status(), &p.to_string()),
    }
}

/// How long a client told the board is busy is asked to wait, seconds.
const BUSY_RETRY: u64 = 1;

/// 503: the board does as much of this at once as it will.
fn busy(text: &str) -> Response {
    refusal(Refusal(503, text.into(), Some(BUSY_RETRY)))
}

/// A query that does not read, in one line: the parameter, what it takes.
fn bad_query(r: &QueryRejection) -> String {
    let text = r.body_text();
    let detail = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(&text);
    let takes = match detail.split_once(':').map(|(name, _)| name.trim()) {
        Some("page") => "page takes a whole number from 1, e.g. page=2",
        Some("desc") => "desc takes 0 or 1",
        _ => "each parameter takes what the page's form sends",
    };
    format!("the query does not read ({detail}): {takes}")
}

async fn api_submit(State(b): Shared, headers: HeaderMap, body: Body) -> Response {
    // Refused on what it says it is, before a byte of it is read (and
    // before `100 Continue` asks for it).
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > b.max_body as u64) {
        return too_large(b.max_body);
    }
    let Ok(_permit) = b.reading.clone().try_acquire_owned() else {
        return busy(&format!(
            "the board is reading {} pushes already: push again in {BUSY_RETRY} s",
            crate::cache::READING
        ));
    };
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let board = b.clone();
    let who = match tokio::task::spawn_blocking(move || api::who(&board, auth.as_deref())).await {
        Ok(r) => r,
        Err(_) => return json_error(500, "checking the token failed"),
    };
    let name = match who {
        Ok(n) => n,
        Err(r) => return refusal(r),
    };
    let (tx, rx) = body::channel();
    let board = b.clone();
    let stored = tokio::task::spawn_blocking(move || api::submit(&board, &name, rx));
    let cut = match tokio::time::timeout(BODY_TIMEOUT, tx.forward(body, b.max_body)).await {
        Ok(r) => r.err(),
        Err(_) => tx.cut(Cut::TooSlow).await.err(),
    };
    // The parser's end of file, when the body came whole.
    drop(tx);
    let stored = stored.await;
    match cut {
        Some(Cut::TooLarge) => return too_large(b.max_body),
        Some(Cut::TooSlow) => {
            return json_error(
                408,
                &format!(
                    "the run did not arrive within {} s: push it again over a steadier link",
                    BODY_TIMEOUT.as_secs()
                ),
            )
        }
        Some(Cut::Broken) => return json_error(400, "the run's body broke off: push it again"),
        None => {}
    }
    match stored {
        Ok(Ok((v, existing))) => (
            // A run the board holds already is answered, not stored again.
            if existing {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            },
            [(header::CONTENT_TYPE, "application/json")],
            v.to_string(),
        )
            .into_response(),
        Ok(Err(r)) => refusal(r),
        Err(_) => json_error(500, "storing the run failed"),
    }
}

fn too_large(max: usize) -> Response {
    json_error(
        413,
        &format!(
            "the run is larger than this board takes ({max} bytes): its keeper can raise --max-body"
        ),
    )
}

fn refusal(Refusal(status, text, retry): Refusal) -> Response {
    let mut r = json_error(status, &text);
    if status == 401 {
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if let Some(s) = retry.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
        r.headers_mut().insert(header::RETRY_AFTER, s);
    }
    r
}
