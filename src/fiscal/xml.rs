//! Canonical XML output.
//!
//! Requests are written directly in their exclusive-c14n form (attributes sorted, namespace
//! declarations first, empty elements as start/end pairs, c14n escaping), so the bytes we digest
//! are the bytes we send and no signed element is ever re-serialized. quick-xml's own escaping is
//! not canonical (`&apos;`, `>` in attributes), hence these two escape functions.

/// Escapes character data as exclusive c14n does.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#xD;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes an attribute value as exclusive c14n does.
pub fn escape_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            _ => out.push(c),
        }
    }
    out
}

/// Writes elements in canonical form. Only unprefixed names and unqualified attributes are
/// supported: every message Arka builds uses one default namespace per subtree.
#[derive(Debug, Default)]
pub struct CanonicalWriter {
    out: String,
    open: Vec<String>,
}

impl CanonicalWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens an element. `ns` declares a default namespace on it (rendered before the
    /// attributes, as c14n orders namespace nodes first). Attributes are sorted by name here.
    pub fn start(&mut self, name: &str, ns: Option<&str>, attrs: &[(&str, &str)]) {
        self.out.push('<');
        self.out.push_str(name);
        if let Some(ns) = ns {
            self.out.push_str(" xmlns=\"");
            self.out.push_str(&escape_attr(ns));
            self.out.push('"');
        }
        let mut sorted: Vec<&(&str, &str)> = attrs.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in sorted {
            self.out.push(' ');
            self.out.push_str(k);
            self.out.push_str("=\"");
            self.out.push_str(&escape_attr(v));
            self.out.push('"');
        }
        self.out.push('>');
        self.open.push(name.to_string());
    }

    /// An element with attributes and no content.
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) {
        self.start(name, None, attrs);
        self.end();
    }

    /// An element holding only text.
    pub fn text_element(&mut self, name: &str, text: &str) {
        self.start(name, None, &[]);
        self.text(text);
        self.end();
    }

    pub fn text(&mut self, t: &str) {
        self.out.push_str(&escape_text(t));
    }

    /// Appends bytes that are already canonical (for example a signed subtree).
    pub fn raw(&mut self, canonical: &str) {
        self.out.push_str(canonical);
    }

    pub fn end(&mut self) {
        if let Some(name) = self.open.pop() {
            self.out.push_str("</");
            self.out.push_str(&name);
            self.out.push('>');
        }
    }

    /// Closes whatever is still open and returns the document.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.end();
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_c14n() {
        assert_eq!(escape_text("a&b<c>d\re\"f'"), "a&amp;b&lt;c&gt;d&#xD;e\"f'");
        assert_eq!(escape_attr("a&b<c>d\"e\tf\ng\rh'"), "a&amp;b&lt;c>d&quot;e&#x9;f&#xA;g&#xD;h'");
    }

    #[test]
    fn writes_sorted_attributes_and_expanded_empty_elements() {
        let mut w = CanonicalWriter::new();
        w.start("Root", Some("urn:x"), &[("Version", "3"), ("Id", "Request")]);
        w.empty("Header", &[("UUID", "u"), ("SendDateTime", "t")]);
        w.text_element("FIC", "x&y");
        assert_eq!(
            w.finish(),
            "<Root xmlns=\"urn:x\" Id=\"Request\" Version=\"3\"><Header SendDateTime=\"t\" UUID=\"u\"></Header><FIC>x&amp;y</FIC></Root>"
        );
    }
}
