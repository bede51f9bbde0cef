//! Exchange rates from the sources' public pages: fetched with ureq (native-tls) from addresses
//! the owner can change, each page read by its own parser behind `RatePage`.

mod adon;
mod bkt;
mod boa;
mod counter;
pub mod html;
mod iliria98;

use std::fmt;
use std::time::Duration;

use chrono::NaiveDate;
use ureq::Agent;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

use crate::domain::currency::{Quote, Source};

/// Why a source's rates could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// No answer: the box is offline, the name does not resolve, the site is down or too slow.
    Unreachable(String),
    /// The site answered with an HTTP error status.
    Status(u16),
    /// The page came, but no rates could be read from it (it moved or changed its layout).
    Unreadable(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unreachable(why) => write!(f, "unreachable: {why}"),
            Error::Status(status) => write!(f, "the page answered HTTP {status}"),
            Error::Unreadable(why) => write!(f, "unreadable: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// Reads one source's page.
pub trait RatePage: Sync {
    fn source(&self) -> Source;

    /// The quotes on `page`; `today` is the day of a quote the page does not date.
    fn read(&self, page: &str, today: NaiveDate) -> Result<Vec<Quote>, Error>;
}

/// The parser of `source`'s page.
pub fn page_reader(source: Source) -> &'static dyn RatePage {
    match source {
        Source::Boa => &boa::Boa,
        Source::Bkt => &bkt::Bkt,
        Source::Iliria98 => &iliria98::Iliria98,
        Source::Adon => &adon::Adon,
    }
}

/// Largest page read; the real ones are a few hundred kilobytes.
const MAX_PAGE_BYTES: u64 = 4 * 1024 * 1024;

/// Where each source's page is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceUrls {
    pub boa: String,
    pub bkt: String,
    pub iliria98: String,
    pub adon: String,
}

impl SourceUrls {
    pub fn of(&self, source: Source) -> &str {
        match source {
            Source::Boa => &self.boa,
            Source::Bkt => &self.bkt,
            Source::Iliria98 => &self.iliria98,
            Source::Adon => &self.adon,
        }
    }
}

/// Fetches and reads the sources' pages. Blocking: run it off the async threads.
#[derive(Debug)]
pub struct Fetcher {
    agent: Agent,
    urls: SourceUrls,
}

impl Fetcher {
    /// `timeout` bounds a whole fetch, so a POS never waits longer for a bank's site.
    pub fn new(urls: SourceUrls, timeout: Duration) -> Fetcher {
        let tls = TlsConfig::builder()
            .provider(TlsProvider::NativeTls)
            .root_certs(RootCerts::PlatformVerifier)
            .build();
        let agent: Agent = Agent::config_builder()
            .tls_config(tls)
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(concat!("Arka/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Fetcher { agent, urls }
    }

    /// The quotes on `source`'s page now.
    pub fn fetch(&self, source: Source, today: NaiveDate) -> Result<Vec<Quote>, Error> {
        let url = self.urls.of(source);
        let mut response = self.agent.get(url).call().map_err(|e| Error::Unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(Error::Status(status));
        }
        let bytes = response
            .body_mut()
            .with_config()
            .limit(MAX_PAGE_BYTES)
            .read_to_vec()
            .map_err(|e| Error::Unreachable(e.to_string()))?;
        page_reader(source).read(&String::from_utf8_lossy(&bytes), today)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_has_its_own_reader() {
        for source in Source::ALL {
            assert_eq!(page_reader(source).source(), source);
        }
    }

    #[test]
    fn an_address_nobody_listens_on_is_unreachable() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", closed.local_addr().unwrap());
        drop(closed);
        let urls = SourceUrls { boa: url.clone(), bkt: url.clone(), iliria98: url.clone(), adon: url };
        let fetcher = Fetcher::new(urls, Duration::from_secs(2));
        let today = "2026-11-23".parse().unwrap();
        assert!(matches!(fetcher.fetch(Source::Boa, today), Err(Error::Unreachable(_))));
    }
}
