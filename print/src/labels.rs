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

// The X and Z reports of a till's day.
pub const X_REPORT: &str = "Raporti X / X report";
pub const Z_REPORT: &str = "Raporti Z / Z report";
pub const DAY_OPENED: &str = "Hapur / Opened";
pub const DAY_CLOSED: &str = "Mbyllur / Closed";
pub const CASHIERS: &str = "Arkëtarët / Cashiers";
pub const RECEIPTS: &str = "Kuponët / Receipts";
pub const RECEIPT_COUNT: &str = "Numri / Count";
pub const RECEIPT_RANGE: &str = "Nga - deri / From - to";
pub const RECEIPT_WAITING: &str = "Në pritje të CIS / Waiting for the CIS";
pub const SALES_GROSS: &str = "Shitjet me TVSH / Sales incl. VAT";
pub const SALES_BY_METHOD: &str = "Shitjet sipas pagesës / Sales by payment method";
pub const VAT_BY_RATE: &str = "TVSH sipas normës / VAT by rate";
pub const CANCELLATIONS: &str = "Anulimet / Cancellations";
pub const CANCELS: &str = "anulon / cancels";
pub const DRAWER: &str = "Arka (kartëmonedha) / The drawer (banknotes)";
pub const CARRIED_OVER: &str = "Mbetur nga numërimi i fundit / Left at the last count";
pub const OPENING: &str = "Hapja / Opening";
pub const BANKNOTES_IN: &str = "Kartëmonedha të hyra / Banknotes in";
pub const BANKNOTES_OUT: &str = "Kartëmonedha të dala / Banknotes out";
pub const CHANGE_GIVEN: &str = "Kusur i dhënë / Change given";
pub const DEPOSITS: &str = "Futjet / Deposits";
pub const WITHDRAWALS: &str = "Nxjerrjet / Withdrawals";
pub const EXPECTED: &str = "Pritet në arkë / Expected in the drawer";
pub const EXPECTED_BALANCE: &str = "Pritet (gjendja) / Expected (the balance)";
pub const NOT_IN_DRAWER: &str = "Jo në arkë / Not in the drawer";
pub const COUNT: &str = "Numërimi / The count";
pub const COUNTED: &str = "Numëruar / Counted";
pub const DIFFERENCE: &str = "Diferenca / Difference";
pub const WITHDRAWN: &str = "Nxjerrë në mbyllje / Withdrawn at closing";
pub const BALANCE: &str = "Gjendja në CIS (me kartë) / CIS balance (card included)";
pub const CASHIER_SIGNATURE: &str = "Nënshkrimi i arkëtarit / Cashier's signature";
pub const MANAGER_SIGNATURE: &str = "Nënshkrimi i përgjegjësit / Manager's signature";

/// A payment method as printed, or its code when it has no words here.
pub fn payment_method(code: &str) -> String {
    let words = match code {
        "BANKNOTE" => "Kartëmonedha / Banknotes",
        "CARD" => "Kartë / Card",
        "CHECK" => "Çek / Cheque",
        "SVOUCHER" => "Kupon / Voucher",
        "COMPANY" => "Kartë e kompanisë / Company card",
        "ORDER" => "Porosi / Order",
        "ACCOUNT" => "Llogari / On account",
        "FACTORING" => "Faktoring / Factoring",
        "COMPENSATION" => "Kompensim / Compensation",
        "TRANSFER" => "Transfertë / Transfer",
        "WAIVER" => "Falje borxhi / Debt waiver",
        "KIND" => "Në natyrë / In kind",
        "OTHER" => "Tjetër / Other",
        other => other,
    };
    words.to_string()
}
