//! The accept loop. `axum::serve` has no header, body or idle timeout and no connection
//! ceiling: a few slow clients could hold SIGTERM forever and a thousand could use up the
//! open files. This loop serves HTTP/1.1 (what browsers speak without TLS and what reverse
//! proxies speak to their upstream) through hyper, and watches every connection:
//!
//! - idle (no request begun): closed after `idle_timeout`;
//! - head (a request's first bytes arrived, its headers not yet complete): closed
//!   `header_timeout` after the first byte;
//! - busy (a request is being answered): its body must arrive within `body_timeout` of the
//!   headers (else 408); the answer itself is not timed, a download may be slow.
//!
//! At the ceiling a new connection takes the place of the one that has waited longest
//! without a request under way (slow headers count as waiting): a slow or idle client loses
//! its socket rather than a person who is about to send a request. Only when every
//! connection is busy is the new one closed at once.
//!
//! With TLS (`tls_cert`, see tls.rs) each connection's handshake counts as its headers:
//! timed by `header_timeout`, and shed like a slow request.
//!
//! On shutdown: stop accepting, close every connection without a request under way, let
//! the requests under way finish for up to `DRAIN`, then drop what is left.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::ConnectInfo;
use axum::http::Request;
use http_body::Frame;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tower_service::Service;

/// How long requests under way may take to finish once shutdown begins.
const DRAIN: Duration = Duration::from_secs(5);
/// Open files kept for everything but client connections: the database and its WAL, the
/// push and mail clients, backups, logs.
const RESERVED_FILES: u64 = 256;

/// The timeouts and the ceiling, from `[http]` in the settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub body_timeout: Duration,
    pub max_connections: usize,
}

impl Limits {
    pub fn from_settings(settings: &crate::config::HttpSettings) -> Limits {
        Limits {
            header_timeout: settings.header_timeout(),
            idle_timeout: settings.idle_timeout(),
            body_timeout: settings.body_timeout(),
            max_connections: settings.max_connections(),
        }
    }

    /// The ceiling, lowered to fit the open files this process may have.
    fn fitted(mut self) -> Limits {
        if let Ok((soft, _)) = rlimit::getrlimit(rlimit::Resource::NOFILE) {
            let room = usize::try_from(soft.saturating_sub(RESERVED_FILES).max(16)).unwrap_or(usize::MAX);
            if room < self.max_connections {
                tracing::warn!(
                    "http.max_connections is {} but the open files limit is {soft}: holding at most {room} connections",
                    self.max_connections
                );
                self.max_connections = room;
            }
        }
        self
    }
}

/// A request body that took longer than `body_timeout` (answered 408, see extract.rs).
#[derive(Debug)]
pub struct BodyTimedOut;

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for BodyTimedOut {}

const IDLE: u8 = 0;
const HEAD: u8 = 1;
const BUSY: u8 = 2;

/// What the accept loop and a connection's task share about it.
struct Conn {
    phase: AtomicU8,
    /// Milliseconds from the server's start: when it last became idle (accepted or answered).
    idle_since: AtomicU64,
    /// When the current request's first byte arrived.
    head_since: AtomicU64,
    /// Set when the accept loop wants its place for a new connection.
    shed: AtomicBool,
    /// Wakes the connection's task to look at its phase, `shed` and shutdown again.
    wake: Notify,
}

/// A connection's place under the ceiling, given back when its task ends.
struct Slot {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shared.conns().remove(&self.id);
    }
}

struct Shared {
    origin: Instant,
    limits: Limits,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    stopping: AtomicBool,
    /// When the log last said that the ceiling was reached (milliseconds from `origin`).
    warned_full: AtomicU64,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes room for one more connection; false when every connection is busy.
    fn make_room(&self) -> bool {
        let conns = self.conns();
        if conns.len() < self.limits.max_connections {
            return true;
        }
        self.warn_full();
        let oldest = conns
            .values()
            .filter(|c| c.phase.load(Ordering::Acquire) != BUSY && !c.shed.load(Ordering::Acquire))
            .min_by_key(|c| c.idle_since.load(Ordering::Acquire));
        match oldest {
            Some(conn) => {
                conn.shed.store(true, Ordering::Release);
                conn.wake.notify_one();
                true
            }
            None => false,
        }
    }

    /// Says so at most once a minute: the operator may want a higher ceiling, or it is an
    /// attack.
    fn warn_full(&self) {
        let now = self.now_ms();
        let last = self.warned_full.load(Ordering::Relaxed);
        if (last == 0 || now.saturating_sub(last) >= 60_000)
            && self
                .warned_full
                .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(
                "{} connections open, the most allowed: new ones replace the longest idle (http.max_connections)",
                self.limits.max_connections
            );
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then drains as described above.
pub async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let limits = limits.fitted();
    tracing::info!(
        "at most {} connections; headers within {} s, bodies within {} s, idle connections closed after {} s",
        limits.max_connections,
        limits.header_timeout.as_secs(),
        limits.body_timeout.as_secs(),
        limits.idle_timeout.as_secs()
    );
    let shared = Arc::new(Shared {
        origin: Instant::now(),
        limits,
        conns: Mutex::new(HashMap::new()),
        stopping: AtomicBool::new(false),
        warned_full: AtomicU64::new(0),
    });
    let mut tasks = JoinSet::new();
    let mut next_id: u64 = 0;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    if !shared.make_room() {
                        // Every connection is answering a request: refuse this one now
                        // rather than keep it waiting on an open file.
                        drop(stream);
                        continue;
                    }
                    next_id += 1;
                    let now = shared.now_ms();
                    // A TLS handshake is timed and shed like headers that are slow to come.
                    let conn = Arc::new(Conn {
                        phase: AtomicU8::new(if tls.is_some() { HEAD } else { IDLE }),
                        idle_since: AtomicU64::new(now),
                        head_since: AtomicU64::new(now),
                        shed: AtomicBool::new(false),
                        wake: Notify::new(),
                    });
                    shared.conns().insert(next_id, Arc::clone(&conn));
                    let (shared, app, id, tls) = (Arc::clone(&shared), app.clone(), next_id, tls.clone());
                    tasks.spawn(async move {
                        // Freed however the task ends, a handler's panic included.
                        let _slot = Slot { shared: Arc::clone(&shared), id };
                        let _ = stream.set_nodelay(true);
                        match tls {
                            None => serve_connection(&shared, &conn, stream, peer, app).await,
                            Some(tls) => {
                                if let Some(stream) = handshake(&shared, &conn, tls, stream, peer).await {
                                    serve_connection(&shared, &conn, stream, peer, app).await;
                                }
                            }
                        }
                    });
                }
                Err(e) => {
                    // Out of open files or memory: wait for connections to end.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
    drop(listener);
    shared.stopping.store(true, Ordering::Release);
    for conn in shared.conns().values() {
        conn.wake.notify_one();
    }
    if !tasks.is_empty() {
        tracing::info!(
            "waiting up to {} s for {} connections",
            DRAIN.as_secs(),
            tasks.len()
        );
    }
    let drained = tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(
            "closing {} connections whose requests did not finish in time",
            tasks.len()
        );
        tasks.shutdown().await;
    }
    Ok(())
}

/// The TLS handshake of a new connection, within the header timeout; `None` when it failed,
/// took too long, or the connection was shed or the server is stopping meanwhile.
async fn handshake(
    shared: &Shared,
    conn: &Conn,
    tls: TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
) -> Option<TlsStream<TcpStream>> {
    let given_up = async {
        loop {
            conn.wake.notified().await;
            if shared.stopping.load(Ordering::Acquire) || conn.shed.load(Ordering::Acquire) {
                return;
            }
        }
    };
    tokio::select! {
        done = tokio::time::timeout(shared.limits.header_timeout, tls.accept(stream)) => match done {
            Ok(Ok(stream)) => {
                conn.idle_since.store(shared.now_ms(), Ordering::Release);
                conn.phase.store(IDLE, Ordering::Release);
                Some(stream)
            }
            Ok(Err(e)) => {
                tracing::debug!("TLS handshake with {peer} failed: {e}");
                None
            }
            Err(_) => {
                tracing::debug!("TLS handshake with {peer} did not finish in time");
                None
            }
        },
        () = given_up => None,
    }
}

/// Serves one connection until it ends, times out, is shed or shutdown closes it.
async fn serve_connection<S>(shared: &Arc<Shared>, conn: &Arc<Conn>, stream: S, peer: SocketAddr, app: Router)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(Watched {
        stream,
        conn: Arc::clone(conn),
        shared: Arc::clone(shared),
        write_stall: None,
    });
    let service = {
        let (conn, shared) = (Arc::clone(conn), Arc::clone(shared));
        hyper::service::service_fn(move |request: Request<Incoming>| {
            let guard = Busy::begin(&conn, &shared);
            let deadline = tokio::time::Instant::now() + shared.limits.body_timeout;
            let mut request = request.map(|body| {
                Body::new(TimedBody {
                    inner: body,
                    deadline,
                    timer: None,
                })
            });
            request.extensions_mut().insert(ConnectInfo(peer));
            let answer = app.clone().call(request);
            async move {
                let response = answer.await?;
                Ok::<_, Infallible>(response.map(|body| {
                    Body::new(Answer {
                        inner: body,
                        _busy: guard,
                    })
                }))
            }
        })
    };
    let connection = hyper::server::conn::http1::Builder::new()
        // Our own watch below times the headers: hyper's timer would also close an idle
        // connection after the header timeout.
        .header_read_timeout(None)
        .serve_connection(io, service);
    tokio::pin!(connection);
    let mut draining = false;
    loop {
        let deadline = if draining { None } else { conn.deadline(shared) };
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("connection from {peer} ended: {e}");
                }
                return;
            }
            () = sleep_until(deadline) => {
                if conn.deadline(shared).is_some_and(|d| d <= tokio::time::Instant::now()) {
                    tracing::debug!("closing a connection from {peer} that sent nothing in time");
                    return;
                }
            }
            () = conn.wake.notified() => {
                let busy = conn.phase.load(Ordering::Acquire) == BUSY;
                if shared.stopping.load(Ordering::Acquire) && !draining {
                    if !busy {
                        return;
                    }
                    // Finish the answer under way, then close.
                    connection.as_mut().graceful_shutdown();
                    draining = true;
                } else if conn.shed.load(Ordering::Acquire) {
                    if !busy {
                        tracing::debug!("closing an idle connection from {peer} to make room");
                        return;
                    }
                    // A request began meanwhile: keep the connection.
                    conn.shed.store(false, Ordering::Release);
                }
            }
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl Conn {
    /// When the connection is closed unless something happens: none while busy.
    fn deadline(&self, shared: &Shared) -> Option<tokio::time::Instant> {
        let (since, limit) = match self.phase.load(Ordering::Acquire) {
            IDLE => (
                self.idle_since.load(Ordering::Acquire),
                shared.limits.idle_timeout,
            ),
            HEAD => (
                self.head_since.load(Ordering::Acquire),
                shared.limits.header_timeout,
            ),
            _ => return None,
        };
        let origin = tokio::time::Instant::from_std(shared.origin);
        Some(origin + Duration::from_millis(since) + limit)
    }
}

/// A request under way on a connection, from its headers until its answer is sent (or
/// dropped); the connection is idle again after.
struct Busy {
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl Busy {
    fn begin(conn: &Arc<Conn>, shared: &Arc<Shared>) -> Busy {
        conn.phase.store(BUSY, Ordering::Release);
        conn.wake.notify_one();
        Busy {
            conn: Arc::clone(conn),
            shared: Arc::clone(shared),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn
            .idle_since
            .store(self.shared.now_ms(), Ordering::Release);
        self.conn.phase.store(IDLE, Ordering::Release);
        self.conn.wake.notify_one();
    }
}

/// The socket (or the TLS stream on it), noting when a request's first bytes arrive on an
/// idle connection.
struct Watched<S> {
    stream: S,
    conn: Arc<Conn>,
    shared: Arc<Shared>,
    /// Started when the client stops reading an answer: a busy connection is never shed, so
    /// one that takes no bytes for `body_timeout` is closed, or clients that ask for large
    /// answers and never read them could hold every place under the ceiling.
    write_stall: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> Watched<S> {
    /// Passes `poll` on, failing it once writing has made no progress for `body_timeout`.
    fn watch_write<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.write_stall = None;
            return poll;
        }
        let limit = self.shared.limits.body_timeout;
        let stall = self
            .write_stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stall.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading the answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before
            && this
                .conn
                .phase
                .compare_exchange(IDLE, HEAD, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            this.conn
                .head_since
                .store(this.shared.now_ms(), Ordering::Release);
            this.conn.wake.notify_one();
        }
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.watch_write(cx, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.watch_write(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A request body that fails with `BodyTimedOut` once its deadline passes.
struct TimedBody {
    inner: Incoming,
    deadline: tokio::time::Instant,
    /// Started when the body first keeps the reader waiting: most bodies never do.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl HttpBody for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let deadline = self.deadline;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimedOut)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body that keeps its connection busy until it is sent or dropped.
struct Answer {
    inner: Body,
    _busy: Busy,
}

impl HttpBody for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
