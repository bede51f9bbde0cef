//! An invoice document in the CIS's terms (RegisterInvoiceRequest, with its signed IIC) and as
//! stored, once the pipeline gave it a number and a time.

use chrono::{DateTime, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::super::Result;
use super::super::pipeline::Issuer;
use super::content::{Content, Links};
use crate::domain::invoice::{self as rules, VatClass};
use crate::domain::money::{payments_in_lek, registered_in_lek};
use crate::domain::numbering::{cis_invoice_number, invoice_number};
use crate::domain::verify::verify_url;
use crate::fiscal::iic::{IicCode, IicInput, iic};
use crate::fiscal::model::{
    self, Buyer, Currency, Fee, FeeType, Header, IdType, Invoice as CisInvoice, Item, ItemExemption,
    PayMethod, SameTax, SameTaxExemption, Seller, SumInvIicRef, SupplyDateOrPeriod, TypeOfSelfIss,
};
use crate::fiscal::requests;
use crate::store::accounts::Caller;
use crate::store::invoices::{self as db, Invoice};

/// Everything the CIS message and the stored invoice share.
pub struct Draft {
    pub number: String,
    pub inv_num: String,
    pub issue_date_time: String,
    pub header_uuid: Uuid,
    pub iic: String,
    pub iic_signature: String,
    pub verify_url: String,
    pub unsigned_request: String,
}

fn item_exemption(e: rules::Exemption) -> ItemExemption {
    match e {
        rules::Exemption::Type1 => ItemExemption::Type1,
        rules::Exemption::Type2 => ItemExemption::Type2,
        rules::Exemption::ExportOfGoods => ItemExemption::ExportOfGoods,
        rules::Exemption::TaxFree => ItemExemption::TaxFree,
    }
}

/// The CIS message of the invoice numbered `ord_num` in `year`, issued at `issued_at` on
/// `tcr_code` (a till's document), with its signed IIC.
pub fn draft(
    issuer: &Issuer,
    content: &Content,
    tcr_code: Option<&str>,
    ord_num: u32,
    year: i32,
    issued_at: DateTime<Utc>,
) -> Result<Draft> {
    let issue_date_time = model::datetime(issued_at);
    let amounts = InLek::of(content);
    let tot_price = model::money(amounts.total);
    let iic_input = IicInput {
        nuis: &issuer.caller.company.nuis,
        issue_date_time: &issue_date_time,
        ord_num: u64::from(ord_num),
        business_unit_code: &issuer.unit_code,
        tcr_code,
        soft_code: &issuer.soft_code,
        tot_price: &tot_price,
    };
    let code = iic(issuer.certificate.as_ref(), &iic_input)?;
    let verify = verify_url(&issuer.verify_base, &code.iic, &iic_input);
    let numbered =
        Numbered { inv_num: cis_invoice_number(ord_num, year, tcr_code), ord_num, tcr_code, issued_at };
    let inv_num = numbered.inv_num.clone();
    let cis_invoice = cis_invoice(issuer, content, numbered, &code, amounts);
    let header_uuid = Uuid::new_v4();
    let unsigned_request = requests::register_invoice(
        &Header { uuid: header_uuid, send_date_time: issued_at, subseq_deliv_type: None },
        &cis_invoice,
    );
    Ok(Draft {
        number: invoice_number(ord_num, year),
        inv_num,
        issue_date_time,
        header_uuid,
        iic: code.iic,
        iic_signature: code.signature,
        verify_url: verify,
        unsigned_request,
    })
}

/// The invoice's amounts as the CIS takes them: in lek. A foreign-currency invoice's lines are
/// converted one by one and the totals re-added from them, so they still add up to the cent.
struct InLek {
    items: Vec<Item>,
    net: Decimal,
    vat: Decimal,
    fee: Decimal,
    total: Decimal,
}

impl InLek {
    fn of(content: &Content) -> InLek {
        let computed = &content.computed;
        let foreign = content.currency != "ALL";
        let lek = |d: Decimal| registered_in_lek(d, computed.totals.exchange_rate, foreign);
        let items: Vec<Item> =
            computed.lines.iter().map(|l| cis_item(l, computed.issuer_in_vat, lek)).collect();
        let net: Decimal = items.iter().map(|i| i.price_before_vat).sum();
        let vat: Decimal = items.iter().filter_map(|i| i.vat_amount).sum();
        let fee = lek(computed.totals.fee);
        InLek { items, net, vat, fee, total: net + vat + fee }
    }
}

/// What numbering gave the invoice.
struct Numbered<'a> {
    inv_num: String,
    ord_num: u32,
    tcr_code: Option<&'a str>,
    issued_at: DateTime<Utc>,
}

/// One line as an `Item`, its amounts in lek (`lek`); VAT only for an issuer in VAT.
fn cis_item(line: &rules::Line, in_vat: bool, lek: impl Fn(Decimal) -> Decimal) -> Item {
    let taxed = in_vat && line.exemption.is_none();
    Item {
        name: line.product_name.chars().take(50).collect(),
        code: Some(line.product_code.chars().take(50).collect()),
        unit: line.unit.chars().take(50).collect(),
        quantity: line.quantity,
        unit_price_before_vat: lek(line.unit_price_before_vat),
        unit_price_after_vat: lek(line.unit_price),
        rebate: line.rebate,
        rebate_reducing: line.rebate_reducing(),
        price_before_vat: lek(line.price_before_vat),
        vat_rate: taxed.then_some(line.vat_rate),
        vat_amount: taxed.then(|| lek(line.vat_amount)),
        is_investment: None,
        price_after_vat: lek(line.price_after_vat),
        exemption: line.exemption.map(item_exemption),
        vouchers_sold: None,
    }
}

/// `SameTaxes`: one per VAT rate or exemption, summed from the items in lek.
fn same_taxes(computed: &rules::Invoice, items: &[Item]) -> Vec<SameTax> {
    computed
        .vat_groups
        .iter()
        .filter(|g| g.class.is_same_tax())
        .map(|g| {
            let members = items.iter().zip(&computed.lines).filter(|(_, l)| l.vat_class() == g.class);
            let (net, vat) = members.fold((Decimal::ZERO, Decimal::ZERO), |(n, v), (i, _)| {
                (n + i.price_before_vat, v + i.vat_amount.unwrap_or_default())
            });
            SameTax {
                num_of_items: g.num_items,
                price_bef_vat: net,
                vat_rate: match g.class {
                    VatClass::Rate(r) => Some(r),
                    VatClass::Exempt(_) => None,
                },
                exempt_from_vat: match g.class {
                    VatClass::Exempt(rules::Exemption::Type1) => Some(SameTaxExemption::Type1),
                    VatClass::Exempt(rules::Exemption::Type2) => Some(SameTaxExemption::Type2),
                    _ => None,
                },
                vat_amt: Some(vat),
            }
        })
        .collect()
}

/// The lek amount of the lines with `exemption`, `None` when there is none.
fn exempt_amount(computed: &rules::Invoice, items: &[Item], exemption: rules::Exemption) -> Option<Decimal> {
    let sum: Decimal = items
        .iter()
        .zip(&computed.lines)
        .filter(|(_, l)| l.exemption == Some(exemption))
        .map(|(i, _)| i.price_before_vat)
        .sum();
    (sum != Decimal::ZERO).then_some(sum)
}

/// The payments in lek, adding up to the invoice's `total` in lek.
fn pay_methods(content: &Content, total: Decimal) -> Vec<PayMethod> {
    let computed = &content.computed;
    let amounts: Vec<Decimal> = computed.payments.iter().map(|p| p.amount).collect();
    let foreign = content.currency != "ALL";
    computed
        .payments
        .iter()
        .zip(payments_in_lek(&amounts, computed.totals.exchange_rate, foreign, total))
        .map(|(p, amt)| PayMethod {
            kind: p.kind,
            amt,
            comp_card: p.company_card.clone(),
            vouchers: p.vouchers.clone(),
        })
        .collect()
}

/// The company, at its unit's address when the unit has one.
fn seller(caller: &Caller) -> Seller {
    let unit = caller.unit.as_ref();
    Seller {
        id_type: IdType::Nuis,
        id_num: caller.company.nuis.clone(),
        name: caller.company.name.chars().take(100).collect(),
        address: unit.and_then(|u| u.address.clone()).or_else(|| caller.company.address.clone()),
        town: unit.and_then(|u| u.city.clone()).or_else(|| caller.company.city.clone()),
        country: Some("ALB".to_string()),
    }
}

/// The buyer, when the invoice names one.
fn buyer(buyer: &db::Buyer) -> Option<Buyer> {
    buyer.name.as_ref().map(|name| Buyer {
        id_type: buyer.id_type.as_deref().and_then(IdType::sent),
        id_num: buyer.id_value.clone(),
        name: Some(name.chars().take(100).collect()),
        address: buyer.address.clone(),
        town: buyer.city.clone(),
        country: buyer.country.clone(),
    })
}

/// A summary's orders, by their IIC and time (`SumInvIICRefs`).
fn settled_orders(links: &Links) -> Vec<SumInvIicRef> {
    match links {
        Links::Settles(orders) => orders
            .iter()
            .filter_map(|o| {
                crate::domain::time::parse_stored(&o.issued_at)
                    .map(|issue_date_time| SumInvIicRef { iic: o.iic.clone(), issue_date_time })
            })
            .collect(),
        _ => vec![],
    }
}

/// The `Invoice` element of the RegisterInvoiceRequest.
fn cis_invoice(
    issuer: &Issuer,
    content: &Content,
    numbered: Numbered,
    code: &IicCode,
    amounts: InLek,
) -> CisInvoice {
    let computed = &content.computed;
    let in_vat = computed.issuer_in_vat;
    let foreign = content.currency != "ALL";
    CisInvoice {
        type_of_inv: content.invoice_type,
        is_simplified_inv: false,
        type_of_self_iss: content.self_issue_type.as_deref().and_then(TypeOfSelfIss::parse),
        issue_date_time: numbered.issued_at,
        inv_num: numbered.inv_num,
        inv_ord_num: numbered.ord_num,
        tcr_code: numbered.tcr_code.map(str::to_string),
        is_issuer_in_vat: in_vat,
        tax_free_amt: exempt_amount(computed, &amounts.items, rules::Exemption::TaxFree),
        mark_up_amt: None,
        goods_ex_amt: exempt_amount(computed, &amounts.items, rules::Exemption::ExportOfGoods),
        tot_price_wo_vat: amounts.net,
        tot_vat_amt: in_vat.then_some(amounts.vat),
        tot_price: amounts.total,
        operator_code: issuer.operator_code.clone(),
        busin_unit_code: issuer.unit_code.clone(),
        soft_code: issuer.soft_code.clone(),
        imp_cust_dec_num: None,
        iic: code.iic.clone(),
        iic_signature: code.signature.clone(),
        is_reverse_charge: content.reverse_charge,
        pay_deadline: content.due,
        is_einvoice: content.einvoice.map(|_| true),
        supply_date_or_period: content
            .supply_start
            .map(|start| SupplyDateOrPeriod { start, end: content.supply_end.unwrap_or(start) }),
        corrective_inv: content.corrective.clone(),
        pay_methods: pay_methods(content, amounts.total),
        currency: foreign.then(|| Currency {
            code: content.currency.clone(),
            ex_rate: computed.totals.exchange_rate,
            is_buying: false,
        }),
        seller: seller(&issuer.caller),
        buyer: buyer(&content.buyer),
        same_taxes: if in_vat { same_taxes(computed, &amounts.items) } else { Vec::new() },
        items: amounts.items,
        cons_taxes: vec![],
        fees: if amounts.fee == Decimal::ZERO {
            vec![]
        } else {
            vec![Fee { kind: FeeType::Other, amt: amounts.fee }]
        },
        sum_inv_iic_refs: settled_orders(&content.links),
        bad_debt_inv: None,
    }
}

/// The invoice as stored, numbered `ord_num` by its draft.
pub fn stored_invoice(
    issuer: &Issuer,
    content: &Content,
    tcr_code: Option<&str>,
    draft: &Draft,
    (ord_num, year): (u32, i32),
    issued_at: DateTime<Utc>,
) -> Invoice {
    let (caller, computed) = (&issuer.caller, &content.computed);
    Invoice {
        id: 0,
        company_id: caller.company.id,
        business_unit_id: caller.unit.as_ref().map(|u| u.id),
        user_id: Some(caller.user.id),
        internal_id: content.internal_id.clone(),
        year,
        kind: content.invoice_type,
        document_kind: content.document_kind,
        api_version: content.api_version,
        doc_type: content.doc_type.clone(),
        original_invoice_iic: content.original_invoice_iic.clone(),
        tcr_code: tcr_code.map(str::to_string),
        ord_num: i64::from(ord_num),
        number: draft.number.clone(),
        inv_num: draft.inv_num.clone(),
        issued_at: issued_at.to_rfc3339(),
        issue_date: issued_at.with_timezone(&Tirane).date_naive().to_string(),
        issue_date_time: draft.issue_date_time.clone(),
        operator_code: Some(issuer.operator_code.clone()),
        business_unit_code: Some(issuer.unit_code.clone()),
        currency: content.currency.clone(),
        exchange_rate: computed.totals.exchange_rate,
        exchange_rate_origin: content.rate_basis.as_ref().map(|b| b.origin),
        exchange_rate_date: content.rate_basis.as_ref().and_then(|b| b.date).map(|d| d.to_string()),
        totals: db::Totals {
            gross: computed.totals.gross,
            net: computed.totals.net,
            vat: computed.totals.vat,
            discount: computed.totals.discount,
            discount_gross: computed.totals.discount_gross,
            fee: computed.totals.fee,
            total: computed.totals.total,
            // In lek, like every _all figure: what is payable, the fee included.
            gross_all: crate::domain::money::to_lek(computed.totals.total, computed.totals.exchange_rate),
            net_all: computed.totals.net_all,
            vat_all: computed.totals.vat_all,
            discount_all: computed.totals.discount_all,
        },
        invoice_discount_type: content.invoice_discount_type.clone(),
        invoice_discount_value: content.invoice_discount_value,
        buyer: content.buyer.clone(),
        self_issue_type: content.self_issue_type.clone(),
        due_date: content.due.map(|d| d.to_string()),
        delivery_date: None,
        supply_start_date: content.supply_start.map(|d| d.to_string()),
        supply_end_date: content.supply_end.map(|d| d.to_string()),
        reverse_charge: content.reverse_charge,
        periodic_invoice: content.periodic_invoice,
        notes: content.notes.clone(),
        bank_account_id: content.bank_account.as_ref().map(|a| a.id),
        bank_account: content.bank_account.clone(),
        wtn_id: content.wtn.as_ref().map(|w| w.id),
        wtn: content.wtn.clone(),
        iic: draft.iic.clone(),
        iic_signature: draft.iic_signature.clone(),
        header_uuid: draft.header_uuid.to_string(),
        fic: None,
        eic: None,
        verify_url: draft.verify_url.clone(),
        created_at: String::new(),
        original_invoice_id: match &content.links {
            Links::Reverses { original_id, .. } => Some(*original_id),
            _ => None,
        },
        reversed_at: None,
        remains: None,
        settled_by: None,
        settled_orders: match &content.links {
            Links::Settles(orders) => orders.clone(),
            _ => Vec::new(),
        },
        process: content.einvoice.map(|p| p.as_str().to_string()),
        lines: computed
            .lines
            .iter()
            .enumerate()
            .map(|(index, l)| db::Line {
                product_name: l.product_name.clone(),
                product_code: l.product_code.clone(),
                unit: l.unit.clone(),
                unit_code: l.unit_code.clone(),
                quantity: l.quantity,
                price: l.unit_price,
                total: l.total,
                discount_rate: l.discount_rate,
                discount: l.discount,
                vat_rate: l.vat_rate,
                exemption: l.exemption.map(|e| e.as_str().to_string()),
                unit_price_net: l.unit_price_before_vat,
                rebate: l.rebate,
                net: l.price_before_vat,
                vat: l.vat_amount,
                gross: l.price_after_vat,
                original_position: match &content.links {
                    Links::Reverses { positions, .. } => positions.get(index).copied(),
                    _ => None,
                },
            })
            .collect(),
        payments: computed.payments.clone(),
    }
}
