//! The data dir's lock: a running server holds `arka.lock` (an advisory lock of the operating
//! system, released however the process ends), so that `arka restore` and a second server on the
//! same data dir can tell and refuse.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

pub const LOCK_FILE: &str = "arka.lock";

/// Held while it lives.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

#[derive(Debug)]
pub enum Error {
    /// Another process (a running server) holds the data dir.
    Held(PathBuf),
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Held(dir) => {
                write!(
                    f,
                    "a running Arka server holds {}: stop it first (systemctl stop arka)",
                    dir.display()
                )
            }
            Error::Io(path, e) => write!(f, "{}: {e}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(_, e) => Some(e),
            Error::Held(_) => None,
        }
    }
}

/// Takes the lock of `data_dir` (created if needed), or says who holds it.
pub fn lock(data_dir: &Path) -> Result<DataDirLock, Error> {
    crate::ops::files::private_dir(data_dir).map_err(|e| Error::Io(data_dir.to_path_buf(), e))?;
    let path = data_dir.join(LOCK_FILE);
    crate::ops::files::private_file(&path).map_err(|e| Error::Io(path.clone(), e))?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::Io(path.clone(), e))?;
    match file.try_lock() {
        Ok(()) => Ok(DataDirLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(Error::Held(data_dir.to_path_buf())),
        Err(TryLockError::Error(e)) => Err(Error::Io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        assert!(matches!(lock(dir.path()), Err(Error::Held(_))));
        drop(first);
        assert!(lock(dir.path()).is_ok());
    }
}
