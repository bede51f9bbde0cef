//! Invoice numbers. The ordinal `n` starts at 1 each calendar year and is MAX+1 per business
//! (and per TCR for cash); the store reads the highest one used, these functions decide the
//! next and write it.

/// A non-cash sequence that began before Arka: at registration a business moving to Arka
/// mid-year gives the last non-cash (e-invoice) number it issued that year
/// (`lastNonCashEInvoiceNumber`), and Arka goes on after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CarriedOver {
    /// The calendar year (Tirane) the business registered in.
    pub year: i32,
    /// The last ordinal it used that year before Arka.
    pub last: i64,
}

/// The next ordinal of a sequence in `year`, whose highest ordinal in Arka is `max_used` (0
/// when none), for a sequence that may carry numbers over from before Arka.
pub fn next_ordinal(max_used: i64, carried_over: Option<CarriedOver>, year: i32) -> i64 {
    let floor = carried_over.filter(|c| c.year == year).map_or(0, |c| c.last.max(0));
    max_used.max(floor).saturating_add(1)
}

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
    fn a_sequence_goes_on_after_the_number_carried_over_in_its_year_only() {
        let carried = Some(CarriedOver { year: 2026, last: 41 });
        // | max used | carried over  | year | next |
        assert_eq!(next_ordinal(0, None, 2026), 1);
        assert_eq!(next_ordinal(7, None, 2026), 8);
        assert_eq!(next_ordinal(0, carried, 2026), 42);
        assert_eq!(next_ordinal(42, carried, 2026), 43);
        assert_eq!(next_ordinal(0, carried, 2027), 1);
        assert_eq!(next_ordinal(0, Some(CarriedOver { year: 2026, last: 0 }), 2026), 1);
    }

    #[test]
    fn the_cis_number_of_a_cash_invoice_carries_the_tcr() {
        assert_eq!(cis_invoice_number(9952, 2019, Some("cc123cc123")), "9952/2019/cc123cc123");
        assert_eq!(cis_invoice_number(7, 2026, None), "7/2026");
    }
}
