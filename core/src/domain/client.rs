//! The client: one model behind the v1 flat and the v2 structured views. Values are kept in
//! the v2 spelling (lowercase); each view names the fields and spells the values its own way,
//! so the rules below are written once and problems are reported per `Field`, not per key.

use chrono::{DateTime, NaiveDate, NaiveDateTime};

use super::spelled::{Spelled, spelled};
use super::validation::{is_email, is_nuis};

/// A field of an update: `None` keeps what is stored, `Some(None)` clears it (a JSON null),
/// `Some(Some(v))` sets it.
pub type Patch<T> = Option<Option<T>>;

spelled! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ClientType {
        Company = "company",
        Person = "person",
    }
}

spelled! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CompanyCategory {
        Business = "business",
        Bank = "bank",
        Exchange = "exchange",
    }
}

spelled! {
    /// The kind of identifier: a company's (nuis, vat, tax) or a person's (id, passport, social).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum IdType {
        Nuis = "nuis",
        Vat = "vat",
        Tax = "tax",
        Id = "id",
        Passport = "passport",
        Social = "social",
    }
}

impl IdType {
    fn allowed_for(client_type: ClientType) -> &'static [&'static str] {
        match client_type {
            ClientType::Company => &["nuis", "vat", "tax"],
            ClientType::Person => &["id", "passport", "social"],
        }
    }

    fn fits(self, client_type: ClientType) -> bool {
        IdType::allowed_for(client_type).contains(&self.as_str())
    }
}

spelled! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Gender {
        Male = "male",
        Female = "female",
    }
}

/// A valid client, whatever view it came through.
#[derive(Debug, Clone, PartialEq)]
pub struct Client {
    pub client_type: ClientType,
    /// Company only.
    pub company_name: Option<String>,
    pub company_category: Option<CompanyCategory>,
    /// Person only.
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub birthday: Option<NaiveDate>,
    pub gender: Option<Gender>,
    pub id_type: IdType,
    /// NUIS values are kept uppercase.
    pub id_value: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    /// ISO 3166-1 alpha-3, uppercase.
    pub country: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub customer_number: Option<String>,
    /// v1 only: kept untouched by v2 updates.
    pub nationality_code: Option<String>,
    pub nationality_id: Option<i64>,
}

impl Client {
    /// The company name, or a person's first and last name.
    pub fn full_name(&self) -> String {
        match self.client_type {
            ClientType::Company => self.company_name.clone().unwrap_or_default(),
            ClientType::Person => [self.first_name.as_deref(), self.last_name.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// What `query` is matched against, lowercased with Unicode rules (Ë -> ë, Ç -> ç).
    /// Fields are on separate lines so a match never spans two of them; the phone is also
    /// kept without spaces so "0691234567" finds "069 123 4567".
    pub fn search_text(&self) -> String {
        let phone_compact = self.phone.as_ref().map(|p| p.split_whitespace().collect::<String>());
        let full_name = self.full_name();
        [
            self.company_name.as_deref(),
            self.first_name.as_deref(),
            self.last_name.as_deref(),
            Some(full_name.as_str()),
            self.id_value.as_deref(),
            self.email.as_deref(),
            self.phone.as_deref(),
            phone_compact.as_deref(),
            self.customer_number.as_deref(),
        ]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("\n")
    }
}

/// A search term as it is matched against `Client::search_text`; None when blank.
pub fn search_term(query: Option<&str>) -> Option<String> {
    query.map(str::trim).filter(|q| !q.is_empty()).map(str::to_lowercase)
}

/// What a caller sent, field by field, in the model's terms. A create starts from nothing.
#[derive(Debug, Default, Clone)]
pub struct ClientPatch {
    pub client_type: Patch<String>,
    /// v1's `name`: used for the company name, or split into a person's first and last name,
    /// when those are not sent themselves.
    pub full_name: Patch<String>,
    pub company_name: Patch<String>,
    pub company_category: Patch<String>,
    pub first_name: Patch<String>,
    pub last_name: Patch<String>,
    pub birthday: Patch<String>,
    pub gender: Patch<String>,
    pub id_type: Patch<String>,
    pub id_value: Patch<String>,
    pub address: Patch<String>,
    pub city: Patch<String>,
    pub country: Patch<String>,
    pub phone: Patch<String>,
    pub email: Patch<String>,
    pub customer_number: Patch<String>,
    pub nationality_code: Patch<String>,
    pub nationality_id: Patch<i64>,
}

/// The model's fields, for naming a problem in each view's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    ClientType,
    CompanyName,
    CompanyCategory,
    FirstName,
    LastName,
    Birthday,
    Gender,
    IdType,
    IdValue,
    Address,
    City,
    Country,
    Phone,
    Email,
    CustomerNumber,
    NationalityCode,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Required,
    TooLong(usize),
    OneOf(&'static [&'static str]),
    NotDate,
    NotEmail,
    NotNuis,
    NotCountry,
    NotNationality,
}

impl Problem {
    /// The message under `key`; v1 spells enumerations uppercase.
    pub fn message(&self, key: &str, uppercase_values: bool) -> String {
        match self {
            Problem::Required => format!("The {key} field is required."),
            Problem::TooLong(max) => format!("The {key} field must not be greater than {max} characters."),
            Problem::OneOf(values) => {
                let values: Vec<String> = values
                    .iter()
                    .map(|v| if uppercase_values { v.to_uppercase() } else { (*v).to_string() })
                    .collect();
                format!("The {key} must be one of: {}.", values.join(", "))
            }
            Problem::NotDate => format!("The {key} must be a date (YYYY-MM-DD)."),
            Problem::NotEmail => format!("The {key} must be a valid email address."),
            Problem::NotNuis => format!("The {key} must be a NUIS: a letter, eight digits and a letter."),
            Problem::NotCountry => format!("The {key} must be exactly three letters (ISO 3166-1 alpha-3)."),
            Problem::NotNationality => format!("The {key} must be two or three letters (ISO 3166-1)."),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: Field,
    pub problem: Problem,
}

/// Why a client was not saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// An update asked for a different type; the type of a client never changes.
    TypeChange {
        stored: ClientType,
    },
    Invalid(Vec<Invalid>),
}

/// A new client from what was sent.
pub fn create(patch: &ClientPatch) -> Result<Client, Rejection> {
    build(Draft::default(), patch)
}

/// The stored client with `patch` applied. Fields not sent keep their values, so a client
/// made through v1 keeps its v1-only fields through a v2 update.
pub fn update(stored: &Client, patch: &ClientPatch) -> Result<Client, Rejection> {
    if let Some(Some(sent)) = &patch.client_type
        && let Some(client_type) = ClientType::parse_any_case(sent)
        && client_type != stored.client_type
    {
        return Err(Rejection::TypeChange { stored: stored.client_type });
    }
    build(Draft::from(stored), patch)
}

/// Every field as text, before it is checked.
#[derive(Debug, Default, Clone)]
struct Draft {
    client_type: Option<String>,
    company_name: Option<String>,
    company_category: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    birthday: Option<String>,
    gender: Option<String>,
    id_type: Option<String>,
    id_value: Option<String>,
    address: Option<String>,
    city: Option<String>,
    country: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    customer_number: Option<String>,
    nationality_code: Option<String>,
    nationality_id: Option<i64>,
}

impl From<&Client> for Draft {
    fn from(c: &Client) -> Self {
        Draft {
            client_type: Some(c.client_type.as_str().to_string()),
            company_name: c.company_name.clone(),
            company_category: c.company_category.map(|v| v.as_str().to_string()),
            first_name: c.first_name.clone(),
            last_name: c.last_name.clone(),
            birthday: c.birthday.map(|d| d.format("%Y-%m-%d").to_string()),
            gender: c.gender.map(|v| v.as_str().to_string()),
            id_type: Some(c.id_type.as_str().to_string()),
            id_value: c.id_value.clone(),
            address: c.address.clone(),
            city: c.city.clone(),
            country: c.country.clone(),
            phone: c.phone.clone(),
            email: c.email.clone(),
            customer_number: c.customer_number.clone(),
            nationality_code: c.nationality_code.clone(),
            nationality_id: c.nationality_id,
        }
    }
}

fn overlay<T: Clone>(slot: &mut Option<T>, patch: &Patch<T>) {
    if let Some(value) = patch {
        slot.clone_from(value);
    }
}

/// Trimmed, and blank read as absent.
fn clean(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn build(d: Draft, p: &ClientPatch) -> Result<Client, Rejection> {
    let d = d.patched(p);
    let mut problems = Vec::new();
    let mut fail = |field: Field, problem: Problem| problems.push(Invalid { field, problem });
    let client_type = client_type(&mut fail, d.client_type.clone());
    let names = kind_fields(&mut fail, client_type, names(&d, p, client_type), &d);
    let (id_type, id_value) = identity(&mut fail, client_type, d.id_type.clone(), d.id_value.clone());
    let contact = contact(&mut fail, &d);
    match (client_type, id_type) {
        (Some(client_type), Some(id_type)) if problems.is_empty() => Ok(Client {
            client_type,
            company_name: names.company_name,
            company_category: names.company_category,
            first_name: names.first_name,
            last_name: names.last_name,
            birthday: names.birthday,
            gender: names.gender,
            id_type,
            id_value,
            address: contact.address,
            city: contact.city,
            country: contact.country,
            phone: contact.phone,
            email: contact.email,
            customer_number: contact.customer_number,
            nationality_code: contact.nationality_code,
            nationality_id: d.nationality_id,
        }),
        _ => Err(Rejection::Invalid(problems)),
    }
}

impl Draft {
    /// The draft with every field the patch sends in place of its own.
    fn patched(mut self, p: &ClientPatch) -> Draft {
        overlay(&mut self.client_type, &p.client_type);
        overlay(&mut self.company_name, &p.company_name);
        overlay(&mut self.company_category, &p.company_category);
        overlay(&mut self.first_name, &p.first_name);
        overlay(&mut self.last_name, &p.last_name);
        overlay(&mut self.birthday, &p.birthday);
        overlay(&mut self.gender, &p.gender);
        overlay(&mut self.id_type, &p.id_type);
        overlay(&mut self.id_value, &p.id_value);
        overlay(&mut self.address, &p.address);
        overlay(&mut self.city, &p.city);
        overlay(&mut self.country, &p.country);
        overlay(&mut self.phone, &p.phone);
        overlay(&mut self.email, &p.email);
        overlay(&mut self.customer_number, &p.customer_number);
        overlay(&mut self.nationality_code, &p.nationality_code);
        overlay(&mut self.nationality_id, &p.nationality_id);
        self
    }
}

fn client_type(fail: &mut impl FnMut(Field, Problem), text: Option<String>) -> Option<ClientType> {
    let Some(text) = clean(text) else {
        fail(Field::ClientType, Problem::Required);
        return None;
    };
    let parsed = ClientType::parse_any_case(&text);
    if parsed.is_none() {
        fail(Field::ClientType, Problem::OneOf(&["company", "person"]));
    }
    parsed
}

/// The fields that belong to one client type: a company's name and category, a person's names,
/// birthday and gender. The other type's are dropped.
#[derive(Default)]
struct KindFields {
    company_name: Option<String>,
    company_category: Option<CompanyCategory>,
    first_name: Option<String>,
    last_name: Option<String>,
    birthday: Option<NaiveDate>,
    gender: Option<Gender>,
}

/// The names as sent. v1's `name` stands in for the name fields that were not sent.
fn names(d: &Draft, p: &ClientPatch, client_type: Option<ClientType>) -> KindFields {
    let mut names = KindFields {
        company_name: clean(d.company_name.clone()),
        first_name: clean(d.first_name.clone()),
        last_name: clean(d.last_name.clone()),
        ..KindFields::default()
    };
    let full_name = match &p.full_name {
        Some(Some(name)) => clean(Some(name.clone())),
        _ => None,
    };
    if let Some(name) = full_name {
        match client_type {
            Some(ClientType::Company) if p.company_name.is_none() => names.company_name = Some(name),
            Some(ClientType::Person) if p.first_name.is_none() && p.last_name.is_none() => {
                let (first, last) = match name.split_once(char::is_whitespace) {
                    Some((first, last)) => (first.to_string(), clean(Some(last.to_string()))),
                    None => (name, None),
                };
                names.first_name = Some(first);
                names.last_name = last;
            }
            _ => {}
        }
    }
    names
}

/// Checks the fields of the client's type and drops the other type's.
fn kind_fields(
    fail: &mut impl FnMut(Field, Problem),
    client_type: Option<ClientType>,
    mut names: KindFields,
    d: &Draft,
) -> KindFields {
    match client_type {
        Some(ClientType::Company) => {
            required(fail, Field::CompanyName, names.company_name.as_deref(), 255);
            names.company_category = one_of::<CompanyCategory>(
                fail,
                Field::CompanyCategory,
                clean(d.company_category.clone()),
                &["business", "bank", "exchange"],
            );
            names.first_name = None;
            names.last_name = None;
        }
        Some(ClientType::Person) => {
            required(fail, Field::FirstName, names.first_name.as_deref(), 255);
            required(fail, Field::LastName, names.last_name.as_deref(), 255);
            if let Some(text) = clean(d.birthday.clone()) {
                names.birthday = parse_date(&text);
                if names.birthday.is_none() {
                    fail(Field::Birthday, Problem::NotDate);
                }
            }
            names.gender =
                one_of::<Gender>(fail, Field::Gender, clean(d.gender.clone()), &["male", "female"]);
            names.company_name = None;
        }
        None => {}
    }
    names
}

/// The identification: its type (a company's NUIS, a person's ID card unless another fits) and
/// value (a NUIS kept uppercase).
fn identity(
    fail: &mut impl FnMut(Field, Problem),
    client_type: Option<ClientType>,
    id_type: Option<String>,
    id_value: Option<String>,
) -> (Option<IdType>, Option<String>) {
    let id_type = match (client_type, clean(id_type)) {
        (Some(ClientType::Company), None) => Some(IdType::Nuis),
        (Some(ClientType::Person), None) => Some(IdType::Id),
        (Some(client_type), Some(text)) => {
            match IdType::parse_any_case(&text).filter(|t| t.fits(client_type)) {
                Some(id_type) => Some(id_type),
                None => {
                    fail(Field::IdType, Problem::OneOf(IdType::allowed_for(client_type)));
                    None
                }
            }
        }
        (None, _) => None,
    };
    let mut id_value = clean(id_value);
    if id_type == Some(IdType::Nuis) {
        id_value = id_value.map(|v| v.to_uppercase());
    }
    let id_max = if client_type == Some(ClientType::Company) { 20 } else { 255 };
    too_long(fail, Field::IdValue, id_value.as_deref(), id_max);
    if id_type == Some(IdType::Nuis) && id_value.as_deref().is_some_and(|v| v.len() <= id_max && !is_nuis(v))
    {
        fail(Field::IdValue, Problem::NotNuis);
    }
    (id_type, id_value)
}

/// Where the client is and how to reach them.
struct Contact {
    address: Option<String>,
    city: Option<String>,
    country: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    customer_number: Option<String>,
    nationality_code: Option<String>,
}

fn contact(fail: &mut impl FnMut(Field, Problem), d: &Draft) -> Contact {
    let address = clean(d.address.clone());
    too_long(fail, Field::Address, address.as_deref(), 255);
    let city = clean(d.city.clone());
    too_long(fail, Field::City, city.as_deref(), 50);
    let country = clean(d.country.clone()).map(|c| c.to_uppercase());
    if country.as_deref().is_some_and(|c| c.len() != 3 || !c.bytes().all(|b| b.is_ascii_alphabetic())) {
        fail(Field::Country, Problem::NotCountry);
    }
    let phone = clean(d.phone.clone());
    too_long(fail, Field::Phone, phone.as_deref(), 255);
    let email = clean(d.email.clone());
    if email.as_deref().is_some_and(|e| e.chars().count() > 255) {
        fail(Field::Email, Problem::TooLong(255));
    } else if email.as_deref().is_some_and(|e| !is_email(e)) {
        fail(Field::Email, Problem::NotEmail);
    }
    let customer_number = clean(d.customer_number.clone());
    too_long(fail, Field::CustomerNumber, customer_number.as_deref(), 30);
    let nationality_code = clean(d.nationality_code.clone()).map(|c| c.to_uppercase());
    if nationality_code
        .as_deref()
        .is_some_and(|c| !(2..=3).contains(&c.len()) || !c.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        fail(Field::NationalityCode, Problem::NotNationality);
    }
    Contact { address, city, country, phone, email, customer_number, nationality_code }
}

fn required(fail: &mut impl FnMut(Field, Problem), field: Field, value: Option<&str>, max: usize) {
    match value {
        None => fail(field, Problem::Required),
        Some(v) if v.chars().count() > max => fail(field, Problem::TooLong(max)),
        Some(_) => {}
    }
}

fn too_long(fail: &mut impl FnMut(Field, Problem), field: Field, value: Option<&str>, max: usize) {
    if value.is_some_and(|v| v.chars().count() > max) {
        fail(field, Problem::TooLong(max));
    }
}

fn one_of<T: Spelled>(
    fail: &mut impl FnMut(Field, Problem),
    field: Field,
    value: Option<String>,
    allowed: &'static [&'static str],
) -> Option<T> {
    let text = value?;
    let parsed = T::parse_any_case(&text);
    if parsed.is_none() {
        fail(field, Problem::OneOf(allowed));
    }
    parsed
}

/// A date, or a date-time whose date part is taken (the spec calls birthday a date-time).
fn parse_date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .or_else(|| DateTime::parse_from_rfc3339(text).ok().map(|t| t.date_naive()))
        .or_else(|| NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").ok().map(|t| t.date()))
        .or_else(|| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").ok().map(|t| t.date()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &str) -> Patch<String> {
        Some(Some(v.to_string()))
    }

    fn company() -> ClientPatch {
        ClientPatch {
            client_type: set("company"),
            company_name: set("Çajupi Ëndërr sh.p.k."),
            id_value: set("k81234001a"),
            ..Default::default()
        }
    }

    fn fields(r: Result<Client, Rejection>) -> Vec<Field> {
        match r {
            Err(Rejection::Invalid(problems)) => problems.into_iter().map(|p| p.field).collect(),
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    #[test]
    fn a_company_defaults_to_nuis_kept_uppercase() {
        let c = create(&company()).unwrap();
        assert_eq!(c.id_type, IdType::Nuis);
        assert_eq!(c.id_value.as_deref(), Some("K81234001A"));
        assert_eq!(c.full_name(), "Çajupi Ëndërr sh.p.k.");
        assert!(c.search_text().contains("çajupi ëndërr"));
    }

    #[test]
    fn a_person_takes_the_v1_name_when_names_are_absent() {
        let p = ClientPatch {
            client_type: set("PERSON"),
            full_name: set("Ana  Hoxha"),
            id_type: set("PASSPORT"),
            ..Default::default()
        };
        let c = create(&p).unwrap();
        assert_eq!((c.first_name.as_deref(), c.last_name.as_deref()), (Some("Ana"), Some("Hoxha")));
        assert_eq!(c.id_type, IdType::Passport);
    }

    #[test]
    fn rules_name_their_fields() {
        assert_eq!(fields(create(&ClientPatch::default())), [Field::ClientType]);
        let mut p = company();
        p.id_type = set("passport");
        p.country = set("AL");
        p.email = set("not-an-email");
        p.customer_number = set(&"9".repeat(31));
        assert_eq!(fields(create(&p)), [Field::IdType, Field::Country, Field::Email, Field::CustomerNumber]);
        let mut p = company();
        p.id_value = set("12345");
        assert_eq!(fields(create(&p)), [Field::IdValue]);
    }

    #[test]
    fn an_update_keeps_what_is_not_sent_and_refuses_a_type_change() {
        let mut p = company();
        p.nationality_code = set("alb");
        let stored = create(&p).unwrap();
        let changed = update(&stored, &ClientPatch { city: set("Durrës"), ..Default::default() }).unwrap();
        assert_eq!(changed.nationality_code.as_deref(), Some("ALB"));
        assert_eq!(changed.city.as_deref(), Some("Durrës"));
        let cleared = update(&changed, &ClientPatch { city: Some(None), ..Default::default() }).unwrap();
        assert_eq!(cleared.city, None);
        assert_eq!(
            update(&stored, &ClientPatch { client_type: set("person"), ..Default::default() }),
            Err(Rejection::TypeChange { stored: ClientType::Company })
        );
    }

    #[test]
    fn birthdays_read_dates_and_date_times() {
        assert_eq!(parse_date("1990-05-01"), NaiveDate::from_ymd_opt(1990, 5, 1));
        assert_eq!(parse_date("1990-05-01T00:00:00+02:00"), NaiveDate::from_ymd_opt(1990, 5, 1));
        assert_eq!(parse_date("1990-05-01 10:00:00"), NaiveDate::from_ymd_opt(1990, 5, 1));
        assert_eq!(parse_date("01/05/1990"), None);
    }
}
