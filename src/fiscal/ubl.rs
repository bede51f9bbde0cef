//! The UBL 2.1 document of an e-invoice (an `Invoice`, or a `CreditNote` for doc type 381),
//! carrying the fiscal codes where the platform reads them (PROTOCOL.md section 4.5): the
//! profile in `cbc:ProfileID`, and IIC, IIC signature and FIC with the issue's codes in
//! `cbc:Note` elements written `Key=value#AAI#`.
//!
//! The document is written with quick-xml in the usual prefixed form, then signed as a whole
//! (`dsig::sign_document`): the enveloped signature goes into the one
//! `ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent`, and its digest covers the
//! document's exclusive canonical form without it.

use std::io;

use chrono::NaiveDate;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use rust_decimal::Decimal;

use super::Error;
use super::certificate::Certificate;
use super::dsig;
use super::model;

const INVOICE_NS: &str = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
const CREDIT_NOTE_NS: &str = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const CAC_NS: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC_NS: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";
const EXT_NS: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2";
/// EN 16931 core, as the platform's samples name it.
const CUSTOMIZATION_ID: &str = "urn:cen.eu:en16931:2017";
/// `EndpointID@schemeID` of an Albanian NUIS.
const NUIS_SCHEME: &str = "9923";
/// Where the signature goes: the empty `ExtensionContent` the writer leaves for it.
const SIGNATURE_SLOT: &str = "<ext:ExtensionContent></ext:ExtensionContent>";

/// UBL document kind: a credit note (381) is a `CreditNote`, anything else an `Invoice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Invoice,
    CreditNote,
}

/// A business as both parties are identified: by NUIS (Albanian taxpayers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    pub nuis: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
}

/// `cac:PaymentMeans`: UNCL 4461 code (30 credit transfer, 10 cash, 48 card, ZZZ other), and
/// the account to pay into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentMeans {
    pub code: &'static str,
    pub iban: Option<String>,
    pub account_name: Option<String>,
    pub swift: Option<String>,
}

/// VAT category (UNCL 5305) of a line or a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxCategory {
    /// S standard rate, Z zero rated, E exempt, G export, O outside the scope of VAT.
    pub id: &'static str,
    pub percent: Decimal,
    /// The CIS exemption (`TYPE_1`, ...) of an exempt category.
    pub exemption: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxSubtotal {
    pub taxable: Decimal,
    pub tax: Decimal,
    pub category: TaxCategory,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub name: String,
    pub code: String,
    pub quantity: Decimal,
    /// UN/ECE Recommendation 20 unit code, e.g. `C62`.
    pub unit_code: String,
    /// Net line amount (after every discount).
    pub net: Decimal,
    /// Net unit price.
    pub price: Decimal,
    pub category: TaxCategory,
}

/// The invoice an e-invoice corrects (credit and debit notes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original {
    pub number: String,
    pub issue_date: NaiveDate,
}

/// The fiscal codes the platform checks against the CIS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiscalCodes {
    pub issue_date_time: String,
    pub operator_code: String,
    pub business_unit_code: String,
    pub soft_code: String,
    pub iic: String,
    pub iic_signature: String,
    pub fic: String,
}

/// Everything the UBL document says; amounts in `currency`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub kind: Kind,
    /// UNCL 1001: 380, 381 or 383.
    pub type_code: String,
    /// `P1`..`P12`.
    pub profile: String,
    pub number: String,
    pub issue_date: NaiveDate,
    pub due_date: Option<NaiveDate>,
    pub codes: FiscalCodes,
    pub notes: Option<String>,
    pub currency: String,
    pub period: Option<(NaiveDate, NaiveDate)>,
    pub original: Option<Original>,
    pub supplier: Party,
    pub customer: Party,
    pub payment: PaymentMeans,
    /// A fee outside the VAT base (`cac:AllowanceCharge`, category O).
    pub fee: Decimal,
    pub subtotals: Vec<TaxSubtotal>,
    /// The VAT in lek, for an invoice in another currency (`TaxCurrencyCode` ALL).
    pub vat_in_lek: Option<Decimal>,
    pub lines: Vec<Line>,
}

impl Document {
    fn root(&self) -> (&'static str, &'static str) {
        match self.kind {
            Kind::Invoice => ("Invoice", INVOICE_NS),
            Kind::CreditNote => ("CreditNote", CREDIT_NOTE_NS),
        }
    }

    fn net_total(&self) -> Decimal {
        self.lines.iter().map(|l| l.net).sum()
    }

    fn vat_total(&self) -> Decimal {
        self.subtotals.iter().map(|s| s.tax).sum()
    }
}

/// The fiscal `cbc:Note`s, in the platform's `Key=value#AAI#` form.
pub fn fiscal_notes(codes: &FiscalCodes) -> Vec<String> {
    [
        ("IssueDateTime", codes.issue_date_time.as_str()),
        ("OperatorCode", &codes.operator_code),
        ("BusinessUnitCode", &codes.business_unit_code),
        ("SoftwareCode", &codes.soft_code),
        ("IsBadDebtInv", "false"),
        ("IIC", &codes.iic),
        ("IICSignature", &codes.iic_signature),
        ("FIC", &codes.fic),
    ]
    .iter()
    .map(|(key, value)| format!("{key}={value}#AAI#"))
    .collect()
}

/// The value of a fiscal note `key` in a document's notes (what the platform reads back).
pub fn fiscal_note<'a>(notes: impl IntoIterator<Item = &'a str>, key: &str) -> Option<&'a str> {
    notes.into_iter().find_map(|note| {
        note.trim().strip_prefix(key)?.strip_prefix('=')?.strip_suffix("#AAI#").map(str::trim)
    })
}

/// The unsigned document, with an empty `ExtensionContent` waiting for the signature.
pub fn unsigned(document: &Document) -> Result<String, Error> {
    write(document).map_err(|e| Error::Xml(format!("writing the UBL document: {e}")))
}

/// The document signed with `certificate`, ready to be registered.
pub fn signed(document: &Document, certificate: &Certificate) -> Result<String, Error> {
    let unsigned = unsigned(document)?;
    let slot = unsigned
        .find(SIGNATURE_SLOT)
        .map(|at| at + "<ext:ExtensionContent>".len())
        .ok_or_else(|| Error::Xml("the UBL document has no ExtensionContent".into()))?;
    dsig::sign_document(&unsigned, slot, certificate)
}

type Out = Writer<Vec<u8>>;

fn start(w: &mut Out, name: &str, attrs: &[(&str, &str)]) -> io::Result<()> {
    let mut element = BytesStart::new(name);
    for attr in attrs {
        element.push_attribute(*attr);
    }
    w.write_event(Event::Start(element))
}

fn end(w: &mut Out, name: &str) -> io::Result<()> {
    w.write_event(Event::End(BytesEnd::new(name)))
}

fn text(w: &mut Out, name: &str, attrs: &[(&str, &str)], value: &str) -> io::Result<()> {
    start(w, name, attrs)?;
    w.write_event(Event::Text(BytesText::new(value)))?;
    end(w, name)
}

fn amount(w: &mut Out, name: &str, currency: &str, value: Decimal) -> io::Result<()> {
    text(w, name, &[("currencyID", currency)], &model::money(value))
}

fn write(d: &Document) -> io::Result<String> {
    let mut w = Writer::new(Vec::new());
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let (root, ns) = d.root();
    start(
        &mut w,
        root,
        &[("xmlns", ns), ("xmlns:cac", CAC_NS), ("xmlns:cbc", CBC_NS), ("xmlns:ext", EXT_NS)],
    )?;
    start(&mut w, "ext:UBLExtensions", &[])?;
    start(&mut w, "ext:UBLExtension", &[])?;
    start(&mut w, "ext:ExtensionContent", &[])?;
    end(&mut w, "ext:ExtensionContent")?;
    end(&mut w, "ext:UBLExtension")?;
    end(&mut w, "ext:UBLExtensions")?;
    text(&mut w, "cbc:CustomizationID", &[], CUSTOMIZATION_ID)?;
    text(&mut w, "cbc:ProfileID", &[], &d.profile)?;
    text(&mut w, "cbc:ID", &[], &d.number)?;
    text(&mut w, "cbc:IssueDate", &[], &model::date(d.issue_date))?;
    match d.kind {
        Kind::Invoice => {
            if let Some(due) = d.due_date {
                text(&mut w, "cbc:DueDate", &[], &model::date(due))?;
            }
            text(&mut w, "cbc:InvoiceTypeCode", &[], &d.type_code)?;
        }
        Kind::CreditNote => text(&mut w, "cbc:CreditNoteTypeCode", &[], &d.type_code)?,
    }
    for note in fiscal_notes(&d.codes).iter().chain(d.notes.iter()) {
        text(&mut w, "cbc:Note", &[], note)?;
    }
    text(&mut w, "cbc:DocumentCurrencyCode", &[], &d.currency)?;
    if d.vat_in_lek.is_some() {
        text(&mut w, "cbc:TaxCurrencyCode", &[], "ALL")?;
    }
    if let Some((from, to)) = d.period {
        start(&mut w, "cac:InvoicePeriod", &[])?;
        text(&mut w, "cbc:StartDate", &[], &model::date(from))?;
        text(&mut w, "cbc:EndDate", &[], &model::date(to))?;
        end(&mut w, "cac:InvoicePeriod")?;
    }
    if let Some(original) = &d.original {
        start(&mut w, "cac:BillingReference", &[])?;
        start(&mut w, "cac:InvoiceDocumentReference", &[])?;
        text(&mut w, "cbc:ID", &[], &original.number)?;
        text(&mut w, "cbc:IssueDate", &[], &model::date(original.issue_date))?;
        end(&mut w, "cac:InvoiceDocumentReference")?;
        end(&mut w, "cac:BillingReference")?;
    }
    party(&mut w, "cac:AccountingSupplierParty", &d.supplier)?;
    party(&mut w, "cac:AccountingCustomerParty", &d.customer)?;
    payment_means(&mut w, d)?;
    if d.fee != Decimal::ZERO {
        start(&mut w, "cac:AllowanceCharge", &[])?;
        text(&mut w, "cbc:ChargeIndicator", &[], "true")?;
        text(&mut w, "cbc:AllowanceChargeReason", &[], "Fee")?;
        amount(&mut w, "cbc:Amount", &d.currency, d.fee)?;
        tax_category(&mut w, "cac:TaxCategory", &outside_vat())?;
        end(&mut w, "cac:AllowanceCharge")?;
    }
    tax_total(&mut w, d)?;
    monetary_total(&mut w, d)?;
    for (index, line) in d.lines.iter().enumerate() {
        invoice_line(&mut w, d, index + 1, line)?;
    }
    end(&mut w, root)?;
    String::from_utf8(w.into_inner()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn party(w: &mut Out, role: &str, p: &Party) -> io::Result<()> {
    start(w, role, &[])?;
    start(w, "cac:Party", &[])?;
    text(w, "cbc:EndpointID", &[("schemeID", NUIS_SCHEME)], &p.nuis)?;
    start(w, "cac:PartyIdentification", &[])?;
    text(w, "cbc:ID", &[], &p.nuis)?;
    end(w, "cac:PartyIdentification")?;
    start(w, "cac:PartyName", &[])?;
    text(w, "cbc:Name", &[], &p.name)?;
    end(w, "cac:PartyName")?;
    start(w, "cac:PostalAddress", &[])?;
    if let Some(street) = &p.address {
        text(w, "cbc:StreetName", &[], street)?;
    }
    if let Some(city) = &p.city {
        text(w, "cbc:CityName", &[], city)?;
    }
    // Both parties are Albanian taxpayers: the buyer is checked in the register by its NUIS.
    start(w, "cac:Country", &[])?;
    text(w, "cbc:IdentificationCode", &[], "AL")?;
    end(w, "cac:Country")?;
    end(w, "cac:PostalAddress")?;
    start(w, "cac:PartyTaxScheme", &[])?;
    text(w, "cbc:CompanyID", &[], &format!("AL{}", p.nuis))?;
    start(w, "cac:TaxScheme", &[])?;
    text(w, "cbc:ID", &[], "VAT")?;
    end(w, "cac:TaxScheme")?;
    end(w, "cac:PartyTaxScheme")?;
    start(w, "cac:PartyLegalEntity", &[])?;
    text(w, "cbc:RegistrationName", &[], &p.name)?;
    text(w, "cbc:CompanyID", &[], &p.nuis)?;
    end(w, "cac:PartyLegalEntity")?;
    end(w, "cac:Party")?;
    end(w, role)
}

fn payment_means(w: &mut Out, d: &Document) -> io::Result<()> {
    let p = &d.payment;
    start(w, "cac:PaymentMeans", &[])?;
    text(w, "cbc:PaymentMeansCode", &[], p.code)?;
    // UBL 2.1's CreditNote has no DueDate of its own: the payment carries it.
    if let (Kind::CreditNote, Some(due)) = (d.kind, d.due_date) {
        text(w, "cbc:PaymentDueDate", &[], &model::date(due))?;
    }
    if let Some(iban) = &p.iban {
        start(w, "cac:PayeeFinancialAccount", &[])?;
        text(w, "cbc:ID", &[], iban)?;
        if let Some(name) = &p.account_name {
            text(w, "cbc:Name", &[], name)?;
        }
        if let Some(swift) = &p.swift {
            start(w, "cac:FinancialInstitutionBranch", &[])?;
            text(w, "cbc:ID", &[], swift)?;
            end(w, "cac:FinancialInstitutionBranch")?;
        }
        end(w, "cac:PayeeFinancialAccount")?;
    }
    end(w, "cac:PaymentMeans")
}

fn outside_vat() -> TaxCategory {
    TaxCategory { id: "O", percent: Decimal::ZERO, exemption: None }
}

fn tax_category(w: &mut Out, name: &str, c: &TaxCategory) -> io::Result<()> {
    start(w, name, &[])?;
    text(w, "cbc:ID", &[], c.id)?;
    if c.id != "O" {
        text(w, "cbc:Percent", &[], &model::rate(c.percent))?;
    }
    if let Some(exemption) = &c.exemption {
        text(w, "cbc:TaxExemptionReasonCode", &[], exemption)?;
    }
    start(w, "cac:TaxScheme", &[])?;
    text(w, "cbc:ID", &[], "VAT")?;
    end(w, "cac:TaxScheme")?;
    end(w, name)
}

fn tax_total(w: &mut Out, d: &Document) -> io::Result<()> {
    start(w, "cac:TaxTotal", &[])?;
    amount(w, "cbc:TaxAmount", &d.currency, d.vat_total())?;
    let fee = (d.fee != Decimal::ZERO).then(|| TaxSubtotal {
        taxable: d.fee,
        tax: Decimal::ZERO,
        category: outside_vat(),
    });
    for s in d.subtotals.iter().chain(fee.iter()) {
        start(w, "cac:TaxSubtotal", &[])?;
        amount(w, "cbc:TaxableAmount", &d.currency, s.taxable)?;
        amount(w, "cbc:TaxAmount", &d.currency, s.tax)?;
        tax_category(w, "cac:TaxCategory", &s.category)?;
        end(w, "cac:TaxSubtotal")?;
    }
    end(w, "cac:TaxTotal")?;
    if let Some(lek) = d.vat_in_lek {
        start(w, "cac:TaxTotal", &[])?;
        amount(w, "cbc:TaxAmount", "ALL", lek)?;
        end(w, "cac:TaxTotal")?;
    }
    Ok(())
}

fn monetary_total(w: &mut Out, d: &Document) -> io::Result<()> {
    let net = d.net_total();
    let without_vat = net + d.fee;
    let with_vat = without_vat + d.vat_total();
    start(w, "cac:LegalMonetaryTotal", &[])?;
    amount(w, "cbc:LineExtensionAmount", &d.currency, net)?;
    amount(w, "cbc:TaxExclusiveAmount", &d.currency, without_vat)?;
    amount(w, "cbc:TaxInclusiveAmount", &d.currency, with_vat)?;
    if d.fee != Decimal::ZERO {
        amount(w, "cbc:ChargeTotalAmount", &d.currency, d.fee)?;
    }
    amount(w, "cbc:PayableAmount", &d.currency, with_vat)?;
    end(w, "cac:LegalMonetaryTotal")
}

fn invoice_line(w: &mut Out, d: &Document, id: usize, line: &Line) -> io::Result<()> {
    let (element, quantity) = match d.kind {
        Kind::Invoice => ("cac:InvoiceLine", "cbc:InvoicedQuantity"),
        Kind::CreditNote => ("cac:CreditNoteLine", "cbc:CreditedQuantity"),
    };
    start(w, element, &[])?;
    text(w, "cbc:ID", &[], &id.to_string())?;
    text(w, quantity, &[("unitCode", &line.unit_code)], &model::quantity(line.quantity))?;
    amount(w, "cbc:LineExtensionAmount", &d.currency, line.net)?;
    start(w, "cac:Item", &[])?;
    text(w, "cbc:Name", &[], &line.name)?;
    start(w, "cac:SellersItemIdentification", &[])?;
    text(w, "cbc:ID", &[], &line.code)?;
    end(w, "cac:SellersItemIdentification")?;
    tax_category(w, "cac:ClassifiedTaxCategory", &line.category)?;
    end(w, "cac:Item")?;
    start(w, "cac:Price", &[])?;
    amount(w, "cbc:PriceAmount", &d.currency, line.price)?;
    end(w, "cac:Price")?;
    end(w, element)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fiscal::testing::outside_tool;
    use std::path::PathBuf;
    use std::process::Command;
    use std::str::FromStr;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn standard(percent: &str) -> TaxCategory {
        TaxCategory { id: "S", percent: dec(percent), exemption: None }
    }

    pub(crate) fn sample(kind: Kind) -> Document {
        Document {
            kind,
            type_code: if kind == Kind::CreditNote { "381" } else { "380" }.to_string(),
            profile: if kind == Kind::CreditNote { "P9" } else { "P1" }.to_string(),
            number: "7/2026".to_string(),
            issue_date: day(2026, 3, 2),
            due_date: Some(day(2026, 4, 1)),
            codes: FiscalCodes {
                issue_date_time: "2026-03-02T10:15:00+01:00".to_string(),
                operator_code: "op123op123".to_string(),
                business_unit_code: "ab123cd456".to_string(),
                soft_code: "ss123ss123".to_string(),
                iic: "D04C13B4063D63A13B5D822A90178A7C".to_string(),
                iic_signature: "A".repeat(512),
                fic: "2f1c0a34-7b1e-4a3d-9c5e-0d8f6a2b1c3e".to_string(),
            },
            notes: Some("Dorëzim në magazinë & <pagesë> brenda muajit".to_string()),
            currency: "ALL".to_string(),
            period: Some((day(2026, 2, 1), day(2026, 2, 28))),
            original: (kind == Kind::CreditNote)
                .then(|| Original { number: "6/2026".to_string(), issue_date: day(2026, 2, 27) }),
            supplier: Party {
                nuis: "L41323036D".to_string(),
                name: "Dyqani Ana sh.p.k.".to_string(),
                address: Some("Rruga Myslym Shyri 5".to_string()),
                city: Some("Tiranë".to_string()),
            },
            customer: Party {
                nuis: "K81234001A".to_string(),
                name: "Ushqimore Dardania sh.p.k.".to_string(),
                address: None,
                city: Some("Tiranë".to_string()),
            },
            payment: PaymentMeans {
                code: "30",
                iban: Some("AL47212110090000000235698741".to_string()),
                account_name: Some("BKT".to_string()),
                swift: Some("BKTRALTR".to_string()),
            },
            fee: dec("100"),
            subtotals: vec![
                TaxSubtotal { taxable: dec("200"), tax: dec("40"), category: standard("20") },
                TaxSubtotal {
                    taxable: dec("50"),
                    tax: dec("0"),
                    category: TaxCategory { id: "E", percent: dec("0"), exemption: Some("TYPE_1".into()) },
                },
            ],
            vat_in_lek: None,
            lines: vec![
                Line {
                    name: "Kafe".to_string(),
                    code: "K1".to_string(),
                    quantity: dec("2"),
                    unit_code: "C62".to_string(),
                    net: dec("200"),
                    price: dec("100"),
                    category: standard("20"),
                },
                Line {
                    name: "Libër".to_string(),
                    code: "L1".to_string(),
                    quantity: dec("0.5"),
                    unit_code: "KGM".to_string(),
                    net: dec("50"),
                    price: dec("100"),
                    category: TaxCategory { id: "E", percent: dec("0"), exemption: Some("TYPE_1".into()) },
                },
            ],
        }
    }

    /// The OASIS UBL 2.1 schema, which `./test` fetches (`.ci/ubl-schema`).
    pub(crate) fn ubl_schema(kind: Kind) -> PathBuf {
        let file = match kind {
            Kind::Invoice => "UBL-Invoice-2.1.xsd",
            Kind::CreditNote => "UBL-CreditNote-2.1.xsd",
        };
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/ubl-2.1/maindoc").join(file);
        assert!(
            path.is_file(),
            "the UBL 2.1 schema is missing ({path:?}): ./test fetches it (.ci/ubl-schema)"
        );
        path
    }

    /// `xmllint --schema` (UBL 2.1) and `xmlsec1 --verify` (the document's own certificate
    /// given as the trusted one) both accept `xml`.
    pub(crate) fn assert_judged_by_outside_tools(kind: Kind, xml: &str, cert: &Certificate) {
        let dir = tempfile::tempdir().unwrap();
        let (file, pem) = (dir.path().join("ubl.xml"), dir.path().join("cert.pem"));
        std::fs::write(&file, xml).unwrap();
        let x509 = openssl::x509::X509::from_der(cert.cert_der()).unwrap();
        std::fs::write(&pem, x509.to_pem().unwrap()).unwrap();
        let lint = outside_tool(
            Command::new("xmllint").arg("--noout").arg("--schema").arg(ubl_schema(kind)).arg(&file),
            "libxml2-utils",
        );
        assert!(lint.status.success(), "xmllint: {}\n{xml}", String::from_utf8_lossy(&lint.stderr));
        let verify = outside_tool(
            Command::new("xmlsec1").arg("--verify").arg("--pubkey-cert-pem").arg(&pem).arg(&file),
            "xmlsec1",
        );
        assert!(verify.status.success(), "xmlsec1: {}", String::from_utf8_lossy(&verify.stderr));
    }

    fn certificate() -> Certificate {
        Certificate::generate_self_signed("L41323036D", "Dyqani Ana", chrono::Duration::days(30)).unwrap()
    }

    #[test]
    fn an_invoice_and_a_credit_note_pass_the_ubl_schema_and_the_signature_oracle() {
        let cert = certificate();
        for kind in [Kind::Invoice, Kind::CreditNote] {
            let signed = signed(&sample(kind), &cert).unwrap();
            assert_judged_by_outside_tools(kind, &signed, &cert);
            let verified = dsig::verify_document(&signed).unwrap();
            assert_eq!(verified.cert.to_der().unwrap(), cert.cert_der());
        }
    }

    #[test]
    fn the_fiscal_codes_are_where_the_platform_reads_them() {
        let document = sample(Kind::Invoice);
        let xml = unsigned(&document).unwrap();
        assert!(xml.contains("<cbc:ProfileID>P1</cbc:ProfileID><cbc:ID>7/2026</cbc:ID>"));
        assert!(xml.contains("<cbc:Note>IIC=D04C13B4063D63A13B5D822A90178A7C#AAI#</cbc:Note>"));
        assert!(xml.contains("<cbc:Note>FIC=2f1c0a34-7b1e-4a3d-9c5e-0d8f6a2b1c3e#AAI#</cbc:Note>"));
        assert!(xml.contains(&format!("<cbc:Note>IICSignature={}#AAI#</cbc:Note>", "A".repeat(512))));
        assert!(xml.contains("<cbc:EndpointID schemeID=\"9923\">K81234001A</cbc:EndpointID>"));
        assert!(xml.contains("<cbc:PayableAmount currencyID=\"ALL\">390.00</cbc:PayableAmount>"));
        let notes = fiscal_notes(&document.codes);
        assert_eq!(fiscal_note(notes.iter().map(String::as_str), "IIC"), Some(document.codes.iic.as_str()));
        assert_eq!(fiscal_note(notes.iter().map(String::as_str), "FIC"), Some(document.codes.fic.as_str()));
        assert_eq!(fiscal_note(["IICX=1#AAI#"], "IIC"), None);
    }

    #[test]
    fn a_changed_amount_breaks_the_signature() {
        let cert = certificate();
        let signed = signed(&sample(Kind::Invoice), &cert).unwrap();
        let tampered = signed.replace(">390.00</cbc:PayableAmount>", ">39.00</cbc:PayableAmount>");
        assert_ne!(tampered, signed);
        let error = dsig::verify_document(&tampered).unwrap_err().to_string();
        assert!(error.contains("digest mismatch"), "{error}");
        assert!(dsig::sign_document(&signed, 10, &cert).is_err(), "a signed document is not signed again");
    }

    #[test]
    fn a_foreign_currency_invoice_carries_its_vat_in_lek() {
        let cert = certificate();
        let document =
            Document { currency: "EUR".to_string(), vat_in_lek: Some(dec("3950")), ..sample(Kind::Invoice) };
        let signed = signed(&document, &cert).unwrap();
        assert!(signed.contains("<cbc:TaxCurrencyCode>ALL</cbc:TaxCurrencyCode>"));
        assert!(signed.contains("<cbc:TaxAmount currencyID=\"ALL\">3950.00</cbc:TaxAmount>"));
        assert_judged_by_outside_tools(Kind::Invoice, &signed, &cert);
    }
}
