//! An invoice document in the CIS's terms (RegisterInvoiceRequest, with its signed IIC) and as
//! stored, once the pipeline gave it a number and a time.

use chrono::{DateTime, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::super::Result;
use super::super::pipeline::Issuer;
use super::content::{Content, Links, id_type};
use crate::domain::document::InvoiceType;
use crate::domain::invoice::{self as rules, VatClass};
use crate::domain::money::{payments_in_lek, registered_in_lek};
use crate::domain::numbering::{cis_invoice_number, invoice_number};
use crate::fiscal::iic::{IicInput, iic};
use crate::fiscal::model::{
    self, Buyer, Currency, Fee, FeeType, Header, IdType, Invoice as CisInvoice, Item, ItemExemption,
    PayMethod, SameTax, SameTaxExemption, Seller, SumInvIicRef, SupplyDateOrPeriod, TypeOfInv, TypeOfSelfIss,
};
use crate::fiscal::requests;
use crate::fiscal::verify::verify_url;
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
    let caller = &issuer.caller;
    let (operator_code, unit_code) = (issuer.operator_code.as_str(), issuer.unit_code.as_str());
    let (computed, buyer, certificate) = (&content.computed, &content.buyer, issuer.certificate.as_ref());
    let (currency, soft_code) = (content.currency.as_str(), issuer.soft_code.as_str());
    let dates = (content.due, content.supply_start, content.supply_end);
    let issue_date_time = model::datetime(issued_at);
    let totals = &computed.totals;
    let in_vat = computed.issuer_in_vat;
    let foreign = currency != "ALL";
    let lek = |d: Decimal| registered_in_lek(d, totals.exchange_rate, foreign);
    let items = computed
        .lines
        .iter()
        .map(|l| {
            let amount = lek;
            Item {
                name: l.product_name.chars().take(50).collect(),
                code: Some(l.product_code.chars().take(50).collect()),
                unit: l.unit.chars().take(50).collect(),
                quantity: l.quantity,
                unit_price_before_vat: amount(l.unit_price_before_vat),
                unit_price_after_vat: amount(l.unit_price),
                rebate: l.rebate,
                rebate_reducing: l.rebate_reducing(),
                price_before_vat: amount(l.price_before_vat),
                vat_rate: if in_vat && l.exemption.is_none() { Some(l.vat_rate) } else { None },
                vat_amount: if in_vat && l.exemption.is_none() { Some(amount(l.vat_amount)) } else { None },
                is_investment: None,
                price_after_vat: amount(l.price_after_vat),
                exemption: l.exemption.map(item_exemption),
                vouchers_sold: None,
            }
        })
        .collect::<Vec<_>>();
    // In a foreign-currency invoice every amount goes to the CIS in lek; the totals are
    // re-added from the converted lines so they still add up to the cent.
    let net_sum: Decimal = items.iter().map(|i| i.price_before_vat).sum();
    let vat_sum: Decimal = items.iter().filter_map(|i| i.vat_amount).sum();
    let fee = lek(totals.fee);
    let tot_price_value = net_sum + vat_sum + fee;
    let tot_price = model::money(tot_price_value);
    let iic_input = IicInput {
        nuis: &caller.company.nuis,
        issue_date_time: &issue_date_time,
        ord_num: u64::from(ord_num),
        business_unit_code: unit_code,
        tcr_code,
        soft_code,
        tot_price: &tot_price,
    };
    let code = iic(certificate, &iic_input)?;
    let inv_num = cis_invoice_number(ord_num, year, tcr_code);
    let verify = verify_url(&issuer.verify_base, &code.iic, &iic_input);
    let same_taxes = computed
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
        .collect();
    let amount_of = |exemption: rules::Exemption| -> Option<Decimal> {
        let sum: Decimal = items
            .iter()
            .zip(&computed.lines)
            .filter(|(_, l)| l.exemption == Some(exemption))
            .map(|(i, _)| i.price_before_vat)
            .sum();
        (sum != Decimal::ZERO).then_some(sum)
    };
    let amounts: Vec<Decimal> = computed.payments.iter().map(|p| p.amount).collect();
    let pay_methods: Vec<PayMethod> = computed
        .payments
        .iter()
        .zip(payments_in_lek(&amounts, totals.exchange_rate, foreign, tot_price_value))
        .map(|(p, amt)| PayMethod {
            kind: p.kind,
            amt,
            comp_card: p.company_card.clone(),
            vouchers: p.vouchers.clone(),
        })
        .collect();
    let cis_invoice = CisInvoice {
        type_of_inv: match content.invoice_type {
            InvoiceType::Cash => TypeOfInv::Cash,
            InvoiceType::NonCash => TypeOfInv::NonCash,
        },
        is_simplified_inv: false,
        type_of_self_iss: content.self_issue_type.as_deref().and_then(|t| match t {
            "AGREEMENT" => Some(TypeOfSelfIss::Agreement),
            "DOMESTIC" => Some(TypeOfSelfIss::Domestic),
            "ABROAD" => Some(TypeOfSelfIss::Abroad),
            "SELF" => Some(TypeOfSelfIss::SelfConsumption),
            "OTHER" => Some(TypeOfSelfIss::Other),
            _ => None,
        }),
        issue_date_time: issued_at,
        inv_num: inv_num.clone(),
        inv_ord_num: ord_num,
        tcr_code: tcr_code.map(str::to_string),
        is_issuer_in_vat: in_vat,
        tax_free_amt: amount_of(rules::Exemption::TaxFree),
        mark_up_amt: None,
        goods_ex_amt: amount_of(rules::Exemption::ExportOfGoods),
        tot_price_wo_vat: net_sum,
        tot_vat_amt: in_vat.then_some(vat_sum),
        tot_price: tot_price_value,
        operator_code: operator_code.to_string(),
        busin_unit_code: unit_code.to_string(),
        soft_code: soft_code.to_string(),
        imp_cust_dec_num: None,
        iic: code.iic.clone(),
        iic_signature: code.signature.clone(),
        is_reverse_charge: content.reverse_charge,
        pay_deadline: dates.0,
        is_einvoice: content.einvoice.map(|_| true),
        supply_date_or_period: dates
            .1
            .map(|start| SupplyDateOrPeriod { start, end: dates.2.unwrap_or(start) }),
        corrective_inv: content.corrective.clone(),
        pay_methods,
        currency: foreign.then(|| Currency {
            code: currency.to_string(),
            ex_rate: totals.exchange_rate,
            is_buying: false,
        }),
        seller: Seller {
            id_type: IdType::Nuis,
            id_num: caller.company.nuis.clone(),
            name: caller.company.name.chars().take(100).collect(),
            address: caller
                .unit
                .as_ref()
                .and_then(|u| u.address.clone())
                .or_else(|| caller.company.address.clone()),
            town: caller.unit.as_ref().and_then(|u| u.city.clone()).or_else(|| caller.company.city.clone()),
            country: Some("ALB".to_string()),
        },
        buyer: buyer.name.as_ref().map(|name| Buyer {
            id_type: buyer.id_type.as_deref().and_then(id_type),
            id_num: buyer.id_value.clone(),
            name: Some(name.chars().take(100).collect()),
            address: buyer.address.clone(),
            town: buyer.city.clone(),
            country: buyer.country.clone(),
        }),
        items,
        same_taxes: if in_vat { same_taxes } else { Vec::new() },
        cons_taxes: vec![],
        fees: if fee == Decimal::ZERO { vec![] } else { vec![Fee { kind: FeeType::Other, amt: fee }] },
        sum_inv_iic_refs: match &content.links {
            Links::Settles(orders) => orders
                .iter()
                .filter_map(|o| {
                    crate::domain::time::parse_stored(&o.issued_at)
                        .map(|issue_date_time| SumInvIicRef { iic: o.iic.clone(), issue_date_time })
                })
                .collect(),
            _ => vec![],
        },
        bad_debt_inv: None,
    };
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
        payments: computed
            .payments
            .iter()
            .map(|p| db::Payment {
                kind: p.kind.as_str().to_string(),
                amount: p.amount,
                company_card: p.company_card.clone(),
                vouchers: p.vouchers.clone(),
            })
            .collect(),
    }
}
