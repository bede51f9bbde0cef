//! HTTP plumbing shared by the simulators (CIS and Wolt): one accept loop, hyper's HTTP/1 per
//! connection, and small answer helpers.
//!
//! hyper is used directly rather than through axum because a simulator's `down` mode needs a
//! handler that closes the connection without an answer: a hyper service returning an error
//! does exactly that, an axum handler cannot.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// A client that opens a connection and sends nothing is dropped after this long.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Pause after a failed accept (out of file descriptors, say), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

pub type Answer = Response<Full<Bytes>>;

/// Returned by a handler to make hyper close the connection without an answer.
#[derive(Debug)]
pub struct Dropped;

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the simulator is down: connection closed without an answer")
    }
}

impl std::error::Error for Dropped {}

/// Serves `handle(request, local address)` on `listener` until `shutdown` completes; open
/// connections are then closed. `name` prefixes the log lines.
pub async fn serve<H, F>(
    name: &'static str,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    handle: H,
) -> std::io::Result<()>
where
    H: Fn(Request<Incoming>, SocketAddr) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Answer, Dropped>> + Send + 'static,
{
    let local = listener.local_addr()?;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(connection(name, stream, local, handle.clone()));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "{name}: accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            // Finished connections are reaped so the set does not grow.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
    Ok(())
}

async fn connection<H, F>(name: &'static str, stream: TcpStream, local: SocketAddr, handle: H)
where
    H: Fn(Request<Incoming>, SocketAddr) -> F + Send + Sync + 'static,
    F: Future<Output = Result<Answer, Dropped>> + Send + 'static,
{
    let service = service_fn(move |request| handle(request, local));
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "{name}: connection ended");
    }
}

/// The whole body, or the answer to give when it cannot be read.
pub async fn read_body(request: Request<Incoming>, limit: usize) -> Result<Bytes, Answer> {
    match Limited::new(request.into_body(), limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => {
            let too_large = e.downcast_ref::<http_body_util::LengthLimitError>().is_some();
            if too_large {
                Err(message(StatusCode::PAYLOAD_TOO_LARGE, "the request body is too large"))
            } else {
                Err(message(StatusCode::BAD_REQUEST, &format!("the request body could not be read: {e}")))
            }
        }
    }
}

pub fn text(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Answer {
    let mut answer = Response::new(Full::new(body.into()));
    *answer.status_mut() = status;
    answer.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    answer
}

pub fn json(status: StatusCode, value: &impl Serialize) -> Answer {
    match serde_json::to_vec(value) {
        Ok(body) => text(status, "application/json", body),
        Err(e) => message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// `{"message": ...}` with `status`.
pub fn message(status: StatusCode, message: &str) -> Answer {
    let body = serde_json::json!({ "message": message }).to_string();
    text(status, "application/json", body)
}

/// What a simulator's `serve` waits on to stop.
pub type Shutdown = std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A simulator serving on loopback, on a task of the runtime that spawned it; dropping the
/// handle stops the simulator.
#[derive(Debug)]
pub struct SimHandle<S> {
    addr: SocketAddr,
    sim: S,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl<S: Clone> SimHandle<S> {
    /// Binds `127.0.0.1` on a free port and runs `serve(sim, listener, shutdown)` there.
    pub async fn spawn<F, Fut>(sim: S, serve: F) -> std::io::Result<SimHandle<S>>
    where
        F: FnOnce(S, TcpListener, Shutdown) -> Fut,
        Fut: Future<Output = std::io::Result<()>> + Send + 'static,
    {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let shutdown: Shutdown = Box::pin(async move {
            // A dropped sender means the handle is gone: stop as well.
            stopped.await.ok();
        });
        let task = tokio::spawn(serve(sim.clone(), listener, shutdown));
        Ok(SimHandle { addr, sim, stop: Some(stop), task: Some(task) })
    }
}

impl<S> SimHandle<S> {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn sim(&self) -> &S {
        &self.sim
    }

    /// Stops accepting, closes open connections and waits for the server task.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            stop.send(()).ok();
        }
        match self.task.take() {
            Some(task) => task.await.map_err(std::io::Error::other)?,
            None => Ok(()),
        }
    }
}

impl<S> Drop for SimHandle<S> {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.send(()).ok();
        }
    }
}
