//! HTTP plumbing: one accept loop, hyper's HTTP/1 per connection, and a flat routing table for
//! the two services, their WSDLs and schemas, and the control API.
//!
//! hyper is used directly rather than through axum because `down` mode needs a handler that
//! closes the connection without an answer: a hyper service returning an error does exactly
//! that, an axum handler cannot.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use super::operations::{self, Fault, Reply};
use super::state::{Mode, ModeSetting, RequestOutcome};
use super::{
    EINVOICE_PATH, EINVOICE_WSDL, EINVOICE_XSD, FISCALIZATION_PATH, FISCALIZATION_WSDL, FISCALIZATION_XSD,
    Inner, XMLDSIG_XSD,
};
use crate::fiscal::requests::Service;

/// SOAP bodies larger than this are refused; e-invoices carry whole documents in base64.
const MAX_SOAP_BYTES: usize = 16 * 1024 * 1024;
const MAX_CONTROL_BYTES: usize = 64 * 1024;
/// A client that opens a connection and sends nothing is dropped after this long.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Pause after a failed accept (out of file descriptors, say), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The body a `garbage` answer carries: plain text that no XML parser accepts.
const GARBAGE: &str = "Service Temporarily Unavailable <<< upstream returned no SOAP >>>";

type Answer = Response<Full<Bytes>>;

/// Returned by the service to make hyper close the connection without an answer.
#[derive(Debug)]
struct Dropped;

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the CIS simulator is down: connection closed without an answer")
    }
}

impl std::error::Error for Dropped {}

pub async fn serve(
    sim: Arc<Inner>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(connection(sim.clone(), stream, local));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "CIS simulator: accept failed");
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

async fn connection(sim: Arc<Inner>, stream: TcpStream, local: SocketAddr) {
    let service = service_fn(move |request| handle(sim.clone(), request, local));
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "CIS simulator: connection ended");
    }
}

async fn handle(sim: Arc<Inner>, request: Request<Incoming>, local: SocketAddr) -> Result<Answer, Dropped> {
    let path = request.uri().path().to_string();
    if path == "/control" || path.starts_with("/control/") {
        return Ok(control(&sim, request, &path).await);
    }
    let mode = sim.state().mode.clone();
    let soap_service = match path.as_str() {
        FISCALIZATION_PATH => Some(Service::Fiscalization),
        EINVOICE_PATH => Some(Service::Einvoice),
        _ => None,
    };
    match (request.method(), soap_service) {
        (&Method::POST, Some(service)) => {
            let body = match read_body(request, MAX_SOAP_BYTES).await {
                Ok(body) => body,
                Err(answer) => return Ok(answer),
            };
            soap(&sim, service, &body, mode).await
        }
        _ if mode.mode == Mode::Down => Err(Dropped),
        (&Method::GET, _) => {
            let host = request
                .headers()
                .get(HOST)
                .and_then(|h| h.to_str().ok())
                .map_or_else(|| local.to_string(), str::to_string);
            Ok(document(&path, request.uri().query(), &host))
        }
        _ => Ok(text(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found")),
    }
}

async fn soap(sim: &Inner, service: Service, body: &[u8], mode: ModeSetting) -> Result<Answer, Dropped> {
    let mut incoming = operations::read(body, service);
    let request_uuid = incoming.record.uuid.clone();
    let answer = match mode.mode {
        Mode::Down => {
            incoming.record.outcome = RequestOutcome::Dropped;
            sim.state().log(incoming.record);
            return Err(Dropped);
        }
        Mode::Garbage => {
            incoming.record.outcome = RequestOutcome::Garbage;
            text(StatusCode::OK, "text/plain; charset=utf-8", GARBAGE)
        }
        Mode::Fault => {
            let code = mode.fault_code.unwrap_or_default();
            let fault = Fault::new(&code, format!("Simulated fault (code {code})"));
            incoming.record.outcome = RequestOutcome::Fault;
            incoming.record.fault_code = Some(fault.code.clone());
            incoming.record.fault_string = Some(fault.message.clone());
            soap_answer(Reply::Fault(operations::fault_envelope(&fault, request_uuid.as_deref())))
        }
        Mode::Ok | Mode::Slow => soap_answer(operations::answer(sim, &mut incoming)),
    };
    sim.state().log(incoming.record);
    if mode.mode == Mode::Slow {
        tokio::time::sleep(Duration::from_millis(mode.delay_ms.unwrap_or_default())).await;
    }
    Ok(answer)
}

fn soap_answer(reply: Reply) -> Answer {
    match reply {
        Reply::Answer(envelope) => text(StatusCode::OK, "text/xml; charset=utf-8", envelope),
        Reply::Fault(envelope) => {
            text(StatusCode::INTERNAL_SERVER_ERROR, "text/xml; charset=utf-8", envelope)
        }
    }
}

/// The WSDLs (with `soap:address` pointing here) and the schemas they import.
fn document(path: &str, query: Option<&str>, host: &str) -> Answer {
    let wsdl_asked = query.is_some_and(|q| q.eq_ignore_ascii_case("wsdl"));
    let xml = "text/xml; charset=utf-8";
    match path {
        FISCALIZATION_PATH if wsdl_asked => fiscalization_wsdl(host),
        "/FiscalizationService-v3/FiscalizationService.wsdl" => fiscalization_wsdl(host),
        EINVOICE_PATH if wsdl_asked => einvoice_wsdl(host),
        "/EinvoiceService-v1/EinvoiceService.wsdl" => einvoice_wsdl(host),
        "/FiscalizationService-v3/alimc-fiscalization-service.xsd" => {
            text(StatusCode::OK, xml, FISCALIZATION_XSD)
        }
        "/EinvoiceService-v1/alimc-einvoice-service.xsd" => text(StatusCode::OK, xml, EINVOICE_XSD),
        "/FiscalizationService-v3/xmldsig-core-schema.xsd"
        | "/EinvoiceService-v1/xmldsig-core-schema.xsd" => text(StatusCode::OK, xml, XMLDSIG_XSD),
        _ => text(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found"),
    }
}

fn fiscalization_wsdl(host: &str) -> Answer {
    let wsdl = FISCALIZATION_WSDL.replace(
        "https://efiskalizimi-test.tatime.gov.al:443/FiscalizationService-v3",
        &format!("http://{host}{FISCALIZATION_PATH}"),
    );
    text(StatusCode::OK, "text/xml; charset=utf-8", wsdl)
}

fn einvoice_wsdl(host: &str) -> Answer {
    let wsdl = EINVOICE_WSDL.replace(
        "https://einvoice-test.tatime.gov.al/EinvoiceService-v1",
        &format!("http://{host}{EINVOICE_PATH}"),
    );
    text(StatusCode::OK, "text/xml; charset=utf-8", wsdl)
}

async fn control(sim: &Inner, request: Request<Incoming>, path: &str) -> Answer {
    match (request.method().clone(), path) {
        (Method::GET, "/control") => json(StatusCode::OK, &sim.state().mode),
        (Method::POST, "/control") => {
            let body = match read_body(request, MAX_CONTROL_BYTES).await {
                Ok(body) => body,
                Err(answer) => return answer,
            };
            match serde_json::from_slice::<ModeSetting>(&body) {
                Ok(setting) => {
                    let setting = setting.normalized();
                    tracing::info!(?setting, "CIS simulator: mode changed");
                    sim.state().mode = setting.clone();
                    json(StatusCode::OK, &setting)
                }
                Err(e) => message(StatusCode::BAD_REQUEST, &format!("invalid mode: {e}")),
            }
        }
        (Method::GET, "/control/requests") => {
            let log: Vec<_> = sim.state().log.iter().cloned().collect();
            json(StatusCode::OK, &log)
        }
        (Method::DELETE, "/control/requests") => {
            let mut state = sim.state();
            let cleared = state.log.len();
            state.log.clear();
            json(StatusCode::OK, &serde_json::json!({ "cleared": cleared }))
        }
        (Method::GET, "/control/registered") => json(StatusCode::OK, &sim.state().registry),
        (_, "/control" | "/control/requests" | "/control/registered") => {
            message(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => message(StatusCode::NOT_FOUND, "not found"),
    }
}

/// The whole body, or the answer to give when it cannot be read.
async fn read_body(request: Request<Incoming>, limit: usize) -> Result<Bytes, Answer> {
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

fn text(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Answer {
    let mut answer = Response::new(Full::new(body.into()));
    *answer.status_mut() = status;
    answer.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    answer
}

fn json(status: StatusCode, value: &impl Serialize) -> Answer {
    match serde_json::to_vec(value) {
        Ok(body) => text(status, "application/json", body),
        Err(e) => message(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

fn message(status: StatusCode, message: &str) -> Answer {
    let body = serde_json::json!({ "message": message }).to_string();
    text(status, "application/json", body)
}
