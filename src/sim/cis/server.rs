//! The CIS simulator's routing table: the two services, their WSDLs and schemas, and the
//! control API, served by the shared simulator plumbing (`crate::sim::http`).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::HOST;
use hyper::{Method, Request, StatusCode};

use super::operations::{self, Fault, Reply};
use super::state::{Mode, ModeSetting, RequestOutcome, SeedEinvoice, SimService};
use super::{
    EINVOICE_PATH, EINVOICE_WSDL, EINVOICE_XSD, FISCALIZATION_PATH, FISCALIZATION_WSDL, FISCALIZATION_XSD,
    Inner, XMLDSIG_XSD,
};
use crate::fiscal::requests::Service;
use crate::sim::http::{Answer, Dropped, json, message, read_body, text};

/// SOAP bodies larger than this are refused; e-invoices carry whole documents in base64.
const MAX_SOAP_BYTES: usize = 16 * 1024 * 1024;
const MAX_CONTROL_BYTES: usize = 64 * 1024;

/// The body a `garbage` answer carries: plain text that no XML parser accepts.
const GARBAGE: &str = "Service Temporarily Unavailable <<< upstream returned no SOAP >>>";

pub async fn serve(
    sim: Arc<Inner>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    crate::sim::http::serve("CIS simulator", listener, shutdown, move |request, local| {
        handle(sim.clone(), request, local)
    })
    .await
}

async fn handle(sim: Arc<Inner>, request: Request<Incoming>, local: SocketAddr) -> Result<Answer, Dropped> {
    let path = request.uri().path().to_string();
    if path == "/control" || path.starts_with("/control/") {
        return Ok(control(&sim, request, &path).await);
    }
    let soap_service = match path.as_str() {
        FISCALIZATION_PATH => Some(Service::Fiscalization),
        EINVOICE_PATH => Some(Service::Einvoice),
        _ => None,
    };
    let served_by =
        if path.starts_with(EINVOICE_PATH) { SimService::Einvoice } else { SimService::Fiscalization };
    let mode = sim.state().mode_of(served_by).clone();
    match (request.method(), soap_service) {
        (&Method::POST, Some(service)) => {
            let body = match read_body(request, MAX_SOAP_BYTES).await {
                Ok(body) => body,
                Err(answer) => return Ok(answer),
            };
            soap(&sim, service, &body).await
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

async fn soap(sim: &Inner, service: Service, body: &[u8]) -> Result<Answer, Dropped> {
    let mut incoming = operations::read(body, service);
    let mode = sim.state().mode_for(SimService::of(service), &incoming.record.operation).clone();
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
    if let Some(delay_ms) = mode.delay_ms {
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
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
            text(StatusCode::OK, xml, FISCALIZATION_XSD.text())
        }
        "/EinvoiceService-v1/alimc-einvoice-service.xsd" => text(StatusCode::OK, xml, EINVOICE_XSD.text()),
        "/FiscalizationService-v3/xmldsig-core-schema.xsd"
        | "/EinvoiceService-v1/xmldsig-core-schema.xsd" => text(StatusCode::OK, xml, XMLDSIG_XSD.text()),
        _ => text(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found"),
    }
}

fn fiscalization_wsdl(host: &str) -> Answer {
    let wsdl = FISCALIZATION_WSDL.text().replace(
        "https://efiskalizimi-test.tatime.gov.al:443/FiscalizationService-v3",
        &format!("http://{host}{FISCALIZATION_PATH}"),
    );
    text(StatusCode::OK, "text/xml; charset=utf-8", wsdl)
}

fn einvoice_wsdl(host: &str) -> Answer {
    let wsdl = EINVOICE_WSDL.text().replace(
        "https://einvoice-test.tatime.gov.al/EinvoiceService-v1",
        &format!("http://{host}{EINVOICE_PATH}"),
    );
    text(StatusCode::OK, "text/xml; charset=utf-8", wsdl)
}

async fn control(sim: &Inner, request: Request<Incoming>, path: &str) -> Answer {
    match (request.method().clone(), path) {
        (Method::GET, "/control") => {
            let service = match request.uri().query() {
                Some("service=einvoice") => SimService::Einvoice,
                _ => SimService::Fiscalization,
            };
            json(StatusCode::OK, sim.state().mode_of(service))
        }
        (Method::POST, "/control") => {
            let body = match read_body(request, MAX_CONTROL_BYTES).await {
                Ok(body) => body,
                Err(answer) => return answer,
            };
            match serde_json::from_slice::<ModeSetting>(&body) {
                Ok(setting) => {
                    let setting = setting.normalized();
                    tracing::info!(?setting, "CIS simulator: mode changed");
                    sim.state().set_mode(setting.clone());
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
        (Method::POST, "/control/einvoices") => {
            let body = match read_body(request, MAX_CONTROL_BYTES).await {
                Ok(body) => body,
                Err(answer) => return answer,
            };
            let seeded = serde_json::from_slice::<SeedEinvoice>(&body)
                .map_err(|e| format!("invalid e-invoice: {e}"))
                .and_then(|seed| sim.state().seed(seed, chrono::Utc::now()));
            match seeded {
                Ok(einvoice) => json(StatusCode::CREATED, &einvoice),
                Err(e) => message(StatusCode::BAD_REQUEST, &e),
            }
        }
        (_, "/control" | "/control/requests" | "/control/registered" | "/control/einvoices") => {
            message(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => message(StatusCode::NOT_FOUND, "not found"),
    }
}
