//! The business rules the CIS applies to an invoice once it is schema-valid: totals, VAT
//! groups, numbering, what it names (the invoice a corrective document corrects, the orders a
//! summary pays) and, when asked, the cryptographic link between IIC and IICSignature.
//! Pure functions over the parsed request; each failure is the text of a code-11 fault, worded
//! like the CIS's (PROTOCOL.md sections 8 and 9).

use std::str::FromStr;

use openssl::hash::{MessageDigest, hash};
use openssl::sign::Verifier;
use openssl::x509::X509;
use rust_decimal::Decimal;

use crate::fiscal::c14n::Element;
use crate::fiscal::requests::FISCALIZATION_NS;

use super::xsd::each;

/// An amount attribute; absent (or, after the schema check, never unreadable) counts as zero.
fn amount(element: &Element, name: &str) -> Decimal {
    element.attribute(name).and_then(|value| Decimal::from_str(value).ok()).unwrap_or(Decimal::ZERO)
}

fn sum<'a>(elements: impl Iterator<Item = &'a Element>, name: &str) -> Decimal {
    elements.map(|element| amount(element, name)).sum()
}

fn children_of<'a>(
    parent: &'a Element,
    list: &'a str,
    name: &'a str,
) -> impl Iterator<Item = &'a Element> + 'a {
    parent.child(FISCALIZATION_NS, list).into_iter().flat_map(move |l| each(l, FISCALIZATION_NS, name))
}

/// Numbering: `InvNum` is `InvOrdNum/year`, plus `/TCRCode` on a cash invoice.
pub fn numbering(invoice: &Element) -> Result<(), String> {
    let inv_num = invoice.attribute("InvNum").unwrap_or_default();
    let ord_num = invoice.attribute("InvOrdNum").unwrap_or_default();
    let tcr_code = invoice.attribute("TCRCode");
    let mut parts = inv_num.split('/');
    if parts.next() != Some(ord_num) {
        return Err(format!("InvNum '{inv_num}' doesn't correspond to InvOrdNum '{ord_num}'"));
    }
    if let Some(tcr_in_number) = parts.nth(1)
        && Some(tcr_in_number) != tcr_code
    {
        return Err(format!("TCR code in InvNum '{inv_num}' doesn't correspond to TCRCode"));
    }
    if invoice.attribute("TypeOfInv") == Some("CASH") && tcr_code.is_none() {
        return Err("TCRCode is required for a cash invoice".to_string());
    }
    Ok(())
}

/// An invoice named by another: its IIC and its IssueDateTime as the naming one gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub iic: String,
    pub issue_date_time: String,
}

/// What an invoice names besides itself, and how it is paid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct References {
    /// `CorrectiveInv`, with its `Type`.
    pub corrects: Option<(Named, String)>,
    /// `SumInvIICRefs`: the orders a summary pays.
    pub summarized: Vec<Named>,
    /// `PayMethod@Type` of each payment.
    pub pay_methods: Vec<String>,
}

impl References {
    pub fn is_order(&self) -> bool {
        self.pay_methods.iter().any(|m| m == "ORDER")
    }
}

pub fn references(invoice: &Element) -> References {
    let named = |e: &Element, iic: &str| Named {
        iic: e.attribute(iic).unwrap_or_default().to_ascii_uppercase(),
        issue_date_time: e.attribute("IssueDateTime").unwrap_or_default().to_string(),
    };
    References {
        corrects: invoice
            .child(FISCALIZATION_NS, "CorrectiveInv")
            .map(|c| (named(c, "IICRef"), c.attribute("Type").unwrap_or_default().to_string())),
        summarized: children_of(invoice, "SumInvIICRefs", "SumInvIICRef").map(|r| named(r, "IIC")).collect(),
        pay_methods: children_of(invoice, "PayMethods", "PayMethod")
            .map(|p| p.attribute("Type").unwrap_or_default().to_string())
            .collect(),
    }
}

/// Negative quantities and totals belong to corrective documents, and a CORRECTIVE one reverses
/// (its total is not positive); an order (paid with ORDER) pays no orders itself.
pub fn signs_and_roles(invoice: &Element, refs: &References) -> Result<(), String> {
    let negative_item = children_of(invoice, "Items", "I").any(|i| amount(i, "Q") < Decimal::ZERO);
    let tot_price = amount(invoice, "TotPrice");
    match &refs.corrects {
        None if negative_item || tot_price < Decimal::ZERO => {
            return Err("Negative values are allowed only when CorrectiveInv exists".to_string());
        }
        Some((_, kind)) if kind == "CORRECTIVE" && tot_price > Decimal::ZERO => {
            return Err("A corrective invoice of type CORRECTIVE must not have a positive total".to_string());
        }
        _ => {}
    }
    if refs.is_order() && !refs.summarized.is_empty() {
        return Err("An invoice paid with ORDER cannot settle order invoices".to_string());
    }
    Ok(())
}

/// Whether two IssueDateTime values name the same instant.
pub fn same_instant(a: &str, b: &str) -> bool {
    match (chrono::DateTime::parse_from_rfc3339(a), chrono::DateTime::parse_from_rfc3339(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Payments, totals and VAT groups.
pub fn totals(invoice: &Element) -> Result<(), String> {
    let tot_price = amount(invoice, "TotPrice");
    let tot_price_wo_vat = amount(invoice, "TotPriceWoVAT");
    let tot_vat_amt = amount(invoice, "TotVATAmt");

    if sum(children_of(invoice, "PayMethods", "PayMethod"), "Amt") != tot_price {
        return Err("Total price amount doesn't correspond to amount in the paymentmethods".to_string());
    }
    // No source says whether fees and consumption taxes are inside TotPriceWoVAT or added on
    // top of it, so both readings are accepted.
    let without_extras = tot_price_wo_vat + tot_vat_amt;
    let extras = sum(children_of(invoice, "Fees", "Fee"), "Amt")
        + sum(children_of(invoice, "ConsTaxes", "ConsTax"), "ConsTaxAmt");
    if tot_price != without_extras && tot_price != without_extras + extras {
        return Err("Total invoice price is wrong".to_string());
    }
    if invoice.attribute("IsIssuerInVAT") == Some("true") || invoice.attribute("IsIssuerInVAT") == Some("1") {
        vat_groups(invoice, tot_vat_amt)
    } else {
        outside_vat(invoice)
    }
}

fn outside_vat(invoice: &Element) -> Result<(), String> {
    if invoice.attribute("TotVATAmt").is_some() {
        return Err("TotVATAmt must not be present when the issuer is not in VAT".to_string());
    }
    if invoice.child(FISCALIZATION_NS, "SameTaxes").is_some() {
        return Err("SameTaxes must not be present when the issuer is not in VAT".to_string());
    }
    if children_of(invoice, "Items", "I").any(|item| amount(item, "VA") != Decimal::ZERO) {
        return Err("Item VAT amount must not be present when the issuer is not in VAT".to_string());
    }
    Ok(())
}

/// How an item or a `SameTax` is grouped for VAT.
#[derive(Debug, Clone, Copy, PartialEq)]
enum VatGroup<'a> {
    Rate(Decimal),
    Exempt(&'a str),
}

impl std::fmt::Display for VatGroup<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VatGroup::Rate(rate) => write!(f, "VAT rate {rate}"),
            VatGroup::Exempt(exemption) => write!(f, "exemption {exemption}"),
        }
    }
}

#[derive(Debug)]
struct GroupTotal<'a> {
    group: VatGroup<'a>,
    items: u64,
    price_before_vat: Decimal,
    vat: Decimal,
}

/// For an issuer in VAT: `SameTaxes` present, one group per VAT rate (or TYPE_1/TYPE_2
/// exemption) of the items, each group summing its items, and the VAT total summing both.
/// Items under the other exemptions (tax free, margin scheme, export) have their own invoice
/// totals (`TaxFreeAmt`, `MarkUpAmt`, `GoodsExAmt`) and no group.
fn vat_groups(invoice: &Element, tot_vat_amt: Decimal) -> Result<(), String> {
    let Some(same_taxes) = invoice.child(FISCALIZATION_NS, "SameTaxes") else {
        return Err("SameTaxes are required when the issuer is in VAT".to_string());
    };
    let mut from_items: Vec<GroupTotal> = Vec::new();
    for item in children_of(invoice, "Items", "I") {
        let group = match (item.attribute("EX"), item.attribute("VR")) {
            (Some(exemption @ ("TYPE_1" | "TYPE_2")), _) => VatGroup::Exempt(exemption),
            (Some(_), _) => continue,
            (None, Some(_)) => VatGroup::Rate(amount(item, "VR")),
            (None, None) => {
                let name = item.attribute("N").unwrap_or_default();
                return Err(format!("Item '{name}' has neither a VAT rate nor an exemption"));
            }
        };
        let position = match from_items.iter().position(|g| g.group == group) {
            Some(position) => position,
            None => {
                from_items.push(GroupTotal {
                    group,
                    items: 0,
                    price_before_vat: Decimal::ZERO,
                    vat: Decimal::ZERO,
                });
                from_items.len() - 1
            }
        };
        let total = &mut from_items[position];
        total.items += 1;
        total.price_before_vat += amount(item, "PB");
        total.vat += amount(item, "VA");
    }
    let mut declared: Vec<GroupTotal> = Vec::new();
    for tax in each(same_taxes, FISCALIZATION_NS, "SameTax") {
        let group = match (tax.attribute("VATRate"), tax.attribute("ExemptFromVAT")) {
            (Some(_), None) => VatGroup::Rate(amount(tax, "VATRate")),
            (None, Some(exemption)) => VatGroup::Exempt(exemption),
            _ => return Err("SameTax must have either VATRate or ExemptFromVAT".to_string()),
        };
        if declared.iter().any(|g| g.group == group) {
            return Err(format!("SameTax for {group} appears more than once"));
        }
        declared.push(GroupTotal {
            group,
            items: tax.attribute("NumOfItems").and_then(|n| n.parse().ok()).unwrap_or(0),
            price_before_vat: amount(tax, "PriceBefVAT"),
            vat: amount(tax, "VATAmt"),
        });
    }
    for expected in &from_items {
        let Some(found) = declared.iter().find(|g| g.group == expected.group) else {
            return Err(format!("SameTaxes have no group for {} of the items", expected.group));
        };
        if found.items != expected.items
            || found.price_before_vat != expected.price_before_vat
            || found.vat != expected.vat
        {
            return Err(format!("SameTax for {} doesn't correspond to the items", expected.group));
        }
    }
    if let Some(extra) = declared.iter().find(|d| !from_items.iter().any(|g| g.group == d.group)) {
        return Err(format!("SameTax for {} has no items", extra.group));
    }
    if declared.iter().map(|g| g.vat).sum::<Decimal>() != tot_vat_amt {
        return Err("Total VAT amount is wrong".to_string());
    }
    if sum(children_of(invoice, "Items", "I"), "VA") != tot_vat_amt {
        return Err("Total VAT amount doesn't correspond to the VAT amounts of the items".to_string());
    }
    Ok(())
}

/// The strict check of a protection code (IIC or WTNIC): the signature must verify over the
/// input text with the certificate that signed the message, and the code must be the MD5 of
/// the raw signature bytes (PROTOCOL.md section 5).
pub fn protection_code(input: &str, code: &str, signature_hex: &str, cert: &X509) -> Result<(), String> {
    let signature =
        decode_hex(signature_hex).ok_or_else(|| "the signature is not hexadecimal".to_string())?;
    let public_key = cert.public_key().map_err(|e| format!("the certificate has no usable key: {e}"))?;
    let verified = Verifier::new(MessageDigest::sha256(), &public_key)
        .and_then(|mut verifier| verifier.verify_oneshot(&signature, input.as_bytes()))
        .unwrap_or(false);
    if !verified {
        return Err(format!("the signature does not verify against the certificate for input '{input}'"));
    }
    let digest = hash(MessageDigest::md5(), &signature).map_err(|e| format!("md5: {e}"))?;
    let expected: String = digest.iter().map(|b| format!("{b:02X}")).collect();
    if !expected.eq_ignore_ascii_case(code) {
        return Err(format!("the code {code} is not the MD5 of its signature ({expected})"));
    }
    Ok(())
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| hex.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect()
}

/// An item (`I`) as a summary pays it: what it is (`N`, `C`, `UPA`) and how many (`Q`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub name: String,
    pub code: Option<String>,
    pub unit_price: Decimal,
    pub quantity: Decimal,
}

impl Item {
    fn same_goods(&self, other: &Item) -> bool {
        self.name == other.name && self.code == other.code && self.unit_price == other.unit_price
    }
}

/// The invoice's items.
pub fn items(invoice: &Element) -> Vec<Item> {
    children_of(invoice, "Items", "I")
        .map(|i| Item {
            name: i.attribute("N").unwrap_or_default().to_string(),
            code: i.attribute("C").map(str::to_string),
            unit_price: amount(i, "UPA"),
            quantity: amount(i, "Q"),
        })
        .collect()
}

/// Where a summary's items come from: for each of its items in turn, the first of its orders
/// (in the order named) with that item still unpaid gives what it has, until the item is
/// covered. Answers, per order named, how much of each of its items the summary pays; a summary
/// item its orders do not have unpaid, or an order the summary pays nothing of, is refused. A
/// summary may so pay part of an order (a guest's share of a table's bill): the order stays
/// open until its every item is paid.
pub fn allocate(summary: &[Item], orders: &[(&str, &[Item])]) -> Result<Vec<Vec<Decimal>>, String> {
    let mut left: Vec<Vec<Decimal>> =
        orders.iter().map(|(_, items)| items.iter().map(|i| i.quantity).collect()).collect();
    let mut paid: Vec<Vec<Decimal>> =
        orders.iter().map(|(_, items)| vec![Decimal::ZERO; items.len()]).collect();
    for item in summary {
        let mut wanted = item.quantity;
        for (o, (_, items)) in orders.iter().enumerate() {
            for (i, unpaid) in items.iter().enumerate() {
                if wanted <= Decimal::ZERO || !unpaid.same_goods(item) {
                    continue;
                }
                let taken = wanted.min(left[o][i]);
                left[o][i] -= taken;
                paid[o][i] += taken;
                wanted -= taken;
            }
        }
        if wanted > Decimal::ZERO {
            return Err(format!(
                "The summary's item {} (Q {}) is not left unpaid on the orders it names",
                item.name, item.quantity
            ));
        }
    }
    if let Some((iic, _)) =
        orders.iter().zip(&paid).find(|(_, p)| p.iter().all(Decimal::is_zero)).map(|(o, _)| o)
    {
        return Err(format!("SumInvIICRef {iic}: the summary pays none of its items"));
    }
    Ok(paid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::iic::{IicInput, iic};
    use crate::fiscal::model::{
        Fee, FeeType, Invoice, InvoiceType, PayMethod, PayMethodType, SameTax, SameTaxExemption,
    };
    use crate::fiscal::requests::register_invoice;
    use crate::fiscal::requests::tests::{vector_certificate, vector_header, vector_invoice};

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn invoice_element(invoice: &Invoice) -> Element {
        let root = Element::parse_document(&register_invoice(&vector_header(), invoice)).unwrap();
        root.child(FISCALIZATION_NS, "Invoice").unwrap().clone()
    }

    fn totals_of(invoice: &Invoice) -> Result<(), String> {
        totals(&invoice_element(invoice))
    }

    #[test]
    fn the_testvector_invoice_adds_up() {
        totals_of(&vector_invoice()).unwrap();
        numbering(&invoice_element(&vector_invoice())).unwrap();
    }

    #[test]
    fn payments_must_cover_the_total() {
        let mut invoice = vector_invoice();
        invoice.pay_methods[0].amt = dec("99.00");
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "Total price amount doesn't correspond to amount in the paymentmethods"
        );
        invoice.pay_methods = vec![
            PayMethod { kind: PayMethodType::Banknote, amt: dec("50.00"), comp_card: None, vouchers: vec![] },
            PayMethod { kind: PayMethodType::Card, amt: dec("49.01"), comp_card: None, vouchers: vec![] },
        ];
        totals_of(&invoice).unwrap();
    }

    #[test]
    fn the_total_is_the_net_plus_vat_with_or_without_fees() {
        let mut invoice = vector_invoice();
        invoice.tot_price_wo_vat = dec("82.50");
        assert_eq!(totals_of(&invoice).unwrap_err(), "Total invoice price is wrong");
        let mut with_fee = vector_invoice();
        with_fee.fees = vec![Fee { kind: FeeType::Pack, amt: dec("1.00") }];
        with_fee.tot_price = dec("100.01");
        with_fee.pay_methods[0].amt = dec("100.01");
        totals_of(&with_fee).unwrap();
    }

    #[test]
    fn vat_groups_must_sum_their_items() {
        let mut invoice = vector_invoice();
        invoice.same_taxes.clear();
        assert_eq!(totals_of(&invoice).unwrap_err(), "SameTaxes are required when the issuer is in VAT");
        let mut invoice = vector_invoice();
        invoice.same_taxes[0].price_bef_vat = dec("80.00");
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "SameTax for VAT rate 20.00 doesn't correspond to the items"
        );
        let mut invoice = vector_invoice();
        invoice.same_taxes[0].vat_rate = Some(dec("10"));
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "SameTaxes have no group for VAT rate 20.00 of the items"
        );
        let mut invoice = vector_invoice();
        invoice.same_taxes.push(SameTax {
            num_of_items: 1,
            price_bef_vat: dec("5.00"),
            vat_rate: None,
            exempt_from_vat: Some(SameTaxExemption::Type1),
            vat_amt: None,
        });
        assert_eq!(totals_of(&invoice).unwrap_err(), "SameTax for exemption TYPE_1 has no items");
        let mut invoice = vector_invoice();
        invoice.tot_vat_amt = Some(dec("16.00"));
        invoice.tot_price_wo_vat = dec("83.01");
        assert_eq!(totals_of(&invoice).unwrap_err(), "Total VAT amount is wrong");
    }

    #[test]
    fn an_issuer_outside_vat_declares_no_vat() {
        let mut invoice = vector_invoice();
        invoice.is_issuer_in_vat = false;
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "TotVATAmt must not be present when the issuer is not in VAT"
        );
        invoice.tot_vat_amt = None;
        invoice.tot_price_wo_vat = dec("99.01");
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "SameTaxes must not be present when the issuer is not in VAT"
        );
        invoice.same_taxes.clear();
        assert_eq!(
            totals_of(&invoice).unwrap_err(),
            "Item VAT amount must not be present when the issuer is not in VAT"
        );
        invoice.items[0].vat_amount = None;
        invoice.items[0].vat_rate = None;
        totals_of(&invoice).unwrap();
    }

    #[test]
    fn negatives_belong_to_corrective_documents_and_orders_pay_no_orders() {
        let mut invoice = vector_invoice();
        invoice.items[0].quantity = dec("-1");
        let element = invoice_element(&invoice);
        assert_eq!(
            signs_and_roles(&element, &references(&element)).unwrap_err(),
            "Negative values are allowed only when CorrectiveInv exists"
        );
        invoice.corrective_inv = Some(crate::fiscal::model::CorrectiveInv {
            iic_ref: "ab".repeat(16),
            issue_date_time: chrono::Utc::now(),
            kind: crate::fiscal::model::CorrectiveInvType::Corrective,
        });
        let element = invoice_element(&invoice);
        let refs = references(&element);
        assert_eq!(
            refs.corrects.as_ref().map(|(n, k)| (n.iic.as_str(), k.as_str())),
            Some(("AB".repeat(16).as_str(), "CORRECTIVE"))
        );
        assert!(signs_and_roles(&element, &refs).unwrap_err().contains("must not have a positive total"));
        let mut order = vector_invoice();
        order.pay_methods[0].kind = PayMethodType::Order;
        order.sum_inv_iic_refs = vec![crate::fiscal::model::SumInvIicRef {
            iic: "CD".repeat(16),
            issue_date_time: chrono::Utc::now(),
        }];
        let element = invoice_element(&order);
        let refs = references(&element);
        assert!(refs.is_order());
        assert_eq!(refs.summarized.len(), 1);
        assert!(signs_and_roles(&element, &refs).unwrap_err().contains("paid with ORDER"));
        assert!(same_instant("2026-11-22T10:00:00+01:00", "2026-11-22T09:00:00+00:00"));
    }

    #[test]
    fn numbering_ties_the_invoice_number_to_its_parts() {
        let mut invoice = vector_invoice();
        invoice.inv_num = "9953/2019/cc123cc123".to_string();
        assert!(
            numbering(&invoice_element(&invoice)).unwrap_err().contains("doesn't correspond to InvOrdNum")
        );
        invoice.inv_num = "9952/2019/dd123dd123".to_string();
        assert!(numbering(&invoice_element(&invoice)).unwrap_err().contains("TCR code in InvNum"));
        let mut invoice = vector_invoice();
        invoice.tcr_code = None;
        invoice.inv_num = "9952/2019".to_string();
        assert_eq!(
            numbering(&invoice_element(&invoice)).unwrap_err(),
            "TCRCode is required for a cash invoice"
        );
        invoice.type_of_inv = InvoiceType::NonCash;
        numbering(&invoice_element(&invoice)).unwrap();
    }

    #[test]
    fn the_strict_iic_check_accepts_the_published_vector_and_catches_forgeries() {
        let cert = X509::from_der(vector_certificate().cert_der()).unwrap();
        let invoice = vector_invoice();
        let input = IicInput {
            nuis: "I12345678I",
            issue_date_time: "2019-06-12T17:05:43+02:00",
            ord_num: 9952,
            business_unit_code: "bb123bb123",
            tcr_code: Some("cc123cc123"),
            soft_code: "ss123ss123",
            tot_price: "99.01",
        };
        protection_code(&input.text(), &invoice.iic, &invoice.iic_signature, &cert).unwrap();
        protection_code(&input.text(), &invoice.iic.to_lowercase(), &invoice.iic_signature, &cert).unwrap();
        // Another amount under the same signature.
        let other = IicInput { tot_price: "9.01", ..input };
        assert!(
            protection_code(&other.text(), &invoice.iic, &invoice.iic_signature, &cert)
                .unwrap_err()
                .contains("does not verify")
        );
        // A made-up code beside a genuine signature.
        let forged = "0".repeat(32);
        assert!(
            protection_code(&input.text(), &forged, &invoice.iic_signature, &cert)
                .unwrap_err()
                .contains("not the MD5")
        );
        // A genuine pair from another key.
        let stranger = crate::fiscal::certificate::Certificate::generate_self_signed(
            "I12345678I",
            "Tjetër",
            chrono::Duration::days(1),
        )
        .unwrap();
        let code = iic(&stranger, &input).unwrap();
        assert!(protection_code(&input.text(), &code.iic, &code.signature, &cert).is_err());
        assert!(protection_code(&input.text(), &invoice.iic, "XYZ", &cert).is_err());
    }

    fn item(name: &str, price: u32, quantity: u32) -> Item {
        Item {
            name: name.into(),
            code: Some(name.into()),
            unit_price: Decimal::from(price),
            quantity: Decimal::from(quantity),
        }
    }

    #[test]
    fn a_summary_pays_what_its_orders_left_unpaid() {
        let first = [item("Kafe", 120, 2), item("Uje", 80, 1)];
        let second = [item("Kafe", 120, 1)];
        let orders = [("A", &first[..]), ("B", &second[..])];
        let n = |v: &[u32]| v.iter().map(|q| Decimal::from(*q)).collect::<Vec<_>>();
        // | the summary's items          | paid of A      | paid of B |
        assert_eq!(
            allocate(&[item("Kafe", 120, 3), item("Uje", 80, 1)], &orders).unwrap(),
            [n(&[2, 1]), n(&[1])]
        );
        assert_eq!(allocate(&[item("Kafe", 120, 3)], &orders).unwrap(), [n(&[2, 0]), n(&[1])]);
        assert!(allocate(&[item("Kafe", 120, 1)], &orders).unwrap_err().contains("SumInvIICRef B"));
        assert!(allocate(&[item("Kafe", 120, 4)], &orders).unwrap_err().contains("not left unpaid"));
        assert!(allocate(&[item("Kafe", 100, 3)], &orders).unwrap_err().contains("not left unpaid"));
    }
}
