//! A recorder on the wire between Arka and the CIS simulator: it forwards every SOAP request as
//! it came and keeps its body, so a test can have outside tools judge exactly what Arka sent.
//! While the simulator is down the recorder answers 502, which Arka reads as the CIS's own
//! trouble (late delivery type SERVICE).

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arka::config::ServeArgs;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;

use super::sim::SimServer;

#[derive(Clone)]
struct Forward {
    target: String,
    bodies: Arc<Mutex<Vec<String>>>,
    agent: ureq::Agent,
}

pub struct Wire {
    // Held for its worker thread, which serves the recorder until the Wire is dropped.
    _runtime: tokio::runtime::Runtime,
    address: SocketAddr,
    bodies: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

async fn forward(State(f): State<Forward>, uri: Uri, headers: HeaderMap, body: Bytes) -> impl IntoResponse {
    let text = String::from_utf8_lossy(&body).into_owned();
    f.bodies.lock().unwrap().push(text.clone());
    let url = format!("{}{}", f.target, uri.path_and_query().map(|p| p.as_str()).unwrap_or("/"));
    let soap_action = headers.get("soapaction").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let answer = tokio::task::spawn_blocking(move || {
        let mut reply = f
            .agent
            .post(&url)
            .header("Content-Type", "text/xml; charset=utf-8")
            .header("SOAPAction", &soap_action)
            .send(text)
            .ok()?;
        let status = reply.status().as_u16();
        Some((status, reply.body_mut().read_to_string().unwrap_or_default()))
    })
    .await
    .unwrap();
    match answer {
        Some((status, body)) => {
            (StatusCode::from_u16(status).unwrap(), [("content-type", "text/xml; charset=utf-8")], body)
                .into_response()
        }
        None => (StatusCode::BAD_GATEWAY, "the CIS simulator did not answer").into_response(),
    }
}

impl Wire {
    /// A recorder forwarding to `sim`.
    pub fn in_front_of(sim: &SimServer) -> Wire {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let state = Forward {
            target: sim.base(),
            bodies: bodies.clone(),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(5)))
                .build()
                .new_agent(),
        };
        let app = axum::Router::new().fallback(forward).with_state(state);
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Wire { _runtime: runtime, address, bodies, stop: Some(stop) }
    }

    /// Points Arka's CIS address at the recorder (after `sim.configure` set the rest).
    pub fn configure(&self, args: &mut ServeArgs) {
        args.cis_url = Some(format!("http://{}/FiscalizationService-v3", self.address));
    }

    /// Every request body whose root is `root` (e.g. `RegisterWTNRequest`), oldest first.
    pub fn requests(&self, root: &str) -> Vec<String> {
        let open = format!("<{root} ");
        self.bodies.lock().unwrap().iter().filter(|b| b.contains(&open)).cloned().collect()
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// `xmllint --schema` (the tax authority's schema, on the request element) and `xmlsec1
/// --verify` (the enveloped signature, with the certificate the request carries) both accept
/// the SOAP message `soap` whose request element is `root`.
pub fn assert_outside_tools_accept(root: &str, soap: &str) {
    let start = soap.find(&format!("<{root} ")).expect("the request element");
    let close = format!("</{root}>");
    let end = soap.find(&close).expect("its end") + close.len();
    let element = &soap[start..end];
    let certificate = {
        let open = "<X509Certificate>";
        let from = element.find(open).expect("KeyInfo's certificate") + open.len();
        let to = element[from..].find("</X509Certificate>").unwrap() + from;
        let base64: String = element[from..to].chars().filter(|c| !c.is_whitespace()).collect();
        let lines: Vec<String> =
            base64.as_bytes().chunks(64).map(|c| String::from_utf8(c.to_vec()).unwrap()).collect();
        format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
    };
    let dir = tempfile::tempdir().unwrap();
    let (element_path, soap_path, cert_path) =
        (dir.path().join("request.xml"), dir.path().join("request.soap.xml"), dir.path().join("cert.pem"));
    std::fs::write(&element_path, element).unwrap();
    std::fs::write(&soap_path, soap).unwrap();
    std::fs::write(&cert_path, certificate).unwrap();
    let xsd =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cis/alimc-fiscalization-service.libxml2.xsd");
    let lint = super::oracle(
        Command::new("xmllint").arg("--noout").arg("--schema").arg(&xsd).arg(&element_path),
        "libxml2-utils",
    );
    assert!(
        lint.status.success(),
        "xmllint rejected {root}: {}\n{element}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let verify = super::oracle(
        Command::new("xmlsec1")
            .args(["--verify", "--id-attr:Id", root, "--pubkey-cert-pem"])
            .arg(&cert_path)
            .arg(&soap_path),
        "xmlsec1",
    );
    assert!(verify.status.success(), "xmlsec1 rejected {root}: {}", String::from_utf8_lossy(&verify.stderr));
}
