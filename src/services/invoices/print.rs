//! What the printed invoice shows, from the stored one.

use rust_decimal::Decimal;

use crate::store::accounts::Caller;
use crate::store::invoices::Invoice;

fn vat_label(rate: Decimal, exemption: Option<&str>) -> String {
    match exemption {
        Some(e) => format!("Përjashtuar ({e})"),
        None => format!("TVSH {}%", rate.normalize()),
    }
}

/// What the printed invoice shows, from the stored one.
pub fn printable(caller: &Caller, invoice: &Invoice) -> crate::print::PrintInvoice {
    use crate::print::{self as p};
    let unit = caller.unit.as_ref();
    let mut groups: Vec<p::VatGroup> = Vec::new();
    for line in &invoice.lines {
        let label = vat_label(line.vat_rate, line.exemption.as_deref());
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => {
                g.net += line.net;
                g.vat += line.vat;
                g.gross += line.gross;
            }
            None => groups.push(p::VatGroup { label, net: line.net, vat: line.vat, gross: line.gross }),
        }
    }
    let t = &invoice.totals;
    let foreign = invoice.currency != "ALL";
    let b = &invoice.buyer;
    p::PrintInvoice {
        seller: p::Seller {
            name: caller.company.name.clone(),
            nuis: caller.company.nuis.clone(),
            address: caller.company.address.clone().unwrap_or_default(),
            city: caller.company.city.clone().unwrap_or_default(),
        },
        business_unit: p::BusinessUnit {
            name: unit.map(|u| u.name.clone()).unwrap_or_default(),
            code: invoice.business_unit_code.clone().unwrap_or_default(),
            address: unit.and_then(|u| u.address.clone()).unwrap_or_default(),
        },
        tcr_code: invoice.tcr_code.clone(),
        operator_code: invoice.operator_code.clone().unwrap_or_default(),
        number: invoice.number.clone(),
        issued_at: crate::domain::time::parse_stored(&invoice.issued_at)
            .map(crate::domain::time::local_text)
            .unwrap_or_default(),
        invoice_type: invoice.kind.as_str().to_string(),
        buyer: b.name.as_ref().map(|name| p::Buyer {
            name: name.clone(),
            id_type: b.id_type.clone().unwrap_or_default(),
            id_value: b.id_value.clone().unwrap_or_default(),
            address: b.address.clone().unwrap_or_default(),
            city: b.city.clone().unwrap_or_default(),
            country: b.country.clone().unwrap_or_default(),
        }),
        lines: invoice
            .lines
            .iter()
            .map(|l| p::Line {
                name: l.product_name.clone(),
                code: l.product_code.clone(),
                unit: l.unit.clone(),
                quantity: l.quantity,
                unit_price: l.price,
                discount_percent: (l.discount_rate != Decimal::ZERO).then_some(l.discount_rate),
                vat_rate: l.vat_rate,
                total: l.gross,
            })
            .collect(),
        vat_groups: groups,
        invoice_discount: (t.discount_gross != Decimal::ZERO).then(|| p::InvoiceDiscount {
            amount: t.discount_gross,
            description: match (&invoice.invoice_discount_type, invoice.invoice_discount_value) {
                (Some(kind), Some(value)) if kind == "percent" => {
                    format!("Zbritje / Discount {}%", value.normalize())
                }
                _ => "Zbritje / Discount".to_string(),
            },
        }),
        fee: (t.fee != Decimal::ZERO).then_some(t.fee),
        totals: p::Totals { net: t.net, vat: t.vat, gross: t.total },
        currency: invoice.currency.clone(),
        exchange_rate: foreign.then_some(invoice.exchange_rate),
        totals_all: foreign.then_some(p::Totals { net: t.net_all, vat: t.vat_all, gross: t.gross_all }),
        payments: invoice
            .payments
            .iter()
            .map(|p| p::Payment { method: p.kind.as_str().to_string(), amount: p.amount })
            .collect(),
        iic: invoice.iic.clone(),
        fic: invoice.fic.clone(),
        eic: invoice.eic.clone(),
        verify_url: invoice.verify_url.clone(),
        notes: invoice.notes.clone(),
        footer_lines: vec![format!("Arka {}", env!("CARGO_PKG_VERSION"))],
    }
}
