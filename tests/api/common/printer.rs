//! A receipt printer for the tests: a listener on 127.0.0.1 that speaks what a network thermal
//! printer speaks on port 9100 (it answers `DLE EOT 4` with its paper sensor) and keeps every
//! receipt it receives, and a decoder of the ESC/POS stream: the text on the code page it
//! selected (decoded by glibc's `iconv`, an outside judge of the page), the cuts, the QR
//! command's payload and the drawer's pulses.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::oracle;

/// One connection's bytes and when its last byte came.
#[derive(Debug, Clone)]
pub struct Received {
    pub bytes: Vec<u8>,
    pub at: SystemTime,
}

pub struct TestPrinter {
    pub address: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    paper_out: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestPrinter {
    pub fn start() -> TestPrinter {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let paper_out = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (kept, paper, stopping) = (received.clone(), paper_out.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (kept, paper) = (kept.clone(), paper.clone());
                        std::thread::spawn(move || serve(stream, &kept, &paper));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        TestPrinter { address, received, paper_out, stop, thread: Some(thread) }
    }

    /// The paper sensor says the roll has ended (`true`) or is in.
    pub fn set_paper_out(&self, out: bool) {
        self.paper_out.store(out, Ordering::SeqCst);
    }

    /// Every receipt received so far (a connection that sent more than the status query).
    pub fn receipts(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits for the `n`th receipt (1-based) and decodes it.
    pub fn wait_for(&self, n: usize) -> Receipt {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(r) = self.receipts().get(n - 1) {
                return decode(&r.bytes);
            }
            assert!(Instant::now() < deadline, "receipt {n} never reached the printer");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for TestPrinter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers the status query, reads to the end, keeps what came after it.
fn serve(mut stream: std::net::TcpStream, kept: &Mutex<Vec<Received>>, paper_out: &AtomicBool) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut answered = false;
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
        }
        if !answered && bytes.starts_with(&[0x10, 0x04, 4]) {
            answered = true;
            let status = if paper_out.load(Ordering::SeqCst) { 0x72 } else { 0x12 };
            let _ = stream.write_all(&[status]);
            bytes.drain(..3);
        }
    }
    if !bytes.is_empty() {
        kept.lock().unwrap().push(Received { bytes, at: SystemTime::now() });
    }
}

/// What a receipt's bytes say.
#[derive(Debug, Default)]
pub struct Receipt {
    /// `ESC t n`'s n.
    pub code_page: Option<u8>,
    /// The printed lines, decoded from the code page.
    pub lines: Vec<String>,
    /// Lines printed bold (emphasized).
    pub bold: Vec<String>,
    pub qr_payloads: Vec<String>,
    pub cuts: usize,
    pub drawer_pulses: usize,
}

impl Receipt {
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn has_line(&self, wanted: &str) -> bool {
        self.lines.iter().any(|l| l.trim() == wanted)
    }
}

/// The bytes of code page 858 as UTF-8, by glibc's iconv.
fn from_cp858(bytes: &[u8]) -> String {
    let mut child = Command::new("iconv")
        .args(["-f", "CP858", "-t", "UTF-8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("iconv did not run ({e}): it comes with Debian's libc-bin"));
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "iconv refused the bytes as CP858");
    String::from_utf8(out.stdout).unwrap()
}

/// Decodes an ESC/POS stream: every command the receipt uses, and a failure on any other.
pub fn decode(bytes: &[u8]) -> Receipt {
    let mut r = Receipt::default();
    let mut text: Vec<u8> = Vec::new();
    let mut lines: Vec<(Vec<u8>, bool)> = Vec::new();
    let mut bold = false;
    let mut i = 0;
    let at =
        |i: usize| bytes.get(i).copied().unwrap_or_else(|| panic!("the stream ends inside a command at {i}"));
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push((std::mem::take(&mut text), bold));
                i += 1;
            }
            0x1B => match at(i + 1) {
                b'@' => i += 2,
                b't' => {
                    r.code_page = Some(at(i + 2));
                    i += 3;
                }
                b'a' | b'd' => i += 3,
                b'E' => {
                    bold = at(i + 2) == 1;
                    i += 3;
                }
                b'p' => {
                    r.drawer_pulses += 1;
                    i += 5;
                }
                other => panic!("ESC {other:#x} is not a command the receipt should send"),
            },
            0x1D => match at(i + 1) {
                b'!' => i += 3,
                b'V' => {
                    r.cuts += 1;
                    i += if at(i + 2) >= 65 { 4 } else { 3 };
                }
                b'(' if at(i + 2) == b'k' => {
                    let length = usize::from(at(i + 3)) + 256 * usize::from(at(i + 4));
                    let (cn, function) = (at(i + 5), at(i + 6));
                    assert_eq!(cn, 49, "a QR code command");
                    if function == 80 {
                        let payload = &bytes[i + 8..i + 5 + length];
                        r.qr_payloads.push(String::from_utf8(payload.to_vec()).unwrap());
                    }
                    i += 5 + length;
                }
                other => panic!("GS {other:#x} is not a command the receipt should send"),
            },
            b if b < 0x20 => panic!("control byte {b:#x} at {i}"),
            b => {
                text.push(b);
                i += 1;
            }
        }
    }
    assert!(text.is_empty(), "text after the last line feed: {text:?}");
    let all: Vec<u8> = lines.iter().flat_map(|(l, _)| l.iter().copied().chain([b'\n'])).collect();
    let decoded = from_cp858(&all);
    r.lines = decoded.lines().map(str::to_string).collect();
    r.bold = r.lines.iter().zip(&lines).filter(|(_, (_, b))| *b).map(|(l, _)| l.clone()).collect();
    r
}

/// The QR code of `payload` drawn as a PBM image and read back by `zbarimg` (zbar-tools): what a
/// phone reads off the printed receipt.
pub fn qr_read_back(payload: &str) -> String {
    let code = qrcode::QrCode::with_error_correction_level(payload.as_bytes(), qrcode::EcLevel::M).unwrap();
    let width = code.width();
    let (quiet, scale) = (4, 4);
    let side = (width + 2 * quiet) * scale;
    let colors = code.to_colors();
    let mut pbm = format!("P1\n{side} {side}\n");
    for y in 0..side {
        for x in 0..side {
            let (mx, my) = ((x / scale) as isize - quiet as isize, (y / scale) as isize - quiet as isize);
            let dark = mx >= 0
                && my >= 0
                && (mx as usize) < width
                && (my as usize) < width
                && colors[my as usize * width + mx as usize] == qrcode::Color::Dark;
            pbm.push_str(if dark { "1 " } else { "0 " });
        }
        pbm.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qr.pbm");
    std::fs::write(&path, pbm).unwrap();
    let out = oracle(Command::new("zbarimg").args(["--quiet", "--raw"]).arg(&path), "zbar-tools");
    assert!(out.status.success(), "zbarimg read no code: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim_end().to_string()
}
