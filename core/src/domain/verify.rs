//! The verification URL behind an invoice's QR code (PROTOCOL.md section 6): the IIC and the
//! fields it was computed from; and the few characters an invoice's row keeps of it (issue 34),
//! since the rest are the row's own fields.

use rust_decimal::{Decimal, RoundingStrategy};

/// The fields an IIC covers, exactly as they appear in the invoice's attributes.
#[derive(Debug, Clone, Copy)]
pub struct IicInput<'a> {
    pub nuis: &'a str,
    /// `IssueDateTime` as sent, `YYYY-MM-DDThh:mm:ss±hh:mm`.
    pub issue_date_time: &'a str,
    /// `InvOrdNum`, the ordinal, not the full `InvNum`.
    pub ord_num: u64,
    pub business_unit_code: &'a str,
    /// Invoices without a TCR sign an empty field here.
    pub tcr_code: Option<&'a str>,
    pub soft_code: &'a str,
    /// `TotPrice` exactly as in the attribute (two decimals, `99.01`).
    pub tot_price: &'a str,
}

impl IicInput<'_> {
    /// `NUIS|IssueDateTime|InvOrdNum|BU|TCR|Soft|TotPrice`.
    pub fn text(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}|{}",
            self.nuis,
            self.issue_date_time,
            self.ord_num,
            self.business_unit_code,
            self.tcr_code.unwrap_or(""),
            self.soft_code,
            self.tot_price
        )
    }
}

/// Host of the tax administration's verification page for the test and production services.
pub const TEST_VERIFY_BASE: &str = "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify";
pub const PRODUCTION_VERIFY_BASE: &str = "https://efiskalizimi-app.tatime.gov.al/invoice-check/#/verify";

/// Percent-encodes a query value; `+` of the time offset must become `%2B`, or readers of the
/// QR code see a space.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn verify_url(base: &str, iic: &str, p: &IicInput) -> String {
    let mut url = format!(
        "{base}?iic={}&tin={}&crtd={}&ord={}&bu={}",
        encode(iic),
        encode(p.nuis),
        encode(p.issue_date_time),
        p.ord_num,
        encode(p.business_unit_code)
    );
    if let Some(tcr) = p.tcr_code {
        url.push_str(&format!("&cr={}", encode(tcr)));
    }
    url.push_str(&format!("&sw={}&prc={}", encode(p.soft_code), encode(p.tot_price)));
    url
}

/// The bases a row names by a letter.
const BASES: [(&str, &str); 2] = [("T", TEST_VERIFY_BASE), ("P", PRODUCTION_VERIFY_BASE)];

/// The fields of an invoice's row its verify URL is made of.
#[derive(Debug, Clone, Copy)]
pub struct RowFields<'a> {
    pub iic: &'a str,
    pub issue_date_time: &'a str,
    pub ord_num: u64,
    pub business_unit_code: &'a str,
    pub tcr_code: Option<&'a str>,
    /// The invoice's total: the URL's price when the invoice is in lek.
    pub total: Decimal,
}

/// What a row keeps of `url`: the base's letter, the issuer's NUIS and the software's code
/// (`T K00000001S ss123ss123`) when `kept_url` makes `url` back from them and `row`, byte for
/// byte; `url` itself otherwise (a foreign-currency invoice's price is not its total).
pub fn kept_url(url: &str, row: &RowFields) -> String {
    let kept = || {
        let (base, query) = url.split_once('?')?;
        let (letter, _) = BASES.iter().find(|(_, known)| *known == base)?;
        let value = |name: &str| query.split('&').find_map(|p| p.strip_prefix(name)?.strip_prefix('='));
        Some(format!("{letter} {} {}", value("tin")?, value("sw")?))
    };
    match kept() {
        Some(kept) if full_url(&kept, row) == url => kept,
        _ => url.to_string(),
    }
}

/// The verify URL of a row that keeps `kept` (what `kept_url` gave).
pub fn full_url(kept: &str, row: &RowFields) -> String {
    let mut parts = kept.split(' ');
    let (Some(letter), Some(nuis), Some(soft_code), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return kept.to_string();
    };
    let Some((_, base)) = BASES.iter().find(|(known, _)| *known == letter) else { return kept.to_string() };
    let mut price = row.total.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    price.rescale(2);
    let input = IicInput {
        nuis,
        issue_date_time: row.issue_date_time,
        ord_num: row.ord_num,
        business_unit_code: row.business_unit_code,
        tcr_code: row.tcr_code,
        soft_code,
        tot_price: &price.to_string(),
    };
    verify_url(base, row.iic, &input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_full_parameter_set_with_the_offset_encoded() {
        let url = verify_url(
            TEST_VERIFY_BASE,
            "D04C13B4063D63A13B5D822A90178A7C",
            &IicInput {
                nuis: "I12345678I",
                issue_date_time: "2019-06-12T17:05:43+02:00",
                ord_num: 9952,
                business_unit_code: "bb123bb123",
                tcr_code: Some("cc123cc123"),
                soft_code: "ss123ss123",
                tot_price: "99.01",
            },
        );
        assert_eq!(
            url,
            "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic=D04C13B4063D63A13B5D822A90178A7C&tin=I12345678I&crtd=2019-06-12T17:05:43%2B02:00&ord=9952&bu=bb123bb123&cr=cc123cc123&sw=ss123ss123&prc=99.01"
        );
    }

    #[test]
    fn leaves_out_the_tcr_when_there_is_none() {
        let url = verify_url(
            PRODUCTION_VERIFY_BASE,
            "A",
            &IicInput {
                nuis: "I12345678I",
                issue_date_time: "2019-06-12T17:05:43+02:00",
                ord_num: 1,
                business_unit_code: "bb123bb123",
                tcr_code: None,
                soft_code: "ss123ss123",
                tot_price: "1.00",
            },
        );
        assert!(!url.contains("&cr="));
        assert!(url.starts_with(PRODUCTION_VERIFY_BASE));
    }
    fn row(total: &str) -> RowFields<'static> {
        RowFields {
            iic: "D04C13B4063D63A13B5D822A90178A7C",
            issue_date_time: "2019-06-12T17:05:43+02:00",
            ord_num: 9952,
            business_unit_code: "bb123bb123",
            tcr_code: Some("cc123cc123"),
            total: total.parse().unwrap(),
        }
    }

    #[test]
    fn a_row_keeps_a_few_characters_of_its_url_and_makes_it_back_byte_for_byte() {
        let url = "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic=D04C13B4063D63A13B5D822A90178A7C&tin=I12345678I&crtd=2019-06-12T17:05:43%2B02:00&ord=9952&bu=bb123bb123&cr=cc123cc123&sw=ss123ss123&prc=99.00";
        let kept = kept_url(url, &row("99"));
        assert_eq!(kept, "T I12345678I ss123ss123");
        assert_eq!(full_url(&kept, &row("99")), url);
        let production = url.replace("-app-test.", "-app.");
        assert_eq!(full_url(&kept_url(&production, &row("99")), &row("99")), production);
    }

    #[test]
    fn a_url_the_row_cannot_make_back_is_kept_whole() {
        let url = "https://efiskalizimi-app-test.tatime.gov.al/invoice-check/#/verify?iic=D04C13B4063D63A13B5D822A90178A7C&tin=I12345678I&crtd=2019-06-12T17:05:43%2B02:00&ord=9952&bu=bb123bb123&cr=cc123cc123&sw=ss123ss123&prc=12345.60";
        // A foreign-currency invoice: the URL's price is in lek, the row's total is not.
        assert_eq!(kept_url(url, &row("100")), url);
        assert_eq!(full_url(url, &row("100")), url);
        let elsewhere = url.replace("https://efiskalizimi-app-test.tatime.gov.al", "https://example.com");
        assert_eq!(kept_url(&elsewhere, &row("12345.6")), elsewhere);
    }
}
