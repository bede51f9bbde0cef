//! Invoice numbers. The ordinal `n` starts at 1 each calendar year and is MAX+1 per business
//! (and per TCR for cash); the store hands it out, these functions only write it.

/// The number shown to callers: `<n>/<year>`.
pub fn invoice_number(n: u32, year: i32) -> String {
    format!("{n}/{year}")
}

/// The CIS's `InvNum`: `<n>/<year>/<tcr code>` for a cash invoice, `<n>/<year>` otherwise
/// (PROTOCOL.md section 7).
pub fn cis_invoice_number(n: u32, year: i32, tcr_code: Option<&str>) -> String {
    match tcr_code {
        Some(tcr_code) => format!("{n}/{year}/{tcr_code}"),
        None => invoice_number(n, year),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_ordinal_slash_year() {
        assert_eq!(invoice_number(1, 2026), "1/2026");
        assert_eq!(invoice_number(9952, 2019), "9952/2019");
    }

    #[test]
    fn the_cis_number_of_a_cash_invoice_carries_the_tcr() {
        assert_eq!(cis_invoice_number(9952, 2019, Some("cc123cc123")), "9952/2019/cc123cc123");
        assert_eq!(cis_invoice_number(7, 2026, None), "7/2026");
    }
}
