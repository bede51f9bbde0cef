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

    /// A layer's error that quotes its cause, as the shop's and the head office's do.
    #[derive(Debug)]
    struct Quoting(std::io::Error);

    impl fmt::Display for Quoting {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "reading the file: {}", self.0)
        }
    }

    impl Error for Quoting {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    /// A layer's error that names only itself.
    #[derive(Debug)]
    struct Silent(Quoting);

    impl fmt::Display for Silent {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the settings could not be read")
        }
    }

    impl Error for Silent {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_is_added_unless_the_level_above_already_ends_with_it() {
        let quoting = Quoting(std::io::Error::other("disk full"));
        assert_eq!(error_chain(&quoting).to_string(), "reading the file: disk full");
        let silent = Silent(Quoting(std::io::Error::other("disk full")));
        assert_eq!(
            error_chain(&silent).to_string(),
            "the settings could not be read: reading the file: disk full"
        );
        assert_eq!(error_chain(&std::io::Error::other("alone")).to_string(), "alone");
    }
}
