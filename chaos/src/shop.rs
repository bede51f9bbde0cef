//! A shop on board, the way its partner and owner do it over HTTP: registration, the business
//! unit's code, the certificate (as JSON with base64, with a password), one registered TCR per
//! till and a cashier with an operator code on each.

use chrono::Utc;
use serde_json::{Value, json};

use super::Error;
use super::client::Client;
use arka::fiscal::certificate::Certificate;

/// A till: its TCR code and the token of the cashier who sells on it.
#[derive(Debug, Clone)]
pub struct Till {
    pub tcr_code: String,
    pub token: String,
    pub user_id: i64,
}

/// A company on board.
pub struct Shop {
    pub nuis: String,
    /// The owner's token.
    pub token: String,
    pub company_id: i64,
    pub branch_id: i64,
    pub user_id: i64,
    pub tills: Vec<Till>,
    /// The signing certificate and the password it was uploaded with.
    pub certificate: Certificate,
    pub password: String,
    /// The PKCS#12 file as uploaded.
    pub p12: Vec<u8>,
}

/// The certificate password every campaign shop uses: long and distinctive, so the leak check
/// finds it in any encoding.
pub const CERTIFICATE_PASSWORD: &str = "Chaos-Cert-Pass-7f3a9c1e52d84b06";

/// A line that sells for `price`, at 20 % VAT.
pub fn line(price: i64) -> Value {
    json!({"product_name": "Kafe", "product_code": "K1", "unit": "copë", "quantity": 1,
           "price": price, "total": price, "vat": 20})
}

/// A v1 cash sale paid in banknotes.
pub fn cash_sale(internal_id: &str, price: i64) -> Value {
    json!({"internalId": internal_id, "lines": [line(price)], "payment_method": "BANKNOTE"})
}

/// A v1 non-cash invoice on account, to a business buyer.
pub fn on_account(internal_id: &str) -> Value {
    json!({"internalId": internal_id, "lines": [line(500)], "payment_method": "ACCOUNT",
           "client": {"name": "Ushqimore Dardania", "id": {"type": "NUIS", "id": "K81234001A"},
                      "address": "Rruga e Kavajës 112", "city": "Tiranë"}})
}

/// A v2 warehouse transfer note of one article.
pub fn transfer_note(internal_id: &str) -> Value {
    json!({"internalId": internal_id, "vehicle_plates": "AA 123 BB",
           "invoice_lines": [{"product_name": "Miell", "product_code": "MIELL", "unit": "kg", "quantity": 2}]})
}

/// Registers `nuis` through `partner` and on-boards it with `tills` registered TCRs.
pub fn onboard(client: &Client, partner: &str, nuis: &str, tills: usize) -> Result<Shop, Error> {
    let email = format!("owner.{}@shop.al", nuis.to_lowercase());
    let registration = json!({
        "nuis": nuis, "name": format!("Shop {nuis}"), "address": "Rruga e Durrësit 12, Tiranë",
        "administrator": "Ana Hoxha", "phone": "+355 69 123 4567", "email": email,
        "issuerInVat": true, "lastNonCashEInvoiceNumber": 0,
    });
    let registered =
        client.post("/api/v1/register", Some(partner), &registration)?.expect(201, "register")?;
    let token = registered.text_at("/data/api_token")?;
    let company_id = registered.int_at("/data/company/id")?;
    let branch_id = registered.int_at("/data/branch/id")?;
    let user_id = registered.int_at("/data/user/id")?;
    let branch = json!({"name": "Qendër", "businessUnitCode": "ab123cd456", "administrator": "Ana Hoxha",
                        "address": "Rruga Myslym Shyri 5", "city": "Tiranë"});
    client
        .post(&format!("/api/v1/on-boarding/branch/{branch_id}"), Some(&token), &branch)?
        .expect(200, "the unit's code")?;
    let certificate = Certificate::generate_self_signed(nuis, "Shop", chrono::Duration::days(365))
        .map_err(|e| Error::Setup(e.to_string()))?;
    let p12 = certificate.to_p12(CERTIFICATE_PASSWORD).map_err(|e| Error::Setup(e.to_string()))?;
    let upload =
        json!({"certificate_file": openssl::base64::encode_block(&p12), "password": CERTIFICATE_PASSWORD});
    client.post("/api/v1/on-boarding/certificate", Some(&token), &upload)?.expect(201, "the certificate")?;
    client
        .post(
            &format!("/api/v1/on-boarding/user/{user_id}"),
            Some(&token),
            &json!({"operatorCode": "op123op123"}),
        )?
        .expect(200, "the owner's operator code")?;
    let mut registered_tills = Vec::with_capacity(tills);
    for n in 0..tills {
        let device = json!({"branchId": branch_id, "name": format!("Kasa {}", n + 1),
                            "fromDate": Utc::now().date_naive().to_string()});
        let device =
            client.post("/api/v1/on-boarding/fiscal-device", Some(&token), &device)?.expect(201, "a TCR")?;
        let tcr_code = device.text_at("/data/device/fiscalTcrCode")?;
        let cashier = json!({"name": format!("Kasier {}", n + 1), "email": format!("kasa{n}.{email}"),
                             "branchId": branch_id, "operatorCode": format!("op{:03}op{:03}", n + 200, n + 200),
                             "fiscalTcrCode": tcr_code});
        let cashier =
            client.post("/api/v1/on-boarding/user", Some(&token), &cashier)?.expect(201, "a cashier")?;
        registered_tills.push(Till {
            tcr_code,
            token: cashier.text_at("/data/user/token")?,
            user_id: cashier.int_at("/data/user/id")?,
        });
    }
    Ok(Shop {
        nuis: nuis.to_string(),
        token,
        company_id,
        branch_id,
        user_id,
        tills: registered_tills,
        certificate,
        password: CERTIFICATE_PASSWORD.to_string(),
        p12,
    })
}

/// Limits wide enough for many POS on one box (the spec's figures are tested elsewhere).
pub const ROOMY_LIMITS: &str = "token=100000/m;ip=100000/m;general=100000/m;fiscal=100000/m,1000000/h;\
cancel=100000/m,1000000/h;registration=100000/m,1000000/h;print=100000/m;reports=100000/m;search=100000/m;\
bulk=100000/m,1000000/h;interval.products=1s;interval.clients=1s;interval.bank_accounts=1s;interval.wtn=1s";
