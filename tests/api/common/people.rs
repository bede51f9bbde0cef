//! A person at the owner's page: a browser that keeps the session cookie the server sets and
//! sends the CSRF token with every change, as the page does; and the wizard's first two steps.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use super::{Reply, TestServer};

/// The owner the wizard makes in these stories.
pub const OWNER_EMAIL: &str = "ana@dyqani-ana.al";
pub const OWNER_PASSWORD: &str = "Kafe-e-mire-2024";
/// A NUIS of the shape the tax administration issues.
pub const SHOP_NUIS: &str = "L91806031N";

pub struct Browser<'a> {
    pub server: &'a TestServer,
    /// `arka_session=...` as the browser sends it back.
    pub cookie: Option<String>,
    pub csrf: Option<String>,
}

/// The `name=value` of a Set-Cookie header, and its attributes.
pub fn set_cookie(reply: &Reply) -> Option<(String, Vec<String>)> {
    let header = reply.header("set-cookie")?;
    let mut parts = header.split(';').map(|p| p.trim().to_string());
    let pair = parts.next()?;
    Some((pair, parts.collect()))
}

impl<'a> Browser<'a> {
    pub fn new(server: &'a TestServer) -> Browser<'a> {
        Browser { server, cookie: None, csrf: None }
    }

    /// Keeps what an answer set: the cookie (cleared by Max-Age=0) and the CSRF token.
    pub fn adopt(&mut self, reply: &Reply) {
        if let Some((pair, attributes)) = set_cookie(reply) {
            if attributes.iter().any(|a| a == "Max-Age=0") {
                self.cookie = None;
            } else {
                self.cookie = Some(pair);
            }
        }
        if let Some(csrf) = reply.body["data"]["csrfToken"].as_str() {
            self.csrf = Some(csrf.to_string());
        }
    }

    fn headers(&self, csrf: bool) -> Vec<(&str, &str)> {
        let mut headers = Vec::new();
        if let Some(cookie) = &self.cookie {
            headers.push(("Cookie", cookie.as_str()));
        }
        if csrf && let Some(token) = &self.csrf {
            headers.push(("X-CSRF-Token", token.as_str()));
        }
        headers
    }

    pub fn get(&self, path: &str) -> Reply {
        self.server.request("GET", path, &self.headers(false), None)
    }

    /// The raw body of a GET, as the page opens a PDF; fails on any status but 200.
    pub fn get_bytes(&self, path: &str) -> Vec<u8> {
        self.server.get_bytes_with(path, &self.headers(false))
    }

    /// A change with a JSON body, as the page sends it (the CSRF token with it).
    fn send(&mut self, method: &str, path: &str, body: &Value) -> Reply {
        let text = body.to_string();
        let reply = self.server.request(
            method,
            path,
            &self.headers(true),
            Some(("application/json", text.as_bytes())),
        );
        self.adopt(&reply);
        reply
    }

    pub fn post(&mut self, path: &str, body: &Value) -> Reply {
        self.send("POST", path, body)
    }

    /// A POST as a page that forgot the CSRF header (or a form another site made) sends it.
    pub fn post_without_csrf(&self, path: &str, body: &Value) -> Reply {
        let text = body.to_string();
        self.server.request("POST", path, &self.headers(false), Some(("application/json", text.as_bytes())))
    }

    pub fn post_bytes(&mut self, path: &str, content_type: &str, bytes: &[u8]) -> Reply {
        let reply = self.server.request("POST", path, &self.headers(true), Some((content_type, bytes)));
        self.adopt(&reply);
        reply
    }

    pub fn patch(&mut self, path: &str, body: &Value) -> Reply {
        self.send("PATCH", path, body)
    }

    /// This browser, signed in as `email` (failing the test when it cannot).
    pub fn signed_in(mut self, email: &str, password: &str) -> Self {
        self.sign_in(email, password).data(200);
        self
    }

    pub fn delete(&mut self, path: &str) -> Reply {
        let reply = self.server.request("DELETE", path, &self.headers(true), None);
        self.adopt(&reply);
        reply
    }

    pub fn sign_in(&mut self, email: &str, password: &str) -> Reply {
        self.post("/api/v1/session", &json!({"email": email, "password": password}))
    }
}

pub fn business_body() -> Value {
    json!({"nuis": SHOP_NUIS, "name": "Dyqani Ana sh.p.k.", "address": "Rruga e Durrësit 12, Tiranë", "issuerInVat": true})
}

pub fn owner_body() -> Value {
    json!({"name": "Ana Hoxha", "email": OWNER_EMAIL, "password": OWNER_PASSWORD})
}

/// The wizard's business and owner steps from the box itself (the test runs on loopback, the
/// default `--setup-from-box`): the owner signed in, in a browser.
pub fn owner_from_the_box(server: &TestServer) -> Browser<'_> {
    let mut browser = Browser::new(server);
    browser.post("/api/v1/setup/business", &business_body()).data(200);
    browser.post("/api/v1/setup/owner", &owner_body()).data(201);
    assert!(browser.cookie.is_some() && browser.csrf.is_some(), "the owner is signed in");
    browser
}

/// A client on a loopback address of its own (127.0.0.2, 127.0.0.3 …: Linux answers on all of
/// 127.0.0.0/8), so the server sees requests from several addresses; one kept-alive connection.
pub struct FromAddress {
    reader: std::io::BufReader<std::net::TcpStream>,
}

/// What a [`FromAddress`] call answered: the status, `Retry-After` and the JSON body.
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<u64>,
    pub body: Value,
    /// The session cookie it set, if any.
    pub cookie: Option<String>,
}

impl FromAddress {
    pub fn new(server: &TestServer, source: std::net::Ipv4Addr) -> FromAddress {
        let target: std::net::SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
        let stream = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(std::net::SocketAddr::new(source.into(), 0)).unwrap();
            socket.connect(target).await.unwrap().into_std().unwrap()
        });
        stream.set_nonblocking(false).unwrap();
        FromAddress { reader: std::io::BufReader::new(stream) }
    }

    pub fn post(&mut self, path: &str, body: &Value) -> Answer {
        use std::io::{BufRead, Read, Write};
        let text = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: arka\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        self.reader.get_mut().write_all(request.as_bytes()).unwrap();
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status: u16 = line.split(' ').nth(1).unwrap().parse().unwrap();
        let (mut length, mut retry_after, mut cookie) = (0, None, None);
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "retry-after" => retry_after = Some(value.trim().parse().unwrap()),
                "set-cookie" => cookie = value.trim().split(';').next().map(str::to_string),
                _ => {}
            }
        }
        let mut bytes = vec![0; length];
        self.reader.read_exact(&mut bytes).unwrap();
        Answer { status, retry_after, body: serde_json::from_slice(&bytes).unwrap_or(Value::Null), cookie }
    }
}
