//! The one door to the CIS: signs a request with the company's certificate, wraps it in SOAP,
//! sends it and reads the answer. Blocking; callers run it on tokio's blocking pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use super::Error;
use super::certificate::Certificate;
use super::delivery::{Delivery, subseq_for};
use super::dsig;
use super::model::SubseqDelivType;
use super::requests::{Operation, Service, soap_envelope};
use super::response::Outcome;
use super::transport::{CisClient, CisConfig};
use crate::domain::time::WallClock;
use crate::ops::metrics;
use crate::ops::secrets::KeyFile;
use crate::store::{Store, accounts};

/// Codes the tax administration issues to the software maker, sent in every document.
#[derive(Debug, Clone)]
pub struct SoftwareCodes {
    /// None until configured: nothing can be fiscalized without it.
    pub soft_code: Option<String>,
    pub maintainer_code: Option<String>,
}

/// How close to its end a certificate is called out in logs and in GET /account.
pub const CERTIFICATE_WARNING_DAYS: i64 = 30;

/// Whether documents go to the CIS or straight to the late-delivery queue. It opens when a call
/// gets no answer or the CIS answers with a fault of its own, so a POS never waits a timeout per
/// receipt while the CIS is away, and closes as soon as any call (the queue worker's retries and
/// its probe included) gets an answer again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breaker {
    Closed,
    Open {
        since: DateTime<Utc>,
        reason: String,
        /// The late-delivery type of documents saved while it is open.
        subseq: SubseqDelivType,
    },
}

pub struct Gateway {
    client: CisClient,
    breaker: Mutex<Breaker>,
    codes: SoftwareCodes,
    store: Store,
    key_file: Arc<KeyFile>,
    /// Decrypted certificates by their row id: a new upload gets a new id, so no invalidation.
    certificates: Mutex<HashMap<i64, Arc<Certificate>>>,
    /// Each company's current certificate, so that issuing reads neither the database nor the
    /// key file; forgotten when the company uploads a new one (`certificate_changed`).
    current: Mutex<Current>,
    clock: WallClock,
}

/// Known current certificates, and how many times each company's changed: a load that read the
/// database before a change is not kept.
#[derive(Default)]
struct Current {
    known: HashMap<i64, Arc<Certificate>>,
    changes: HashMap<i64, u64>,
}

impl Gateway {
    pub fn new(
        config: CisConfig,
        codes: SoftwareCodes,
        store: Store,
        key_file: Arc<KeyFile>,
        clock: WallClock,
    ) -> Result<Self, Error> {
        Ok(Gateway {
            client: CisClient::new(config)?,
            breaker: Mutex::new(Breaker::Closed),
            codes,
            store,
            key_file,
            certificates: Mutex::new(HashMap::new()),
            current: Mutex::new(Current::default()),
            clock,
        })
    }

    /// The time certificates and the breaker are judged by.
    pub fn clock(&self) -> &WallClock {
        &self.clock
    }

    pub fn codes(&self) -> &SoftwareCodes {
        &self.codes
    }

    pub fn breaker(&self) -> Breaker {
        self.lock_breaker().clone()
    }

    pub fn breaker_open(&self) -> bool {
        matches!(self.breaker(), Breaker::Open { .. })
    }

    fn lock_breaker(&self) -> std::sync::MutexGuard<'_, Breaker> {
        match self.breaker.lock() {
            Ok(b) => b,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn note<T>(&self, outcome: &Outcome<T>) {
        let trouble = match outcome {
            Outcome::NotDelivered(reason) => Some((format!("{reason:?}"), subseq_for(reason))),
            Outcome::Rejected(fault) if fault.blames_the_cis() => Some((
                format!(
                    "the CIS answered with its own fault [{}] {}",
                    fault.code.as_deref().unwrap_or("?"),
                    fault.faultstring
                ),
                SubseqDelivType::Service,
            )),
            Outcome::Accepted(_) | Outcome::Rejected(_) => None,
        };
        let mut breaker = self.lock_breaker();
        match (trouble, &*breaker) {
            (Some((reason, subseq)), Breaker::Closed) => {
                tracing::warn!(%reason, "the CIS is not usable: new documents go to the late-delivery queue");
                *breaker = Breaker::Open { since: self.clock.utc(), reason, subseq };
            }
            (None, Breaker::Open { .. }) => {
                tracing::info!("the CIS answers again: documents go to it directly");
                *breaker = Breaker::Closed;
            }
            _ => {}
        }
    }

    /// While the breaker is open: asks the CIS for a sign of life (its WSDL) and closes the
    /// breaker when it answers. Returns whether the breaker is closed afterwards.
    pub fn probe(&self) -> bool {
        if !self.breaker_open() {
            return true;
        }
        match self.client.probe() {
            Ok(()) => {
                let mut breaker = self.lock_breaker();
                if matches!(*breaker, Breaker::Open { .. }) {
                    tracing::info!("the CIS answers the probe again: documents go to it directly");
                    *breaker = Breaker::Closed;
                }
                true
            }
            Err(reason) => {
                tracing::debug!(?reason, "the CIS does not answer the probe yet");
                false
            }
        }
    }

    /// The company's current certificate when it is already known: no database, no key file,
    /// no blocking. Refused when expired; None when it must be loaded (`certificate`).
    pub fn known_certificate(&self, company_id: i64) -> Option<Result<Arc<Certificate>, Error>> {
        let known = self.lock_current().known.get(&company_id).cloned()?;
        Some(known.ensure_valid_at(self.clock.utc()).map(|()| known))
    }

    /// The company uploaded a new certificate: the next document loads it.
    pub fn certificate_changed(&self, company_id: i64) {
        let mut current = self.lock_current();
        current.known.remove(&company_id);
        *current.changes.entry(company_id).or_default() += 1;
    }

    fn lock_current(&self) -> std::sync::MutexGuard<'_, Current> {
        match self.current.lock() {
            Ok(current) => current,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The certificate the company signs with now; refused when missing or expired.
    pub fn certificate(&self, company_id: i64) -> Result<Arc<Certificate>, Error> {
        if let Some(known) = self.known_certificate(company_id) {
            return known;
        }
        self.store.read_blocking(|conn| Ok(self.certificate_on(conn, company_id)))?
    }

    /// `certificate`, its row read on `conn`: inside a read the caller takes anyway (a sale's
    /// snapshot), not one of its own.
    pub fn certificate_on(
        &self,
        conn: &rusqlite::Connection,
        company_id: i64,
    ) -> Result<Arc<Certificate>, Error> {
        if let Some(known) = self.known_certificate(company_id) {
            return known;
        }
        let changes = self.lock_current().changes.get(&company_id).copied();
        let stored = accounts::current_certificate(conn, company_id)?.ok_or(Error::NoCertificate)?;
        let cached = self.certificates.lock().ok().and_then(|c| c.get(&stored.id).cloned());
        let certificate = match cached {
            Some(c) => c,
            None => {
                let key = self.key_file.open(&stored.key_sealed)?;
                let certificate = Arc::new(Certificate::from_der_parts(&key, &stored.cert_der)?);
                if certificate
                    .expires_within(self.clock.utc(), chrono::Duration::days(CERTIFICATE_WARNING_DAYS))
                {
                    tracing::warn!(
                        company = company_id,
                        expires = %certificate.valid_to(),
                        "the signing certificate expires soon: upload a new one"
                    );
                }
                if let Ok(mut cache) = self.certificates.lock() {
                    cache.insert(stored.id, certificate.clone());
                }
                certificate
            }
        };
        certificate.ensure_valid_at(self.clock.utc())?;
        let mut current = self.lock_current();
        if current.changes.get(&company_id).copied() == changes {
            current.known.insert(company_id, certificate.clone());
        }
        Ok(certificate)
    }

    /// Signs `unsigned` (a request element in canonical form) with `certificate` and sends it;
    /// `read` is the typed call of `CisClient` for this operation.
    pub fn send<T>(
        &self,
        certificate: &Certificate,
        unsigned: &str,
        read: impl FnOnce(&CisClient, &str) -> Outcome<T>,
    ) -> Result<Outcome<T>, Error> {
        let signed = dsig::sign_enveloped(unsigned, certificate)?;
        Ok(self.send_envelope(metrics::request_root(unsigned), &soap_envelope(&signed), read))
    }

    /// Sends a request signed and wrapped beforehand; `root` is its root element's name.
    fn send_envelope<T>(
        &self,
        root: &str,
        envelope: &str,
        read: impl FnOnce(&CisClient, &str) -> Outcome<T>,
    ) -> Outcome<T> {
        let started = std::time::Instant::now();
        let outcome = read(&self.client, envelope);
        let counted = match &outcome {
            Outcome::Accepted(_) => metrics::Delivery::Accepted,
            Outcome::Rejected(_) => metrics::Delivery::Rejected,
            Outcome::NotDelivered(_) => metrics::Delivery::NotDelivered,
        };
        metrics::cis_call(root, counted, started.elapsed());
        // The breaker speaks for the fiscalization service: the e-invoice platform being away
        // must not send cash sales to the late-delivery queue.
        if Operation::from_request_root(root).is_none_or(|op| op.service() == Service::Fiscalization) {
            self.note(&outcome);
        }
        outcome
    }

    /// Signs and sends a document's registration (`operation` names which) and reads what it
    /// came to.
    pub fn deliver(
        &self,
        certificate: &Certificate,
        operation: Operation,
        unsigned: &str,
    ) -> Result<Delivery, Error> {
        Ok(self.deliver_signed(&SignedRegistration::sign(certificate, operation, unsigned)?))
    }

    /// Sends a registration signed beforehand and reads what it came to.
    pub fn deliver_signed(&self, signed: &SignedRegistration) -> Delivery {
        let SignedRegistration { operation, envelope } = signed;
        let root = operation.request_root();
        let outcome = match operation {
            Operation::RegisterInvoice => {
                self.send_envelope(root, envelope, |c, b| c.register_invoice(b)).map(|a| a.fic)
            }
            Operation::RegisterCashDeposit => {
                self.send_envelope(root, envelope, |c, b| c.register_cash_deposit(b)).map(|a| a.fcdc)
            }
            Operation::RegisterWtn => {
                self.send_envelope(root, envelope, |c, b| c.register_wtn(b)).map(|a| a.fwtnic)
            }
            // RegisterEinvoice: `sign` lets no other operation through.
            _ => self.send_envelope(root, envelope, |c, b| c.register_einvoice(b)).map(|a| a.eic),
        };
        Delivery::of(outcome)
    }
}

/// A document's registration, signed and in its SOAP envelope: signed while the disk makes the
/// document durable, sent once it is.
pub struct SignedRegistration {
    operation: Operation,
    envelope: String,
}

impl SignedRegistration {
    /// The SOAP envelope with the signed request, as it goes to the CIS.
    pub fn envelope(&self) -> &str {
        &self.envelope
    }

    /// Signs `unsigned`, the registration `operation` names; refused for an operation that
    /// registers no document.
    pub fn sign(certificate: &Certificate, operation: Operation, unsigned: &str) -> Result<Self, Error> {
        if !matches!(
            operation,
            Operation::RegisterInvoice
                | Operation::RegisterCashDeposit
                | Operation::RegisterWtn
                | Operation::RegisterEinvoice
        ) {
            return Err(Error::Xml(format!("{} registers no document", operation.request_root())));
        }
        let signed = dsig::sign_enveloped(unsigned, certificate)?;
        Ok(SignedRegistration { operation, envelope: soap_envelope(&signed) })
    }
}
