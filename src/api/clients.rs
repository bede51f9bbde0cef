//! Clients: the look-up of a business in the fiscal register, and the company's clients in two
//! views of one model: v1 flat with uppercase values, v2 structured with lowercase values.
//! Both lists answer in the v1 flat format, as the spec says.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, PathId, Query, search_query};
use super::fields;
use super::limits::Interval;
use super::onboarding::paging;
use crate::domain::client::{ClientPatch, ClientType, Field, IdType, Invalid, Patch, Rejection};
use crate::domain::spelled::Spelled;
use crate::domain::validation::FieldErrors;
use crate::services::clients::SaveError;
use crate::store::clients::StoredClient;

#[derive(Deserialize)]
pub struct SearchQuery {
    nipt: Option<String>,
}

pub async fn search(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(q): Query<SearchQuery>,
) -> ApiResult {
    let taxpayer = state.services.onboarding().find_taxpayer(&caller, q.nipt).await?;
    ok(Found {
        nipt: taxpayer.tin,
        name: taxpayer.name,
        address: taxpayer.address,
        city: taxpayer.town,
        country: taxpayer.country,
        verified: true,
    })
}

/// A business as the fiscal register knows it.
#[derive(Serialize)]
struct Found {
    nipt: String,
    name: String,
    address: Option<String>,
    city: Option<String>,
    country: Option<String>,
    verified: bool,
}

// --- the list (v1 and v2) --------------------------------------------------------------------

#[derive(Deserialize)]
pub struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    query: Option<String>,
}

/// GET /api/v1/clients and GET /api/v2/clients: one list, one interval.
pub async fn list(State(state): State<AppState>, auth: Auth, Query(q): Query<ListQuery>) -> ApiResult {
    auth.interval(&state, Interval::Clients)?;
    let (limit, offset) = paging(q.limit, q.offset, 100)?;
    search_query(q.query.as_deref())?;
    let (items, total) = state.services.buyers().clients(&auth.0, q.query.as_deref(), limit, offset).await?;
    let items: Vec<Flat> = items.iter().map(Flat::from).collect();
    let pagination = Pagination { records: items.len(), total, limit, offset };
    ok(Listed { items, pagination })
}

#[derive(Serialize)]
struct Listed<'a> {
    items: Vec<Flat<'a>>,
    pagination: Pagination,
}

#[derive(Serialize)]
struct Pagination {
    records: usize,
    total: i64,
    limit: i64,
    offset: i64,
}

/// `data` of a route answering one client, in either view.
#[derive(Serialize)]
struct One<T> {
    client: T,
}

// --- v1: flat --------------------------------------------------------------------------------

fn upper<T: Spelled>(value: Option<T>) -> Option<String> {
    value.map(|v| v.as_str().to_uppercase())
}

fn day(date: Option<chrono::NaiveDate>) -> Option<String> {
    date.map(|d| d.format("%Y-%m-%d").to_string())
}

/// The v1 flat record. `nipt` holds a NUIS identifier and `id_num` any other, so a record sent
/// back as it was read keeps its identifier in the field it came from.
#[derive(Serialize)]
struct Flat<'a> {
    id: i64,
    name: String,
    client_type: Option<String>,
    company_name: Option<&'a str>,
    company_type: Option<String>,
    nipt: Option<&'a str>,
    first_name: Option<&'a str>,
    surname: Option<&'a str>,
    birthday: Option<String>,
    id_type: Option<String>,
    id_num: Option<&'a str>,
    nationality_code: Option<&'a str>,
    nationality_id: Option<i64>,
    telephone: Option<&'a str>,
    email: Option<&'a str>,
    address: Option<&'a str>,
    city: Option<&'a str>,
    country: Option<&'a str>,
    gender: Option<String>,
    customer_number: Option<&'a str>,
    verified: bool,
    created_at: &'a str,
    updated_at: &'a str,
}

impl<'a> From<&'a StoredClient> for Flat<'a> {
    fn from(s: &'a StoredClient) -> Self {
        let c = &s.client;
        let is_nuis = c.id_type == IdType::Nuis;
        let id_value = c.id_value.as_deref();
        Flat {
            id: s.id,
            name: c.full_name(),
            client_type: upper(Some(c.client_type)),
            company_name: c.company_name.as_deref(),
            company_type: upper(c.company_category),
            nipt: if is_nuis { id_value } else { None },
            first_name: c.first_name.as_deref(),
            surname: c.last_name.as_deref(),
            birthday: day(c.birthday),
            id_type: upper(Some(c.id_type)),
            id_num: if is_nuis { None } else { id_value },
            nationality_code: c.nationality_code.as_deref(),
            nationality_id: c.nationality_id,
            telephone: c.phone.as_deref(),
            email: c.email.as_deref(),
            address: c.address.as_deref(),
            city: c.city.as_deref(),
            country: c.country.as_deref(),
            gender: upper(c.gender),
            customer_number: c.customer_number.as_deref(),
            verified: s.verified,
            created_at: &s.created_at,
            updated_at: &s.updated_at,
        }
    }
}

#[derive(Deserialize)]
pub struct FlatBody {
    #[serde(default, deserialize_with = "fields::text")]
    name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    client_type: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    company_name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    company_type: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    nipt: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    first_name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    surname: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    birthday: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    id_type: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    id_num: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    nationality_code: Patch<String>,
    #[serde(default, deserialize_with = "fields::integer")]
    nationality_id: Patch<i64>,
    #[serde(default, deserialize_with = "fields::text")]
    telephone: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    email: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    address: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    city: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    country: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    gender: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    customer_number: Patch<String>,
}

/// A v1 body in the model's terms, and the key the identifier's value was read from.
fn from_flat(b: FlatBody) -> (ClientPatch, &'static str) {
    let sent = |p: &Patch<String>| matches!(p, Some(Some(_)));
    let says_nuis =
        b.id_type.as_ref().map(|t| t.as_deref().is_some_and(|t| t.trim().eq_ignore_ascii_case("nuis")));
    // The identifier's value comes from `nipt` or `id_num`: the one sent, or when both are,
    // the one id_type points at (the non-null one when id_type is not sent).
    let use_nipt = match (&b.nipt, &b.id_num) {
        (None, None) => {
            !matches!(b.client_type.as_ref(), Some(Some(t)) if t.trim().eq_ignore_ascii_case("person"))
        }
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (Some(_), Some(_)) => says_nuis.unwrap_or_else(|| sent(&b.nipt) || !sent(&b.id_num)),
    };
    let (id_value, id_key) = if use_nipt { (b.nipt, "nipt") } else { (b.id_num, "id_num") };
    let patch = ClientPatch {
        client_type: b.client_type,
        full_name: b.name,
        company_name: b.company_name,
        company_category: b.company_type,
        first_name: b.first_name,
        last_name: b.surname,
        birthday: b.birthday,
        gender: b.gender,
        id_type: b.id_type,
        id_value,
        address: b.address,
        city: b.city,
        country: b.country,
        phone: b.telephone,
        email: b.email,
        customer_number: b.customer_number,
        nationality_code: b.nationality_code,
        nationality_id: b.nationality_id,
    };
    (patch, id_key)
}

fn flat_key(field: Field, id_key: &'static str) -> &'static str {
    match field {
        Field::ClientType => "client_type",
        Field::CompanyName => "company_name",
        Field::CompanyCategory => "company_type",
        Field::FirstName => "first_name",
        Field::LastName => "surname",
        Field::Birthday => "birthday",
        Field::Gender => "gender",
        Field::IdType => "id_type",
        Field::IdValue => id_key,
        Field::Address => "address",
        Field::City => "city",
        Field::Country => "country",
        Field::Phone => "telephone",
        Field::Email => "email",
        Field::CustomerNumber => "customer_number",
        Field::NationalityCode => "nationality_code",
    }
}

fn field_errors(problems: Vec<Invalid>, key: impl Fn(Field) -> String, uppercase: bool) -> FieldErrors {
    let mut errors = FieldErrors::new();
    for p in problems {
        let key = key(p.field);
        errors.add(key.clone(), p.problem.message(&key, uppercase));
    }
    errors
}

/// v1 answers every refusal in the validation envelope, the type change under `client_type`.
fn flat_error(e: SaveError, id_key: &'static str) -> ApiError {
    match e {
        SaveError::Failed(e) => e.into(),
        SaveError::Rejected(Rejection::Invalid(problems)) => {
            ApiError::Validation(field_errors(problems, |f| flat_key(f, id_key).to_string(), true))
        }
        SaveError::Rejected(Rejection::TypeChange { stored }) => ApiError::field(
            "client_type",
            format!("The client_type cannot change: this client is {}.", stored.as_str().to_uppercase()),
        ),
    }
}

pub async fn v1_create(State(state): State<AppState>, auth: Auth, Body(b): Body<FlatBody>) -> ApiResult {
    auth.interval(&state, Interval::Clients)?;
    let (patch, id_key) = from_flat(b);
    let client =
        state.services.buyers().create_client(&auth.0, patch).await.map_err(|e| flat_error(e, id_key))?;
    created(One { client: Flat::from(&client) })
}

pub async fn v1_update(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Body(b): Body<FlatBody>,
) -> ApiResult {
    auth.interval(&state, Interval::Clients)?;
    let (patch, id_key) = from_flat(b);
    let client =
        state.services.buyers().update_client(&auth.0, id, patch).await.map_err(|e| flat_error(e, id_key))?;
    ok(One { client: Flat::from(&client) })
}

pub async fn v1_details(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let client = state.services.buyers().client(&caller, id).await?;
    ok(One { client: Flat::from(&client) })
}

// --- v2: structured --------------------------------------------------------------------------

/// The v2 structured record: `company` or `person` by the client's type, the other null.
#[derive(Serialize)]
struct Structured<'a> {
    id: i64,
    #[serde(rename = "type")]
    client_type: &'static str,
    company: Option<CompanyPart<'a>>,
    person: Option<PersonPart<'a>>,
    address: AddressPart<'a>,
    contact: ContactPart<'a>,
    customer_number: Option<&'a str>,
    verified: bool,
    created_at: &'a str,
    updated_at: &'a str,
}

#[derive(Serialize)]
struct IdPart<'a> {
    #[serde(rename = "type")]
    id_type: &'static str,
    value: Option<&'a str>,
}

#[derive(Serialize)]
struct CompanyPart<'a> {
    name: Option<&'a str>,
    category: Option<&'static str>,
    id: IdPart<'a>,
}

#[derive(Serialize)]
struct PersonPart<'a> {
    first_name: Option<&'a str>,
    last_name: Option<&'a str>,
    birthday: Option<String>,
    id: IdPart<'a>,
}

#[derive(Serialize)]
struct AddressPart<'a> {
    line: Option<&'a str>,
    city: Option<&'a str>,
    country: Option<&'a str>,
}

#[derive(Serialize)]
struct ContactPart<'a> {
    phone: Option<&'a str>,
    email: Option<&'a str>,
}

impl<'a> From<&'a StoredClient> for Structured<'a> {
    fn from(s: &'a StoredClient) -> Self {
        let c = &s.client;
        let id = IdPart { id_type: c.id_type.as_str(), value: c.id_value.as_deref() };
        let (company, person) = match c.client_type {
            ClientType::Company => (
                Some(CompanyPart {
                    name: c.company_name.as_deref(),
                    category: c.company_category.map(Spelled::as_str),
                    id,
                }),
                None,
            ),
            ClientType::Person => (
                None,
                Some(PersonPart {
                    first_name: c.first_name.as_deref(),
                    last_name: c.last_name.as_deref(),
                    birthday: day(c.birthday),
                    id,
                }),
            ),
        };
        Structured {
            id: s.id,
            client_type: c.client_type.as_str(),
            company,
            person,
            address: AddressPart {
                line: c.address.as_deref(),
                city: c.city.as_deref(),
                country: c.country.as_deref(),
            },
            contact: ContactPart { phone: c.phone.as_deref(), email: c.email.as_deref() },
            customer_number: c.customer_number.as_deref(),
            verified: s.verified,
            created_at: &s.created_at,
            updated_at: &s.updated_at,
        }
    }
}

#[derive(Clone, Deserialize)]
pub struct V2Id {
    #[serde(default, rename = "type", deserialize_with = "fields::text")]
    id_type: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    value: Patch<String>,
}

#[derive(Deserialize)]
pub struct V2Company {
    #[serde(default, deserialize_with = "fields::text")]
    name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    category: Patch<String>,
    #[serde(default, deserialize_with = "fields::object")]
    id: Patch<V2Id>,
}

#[derive(Deserialize)]
pub struct V2Person {
    #[serde(default, deserialize_with = "fields::text")]
    first_name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    last_name: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    birthday: Patch<String>,
    #[serde(default, deserialize_with = "fields::object")]
    id: Patch<V2Id>,
}

#[derive(Deserialize)]
pub struct V2Address {
    #[serde(default, deserialize_with = "fields::text")]
    line: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    city: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    country: Patch<String>,
}

#[derive(Deserialize)]
pub struct V2Contact {
    #[serde(default, deserialize_with = "fields::text")]
    phone: Patch<String>,
    #[serde(default, deserialize_with = "fields::text")]
    email: Patch<String>,
}

#[derive(Deserialize)]
pub struct V2Body {
    #[serde(default, rename = "type", deserialize_with = "fields::text")]
    client_type: Patch<String>,
    #[serde(default, deserialize_with = "fields::object")]
    company: Patch<V2Company>,
    #[serde(default, deserialize_with = "fields::object")]
    person: Patch<V2Person>,
    #[serde(default, deserialize_with = "fields::object")]
    address: Patch<V2Address>,
    #[serde(default, deserialize_with = "fields::object")]
    contact: Patch<V2Contact>,
    #[serde(default, deserialize_with = "fields::text")]
    customer_number: Patch<String>,
}

/// A field of a nested object: the object sent as null clears it, not sent keeps it.
fn inner<O, T: Clone>(object: &Patch<O>, field: impl Fn(&O) -> &Patch<T>) -> Patch<T> {
    match object {
        None => None,
        Some(None) => Some(None),
        Some(Some(o)) => field(o).clone(),
    }
}

/// Which object the client's data is read from: the one `type` names, or the one sent.
fn side(b: &V2Body) -> ClientType {
    match b.client_type.as_ref().and_then(|t| t.as_deref()).and_then(ClientType::parse_any_case) {
        Some(client_type) => client_type,
        None if b.company.is_none() && b.person.is_some() => ClientType::Person,
        None => ClientType::Company,
    }
}

/// On create the spec requires the object the type selects, with its identifier object.
fn v2_required(b: &V2Body) -> FieldErrors {
    let mut errors = FieldErrors::new();
    match b.client_type.as_ref().and_then(|t| t.as_deref()).and_then(ClientType::parse_any_case) {
        Some(ClientType::Company) => match &b.company {
            Some(Some(company)) if !matches!(company.id, Some(Some(_))) => {
                errors.add("company.id", "The company.id field is required.")
            }
            Some(Some(_)) => {}
            _ => errors.add("company", "The company field is required when type is company."),
        },
        Some(ClientType::Person) => match &b.person {
            Some(Some(person)) if !matches!(person.id, Some(Some(_))) => {
                errors.add("person.id", "The person.id field is required.")
            }
            Some(Some(_)) => {}
            _ => errors.add("person", "The person field is required when type is person."),
        },
        None => {}
    }
    errors
}

fn from_v2(b: V2Body) -> (ClientPatch, ClientType) {
    let side = side(&b);
    let id = match side {
        ClientType::Company => inner(&b.company, |c| &c.id),
        ClientType::Person => inner(&b.person, |p| &p.id),
    };
    let patch = ClientPatch {
        company_name: inner(&b.company, |c| &c.name),
        company_category: inner(&b.company, |c| &c.category),
        first_name: inner(&b.person, |p| &p.first_name),
        last_name: inner(&b.person, |p| &p.last_name),
        birthday: inner(&b.person, |p| &p.birthday),
        id_type: inner(&id, |i| &i.id_type),
        id_value: inner(&id, |i| &i.value),
        address: inner(&b.address, |a| &a.line),
        city: inner(&b.address, |a| &a.city),
        country: inner(&b.address, |a| &a.country),
        phone: inner(&b.contact, |c| &c.phone),
        email: inner(&b.contact, |c| &c.email),
        customer_number: b.customer_number,
        client_type: b.client_type,
        ..ClientPatch::default()
    };
    (patch, side)
}

fn v2_key(field: Field, side: ClientType) -> String {
    let side = side.as_str();
    match field {
        Field::ClientType => "type".into(),
        Field::CompanyName => "company.name".into(),
        Field::CompanyCategory => "company.category".into(),
        Field::FirstName => "person.first_name".into(),
        Field::LastName => "person.last_name".into(),
        Field::Birthday => "person.birthday".into(),
        Field::IdType => format!("{side}.id.type"),
        Field::IdValue => format!("{side}.id.value"),
        Field::Address => "address.line".into(),
        Field::City => "address.city".into(),
        Field::Country => "address.country".into(),
        Field::Phone => "contact.phone".into(),
        Field::Email => "contact.email".into(),
        Field::CustomerNumber => "customer_number".into(),
        // Fields v2 cannot send (kept from v1), named as v1 does should a stored value fail.
        Field::Gender => "gender".into(),
        Field::NationalityCode => "nationality_code".into(),
    }
}

/// v2 names fields with dotted keys; a type change is 422 in the standard envelope, per spec.
fn v2_error(e: SaveError, side: ClientType) -> ApiError {
    match e {
        SaveError::Failed(e) => e.into(),
        SaveError::Rejected(Rejection::Invalid(problems)) => {
            ApiError::Validation(field_errors(problems, |f| v2_key(f, side), false))
        }
        SaveError::Rejected(Rejection::TypeChange { stored }) => ApiError::status(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("The type of a client cannot change: this client is a {}.", stored.as_str()),
        ),
    }
}

pub async fn v2_create(State(state): State<AppState>, auth: Auth, Body(b): Body<V2Body>) -> ApiResult {
    auth.interval(&state, Interval::Clients)?;
    let required = v2_required(&b);
    if !required.is_empty() {
        return Err(ApiError::Validation(required));
    }
    let (patch, side) = from_v2(b);
    let client =
        state.services.buyers().create_client(&auth.0, patch).await.map_err(|e| v2_error(e, side))?;
    created(One { client: Structured::from(&client) })
}

pub async fn v2_update(
    State(state): State<AppState>,
    auth: Auth,
    PathId(id): PathId,
    Body(b): Body<V2Body>,
) -> ApiResult {
    auth.interval(&state, Interval::Clients)?;
    let (patch, side) = from_v2(b);
    let client =
        state.services.buyers().update_client(&auth.0, id, patch).await.map_err(|e| v2_error(e, side))?;
    ok(One { client: Structured::from(&client) })
}

pub async fn v2_show(State(state): State<AppState>, Auth(caller): Auth, PathId(id): PathId) -> ApiResult {
    let client = state.services.buyers().client(&caller, id).await?;
    ok(One { client: Structured::from(&client) })
}
