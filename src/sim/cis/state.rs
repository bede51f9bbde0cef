//! What the simulator remembers, in memory only: the mode it was told to play, the log of
//! SOAP requests, and everything it registered. A restart forgets it all (the sandbox seeds
//! the TCRs it knows through `SimConfig::tcrs`).

use std::collections::VecDeque;

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

/// Which of the two SOAP services a mode is set for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SimService {
    Fiscalization,
    Einvoice,
}

impl SimService {
    pub fn of(service: crate::fiscal::requests::Service) -> Self {
        match service {
            crate::fiscal::requests::Service::Fiscalization => SimService::Fiscalization,
            crate::fiscal::requests::Service::Einvoice => SimService::Einvoice,
        }
    }
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
    /// The one service the mode is for; absent: both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<SimService>,
    /// The one operation the mode is for (`RegisterEinvoice`, ...); the others keep theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

impl ModeSetting {
    pub fn ok() -> Self {
        ModeSetting { mode: Mode::Ok, delay_ms: None, fault_code: None, service: None, operation: None }
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
        ModeSetting {
            mode: self.mode,
            delay_ms,
            fault_code,
            service: self.service,
            operation: self.operation,
        }
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
    /// On an order: the IIC of the summary that paid the last of it.
    pub settled_by: Option<String>,
    /// On an order: its items, with what summaries left unpaid of each.
    #[serde(skip)]
    pub unpaid_items: Vec<super::rules::Item>,
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
    pub seller_name: Option<String>,
    pub buyer_nuis: Option<String>,
    /// The IIC and FIC the document carries (none for seeded ones).
    pub iic: Option<String>,
    pub fic: Option<String>,
    pub currency: String,
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

/// An e-invoice handed to the simulator through `POST /control/einvoices` (or by the sandbox):
/// what a supplier sent to `buyer_nuis`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedEinvoice {
    pub buyer_nuis: String,
    pub seller_nuis: String,
    #[serde(default)]
    pub seller_name: Option<String>,
    pub doc_number: String,
    #[serde(default)]
    pub doc_type: Option<String>,
    #[serde(with = "rust_decimal::serde::float")]
    pub amount: Decimal,
    #[serde(default)]
    pub currency: Option<String>,
    /// `YYYY-MM-DDThh:mm:ss±hh:mm`; default now.
    #[serde(default)]
    pub received_at: Option<String>,
    /// `YYYY-MM-DD`; default 30 days after it was received.
    #[serde(default)]
    pub due_date: Option<String>,
    /// Default `DELIVERED`.
    #[serde(default)]
    pub status: Option<String>,
    /// Default a fresh one.
    #[serde(default)]
    pub eic: Option<String>,
}

/// The three e-invoices two suppliers sent the sandbox company, received at `received` (the
/// sandbox's first start). Their EICs follow from the buyer's NUIS, so a restarted sandbox
/// (whose simulator forgot everything) holds the same three again.
pub fn sandbox_incoming(buyer_nuis: &str, received: DateTime<Utc>) -> Vec<SeedEinvoice> {
    let sent = [
        ("K81234001A", "112/2026", "12450.00", 0),
        ("K81234001A", "113/2026", "3890.50", 2),
        ("K51234006F", "27/2026", "60000.00", 5),
    ];
    sent.iter()
        .enumerate()
        .map(|(index, (seller, number, amount, minutes))| {
            let digest =
                openssl::sha::sha256(format!("arka-sandbox-einvoice:{buyer_nuis}:{index}").as_bytes());
            let mut bytes = [0u8; 16];
            bytes.copy_from_slice(&digest[..16]);
            let at = received + Duration::minutes(*minutes);
            SeedEinvoice {
                buyer_nuis: buyer_nuis.to_string(),
                seller_nuis: (*seller).to_string(),
                seller_name: None,
                doc_number: (*number).to_string(),
                doc_type: None,
                amount: amount.parse().unwrap_or(Decimal::ZERO),
                currency: None,
                received_at: Some(model::datetime(at)),
                due_date: Some(
                    (at + Duration::days(30))
                        .with_timezone(&chrono_tz::Europe::Tirane)
                        .date_naive()
                        .to_string(),
                ),
                status: None,
                eic: Some(uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()),
            }
        })
        .collect()
}

/// The statuses an e-invoice can have: the platform's first one, then what its buyer says.
pub const EINVOICE_STATUSES: &[&str] = &["DELIVERED", "ACCEPTED", "REFUSED", "PAID", "PARTIALLY_PAID"];

/// A small PDF of an e-invoice, as the platform hands one out with it.
pub fn einvoice_pdf(e: &StoredEinvoice) -> Vec<u8> {
    let lines = [
        format!("EIC: {}", e.eic),
        format!("Numri / Number: {}", e.doc_number),
        format!("Lloji / Type: {}", e.doc_type),
        format!("Shitësi / Seller: {} {}", e.seller_nuis, e.seller_name.as_deref().unwrap_or("")),
        format!("Blerësi / Buyer: {}", e.buyer_nuis.as_deref().unwrap_or("")),
        format!("Shuma / Amount: {} {}", model::money(e.amount), e.currency),
        format!("Marrë / Received: {}", e.rec_date_time),
        format!("Afati / Due: {}", e.due_date_time),
    ];
    // The text is bounded (a title and eight lines), so rendering cannot fail for its size.
    crate::print::text_page("Faturë elektronike / E-invoice", &lines).unwrap_or_default()
}

/// Everything behind the simulator's lock.
#[derive(Debug)]
pub struct State {
    pub mode: ModeSetting,
    pub log: VecDeque<RequestRecord>,
    pub registry: Registry,
    /// Names of the taxpayers that registered a TCR, from their certificates.
    pub known_taxpayers: Vec<Taxpayer>,
    /// How the e-invoice service answers (`mode` is the fiscalization service's).
    pub einvoice_mode: ModeSetting,
    /// Modes set for one operation each, ahead of their service's.
    pub operation_modes: Vec<ModeSetting>,
}

impl State {
    pub fn new() -> Self {
        State {
            mode: ModeSetting::ok(),
            log: VecDeque::new(),
            registry: Registry::default(),
            known_taxpayers: Vec::new(),
            einvoice_mode: ModeSetting::ok(),
            operation_modes: Vec::new(),
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

    /// The mode `service` answers in.
    pub fn mode_of(&self, service: SimService) -> &ModeSetting {
        match service {
            SimService::Fiscalization => &self.mode,
            SimService::Einvoice => &self.einvoice_mode,
        }
    }

    /// The mode a request for `operation` (e.g. `RegisterEinvoice`) of `service` meets.
    pub fn mode_for(&self, service: SimService, operation: &str) -> &ModeSetting {
        self.operation_modes
            .iter()
            .find(|m| m.operation.as_deref() == Some(operation))
            .unwrap_or_else(|| self.mode_of(service))
    }

    /// Sets the mode of the operation it names, or of the service it names, or of both (which
    /// also ends every operation's own mode).
    pub fn set_mode(&mut self, setting: ModeSetting) {
        if let Some(operation) = setting.operation.clone() {
            self.operation_modes.retain(|m| m.operation.as_deref() != Some(operation.as_str()));
            if setting.mode != Mode::Ok {
                self.operation_modes.push(setting);
            }
            return;
        }
        if setting.service.is_none() {
            self.operation_modes.clear();
        }
        match setting.service {
            Some(SimService::Fiscalization) => self.mode = setting,
            Some(SimService::Einvoice) => self.einvoice_mode = setting,
            None => {
                self.mode = setting.clone();
                self.einvoice_mode = setting;
            }
        }
    }

    /// Holds an e-invoice a supplier sent to a buyer; the same EIC again replaces it.
    pub fn seed(&mut self, seed: SeedEinvoice, now: DateTime<Utc>) -> Result<StoredEinvoice, String> {
        let nuis_ok = |n: &str| super::xsd::is_nuis(n);
        if !nuis_ok(&seed.buyer_nuis) || !nuis_ok(&seed.seller_nuis) {
            return Err("buyer_nuis and seller_nuis must be NUIS (a letter, eight digits, a letter)".into());
        }
        let doc_type = seed.doc_type.unwrap_or_else(|| "380".to_string());
        if !super::xsd::DOC_TYPES.contains(&doc_type.as_str()) && doc_type != "381" {
            return Err(format!("unknown doc_type {doc_type}"));
        }
        let status = seed.status.unwrap_or_else(|| "DELIVERED".to_string());
        if !EINVOICE_STATUSES.contains(&status.as_str()) {
            return Err(format!("status must be one of {}", EINVOICE_STATUSES.join(", ")));
        }
        if seed.amount < Decimal::ZERO || seed.amount > Decimal::from(1_000_000_000_000i64) {
            return Err("amount must be between 0 and 1 000 000 000 000".into());
        }
        if seed.doc_number.trim().is_empty() || seed.doc_number.chars().count() > 100 {
            return Err("doc_number must have 1 to 100 characters".into());
        }
        let received = match &seed.received_at {
            Some(text) => DateTime::parse_from_rfc3339(text)
                .map_err(|_| "received_at must be YYYY-MM-DDThh:mm:ss+hh:mm".to_string())?
                .with_timezone(&Utc),
            None => now,
        };
        let due = match &seed.due_date {
            Some(text) => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|_| "due_date must be YYYY-MM-DD".to_string())?
                .and_hms_opt(0, 0, 0)
                .map(|midnight| midnight.and_utc())
                .unwrap_or(received),
            None => received + Duration::days(30),
        };
        let eic = match seed.eic {
            Some(eic) if super::xsd::is_uuid(&eic) => eic,
            Some(_) => return Err("eic must be a UUID".into()),
            None => uuid::Uuid::new_v4().to_string(),
        };
        let known = self.taxpayers().into_iter().find(|t| t.nuis.eq_ignore_ascii_case(&seed.seller_nuis));
        let seller_name = seed.seller_name.or(known.map(|t| t.name));
        self.remember_taxpayer(&seed.seller_nuis, seller_name.clone());
        let mut einvoice = StoredEinvoice {
            eic,
            request_uuid: None,
            seller_nuis: seed.seller_nuis,
            seller_name,
            buyer_nuis: Some(seed.buyer_nuis),
            iic: None,
            fic: None,
            currency: seed.currency.unwrap_or_else(|| "ALL".to_string()).to_uppercase(),
            doc_number: seed.doc_number,
            doc_type,
            amount: seed.amount.round_dp(2),
            rec_date_time: model::datetime(received),
            due_date_time: model::datetime(due),
            status,
            seeded: true,
            pdf: Vec::new(),
        };
        einvoice.pdf = einvoice_pdf(&einvoice);
        self.registry.einvoices.retain(|e| !e.eic.eq_ignore_ascii_case(&einvoice.eic));
        self.registry.einvoices.push(einvoice.clone());
        Ok(einvoice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn modes_get_their_defaults_and_bounds() {
        let slow = ModeSetting {
            mode: Mode::Slow,
            delay_ms: Some(u64::MAX),
            fault_code: Some("x".into()),
            ..ModeSetting::ok()
        };
        assert_eq!(
            slow.normalized(),
            ModeSetting { mode: Mode::Slow, delay_ms: Some(MAX_DELAY_MS), ..ModeSetting::ok() }
        );
        let fault = ModeSetting { mode: Mode::Fault, ..ModeSetting::ok() };
        let fault = fault.normalized();
        assert_eq!(fault.fault_code.as_deref(), Some("11"));
        assert_eq!(fault.delay_ms, None, "a fault comes at once unless a delay is asked for");
        let late = ModeSetting { mode: Mode::Fault, delay_ms: Some(u64::MAX), ..ModeSetting::ok() };
        assert_eq!(late.normalized().delay_ms, Some(MAX_DELAY_MS));
        let down = ModeSetting { mode: Mode::Down, delay_ms: Some(5), ..ModeSetting::ok() };
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

    fn seed(buyer: &str, eic: Option<&str>) -> SeedEinvoice {
        SeedEinvoice {
            buyer_nuis: buyer.to_string(),
            seller_nuis: "K81234001A".to_string(),
            seller_name: None,
            doc_number: "40/2026".to_string(),
            doc_type: None,
            amount: Decimal::new(1245000, 2),
            currency: None,
            received_at: None,
            due_date: None,
            status: None,
            eic: eic.map(str::to_string),
        }
    }

    #[test]
    fn a_seeded_einvoice_gets_its_defaults_a_pdf_and_replaces_one_with_its_eic() {
        let mut state = State::new();
        let eic = "2f1c0a34-7b1e-4a3d-9c5e-0d8f6a2b1c3e";
        let stored = state.seed(seed("I12345678I", Some(eic)), Utc::now()).unwrap();
        assert_eq!(
            (stored.status.as_str(), stored.doc_type.as_str(), stored.currency.as_str()),
            ("DELIVERED", "380", "ALL")
        );
        assert_eq!(stored.seller_name.as_deref(), Some("Ushqimore Dardania sh.p.k."));
        assert!(stored.pdf.starts_with(b"%PDF-"));
        state.seed(seed("I12345678I", Some(eic)), Utc::now()).unwrap();
        assert_eq!(state.registry.einvoices.len(), 1);
        state.seed(seed("I12345678I", None), Utc::now()).unwrap();
        assert_eq!(state.registry.einvoices.len(), 2);
        for bad in [
            SeedEinvoice { buyer_nuis: "123".into(), ..seed("I12345678I", None) },
            SeedEinvoice { status: Some("LOST".into()), ..seed("I12345678I", None) },
            SeedEinvoice { eic: Some("x".into()), ..seed("I12345678I", None) },
            SeedEinvoice { amount: Decimal::new(-1, 0), ..seed("I12345678I", None) },
            SeedEinvoice { doc_type: Some("999".into()), ..seed("I12345678I", None) },
        ] {
            assert!(state.seed(bad, Utc::now()).is_err());
        }
    }

    #[test]
    fn the_sandbox_gets_the_same_three_einvoices_from_two_suppliers_each_start() {
        let first_start = Utc::now() - Duration::days(3);
        let seeds = sandbox_incoming("K00000001S", first_start);
        let again = sandbox_incoming("K00000001S", first_start);
        assert_eq!(seeds.len(), 3);
        let eics: Vec<_> = seeds.iter().map(|s| s.eic.clone()).collect();
        assert_eq!(eics, again.iter().map(|s| s.eic.clone()).collect::<Vec<_>>());
        let mut state = State::new();
        for seed in seeds {
            state.seed(seed, Utc::now()).unwrap();
        }
        let sellers: HashSet<&str> =
            state.registry.einvoices.iter().map(|e| e.seller_nuis.as_str()).collect();
        assert_eq!(sellers.len(), 2);
        assert!(state.registry.einvoices.iter().all(|e| e.buyer_nuis.as_deref() == Some("K00000001S")));
    }

    #[test]
    fn a_mode_set_for_one_service_leaves_the_other_alone() {
        let mut state = State::new();
        let down = ModeSetting { mode: Mode::Down, service: Some(SimService::Einvoice), ..ModeSetting::ok() };
        state.set_mode(down);
        assert_eq!(state.mode_of(SimService::Einvoice).mode, Mode::Down);
        assert_eq!(state.mode_of(SimService::Fiscalization).mode, Mode::Ok);
        state.set_mode(ModeSetting { service: Some(SimService::Einvoice), ..ModeSetting::ok() });
        let garbage = ModeSetting {
            mode: Mode::Garbage,
            operation: Some("RegisterEinvoice".into()),
            ..ModeSetting::ok()
        };
        state.set_mode(garbage);
        assert_eq!(state.mode_for(SimService::Einvoice, "RegisterEinvoice").mode, Mode::Garbage);
        assert_eq!(state.mode_for(SimService::Einvoice, "GetTaxpayers").mode, Mode::Ok);
        state.set_mode(ModeSetting { service: None, ..ModeSetting::ok() });
        assert_eq!(state.mode_of(SimService::Einvoice).mode, Mode::Ok);
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
