//! The verification URL behind an invoice's QR code (PROTOCOL.md section 6): the IIC and the
//! fields it was computed from.

use super::iic::IicInput;

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
}
