//! The CIS simulator as a real server on 127.0.0.1:0, driven by Arka's own CIS client: a shop
//! registers its till, fiscalizes, deposits cash, ships goods and exchanges e-invoices, and the
//! simulator misbehaves on request.

use std::str::FromStr;
use std::time::Duration;

use arka::fiscal::certificate::Certificate;
use arka::fiscal::dsig;
use arka::fiscal::iic::{IicInput, WtnicInput, iic, wtnic};
use arka::fiscal::model::*;
use arka::fiscal::requests;
use arka::fiscal::response::{Fault, NotDelivered, Outcome, SignatureCheck};
use arka::fiscal::transport::{CisClient, CisConfig};
use arka::sim::cis::{self, CisSimHandle, KnownTcr, SimConfig};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use uuid::Uuid;

const SHOP_NUIS: &str = "K12345678L";
const BUSINESS_UNIT: &str = "bb123bb123";
const SOFT_CODE: &str = "ss123ss123";
const OPERATOR_CODE: &str = "oo123oo123";

/// A simulator on its own runtime; dropping it stops both within bounded time.
struct Sim {
    runtime: tokio::runtime::Runtime,
    handle: Option<CisSimHandle>,
}

impl Sim {
    fn start(config: SimConfig) -> Sim {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let (_, handle) = runtime.block_on(cis::spawn_loopback(config)).unwrap();
        Sim { runtime, handle: Some(handle) }
    }

    fn handle(&self) -> &CisSimHandle {
        self.handle.as_ref().unwrap()
    }

    fn base(&self) -> String {
        format!("http://{}", self.handle().addr())
    }

    /// A client as Arka configures one, with short limits so the timeout test stays quick.
    fn client(&self) -> CisClient {
        let mut config = CisConfig::new(self.handle().endpoint());
        config.connect_timeout = Duration::from_millis(500);
        config.call_timeout = Duration::from_millis(1500);
        CisClient::new(config).unwrap()
    }

    fn set_mode(&self, body: &str) -> Value {
        let mut reply = ureq::post(format!("{}/control", self.base()))
            .header("Content-Type", "application/json")
            .send(body)
            .unwrap();
        serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap()
    }

    fn get(&self, path: &str) -> String {
        ureq::get(format!("{}{path}", self.base())).call().unwrap().body_mut().read_to_string().unwrap()
    }

    fn requests(&self) -> Vec<Value> {
        serde_json::from_str::<Value>(&self.get("/control/requests")).unwrap().as_array().unwrap().clone()
    }

    fn registered(&self) -> Value {
        serde_json::from_str(&self.get("/control/registered")).unwrap()
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let stopped = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_secs(5), handle.stop()).await });
            assert!(matches!(stopped, Ok(Ok(()))), "the simulator did not stop: {stopped:?}");
        }
    }
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn certificate(nuis: &str, name: &str) -> Certificate {
    Certificate::generate_self_signed(nuis, name, chrono::Duration::days(30)).unwrap()
}

fn shop() -> Certificate {
    certificate(SHOP_NUIS, "Dyqani Arka")
}

fn soap(unsigned: &str, cert: &Certificate) -> String {
    requests::soap_envelope(&dsig::sign_enveloped(unsigned, cert).unwrap())
}

fn now() -> DateTime<Utc> {
    // Whole seconds, as the schema's datetimes carry.
    DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap()
}

fn header() -> Header {
    Header { uuid: Uuid::new_v4(), send_date_time: now(), subseq_deliv_type: None }
}

fn plain_header() -> PlainHeader {
    PlainHeader { uuid: Uuid::new_v4(), send_date_time: now() }
}

fn accepted<T: std::fmt::Debug>(outcome: Outcome<T>) -> T {
    match outcome {
        Outcome::Accepted(answer) => answer,
        other => panic!("not accepted: {other:?}"),
    }
}

fn rejected<T: std::fmt::Debug>(outcome: Outcome<T>) -> Fault {
    match outcome {
        Outcome::Rejected(fault) => fault,
        other => panic!("not rejected: {other:?}"),
    }
}

fn verified(signature: &SignatureCheck, sim: &Sim) {
    let SignatureCheck::Verified(v) = signature else {
        panic!("the answer's signature did not verify: {signature:?}");
    };
    assert_eq!(v.reference_id, "Response");
    assert_eq!(v.cert.to_der().unwrap(), sim.handle().sim().certificate_der());
}

fn register_tcr(sim: &Sim, cert: &Certificate, nuis: &str, business_unit: &str) -> String {
    let tcr = Tcr {
        issuer_nuis: nuis.to_string(),
        busin_unit_code: business_unit.to_string(),
        tcr_int_id: "arka-pos-1".to_string(),
        soft_code: Some(SOFT_CODE.to_string()),
        maintainer_code: None,
        valid_from: None,
        valid_to: None,
        tcr_type: Some(TcrType::Regular),
    };
    let answer =
        accepted(sim.client().register_tcr(&soap(&requests::register_tcr(&plain_header(), &tcr), cert)));
    verified(&answer.signature, sim);
    answer.tcr_code
}

/// A cash sale of one item at 100.00 + 20 % VAT, with its IIC signed by `cert`.
fn cash_invoice(cert: &Certificate, nuis: &str, tcr_code: &str, ord: u32) -> Invoice {
    let issued = now();
    let tot_price = "120.00";
    let issue_date_time = datetime(issued);
    let code = iic(
        cert,
        &IicInput {
            nuis,
            issue_date_time: &issue_date_time,
            ord_num: u64::from(ord),
            business_unit_code: BUSINESS_UNIT,
            tcr_code: Some(tcr_code),
            soft_code: SOFT_CODE,
            tot_price,
        },
    )
    .unwrap();
    Invoice {
        type_of_inv: InvoiceType::Cash,
        is_simplified_inv: false,
        type_of_self_iss: None,
        issue_date_time: issued,
        inv_num: format!("{ord}/{}/{tcr_code}", issued.format("%Y")),
        inv_ord_num: ord,
        tcr_code: Some(tcr_code.to_string()),
        is_issuer_in_vat: true,
        tax_free_amt: None,
        mark_up_amt: None,
        goods_ex_amt: None,
        tot_price_wo_vat: dec("100.00"),
        tot_vat_amt: Some(dec("20.00")),
        tot_price: dec(tot_price),
        operator_code: OPERATOR_CODE.to_string(),
        busin_unit_code: BUSINESS_UNIT.to_string(),
        soft_code: SOFT_CODE.to_string(),
        imp_cust_dec_num: None,
        iic: code.iic,
        iic_signature: code.signature,
        is_reverse_charge: false,
        pay_deadline: None,
        is_einvoice: None,
        supply_date_or_period: None,
        corrective_inv: None,
        pay_methods: vec![PayMethod {
            kind: PayMethodType::Banknote,
            amt: dec("120.00"),
            comp_card: None,
            vouchers: vec![],
        }],
        currency: None,
        seller: Seller {
            id_type: IdType::Nuis,
            id_num: nuis.to_string(),
            name: "Dyqani Arka".to_string(),
            address: Some("Rruga e Durrësit 10".to_string()),
            town: Some("Tiranë".to_string()),
            country: Some("ALB".to_string()),
        },
        buyer: None,
        items: vec![Item {
            name: "Kafe".to_string(),
            code: None,
            unit: "copë".to_string(),
            quantity: dec("1"),
            unit_price_before_vat: dec("100.00"),
            unit_price_after_vat: dec("120.00"),
            rebate: None,
            rebate_reducing: None,
            price_before_vat: dec("100.00"),
            vat_rate: Some(dec("20")),
            vat_amount: Some(dec("20.00")),
            is_investment: None,
            price_after_vat: dec("120.00"),
            exemption: None,
            vouchers_sold: None,
        }],
        same_taxes: vec![SameTax {
            num_of_items: 1,
            price_bef_vat: dec("100.00"),
            vat_rate: Some(dec("20")),
            exempt_from_vat: None,
            vat_amt: Some(dec("20.00")),
        }],
        cons_taxes: vec![],
        fees: vec![],
        sum_inv_iic_refs: vec![],
        bad_debt_inv: None,
    }
}

fn wtn(cert: &Certificate) -> Wtn {
    let issued = now();
    let issue_date_time = datetime(issued);
    let code = wtnic(
        cert,
        &WtnicInput {
            nuis: SHOP_NUIS,
            issue_date_time: &issue_date_time,
            wtn_number: "7",
            business_unit_code: BUSINESS_UNIT,
            soft_code: SOFT_CODE,
        },
    )
    .unwrap();
    Wtn {
        wtn_type: NoteType::Wtn,
        transaction: Transaction::Transfer,
        issue_date_time: issued,
        operator_code: OPERATOR_CODE.to_string(),
        busin_unit_code: BUSINESS_UNIT.to_string(),
        soft_code: SOFT_CODE.to_string(),
        wtn_ord_num: 7,
        wtn_num: format!("7/{}", issued.format("%Y")),
        value_of_goods: dec("15000"),
        veh_ownership: VehicleOwnership::Owner,
        veh_plates: "AA-123-BB".to_string(),
        start_addr: "Rruga e Durrësit 10".to_string(),
        start_city: "Tiranë".to_string(),
        start_date_time: issued,
        start_point: Point::Warehouse,
        destin_addr: "Lagjja 1".to_string(),
        destin_city: "Shkodër".to_string(),
        destin_date_time: issued,
        destin_point: Point::Store,
        is_goods_flammable: false,
        is_escort_required: false,
        pack_type: None,
        pack_num: None,
        items_num: None,
        wtnic: code.iic,
        wtnic_signature: code.signature,
        issuer: WtnIssuer {
            nuis: SHOP_NUIS.to_string(),
            name: "Dyqani Arka".to_string(),
            address: "Rruga e Durrësit 10".to_string(),
            town: "Tiranë".to_string(),
        },
        carrier: None,
        items: vec![WtnItem {
            name: "Miell".to_string(),
            code: None,
            unit: "kg".to_string(),
            quantity: dec("50"),
        }],
    }
}

/// The e-invoice of a fiscalized invoice (`iic`, `fic`) from `seller` to `buyer`, signed.
fn ubl(cert: &Certificate, seller: &str, buyer: &str, iic: &str, fic: &str) -> Vec<u8> {
    use arka::fiscal::ubl::*;
    let party = |nuis: &str| Party {
        nuis: nuis.to_string(),
        name: format!("Shop {nuis}"),
        address: None,
        city: None,
    };
    let category = TaxCategory { id: "S", percent: dec("20"), exemption: None };
    let document = Document {
        kind: Kind::Invoice,
        type_code: "380".to_string(),
        profile: "P1".to_string(),
        number: "22/2025".to_string(),
        issue_date: now().date_naive(),
        due_date: None,
        codes: FiscalCodes {
            issue_date_time: arka::fiscal::model::datetime(now()),
            operator_code: OPERATOR_CODE.to_string(),
            business_unit_code: BUSINESS_UNIT.to_string(),
            soft_code: SOFT_CODE.to_string(),
            iic: iic.to_string(),
            iic_signature: "0".repeat(512),
            fic: fic.to_string(),
        },
        notes: None,
        currency: "ALL".to_string(),
        period: None,
        original: None,
        supplier: party(seller),
        customer: party(buyer),
        payment: PaymentMeans { code: "30", iban: None, account_name: None, swift: None },
        fee: Decimal::ZERO,
        subtotals: vec![TaxSubtotal { taxable: dec("200"), tax: dec("40"), category: category.clone() }],
        vat_in_lek: None,
        lines: vec![Line {
            name: "Kafe".to_string(),
            code: "K1".to_string(),
            quantity: dec("2"),
            unit_code: "C62".to_string(),
            net: dec("200"),
            price: dec("100"),
            category,
        }],
    };
    signed(&document, cert).unwrap().into_bytes()
}

#[test]
fn every_request_type_round_trips_with_signed_answers() {
    let sim = Sim::start(SimConfig::default());
    let cert = shop();
    let client = sim.client();

    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);

    let deposit = CashDeposit {
        change_date_time: now(),
        operation: CashDepositOperation::Initial,
        cash_amt: dec("5000"),
        tcr_code: tcr_code.clone(),
        issuer_nuis: SHOP_NUIS.to_string(),
    };
    let answer = accepted(
        client.register_cash_deposit(&soap(&requests::register_cash_deposit(&header(), &deposit), &cert)),
    );
    verified(&answer.signature, &sim);

    let invoice = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 1);
    let sent = header();
    let answer =
        accepted(client.register_invoice(&soap(&requests::register_invoice(&sent, &invoice), &cert)));
    verified(&answer.signature, &sim);
    assert_eq!(answer.header.request_uuid, sent.uuid.to_string());
    let fic = answer.fic.clone();

    let answer = accepted(client.register_wtn(&soap(&requests::register_wtn(&header(), &wtn(&cert)), &cert)));
    verified(&answer.signature, &sim);

    let eic = einvoices_round_trip(&sim, &client, &cert, &invoice.iic, &fic);

    taxpayers_round_trip(&sim, &client, &cert);

    let log = sim.requests();
    let operations: Vec<&str> = log.iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        operations,
        [
            "RegisterTCR",
            "RegisterCashDeposit",
            "RegisterInvoice",
            "RegisterWTN",
            "RegisterEinvoice",
            "GetEinvoices",
            "GetEinvoices",
            "EinvoiceChangeStatus",
            "GetTaxpayers",
            "GetTaxpayers"
        ]
    );
    assert!(
        log.iter().all(|r| r["signature_verified"] == true
            && r["outcome"] == "accepted"
            && r["duplicate"] == false)
    );
    assert_eq!(log[2]["iic"], invoice.iic.as_str());
    assert_eq!(log[2]["tcr_code"], tcr_code.as_str());
    assert_eq!(log[2]["uuid"], sent.uuid.to_string());

    let registered_now = sim.registered();
    assert_eq!(registered_now["tcrs"][0]["busin_unit_code"], BUSINESS_UNIT);
    assert_eq!(registered_now["invoices"][0]["fic"], answer_fic(&registered_now));
    assert_eq!(registered_now["cash_deposits"][0]["operation"], "INITIAL");
    assert_eq!(registered_now["cash_deposits"][0]["cash_amt"], 5000.0);
    assert_eq!(registered_now["wtns"].as_array().unwrap().len(), 1);
    let statuses: Vec<&Value> =
        registered_now["einvoices"].as_array().unwrap().iter().filter(|e| e["eic"] == eic.as_str()).collect();
    assert_eq!(statuses[0]["status"], "PAID");
}

/// The shop sends an e-invoice to a customer, who finds it with two a supplier sent, reads it
/// with its PDF and marks it paid. Returns its EIC.
fn einvoices_round_trip(sim: &Sim, client: &CisClient, cert: &Certificate, iic: &str, fic: &str) -> String {
    let customer_nuis = "L01234567B";
    let customer = certificate(customer_nuis, "Klienti");
    for number in ["40/2025", "41/2025"] {
        let seed = format!(
            r#"{{"buyer_nuis": "{customer_nuis}", "seller_nuis": "K81234001A", "doc_number": "{number}", "amount": 12450}}"#
        );
        let reply = ureq::post(format!("{}/control/einvoices", sim.base()))
            .content_type("application/json")
            .send(&seed);
        assert_eq!(reply.unwrap().status().as_u16(), 201);
    }
    let document = RegisterEinvoice::UblInvoice(ubl(cert, SHOP_NUIS, customer_nuis, iic, fic));
    let registered = accepted(
        client.register_einvoice(&soap(&requests::register_einvoice(&plain_header(), &document), cert)),
    );
    verified(&registered.signature, sim);
    let query = GetEinvoices { party_type: Some(PartyType::Buyer), ..GetEinvoices::default() };
    let listed =
        accepted(client.get_einvoices(&soap(&requests::get_einvoices(&plain_header(), &query), &customer)));
    verified(&listed.signature, sim);
    assert_eq!(listed.einvoices.len(), 3);
    let ours = listed.einvoices.iter().find(|e| e.eic == registered.eic).unwrap();
    assert_eq!(
        (ours.doc_number.as_str(), ours.amount, ours.party_type.as_str(), ours.status.as_str()),
        ("22/2025", dec("240.00"), "BUYER", "DELIVERED")
    );
    assert_eq!(ours.seller_tin.as_deref(), Some(SHOP_NUIS));
    assert!(ours.pdf.is_none());
    let one = GetEinvoices { eic: Some(registered.eic.clone()), ..GetEinvoices::default() };
    let single =
        accepted(client.get_einvoices(&soap(&requests::get_einvoices(&plain_header(), &one), &customer)));
    assert_eq!(single.einvoices.len(), 1);
    assert!(single.einvoices[0].pdf.as_deref().is_some_and(|pdf| pdf.starts_with("JVBERi0")));
    let change = EinvoiceChangeStatus { eics: vec![registered.eic.clone()], status: EinvoiceStatus::Paid };
    let changed = accepted(client.einvoice_change_status(&soap(
        &requests::einvoice_change_status(&plain_header(), &change),
        &customer,
    )));
    verified(&changed.signature, sim);
    assert_eq!(changed.response_code, "ACCEPTED");
    registered.eic
}

/// The fiscal register looked up by tax id and by name.
fn taxpayers_round_trip(sim: &Sim, client: &CisClient, cert: &Certificate) {
    let by_tin = GetTaxpayers::Tin(SHOP_NUIS.to_string());
    let found =
        accepted(client.get_taxpayers(&soap(&requests::get_taxpayers(&plain_header(), &by_tin), cert)));
    verified(&found.signature, sim);
    assert_eq!(found.taxpayers.len(), 1);
    assert_eq!(found.taxpayers[0].name, "Dyqani Arka");
    let by_name = GetTaxpayers::Name("furra".to_string());
    let found =
        accepted(client.get_taxpayers(&soap(&requests::get_taxpayers(&plain_header(), &by_name), cert)));
    assert_eq!(found.taxpayers.len(), 1);
    assert_eq!(found.taxpayers[0].town.as_deref(), Some("Korçë"));
}

fn answer_fic(registered: &Value) -> String {
    registered["invoices"][0]["fic"].as_str().unwrap().to_string()
}

#[test]
fn each_mode_leads_the_client_to_its_outcome() {
    let sim = Sim::start(SimConfig::default());
    let cert = shop();
    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);
    let client = sim.client();
    let body = |ord| {
        soap(&requests::register_invoice(&header(), &cash_invoice(&cert, SHOP_NUIS, &tcr_code, ord)), &cert)
    };

    let fault = sim.set_mode(r#"{"mode": "fault", "fault_code": "58"}"#);
    assert_eq!(fault["fault_code"], "58");
    let fault = rejected(client.register_invoice(&body(1)));
    assert_eq!(fault.code.as_deref(), Some("58"));
    assert!(!fault.blames_the_cis());
    sim.set_mode(r#"{"mode": "fault", "fault_code": "900"}"#);
    assert!(rejected(client.register_invoice(&body(1))).blames_the_cis());

    sim.set_mode(r#"{"mode": "garbage"}"#);
    let garbage = client.register_invoice(&body(2));
    assert!(matches!(garbage, Outcome::NotDelivered(NotDelivered::Unparseable(_))), "{garbage:?}");

    sim.set_mode(r#"{"mode": "slow", "delay_ms": 3000}"#);
    let slow = client.register_invoice(&body(3));
    assert!(matches!(slow, Outcome::NotDelivered(NotDelivered::Timeout(_))), "{slow:?}");

    sim.set_mode(r#"{"mode": "down"}"#);
    let down = client.register_invoice(&body(4));
    assert!(
        matches!(down, Outcome::NotDelivered(NotDelivered::Io(_) | NotDelivered::Connect(_))),
        "{down:?}"
    );
    // The control API still answers while the services are down.
    assert_eq!(serde_json::from_str::<Value>(&sim.get("/control")).unwrap()["mode"], "down");

    sim.set_mode(r#"{"mode": "ok"}"#);
    let ok = accepted(client.register_invoice(&body(5)));
    verified(&ok.signature, &sim);

    let outcomes: Vec<String> = sim
        .requests()
        .iter()
        .skip(1)
        .map(|r| format!("{}:{}", r["outcome"].as_str().unwrap(), r["fault_code"]))
        .collect();
    assert_eq!(
        outcomes,
        ["fault:\"58\"", "fault:\"900\"", "garbage:null", "accepted:null", "dropped:null", "accepted:null"]
    );
    // The slow answer was lost to the client, but the invoice was registered.
    assert_eq!(sim.registered()["invoices"].as_array().unwrap().len(), 2);

    let cleared: Value = serde_json::from_str(
        &ureq::delete(format!("{}/control/requests", sim.base()))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(cleared["cleared"], 7);
    assert!(sim.requests().is_empty());
    let refused = ureq::post(format!("{}/control", sim.base())).send(r#"{"mode": "sideways"}"#);
    assert!(matches!(refused, Err(ureq::Error::StatusCode(400))), "{refused:?}");
}

#[test]
fn a_resend_after_a_lost_answer_gets_the_same_fic() {
    let sim = Sim::start(SimConfig::default());
    let cert = shop();
    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);
    let client = sim.client();
    let invoice = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 1);
    let sent = Header { subseq_deliv_type: Some(SubseqDelivType::TechnicalError), ..header() };
    let first = accepted(client.register_invoice(&soap(&requests::register_invoice(&sent, &invoice), &cert)));
    let again = accepted(client.register_invoice(&soap(&requests::register_invoice(&sent, &invoice), &cert)));
    assert_eq!(first.fic, again.fic);
    let log = sim.requests();
    assert_eq!((log[1]["duplicate"].as_bool(), log[2]["duplicate"].as_bool()), (Some(false), Some(true)));
    assert_eq!(log[2]["subseq_deliv_type"], "TECHNICALERROR");
    let invoices = sim.registered()["invoices"].clone();
    assert_eq!(invoices.as_array().unwrap().len(), 1);
    assert_eq!(invoices[0]["deliveries"], 2);
    assert_eq!(invoices[0]["subseq_deliv_type"], "TECHNICALERROR");

    // The same IIC under another message is a second invoice claiming the first one's code.
    let fault =
        rejected(client.register_invoice(&soap(&requests::register_invoice(&header(), &invoice), &cert)));
    assert_eq!(fault.code.as_deref(), Some("11"));
    assert!(fault.faultstring.contains("already registered"), "{}", fault.faultstring);

    // Cash deposits repeat their FCDC for the same UUID.
    let deposit = CashDeposit {
        change_date_time: now(),
        operation: CashDepositOperation::Withdraw,
        cash_amt: dec("200"),
        tcr_code: tcr_code.clone(),
        issuer_nuis: SHOP_NUIS.to_string(),
    };
    let deposit_header = header();
    let body = soap(&requests::register_cash_deposit(&deposit_header, &deposit), &cert);
    let first = accepted(client.register_cash_deposit(&body));
    let again = accepted(client.register_cash_deposit(&body));
    assert_eq!(first.fcdc, again.fcdc);
    assert_eq!(sim.registered()["cash_deposits"][0]["deliveries"], 2);
}

#[test]
fn the_simulator_refuses_what_the_cis_refuses() {
    let sim = Sim::start(SimConfig {
        tcrs: vec![KnownTcr {
            tcr_code: "xy111xy111".to_string(),
            issuer_nuis: "M98765432N".to_string(),
            busin_unit_code: "bu999bu999".to_string(),
        }],
        ..SimConfig::default()
    });
    let cert = shop();
    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);
    let client = sim.client();
    let send = |invoice: &Invoice, cert: &Certificate| {
        rejected(client.register_invoice(&soap(&requests::register_invoice(&header(), invoice), cert)))
    };

    let signed =
        soap(&requests::register_invoice(&header(), &cash_invoice(&cert, SHOP_NUIS, &tcr_code, 1)), &cert);
    let tampered = signed.replace("TotPrice=\"120.00\"", "TotPrice=\"12.00\"");
    let fault = rejected(client.register_invoice(&tampered));
    assert_eq!(fault.code.as_deref(), Some("11"));
    assert!(fault.faultstring.starts_with("Signature is not valid"), "{}", fault.faultstring);

    let stranger = certificate("J99999999J", "Dikush tjetër");
    let fault = send(&cash_invoice(&stranger, SHOP_NUIS, &tcr_code, 2), &stranger);
    assert_eq!(fault.code.as_deref(), Some("37"));

    let fault = send(&cash_invoice(&cert, SHOP_NUIS, "zz999zz999", 3), &cert);
    assert_eq!(fault.code.as_deref(), Some("53"));
    let fault = send(&cash_invoice(&cert, SHOP_NUIS, "xy111xy111", 3), &cert);
    assert_eq!(fault.code.as_deref(), Some("53"), "a TCR of another taxpayer");

    let mut other_unit = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 4);
    other_unit.busin_unit_code = "cc321cc321".to_string();
    assert_eq!(send(&other_unit, &cert).code.as_deref(), Some("41"));

    let mut unpaid = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 5);
    unpaid.pay_methods[0].amt = dec("100.00");
    let fault = send(&unpaid, &cert);
    assert_eq!(fault.code.as_deref(), Some("11"));
    assert_eq!(fault.faultstring, "Total price amount doesn't correspond to amount in the paymentmethods");

    let mut bad_code = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 6);
    bad_code.operator_code = "ns187ov411fdafd".to_string();
    let fault = send(&bad_code, &cert);
    assert_eq!(
        fault.faultstring,
        "XML validation against XSD failed, with exception: cvc-pattern-valid: Value 'ns187ov411fdafd' is not facet-valid with respect to pattern '[a-z]{2}[0-9]{3}[a-z]{2}[0-9]{3}' for type 'RegistrationCodeSType'."
    );

    let log = sim.requests();
    assert!(log[1]["signature_verified"] == false);
    assert!(log.iter().skip(2).all(|r| r["signature_verified"] == true && r["outcome"] == "fault"));

    // A character XML 1.0 cannot carry: the real CIS's parser stops there, before the schema
    // or the signature, and so does the simulator.
    for (text, code) in [("Kafe\u{0}e zezë", "0x0"), ("Kafe\u{1F}", "0x1F")] {
        let mut control = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 7);
        control.items[0].name = text.to_string();
        let fault = send(&control, &cert);
        assert_eq!(fault.code.as_deref(), Some("11"));
        assert_eq!(fault.faultcode, "env:Client");
        assert!(fault.faultstring.contains(&format!("invalid XML character (Unicode: {code})")), "{fault:?}");
    }
    assert!(sim.registered()["invoices"].as_array().unwrap().is_empty());
}

#[test]
fn strict_iic_catches_a_forged_code() {
    let sim = Sim::start(SimConfig { strict_iic: true, ..SimConfig::default() });
    let cert = shop();
    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);
    let client = sim.client();
    let genuine = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 1);
    accepted(client.register_invoice(&soap(&requests::register_invoice(&header(), &genuine), &cert)));
    accepted(client.register_wtn(&soap(&requests::register_wtn(&header(), &wtn(&cert)), &cert)));

    let mut forged = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 2);
    forged.iic = "0123456789ABCDEF0123456789ABCDEF".to_string();
    let fault =
        rejected(client.register_invoice(&soap(&requests::register_invoice(&header(), &forged), &cert)));
    assert_eq!(fault.code.as_deref(), Some("11"));
    assert!(fault.faultstring.starts_with("IIC is not valid"), "{}", fault.faultstring);
}

#[test]
fn the_wsdls_and_schemas_are_served() {
    let sim = Sim::start(SimConfig::default());
    let wsdl = sim.get("/FiscalizationService-v3?wsdl");
    assert!(wsdl.contains(&format!("location=\"http://{}/FiscalizationService-v3\"", sim.handle().addr())));
    assert_eq!(wsdl, sim.get("/FiscalizationService-v3/FiscalizationService.wsdl"));
    assert!(sim.get("/EinvoiceService-v1/EinvoiceService.wsdl").contains("/EinvoiceService-v1\""));
    assert!(
        sim.get("/FiscalizationService-v3/alimc-fiscalization-service.xsd")
            .contains("RegisterInvoiceRequest")
    );
    assert!(sim.get("/EinvoiceService-v1/xmldsig-core-schema.xsd").contains("SignatureValue"));
}

#[test]
fn an_einvoice_must_be_signed_by_its_seller_and_carry_codes_the_cis_gave() {
    let sim = Sim::start(SimConfig::default());
    let (cert, client) = (shop(), sim.client());
    let tcr_code = register_tcr(&sim, &cert, SHOP_NUIS, BUSINESS_UNIT);
    let invoice = cash_invoice(&cert, SHOP_NUIS, &tcr_code, 1);
    let fic =
        accepted(client.register_invoice(&soap(&requests::register_invoice(&header(), &invoice), &cert))).fic;
    let register = |document: Vec<u8>, signer: &Certificate| {
        let envelope = RegisterEinvoice::UblInvoice(document);
        client.register_einvoice(&soap(&requests::register_einvoice(&plain_header(), &envelope), signer))
    };
    let buyer = "L01234567B";
    let forged_fic = Uuid::new_v4().to_string();
    let fault = rejected(register(ubl(&cert, SHOP_NUIS, buyer, &invoice.iic, &forged_fic), &cert));
    assert!(fault.faultstring.contains("is not the one the invoice"), "{}", fault.faultstring);
    let fault = rejected(register(ubl(&cert, SHOP_NUIS, buyer, &"0".repeat(32), &fic), &cert));
    assert!(fault.faultstring.contains("No fiscalized invoice"), "{}", fault.faultstring);
    let good = ubl(&cert, SHOP_NUIS, buyer, &invoice.iic, &fic);
    let tampered = String::from_utf8(good.clone()).unwrap().replace(">240.00<", ">24.00<").into_bytes();
    let fault = rejected(register(tampered, &cert));
    assert!(fault.faultstring.contains("signature is not valid"), "{}", fault.faultstring);
    let other = certificate(SHOP_NUIS, "Another key of the shop");
    let fault = rejected(register(good.clone(), &other));
    assert!(fault.faultstring.contains("not signed with the request's certificate"), "{}", fault.faultstring);
    let eic = accepted(register(good.clone(), &cert)).eic;
    let fault = rejected(register(good, &cert));
    assert!(fault.faultstring.contains("already registered"), "{}", fault.faultstring);
    assert_eq!(sim.registered()["einvoices"][0]["eic"], eic.as_str());
}
