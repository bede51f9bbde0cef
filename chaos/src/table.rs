//! The campaign's one table: a row per section (and per simulator mode of the fault run), its
//! figures, and the counts that must be zero.

use std::fmt::Write;

/// One row of the table.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub section: String,
    /// What ran: trials, requests, seconds.
    pub ran: String,
    /// The figures measured (answers, latencies, rates, memory).
    pub figures: String,
    pub lost: usize,
    pub duplicated: usize,
    pub gaps: usize,
    /// 5xx answers not owed to the CIS being away (the 503 of a sale saved for later is fine).
    pub server_errors: usize,
    /// Calls without an answer in time, panics in the log.
    pub hangs_and_panics: usize,
    /// Secrets found, other companies' data reached.
    pub leaks: usize,
    /// Anything else a check found, in words (first few shown under the table).
    pub findings: Vec<String>,
}

impl Row {
    pub fn new(section: &str, ran: String, figures: String) -> Row {
        Row { section: section.to_string(), ran, figures, ..Row::default() }
    }

    pub fn clean(&self) -> bool {
        self.lost == 0
            && self.duplicated == 0
            && self.gaps == 0
            && self.server_errors == 0
            && self.hangs_and_panics == 0
            && self.leaks == 0
            && self.findings.is_empty()
    }
}

/// The whole table.
#[derive(Debug, Clone)]
pub struct Report {
    pub seed: u64,
    pub rows: Vec<Row>,
}

impl Report {
    pub fn new(seed: u64) -> Report {
        Report { seed, rows: Vec::new() }
    }

    pub fn clean(&self) -> bool {
        self.rows.iter().all(Row::clean)
    }

    /// A Markdown table (what the docs show), then the findings of unclean rows.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("| Section | Ran | Figures | Lost | Duplicated | Gaps | 5xx | Hangs, panics | Leaks | Verdict |\n");
        out.push_str("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for r in &self.rows {
            let verdict = if r.clean() { "ok" } else { "FAILED" };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {verdict} |",
                r.section,
                r.ran,
                r.figures,
                r.lost,
                r.duplicated,
                r.gaps,
                r.server_errors,
                r.hangs_and_panics,
                r.leaks
            );
        }
        let _ = writeln!(out, "\nseed {}", self.seed);
        for r in self.rows.iter().filter(|r| !r.findings.is_empty()) {
            let _ = writeln!(out, "\n{} ({} findings):", r.section, r.findings.len());
            for finding in r.findings.iter().take(10) {
                let _ = writeln!(out, "  - {finding}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_with_any_count_or_finding_fails_the_table() {
        let mut report = Report::new(7);
        report.rows.push(Row::new("crash", "1 trial".into(), "12 documents".into()));
        assert!(report.clean());
        assert!(report.render().contains("| crash | 1 trial | 12 documents | 0 | 0 | 0 | 0 | 0 | 0 | ok |"));
        report.rows.push(Row { gaps: 1, ..Row::new("faults: down", String::new(), String::new()) });
        assert!(!report.clean());
        assert!(report.render().contains("FAILED"));
        report.rows[1].gaps = 0;
        report.rows[1].findings.push("a 500 on POST /api/v1/invoice/cash".into());
        assert!(!report.clean());
        assert!(report.render().contains("  - a 500 on POST /api/v1/invoice/cash"));
    }
}
