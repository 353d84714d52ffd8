//! HTTP/2 (h2c with prior knowledge, or h2 over TLS) and HTTP/1.1 over TLS
//! on one current-thread tokio runtime per thread: HTTP/2 on the `h2` crate
//! directly, HTTP/1.1 on hyper's client connection. Each of the loop's
//! clients is a task with one request in flight; on HTTP/2, `streams`
//! clients share a connection. As in event_loop, nothing per request leaves
//! the thread: counts go to this loop's Stats and progress is one relaxed
//! store.
//!
//! As in event_loop, an answer's end is the kernel's arrival stamp
//! (SO_TIMESTAMPNS): of the last read on its connection when the answer was
//! complete, so at or after its last byte came and never after toll saw it.
//! And as there, with requests in flight and no task ready the runtime
//! naps before it parks (`coalesce`, from tokio's park hook), so answers
//! that arrive meanwhile are taken together.
//!
//! Why `h2` and not hyper's HTTP/2 client: hyper hands each request to its
//! connection task over a channel and spawns one more task per request to
//! carry the answer back, so a request cost three task wake-ups; here a
//! client opens its stream itself and the connection task wakes it when
//! the answer is in.

use super::client_io::{Arrival, Counted, End, Naps, Since};
use super::coalesce::Coalesce;
use super::event_loop::{Counter, LoopPlan};
use super::request::Template;
use super::schedule::{Schedule, Send};
use super::sock::TokioStream;
use super::stamp;
use super::stats::{Answered, Stats};
use super::tls::{self, TlsSetup};
use super::urls::Picker;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::cell::{Cell, RefCell};
use std::io;
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex;

/// What one loop of hyper clients is to do.
#[derive(Debug, Clone)]
pub struct ClientPlan {
    /// `connections` counts clients (requests in flight), not connections.
    pub common: LoopPlan,
    /// The request (with a URL file, each line's, in its order).
    pub templates: Arc<[Template]>,
    pub tls: Option<TlsSetup>,
    pub http2: bool,
    /// Clients per HTTP/2 connection.
    pub streams: usize,
}

/// Run one loop to its end (the deadline, the request count, or a stop);
/// requests still in flight then are not counted.
pub fn run(plan: &ClientPlan, stop: &AtomicBool, progress: &Counter) -> io::Result<Stats> {
    let c = &plan.common;
    let most = Some(c.coalesce)
        .filter(|_| c.connections >= 2 && c.rate.is_none())
        .unwrap_or_default();
    let naps = Arc::new(Naps::new(Coalesce::new(most, c.connections)));
    if !most.is_zero() || c.rate.is_some() {
        let _ = nix::sys::prctl::set_timerslack(1);
    }
    let park = naps.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .on_thread_park(move || park.before_park())
        .build()?;
    let shared = Rc::new(Shared {
        naps,
        plan: plan.clone(),
        stats: RefCell::new(plan.common.stats()),
        issued: Cell::new(0),
        read_bytes: Rc::new(Cell::new(0)),
        picker: RefCell::new(plan.common.picker()),
    });
    let local = tokio::task::LocalSet::new();
    let clients = plan.common.connections;
    let per_conn = if plan.http2 { plan.streams.max(1) } else { 1 };
    let slots: Vec<Rc<Slot>> = (0..clients.div_ceil(per_conn))
        .map(|_| Rc::new(Mutex::new(None)))
        .collect();
    let deadline = plan.common.deadline;
    local.block_on(&rt, async {
        let handles: Vec<_> = (0..clients)
            .map(|k| {
                let (shared, slot) = (shared.clone(), slots[k / per_conn].clone());
                tokio::task::spawn_local(async move { shared.client(k, &slot).await })
            })
            .collect();
        let all = async {
            for h in handles {
                let _ = h.await;
            }
        };
        // Progress is sampled here, not pushed per request.
        let stopped = async {
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let done = shared.stats.borrow().complete;
                progress.0.store(done, Ordering::Relaxed);
            }
        };
        let until_deadline = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = all => {}
            _ = stopped => {}
            _ = until_deadline => {}
        }
    });
    drop(local);
    drop(slots);
    let mut stats = shared.stats.replace(Stats::new(false));
    stats.total_bytes = shared.read_bytes.get();
    progress.0.store(stats.complete, Ordering::Relaxed);
    Ok(stats)
}

/// A connection shared by the clients of one HTTP/2 connection (or owned by
/// one HTTP/1.1 client): whoever finds it closed opens the next.
type Slot = Mutex<Option<Sender>>;

enum Sender {
    H1(http1::SendRequest<Full<Bytes>>, Arrival),
    /// An HTTP/2 connection's handle, and whether its connection task has
    /// ended (h2's handle cannot tell until a request fails).
    H2(h2::client::SendRequest<Bytes>, Rc<Cell<bool>>, Arrival),
}

impl Sender {
    fn is_closed(&self) -> bool {
        match self {
            Sender::H1(s, _) => s.is_closed(),
            Sender::H2(_, closed, _) => closed.get(),
        }
    }
}

/// What came back for a request: its status, the headers the report needs,
/// the body's length.
struct Answer {
    status: u16,
    server: Option<String>,
    closes: bool,
    first_byte: Instant,
    body_len: u64,
}

/// Why no answer came: the request could not be sent, or the answer broke off.
enum Lost {
    Send,
    Receive,
}

impl Answer {
    /// The status and the headers read from a response's head.
    /// `since`: the connection's arrival stamps and when the request was
    /// written (a stamp from before it is of an earlier read).
    fn head(head: &http::response::Parts, want_server: bool, since: Since) -> Answer {
        Answer {
            status: head.status.as_u16(),
            server: want_server
                .then(|| head.headers.get(http::header::SERVER))
                .flatten()
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            closes: head
                .headers
                .get(http::header::CONNECTION)
                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close")),
            first_byte: since.end(Instant::now()).0,
            body_len: 0,
        }
    }
}

struct Shared {
    naps: Arc<Naps>,
    plan: ClientPlan,
    stats: RefCell<Stats>,
    issued: Cell<u64>,
    /// Bytes read from the sockets (TLS records as sent, for https).
    read_bytes: Rc<Cell<u64>>,
    /// With a URL file: which line each request sends.
    picker: RefCell<Option<Picker>>,
}

/// How one request ended.
enum Outcome {
    /// The answer, and whether its end is the kernel's stamp.
    Done((Answered, bool)),
    /// Could not connect (refused, TLS or HTTP/2 handshake failed).
    ConnectFailed,
    /// A reused connection was closed before the answer: open a new one and
    /// send again, once.
    Stale,
    ReceiveFailed,
}

impl Shared {
    async fn client(&self, k: usize, slot: &Slot) {
        let c = &self.plan.common;
        let mut schedule = c
            .rate
            .map(|r| Schedule::new(r.first_slot(c.start, k), r.interval));
        loop {
            let now = Instant::now();
            if c.requests.is_some_and(|n| self.issued.get() >= n)
                || c.deadline.is_some_and(|d| now >= d)
            {
                return;
            }
            self.issued.set(self.issued.get() + 1);
            let send = match &mut schedule {
                None => Send {
                    intended: now,
                    lag: Duration::ZERO,
                },
                Some(s) => match s.free(now) {
                    Some(send) => send,
                    None => {
                        let due = s.due().expect("a waiting request has a slot");
                        tokio::time::sleep_until(due.into()).await;
                        s.take_due(Instant::now().max(due))
                            .expect("due once its slot has come")
                    }
                },
            };
            self.request(slot, send).await;
        }
    }

    /// One request with its -s timeout, retried once on a stale connection.
    async fn request(&self, slot: &Slot, send: Send) {
        let connecting = Cell::new(false);
        let url = self.picker.borrow_mut().as_mut().map_or(0, |p| p.pick());
        let t = &self.plan.templates[url];
        let attempt = async {
            let mut outcome = self.attempt(slot, send, &connecting, t).await;
            if matches!(outcome, Outcome::Stale) {
                self.stats.borrow_mut().reconnects += 1;
                outcome = self.attempt(slot, send, &connecting, t).await;
            }
            outcome
        };
        let outcome = tokio::time::timeout(self.plan.common.timeout, attempt).await;
        let backoff = matches!(outcome, Ok(Outcome::ConnectFailed));
        {
            let mut st = self.stats.borrow_mut();
            match outcome {
                Ok(Outcome::Done((a, stamped))) => {
                    let latency = a.end.saturating_duration_since(a.intended);
                    self.naps.lock().answered(latency, stamped);
                    st.record_url(url, a, self.plan.common.variable_length);
                }
                Ok(Outcome::ConnectFailed) => {
                    st.fail_connect += 1;
                    st.url_failed(url);
                }
                Ok(Outcome::Stale | Outcome::ReceiveFailed) => {
                    st.fail_receive += 1;
                    st.url_failed(url);
                }
                Err(_) => {
                    st.timeouts += 1;
                    st.url_failed(url);
                    if connecting.get() {
                        st.fail_connect += 1;
                    } else {
                        st.fail_receive += 1;
                    }
                }
            }
        }
        if backoff {
            // Out of ports or refused: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    async fn attempt(
        &self,
        slot: &Slot,
        send: Send,
        connecting: &Cell<bool>,
        t: &Template,
    ) -> Outcome {
        let started = Instant::now();
        let mut connected = started;
        let (sender, fresh) = {
            let mut guard = slot.lock().await;
            // An HTTP/1.1 sender is out of its slot while in use, so a
            // stale one is never found here again.
            let fresh = guard.as_ref().is_none_or(Sender::is_closed);
            if fresh {
                connecting.set(true);
                match self.connect().await {
                    Ok(s) => *guard = Some(s),
                    Err(()) => {
                        *guard = None;
                        return Outcome::ConnectFailed;
                    }
                }
                connecting.set(false);
                connected = Instant::now();
            }
            let sender = match guard.as_mut() {
                Some(Sender::H2(s, closed, at)) => {
                    Sender::H2(s.clone(), closed.clone(), at.clone())
                }
                _ => guard.take().expect("a sender was just made"),
            };
            (sender, fresh)
        };
        let written = Instant::now();
        let want_server = self.stats.borrow().doc_len.is_none();
        // An HTTP/1.1 sender goes back to its slot after use; an HTTP/2
        // one is this request's own handle, used up by it.
        let (answer, back, arrival) = match sender {
            Sender::H1(mut s, at) => {
                let a = self
                    .exchange_h1(&mut s, t, want_server, (&at, written))
                    .await;
                (a, Some(s), at)
            }
            Sender::H2(s, _, at) => {
                let a = self.exchange_h2(s, t, want_server, (&at, written)).await;
                (a, None, at)
            }
        };
        let Answer {
            status,
            server,
            closes,
            first_byte,
            body_len,
        } = match answer {
            Ok(a) => a,
            Err(Lost::Send) if !fresh => return Outcome::Stale,
            Err(_) => return Outcome::ReceiveFailed,
        };
        let (end, stamped) = (&arrival, written).end(Instant::now());
        let keep = self.plan.common.keep_alive && !closes;
        if let (true, Some(s)) = (keep, back) {
            *slot.lock().await = Some(Sender::H1(s, arrival));
        } else if !keep {
            *slot.lock().await = None;
        }
        Outcome::Done((
            Answered {
                status,
                body_len,
                server,
                keep,
                reused: !fresh,
                intended: send.intended,
                lag: send.lag,
                started,
                connected,
                written,
                first_byte: first_byte.min(end),
                end,
                stamped,
            },
            stamped,
        ))
    }

    /// A new connection: TCP, then TLS if https, then the HTTP handshake.
    async fn connect(&self) -> Result<Sender, ()> {
        let tcp = TokioStream::connect(&self.plan.common.addr)
            .await
            .map_err(drop)?;
        let arrival = Arrival::default();
        let io = Counted {
            fd: tcp.as_raw_fd(),
            stamped: stamp::enable(tcp.as_raw_fd()),
            opened: Instant::now(),
            arrival: arrival.clone(),
            inner: tcp,
            read: self.read_bytes.clone(),
        };
        match &self.plan.tls {
            None => self.handshake(io, arrival).await,
            Some(t) => {
                let connector = tokio_rustls::TlsConnector::from(t.config.clone());
                let stream = connector
                    .connect(t.server_name.clone(), io)
                    .await
                    .map_err(drop)?;
                if self.plan.http2 && stream.get_ref().1.alpn_protocol() != Some(b"h2") {
                    return Err(());
                }
                {
                    let mut st = self.stats.borrow_mut();
                    if st.tls.is_none() {
                        st.tls = Some(tls::describe(stream.get_ref().1));
                    }
                }
                self.handshake(stream, arrival).await
            }
        }
    }

    async fn handshake<S>(&self, io: S, arrival: Arrival) -> Result<Sender, ()>
    where
        S: AsyncRead + AsyncWrite + Unpin + 'static,
    {
        if self.plan.http2 {
            // hyper's client defaults, so large answers flow as they did.
            let (s, conn) = h2::client::Builder::new()
                .initial_window_size(2 << 20)
                .initial_connection_window_size(5 << 20)
                .max_frame_size(16 << 10)
                .max_header_list_size(16 << 10)
                .max_send_buffer_size(1 << 20)
                .enable_push(false)
                .handshake::<_, Bytes>(io)
                .await
                .map_err(drop)?;
            let closed = Rc::new(Cell::new(false));
            let ended = closed.clone();
            tokio::task::spawn_local(async move {
                let _ = conn.await;
                ended.set(true);
            });
            Ok(Sender::H2(s, closed, arrival))
        } else {
            let io = TokioIo::new(io);
            let (s, conn) = http1::handshake(io).await.map_err(drop)?;
            tokio::task::spawn_local(conn);
            Ok(Sender::H1(s, arrival))
        }
    }

    /// One request and its whole answer over HTTP/1.1 (hyper).
    async fn exchange_h1(
        &self,
        s: &mut http1::SendRequest<Full<Bytes>>,
        t: &Template,
        want_server: bool,
        since: Since<'_>,
    ) -> Result<Answer, Lost> {
        s.ready().await.map_err(|_| Lost::Send)?;
        let response = s.send_request(t.request()).await.map_err(|_| Lost::Send)?;
        let (head, mut body) = response.into_parts();
        let mut answer = Answer::head(&head, want_server, since);
        while let Some(frame) = body.frame().await {
            let f = frame.map_err(|_| Lost::Receive)?;
            answer.body_len += f.data_ref().map_or(0, |d| d.len() as u64);
        }
        Ok(answer)
    }

    /// One request and its whole answer on a stream of an HTTP/2 connection,
    /// the body's bytes handed back to the flow-control window as they come.
    async fn exchange_h2(
        &self,
        s: h2::client::SendRequest<Bytes>,
        t: &Template,
        want_server: bool,
        since: Since<'_>,
    ) -> Result<Answer, Lost> {
        let mut ready = s.ready().await.map_err(|_| Lost::Send)?;
        let (head, body) = t.h2_request();
        let (response, mut out) = ready
            .send_request(head, body.is_empty())
            .map_err(|_| Lost::Send)?;
        if !body.is_empty() {
            out.send_data(body, true).map_err(|_| Lost::Send)?;
        }
        let response = response.await.map_err(|_| Lost::Send)?;
        let (head, mut body) = response.into_parts();
        let mut answer = Answer::head(&head, want_server, since);
        while let Some(data) = body.data().await {
            let data = data.map_err(|_| Lost::Receive)?;
            answer.body_len += data.len() as u64;
            let _ = body.flow_control().release_capacity(data.len());
        }
        Ok(answer)
    }
}
