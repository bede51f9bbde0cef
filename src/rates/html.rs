//! Just enough of a page for the rate parsers: its tables (rows of cell texts, with the text that
//! came before each table) and the blocks marked by an attribute. html5gum does the tokenizing
//! (entities, attributes, comments, script bodies); this file only walks its tokens.

use html5gum::{DefaultEmitter, Token, Tokenizer};
use rust_decimal::Decimal;

/// A table: its rows of cell texts (header rows included) and the page text between the
/// previous table and this one, where pages write "last update" lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub before: String,
    pub rows: Vec<Vec<String>>,
}

/// An element carrying a given attribute: its text runs and image sources, in page order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    pub texts: Vec<String>,
    pub image_sources: Vec<String>,
}

/// Elements that never have an end tag, so they never open a nesting level.
const VOID: [&str; 6] = ["img", "br", "hr", "meta", "link", "input"];

fn tokens(page: &str) -> impl Iterator<Item = Token> + '_ {
    let mut emitter = DefaultEmitter::default();
    // Script and style bodies are text, not markup, as a browser reads them.
    emitter.naively_switch_states(true);
    Tokenizer::new_with_emitter(page, emitter).filter_map(Result::ok)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs of whitespace (non-breaking spaces included) become one space.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Default)]
struct OpenTable {
    table: Table,
    row: Option<Vec<String>>,
    cell: Option<String>,
    /// Script and style bodies are not page text.
    skipping: bool,
}

impl OpenTable {
    fn close_cell(&mut self) {
        if let Some(cell) = self.cell.take() {
            self.row.get_or_insert_with(Vec::new).push(collapse(&cell));
        }
    }

    fn close_row(&mut self) {
        self.close_cell();
        if let Some(row) = self.row.take() {
            self.table.rows.push(row);
        }
    }
}

/// Every table of the page, inner tables apart from the ones around them, in the order they end.
pub fn tables(page: &str) -> Vec<Table> {
    let mut done = Vec::new();
    let mut open: Vec<OpenTable> = Vec::new();
    let mut outside = String::new();
    let mut skipping = false;
    for token in tokens(page) {
        match token {
            Token::StartTag(tag) => {
                let name = text(&tag.name);
                match name.as_str() {
                    "table" => open.push(OpenTable {
                        table: Table { before: collapse(&std::mem::take(&mut outside)), rows: Vec::new() },
                        ..OpenTable::default()
                    }),
                    "tr" => {
                        if let Some(t) = open.last_mut() {
                            t.close_row();
                            t.row = Some(Vec::new());
                        }
                    }
                    "td" | "th" => {
                        if let Some(t) = open.last_mut() {
                            t.close_cell();
                            t.cell = Some(String::new());
                        }
                    }
                    "script" | "style" => match open.last_mut() {
                        Some(t) => t.skipping = true,
                        None => skipping = true,
                    },
                    "br" => match open.last_mut().and_then(|t| t.cell.as_mut()) {
                        Some(cell) => cell.push(' '),
                        None => outside.push(' '),
                    },
                    _ => {}
                }
            }
            Token::EndTag(tag) => match text(&tag.name).as_str() {
                "table" => {
                    if let Some(mut t) = open.pop() {
                        t.close_row();
                        done.push(t.table);
                    }
                }
                "tr" => {
                    if let Some(t) = open.last_mut() {
                        t.close_row();
                    }
                }
                "td" | "th" => {
                    if let Some(t) = open.last_mut() {
                        t.close_cell();
                    }
                }
                "script" | "style" => match open.last_mut() {
                    Some(t) => t.skipping = false,
                    None => skipping = false,
                },
                // Block ends separate words that the markup kept apart.
                _ => match open.last_mut().and_then(|t| t.cell.as_mut()) {
                    Some(cell) => cell.push(' '),
                    None => outside.push(' '),
                },
            },
            Token::String(s) => match open.last_mut() {
                Some(t) if t.skipping => {}
                Some(t) => {
                    if let Some(cell) = t.cell.as_mut() {
                        cell.push_str(&text(&s));
                    }
                }
                None if skipping => {}
                None => outside.push_str(&text(&s)),
            },
            _ => {}
        }
    }
    done
}

/// Every element carrying `attribute`, with what it holds.
pub fn blocks_with_attribute(page: &str, attribute: &str) -> Vec<Block> {
    let mut done = Vec::new();
    // The open block: its tag name, how deep the same tag is nested inside it, and what it holds.
    let mut open: Option<(String, usize, Block)> = None;
    let mut skipping = false;
    for token in tokens(page) {
        match token {
            Token::StartTag(tag) => {
                let name = text(&tag.name);
                if name == "script" || name == "style" {
                    skipping = true;
                }
                match open.as_mut() {
                    Some((open_name, depth, block)) => {
                        if name == "img"
                            && let Some(src) = tag.attributes.get(b"src".as_slice())
                        {
                            block.image_sources.push(text(src));
                        }
                        if *open_name == name && !tag.self_closing {
                            *depth += 1;
                        }
                    }
                    None => {
                        let marked = tag.attributes.keys().any(|k| text(k).eq_ignore_ascii_case(attribute));
                        if marked && !VOID.contains(&name.as_str()) && !tag.self_closing {
                            open = Some((name, 0, Block::default()));
                        }
                    }
                }
            }
            Token::EndTag(tag) => {
                let name = text(&tag.name);
                if name == "script" || name == "style" {
                    skipping = false;
                }
                if let Some((open_name, depth, _)) = open.as_mut()
                    && *open_name == name
                {
                    if *depth == 0 {
                        if let Some((_, _, block)) = open.take() {
                            done.push(block);
                        }
                    } else {
                        *depth -= 1;
                    }
                }
            }
            Token::String(s) if !skipping => {
                if let Some((_, _, block)) = open.as_mut() {
                    let run = collapse(&text(&s));
                    if !run.is_empty() {
                        block.texts.push(run);
                    }
                }
            }
            _ => {}
        }
    }
    done
}

/// A rate as pages print it: `97.35`, `+0.12`, `341,102.48` (comma thousands), `97,35` (a lone
/// decimal comma), with spaces anywhere. None for anything else.
pub fn number(text: &str) -> Option<Decimal> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let compact = compact.strip_prefix('+').unwrap_or(&compact);
    let digits = compact.strip_prefix('-').unwrap_or(compact);
    if digits.is_empty()
        || !digits.starts_with(|c: char| c.is_ascii_digit())
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return None;
    }
    let plain = match (compact.rfind('.'), compact.rfind(',')) {
        (Some(dot), Some(comma)) if dot > comma => compact.replace(',', ""),
        (Some(_), Some(_)) => compact.replace('.', "").replace(',', "."),
        (None, Some(_)) if compact.matches(',').count() == 1 => compact.replace(',', "."),
        (None, Some(_)) => compact.replace(',', ""),
        _ => compact.to_string(),
    };
    plain.parse().ok()
}

/// The text itself when it is an ISO 4217 code, or the first word of it that is one
/// (`EUR`, `EUR (100)`, `🇪🇺 EUR`).
pub fn currency_code(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() == 3 && w.bytes().all(|b| b.is_ascii_uppercase()))
        .map(str::to_string)
}

/// The units a label says a rate is for: the first whole number in parentheses
/// (`Jeni Japonez (100)`, `(per 100)`, `Ari (1 ons)`).
pub fn unit_in(label: &str) -> Option<u32> {
    label.split('(').skip(1).find_map(|group| {
        let inside = group.split(')').next().unwrap_or_default();
        inside.split(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty()).and_then(|w| w.parse().ok())
    })
}

/// The last `DD.MM.YYYY` date written in `text`.
pub fn last_date(text: &str) -> Option<chrono::NaiveDate> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .rev()
        .find_map(|w| chrono::NaiveDate::parse_from_str(w.trim_matches('.'), "%d.%m.%Y").ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn tables_keep_rows_cells_and_the_text_before_them() {
        let page = "<p>Updated: <b>20.11.2026</b></p><script>var t='<table><tr><td>NO</td></tr></table>';</script>\
             <table><thead><tr><th>Code<th>Rate</thead><tr><td> EUR&nbsp;</td><td>97.35</td></tr>\
             <tr><td>USD<td>84.12</table><p>Next: 13.11.2026</p><table><tr><td>HUF</td><td>25.30</td></tr></table>";
        let tables = tables(page);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].before, "Updated: 20.11.2026");
        assert_eq!(tables[0].rows, vec![vec!["Code", "Rate"], vec!["EUR", "97.35"], vec!["USD", "84.12"]]);
        assert_eq!(tables[1].before, "Next: 13.11.2026");
        assert_eq!(tables[1].rows, vec![vec!["HUF", "25.30"]]);
    }

    #[test]
    fn inner_tables_stand_apart() {
        let page = "<table><tr><td>outer<table><tr><td>EUR</td><td>1</td></tr></table></td></tr></table>";
        let tables = tables(page);
        assert_eq!(tables[0].rows, vec![vec!["EUR", "1"]]);
        assert_eq!(tables[1].rows, vec![vec!["outer"]]);
    }

    #[test]
    fn blocks_hold_their_texts_and_images_with_nesting() {
        let page = r#"<div rate="2"><span><img src="/f/USD.png"> USD</span><div><span>83.50</span></div><span>84.40</span></div>
            <div class="x"><span>nothing</span></div><div RATE="3"><span>EUR</span></div>"#;
        let blocks = blocks_with_attribute(page, "rate");
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].texts, ["USD", "83.50", "84.40"]);
        assert_eq!(blocks[0].image_sources, ["/f/USD.png"]);
        assert_eq!(blocks[1].texts, ["EUR"]);
    }

    #[test]
    fn numbers_as_pages_print_them() {
        // | printed        | read       |
        let table = [
            ("97.35", Some(d("97.35"))),
            ("+0.12", Some(d("0.12"))),
            ("-1,105.42", Some(d("-1105.42"))),
            ("341,102.48", Some(d("341102.48"))),
            ("97,35", Some(d("97.35"))),
            ("1.234,5", Some(d("1234.5"))),
            ("1,234,567", Some(d("1234567"))),
            (" 8.30 ", Some(d("8.30"))),
            ("", None),
            ("EUR", None),
            ("1.2.3", None),
            ("-", None),
            ("1e30", None),
        ];
        for (printed, read) in table {
            assert_eq!(number(printed), read, "{printed:?}");
        }
    }

    #[test]
    fn codes_units_and_dates_in_labels() {
        assert_eq!(currency_code("EUR").as_deref(), Some("EUR"));
        assert_eq!(currency_code("JPY (100)").as_deref(), Some("JPY"));
        assert_eq!(currency_code("Euro"), None);
        assert_eq!(unit_in("Jeni Japonez (100)"), Some(100));
        assert_eq!(unit_in("Japanese Yen (per 100)"), Some(100));
        assert_eq!(unit_in("Juani Kinez (onshore)"), None);
        assert_eq!(unit_in("Euro"), None);
        assert_eq!(last_date("Përditësimi i fundit: 20.11.2026 ora 12:31:38"), "2026-11-20".parse().ok());
        assert_eq!(last_date("no date here 12.31"), None);
    }
}
