//! A CIS simulator: the tax administration's two SOAP services on one HTTP listener, checking
//! what a client sends as the real CIS does (schema, XML signature, NUIS of the certificate,
//! totals, TCRs, duplicates) and answering with signed responses or SOAP faults. `arka serve
//! --sandbox` runs it in-process on loopback; the tests run it on `127.0.0.1:0`.
//!
//! # Services
//!
//! * `POST /FiscalizationService-v3`: RegisterInvoice, RegisterTCR, RegisterCashDeposit,
//!   RegisterWTN. `POST /EinvoiceService-v1`: RegisterEinvoice, GetTaxpayers, GetEinvoices,
//!   EinvoiceChangeStatus. Dispatch is on the body's root element; SOAPAction is not needed.
//! * `GET /FiscalizationService-v3/FiscalizationService.wsdl` (or `?wsdl`),
//!   `GET /EinvoiceService-v1/EinvoiceService.wsdl` (or `?wsdl`), and the schemas beside them
//!   (`alimc-fiscalization-service.xsd`, `alimc-einvoice-service.xsd`,
//!   `xmldsig-core-schema.xsd`); the WSDLs' `soap:address` points at the simulator.
//! * Fault codes are listed in `operations.rs`. With `SimConfig::strict_iic` the IIC and WTNIC
//!   are verified against the signing certificate; otherwise only their format is checked.
//!
//! # Control API (JSON, same listener)
//!
//! * `GET /control`: the fiscalization service's mode, `{"mode": "ok", "delay_ms": null,
//!   "fault_code": null}`; `GET /control?service=einvoice` the e-invoice service's.
//! * `POST /control` with `{"mode": "ok"|"down"|"slow"|"fault"|"garbage", "delay_ms"?: n,
//!   "fault_code"?: "…", "service"?: "fiscalization"|"einvoice", "operation"?:
//!   "RegisterEinvoice"|…}`: how SOAP requests are answered from now on, for the one
//!   operation named (`ok` ends its own mode), or the one service, or both (which also ends
//!   every operation's own mode).
//!   * `ok`: checked and answered as the CIS would.
//!   * `down`: the connection is closed without an answer. The request is read first (and logged
//!     as `dropped`), then the HTTP service returns an error, on which hyper closes the socket
//!     without writing a response. Because this happens per request rather than per accepted
//!     connection, it also catches a client reusing a kept-alive connection, and the control
//!     paths, answered before the mode is looked at, keep working. WSDL requests are dropped too.
//!   * `slow`: the request is processed (and registered) at once, the answer leaves after
//!     `delay_ms` (default 10 000, at most 600 000): a client that gives up earlier has to
//!     re-send, and its re-send shows up as a duplicate.
//!   * `fault`: every request gets a SOAP fault with `fault_code` (default `11`; codes 9xx are
//!     `env:Server`, the rest `env:Client`), after `delay_ms` when given. Nothing is registered.
//!   * `garbage`: HTTP 200 with a body that is not XML. Nothing is registered.
//! * `GET /control/requests`: every SOAP request received, oldest first (the newest 10 000):
//!   `[{"operation": "RegisterInvoice", "uuid", "subseq_deliv_type", "iic", "tcr_code",
//!   "signature_verified": true, "outcome": "accepted"|"fault"|"dropped"|"garbage",
//!   "fault_code", "fault_string", "duplicate": false, "received_at", "body"}]`. `iic` holds
//!   the WTNIC of a WTN; `body` (the SOAP request as received) is kept for the newest 200.
//! * `DELETE /control/requests`: clears that log, answers `{"cleared": n}`.
//! * `GET /control/registered`: `{"tcrs": [...], "invoices": [...], "cash_deposits": [...],
//!   "wtns": [...], "einvoices": [...]}`; invoices, deposits and WTNs carry `deliveries`, the
//!   number of times the same message arrived; invoices also `pay_methods`, `corrects` and
//!   `corrective_type` (a CorrectiveInv), `sum_inv_iic_refs` (a summary's orders) and
//!   `settled_by` (on an order, the IIC of the summary that paid the last of it).
//! * `POST /control/einvoices` with `{"buyer_nuis", "seller_nuis", "seller_name"?,
//!   "doc_number", "doc_type"? (380), "amount", "currency"? (ALL), "received_at"? (now),
//!   "due_date"? (30 days on), "status"? (DELIVERED), "eic"? (a new one)}`: an e-invoice a
//!   supplier sent to `buyer_nuis`, found by the buyer's GetEinvoices; 201 with what is held,
//!   400 `{message}` when a field is wrong.
//!
//! # E-invoices
//!
//! RegisterEinvoice takes a UBL document (or CII) signed as a whole with the request's own
//! certificate (checked as `dsig::verify_document` does), whose `IIC=…#AAI#` and `FIC=…#AAI#`
//! notes name an invoice this simulator fiscalized for the document's seller; it answers an
//! EIC (the same one again for the same request UUID). A new e-invoice is `DELIVERED`; the
//! buyer moves it with EinvoiceChangeStatus. GetEinvoices lists the caller's e-invoices as
//! BUYER or SELLER with the platform's `SellerTin` (beyond the 2020 schema, as the live
//! platform answers) and, asked for one EIC, its PDF.

mod operations;
mod rules;
mod server;
mod state;
mod xsd;

use std::future::Future;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use chrono::Duration;
use tokio::net::TcpListener;

use crate::fiscal;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::transport::Endpoint;
use crate::sim::http::SimHandle;

pub use state::{
    CashDepositRecord, InvoiceRecord, Mode, ModeSetting, Registry, RequestOutcome, RequestRecord,
    SeedEinvoice, SimService, StoredEinvoice, TcrRecord, WtnRecord, sandbox_incoming,
};

/// A WSDL or schema of `assets/cis/` the simulator serves, embedded by `build.rs` as raw DEFLATE
/// (a fifth of its size in the binary) and inflated at its first request.
struct Packed {
    deflated: &'static [u8],
    text: OnceLock<String>,
}

impl Packed {
    const fn new(deflated: &'static [u8]) -> Self {
        Self { deflated, text: OnceLock::new() }
    }

    /// The text; empty if it would not inflate (a test inflates every one).
    fn text(&'static self) -> &'static str {
        self.text.get_or_init(|| {
            let mut text = String::new();
            match flate2::read::DeflateDecoder::new(self.deflated).read_to_string(&mut text) {
                Ok(_) => text,
                Err(_) => String::new(),
            }
        })
    }
}

macro_rules! packed {
    ($name:literal) => {
        Packed::new(include_bytes!(concat!(env!("OUT_DIR"), "/cis/", $name, ".deflate")))
    };
}

static FISCALIZATION_WSDL: Packed = packed!("FiscalizationService.wsdl");
static EINVOICE_WSDL: Packed = packed!("EinvoiceService.wsdl");
static FISCALIZATION_XSD: Packed = packed!("alimc-fiscalization-service.xsd");
static EINVOICE_XSD: Packed = packed!("alimc-einvoice-service.xsd");
static XMLDSIG_XSD: Packed = packed!("xmldsig-core-schema.xsd");

/// Path of the fiscalization service.
pub const FISCALIZATION_PATH: &str = "/FiscalizationService-v3";
/// Path of the e-invoice service.
pub const EINVOICE_PATH: &str = "/EinvoiceService-v1";

/// Why the simulator could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Its own signing certificate could not be made.
    #[error("CIS simulator certificate: {0}")]
    Certificate(#[source] fiscal::Error),
    /// A setting is unusable (a seeded TCR with a malformed code, say).
    #[error("CIS simulator configuration: {0}")]
    Config(String),
    #[error("CIS simulator: {0}")]
    Io(#[source] std::io::Error),
}

/// A TCR the simulator treats as registered from the start. The simulator forgets everything
/// when it stops; the sandbox hands back the TCRs its store already knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownTcr {
    pub tcr_code: String,
    pub issuer_nuis: String,
    pub busin_unit_code: String,
}

#[derive(Debug, Clone, Default)]
pub struct SimConfig {
    /// Recompute each IIC (and WTNIC) and verify it against the signing certificate. The real
    /// CIS is not known to do this (PROTOCOL.md section 5), so it is off by default.
    pub strict_iic: bool,
    /// TCRs registered before the simulator started.
    pub tcrs: Vec<KnownTcr>,
}

/// The simulator's state, shared by every connection.
#[derive(Debug)]
struct Inner {
    config: SimConfig,
    /// Signs the simulator's answers, as the CIS signs its own.
    certificate: Certificate,
    state: Mutex<state::State>,
}

impl Inner {
    fn state(&self) -> std::sync::MutexGuard<'_, state::State> {
        // A panicking request must not take the simulator down; each request leaves the state
        // consistent before it could panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A CIS simulator; cheap to clone, every clone is the same simulator.
#[derive(Debug, Clone)]
pub struct CisSim {
    inner: Arc<Inner>,
}

impl CisSim {
    /// Makes the simulator's own certificate (RSA-2048, self-signed) and its empty registry.
    pub fn new(config: SimConfig) -> Result<Self, Error> {
        let certificate = Certificate::generate_self_signed(
            "CIS",
            "Drejtoria e Pergjithshme e Tatimeve (simulator)",
            Duration::days(3650),
        )
        .map_err(Error::Certificate)?;
        let mut state = state::State::new();
        for tcr in &config.tcrs {
            if !xsd::is_registration_code(&tcr.tcr_code)
                || !xsd::is_registration_code(&tcr.busin_unit_code)
                || !xsd::is_nuis(&tcr.issuer_nuis)
            {
                return Err(Error::Config(format!("malformed TCR {tcr:?}")));
            }
            state.registry.tcrs.push(TcrRecord {
                tcr_code: tcr.tcr_code.clone(),
                issuer_nuis: tcr.issuer_nuis.clone(),
                busin_unit_code: tcr.busin_unit_code.clone(),
                tcr_int_id: None,
                soft_code: None,
                tcr_type: None,
                request_uuid: None,
            });
            state.remember_taxpayer(&tcr.issuer_nuis, None);
        }
        Ok(CisSim { inner: Arc::new(Inner { config, certificate, state: Mutex::new(state) }) })
    }

    /// Serves both services and the control API on `listener` until `shutdown` completes;
    /// open connections are then closed.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        server::serve(self.inner, listener, shutdown).await
    }

    /// The simulator's certificate in DER, to check its answers' signatures against.
    pub fn certificate_der(&self) -> Vec<u8> {
        self.inner.certificate.cert_der().to_vec()
    }

    /// What `POST /control` sets.
    pub fn set_mode(&self, setting: ModeSetting) {
        self.inner.state().set_mode(setting.normalized());
    }

    /// What `POST /control/einvoices` does: holds an e-invoice a supplier sent to a buyer.
    pub fn seed_einvoice(&self, seed: SeedEinvoice) -> Result<StoredEinvoice, Error> {
        self.inner.state().seed(seed, chrono::Utc::now()).map_err(Error::Config)
    }

    /// What `GET /control/requests` lists.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.inner.state().log.iter().cloned().collect()
    }

    /// What `GET /control/registered` lists.
    pub fn registered(&self) -> Registry {
        self.inner.state().registry.clone()
    }
}

/// `http://ADDR/FiscalizationService-v3`
pub fn fiscalization_url(addr: SocketAddr) -> String {
    format!("http://{addr}{FISCALIZATION_PATH}")
}

/// `http://ADDR/EinvoiceService-v1`
pub fn einvoice_url(addr: SocketAddr) -> String {
    format!("http://{addr}{EINVOICE_PATH}")
}

/// The client endpoint for a simulator listening on `addr`.
pub fn endpoint(addr: SocketAddr) -> Endpoint {
    Endpoint::Custom { fiscalization: fiscalization_url(addr), einvoice: einvoice_url(addr) }
}

/// Starts a simulator on `127.0.0.1` on a free port, served by a task of the current tokio
/// runtime.
pub async fn spawn_loopback(config: SimConfig) -> Result<(SocketAddr, CisSimHandle), Error> {
    let sim = CisSim::new(config)?;
    let handle = SimHandle::spawn(sim, |sim, listener, shutdown| sim.serve(listener, shutdown))
        .await
        .map_err(Error::Io)?;
    tracing::info!(addr = %handle.addr(), "CIS simulator listening");
    Ok((handle.addr(), handle))
}

/// A running loopback simulator; dropping it stops the simulator.
pub type CisSimHandle = SimHandle<CisSim>;

impl SimHandle<CisSim> {
    /// The client endpoint of this simulator.
    pub fn endpoint(&self) -> Endpoint {
        endpoint(self.addr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_schema_is_its_file_in_assets_byte_for_byte() {
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cis");
        for (name, packed) in [
            ("FiscalizationService.wsdl", &FISCALIZATION_WSDL),
            ("EinvoiceService.wsdl", &EINVOICE_WSDL),
            ("alimc-fiscalization-service.xsd", &FISCALIZATION_XSD),
            ("alimc-einvoice-service.xsd", &EINVOICE_XSD),
            ("xmldsig-core-schema.xsd", &XMLDSIG_XSD),
        ] {
            let file = std::fs::read_to_string(assets.join(name)).unwrap();
            assert_eq!(packed.text(), file, "{name}");
            assert!(packed.deflated.len() * 2 < file.len(), "{name} is embedded packed");
        }
    }
}
