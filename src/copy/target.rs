//! Where the copy goes: a folder (another disk, a network share mounted on the box) or an
//! S3-compatible bucket (any provider, a NAS that speaks it). Both hold the same objects under
//! the same names; each object is written whole or not at all (a folder's file is written under
//! another name and renamed, an S3 PUT is atomic).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusty_s3::{Bucket, Credentials, S3Action, UrlStyle};
use ureq::Agent;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

/// How long a signed request stays valid: longer than any call may take.
const SIGNED_FOR: Duration = Duration::from_secs(3600);
/// The largest object read back (a base part of `PART_BYTES`, sealed, with room to spare).
const MAX_OBJECT_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The folder's disk (or the share) is full.
    #[error("the copy's folder {0} is full")]
    Full(String),
    #[error("the copy's folder: {0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The bucket's server could not be reached, or did not answer in time.
    #[error("the bucket's server cannot be reached: {0}")]
    Unreachable(String),
    /// The bucket's server answered with an error (its status and S3 error code).
    #[error("the bucket answered {0}: {1}")]
    Refused(u16, String),
    #[error("the bucket's settings: {0}")]
    Settings(String),
}

impl Error {
    /// What the owner's page says of it, in a few words (the log has the whole text).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Full(_) => "full",
            Error::Io(..) => "io",
            Error::Unreachable(_) => "unreachable",
            Error::Refused(507, _) => "full",
            Error::Refused(401 | 403, _) => "denied",
            Error::Refused(..) => "refused",
            Error::Settings(_) => "settings",
        }
    }
}

/// An S3-compatible bucket and the keys to write to it.
#[derive(Debug, Clone)]
pub struct S3Settings {
    pub endpoint: String,
    pub bucket: String,
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    /// Objects' names start with this (`arka`), so one bucket may hold several shops.
    pub prefix: String,
    /// `https://host/bucket/key` (NAS, MinIO, most providers) rather than `https://bucket.host/key`.
    pub path_style: bool,
    pub timeout: Duration,
}

/// One place the copy is kept.
pub enum Target {
    Folder(PathBuf),
    S3(Box<S3>),
}

pub struct S3 {
    bucket: Bucket,
    credentials: Credentials,
    prefix: String,
    agent: Agent,
}

impl S3 {
    pub fn new(settings: &S3Settings) -> Result<S3, Error> {
        let endpoint =
            settings.endpoint.parse().map_err(|e| Error::Settings(format!("the endpoint: {e}")))?;
        let style = if settings.path_style { UrlStyle::Path } else { UrlStyle::VirtualHost };
        let bucket = Bucket::new(endpoint, style, settings.bucket.clone(), settings.region.clone())
            .map_err(|e| Error::Settings(e.to_string()))?;
        let tls = TlsConfig::builder()
            .provider(TlsProvider::NativeTls)
            .root_certs(RootCerts::PlatformVerifier)
            .build();
        let agent: Agent = Agent::config_builder()
            .tls_config(tls)
            .timeout_connect(Some(settings.timeout.min(Duration::from_secs(10))))
            .timeout_global(Some(settings.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("Arka/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let prefix = settings.prefix.trim_matches('/');
        Ok(S3 {
            bucket,
            credentials: Credentials::new(settings.access_key.clone(), settings.secret_key.clone()),
            prefix: if prefix.is_empty() { String::new() } else { format!("{prefix}/") },
            agent,
        })
    }

    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// The S3 error code of an error answer (`<Code>NoSuchBucket</Code>`), or its first bytes.
fn s3_code(body: &str) -> String {
    body.split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code.to_string())
        .unwrap_or_else(|| body.chars().take(120).collect())
}

fn answer(mut response: ureq::http::Response<ureq::Body>) -> Result<Option<Vec<u8>>, Error> {
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_OBJECT_BYTES)
        .read_to_vec()
        .map_err(|e| Error::Unreachable(e.to_string()))?;
    match status {
        200..300 => Ok(Some(body)),
        404 => Ok(None),
        _ => Err(Error::Refused(status, s3_code(&String::from_utf8_lossy(&body)))),
    }
}

impl Target {
    /// `folder` or `s3`: how the owner's page and the log name it.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Folder(_) => "folder",
            Target::S3(_) => "s3",
        }
    }

    /// Writes the object `name` whole.
    pub fn put(&self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        match self {
            Target::Folder(dir) => put_file(dir, name, bytes),
            Target::S3(s3) => {
                let url = s3.bucket.put_object(Some(&s3.credentials), &s3.key(name)).sign(SIGNED_FOR);
                let response =
                    s3.agent.put(url.as_str()).send(bytes).map_err(|e| Error::Unreachable(e.to_string()))?;
                answer(response)?.map(|_| ()).ok_or_else(|| Error::Refused(404, "NoSuchBucket".into()))
            }
        }
    }

    /// The object `name`, None when there is none.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        match self {
            Target::Folder(dir) => match std::fs::read(dir.join(name)) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(Error::Io(dir.join(name).display().to_string(), e)),
            },
            Target::S3(s3) => {
                let url = s3.bucket.get_object(Some(&s3.credentials), &s3.key(name)).sign(SIGNED_FOR);
                let response =
                    s3.agent.get(url.as_str()).call().map_err(|e| Error::Unreachable(e.to_string()))?;
                answer(response)
            }
        }
    }

    /// Whether the object `name` is there.
    pub fn exists(&self, name: &str) -> Result<bool, Error> {
        match self {
            Target::Folder(dir) => Ok(dir.join(name).is_file()),
            Target::S3(s3) => {
                let url = s3.bucket.head_object(Some(&s3.credentials), &s3.key(name)).sign(SIGNED_FOR);
                let response =
                    s3.agent.head(url.as_str()).call().map_err(|e| Error::Unreachable(e.to_string()))?;
                match response.status().as_u16() {
                    200..300 => Ok(true),
                    404 => Ok(false),
                    status => Err(Error::Refused(status, String::new())),
                }
            }
        }
    }

    /// Removes the object `name` (none there is no error).
    pub fn delete(&self, name: &str) -> Result<(), Error> {
        match self {
            Target::Folder(dir) => match std::fs::remove_file(dir.join(name)) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::Io(dir.join(name).display().to_string(), e)),
            },
            Target::S3(s3) => {
                let url = s3.bucket.delete_object(Some(&s3.credentials), &s3.key(name)).sign(SIGNED_FOR);
                let response =
                    s3.agent.delete(url.as_str()).call().map_err(|e| Error::Unreachable(e.to_string()))?;
                answer(response).map(|_| ())
            }
        }
    }
}

/// Writes `dir/name` through a temporary name, on the disk before it has its name.
fn put_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    let folder = path.parent().unwrap_or(dir).to_path_buf();
    let failed = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::StorageFull {
            Error::Full(dir.display().to_string())
        } else {
            Error::Io(path.display().to_string(), e)
        }
    };
    std::fs::create_dir_all(&folder).map_err(failed)?;
    let mut partial = path.clone().into_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let written = (|| {
        let mut file = std::fs::File::create(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, &path)?;
        sync_dir(&folder)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.map_err(failed)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_holds_each_object_whole_under_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = Target::Folder(dir.path().join("copy"));
        assert_eq!(target.get("g/wal/000000000001").unwrap(), None);
        target.put("g/wal/000000000001", b"sealed").unwrap();
        assert!(target.exists("g/wal/000000000001").unwrap());
        assert_eq!(target.get("g/wal/000000000001").unwrap().as_deref(), Some(&b"sealed"[..]));
        assert!(!dir.path().join("copy/g/wal/000000000001.partial").exists());
        target.delete("g/wal/000000000001").unwrap();
        target.delete("g/wal/000000000001").unwrap();
        assert!(!target.exists("g/wal/000000000001").unwrap());
    }

    #[test]
    fn an_s3_error_answer_is_read_for_its_code() {
        assert_eq!(
            s3_code("<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>x</Message></Error>"),
            "NoSuchBucket"
        );
        assert_eq!(s3_code("Insufficient Storage"), "Insufficient Storage");
        assert_eq!(Error::Refused(507, "XMinioStorageFull".into()).kind(), "full");
        assert_eq!(Error::Refused(403, "SignatureDoesNotMatch".into()).kind(), "denied");
    }
}
