//! What one attempt to register a document with the CIS came to, in the three terms a document
//! is settled by: registered, refused for something in it, or not registered for a reason that
//! is not the document's (and so worth sending again as a late delivery).
//!
//! A call that registers no document (a taxpayer look-up, a TCR's registration, a read of the
//! e-invoice platform) is read in the same three terms, so that the CIS's own fault is "not
//! delivered" for it too, never a refusal of the request.

use super::model::SubseqDelivType;
use super::response::{Fault, NotDelivered, Outcome};

/// The outcome of one delivery, handed to services to settle; `T` is what the CIS answered
/// with, for a document its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery<T = String> {
    /// Registered: the CIS's code for the document (FIC, FCDC, FWTNIC or EIC), or the answer
    /// to a call that registers nothing.
    Accepted(T),
    /// The CIS blames the document (a client fault): the same message would earn the same
    /// fault, so only the owner can make it go through.
    Refused(Refusal),
    /// Not registered, and not the document's fault: no answer, an answer that is not the
    /// CIS's, or a fault the CIS raises for its own trouble. Sent again later, as a late
    /// delivery of type `subseq`.
    NotDelivered { subseq: SubseqDelivType, reason: String },
}

/// A client fault of the CIS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `detail/code`, e.g. `11`.
    pub code: Option<String>,
    /// `faultstring`
    pub text: String,
}

impl Refusal {
    /// How a refusal reads to a POS and to the owner: its code in brackets, then the CIS's text.
    pub fn message(&self) -> String {
        match &self.code {
            Some(code) => format!("[{code}] {}", self.text),
            None => self.text.clone(),
        }
    }
}

impl From<&Fault> for Refusal {
    fn from(fault: &Fault) -> Self {
        Refusal { code: fault.code.clone(), text: fault.faultstring.clone() }
    }
}

impl<T> Delivery<T> {
    /// Reads a call's outcome, `T` being what the CIS answered with.
    pub fn of(outcome: Outcome<T>) -> Delivery<T> {
        match outcome {
            Outcome::Accepted(code) => Delivery::Accepted(code),
            Outcome::Rejected(fault) if fault.blames_the_cis() => Delivery::NotDelivered {
                subseq: SubseqDelivType::Service,
                reason: format!("the CIS answered with its own fault {}", Refusal::from(&fault).message()),
            },
            Outcome::Rejected(fault) => Delivery::Refused(Refusal::from(&fault)),
            Outcome::NotDelivered(reason) => {
                Delivery::NotDelivered { subseq: subseq_for(&reason), reason: format!("{reason:?}") }
            }
        }
    }
}

/// The late-delivery type for what an attempt saw:
/// - NOINTERNET when no answer came at all (connect error, timeout, connection lost): from the
///   shop's side this is indistinguishable from the internet being down;
/// - SERVICE when something answered but not the CIS (an HTTP error page, garbage): the
///   fiscalization service itself is failing. A server fault of the CIS is SERVICE too.
pub fn subseq_for(reason: &NotDelivered) -> SubseqDelivType {
    match reason {
        NotDelivered::Connect(_) | NotDelivered::Timeout(_) | NotDelivered::Io(_) => {
            SubseqDelivType::NoInternet
        }
        NotDelivered::HttpStatus { .. } | NotDelivered::Unparseable(_) => SubseqDelivType::Service,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(faultcode: &str, code: &str) -> Outcome<String> {
        Outcome::Rejected(Fault {
            faultcode: faultcode.to_string(),
            code: Some(code.to_string()),
            faultstring: "text".to_string(),
            request_uuid: None,
            response_uuid: None,
        })
    }

    #[test]
    fn the_cis_own_faults_are_not_delivered_and_client_faults_are_refused() {
        for (faultcode, code) in [("env:Server", "900"), ("env:Server", "11"), ("env:Client", "920")] {
            assert!(
                matches!(
                    Delivery::of(fault(faultcode, code)),
                    Delivery::NotDelivered { subseq: SubseqDelivType::Service, .. }
                ),
                "{faultcode} {code}"
            );
        }
        for (faultcode, code) in [("env:Client", "11"), ("env:CLIENT", "53"), ("soap:Client", "58")] {
            assert_eq!(
                Delivery::of(fault(faultcode, code)),
                Delivery::Refused(Refusal { code: Some(code.to_string()), text: "text".to_string() }),
            );
        }
        // A call that registers nothing (GetTaxpayers answers a list) is read the same way.
        let look_up =
            |faultcode: &str, code: &str| Delivery::of(fault(faultcode, code).map(|_| vec!["taxpayer"]));
        assert!(matches!(look_up("env:Client", "920"), Delivery::NotDelivered { .. }));
        assert!(matches!(look_up("env:Server", "900"), Delivery::NotDelivered { .. }));
        assert!(matches!(look_up("env:Client", "11"), Delivery::Refused(_)));
        assert_eq!(Delivery::of(Outcome::Accepted(vec!["taxpayer"])), Delivery::Accepted(vec!["taxpayer"]));
        assert_eq!(
            Refusal { code: Some("11".into()), text: "TCR is not valid".into() }.message(),
            "[11] TCR is not valid"
        );
    }

    #[test]
    fn what_the_attempt_saw_sets_the_late_delivery_type() {
        assert_eq!(subseq_for(&NotDelivered::Timeout("t".into())), SubseqDelivType::NoInternet);
        assert_eq!(subseq_for(&NotDelivered::Connect("c".into())), SubseqDelivType::NoInternet);
        assert_eq!(subseq_for(&NotDelivered::Unparseable("u".into())), SubseqDelivType::Service);
        assert_eq!(
            subseq_for(&NotDelivered::HttpStatus { status: 502, body_excerpt: String::new() }),
            SubseqDelivType::Service
        );
        assert_eq!(Delivery::of(Outcome::Accepted("fic".to_string())), Delivery::Accepted("fic".into()));
    }
}
