//! Figures for the fiscal engine: one RSA-2048 signature (`Certificate::sign_sha256`, what the IIC
//! and the XML signature each cost), signed RegisterInvoiceRequests built per second on one core
//! (IIC signature + canonical XML + XML signature), and round trips per second to the CIS
//! simulator on loopback. Run with `cargo bench --bench fiscal`; it prints, it asserts nothing.

use std::time::{Duration, Instant};

use arka::fiscal::certificate::Certificate;
use arka::fiscal::iic::{IicInput, iic};
use arka::fiscal::model::{
    self, Header, IdType, Invoice, InvoiceType, Item, PayMethod, PayMethodType, SameTax, Seller,
};
use arka::fiscal::{dsig, requests};
use chrono::Utc;
use rust_decimal::Decimal;
use uuid::Uuid;

const NUIS: &str = "K00000001S";

fn dec(s: &str) -> Decimal {
    s.parse().unwrap_or_default()
}

/// A five-line cash invoice, fully computed, with its IIC.
pub fn signed_invoice(cert: &Certificate, ord: u32, tcr: &str) -> String {
    let vat = dec("20");
    let mut items = Vec::new();
    let (mut net, mut vat_total) = (Decimal::ZERO, Decimal::ZERO);
    for i in 0..5 {
        let upb = dec("83.33") + Decimal::from(i);
        let va = (upb * vat / dec("100")).round_dp(2);
        net += upb;
        vat_total += va;
        items.push(Item {
            name: format!("Artikull {i}"),
            code: Some(format!("A{i}")),
            unit: "copë".to_string(),
            quantity: Decimal::ONE,
            unit_price_before_vat: upb,
            unit_price_after_vat: upb + va,
            rebate: None,
            rebate_reducing: None,
            price_before_vat: upb,
            vat_rate: Some(vat),
            vat_amount: Some(va),
            is_investment: None,
            price_after_vat: upb + va,
            exemption: None,
            vouchers_sold: None,
        });
    }
    let total = net + vat_total;
    let now = Utc::now();
    let issue = model::datetime(now);
    let code = iic(
        cert,
        &IicInput {
            nuis: NUIS,
            issue_date_time: &issue,
            ord_num: u64::from(ord),
            business_unit_code: "sb001sb001",
            tcr_code: Some(tcr),
            soft_code: "ss123ss123",
            tot_price: &model::money(total),
        },
    )
    .unwrap_or_else(|e| panic!("iic: {e}"));
    let invoice = Invoice {
        type_of_inv: InvoiceType::Cash,
        is_simplified_inv: false,
        type_of_self_iss: None,
        issue_date_time: now,
        inv_num: format!("{ord}/2026/{tcr}"),
        inv_ord_num: ord,
        tcr_code: Some(tcr.to_string()),
        is_issuer_in_vat: true,
        tax_free_amt: None,
        mark_up_amt: None,
        goods_ex_amt: None,
        tot_price_wo_vat: net,
        tot_vat_amt: Some(vat_total),
        tot_price: total,
        operator_code: "op123op123".to_string(),
        busin_unit_code: "sb001sb001".to_string(),
        soft_code: "ss123ss123".to_string(),
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
            amt: total,
            comp_card: None,
            vouchers: vec![],
        }],
        currency: None,
        seller: Seller {
            id_type: IdType::Nuis,
            id_num: NUIS.to_string(),
            name: "Arka Sandbox".to_string(),
            address: Some("Rruga 1".to_string()),
            town: Some("Tiranë".to_string()),
            country: Some("ALB".to_string()),
        },
        buyer: None,
        items,
        same_taxes: vec![SameTax {
            num_of_items: 5,
            price_bef_vat: net,
            vat_rate: Some(vat),
            exempt_from_vat: None,
            vat_amt: Some(vat_total),
        }],
        cons_taxes: vec![],
        fees: vec![],
        sum_inv_iic_refs: vec![],
        bad_debt_inv: None,
    };
    let header = Header { uuid: Uuid::new_v4(), send_date_time: now, subseq_deliv_type: None };
    let unsigned = requests::register_invoice(&header, &invoice);
    let signed = dsig::sign_enveloped(&unsigned, cert).unwrap_or_else(|e| panic!("sign: {e}"));
    requests::soap_envelope(&signed)
}

fn per_second(count: u32, elapsed: Duration) -> f64 {
    f64::from(count) / elapsed.as_secs_f64()
}

/// One RSA-2048 PKCS#1 v1.5 signature over SHA-256, as the IIC's.
fn signatures(cert: &Certificate) {
    let rounds = 200;
    let started = Instant::now();
    for i in 0..rounds {
        cert.sign_sha256(format!("I12345678I|{i}").as_bytes()).unwrap_or_else(|e| panic!("sign: {e}"));
    }
    let elapsed = started.elapsed();
    println!(
        "sign_sha256 (RSA-2048), one core: {:.0}/s, {:.3} ms each",
        per_second(rounds, elapsed),
        elapsed.as_secs_f64() * 1000.0 / f64::from(rounds)
    );
}

/// Sequential signed RegisterInvoice round trips to the simulator on loopback (HTTP, no TLS).
fn round_trips(cert: &Certificate) {
    use arka::fiscal::response::Outcome;
    use arka::fiscal::transport::{CisClient, CisConfig};
    use arka::sim::cis::{self, KnownTcr, SimConfig};

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let tcr = "ab123ab123";
    let config = SimConfig {
        strict_iic: false,
        tcrs: vec![KnownTcr {
            tcr_code: tcr.to_string(),
            issuer_nuis: NUIS.to_string(),
            busin_unit_code: "sb001sb001".to_string(),
        }],
    };
    let (_, handle) =
        runtime.block_on(cis::spawn_loopback(config)).unwrap_or_else(|e| panic!("simulator: {e}"));
    let client = CisClient::new(CisConfig::new(handle.endpoint())).unwrap_or_else(|e| panic!("client: {e}"));
    let bodies: Vec<String> = (1..=300).map(|i| signed_invoice(cert, i, tcr)).collect();
    let start = Instant::now();
    let mut accepted = 0;
    for body in &bodies {
        if matches!(client.register_invoice(body), Outcome::Accepted(_)) {
            accepted += 1;
        }
    }
    let elapsed = start.elapsed();
    println!(
        "RegisterInvoice round trips to the simulator (pre-signed, sequential, simulator verifies and signs): {:.0}/s, {:.3} ms each, {accepted}/{} accepted",
        per_second(bodies.len() as u32, elapsed),
        elapsed.as_secs_f64() * 1000.0 / bodies.len() as f64,
        bodies.len()
    );
    drop(handle);
}

fn main() {
    let cert = Certificate::generate_self_signed(NUIS, "Arka Sandbox", chrono::Duration::days(365))
        .unwrap_or_else(|e| panic!("certificate: {e}"));

    signatures(&cert);
    for _ in 0..20 {
        signed_invoice(&cert, 1, "ab123ab123");
    }
    let n = 500;
    let start = Instant::now();
    let mut bytes = 0usize;
    for i in 0..n {
        bytes += signed_invoice(&cert, i + 1, "ab123ab123").len();
    }
    let elapsed = start.elapsed();
    println!(
        "build+sign RegisterInvoiceRequest (5 lines, 2 RSA-2048 signatures), one core: {:.0}/s, {:.3} ms each, {} bytes each",
        per_second(n, elapsed),
        elapsed.as_secs_f64() * 1000.0 / f64::from(n),
        bytes / n as usize
    );
    round_trips(&cert);
}
