//! The one line a failure is logged with: the error and every cause under it.

use std::error::Error;
use std::fmt;

/// An error and every cause under it (`source()`), outermost first, joined by `: `. A cause
/// whose text the level above already ends with is not repeated: the layers' messages quote
/// their direct cause (the CLI has always shown them so), and the chain adds what they leave
/// out, such as SQLite's result code under its message.
pub struct ErrorChain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut above = self.0.to_string();
        f.write_str(&above)?;
        let mut cause = self.0.source();
        while let Some(error) = cause {
            let text = error.to_string();
            if !above.ends_with(&text) {
                write!(f, ": {text}")?;
            }
            above = text;
            cause = error.source();
        }
        Ok(())
    }
}

/// `ErrorChain` of `error`, for a log line: `tracing::error!(error = %error_chain(&e), ...)`.
pub fn error_chain<'a>(error: &'a (dyn Error + 'static)) -> ErrorChain<'a> {
    ErrorChain(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{services, store};

    fn failed_insert() -> rusqlite::Error {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x INTEGER);
             CREATE TRIGGER no BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'the disk said no'); END;",
        )
        .unwrap();
        conn.execute("INSERT INTO t VALUES (1)", []).unwrap_err()
    }

    #[test]
    fn every_layer_is_named_once_down_to_sqlites_own_code() {
        let e = services::Error::from(store::Error::from(failed_insert()));
        assert_eq!(e.to_string(), "the store failed: sqlite: the disk said no");
        assert_eq!(
            error_chain(&e).to_string(),
            "the store failed: sqlite: the disk said no: Error code 1811: constraint failed"
        );
    }

    #[test]
    fn a_cause_its_error_does_not_quote_is_added() {
        let io = std::io::Error::other("disk full");
        let e = crate::StartError::CaFile { path: "/etc/ca.pem".into(), source: io };
        assert_eq!(error_chain(&e).to_string(), "CIS settings: /etc/ca.pem: disk full");
        let bare = services::Error::Broken("the in-flight set was poisoned");
        assert_eq!(error_chain(&bare).to_string(), "the in-flight set was poisoned");
    }
}
