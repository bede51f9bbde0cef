//! Use cases that tie the rooms together: api -> services -> {domain, store, fiscal}.

pub mod accounts;
pub mod ai;
pub mod audit;
pub mod budget;
pub mod cash_register;
pub mod clients;
pub mod devices;
pub mod hq_sync;
pub mod invoices;
pub mod lanes;
pub mod locks;
pub mod marketplace;
pub mod owner;
pub mod people;
pub mod pipeline;
pub mod products;
pub mod purchase;
pub mod queue;
pub mod rates;
pub mod reports;
pub mod search_index;
pub mod sequence;
pub mod setup;
pub mod stock;
pub mod till;
pub mod users;
pub mod wtn;

use std::sync::Arc;

use crate::domain::validation::FieldErrors;
use crate::fiscal::certificate::Certificate;
use crate::fiscal::delivery::Delivery;
use crate::fiscal::gateway::Gateway;
use crate::fiscal::model::SubseqDelivType;
use crate::fiscal::queue::Queue;
use crate::fiscal::response::Outcome;
use crate::fiscal::transport::CisClient;
use crate::ops::secrets;
use crate::ops::secrets::KeyFile;
use crate::store::Store;
use crate::{fiscal, store};

/// What the use cases need from the running server.
#[derive(Clone)]
pub struct Services {
    /// The time everything is judged by (`crate::clock`): the system's, unless a test moved it.
    pub clock: crate::domain::time::WallClock,
    pub store: Store,
    pub key_file: Arc<KeyFile>,
    /// Running with `--sandbox`: the sandbox registration and certificate rules apply.
    pub sandbox: bool,
    pub gateway: Arc<Gateway>,
    pub queue: Arc<Queue>,
    /// Base of the tax administration's verification page (test or production).
    pub verify_base: String,
    /// `--public-url`: the base of `pdf` links, when set.
    pub public_url: Option<String>,
    pub locks: Arc<locks::Locks>,
    /// Documents being issued, by their kind's key (company, year, internalId for invoices):
    /// a second request with the same key meets its kind's error at once.
    pub in_flight: pipeline::InFlightSet,
    /// Cash-register balances, kept 5 s as the spec says.
    pub balances: Arc<cash_register::BalanceCache>,
    /// Each sequence's documents on their way to the CIS (`--cis-in-flight` at once).
    pub lanes: Arc<lanes::Lanes>,
    /// `--cis-wait`: how long a POS waits for its receipt's delivery before it is answered with
    /// the receipt as deferred.
    pub cis_wait: std::time::Duration,
    /// Exchange rates read from the sources, kept in memory while fresh.
    pub rates: Arc<rates::RateBook>,
    /// The owner's AI chat endpoint, when configured.
    pub ai: Arc<crate::ai::AiClient>,
    /// The shop's place in a chain: linked to its head office (`--hq-url`), the outbox goes
    /// there and the business's non-cash numbers come from there (`hq_sync::noncash_number`).
    pub hq: hq_sync::Chain,
    /// The tokens' last uses not yet written.
    pub token_uses: Arc<users::TokenUses>,
}

/// A capability: one group of the use cases, reached from `Services` by its accessor
/// (`services.selling().issue_invoice(…)`), so no one type carries them all.
macro_rules! capabilities {
    ($($(#[$doc:meta])* $accessor:ident => $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            services: &'a Services,
        }

        impl Services {
            pub fn $accessor(&self) -> $name<'_> {
                $name { services: self }
            }
        }
    )*};
}

capabilities! {
    /// Selling (`invoices/`): issuing invoices, orders, summaries and e-invoices, and reading
    /// them back (lists, one invoice, its PDF).
    selling => Selling;
    /// Cash (`cash_register.rs`): the drawer's money in and out of a till (deposits,
    /// withdrawals, the day's opening and closing balances) and what it holds.
    cash => Cash;
    /// Corrections (`invoices/cancel.rs`): cancellations and the corrective documents that take
    /// a sale back.
    corrections => Corrections;
    /// The catalog (`products.rs`, `stock.rs`): products, categories, their import, units and
    /// stock.
    catalog => Catalog;
    /// People (`people.rs`, `users.rs`): users, sign-in sessions, passwords, tokens and roles.
    people => People;
    /// On-boarding (`accounts.rs`, `devices.rs`): the company's registration, its units, bank
    /// accounts and certificate, and its fiscal devices (TCRs) at the CIS.
    onboarding => Onboarding;
    /// The first start's setup (`setup.rs`): the setup code, the business, the owner, the test
    /// sale.
    setup => Setup;
    /// The till (`till.rs`): its printers, its settings, a receipt printed.
    till => Till;
    /// Currencies and exchange rates (`rates.rs`): the sources' rates, the manual ones, which
    /// currencies the company invoices in.
    exchange => Exchange;
    /// The register of buyers (`clients.rs`).
    buyers => Buyers;
    /// Purchase invoices from the e-invoice platform (`purchase.rs`).
    purchases => Purchases;
    /// The chain's head office as the shop sees it (`hq_sync/`): the outbox waiting for it.
    head_office => HeadOffice;
}

impl Services {
    /// The company's signing certificate, refused in the caller's terms when missing or expired.
    pub async fn signer(&self, company_id: i64) -> Result<Arc<Certificate>> {
        if let Some(known) = self.gateway.known_certificate(company_id) {
            return known.map_err(Error::from);
        }
        let gateway = self.gateway.clone();
        tokio::task::spawn_blocking(move || gateway.certificate(company_id)).await?.map_err(Error::from)
    }

    /// Signs and sends one request on the blocking pool; `read` is the operation's typed call.
    /// What it came to is read as a document's delivery is: the CIS's own fault (9xx, `Server`)
    /// is not delivered, like no answer, and only a fault that blames the request refuses it.
    pub async fn call_cis<T: Send + 'static>(
        &self,
        certificate: Arc<Certificate>,
        unsigned: String,
        read: fn(&CisClient, &str) -> Outcome<T>,
    ) -> Result<Delivery<T>> {
        let gateway = self.gateway.clone();
        crate::cis_wait::spawn_blocking(move || gateway.send(&certificate, &unsigned, read))
            .await?
            .map(Delivery::of)
            .map_err(Error::from)
    }
}

impl Services {
    /// Signs and sends a document's registration on the blocking pool: what it came to. A
    /// request that could not be signed or sent here is not delivered, as a technical error on
    /// the TCR's side (TECHNICALERROR), and waits in the queue.
    pub async fn deliver(
        &self,
        certificate: Arc<Certificate>,
        operation: crate::fiscal::requests::Operation,
        unsigned: String,
    ) -> Delivery {
        let gateway = self.gateway.clone();
        let delivered =
            crate::cis_wait::spawn_blocking(move || gateway.deliver(&certificate, operation, &unsigned))
                .await
                .map_err(|e| e.to_string())
                .and_then(|sent| sent.map_err(|e| e.to_string()));
        delivered.unwrap_or_else(|e| {
            let (subseq, reason) = not_sent(operation, &e);
            Delivery::NotDelivered { subseq, reason }
        })
    }
}

/// A registration that could not be signed or sent from here is a technical error on the
/// TCR's side, left to the queue: its late-delivery type and the reason.
pub(super) fn not_sent(
    operation: crate::fiscal::requests::Operation,
    error: &str,
) -> (SubseqDelivType, String) {
    tracing::error!(error = %error, operation = operation.request_root(), "a request could not be sent");
    (SubseqDelivType::TechnicalError, format!("the request could not be sent: {error}"))
}

/// Errors of the use-case layer, in the terms the edge answers with. A failure of the rooms
/// underneath keeps its cause (`source()`), which the edge logs and never answers with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input, per field (422).
    #[error("invalid input: {}", .0.fields())]
    Invalid(FieldErrors),
    /// The thing does not exist for this company (404); carries what was looked for.
    #[error("not found: {0}")]
    NotFound(String),
    /// A refusal the spec answers with HTTP 200 and status false.
    #[error("refused: {0}")]
    Refused(String),
    /// What the request meets as things stand: a document on its way or issued already, a step
    /// not taken yet, a value another holds (409).
    #[error("clash: {0}")]
    Clash(Clash),
    /// 409 naming the field whose value conflicts (in `errors` as `field: message`): a value
    /// already taken, or a role the company cannot do without.
    #[error("{field} conflicts: {message}")]
    Taken { field: &'static str, message: String },
    /// Incomplete or invalid data for fiscalization (400): `errors` says exactly what.
    #[error("incomplete: {message} {}", .errors.join("; "))]
    Incomplete { message: String, errors: Vec<String> },
    /// Another operation held what this one needs and did not let go in time.
    #[error("busy: {0}")]
    Busy(Held),
    /// Beyond what the caller's role may do: the rule that refuses it.
    #[error("forbidden: {0}")]
    Forbidden(NotAllowed),
    /// What the request needs cannot be had now: an outside party did not answer, or a
    /// document or device it rests on is not ready. Nothing was saved.
    #[error("unavailable: {0}")]
    Unavailable(NotNow),
    /// The database failed (500).
    #[error("the store failed: {0}")]
    Store(#[from] store::Error),
    /// Signing, the certificate or a CIS message failed here (500).
    #[error("the fiscal layer failed: {0}")]
    Fiscal(#[source] fiscal::Error),
    /// A secret could not be sealed or opened with the key file (500).
    #[error("the key file failed: {0}")]
    Secrets(#[from] secrets::Error),
    /// A document could not be drawn as a PDF (500).
    #[error("printing failed: {0}")]
    Print(#[from] crate::print::Error),
    /// Work handed to another thread panicked or was cancelled (500).
    #[error("a task did not complete: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A row the action just read or wrote is not there (a rule of this program found broken):
    /// logged, answered without details.
    #[error("{0} is missing")]
    Vanished(&'static str),
    /// A stored value (`what` of the row `id`) cannot be read as what it must be; its cause is
    /// kept when there is one.
    #[error("the {what} of {id} cannot be read")]
    Unreadable {
        what: &'static str,
        id: i64,
        #[source]
        cause: Option<Cause>,
    },
    /// A rule of this program found broken (a poisoned lock, a sequence at its end, input
    /// checked yet incomplete): logged, answered without details.
    #[error("{0}")]
    Broken(&'static str),
    /// Work handed to another thread panicked; the panic's own words.
    #[error("{what} panicked: {panic}")]
    Panicked { what: &'static str, panic: String },
    /// A document took longer to draw than its bound.
    #[error("printing {what} took longer than {limit:?}")]
    TooSlow {
        what: String,
        limit: std::time::Duration,
        #[source]
        cause: tokio::time::error::Elapsed,
    },
    /// A kept request could not be written out (`arka queue export`).
    #[error("the kept request {id} could not be written")]
    NotWritten {
        id: i64,
        #[source]
        cause: std::io::Error,
    },
    /// What the e-invoice platform answered cannot be used (`what`).
    #[error("the platform's {what} cannot be used")]
    PlatformAnswer {
        what: &'static str,
        #[source]
        cause: Cause,
    },
    /// The head office's answer could not be waited for.
    #[error("the head office's answer was lost")]
    HeadOffice(#[source] Cause),
}

/// What another operation held. Its words are the answer's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Held {
    /// A document of the same sequence is being issued (the pipeline's lock).
    #[error("Another document of this sequence is being issued; try again.")]
    Sequence,
    /// The same invoice is being cancelled.
    #[error("Another cancellation of this invoice is in progress; try again.")]
    Cancellation,
    /// Another deposit, withdrawal or balance of the same till.
    #[error("Another operation on this cash register is running; try again.")]
    CashRegister,
}

/// What a request clashes with as things stand. Its words are the answer's message; a refusal
/// met underneath (a taken unique value, the head office's answer) is kept as its cause.
#[derive(Debug, thiserror::Error)]
pub enum Clash {
    /// Another request with the same internalId is issuing `.0` ("An invoice").
    #[error("{} with this internalId is being issued.", .0)]
    BeingIssued(&'static str),
    /// `.0` ("An invoice") with this internalId was issued this year.
    #[error("{} with this internalId was already issued this year.", .0)]
    IssuedThisYear(&'static str),
    /// A correction of the invoice was issued between the read and the write.
    #[error("The invoice was cancelled meanwhile; send the cancellation again.")]
    CancelledMeanwhile,
    /// The till `tcr_code` has no printer.
    #[error("No printer is set for the till {tcr_code}.")]
    NoPrinterFor { tcr_code: String },
    /// The till a receipt prints on has no printer.
    #[error("No printer is set for this till: print the PDF.")]
    NoPrinter,
    /// The reset code was spent by another request between the check and the write.
    #[error("The code was used meanwhile.")]
    CodeUsedMeanwhile,
    /// A password change for a user who has none, asked with a token alone.
    #[error("{text}", text = people::NO_PASSWORD_YET)]
    NoPasswordYet,
    /// The first-run setup once the box has its owner.
    #[error("This server is set up already: sign in as its owner.")]
    SetUpAlready,
    /// A setup step before the business is saved.
    #[error("The business comes first: save it with POST /api/v1/setup/business.")]
    BusinessFirst,
    /// The setup's last step with no cashier who has an operator code and a till.
    #[error("Add a cashier with an operator code and a till first.")]
    CashierAndTillFirst,
    /// A change to a product the chain's head office owns.
    #[error("{central}", central = products::CENTRAL_PRODUCT)]
    CentralProduct,
    /// A client with the same identifier in the company.
    #[error("{text}", text = clients::DUPLICATE_CLIENT)]
    DuplicateClient(#[source] store::Error),
    /// A product with the same code in the company.
    #[error("A product with this code already exists in this company.")]
    DuplicateProductCode(#[source] store::Error),
    /// A category with the same name in the company.
    #[error("A category with this name already exists in this company.")]
    DuplicateCategory(#[source] store::Error),
    /// The head office refused a non-cash number (409): its own words.
    #[error("{}", .0.message())]
    NumberRefused(#[source] crate::hq_client::Error),
}

/// The rule that refuses a caller an action beyond their role. Its words are the answer's
/// message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAllowed {
    /// A rule of the roles (`domain::role`), in its own words.
    #[error("{0}")]
    Role(&'static str),
    /// A cashier's discount on line `at` beyond the till's limit.
    #[error(
        "lines.{at}.discount: a cashier gives at most {limit}% off a line; a manager or an owner can give more."
    )]
    DiscountBeyondLimit { at: usize, limit: rust_decimal::Decimal },
    /// A cashier reading a document of another till that they did not issue.
    #[error(
        "A cashier reads the documents of their own till and those they issued; a manager can read this one."
    )]
    OthersDocument,
    /// Someone not an owner rotating another user's token.
    #[error("Only an owner rotates another user's token.")]
    OthersToken,
    /// Someone not an owner revoking a token.
    #[error("Only an owner revokes tokens.")]
    Revoking,
    /// A reset code for a user whose access is revoked (`found`, their e-mail).
    #[error("{found}'s access is revoked: an owner restores it first (a new token on the users' list).")]
    Revoked { found: String },
    /// An owner resetting their own password, which needs the current one.
    #[error("Your own password is changed with POST /api/v1/session/password: it needs the current one.")]
    OwnPasswordReset,
    /// The setup without the code it printed, from another machine.
    #[error(
        "Setting up this server needs the setup code it printed at its start (in its log and on its \
         console), or a browser on the server itself."
    )]
    SetupPass,
}

/// What a request needs and cannot have now, by who or what is missing. Its words are the
/// answer's message; a cause underneath is kept.
#[derive(Debug, thiserror::Error)]
pub enum NotNow {
    /// The CIS did not take a document whose kind keeps nothing undelivered: the kind's words.
    #[error("{0}")]
    DocumentNotSaved(&'static str),
    /// The CIS did not answer a device's registration.
    #[error("The fiscalization service (CIS) could not be reached. Nothing was saved; try again.")]
    CisForDevice,
    /// The CIS did not answer a look-up in the taxpayers' register.
    #[error("The fiscal register (CIS) could not be reached; try again.")]
    CisForTaxpayer,
    /// An order a summary invoice settles still waits for its FIC.
    #[error("{}", invoices::order_waiting(.number))]
    OrderWaiting { number: String },
    /// The e-invoice platform did not answer the buyer's check of an e-invoice.
    #[error("{}", invoices::einvoice::PLATFORM_FOR_BUYER)]
    PlatformForBuyer,
    /// The e-invoice platform did not answer.
    #[error("{}", purchase::PLATFORM_UNREACHABLE)]
    Platform,
    /// The chain's head office, which numbers the business's non-cash documents, did not answer.
    #[error("{}", hq_sync::NO_NUMBER)]
    HeadOffice,
    /// The shop of a chain was started without its head office.
    #[error("{}", hq_sync::NOT_REACHED)]
    HeadOfficeNotLinked,
    /// The till's TCR was retired by a restore and its new one is not registered yet.
    #[error("{}", devices::TCR_RETIRED)]
    TcrRetired,
    /// The till's printer did not take the receipt.
    #[error("{}", printer_words(.0))]
    Printer(#[source] crate::printer::Error),
}

/// What the cashier reads when the printer did not take a receipt: what to do about it.
fn printer_words(e: &crate::printer::Error) -> &'static str {
    match e {
        crate::printer::Error::Off(_) => {
            "The printer does not answer: check that it is on and connected, then print again."
        }
        crate::printer::Error::OutOfPaper => {
            "The printer is out of paper: put in a new roll, then print again."
        }
        crate::printer::Error::Failed(_) => "The printer stopped while printing: check it, then print again.",
    }
}

/// The error underneath a failure, kept for the log.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

impl From<FieldErrors> for Error {
    fn from(e: FieldErrors) -> Self {
        Error::Invalid(e)
    }
}

impl From<fiscal::Error> for Error {
    fn from(e: fiscal::Error) -> Self {
        match e {
            fiscal::Error::NoCertificate => Error::Refused(
                "No certificate has been uploaded: send it to POST /api/v1/on-boarding/certificate first."
                    .into(),
            ),
            fiscal::Error::CertificateExpired => Error::Refused(
                "The certificate has expired: upload a new one to POST /api/v1/on-boarding/certificate."
                    .into(),
            ),
            other => Error::Fiscal(other),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
