//! Exclusive XML canonicalization (`http://www.w3.org/2001/10/xml-exc-c14n#`, without comments,
//! empty InclusiveNamespaces) of one element subtree.
//!
//! The document is read into a small tree whose names are already resolved to namespace URIs, so
//! a subtree can be canonicalized without its ancestors: exclusive c14n only needs the bindings
//! of the prefixes an element visibly uses, never the context (a SOAP envelope) it sits in.

use std::collections::BTreeMap;

use quick_xml::NsReader;
use quick_xml::XmlVersion;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::{QName, ResolveResult};

use super::Error;
use super::xml::{escape_attr, escape_text};

pub const XMLDSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";

/// Deeper documents are refused: the tree is walked recursively and peers are not trusted.
const MAX_DEPTH: usize = 256;

/// Which element to canonicalize: the first one, in document order, that matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select<'a> {
    LocalName(&'a str),
    /// By the unqualified `Id` attribute, which the CIS schema declares as a plain string.
    Id(&'a str),
}

/// Whether a `Signature` child (xmldsig namespace) of the selected element is left out, as the
/// enveloped-signature transform does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopedSignature {
    Keep,
    Omit,
    /// Every `Signature` at any depth is left out: a document signed as a whole (`URI=""`)
    /// whose signature sits deep inside it, as a UBL e-invoice's does in its UBLExtensions.
    OmitNested,
}

/// Parses `doc` and returns the exclusive c14n of the selected element.
pub fn canonicalize_element(
    doc: &str,
    select: Select,
    signature: EnvelopedSignature,
) -> Result<String, Error> {
    let root = Element::parse_document(doc)?;
    let found = root.find(select).ok_or_else(|| Error::Xml(format!("no element matches {select:?}")))?;
    Ok(found.canonicalize(signature))
}

/// An element with namespace-resolved names, decoded attribute values and text.
#[derive(Debug, Clone)]
pub struct Element {
    name: Name,
    attributes: Vec<Attribute>,
    children: Vec<Node>,
}

#[derive(Debug, Clone)]
struct Name {
    prefix: String,
    local: String,
    namespace: String,
}

#[derive(Debug, Clone)]
struct Attribute {
    name: Name,
    value: String,
}

#[derive(Debug, Clone)]
enum Node {
    Element(Element),
    Text(String),
    Instruction { target: String, content: String },
}

impl Element {
    /// Reads a whole document and returns its root element. Comments and the XML declaration
    /// are dropped; a DOCTYPE is refused (SOAP forbids it, and its entities would change text).
    pub fn parse_document(doc: &str) -> Result<Element, Error> {
        let mut reader = NsReader::from_str(doc);
        let mut open: Vec<Element> = Vec::new();
        let mut root = None;
        loop {
            match reader.read_event().map_err(xml_error)? {
                Event::Start(start) => {
                    if root.is_some() {
                        return Err(Error::Xml("more than one root element".into()));
                    }
                    if open.len() >= MAX_DEPTH {
                        return Err(Error::Xml("elements nested too deeply".into()));
                    }
                    open.push(read_start(&reader, &start)?);
                }
                Event::Empty(start) => {
                    let element = read_start(&reader, &start)?;
                    close_element(&mut open, &mut root, element)?;
                }
                Event::End(_) => {
                    let element = open.pop().ok_or_else(|| Error::Xml("unexpected end tag".into()))?;
                    close_element(&mut open, &mut root, element)?;
                }
                Event::Text(text) => push_text(&mut open, &text.xml10_content()),
                Event::CData(cdata) => push_text(&mut open, &cdata.xml10_content()),
                Event::GeneralRef(reference) => push_text(&mut open, &resolve_reference(&reference)?),
                Event::PI(pi) => {
                    if let Some(parent) = open.last_mut() {
                        parent.children.push(Node::Instruction {
                            target: pi.target().to_string(),
                            content: pi.content().trim_start().to_string(),
                        });
                    }
                }
                Event::DocType(_) => return Err(Error::Xml("DOCTYPE is not allowed".into())),
                Event::Comment(_) | Event::Decl(_) => {}
                Event::Eof => break,
            }
        }
        if !open.is_empty() {
            return Err(Error::Xml("unclosed element".into()));
        }
        root.ok_or_else(|| Error::Xml("no root element".into()))
    }

    pub fn local_name(&self) -> &str {
        &self.name.local
    }

    /// The namespace URI, empty when the element has none.
    pub fn namespace(&self) -> &str {
        &self.name.namespace
    }

    /// The value of an unqualified attribute.
    pub fn attribute(&self, local_name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name.namespace.is_empty() && a.name.local == local_name)
            .map(|a| a.value.as_str())
    }

    pub fn children(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|node| match node {
            Node::Element(element) => Some(element),
            _ => None,
        })
    }

    /// The first child element with this namespace and local name.
    pub fn child(&self, namespace: &str, local_name: &str) -> Option<&Element> {
        self.children().find(|c| c.name.namespace == namespace && c.name.local == local_name)
    }

    /// The element's own text (not its descendants').
    pub fn text(&self) -> String {
        self.children
            .iter()
            .filter_map(|node| match node {
                Node::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The element itself or its first descendant, in document order, that matches.
    pub fn find(&self, select: Select) -> Option<&Element> {
        if self.matches(select) {
            return Some(self);
        }
        self.children().find_map(|child| child.find(select))
    }

    /// The exclusive c14n of this element's subtree.
    pub fn canonicalize(&self, signature: EnvelopedSignature) -> String {
        let mut out = String::new();
        let mut rendered = Vec::new();
        self.write_canonical(&mut out, &mut rendered, signature);
        out
    }

    fn matches(&self, select: Select) -> bool {
        match select {
            Select::LocalName(local) => self.name.local == local,
            Select::Id(id) => self.attribute("Id") == Some(id),
        }
    }

    /// Whether this is an XML-DSig `Signature` element.
    pub fn is_signature(&self) -> bool {
        self.name.namespace == XMLDSIG_NS && self.name.local == "Signature"
    }

    /// `rendered` holds the (prefix, namespace) declarations already written by output
    /// ancestors; a declaration is written again only where its binding changes.
    fn write_canonical(
        &self,
        out: &mut String,
        rendered: &mut Vec<(String, String)>,
        signature: EnvelopedSignature,
    ) {
        let scope = rendered.len();
        out.push('<');
        self.name.write_qualified(out);
        for (prefix, namespace) in self.visibly_utilized() {
            if rendered_namespace(rendered, prefix) != namespace {
                write_declaration(out, prefix, namespace);
                rendered.push((prefix.to_string(), namespace.to_string()));
            }
        }
        for attribute in self.sorted_attributes() {
            out.push(' ');
            attribute.name.write_qualified(out);
            out.push_str("=\"");
            out.push_str(&escape_attr(&attribute.value));
            out.push('"');
        }
        out.push('>');
        for child in &self.children {
            match child {
                Node::Element(element) => {
                    if signature == EnvelopedSignature::Keep || !element.is_signature() {
                        let below = match signature {
                            EnvelopedSignature::OmitNested => EnvelopedSignature::OmitNested,
                            _ => EnvelopedSignature::Keep,
                        };
                        element.write_canonical(out, rendered, below);
                    }
                }
                Node::Text(text) => out.push_str(&escape_text(text)),
                Node::Instruction { target, content } => write_instruction(out, target, content),
            }
        }
        out.push_str("</");
        self.name.write_qualified(out);
        out.push('>');
        rendered.truncate(scope);
    }

    /// The element's own prefix (the default namespace when it has none) and the prefixes of
    /// its qualified attributes, ordered by prefix as c14n orders namespace nodes.
    fn visibly_utilized(&self) -> BTreeMap<&str, &str> {
        let mut used = BTreeMap::new();
        used.insert(self.name.prefix.as_str(), self.name.namespace.as_str());
        for attribute in &self.attributes {
            // The xml prefix is bound by definition and never declared.
            if !attribute.name.prefix.is_empty() && attribute.name.prefix != "xml" {
                used.insert(attribute.name.prefix.as_str(), attribute.name.namespace.as_str());
            }
        }
        used
    }

    /// Unqualified attributes first (their namespace is empty), then by namespace URI and
    /// local name.
    fn sorted_attributes(&self) -> Vec<&Attribute> {
        let mut sorted: Vec<&Attribute> = self.attributes.iter().collect();
        sorted.sort_by(|a, b| {
            (a.name.namespace.as_str(), a.name.local.as_str())
                .cmp(&(b.name.namespace.as_str(), b.name.local.as_str()))
        });
        sorted
    }
}

impl Name {
    fn write_qualified(&self, out: &mut String) {
        if !self.prefix.is_empty() {
            out.push_str(&self.prefix);
            out.push(':');
        }
        out.push_str(&self.local);
    }
}

fn read_start(reader: &NsReader<&[u8]>, start: &BytesStart) -> Result<Element, Error> {
    let (resolved, local) = reader.resolver().resolve_element(start.name());
    let name = Name {
        prefix: prefix_of(start.name()),
        local: local.into_inner().to_string(),
        namespace: namespace_of(resolved)?,
    };
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(xml_error)?;
        if attribute.key.as_namespace_binding().is_some() {
            continue;
        }
        let (resolved, local) = reader.resolver().resolve_attribute(attribute.key);
        // Attribute-value normalization first (literal tabs and newlines become spaces), then
        // references are expanded, as an XML parser does.
        let value = attribute.normalized_value(XmlVersion::Implicit1_0).map_err(xml_error)?;
        attributes.push(Attribute {
            name: Name {
                prefix: prefix_of(attribute.key),
                local: local.into_inner().to_string(),
                namespace: namespace_of(resolved)?,
            },
            value: value.into_owned(),
        });
    }
    Ok(Element { name, attributes, children: Vec::new() })
}

fn prefix_of(name: QName) -> String {
    name.prefix().map(|prefix| prefix.into_inner().to_string()).unwrap_or_default()
}

fn namespace_of(resolved: ResolveResult) -> Result<String, Error> {
    match resolved {
        ResolveResult::Bound(namespace) => Ok(namespace.into_inner().to_string()),
        ResolveResult::Unbound => Ok(String::new()),
        ResolveResult::Unknown(prefix) => Err(Error::Xml(format!("undeclared namespace prefix {prefix}"))),
    }
}

fn resolve_reference(reference: &BytesRef) -> Result<String, Error> {
    if let Some(c) = reference.resolve_char_ref().map_err(xml_error)? {
        return Ok(c.to_string());
    }
    let name = reference.xml10_content();
    resolve_xml_entity(&name)
        .map(str::to_string)
        .ok_or_else(|| Error::Xml(format!("unknown entity &{name};")))
}

/// Attaches a finished element to its parent, or makes it the root.
fn close_element(open: &mut [Element], root: &mut Option<Element>, element: Element) -> Result<(), Error> {
    match open.last_mut() {
        Some(parent) => parent.children.push(Node::Element(element)),
        None if root.is_none() => *root = Some(element),
        None => return Err(Error::Xml("more than one root element".into())),
    }
    Ok(())
}

/// Text is split around references by the reader; adjacent pieces are joined into one node.
fn push_text(open: &mut [Element], text: &str) {
    let Some(parent) = open.last_mut() else {
        return;
    };
    if let Some(Node::Text(previous)) = parent.children.last_mut() {
        previous.push_str(text);
    } else {
        parent.children.push(Node::Text(text.to_string()));
    }
}

fn rendered_namespace<'a>(rendered: &'a [(String, String)], prefix: &str) -> &'a str {
    rendered.iter().rev().find(|(p, _)| p == prefix).map_or("", |(_, namespace)| namespace.as_str())
}

fn write_declaration(out: &mut String, prefix: &str, namespace: &str) {
    out.push_str(" xmlns");
    if !prefix.is_empty() {
        out.push(':');
        out.push_str(prefix);
    }
    out.push_str("=\"");
    out.push_str(&escape_attr(namespace));
    out.push('"');
}

fn write_instruction(out: &mut String, target: &str, content: &str) {
    out.push_str("<?");
    out.push_str(target);
    if !content.is_empty() {
        out.push(' ');
        out.push_str(content);
    }
    out.push_str("?>");
}

fn xml_error(e: impl std::fmt::Display) -> Error {
    Error::Xml(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::testing::{outside_tool, testvectors};
    use std::path::Path;
    use std::process::Command;

    fn vector(name: &str) -> String {
        std::fs::read_to_string(testvectors().join(name)).unwrap()
    }

    /// `xmllint --exc-c14n` of a whole document.
    fn xmllint_exc_c14n(doc: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.xml");
        std::fs::write(&path, doc).unwrap();
        xmllint_file(&path)
    }

    fn xmllint_file(path: &Path) -> String {
        let output = outside_tool(Command::new("xmllint").arg("--exc-c14n").arg(path), "libxml2-utils");
        assert!(output.status.success(), "xmllint failed on {path:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    fn whole(doc: &str) -> String {
        let root = Element::parse_document(doc).unwrap();
        root.canonicalize(EnvelopedSignature::Keep)
    }

    #[test]
    fn request_from_the_soap_vector_matches_byte_for_byte() {
        let c14n = canonicalize_element(
            &vector("RegisterInvoiceRequest.soap.xml"),
            Select::LocalName("RegisterInvoiceRequest"),
            EnvelopedSignature::Omit,
        )
        .unwrap();
        assert_eq!(c14n, vector("RegisterInvoiceRequest.exc-c14n.xml"));
    }

    #[test]
    fn request_selected_by_id_matches_too() {
        let c14n = canonicalize_element(
            &vector("RegisterInvoiceRequest.signed.xml"),
            Select::Id("Request"),
            EnvelopedSignature::Omit,
        )
        .unwrap();
        assert_eq!(c14n, vector("RegisterInvoiceRequest.exc-c14n.xml"));
    }

    #[test]
    fn signed_info_matches_byte_for_byte() {
        let c14n = canonicalize_element(
            &vector("RegisterInvoiceRequest.soap.xml"),
            Select::LocalName("SignedInfo"),
            EnvelopedSignature::Keep,
        )
        .unwrap();
        assert_eq!(c14n, vector("SignedInfo.exc-c14n.xml"));
    }

    #[test]
    fn whole_testvector_files_match_xmllint() {
        for name in [
            "RegisterInvoiceRequest.unsigned.xml",
            "RegisterInvoiceRequest.signed.xml",
            "RegisterInvoiceRequest.soap.xml",
            "RegisterInvoiceRequest.exc-c14n.xml",
            "SignedInfo.exc-c14n.xml",
        ] {
            let expected = xmllint_file(&testvectors().join(name));
            assert_eq!(whole(&vector(name)), expected, "{name}");
        }
    }

    const SOAP_WITH_DS_PREFIX: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n\
<!-- a comment -->\r\n\
<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:unused=\"urn:unused\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">\r\n\
<soap:Body>\r\n\
<RegisterInvoiceResponse xmlns=\"https://eFiskalizimi.tatime.gov.al/FiscalizationService/schema\" xmlns:ns2=\"urn:ns2\" Version=\"3\" Id=\"Response\" xml:lang=\"sq\">\r\n\
  <Header UUID=\"u&#x31;\" b=\"x&#9;y\r\nz &lt; &quot;q&quot; &gt; '\" RequestUUID=\"r\" a:attr=\"1\" xmlns:a=\"urn:a\" SendDateTime=\"2021-05-22T13:32:51+02:00\"/>\r\n\
  <FIC>a &amp; b &#13; c &gt; <![CDATA[<raw> & ]]>\"'</FIC>\r\n\
  <Empty xmlns=\"\"><Inner/></Empty><?pi   some data?>\r\n\
  <ds:Signature><ds:SignedInfo><ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/></ds:SignedInfo></ds:Signature>\r\n\
</RegisterInvoiceResponse>\r\n\
</soap:Body>\r\n\
</soap:Envelope>\r\n";

    #[test]
    fn soap_wrapped_element_matches_xmllint_subtree() {
        let response = canonicalize_element(
            SOAP_WITH_DS_PREFIX,
            Select::LocalName("RegisterInvoiceResponse"),
            EnvelopedSignature::Keep,
        )
        .unwrap();
        assert!(!response.contains("soap"));
        assert!(!response.contains("unused"));
        assert!(!response.contains("ns2"));
        assert!(response.contains("<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">"));
        // The subtree standing alone as a document must canonicalize to the same bytes.
        let expected = xmllint_exc_c14n(&response);
        assert_eq!(response, expected);
        let full = xmllint_exc_c14n(SOAP_WITH_DS_PREFIX);
        // xmllint keeps comments; this implementation is the without-comments variant.
        let full = full.strip_prefix("<!-- a comment -->\n").unwrap();
        assert_eq!(whole(SOAP_WITH_DS_PREFIX), full);
        assert!(full.contains(&response));
    }

    #[test]
    fn ds_prefixed_signed_info_matches_xmllint() {
        let signed_info = canonicalize_element(
            SOAP_WITH_DS_PREFIX,
            Select::LocalName("SignedInfo"),
            EnvelopedSignature::Keep,
        )
        .unwrap();
        assert_eq!(
            signed_info,
            "<ds:SignedInfo xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"></ds:CanonicalizationMethod></ds:SignedInfo>"
        );
    }

    #[test]
    fn omitting_a_prefixed_signature() {
        let response =
            canonicalize_element(SOAP_WITH_DS_PREFIX, Select::Id("Response"), EnvelopedSignature::Omit)
                .unwrap();
        assert!(!response.contains("Signature"));
        assert!(response.ends_with("\n\n</RegisterInvoiceResponse>"));
    }

    #[test]
    fn escaping_and_normalization() {
        let response =
            canonicalize_element(SOAP_WITH_DS_PREFIX, Select::LocalName("Header"), EnvelopedSignature::Keep)
                .unwrap();
        assert_eq!(
            response,
            "<Header xmlns=\"https://eFiskalizimi.tatime.gov.al/FiscalizationService/schema\" xmlns:a=\"urn:a\" RequestUUID=\"r\" SendDateTime=\"2021-05-22T13:32:51+02:00\" UUID=\"u1\" b=\"x&#x9;y z &lt; &quot;q&quot; > '\" a:attr=\"1\"></Header>"
        );
        let fic =
            canonicalize_element(SOAP_WITH_DS_PREFIX, Select::LocalName("FIC"), EnvelopedSignature::Keep)
                .unwrap();
        assert!(fic.ends_with(">a &amp; b &#xD; c &gt; &lt;raw&gt; &amp; \"'</FIC>"));
    }

    #[test]
    fn default_namespace_is_undeclared_where_it_changes() {
        let empty =
            canonicalize_element(SOAP_WITH_DS_PREFIX, Select::LocalName("Empty"), EnvelopedSignature::Keep)
                .unwrap();
        assert_eq!(empty, "<Empty><Inner></Inner></Empty>");
        let response = canonicalize_element(
            SOAP_WITH_DS_PREFIX,
            Select::LocalName("RegisterInvoiceResponse"),
            EnvelopedSignature::Keep,
        )
        .unwrap();
        assert!(response.contains("<Empty xmlns=\"\"><Inner></Inner></Empty><?pi some data?>"));
    }

    #[test]
    fn refuses_broken_input() {
        assert!(Element::parse_document("<a><b></a>").is_err());
        assert!(Element::parse_document("<a>&custom;</a>").is_err());
        assert!(Element::parse_document("<p:a/>").is_err());
        assert!(Element::parse_document("<!DOCTYPE a><a/>").is_err());
        assert!(Element::parse_document("").is_err());
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert!(Element::parse_document(&deep).is_err());
        assert!(canonicalize_element("<a/>", Select::LocalName("b"), EnvelopedSignature::Keep).is_err());
    }
}
