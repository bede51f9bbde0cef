//! What the simulator remembers, in memory only: the mode it was told to play, the log of
//! SOAP requests, and everything it registered. A restart forgets it all (the sandbox seeds
//! the TCRs it knows through `SimConfig::tcrs`).

use std::collections::{HashSet, VecDeque};

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::fiscal::model;

/// The log keeps the newest requests only, so a long sandbox session cannot grow it forever.
pub const MAX_LOGGED_REQUESTS: usize = 10_000;
/// The newest requests keep their bodies in the log (for outside checks of what was sent).
pub const MAX_LOGGED_BODIES: usize = 200;
/// A slow answer waits at most this long, whatever the control call asked for.
pub const MAX_DELAY_MS: u64 = 600_000;
const DEFAULT_SLOW_DELAY_MS: u64 = 10_000;
const DEFAULT_FAULT_CODE: &str = "11";

/// How the simulator answers SOAP requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Checks each request and answers as the CIS would.
    Ok,
    /// Closes the connection without an answer.
    Down,
    /// Processes the request, then waits `delay_ms` before answering.
    Slow,
    /// Answers every request with a SOAP fault carrying `fault_code` (after `delay_ms`, when
    /// given).
    Fault,
    /// Answers HTTP 200 with a body that is not XML.
    Garbage,
}

/// The body of `POST /control`, and what `GET /control` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeSetting {
    pub mode: Mode,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub fault_code: Option<String>,
}

impl ModeSetting {
    pub fn ok() -> Self {
        ModeSetting { mode: Mode::Ok, delay_ms: None, fault_code: None }
    }

    /// Fills in the defaults a mode needs and bounds the delay.
    pub fn normalized(self) -> Self {
        let delay_ms = match self.mode {
            Mode::Slow => Some(self.delay_ms.unwrap_or(DEFAULT_SLOW_DELAY_MS).min(MAX_DELAY_MS)),
            Mode::Fault => self.delay_ms.map(|d| d.min(MAX_DELAY_MS)),
            _ => None,
        };
        let fault_code = match self.mode {
            Mode::Fault => Some(self.fault_code.unwrap_or_else(|| DEFAULT_FAULT_CODE.to_string())),
            _ => None,
        };
        ModeSetting { mode: self.mode, delay_ms, fault_code }
    }
}

/// What became of one SOAP request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestOutcome {
    Accepted,
    Fault,
    Dropped,
    Garbage,
}

/// One entry of `GET /control/requests`.
#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord {
    /// The SOAP operation (`RegisterInvoice`, ...), or the body's root element when unknown.
    pub operation: String,
    /// `Header@UUID`
    pub uuid: Option<String>,
    /// `Header@SubseqDelivType`
    pub subseq_deliv_type: Option<String>,
    /// `Invoice@IIC`, or `WTN@WTNIC` for a WTN.
    pub iic: Option<String>,
    /// `Invoice@TCRCode` or `CashDeposit@TCRCode`
    pub tcr_code: Option<String>,
    /// Whether the XML signature verified.
    pub signature_verified: bool,
    pub outcome: RequestOutcome,
    pub fault_code: Option<String>,
    pub fault_string: Option<String>,
    /// The same document was already registered: the answer repeats the first one.
    pub duplicate: bool,
    pub received_at: String,
    /// The SOAP body as received; kept for the newest `MAX_LOGGED_BODIES` requests only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A TCR the simulator issued a code for.
#[derive(Debug, Clone, Serialize)]
pub struct TcrRecord {
    pub tcr_code: String,
    pub issuer_nuis: String,
    pub busin_unit_code: String,
    pub tcr_int_id: Option<String>,
    pub soft_code: Option<String>,
    pub tcr_type: Option<String>,
    /// The request that registered it; none for TCRs seeded by the configuration.
    pub request_uuid: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoiceRecord {
    pub uuid: String,
    pub iic: String,
    pub fic: String,
    pub issuer_nuis: String,
    pub inv_num: String,
    pub type_of_inv: String,
    pub tcr_code: Option<String>,
    pub busin_unit_code: String,
    pub subseq_deliv_type: Option<String>,
    #[serde(with = "rust_decimal::serde::float")]
    pub tot_price: Decimal,
    pub issue_date_time: String,
    /// How many times it was delivered: more than one means re-sends of the same message.
    pub deliveries: u32,
    /// `PayMethod@Type` of each payment (ORDER on an order invoice).
    pub pay_methods: Vec<String>,
    /// `CorrectiveInv@IICRef`: the invoice it corrects.
    pub corrects: Option<String>,
    /// `CorrectiveInv@Type`: CORRECTIVE, CREDIT or DEBIT.
    pub corrective_type: Option<String>,
    /// `SumInvIICRefs`: the orders a summary pays.
    pub sum_inv_iic_refs: Vec<String>,
    /// On an order: the IIC of the summary that paid it.
    pub settled_by: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CashDepositRecord {
    pub uuid: String,
    pub fcdc: String,
    pub issuer_nuis: String,
    pub tcr_code: String,
    pub operation: String,
    #[serde(with = "rust_decimal::serde::float")]
    pub cash_amt: Decimal,
    pub change_date_time: String,
    pub subseq_deliv_type: Option<String>,
    pub deliveries: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct WtnRecord {
    pub uuid: String,
    pub wtnic: String,
    pub fwtnic: String,
    pub issuer_nuis: String,
    pub wtn_num: String,
    pub busin_unit_code: String,
    #[serde(with = "rust_decimal::serde::float")]
    pub value_of_goods: Decimal,
    pub subseq_deliv_type: Option<String>,
    pub deliveries: u32,
}

/// An e-invoice the simulator holds: registered through `RegisterEinvoice` or seeded.
#[derive(Debug, Clone, Serialize)]
pub struct StoredEinvoice {
    pub eic: String,
    /// The registering request; none for seeded ones.
    pub request_uuid: Option<String>,
    pub seller_nuis: String,
    pub buyer_nuis: Option<String>,
    pub doc_number: String,
    pub doc_type: String,
    #[serde(with = "rust_decimal::serde::float")]
    pub amount: Decimal,
    pub rec_date_time: String,
    pub due_date_time: String,
    pub status: String,
    pub seeded: bool,
    #[serde(skip)]
    pub pdf: Vec<u8>,
}

/// `GET /control/registered`
#[derive(Debug, Clone, Default, Serialize)]
pub struct Registry {
    pub tcrs: Vec<TcrRecord>,
    /// Added only through `push_invoice`, which keeps `invoice_by_iic`.
    pub invoices: Vec<InvoiceRecord>,
    pub cash_deposits: Vec<CashDepositRecord>,
    pub wtns: Vec<WtnRecord>,
    pub einvoices: Vec<StoredEinvoice>,
    /// Each invoice's place in `invoices` by its upper-case IIC: a request looks its IIC up
    /// without reading every invoice registered before it.
    #[serde(skip)]
    invoice_by_iic: std::collections::HashMap<String, usize>,
}

impl Registry {
    /// The invoice registered with `iic` (in any case).
    pub fn invoice_mut(&mut self, iic: &str) -> Option<&mut InvoiceRecord> {
        let index = *self.invoice_by_iic.get(&iic.to_ascii_uppercase())?;
        self.invoices.get_mut(index)
    }

    pub fn push_invoice(&mut self, invoice: InvoiceRecord) {
        self.invoice_by_iic.insert(invoice.iic.to_ascii_uppercase(), self.invoices.len());
        self.invoices.push(invoice);
    }
}

/// A business of the built-in taxpayer register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taxpayer {
    pub nuis: String,
    pub name: String,
    pub address: Option<String>,
    pub town: Option<String>,
}

/// Invented businesses (their NUIS are well-formed but belong to no one), so that lookups
/// and incoming e-invoices have something realistic to show.
const TAXPAYERS: &[(&str, &str, &str, &str)] = &[
    ("K81234001A", "Ushqimore Dardania sh.p.k.", "Rruga e Kavajës, Nr. 112", "Tiranë"),
    ("L91234002B", "Furra e Bukës Korça sh.p.k.", "Bulevardi Republika, Nr. 8", "Korçë"),
    ("J71234003C", "Farmacia Shëndeti sh.p.k.", "Rruga Taulantia, Lagjja 1", "Durrës"),
    ("M01234004D", "Kafe Lulishtja sh.p.k.", "Sheshi Demokracia", "Shkodër"),
    ("L11234005E", "Elektro Vlora sh.p.k.", "Rruga Ismail Qemali, Nr. 25", "Vlorë"),
    ("K51234006F", "Transport Adriatik sh.p.k.", "Autostrada Tiranë-Durrës, km 7", "Vorë"),
];

/// Seeded incoming e-invoices come from these two suppliers.
const SEED_SUPPLIERS: &[(&str, &str, &str)] =
    &[("K81234001A", "12450.00", "ACCEPTED"), ("K51234006F", "3600.00", "PARTIALLY_PAID")];

/// The PDF every seeded e-invoice carries: one empty page.
pub const SEED_PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

/// Everything behind the simulator's lock.
#[derive(Debug)]
pub struct State {
    pub mode: ModeSetting,
    pub log: VecDeque<RequestRecord>,
    pub registry: Registry,
    /// Names of the taxpayers that registered a TCR, from their certificates.
    pub known_taxpayers: Vec<Taxpayer>,
    /// The NUIS for which incoming e-invoices were already seeded.
    seeded_for: HashSet<String>,
}

impl State {
    pub fn new() -> Self {
        State {
            mode: ModeSetting::ok(),
            log: VecDeque::new(),
            registry: Registry::default(),
            known_taxpayers: Vec::new(),
            seeded_for: HashSet::new(),
        }
    }

    pub fn log(&mut self, record: RequestRecord) {
        if self.log.len() >= MAX_LOGGED_REQUESTS {
            self.log.pop_front();
        }
        self.log.push_back(record);
        if let Some(oldest_kept) = self.log.len().checked_sub(MAX_LOGGED_BODIES + 1) {
            self.log[oldest_kept].body = None;
        }
    }

    pub fn tcr(&self, tcr_code: &str) -> Option<&TcrRecord> {
        self.registry.tcrs.iter().find(|t| t.tcr_code == tcr_code)
    }

    /// The built-in register plus every taxpayer that registered a TCR.
    pub fn taxpayers(&self) -> Vec<Taxpayer> {
        let mut all: Vec<Taxpayer> = TAXPAYERS
            .iter()
            .map(|(nuis, name, address, town)| Taxpayer {
                nuis: (*nuis).to_string(),
                name: (*name).to_string(),
                address: Some((*address).to_string()),
                town: Some((*town).to_string()),
            })
            .collect();
        for known in &self.known_taxpayers {
            if !all.iter().any(|t| t.nuis.eq_ignore_ascii_case(&known.nuis)) {
                all.push(known.clone());
            }
        }
        all
    }

    pub fn remember_taxpayer(&mut self, nuis: &str, name: Option<String>) {
        if self.known_taxpayers.iter().any(|t| t.nuis.eq_ignore_ascii_case(nuis)) {
            return;
        }
        self.known_taxpayers.push(Taxpayer {
            nuis: nuis.to_string(),
            name: name.unwrap_or_else(|| format!("Tatimpaguesi {nuis}")),
            address: None,
            town: None,
        });
    }

    /// The first time a NUIS asks for its e-invoices, two suppliers send it one each.
    pub fn seed_incoming(&mut self, buyer_nuis: &str, now: DateTime<Utc>) {
        if !self.seeded_for.insert(buyer_nuis.to_ascii_uppercase()) {
            return;
        }
        for (index, (supplier, amount, status)) in SEED_SUPPLIERS.iter().enumerate() {
            if supplier.eq_ignore_ascii_case(buyer_nuis) {
                continue;
            }
            let days_ago = i64::try_from(SEED_SUPPLIERS.len() - index).unwrap_or(1);
            let received = now - Duration::days(days_ago);
            self.registry.einvoices.push(StoredEinvoice {
                eic: uuid::Uuid::new_v4().to_string(),
                request_uuid: None,
                seller_nuis: (*supplier).to_string(),
                buyer_nuis: Some(buyer_nuis.to_string()),
                doc_number: format!("{}/{}", 40 + index, received.format("%Y")),
                doc_type: "380".to_string(),
                amount: amount.parse().unwrap_or(Decimal::ZERO),
                rec_date_time: model::datetime(received),
                due_date_time: model::datetime(received + Duration::days(30)),
                status: (*status).to_string(),
                seeded: true,
                pdf: SEED_PDF.to_vec(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_get_their_defaults_and_bounds() {
        let slow = ModeSetting { mode: Mode::Slow, delay_ms: Some(u64::MAX), fault_code: Some("x".into()) };
        assert_eq!(
            slow.normalized(),
            ModeSetting { mode: Mode::Slow, delay_ms: Some(MAX_DELAY_MS), fault_code: None }
        );
        let fault = ModeSetting { mode: Mode::Fault, delay_ms: None, fault_code: None };
        let fault = fault.normalized();
        assert_eq!(fault.fault_code.as_deref(), Some("11"));
        assert_eq!(fault.delay_ms, None, "a fault comes at once unless a delay is asked for");
        let late = ModeSetting { mode: Mode::Fault, delay_ms: Some(u64::MAX), fault_code: None };
        assert_eq!(late.normalized().delay_ms, Some(MAX_DELAY_MS));
        let down = ModeSetting { mode: Mode::Down, delay_ms: Some(5), fault_code: None };
        assert_eq!(down.normalized().delay_ms, None);
    }

    #[test]
    fn the_log_keeps_the_newest_requests() {
        let mut state = State::new();
        for i in 0..MAX_LOGGED_REQUESTS + 5 {
            state.log(RequestRecord {
                operation: format!("op{i}"),
                uuid: None,
                subseq_deliv_type: None,
                iic: None,
                tcr_code: None,
                signature_verified: false,
                outcome: RequestOutcome::Accepted,
                fault_code: None,
                fault_string: None,
                duplicate: false,
                received_at: String::new(),
                body: Some(format!("<op{i}/>")),
            });
        }
        assert_eq!(state.log.len(), MAX_LOGGED_REQUESTS);
        assert_eq!(state.log.front().map(|r| r.operation.as_str()), Some("op5"));
        assert_eq!(state.log.iter().filter(|r| r.body.is_some()).count(), MAX_LOGGED_BODIES);
        assert!(state.log.back().is_some_and(|r| r.body.is_some()), "the newest keep their bodies");
    }

    #[test]
    fn incoming_einvoices_are_seeded_once_per_buyer() {
        let mut state = State::new();
        state.seed_incoming("I12345678I", Utc::now());
        state.seed_incoming("i12345678i", Utc::now());
        assert_eq!(state.registry.einvoices.len(), 2);
        state.seed_incoming("K81234001A", Utc::now());
        assert_eq!(state.registry.einvoices.len(), 3, "a supplier does not bill itself");
    }

    #[test]
    fn taxpayers_include_those_with_a_tcr() {
        let mut state = State::new();
        state.remember_taxpayer("I12345678I", Some("Dyqani Arka".into()));
        state.remember_taxpayer("K81234001A", None);
        let all = state.taxpayers();
        assert_eq!(all.len(), TAXPAYERS.len() + 1);
        assert!(all.iter().any(|t| t.nuis == "I12345678I" && t.name == "Dyqani Arka"));
    }
}
