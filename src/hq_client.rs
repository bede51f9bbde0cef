//! A shop's HTTPS client of its head office (ureq with native-tls, as the CIS client): the shop
//! always calls, so a shop behind NAT needs no open port. Blocking: run it off the async threads.

use std::time::Duration;

use ureq::Agent;
use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};

use arka_core::wire::{
    Acked, BOX_HEADER, Batch, CentralProduct, HEARTBEAT_PATH, Heartbeat, NONCASH_PATH, NONCASH_RELEASE_PATH,
    NumberAsk, NumberGiven, PRODUCTS_PATH, ROWS_PATH, RowsPage, SYNC_PATH, TAKE_OVER_PATH,
};

/// The longest answer read from the HQ (a page of rows for a restore is the largest).
const MAX_REPLY_BYTES: u64 = 64 * 1024 * 1024;

/// Why a call to the HQ did not give an answer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not reached, or no answer in time.
    #[error("the HQ is not reachable: {0}")]
    Unreachable(String),
    /// It answered with another status than 200 (401: the shop's token is not the HQ's).
    #[error("the HQ answered {status}: {body}")]
    Refused { status: u16, body: String },
    /// It answered 200 with a body that is not what was asked for.
    #[error("the HQ's answer is not understood: {0}")]
    Reply(String),
    /// The CA file of `--hq-ca-file` could not be read.
    #[error("the HQ's CA file: {0}")]
    Ca(String),
}

pub struct HqClient {
    base: String,
    token: String,
    /// This box's identity, named in every call (`BOX_HEADER`).
    box_id: String,
    agent: Agent,
}

impl Error {
    /// The place in a batch of the entry the HQ refused (`entries.N.…` of its 422), if that is
    /// what it refused.
    pub fn refused_entry(&self) -> Option<(usize, String)> {
        let Error::Refused { status: 422, body } = self else { return None };
        let reply: serde_json::Value = serde_json::from_str(body).ok()?;
        let (field, messages) = reply.get("errors")?.as_object()?.iter().next()?;
        let place = field.strip_prefix("entries.")?.split('.').next()?.parse().ok()?;
        let message = messages.get(0).and_then(serde_json::Value::as_str).unwrap_or_default();
        Some((place, format!("{field}: {message}")))
    }

    /// The HQ's own words when it refused (its `message`), else what failed.
    pub fn message(&self) -> String {
        match self {
            Error::Refused { body, .. } => serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("message").and_then(serde_json::Value::as_str).map(str::to_string))
                .unwrap_or_else(|| self.to_string()),
            _ => self.to_string(),
        }
    }
}

impl HqClient {
    /// `base` is the HQ's address (`https://hq.example:8443`); `ca_pem` replaces the system's
    /// roots when the HQ's certificate is the chain's own.
    pub fn new(
        base: &str,
        token: &str,
        box_id: &str,
        ca_pem: Option<&[u8]>,
        timeout: Duration,
    ) -> Result<HqClient, Error> {
        let roots = match ca_pem {
            Some(pem) => {
                let certificates = pem_certificates(pem)?;
                RootCerts::new_with_certs(&certificates)
            }
            None => RootCerts::PlatformVerifier,
        };
        let tls = TlsConfig::builder().provider(TlsProvider::NativeTls).root_certs(roots).build();
        let agent = Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(timeout.min(Duration::from_secs(5))))
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        Ok(HqClient {
            base: base.trim().trim_end_matches('/').to_string(),
            token: token.to_string(),
            box_id: box_id.to_string(),
            agent,
        })
    }

    fn answer<T: serde::de::DeserializeOwned>(
        result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<T, Error> {
        let mut response = result.map_err(|e| Error::Unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY_BYTES)
            .read_to_string()
            .map_err(|e| Error::Unreachable(e.to_string()))?;
        if status != 200 {
            return Err(Error::Refused { status, body: body.chars().take(300).collect() });
        }
        serde_json::from_str(&body).map_err(|e| Error::Reply(e.to_string()))
    }

    /// Ships a batch; the HQ answers the highest sequence it holds of this shop.
    pub fn ship(&self, batch: &Batch) -> Result<Acked, Error> {
        self.post(SYNC_PATH, batch)
    }

    fn post<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, Error> {
        let body = serde_json::to_vec(body).map_err(|e| Error::Reply(e.to_string()))?;
        let sent = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {}", self.token))
            .header(BOX_HEADER, &self.box_id)
            .content_type("application/json")
            .send(&body[..]);
        Self::answer(sent)
    }

    /// The shop is alive, and what waits at it.
    pub fn heartbeat(&self, said: &Heartbeat) -> Result<Acked, Error> {
        self.post(HEARTBEAT_PATH, said)
    }

    /// This box (restored from the HQ) takes the shop over: the box before it is refused from now on.
    pub fn take_over(&self) -> Result<Acked, Error> {
        self.post(TAKE_OVER_PATH, &serde_json::json!({}))
    }

    /// The business's next non-cash number, from the chain's one sequence.
    pub fn reserve_noncash(&self, ask: &NumberAsk) -> Result<NumberGiven, Error> {
        self.post(NONCASH_PATH, ask)
    }

    /// Gives a reserved non-cash number back: its document was not written.
    pub fn release_noncash(&self, ask: &NumberAsk) -> Result<serde_json::Value, Error> {
        self.post(NONCASH_RELEASE_PATH, ask)
    }

    /// The products of `nuis` set at the HQ and changed after `after`, oldest change first.
    pub fn central_products(&self, nuis: &str, after: i64) -> Result<Vec<CentralProduct>, Error> {
        let sent = self
            .agent
            .get(format!("{}{PRODUCTS_PATH}", self.base))
            .header("Authorization", format!("Bearer {}", self.token))
            .header(BOX_HEADER, &self.box_id)
            .query("nuis", nuis)
            .query("after", after.to_string())
            .call();
        Self::answer(sent)
    }

    /// The highest sequence the HQ holds of this shop.
    pub fn acked(&self) -> Result<Acked, Error> {
        let sent = self
            .agent
            .get(format!("{}{SYNC_PATH}", self.base))
            .header("Authorization", format!("Bearer {}", self.token))
            .header(BOX_HEADER, &self.box_id)
            .call();
        Self::answer(sent)
    }

    /// A page of this shop's rows of `table` as the HQ holds them, after the key `after`.
    pub fn rows(&self, table: &str, after: Option<&str>) -> Result<RowsPage, Error> {
        let mut request = self
            .agent
            .get(format!("{}{ROWS_PATH}", self.base))
            .header("Authorization", format!("Bearer {}", self.token))
            .header(BOX_HEADER, &self.box_id)
            .query("table", table);
        if let Some(after) = after {
            request = request.query("after", after);
        }
        Self::answer(request.call())
    }
}

fn pem_certificates(pem: &[u8]) -> Result<Vec<Certificate<'static>>, Error> {
    let certs = openssl::x509::X509::stack_from_pem(pem).map_err(|e| Error::Ca(e.to_string()))?;
    if certs.is_empty() {
        return Err(Error::Ca("no certificate in it".to_string()));
    }
    certs
        .iter()
        .map(|cert| {
            let der = cert.to_der().map_err(|e| Error::Ca(e.to_string()))?;
            Ok(Certificate::from_der(&der).to_owned())
        })
        .collect()
}
