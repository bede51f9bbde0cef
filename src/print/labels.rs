//! The printed wording, Albanian first and English after the slash, in one place for both
//! layouts. The Albanian terms are the ones the fiscalization law uses (NSLF for the IIC, NIVF
//! for the FIC).

pub const INVOICE: &str = "FATURË / INVOICE";
pub const NUMBER: &str = "Nr.";
pub const ISSUED_AT: &str = "Data dhe ora / Date and time";
pub const INVOICE_TYPE: &str = "Lloji / Type";
pub const NUIS: &str = "NUIS";
pub const BUSINESS_UNIT: &str = "Njësia e biznesit / Business unit";
pub const TCR: &str = "Kodi i TCR / TCR code";
pub const OPERATOR: &str = "Operatori / Operator";
pub const BUYER: &str = "Blerësi / Buyer";

pub const LINE_NUMBER: (&str, &str) = ("Nr.", "No.");
pub const LINE_NAME: (&str, &str) = ("Përshkrimi", "Description");
pub const LINE_CODE: (&str, &str) = ("Kodi", "Code");
pub const LINE_UNIT: (&str, &str) = ("Njësia", "Unit");
pub const LINE_QUANTITY: (&str, &str) = ("Sasia", "Quantity");
pub const LINE_PRICE: (&str, &str) = ("Çmimi me TVSH", "Price incl. VAT");
pub const LINE_DISCOUNT: (&str, &str) = ("Zbritje", "Discount");
pub const LINE_VAT: (&str, &str) = ("TVSH", "VAT");
pub const LINE_TOTAL: (&str, &str) = ("Vlera me TVSH", "Total incl. VAT");

pub const VAT_GROUP: (&str, &str) = ("Grupi i TVSH", "VAT group");
pub const NET: (&str, &str) = ("Pa TVSH", "Net");
pub const VAT: (&str, &str) = ("TVSH", "VAT");
pub const GROSS: (&str, &str) = ("Me TVSH", "Gross");

pub const INVOICE_DISCOUNT: &str = "Zbritje / Discount";
pub const FEE: &str = "Tarifë / Fee";
pub const TOTAL_NET: &str = "Totali pa TVSH / Total without VAT";
pub const TOTAL_VAT: &str = "TVSH / VAT";
pub const TOTAL_GROSS: &str = "TOTALI / TOTAL";
pub const EXCHANGE_RATE: &str = "Kursi i këmbimit / Exchange rate";
pub const IN_LEK: &str = "Në lekë / In lek";
pub const IN_LEK_NET: &str = "Pa TVSH / Net";
pub const IN_LEK_VAT: &str = "TVSH / VAT";
pub const IN_LEK_GROSS: &str = "Me TVSH / Gross";
pub const PAYMENTS: &str = "Pagesa / Payments";

pub const IIC: &str = "NSLF / IIC";
pub const FIC: &str = "NIVF / FIC";
pub const FIC_PENDING: &str = "në pritje / pending";
pub const EIC: &str = "EIC";
pub const VERIFY: &str = "Verifiko / Verify";
pub const NOTES: &str = "Shënime / Notes";
pub const CONTINUED: &str = "vazhdim / continued";

/// "Faqja 2 nga 3 / Page 2 of 3".
pub fn page_of(page: usize, pages: usize) -> String {
    format!("Faqja {page} nga {pages} / Page {page} of {pages}")
}

// The warehouse transfer note.
pub const WTN: &str = "FLETË-SHOQËRIMI / WAREHOUSE TRANSFER NOTE";
pub const WTN_TYPE: &str = "Lloji / Type";
pub const WTN_TRANSACTION: &str = "Qëllimi / Transaction";
pub const ORIGIN: &str = "Nisja / Origin";
pub const DESTINATION: &str = "Destinacioni / Destination";
pub const CARRIER: &str = "Transportuesi / Carrier";
pub const VEHICLE: &str = "Mjeti / Vehicle";
pub const ITEMS_NUM: &str = "Numri i artikujve / Items";
pub const VALUE_OF_GOODS: &str = "Vlera e mallit / Value of goods";
pub const WTNIC: &str = "NSLFSH / WTNIC";
pub const FWTNIC: &str = "NIVFSH / FWTNIC";
