//! One mapper per table an invoice is read from, over `row::Columns`: the shop reads them from
//! SQLite, the head office from the rows the shop shipped it, each with its own queries.

use super::{BankAccount, Buyer, Invoice, Line, Payment, SettledOrder, Totals, WtnRef};
use crate::domain::currency::Origin;
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::payments::PaymentType;
use crate::row::{ColumnError, Columns, Result};

/// A row of `invoices` (every column the shop keeps of it), before what it is read with: its
/// lines, payments, note, bank account, a summary's orders, what its cancellations left of it.
/// Its verify URL is as the row keeps it (`domain::verify::full_url` makes it whole).
pub fn invoice(r: &impl Columns) -> Result<Invoice> {
    let version = r.int("api_version")?;
    Ok(Invoice {
        id: r.int("id")?,
        company_id: r.int("company_id")?,
        business_unit_id: r.int_opt("business_unit_id")?,
        user_id: r.int_opt("user_id")?,
        internal_id: r.text("internal_id")?,
        year: i32::try_from(r.int("year")?).map_err(|e| ColumnError::read("year", e))?,
        kind: r.spelled::<InvoiceType>("kind", "an invoice's type")?,
        document_kind: r.spelled::<DocumentKind>("document_kind", "a document's kind")?,
        api_version: ApiVersion::from_number(version)
            .ok_or_else(|| ColumnError::value("api_version", version.to_string(), "an API version"))?,
        doc_type: r.text_opt("doc_type")?,
        original_invoice_iic: r.text_opt("original_invoice_iic")?,
        tcr_code: r.text_opt("tcr_code")?,
        ord_num: r.int("ord_num")?,
        number: r.text("number")?,
        inv_num: r.text("inv_num")?,
        issued_at: r.text("issued_at")?,
        issue_date: r.text("issue_date")?,
        issue_date_time: r.text("issue_date_time")?,
        operator_code: r.text_opt("operator_code")?,
        business_unit_code: r.text_opt("business_unit_code")?,
        currency: r.text("currency")?,
        exchange_rate: r.decimal("exchange_rate")?,
        totals: Totals {
            gross: r.decimal("gross")?,
            net: r.decimal("net")?,
            vat: r.decimal("vat")?,
            discount: r.decimal("discount")?,
            discount_gross: r.decimal("discount_gross")?,
            fee: r.decimal("fee")?,
            total: r.decimal("total")?,
            gross_all: r.decimal("gross_all")?,
            net_all: r.decimal("net_all")?,
            vat_all: r.decimal("vat_all")?,
            discount_all: r.decimal("discount_all")?,
        },
        invoice_discount_type: r.text_opt("invoice_discount_type")?,
        invoice_discount_value: r.decimal_opt("invoice_discount_value")?,
        buyer: Buyer {
            client_id: r.int_opt("client_id")?,
            name: r.text_opt("buyer_name")?,
            id_type: r.text_opt("buyer_id_type")?,
            id_value: r.text_opt("buyer_id_value")?,
            address: r.text_opt("buyer_address")?,
            city: r.text_opt("buyer_city")?,
            country: r.text_opt("buyer_country")?,
        },
        self_issue_type: r.text_opt("self_issue_type")?,
        due_date: r.text_opt("due_date")?,
        delivery_date: r.text_opt("delivery_date")?,
        supply_start_date: r.text_opt("supply_start_date")?,
        supply_end_date: r.text_opt("supply_end_date")?,
        reverse_charge: r.bool("reverse_charge")?,
        periodic_invoice: r.bool("periodic_invoice")?,
        notes: r.text_opt("notes")?,
        bank_account_id: r.int_opt("bank_account_id")?,
        iic: r.text("iic")?,
        iic_signature: r.text("iic_signature")?,
        header_uuid: r.text("header_uuid")?,
        fic: r.text_opt("fic")?,
        eic: r.text_opt("eic")?,
        verify_url: r.text("verify_url")?,
        created_at: r.text("created_at")?,
        exchange_rate_origin: match r.text_opt("exchange_rate_source")? {
            None => None,
            Some(text) => Some(
                Origin::parse(&text)
                    .ok_or_else(|| ColumnError::value("exchange_rate_source", text, "a rate's origin"))?,
            ),
        },
        exchange_rate_date: r.text_opt("exchange_rate_date")?,
        original_invoice_id: r.int_opt("original_invoice_id")?,
        reversed_at: r.text_opt("reversed_at")?,
        remains: None,
        settled_by: r.int_opt("settled_by_invoice_id")?,
        lines: Vec::new(),
        payments: Vec::new(),
        bank_account: None,
        wtn_id: None,
        wtn: None,
        settled_orders: Vec::new(),
        process: None,
    })
}

/// A row of `invoice_lines`.
pub fn line(r: &impl Columns) -> Result<Line> {
    Ok(Line {
        product_name: r.text("product_name")?,
        product_code: r.text("product_code")?,
        unit: r.text("unit")?,
        unit_code: r.text_opt("unit_code")?,
        quantity: r.decimal("quantity")?,
        price: r.decimal("price")?,
        total: r.decimal("total")?,
        discount_rate: r.decimal("discount_rate")?,
        discount: r.decimal("discount")?,
        vat_rate: r.decimal("vat_rate")?,
        exemption: r.text_opt("exemption")?,
        unit_price_net: r.decimal("unit_price_net")?,
        rebate: r.decimal_opt("rebate")?,
        net: r.decimal("net")?,
        vat: r.decimal("vat")?,
        gross: r.decimal("gross")?,
        original_position: r.int_opt("original_position")?,
    })
}

/// A row of `invoice_payments`; its vouchers kept as a JSON list of codes.
pub fn payment(r: &impl Columns) -> Result<Payment> {
    Ok(Payment {
        kind: r.spelled::<PaymentType>("type", "a payment's type")?,
        amount: r.decimal("amount")?,
        company_card: r.text_opt("company_card")?,
        vouchers: r.json_opt::<Vec<String>>("vouchers", "a list of voucher codes")?.unwrap_or_default(),
    })
}

/// An order a summary paid (`id`, `number`, `iic`, `issued_at`, `currency`, `total`).
pub fn settled_order(r: &impl Columns) -> Result<SettledOrder> {
    Ok(SettledOrder {
        id: r.int("id")?,
        number: r.text("number")?,
        iic: r.text("iic")?,
        issued_at: r.text("issued_at")?,
        currency: r.text("currency")?,
        total: r.decimal("total")?,
    })
}

/// The note an invoice names (`id`, `number`, `wtnic`).
pub fn wtn_ref(r: &impl Columns) -> Result<WtnRef> {
    Ok(WtnRef { id: r.int("id")?, number: r.text("number")?, iic: r.text("wtnic")? })
}

/// A row of `bank_accounts`.
pub fn bank_account(r: &impl Columns) -> Result<BankAccount> {
    Ok(BankAccount {
        id: r.int("id")?,
        name: r.text("name")?,
        holder: r.text("holder")?,
        iban: r.text("iban")?,
        swift: r.text_opt("swift")?,
        currency: r.text("currency")?,
        notes: r.text_opt("notes")?,
    })
}
