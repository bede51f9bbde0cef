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

/// A list query shaped like the end of a number (`1234/2019`: digits, a slash, a four-digit
/// year): its digits and year. Every number holding it as text ends in it, since the year ends
/// a number.
pub fn number_end(query: &str) -> Option<(&str, i32)> {
    let (digits, year) = query.split_once('/')?;
    let all_digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    (all_digits(digits) && digits.len() <= 9 && year.len() == 4 && all_digits(year))
        .then(|| Some((digits, year.parse().ok()?)))
        .flatten()
}

/// The ordinals up to `max` whose decimal digits end in `digits` (`234` gives 234, 1234, 2234,
/// ...; `0234` gives 10234, 20234, ...), or `None` when there are more than `limit`: a short end
/// matches too many numbers to look each one up.
pub fn ordinals_ending_in(digits: &str, max: i64, limit: usize) -> Option<Vec<i64>> {
    let step = 10_i64.checked_pow(u32::try_from(digits.len()).ok()?)?;
    let first: i64 = digits.parse().ok()?;
    let count = usize::try_from(max.saturating_sub(first).max(-1).saturating_add(step) / step).ok()?;
    if count > limit {
        return None;
    }
    Some(
        (0..)
            .map(|k: i64| first + k * step)
            .take_while(|n| *n <= max)
            .filter(|n| *n >= 1 && n.to_string().ends_with(digits))
            .collect(),
    )
}

/// The CIS's `InvNum`: `<n>/<year>/<tcr code>` for a cash invoice, `<n>/<year>` otherwise
/// (PROTOCOL.md section 7).
pub fn cis_invoice_number(n: u32, year: i32, tcr_code: Option<&str>) -> String {
    match tcr_code {
        Some(tcr_code) => format!("{n}/{year}/{tcr_code}"),
        None => invoice_number(n, year),
    }
}

/// A numbering sequence of a company, as `arka restore` compares a backup with the database it
/// replaces.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum SequenceName {
    /// A TCR's cash sequence, by its TCR code.
    Till(String),
    /// The business's non-cash sequence.
    NonCash,
    /// A business unit's warehouse transfer notes: the unit's id and business unit code (empty
    /// when unknown).
    WtnUnit { id: i64, code: String },
}

impl SequenceName {
    /// The sequence within its company as the database names it (`services::sequence::Sequence::key`).
    pub fn key(&self) -> String {
        match self {
            SequenceName::Till(tcr) => format!("cash:{tcr}"),
            SequenceName::NonCash => "noncash".to_string(),
            SequenceName::WtnUnit { id, .. } => format!("wtn:{id}"),
        }
    }

    /// The sequence a `key` names (a WTN unit's code unknown).
    pub fn from_key(key: &str) -> Option<SequenceName> {
        if key == "noncash" {
            return Some(SequenceName::NonCash);
        }
        if let Some(tcr) = key.strip_prefix("cash:") {
            return Some(SequenceName::Till(tcr.to_string()));
        }
        let id = key.strip_prefix("wtn:")?.parse().ok()?;
        Some(SequenceName::WtnUnit { id, code: String::new() })
    }
}

impl std::fmt::Display for SequenceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SequenceName::Till(tcr) => write!(f, "cash TCR {tcr}"),
            SequenceName::NonCash => write!(f, "non-cash"),
            SequenceName::WtnUnit { id, code } if code.is_empty() => write!(f, "WTN of unit id {id}"),
            SequenceName::WtnUnit { code, .. } => write!(f, "WTN of unit {code}"),
        }
    }
}

/// The last ordinal a sequence reached in a year, in one database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastNumber {
    pub company_id: i64,
    pub nuis: String,
    pub sequence: SequenceName,
    pub year: i32,
    pub ord_num: i64,
}

/// One sequence of a backup or of the database a restore replaces, with its last ordinal in
/// each (0: none there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideBySide {
    pub company_id: i64,
    pub nuis: String,
    pub sequence: SequenceName,
    pub year: i32,
    pub backup: i64,
    pub replaced: i64,
}

impl SideBySide {
    /// The replaced database went further than the backup: restoring the backup as it is would
    /// give its next documents numbers the replaced one had issued.
    pub fn predated(&self) -> bool {
        self.replaced > self.backup
    }
}

/// Every sequence of either database, with its last ordinal in each, in the order of company,
/// sequence and year. A sequence is the same in both when its company, key and year are.
pub fn side_by_side(backup: &[LastNumber], replaced: &[LastNumber]) -> Vec<SideBySide> {
    let mut rows: Vec<SideBySide> = Vec::new();
    let sides = backup.iter().map(|l| (l, true)).chain(replaced.iter().map(|l| (l, false)));
    for (last, in_backup) in sides {
        let key = last.sequence.key();
        let found = rows
            .iter_mut()
            .find(|r| r.company_id == last.company_id && r.year == last.year && r.sequence.key() == key);
        let row = match found {
            Some(row) => row,
            None => {
                rows.push(SideBySide {
                    company_id: last.company_id,
                    nuis: last.nuis.clone(),
                    sequence: last.sequence.clone(),
                    year: last.year,
                    backup: 0,
                    replaced: 0,
                });
                let end = rows.len() - 1;
                &mut rows[end]
            }
        };
        if let (SequenceName::WtnUnit { code, .. }, SequenceName::WtnUnit { code: known, .. }) =
            (&mut row.sequence, &last.sequence)
            && code.is_empty()
        {
            code.clone_from(known);
        }
        let side = if in_backup { &mut row.backup } else { &mut row.replaced };
        *side = (*side).max(last.ord_num);
    }
    rows.sort_by(|a, b| (a.company_id, &a.sequence, a.year).cmp(&(b.company_id, &b.sequence, b.year)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_a_numbers_end_when_it_is_digits_a_slash_and_a_year() {
        // | query        | digits and year       |
        assert_eq!(number_end("1234/2019"), Some(("1234", 2019)));
        assert_eq!(number_end("0234/2019"), Some(("0234", 2019)));
        assert_eq!(number_end("7/2026"), Some(("7", 2026)));
        assert_eq!(number_end("/2019"), None);
        assert_eq!(number_end("1234/201"), None);
        assert_eq!(number_end("1234/20199"), None);
        assert_eq!(number_end("12a4/2019"), None);
        assert_eq!(number_end(" 1234/2019"), None);
        assert_eq!(number_end("1234/2019/tc001"), None);
        assert_eq!(number_end("1234567890/2019"), None);
        assert_eq!(number_end("Hoxha"), None);
    }

    #[test]
    fn the_ordinals_ending_in_a_numbers_digits() {
        // | digits | max    | limit | ordinals                           |
        assert_eq!(ordinals_ending_in("234", 3_000, 10), Some(vec![234, 1234, 2234]));
        assert_eq!(ordinals_ending_in("0234", 30_234, 10), Some(vec![10234, 20234, 30234]));
        assert_eq!(ordinals_ending_in("1234", 1_233, 10), Some(vec![]));
        assert_eq!(ordinals_ending_in("0", 30, 10), Some(vec![10, 20, 30]));
        assert_eq!(ordinals_ending_in("7", 0, 10), Some(vec![]));
        assert_eq!(ordinals_ending_in("4", 1_000, 10), None, "101 ordinals: more than the limit");
        assert_eq!(ordinals_ending_in("1234", 213_000, 1_000).map(|o| o.len()), Some(22));
        assert_eq!(ordinals_ending_in("999999999", i64::MAX, 10), None);
    }

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

    #[test]
    fn a_restore_sees_each_sequence_side_by_side_and_which_the_backup_predates() {
        let last = |company_id, sequence: SequenceName, year, ord_num| LastNumber {
            company_id,
            nuis: "L41323036D".into(),
            sequence,
            year,
            ord_num,
        };
        let till = || SequenceName::Till("ab123ab123".into());
        let unit = |code: &str| SequenceName::WtnUnit { id: 4, code: code.into() };
        let backup =
            [last(1, till(), 2026, 9), last(1, SequenceName::NonCash, 2026, 3), last(1, unit(""), 2026, 2)];
        let replaced = [
            last(1, till(), 2026, 12),
            last(1, SequenceName::NonCash, 2026, 3),
            last(1, unit("ab123cd456"), 2026, 2),
            last(1, till(), 2025, 40),
            last(2, SequenceName::NonCash, 2026, 1),
        ];
        let rows = side_by_side(&backup, &replaced);
        // | company | sequence            | year | backup | replaced | predated |
        let seen: Vec<(i64, String, i32, i64, i64, bool)> = rows
            .iter()
            .map(|r| (r.company_id, r.sequence.to_string(), r.year, r.backup, r.replaced, r.predated()))
            .collect();
        assert_eq!(
            seen,
            [
                (1, "cash TCR ab123ab123".to_string(), 2025, 0, 40, true),
                (1, "cash TCR ab123ab123".to_string(), 2026, 9, 12, true),
                (1, "non-cash".to_string(), 2026, 3, 3, false),
                (1, "WTN of unit ab123cd456".to_string(), 2026, 2, 2, false),
                (2, "non-cash".to_string(), 2026, 0, 1, true),
            ]
        );
    }

    #[test]
    fn a_sequence_key_reads_back_as_written() {
        for name in [
            SequenceName::Till("ab123ab123".into()),
            SequenceName::NonCash,
            SequenceName::WtnUnit { id: 7, code: String::new() },
        ] {
            assert_eq!(SequenceName::from_key(&name.key()), Some(name));
        }
        assert_eq!(SequenceName::from_key("wtn:x"), None);
        assert_eq!(SequenceName::from_key("other"), None);
    }
}
