//! The server: axum on a tokio runtime, one route per page and API call,
//! each connection bounded by [`conn`]. Store work runs on tokio's blocking
//! pool; what it makes is kept in [`Board`] so a page under load is mostly
//! a lookup.

use crate::api::{self, Refusal};
use crate::cache::Board;
use crate::conn::{self, Limits};
use crate::layout;
use crate::pages::{self, compare::Pair, machines::View, runs::Filter, trend::Pick, Problem};
use axum::body::Body;
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

async fn machines(State(b): Shared, Query(v): Query<View>) -> Response {
    html(move || pages::machines::render(&b, &v)).await
}

async fn runs(State(b): Shared, Query(f): Query<Filter>) -> Response {
    html(move || pages::runs::render(&b, &f)).await
}

async fn run(State(b): Shared, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return page_error(404, "no such run: run numbers are on /runs");
    };
    html(move || pages::run::render(&b, id)).await
}

async fn trend(State(b): Shared, Query(q): Query<Pick>) -> Response {
    html(move || pages::trend::render(&b, &q)).await
}

async fn compare(State(b): Shared, Query(q): Query<Pair>) -> Response {
    html(move || pages::compare::render(&b, &q)).await
}

async fn seeds(State(b): Shared) -> Response {
    html(move || pages::seeds::render(&b)).await
}

async fn api_list(State(b): Shared, Query(f): Query<Filter>) -> Response {
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
    match tokio::task::spawn_blocking(move || api::get(&b, id)).await {
        Ok(Ok(v)) => ([(header::CONTENT_TYPE, "application/json")], v).into_response(),
        Ok(Err(p)) => json_error(p.status(), &p.to_string()),
        Err(_) => json_error(500, "reading the run failed"),
    }
}

async fn api_submit(State(b): Shared, headers: HeaderMap, body: Body) -> Response {
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
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, b.max_body)).await
    {
        Ok(Ok(bytes)) => bytes,
        Err(_) => {
            return json_error(
                408,
                &format!(
                    "the run did not arrive within {} s: push it again over a steadier link",
                    BODY_TIMEOUT.as_secs()
                ),
            )
        }
        Ok(Err(_)) => {
            return json_error(
                413,
                &format!(
                    "the run is larger than this board takes ({} bytes): its keeper can raise --max-body",
                    b.max_body
                ),
            )
        }
    };
    match tokio::task::spawn_blocking(move || api::submit(&b, &name, &bytes)).await {
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
