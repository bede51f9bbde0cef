//! The one door to the CIS: signs a request with the company's certificate, wraps it in SOAP,
//! sends it and reads the answer. Blocking; callers run it on tokio's blocking pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::Utc;

use super::Error;
use super::certificate::Certificate;
use super::dsig;
use super::requests::soap_envelope;
use super::response::Outcome;
use super::transport::{CisClient, CisConfig};
use crate::secrets::KeyFile;
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

pub struct Gateway {
    client: CisClient,
    codes: SoftwareCodes,
    store: Store,
    key_file: Arc<KeyFile>,
    /// Decrypted certificates by their row id: a new upload gets a new id, so no invalidation.
    certificates: Mutex<HashMap<i64, Arc<Certificate>>>,
}

impl Gateway {
    pub fn new(
        config: CisConfig,
        codes: SoftwareCodes,
        store: Store,
        key_file: Arc<KeyFile>,
    ) -> Result<Self, Error> {
        Ok(Gateway {
            client: CisClient::new(config)?,
            codes,
            store,
            key_file,
            certificates: Mutex::new(HashMap::new()),
        })
    }

    pub fn codes(&self) -> &SoftwareCodes {
        &self.codes
    }

    /// The certificate the company signs with now; refused when missing or expired.
    pub fn certificate(&self, company_id: i64) -> Result<Arc<Certificate>, Error> {
        let stored = self
            .store
            .read_blocking(|conn| accounts::current_certificate(conn, company_id))
            .map_err(|e| Error::Store(e.to_string()))?
            .ok_or(Error::NoCertificate)?;
        let cached = self.certificates.lock().ok().and_then(|c| c.get(&stored.id).cloned());
        let certificate = match cached {
            Some(c) => c,
            None => {
                let key = self.key_file.open(&stored.key_sealed).map_err(|e| Error::Crypto(e.to_string()))?;
                let certificate = Arc::new(Certificate::from_der_parts(&key, &stored.cert_der)?);
                if certificate.expires_within(Utc::now(), chrono::Duration::days(CERTIFICATE_WARNING_DAYS)) {
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
        certificate.ensure_valid_at(Utc::now())?;
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
        Ok(read(&self.client, &soap_envelope(&signed)))
    }
}
