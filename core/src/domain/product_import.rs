//! A product list from a CSV file (a spreadsheet's "save as CSV"): its header names the columns,
//! each row is a product matched by its `code`, created when the company has none with it and
//! changed otherwise. Errors name the file's line and the column, `line.<n>.<column>`, counting
//! the header as line 1, so the owner finds the cell to correct.

use super::client::Patch;
use super::product::ProductInput;
use super::validation::{self, FieldErrors};

/// The columns a file may have; `code`, `name`, `last_price` and `vat_rate` it must have.
pub const COLUMNS: &[&str] = &[
    "code",
    "name",
    "last_price",
    "vat_rate",
    "cost_price",
    "description",
    "unit_code",
    "service",
    "currency",
];
const REQUIRED: &[&str] = &["code", "name", "last_price", "vat_rate"];

/// The most rows one file may hold.
pub const MAX_ROWS: usize = 5000;

/// A row of the file: its line number and what it asks for.
#[derive(Debug, Clone)]
pub struct ImportRow {
    pub line: usize,
    pub code: String,
    pub input: ProductInput,
}

/// The key of an error of `column` on `line`.
pub fn key(line: usize, column: &str) -> String {
    format!("line.{line}.{column}")
}

fn optional(cell: &str) -> Patch<String> {
    let cell = cell.trim();
    if cell.is_empty() { None } else { Some(Some(cell.to_string())) }
}

fn service(errors: &mut FieldErrors, line: usize, cell: &str) -> Patch<bool> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" => None,
        "1" | "true" | "yes" | "po" => Some(Some(true)),
        "0" | "false" | "no" | "jo" => Some(Some(false)),
        _ => {
            errors.add(key(line, "service"), "The service must be true or false.");
            None
        }
    }
}

/// The header's columns by position; unknown or repeated columns, and missing required ones,
/// are errors of line 1.
fn header(record: &csv::StringRecord, errors: &mut FieldErrors) -> Vec<String> {
    let names: Vec<String> =
        record.iter().map(|h| h.trim().trim_start_matches('\u{feff}').to_lowercase()).collect();
    for (i, name) in names.iter().enumerate() {
        if !COLUMNS.contains(&name.as_str()) {
            errors.add(key(1, name), format!("The column {name} is not one of: {}.", COLUMNS.join(", ")));
        } else if names[..i].contains(name) {
            errors.add(key(1, name), format!("The column {name} is there twice."));
        }
    }
    for needed in REQUIRED {
        if !names.iter().any(|n| n == needed) {
            errors.add(key(1, needed), format!("The column {needed} is required."));
        }
    }
    names
}

/// Reads the file (UTF-8; comma- or semicolon-separated, as the header shows). Every error of
/// every line together; nothing is read as a product until all are right.
pub fn parse(text: &str) -> Result<Vec<ImportRow>, FieldErrors> {
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.matches(';').count() > first.matches(',').count() { b';' } else { b',' };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut errors = FieldErrors::new();
    let mut records = reader.records();
    let names = match records.next() {
        Some(Ok(record)) => header(&record, &mut errors),
        _ => return Err(FieldErrors::one("file", "The file is empty: its first line names the columns.")),
    };
    let mut rows = Vec::new();
    let mut codes: Vec<(String, usize)> = Vec::new();
    let mut previous = 1;
    for record in records {
        // The file's own line, from where the record starts (the reader skips empty lines and
        // counts only records, so neither its count nor its line numbers are the file's lines).
        let position = match &record {
            Ok(r) => r.position(),
            Err(e) => e.position(),
        };
        // A record's start includes the empty lines before it.
        let line = position
            .and_then(|p| usize::try_from(p.byte()).ok())
            .and_then(|byte| text.split_at_checked(byte))
            .map_or(previous + 1, |(before, from)| {
                let blank = from.len() - from.trim_start_matches(['\r', '\n']).len();
                before.matches('\n').count() + from[..blank].matches('\n').count() + 1
            });
        previous = line;
        if rows.len() >= MAX_ROWS {
            errors.add(key(line, "file"), format!("A file may hold at most {MAX_ROWS} products."));
            break;
        }
        let record = match record {
            Ok(r) if r.iter().all(|c| c.trim().is_empty()) => continue,
            Ok(r) => r,
            Err(e) => {
                errors.add(key(line, "file"), format!("The line cannot be read: {e}."));
                continue;
            }
        };
        // Each cell meets the rule of every string of a JSON body: a product holding a control
        // character could never be sold (the CIS's XML cannot carry it).
        for (name, text) in names.iter().zip(record.iter()) {
            validation::xml_text(&mut errors, &key(line, name), text);
        }
        if record.len() > names.len() {
            errors.add(
                key(line, "file"),
                format!("The line has {} cells, the header {}.", record.len(), names.len()),
            );
        }
        let cell =
            |column: &str| names.iter().position(|n| n == column).and_then(|i| record.get(i)).unwrap_or("");
        let code = cell("code").trim().to_string();
        if code.is_empty() {
            errors.add(key(line, "code"), "The code is required: it tells a new product from one to change.");
        } else if let Some((_, earlier)) = codes.iter().find(|(c, _)| *c == code) {
            errors.add(key(line, "code"), format!("The code {code} is also on line {earlier}."));
        } else {
            codes.push((code.clone(), line));
        }
        let input = ProductInput {
            code: optional(&code),
            name: optional(cell("name")).flatten(),
            description: optional(cell("description")),
            last_price: optional(cell("last_price")).flatten().map(|p| p.replace(',', ".")),
            cost_price: optional(cell("cost_price")).map(|p| p.map(|p| p.replace(',', "."))),
            vat_rate: optional(cell("vat_rate"))
                .flatten()
                .map(|v| v.trim_end_matches('%').trim().to_string()),
            currency: optional(cell("currency")),
            service: service(&mut errors, line, cell("service")),
            unit_code: optional(cell("unit_code")),
            id_category: None,
            vat_exempt_type: None,
        };
        rows.push(ImportRow { line, code, input });
    }
    if rows.is_empty() && errors.is_empty() {
        errors.add("file", "The file has no product under its header.");
    }
    errors.into_result()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(e: FieldErrors) -> Vec<String> {
        e.into_map().into_keys().collect()
    }

    #[test]
    fn a_file_reads_its_rows_by_the_header_with_comma_decimals_and_semicolons() {
        let rows =
            parse("\u{feff}Code;Name;Last_Price;VAT_rate\nK1;Kafe;120,50;20%\n\nU1;Ujë;50;6\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].line, rows[0].code.as_str()), (2, "K1"));
        assert_eq!(rows[0].input.last_price.as_deref(), Some("120.50"));
        assert_eq!(rows[0].input.vat_rate.as_deref(), Some("20"));
        assert_eq!((rows[1].line, rows[1].input.name.as_deref()), (4, Some("Ujë")));
    }

    #[test]
    fn a_cell_with_a_control_character_is_named_by_its_line_and_column() {
        let e = parse("code,name,last_price,vat_rate\nK1,a\u{0}b,1,20\nK\u{7}2,Ujë,1,6\nK3,Tab\tok,1,20\n")
            .unwrap_err();
        assert_eq!(fields(e), ["line.2.name", "line.3.code"]);
        assert!(parse("code,name,last_price,vat_rate\nK1,\"two\r\nlines\",1,20\n").is_ok());
    }

    #[test]
    fn bad_lines_name_their_line_and_column() {
        let e =
            parse("code,name,last_price,vat_rate,service\nK1,Kafe,1,20,maybe\n,Ujë,1,6,\nK1,Kafe,2,20,\n")
                .unwrap_err();
        assert_eq!(fields(e), ["line.2.service", "line.3.code", "line.4.code"]);
        let e = parse("code,name,price\n").unwrap_err();
        assert_eq!(fields(e), ["line.1.last_price", "line.1.price", "line.1.vat_rate"]);
        assert_eq!(fields(parse("").unwrap_err()), ["file"]);
        assert_eq!(fields(parse("code,name,last_price,vat_rate\n").unwrap_err()), ["file"]);
    }
}
