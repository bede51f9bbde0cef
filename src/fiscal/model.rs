//! The data of every request Arka sends to the CIS, in the v3 vocabulary of
//! `alimc-fiscalization-service.xsd` and v1 of `alimc-einvoice-service.xsd`.
//!
//! Field docs name the XSD attribute or element each field becomes, so a reader holding the
//! schema can find everything by grep. Amounts are `Decimal`; instants are UTC and are written
//! in Europe/Tirane time by the lexical functions at the bottom of this file, which are the only
//! place a value is turned into the text the schema's patterns check.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::{Decimal, RoundingStrategy};
use uuid::Uuid;

use crate::domain::spelled::spelled;

/// `Header` of `RegisterInvoiceRequest`, `RegisterCashDepositRequest` and `RegisterWTNRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `UUID`: one per message; reuse it when re-sending the same document.
    pub uuid: Uuid,
    /// `SendDateTime`
    pub send_date_time: DateTime<Utc>,
    /// `SubseqDelivType`: present only when the document is delivered late.
    pub subseq_deliv_type: Option<SubseqDelivType>,
}

/// `Header` of `RegisterTCRRequest` and of every e-invoice service request: these schemas
/// have no late delivery, so the type leaves no room for `SubseqDelivType`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainHeader {
    /// `UUID`
    pub uuid: Uuid,
    /// `SendDateTime`
    pub send_date_time: DateTime<Utc>,
}

spelled! {
    /// `SubseqDelivTypeSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SubseqDelivType {
        /// The TCR works where there is no Internet.
        NoInternet = "NOINTERNET",
        /// The TCR did not work; the invoice was written in the bound book.
        BoundBook = "BOUNDBOOK",
        /// The fiscalization service itself was failing.
        Service = "SERVICE",
        /// A temporary technical error on the TCR side.
        TechnicalError = "TECHNICALERROR",
    }
}

/// `Invoice` of `RegisterInvoiceRequest` (`InvoiceType`).
#[derive(Debug, Clone, PartialEq)]
pub struct Invoice {
    /// `TypeOfInv`
    pub type_of_inv: InvoiceType,
    /// `IsSimplifiedInv`
    pub is_simplified_inv: bool,
    /// `TypeOfSelfIss`
    pub type_of_self_iss: Option<TypeOfSelfIss>,
    /// `IssueDateTime`
    pub issue_date_time: DateTime<Utc>,
    /// `InvNum`: `ord/yyyy` plus `/tcrCode` for cash invoices.
    pub inv_num: String,
    /// `InvOrdNum`
    pub inv_ord_num: u32,
    /// `TCRCode`
    pub tcr_code: Option<String>,
    /// `IsIssuerInVAT`
    pub is_issuer_in_vat: bool,
    /// `TaxFreeAmt`
    pub tax_free_amt: Option<Decimal>,
    /// `MarkUpAmt`
    pub mark_up_amt: Option<Decimal>,
    /// `GoodsExAmt`
    pub goods_ex_amt: Option<Decimal>,
    /// `TotPriceWoVAT`
    pub tot_price_wo_vat: Decimal,
    /// `TotVATAmt`: absent when the issuer is not in VAT.
    pub tot_vat_amt: Option<Decimal>,
    /// `TotPrice`
    pub tot_price: Decimal,
    /// `OperatorCode`
    pub operator_code: String,
    /// `BusinUnitCode`
    pub busin_unit_code: String,
    /// `SoftCode`
    pub soft_code: String,
    /// `ImpCustDecNum`
    pub imp_cust_dec_num: Option<String>,
    /// `IIC`
    pub iic: String,
    /// `IICSignature`
    pub iic_signature: String,
    /// `IsReverseCharge`
    pub is_reverse_charge: bool,
    /// `PayDeadline`
    pub pay_deadline: Option<NaiveDate>,
    /// `IsEinvoice`: known from the 2021 service definition only; the bundled XSD lacks it.
    pub is_einvoice: Option<bool>,
    /// `SupplyDateOrPeriod`
    pub supply_date_or_period: Option<SupplyDateOrPeriod>,
    /// `CorrectiveInv`
    pub corrective_inv: Option<CorrectiveInv>,
    /// `PayMethods/PayMethod`, 1..10, at most one per type.
    pub pay_methods: Vec<PayMethod>,
    /// `Currency`: for invoices in a foreign currency (amounts are still in ALL).
    pub currency: Option<Currency>,
    /// `Seller`
    pub seller: Seller,
    /// `Buyer`
    pub buyer: Option<Buyer>,
    /// `Items/I`, 1..1000.
    pub items: Vec<Item>,
    /// `SameTaxes/SameTax`, 0..20 (the element is left out when empty).
    pub same_taxes: Vec<SameTax>,
    /// `ConsTaxes/ConsTax`, 0..20.
    pub cons_taxes: Vec<ConsTax>,
    /// `Fees/Fee`, 0..20, at most one per type.
    pub fees: Vec<Fee>,
    /// `SumInvIICRefs/SumInvIICRef`, 0..1000: the invoices a summary invoice pays.
    pub sum_inv_iic_refs: Vec<SumInvIicRef>,
    /// `BadDebtInv`
    pub bad_debt_inv: Option<BadDebtInv>,
}

/// `SelfIssSType` and `IDTypeSType` are the domain's: the invoice request's rules read them.
pub use crate::domain::invoice::request::{BuyerIdType as IdType, TypeOfSelfIss};

/// `SupplyDateOrPeriod`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupplyDateOrPeriod {
    /// `Start`
    pub start: NaiveDate,
    /// `End`
    pub end: NaiveDate,
}

/// `CorrectiveInv`: the invoice this one corrects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectiveInv {
    /// `IICRef`
    pub iic_ref: String,
    /// `IssueDateTime` of the corrected invoice.
    pub issue_date_time: DateTime<Utc>,
    /// `Type`
    pub kind: CorrectiveInvType,
}

spelled! {
    /// `CorrectiveInvTypeSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CorrectiveInvType {
        Corrective = "CORRECTIVE",
        Debit = "DEBIT",
        Credit = "CREDIT",
    }
}

/// `PayMethod`
#[derive(Debug, Clone, PartialEq)]
pub struct PayMethod {
    /// `Type`
    pub kind: PayMethodType,
    /// `Amt`
    pub amt: Decimal,
    /// `CompCard`: the company card number, for `COMPANY` payments.
    pub comp_card: Option<String>,
    /// `Vouchers/Voucher@Num`, 0..20: the vouchers of an `SVOUCHER` payment.
    pub vouchers: Vec<String>,
}

/// `PaymentMethodTypeSType` (Albania has no `ADVANCE`; that is Montenegro's): the same 13
/// methods the API names, so the domain's type serves both.
pub use crate::domain::payments::PaymentType as PayMethodType;

/// `InvoiceSType`: CASH or NONCASH, the domain's invoice type.
pub use crate::domain::document::InvoiceType;

/// `Currency`
#[derive(Debug, Clone, PartialEq)]
pub struct Currency {
    /// `Code`: ISO 4217, e.g. `EUR`.
    pub code: String,
    /// `ExRate`: how many ALL one unit of the currency is worth.
    pub ex_rate: Decimal,
    /// `IsBuying`
    pub is_buying: bool,
}

/// `Seller`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seller {
    /// `IDType`
    pub id_type: IdType,
    /// `IDNum`
    pub id_num: String,
    /// `Name`
    pub name: String,
    /// `Address`
    pub address: Option<String>,
    /// `Town`
    pub town: Option<String>,
    /// `Country`: ISO 3166 alpha-3, e.g. `ALB`.
    pub country: Option<String>,
}

/// `Buyer`: every attribute is optional in the schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Buyer {
    /// `IDType`
    pub id_type: Option<IdType>,
    /// `IDNum`
    pub id_num: Option<String>,
    /// `Name`
    pub name: Option<String>,
    /// `Address`
    pub address: Option<String>,
    /// `Town`
    pub town: Option<String>,
    /// `Country`
    pub country: Option<String>,
}

/// `Items/I`
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// `N`
    pub name: String,
    /// `C`
    pub code: Option<String>,
    /// `U`
    pub unit: String,
    /// `Q`: negative on credit notes.
    pub quantity: Decimal,
    /// `UPB`: unit price before VAT.
    pub unit_price_before_vat: Decimal,
    /// `UPA`: unit price after VAT.
    pub unit_price_after_vat: Decimal,
    /// `R`: rebate, in percent.
    pub rebate: Option<Decimal>,
    /// `RR`: whether the rebate reduces the base price.
    pub rebate_reducing: Option<bool>,
    /// `PB`: line total before VAT.
    pub price_before_vat: Decimal,
    /// `VR`: VAT rate, in percent.
    pub vat_rate: Option<Decimal>,
    /// `VA`: line VAT amount.
    pub vat_amount: Option<Decimal>,
    /// `IN`: whether the item is an investment.
    pub is_investment: Option<bool>,
    /// `PA`: line total after VAT.
    pub price_after_vat: Decimal,
    /// `EX`
    pub exemption: Option<ItemExemption>,
    /// `VS`: the vouchers this line sells.
    pub vouchers_sold: Option<VouchersSold>,
}

spelled! {
    /// `ExemptFromVATSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ItemExemption {
        Type1 = "TYPE_1",
        Type2 = "TYPE_2",
        TaxFree = "TAX_FREE",
        MarginScheme = "MARGIN_SCHEME",
        ExportOfGoods = "EXPORT_OF_GOODS",
    }
}

/// `VS`: vouchers sold on an item line.
#[derive(Debug, Clone, PartialEq)]
pub struct VouchersSold {
    /// `VD@D`: expiry date.
    pub expiry: NaiveDate,
    /// `VD@N`: nominal value of each voucher.
    pub nominal: Decimal,
    /// `VN/V@Num`, 1..1000.
    pub numbers: Vec<String>,
}

/// `SameTax`: one VAT group.
#[derive(Debug, Clone, PartialEq)]
pub struct SameTax {
    /// `NumOfItems`
    pub num_of_items: u32,
    /// `PriceBefVAT`
    pub price_bef_vat: Decimal,
    /// `VATRate`
    pub vat_rate: Option<Decimal>,
    /// `ExemptFromVAT`
    pub exempt_from_vat: Option<SameTaxExemption>,
    /// `VATAmt`
    pub vat_amt: Option<Decimal>,
}

spelled! {
    /// `ExemptFromVATSameTaxItemSType`: only the two legal exemptions group taxes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SameTaxExemption {
        Type1 = "TYPE_1",
        Type2 = "TYPE_2",
    }
}

/// `ConsTax`: one consumption-tax group.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsTax {
    /// `NumOfItems`
    pub num_of_items: u32,
    /// `PriceBefConsTax`
    pub price_bef_cons_tax: Decimal,
    /// `ConsTaxRate`
    pub cons_tax_rate: Decimal,
    /// `ConsTaxAmt`
    pub cons_tax_amt: Decimal,
}

/// `Fee`
#[derive(Debug, Clone, PartialEq)]
pub struct Fee {
    /// `Type`
    pub kind: FeeType,
    /// `Amt`
    pub amt: Decimal,
}

spelled! {
    /// `FeeTypeSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum FeeType {
        Pack = "PACK",
        Bottle = "BOTTLE",
        Commission = "COMMISSION",
        Other = "OTHER",
    }
}

/// `SumInvIICRef`: an earlier invoice paid by this summary invoice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SumInvIicRef {
    /// `IIC`
    pub iic: String,
    /// `IssueDateTime`
    pub issue_date_time: DateTime<Utc>,
}

/// `BadDebtInv`: the invoice declared uncollectible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadDebtInv {
    /// `IICRef`
    pub iic_ref: String,
    /// `IssueDateTime`
    pub issue_date_time: DateTime<Utc>,
}

/// `TCR` of `RegisterTCRRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tcr {
    /// `IssuerNUIS`
    pub issuer_nuis: String,
    /// `BusinUnitCode`
    pub busin_unit_code: String,
    /// `TCRIntID`: our own identifier of the register.
    pub tcr_int_id: String,
    /// `SoftCode`
    pub soft_code: Option<String>,
    /// `MaintainerCode`
    pub maintainer_code: Option<String>,
    /// `ValidFrom`
    pub valid_from: Option<NaiveDate>,
    /// `ValidTo`
    pub valid_to: Option<NaiveDate>,
    /// `Type`
    pub tcr_type: Option<TcrType>,
}

spelled! {
    /// `TCRSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TcrType {
        Regular = "REGULAR",
        /// Self-service vending machine.
        Vending = "VENDING",
    }
}

/// `CashDeposit` of `RegisterCashDepositRequest`.
#[derive(Debug, Clone, PartialEq)]
pub struct CashDeposit {
    /// `ChangeDateTime`
    pub change_date_time: DateTime<Utc>,
    /// `Operation`
    pub operation: CashDepositOperation,
    /// `CashAmt`: never negative (`DecimalSType`).
    pub cash_amt: Decimal,
    /// `TCRCode`
    pub tcr_code: String,
    /// `IssuerNUIS`
    pub issuer_nuis: String,
}

spelled! {
    /// `CashDepositOperationSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CashDepositOperation {
        /// The cash in the register at the start of the day.
        Initial = "INITIAL",
        Withdraw = "WITHDRAW",
        Deposit = "DEPOSIT",
    }
}

/// The WTN's enumerations are the domain's, spelled as the schema spells them: `WTNSType`
/// (`NoteType`), `WTNTransactionSType` (`Transaction`), `VehOwnershipSType` (`VehicleOwnership`),
/// `WTNStartPointSType` and `WTNDestinPointSType` (`Point`; a destination is one of the points
/// `Point::is_destination` allows, as the domain's check made sure), `CarrierIDTypeSType`
/// (`CarrierIdType`).
pub use crate::domain::wtn::{CarrierIdType, NoteType, Point, Transaction, VehicleOwnership};

/// `WTN` of `RegisterWTNRequest`: a warehouse transfer note.
#[derive(Debug, Clone, PartialEq)]
pub struct Wtn {
    /// `Type`
    pub wtn_type: NoteType,
    /// `Transaction`
    pub transaction: Transaction,
    /// `IssueDateTime`
    pub issue_date_time: DateTime<Utc>,
    /// `OperatorCode`
    pub operator_code: String,
    /// `BusinUnitCode`
    pub busin_unit_code: String,
    /// `SoftCode`
    pub soft_code: String,
    /// `WTNOrdNum`
    pub wtn_ord_num: u32,
    /// `WTNNum`: `ord/yyyy`.
    pub wtn_num: String,
    /// `ValueOfGoods`
    pub value_of_goods: Decimal,
    /// `VehOwnership`
    pub veh_ownership: VehicleOwnership,
    /// `VehPlates`
    pub veh_plates: String,
    /// `StartAddr`
    pub start_addr: String,
    /// `StartCity`
    pub start_city: String,
    /// `StartDateTime`
    pub start_date_time: DateTime<Utc>,
    /// `StartPoint`
    pub start_point: Point,
    /// `DestinAddr`
    pub destin_addr: String,
    /// `DestinCity`
    pub destin_city: String,
    /// `DestinDateTime`
    pub destin_date_time: DateTime<Utc>,
    /// `DestinPoint`
    pub destin_point: Point,
    /// `IsGoodsFlammable`
    pub is_goods_flammable: bool,
    /// `IsEscortRequired`
    pub is_escort_required: bool,
    /// `PackType`
    pub pack_type: Option<String>,
    /// `PackNum`
    pub pack_num: Option<u32>,
    /// `ItemsNum`
    pub items_num: Option<u32>,
    /// `WTNIC`
    pub wtnic: String,
    /// `WTNICSignature`
    pub wtnic_signature: String,
    /// `Issuer`
    pub issuer: WtnIssuer,
    /// `Carrier`
    pub carrier: Option<WtnCarrier>,
    /// `Items/I`, 1..1000.
    pub items: Vec<WtnItem>,
}

/// `Issuer` of a WTN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WtnIssuer {
    /// `NUIS`
    pub nuis: String,
    /// `Name`
    pub name: String,
    /// `Address`
    pub address: String,
    /// `Town`
    pub town: String,
}

/// `Carrier` of a WTN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WtnCarrier {
    /// `IDType`
    pub id_type: CarrierIdType,
    /// `IDNum`
    pub id_num: String,
    /// `Name`
    pub name: String,
    /// `Address`
    pub address: Option<String>,
    /// `Town`
    pub town: Option<String>,
}

/// `Items/I` of a WTN.
#[derive(Debug, Clone, PartialEq)]
pub struct WtnItem {
    /// `N`
    pub name: String,
    /// `C`
    pub code: Option<String>,
    /// `U`
    pub unit: String,
    /// `Q`
    pub quantity: Decimal,
}

/// `EinvoiceEnvelope` of `RegisterEinvoiceRequest`: the signed e-invoice document itself (its
/// raw bytes; the request carries them in base64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterEinvoice {
    /// `UblInvoice`: a UBL 2.1 Invoice.
    UblInvoice(Vec<u8>),
    /// `UblCreditNote`: a UBL 2.1 CreditNote.
    UblCreditNote(Vec<u8>),
    /// `CiiInvoice`: a UN/CEFACT Cross Industry Invoice.
    CiiInvoice(Vec<u8>),
}

/// `Filter` of `GetTaxpayersRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetTaxpayers {
    /// `Tin`: the NUIS.
    Tin(String),
    /// `Name`: 3..100 characters.
    Name(String),
}

/// `GetEinvoicesRequest`: one e-invoice by EIC, or a window of received ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetEinvoices {
    /// `EIC`: asks for this one e-invoice, with its PDF.
    pub eic: Option<String>,
    /// `PartyType`
    pub party_type: Option<PartyType>,
    /// `RecDateTimeFrom`
    pub rec_date_time_from: Option<DateTime<Utc>>,
    /// `RecDateTimeTo`
    pub rec_date_time_to: Option<DateTime<Utc>>,
}

spelled! {
    /// `PartyTypeSType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PartyType {
        Buyer = "BUYER",
        Seller = "SELLER",
    }
}

/// `EinvoiceChangeStatusRequest`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EinvoiceChangeStatus {
    /// `EICs/EIC`, 1..100.
    pub eics: Vec<String>,
    /// `EinStatus`
    pub status: EinvoiceStatus,
}

spelled! {
    /// `EinvoiceStatusType`
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EinvoiceStatus {
        Accepted = "ACCEPTED",
        Refused = "REFUSED",
        Paid = "PAID",
        PartiallyPaid = "PARTIALLY_PAID",
    }
}

/// Money as `DecimalSType`/`DecimalNegSType`: exactly two decimals, rounded half away from
/// zero as the CIS rounds. A value that rounds to zero is written `0.00`, never `-0.00`,
/// which the non-negative type would reject.
pub fn money(amount: Decimal) -> String {
    let mut rounded = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    if rounded.is_zero() {
        rounded = Decimal::ZERO;
    }
    rounded.rescale(2);
    rounded.to_string()
}

/// A percentage (VAT rate, rebate, consumption-tax rate): the schema types it as money,
/// so `20` is written `20.00`.
pub fn rate(percent: Decimal) -> String {
    money(percent)
}

/// Quantity as `DoubleNegForQuantitySType`: at most three decimals and no trailing zeros,
/// so `1`, `2.5`, `0.125`.
pub fn quantity(q: Decimal) -> String {
    let rounded = q.round_dp_with_strategy(3, RoundingStrategy::MidpointAwayFromZero).normalize();
    if rounded.is_zero() {
        return "0".to_string();
    }
    rounded.to_string()
}

/// Exchange rate as `DoubleSType`: plain decimal notation without trailing zeros.
pub fn exchange_rate(rate: Decimal) -> String {
    rate.normalize().to_string()
}

/// Instant as `UTCSType`: Europe/Tirane local time with its offset, whole seconds, never `Z`.
pub fn datetime(instant: DateTime<Utc>) -> String {
    instant.with_timezone(&chrono_tz::Europe::Tirane).format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

/// Date as `DateSType`.
pub fn date(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// `xs:boolean` in the form every client writes.
pub fn boolean(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::str::FromStr;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn money_has_two_decimals_rounded_half_away_from_zero() {
        assert_eq!(money(dec("99.01")), "99.01");
        assert_eq!(money(dec("100")), "100.00");
        assert_eq!(money(dec("0")), "0.00");
        assert_eq!(money(dec("16.505")), "16.51");
        assert_eq!(money(dec("16.504999")), "16.50");
        assert_eq!(money(dec("-16.505")), "-16.51");
        assert_eq!(money(dec("-0.001")), "0.00");
        assert_eq!(money(dec("1234567.8")), "1234567.80");
        assert_eq!(money(dec("0.5")), "0.50");
    }

    #[test]
    fn rate_is_written_like_money() {
        assert_eq!(rate(dec("20")), "20.00");
        assert_eq!(rate(dec("6")), "6.00");
        assert_eq!(rate(dec("0")), "0.00");
    }

    #[test]
    fn quantity_has_at_most_three_decimals_and_no_trailing_zeros() {
        assert_eq!(quantity(dec("1")), "1");
        assert_eq!(quantity(dec("1.000")), "1");
        assert_eq!(quantity(dec("2.50")), "2.5");
        assert_eq!(quantity(dec("0.125")), "0.125");
        assert_eq!(quantity(dec("0.1255")), "0.126");
        assert_eq!(quantity(dec("-3")), "-3");
        assert_eq!(quantity(dec("100")), "100");
        assert_eq!(quantity(dec("-0.0001")), "0");
    }

    #[test]
    fn exchange_rate_drops_trailing_zeros() {
        assert_eq!(exchange_rate(dec("100.5000")), "100.5");
        assert_eq!(exchange_rate(dec("117")), "117");
    }

    #[test]
    fn datetime_is_tirane_local_time_with_offset() {
        let summer = Utc.with_ymd_and_hms(2019, 6, 12, 15, 5, 43).unwrap();
        assert_eq!(datetime(summer), "2019-06-12T17:05:43+02:00");
        let winter = Utc.with_ymd_and_hms(2025, 2, 12, 7, 10, 38).unwrap();
        assert_eq!(datetime(winter), "2025-02-12T08:10:38+01:00");
        let with_fraction = summer + chrono::Duration::milliseconds(999);
        assert_eq!(datetime(with_fraction), "2019-06-12T17:05:43+02:00");
    }

    #[test]
    fn date_is_iso() {
        assert_eq!(date(NaiveDate::from_ymd_opt(2021, 3, 9).unwrap()), "2021-03-09");
    }

    #[test]
    fn boolean_is_lowercase() {
        assert_eq!(boolean(true), "true");
        assert_eq!(boolean(false), "false");
    }
}
