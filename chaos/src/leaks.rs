//! Secrets: with the log in text and JSON, at info and debug, a shop is on-boarded and sells,
//! callers send wrong tokens, and then the log and every file of the data dir are searched for
//! the user and partner tokens, the certificate password, the certificate file and the private
//! key's secret numbers, plain, base64 (every alignment, standard and URL-safe), hex and PEM.

use std::path::Path;
use std::time::Duration;

use openssl::base64::encode_block;
use serde_json::json;

use super::client::{Client, Sent};
use super::procs::{Logging, Server, Sim, create_partner};
use super::shop::{ROOMY_LIMITS, cash_sale, onboard};
use super::table::Row;
use super::{Error, Plan};

/// A secret and the byte strings that would give it away.
pub struct Secret {
    pub name: String,
    pub needles: Vec<Vec<u8>>,
}

/// Every window of `width` characters, `stride` apart, of `text`.
fn windows(text: &str, width: usize, stride: usize) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() <= width {
        return vec![bytes.to_vec()];
    }
    (0..=bytes.len() - width).step_by(stride).map(|i| bytes[i..i + width].to_vec()).collect()
}

/// What `secret` looks like written out: itself, hex, and base64 at each of the three
/// alignments it can have inside a longer encoded text (standard and URL-safe, in windows short
/// enough to sit inside one 64-character PEM line).
pub fn encodings(secret: &[u8]) -> Vec<Vec<u8>> {
    let mut needles = vec![secret.to_vec()];
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    needles.extend(windows(&hex, 48, 24));
    needles.extend(windows(&hex.to_uppercase(), 48, 24));
    for shift in 0..3 {
        let Some(tail) = secret.get(shift..) else { continue };
        let encoded = encode_block(tail).replace('\n', "");
        // The last quad carries padding or bits of what follows in a longer text.
        let stable = &encoded[..encoded.len().saturating_sub(4)];
        if stable.len() < 16 {
            continue;
        }
        needles.extend(windows(stable, 24, 12));
        needles.extend(windows(&stable.replace('+', "-").replace('/', "_"), 24, 12));
    }
    needles
}

/// The secrets of a shop: tokens (whole and without their prefix), the certificate password,
/// the certificate file, and the private key's secret numbers (d, p, q).
pub fn secrets_of(
    tokens: &[(&str, &str)],
    password: &str,
    p12: &[u8],
    key_der: &[u8],
) -> Result<Vec<Secret>, Error> {
    let mut secrets = Vec::new();
    for (name, token) in tokens {
        let tail = token.rsplit('_').next().unwrap_or(token);
        let mut needles = encodings(token.as_bytes());
        needles.extend(encodings(tail.as_bytes()));
        secrets.push(Secret { name: (*name).to_string(), needles });
    }
    secrets
        .push(Secret { name: "certificate password".to_string(), needles: encodings(password.as_bytes()) });
    secrets.push(Secret { name: "certificate file".to_string(), needles: encodings(p12) });
    let key = openssl::pkey::PKey::private_key_from_der(key_der)
        .and_then(|k| k.rsa())
        .map_err(|e| Error::Setup(format!("the private key: {e}")))?;
    let mut needles = vec![b"PRIVATE KEY-----".to_vec()];
    for number in [
        key.d(),
        key.p().ok_or_else(|| Error::Setup("no p".into()))?,
        key.q().ok_or_else(|| Error::Setup("no q".into()))?,
    ] {
        needles.extend(encodings(&number.to_vec()));
    }
    secrets.push(Secret { name: "private key".to_string(), needles });
    Ok(secrets)
}

/// Every encoding of every secret, searched for in one pass.
pub struct Searcher {
    names: Vec<String>,
    /// The secret (index into `names`) each pattern belongs to.
    owners: Vec<usize>,
    automaton: aho_corasick::AhoCorasick,
}

impl Searcher {
    pub fn new(secrets: &[Secret]) -> Result<Searcher, Error> {
        let mut owners = Vec::new();
        let mut patterns = Vec::new();
        for (n, secret) in secrets.iter().enumerate() {
            for needle in secret.needles.iter().filter(|n| !n.is_empty()) {
                owners.push(n);
                patterns.push(needle.as_slice());
            }
        }
        let automaton = aho_corasick::AhoCorasick::new(patterns)
            .map_err(|e| Error::Setup(format!("the leak search: {e}")))?;
        Ok(Searcher { names: secrets.iter().map(|s| s.name.clone()).collect(), owners, automaton })
    }

    /// Which secrets `bytes` (a file named `place`) gives away.
    pub fn found_in(&self, place: &str, bytes: &[u8]) -> Vec<String> {
        let mut found: Vec<usize> = self
            .automaton
            .find_overlapping_iter(bytes)
            .map(|m| self.owners[m.pattern().as_usize()])
            .collect();
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|n| format!("{} in {place}", self.names[n])).collect()
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// One server run with `logging`: the findings and how many bytes were searched.
fn one_run(plan: &Plan, sim: &Sim, logging: Logging) -> Result<(Vec<String>, u64), Error> {
    let dir = tempfile::Builder::new().prefix("arka-chaos-leaks-").tempdir()?;
    let data = dir.path().join("data");
    let log = dir.path().join("arka.log");
    let partner = create_partner(&plan.arka, &data)?;
    let mut flags = sim.flags();
    flags.push(format!("--limits={ROOMY_LIMITS}"));
    let server = Server::start(&plan.arka, &data, &log, logging, &flags)?;
    let client = Client::new(&server.base, Duration::from_secs(30));
    let shop = onboard(&client, &partner, "L41323036D", 1)?;
    let till = shop.tills.first().ok_or_else(|| Error::Setup("no till".into()))?;
    for n in 0..5 {
        client.post("/api/v1/invoice/cash", Some(&till.token), &cash_sale(&format!("leak-{n}"), 120))?;
    }
    // Wrong tokens and a wrong password are the likeliest to be logged "for debugging".
    let wrong_token = format!("{}0", &till.token[..till.token.len() - 1]);
    client.get("/api/v1/account", Some(&wrong_token))?;
    let wrong = json!({"certificate_file": encode_block(b"not a p12"), "password": shop.password});
    client.post("/api/v1/on-boarding/certificate", Some(&shop.token), &wrong)?;
    client.must("GET", "/api/v1/ping", None, Sent::Nothing)?;
    client.must(
        "POST",
        "/api/v1/invoice/cash",
        Some(&till.token),
        Sent::Raw { content_type: "application/json", bytes: b"{" },
    )?;
    server.terminate();

    let key = shop.certificate.private_key_pkcs8_der().map_err(|e| Error::Setup(e.to_string()))?;
    let tokens = [
        ("partner token", partner.as_str()),
        ("owner token", shop.token.as_str()),
        ("cashier token", till.token.as_str()),
        ("wrong token", wrong_token.as_str()),
    ];
    let searcher = Searcher::new(&secrets_of(&tokens, &shop.password, &shop.p12, &key)?)?;
    let mut findings = Vec::new();
    let mut searched = 0u64;
    for file in std::iter::once(log).chain(files_under(&data)) {
        let bytes = std::fs::read(&file)?;
        searched += bytes.len() as u64;
        let label = format!(
            "{} ({} log)",
            file.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default(),
            describe(logging)
        );
        findings.extend(searcher.found_in(&label, &bytes));
    }
    Ok((findings, searched))
}

fn describe(logging: Logging) -> &'static str {
    match (logging.json, logging.debug) {
        (false, false) => "text info",
        (false, true) => "text debug",
        (true, false) => "JSON info",
        (true, true) => "JSON debug",
    }
}

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    let sim = Sim::start(&plan.arka)?;
    let mut findings = Vec::new();
    let mut searched = 0;
    let runs = [
        Logging { json: false, debug: false },
        Logging { json: false, debug: true },
        Logging { json: true, debug: false },
        Logging { json: true, debug: true },
    ];
    for logging in runs {
        progress(&format!("leaks: {} log", describe(logging)));
        let (found, bytes) = one_run(plan, &sim, logging)?;
        findings.extend(found);
        searched += bytes;
    }
    let mut row = Row::new(
        "secrets",
        "logs in text and JSON at info and debug, and the data dir".to_string(),
        format!(
            "{:.1} MiB searched for 4 tokens, the certificate password, file and private key in plain, hex, base64 and PEM",
            searched as f64 / (1024.0 * 1024.0)
        ),
    );
    row.leaks = findings.len();
    row.findings = findings;
    Ok(vec![row])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_found_in_base64_at_any_alignment_and_in_hex_and_pem_lines() {
        let secret: Vec<u8> = (0u8..=200).collect();
        let searcher = Searcher::new(&[Secret { name: "key".into(), needles: encodings(&secret) }]).unwrap();
        for prefix in [&b""[..], b"x", b"xy", b"xyz"] {
            let mut wrapped = prefix.to_vec();
            wrapped.extend(&secret);
            let pem = encode_block(&wrapped);
            assert_eq!(searcher.found_in("pem", pem.as_bytes()), ["key in pem"], "prefix {prefix:?}");
        }
        let hex: String = secret.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(searcher.found_in("hex", hex.as_bytes()).len(), 1);
        assert!(searcher.found_in("other", b"nothing of the kind here").is_empty());
    }
}
