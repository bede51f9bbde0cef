//! Use cases that tie the rooms together: api -> services -> {domain, store, fiscal}.

pub mod accounts;

use std::fmt;

use crate::domain::validation::FieldErrors;
use crate::{fiscal, secrets, store};

/// Errors of the use-case layer, in the terms the edge answers with.
#[derive(Debug)]
pub enum Error {
    /// Bad input, per field (422).
    Invalid(FieldErrors),
    /// The thing does not exist for this company (404); carries what was looked for.
    NotFound(String),
    /// A refusal the spec answers with HTTP 200 and status false.
    Refused(String),
    /// 409
    Conflict(String),
    /// 403
    Forbidden(String),
    /// The CIS could not be reached (503).
    Unavailable(String),
    /// Anything else: logged, answered 500 without details.
    Internal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for Error {}

impl From<FieldErrors> for Error {
    fn from(e: FieldErrors) -> Self {
        Error::Invalid(e)
    }
}

impl From<store::Error> for Error {
    fn from(e: store::Error) -> Self {
        Error::Internal(e.to_string())
    }
}

impl From<secrets::Error> for Error {
    fn from(e: secrets::Error) -> Self {
        Error::Internal(e.to_string())
    }
}

impl From<fiscal::Error> for Error {
    fn from(e: fiscal::Error) -> Self {
        Error::Internal(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, Error>;
