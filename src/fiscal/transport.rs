//! HTTP to the CIS: one blocking SOAP POST per call, with time limits a till can live with.
//!
//! Callers run it inside `spawn_blocking`. Every failure to get a SOAP answer becomes
//! `Outcome::NotDelivered`, which the deferred-fiscalization queue retries; a SOAP fault is
//! `Outcome::Rejected` whatever the HTTP status it came with.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ureq::Agent;
use ureq::http::Uri;
use ureq::tls::{Certificate as TlsCertificate, RootCerts, TlsConfig, TlsProvider};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::Error;
use super::requests::{Operation, Service};
use super::response::{
    self, CashDepositAccepted, EinvoiceAccepted, Einvoices, InvoiceAccepted, NotDelivered, Outcome,
    StatusChanged, Taxpayers, TcrAccepted, WtnAccepted,
};

/// Answers larger than this are not a CIS answer; `GetEinvoices` with PDFs is the largest.
const MAX_REPLY_BYTES: u64 = 32 * 1024 * 1024;
/// How much of an unexpected reply is kept for the log.
const EXCERPT_CHARS: usize = 300;

/// Where the CIS lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `efiskalizimi.tatime.gov.al`. The e-invoice production URL is the test one with the
    /// `-test` dropped: no source confirms it (PROTOCOL.md section 1).
    Production,
    /// `efiskalizimi-test.tatime.gov.al` and `einvoice-test.tatime.gov.al`.
    Test,
    /// Explicit URLs, e.g. the simulator's `http://127.0.0.1:port/...`.
    Custom { fiscalization: String, einvoice: String },
}

impl Endpoint {
    pub fn url(&self, service: Service) -> &str {
        match (self, service) {
            (Endpoint::Production, Service::Fiscalization) => {
                "https://efiskalizimi.tatime.gov.al/FiscalizationService-v3"
            }
            (Endpoint::Production, Service::Einvoice) => "https://einvoice.tatime.gov.al/EinvoiceService-v1",
            (Endpoint::Test, Service::Fiscalization) => {
                "https://efiskalizimi-test.tatime.gov.al/FiscalizationService-v3"
            }
            (Endpoint::Test, Service::Einvoice) => "https://einvoice-test.tatime.gov.al/EinvoiceService-v1",
            (Endpoint::Custom { fiscalization, .. }, Service::Fiscalization) => fiscalization,
            (Endpoint::Custom { einvoice, .. }, Service::Einvoice) => einvoice,
        }
    }
}

/// How to reach the CIS.
#[derive(Debug, Clone)]
pub struct CisConfig {
    pub endpoint: Endpoint,
    /// Limit for DNS, TCP and TLS together.
    pub connect_timeout: Duration,
    /// Limit for the whole exchange, connection included: the customer is waiting.
    pub call_timeout: Duration,
    /// PEM root certificates to trust instead of the system's (one or more). The native-tls
    /// backend of ureq cannot add roots to the system's, so these replace them: meant for the
    /// simulator's self-signed certificate or for pinning the CIS's CA.
    pub trusted_roots_pem: Option<Vec<u8>>,
    /// Connections to one CIS service kept open between calls: as many as documents may be
    /// at it at once (`--cis-in-flight`), so a busy till does not open (and TLS-handshake) a new
    /// connection per document.
    pub kept_connections: usize,
}

impl CisConfig {
    pub fn new(endpoint: Endpoint) -> Self {
        CisConfig {
            endpoint,
            connect_timeout: Duration::from_secs(3),
            call_timeout: Duration::from_secs(6),
            trusted_roots_pem: None,
            kept_connections: 3,
        }
    }
}

/// What came back from one POST, before it is read as SOAP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawReply {
    Answered { status: u16, body: String },
    NotDelivered(NotDelivered),
}

/// How long the CIS's addresses are used before they are looked up again.
const RESOLVED_FOR: Duration = Duration::from_secs(60);

/// ureq looks the host up before every request, a kept connection or not, and with a time
/// limit set it starts a thread for each lookup: a thread per document. This keeps what a
/// lookup found for a minute, per host; a lookup that fails is not kept.
#[derive(Debug, Default)]
struct KeptResolver {
    lookup: DefaultResolver,
    found: Mutex<HashMap<String, (Instant, ResolvedSocketAddrs)>>,
}

impl Resolver for KeptResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = format!(
            "{}://{}",
            uri.scheme_str().unwrap_or_default(),
            uri.authority().map_or("", |a| a.as_str())
        );
        if let Ok(found) = self.found.lock()
            && let Some((at, addrs)) = found.get(&host)
            && at.elapsed() < RESOLVED_FOR
        {
            return Ok(addrs.clone());
        }
        let addrs = self.lookup.resolve(uri, config, timeout)?;
        if let Ok(mut found) = self.found.lock() {
            found.insert(host, (Instant::now(), addrs.clone()));
        }
        Ok(addrs)
    }
}

/// A blocking SOAP client for both CIS services.
#[derive(Debug, Clone)]
pub struct CisClient {
    agent: Agent,
    endpoint: Endpoint,
}

impl CisClient {
    pub fn new(config: CisConfig) -> Result<Self, Error> {
        let roots = match &config.trusted_roots_pem {
            Some(pem) => RootCerts::new_with_certs(&pem_certificates(pem)?),
            // ureq's default (bundled WebPki roots) is not compiled in with native-tls.
            None => RootCerts::PlatformVerifier,
        };
        let tls = TlsConfig::builder().provider(TlsProvider::NativeTls).root_certs(roots).build();
        let agent_config = Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.call_timeout))
            // The fault of a 500 must be read, not turned into an error.
            .http_status_as_error(false)
            // A redirect would turn the POST into a GET; better to report the status.
            .max_redirects(0)
            .max_idle_connections_per_host(config.kept_connections.max(1))
            .max_idle_connections(config.kept_connections.max(1) * 2)
            .build();
        let agent = Agent::with_parts(agent_config, DefaultConnector::new(), KeptResolver::default());
        Ok(CisClient { agent, endpoint: config.endpoint })
    }

    /// POSTs one SOAP envelope to the operation's service.
    pub fn send(&self, op: Operation, soap_body: &str) -> RawReply {
        let url = self.endpoint.url(op.service());
        // The request's time waiting for the CIS (`cis_wait`): sent, and the answer received.
        let exchanged = crate::cis_wait::exchange(|| {
            let mut response = self
                .agent
                .post(url)
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", format!("\"{}\"", op.soap_action()))
                .send(soap_body)?;
            let status = response.status().as_u16();
            Ok::<_, ureq::Error>((
                status,
                response.body_mut().with_config().limit(MAX_REPLY_BYTES).read_to_string(),
            ))
        });
        let (status, body) = match exchanged {
            Ok(answered) => answered,
            Err(e) => {
                let reason = not_delivered(e);
                tracing::warn!(operation = op.request_root(), url, ?reason, "CIS not reached");
                return RawReply::NotDelivered(reason);
            }
        };
        match body {
            Ok(body) => {
                tracing::debug!(operation = op.request_root(), status, "CIS answered");
                RawReply::Answered { status, body }
            }
            Err(e) => {
                let reason = not_delivered(e);
                tracing::warn!(operation = op.request_root(), status, ?reason, "CIS answer lost");
                RawReply::NotDelivered(reason)
            }
        }
    }

    /// A cheap sign of life of the fiscalization service: its WSDL answers 200. Sends no
    /// document, so it can run every few seconds while the CIS is away.
    pub fn probe(&self) -> Result<(), NotDelivered> {
        let url = format!("{}/FiscalizationService.wsdl", self.endpoint.url(Service::Fiscalization));
        let mut response = self.agent.get(&url).call().map_err(not_delivered)?;
        let status = response.status().as_u16();
        // The body is read so that a connection cut halfway does not count as an answer.
        let body = response.body_mut().with_config().limit(MAX_REPLY_BYTES).read_to_string();
        match (status, body) {
            (200, Ok(_)) => Ok(()),
            (_, Err(e)) => Err(not_delivered(e)),
            (status, Ok(body)) => Err(NotDelivered::HttpStatus {
                status,
                body_excerpt: body.chars().take(EXCERPT_CHARS).collect(),
            }),
        }
    }

    pub fn register_invoice(&self, soap_body: &str) -> Outcome<InvoiceAccepted> {
        let reply = self.send(Operation::RegisterInvoice, soap_body);
        interpret(reply, response::parse_register_invoice)
    }

    pub fn register_tcr(&self, soap_body: &str) -> Outcome<TcrAccepted> {
        let reply = self.send(Operation::RegisterTcr, soap_body);
        interpret(reply, response::parse_register_tcr)
    }

    pub fn register_cash_deposit(&self, soap_body: &str) -> Outcome<CashDepositAccepted> {
        let reply = self.send(Operation::RegisterCashDeposit, soap_body);
        interpret(reply, response::parse_register_cash_deposit)
    }

    pub fn register_wtn(&self, soap_body: &str) -> Outcome<WtnAccepted> {
        let reply = self.send(Operation::RegisterWtn, soap_body);
        interpret(reply, response::parse_register_wtn)
    }

    pub fn register_einvoice(&self, soap_body: &str) -> Outcome<EinvoiceAccepted> {
        let reply = self.send(Operation::RegisterEinvoice, soap_body);
        interpret(reply, response::parse_register_einvoice)
    }

    pub fn get_taxpayers(&self, soap_body: &str) -> Outcome<Taxpayers> {
        let reply = self.send(Operation::GetTaxpayers, soap_body);
        interpret(reply, response::parse_get_taxpayers)
    }

    pub fn get_einvoices(&self, soap_body: &str) -> Outcome<Einvoices> {
        let reply = self.send(Operation::GetEinvoices, soap_body);
        interpret(reply, response::parse_get_einvoices)
    }

    pub fn einvoice_change_status(&self, soap_body: &str) -> Outcome<StatusChanged> {
        let reply = self.send(Operation::EinvoiceChangeStatus, soap_body);
        interpret(reply, response::parse_einvoice_change_status)
    }
}

/// A fault or an answer counts whatever the status; anything else on an error status is
/// reported as that status. An answer on an error status is still kept: it carries the CIS's
/// code (FIC, TCR code...) and dropping it would make the queue send the document twice.
fn interpret<T>(reply: RawReply, parse: fn(&str) -> Outcome<T>) -> Outcome<T> {
    match reply {
        RawReply::NotDelivered(reason) => Outcome::NotDelivered(reason),
        RawReply::Answered { status, body } => match parse(&body) {
            Outcome::NotDelivered(_) if !(200..300).contains(&status) => {
                Outcome::NotDelivered(NotDelivered::HttpStatus {
                    status,
                    body_excerpt: body.chars().take(EXCERPT_CHARS).collect(),
                })
            }
            outcome => outcome,
        },
    }
}

fn not_delivered(e: ureq::Error) -> NotDelivered {
    match e {
        ureq::Error::Timeout(which) => NotDelivered::Timeout(format!("{which}")),
        ureq::Error::Io(io) => match io.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => NotDelivered::Timeout(io.to_string()),
            io::ErrorKind::ConnectionRefused
            | io::ErrorKind::NotConnected
            | io::ErrorKind::AddrNotAvailable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkDown => NotDelivered::Connect(io.to_string()),
            _ => NotDelivered::Io(io.to_string()),
        },
        ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::Tls(_)
        | ureq::Error::NativeTls(_)
        | ureq::Error::BadUri(_)
        | ureq::Error::TlsRequired => NotDelivered::Connect(e.to_string()),
        ureq::Error::Protocol(_)
        | ureq::Error::BodyExceedsLimit(_)
        | ureq::Error::LargeResponseHeader(_, _)
        | ureq::Error::TooManyRedirects
        | ureq::Error::RedirectFailed => NotDelivered::Unparseable(e.to_string()),
        other => NotDelivered::Io(other.to_string()),
    }
}

fn pem_certificates(pem: &[u8]) -> Result<Vec<TlsCertificate<'static>>, Error> {
    let certs = openssl::x509::X509::stack_from_pem(pem)
        .map_err(|e| Error::Certificate(format!("unreadable trusted root PEM: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Certificate("no certificate in the trusted root PEM".into()));
    }
    certs
        .iter()
        .map(|cert| {
            let der = cert.to_der()?;
            Ok(TlsCertificate::from_der(&der).to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::response::tests::{FIC, accepted_invoice_body, validation_fault_body};
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::thread::{self, JoinHandle};
    use std::time::Instant;

    const SOAP: &str = "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Header/><SOAP-ENV:Body><RegisterInvoiceRequest/></SOAP-ENV:Body></SOAP-ENV:Envelope>";

    /// How the one-shot test server answers once it has read the request.
    enum Answer {
        Http { status: &'static str, body: String },
        SilenceFor(Duration),
    }

    fn http(status: &'static str, body: String) -> Answer {
        Answer::Http { status, body }
    }

    /// Serves exactly one connection on loopback and hands back the raw request it read.
    /// Every wait is bounded so a broken client cannot hang the test run.
    fn serve_once(answer: Answer) -> (u16, JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let handle = thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut stream = loop {
                match listener.accept() {
                    Ok((stream, _)) => break stream,
                    Err(_) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                    Err(e) => panic!("no client came: {e}"),
                }
            };
            stream.set_nonblocking(false).unwrap();
            let request = read_request(&mut stream);
            match answer {
                Answer::Http { status, body } => {
                    let reply = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    stream.write_all(reply.as_bytes()).unwrap();
                }
                Answer::SilenceFor(pause) => thread::sleep(pause),
            }
            request
        });
        (port, handle)
    }

    fn read_request(stream: &mut impl Read) -> String {
        let mut raw = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = stream.read(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&raw).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if raw.len() >= end + 4 + length {
                    break;
                }
            }
        }
        String::from_utf8(raw).unwrap()
    }

    fn client_for(port: u16, scheme: &str) -> CisClient {
        let mut config = CisConfig::new(Endpoint::Custom {
            fiscalization: format!("{scheme}://127.0.0.1:{port}/FiscalizationService-v3"),
            einvoice: format!("{scheme}://127.0.0.1:{port}/EinvoiceService-v1"),
        });
        config.connect_timeout = Duration::from_millis(500);
        config.call_timeout = Duration::from_millis(800);
        CisClient::new(config).unwrap()
    }

    #[test]
    fn an_accepted_invoice_comes_back_with_its_fic() {
        let (port, server) = serve_once(http("200 OK", accepted_invoice_body()));
        let outcome = client_for(port, "http").register_invoice(SOAP);
        let Outcome::Accepted(accepted) = outcome else {
            panic!("not accepted: {outcome:?}");
        };
        assert_eq!(accepted.fic, FIC);
        assert!(accepted.signature.is_verified());
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /FiscalizationService-v3 HTTP/1.1\r\n"));
        let lower = request.to_ascii_lowercase();
        assert!(lower.contains("\r\ncontent-type: text/xml; charset=utf-8\r\n"));
        assert!(
            request
                .contains("\"https://eFiskalizimi.tatime.gov.al/FiscalizationService/RegisterInvoice\"\r\n")
        );
        assert!(lower.contains("\r\nsoapaction: "));
        assert!(request.ends_with(SOAP));
    }

    #[test]
    fn a_fault_at_http_500_is_rejected() {
        let (port, server) = serve_once(http("500 Internal Server Error", validation_fault_body()));
        let outcome = client_for(port, "http").register_invoice(SOAP);
        let Outcome::Rejected(fault) = outcome else {
            panic!("not rejected: {outcome:?}");
        };
        assert_eq!(fault.code.as_deref(), Some("11"));
        server.join().unwrap();
    }

    #[test]
    fn einvoice_operations_go_to_the_einvoice_service() {
        let (port, server) = serve_once(http("500 Internal Server Error", validation_fault_body()));
        let outcome = client_for(port, "http").get_taxpayers(SOAP);
        assert!(matches!(outcome, Outcome::Rejected(_)), "{outcome:?}");
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /EinvoiceService-v1 HTTP/1.1\r\n"));
        assert!(request.contains("\"https://Einvoice.tatime.gov.al/EinvoiceService/GetTaxpayers\""));
    }

    #[test]
    fn garbage_with_200_is_not_delivered() {
        let (port, server) = serve_once(http("200 OK", "<<<this is not SOAP".to_string()));
        let outcome = client_for(port, "http").register_invoice(SOAP);
        assert!(matches!(outcome, Outcome::NotDelivered(NotDelivered::Unparseable(_))), "{outcome:?}");
        server.join().unwrap();
    }

    #[test]
    fn a_gateway_error_page_is_reported_with_its_status() {
        let page = "<html><body><h1>502 Bad Gateway</h1></body></html>".to_string();
        let (port, server) = serve_once(http("502 Bad Gateway", page));
        let outcome = client_for(port, "http").register_invoice(SOAP);
        let Outcome::NotDelivered(NotDelivered::HttpStatus { status, body_excerpt }) = outcome else {
            panic!("not an HTTP status: {outcome:?}");
        };
        assert_eq!(status, 502);
        assert!(body_excerpt.contains("Bad Gateway"));
        server.join().unwrap();
    }

    #[test]
    fn a_refused_connection_is_not_delivered() {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let outcome = client_for(port, "http").register_invoice(SOAP);
        assert!(matches!(outcome, Outcome::NotDelivered(NotDelivered::Connect(_))), "{outcome:?}");
    }

    #[test]
    fn a_slow_server_runs_into_the_time_limit() {
        let (port, server) = serve_once(Answer::SilenceFor(Duration::from_secs(3)));
        let started = Instant::now();
        let outcome = client_for(port, "http").register_invoice(SOAP);
        assert!(matches!(outcome, Outcome::NotDelivered(NotDelivered::Timeout(_))), "{outcome:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        server.join().unwrap();
    }

    /// A certificate for 127.0.0.1, as the simulator would serve.
    fn loopback_tls_identity() -> (Vec<u8>, Vec<u8>) {
        use openssl::asn1::Asn1Time;
        use openssl::hash::MessageDigest;
        use openssl::pkey::PKey;
        use openssl::rsa::Rsa;
        use openssl::x509::extension::SubjectAlternativeName;
        use openssl::x509::{X509, X509NameBuilder};
        let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "127.0.0.1").unwrap();
        let name = name.build();
        let mut builder = X509::builder().unwrap();
        builder.set_version(2).unwrap();
        builder.set_subject_name(&name).unwrap();
        builder.set_issuer_name(&name).unwrap();
        builder.set_pubkey(&key).unwrap();
        builder.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
        builder.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
        let san =
            SubjectAlternativeName::new().ip("127.0.0.1").build(&builder.x509v3_context(None, None)).unwrap();
        builder.append_extension(san).unwrap();
        builder.sign(&key, MessageDigest::sha256()).unwrap();
        let cert = builder.build();
        (cert.to_pem().unwrap(), key.private_key_to_pem_pkcs8().unwrap())
    }

    fn serve_tls_once(cert_pem: &[u8], key_pem: &[u8], body: String) -> (u16, JoinHandle<()>) {
        let identity = native_tls::Identity::from_pkcs8(cert_pem, key_pem).unwrap();
        let acceptor = native_tls::TlsAcceptor::new(identity).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = thread::spawn(move || {
            let (stream, _): (TcpStream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            // A client that rejects our certificate ends the handshake; that is the test.
            if let Ok(mut tls) = acceptor.accept(stream) {
                read_request(&mut tls);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                tls.write_all(reply.as_bytes()).unwrap();
                tls.shutdown().unwrap();
            }
        });
        (port, handle)
    }

    #[test]
    fn https_works_with_a_trusted_root_and_fails_without_it() {
        let (cert_pem, key_pem) = loopback_tls_identity();

        let (port, server) = serve_tls_once(&cert_pem, &key_pem, accepted_invoice_body());
        let mut config = CisConfig::new(Endpoint::Custom {
            fiscalization: format!("https://127.0.0.1:{port}/FiscalizationService-v3"),
            einvoice: format!("https://127.0.0.1:{port}/EinvoiceService-v1"),
        });
        config.trusted_roots_pem = Some(cert_pem.clone());
        let outcome = CisClient::new(config).unwrap().register_invoice(SOAP);
        assert!(matches!(outcome, Outcome::Accepted(_)), "{outcome:?}");
        server.join().unwrap();

        let (port, server) = serve_tls_once(&cert_pem, &key_pem, accepted_invoice_body());
        let outcome = client_for(port, "https").register_invoice(SOAP);
        assert!(matches!(outcome, Outcome::NotDelivered(NotDelivered::Connect(_))), "{outcome:?}");
        server.join().unwrap();
    }

    #[test]
    fn an_unreadable_trusted_root_is_refused() {
        let mut config = CisConfig::new(Endpoint::Test);
        config.trusted_roots_pem = Some(b"not a certificate".to_vec());
        assert!(matches!(CisClient::new(config), Err(Error::Certificate(_))));
    }

    #[test]
    fn presets_point_at_the_tax_authority() {
        assert_eq!(
            Endpoint::Test.url(Service::Fiscalization),
            "https://efiskalizimi-test.tatime.gov.al/FiscalizationService-v3"
        );
        assert_eq!(
            Endpoint::Test.url(Service::Einvoice),
            "https://einvoice-test.tatime.gov.al/EinvoiceService-v1"
        );
        assert_eq!(
            Endpoint::Production.url(Service::Fiscalization),
            "https://efiskalizimi.tatime.gov.al/FiscalizationService-v3"
        );
        let defaults = CisConfig::new(Endpoint::Production);
        assert_eq!(defaults.connect_timeout, Duration::from_secs(3));
        assert_eq!(defaults.call_timeout, Duration::from_secs(6));
    }
}
