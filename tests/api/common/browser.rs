//! A real browser for page stories: Debian's headless Chromium driven over WebDriver by its
//! chromedriver, started on a free loopback port and stopped when dropped.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use tempfile::TempDir;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// axe-core's script, as `./test` installs it.
pub const AXE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/axe/node_modules/axe-core/axe.min.js");

/// How long anything the page does may take before the story fails.
pub const PAGE_WAIT: Duration = Duration::from_secs(15);

/// Fails the story when Chromium or its driver is missing: a page story is never skipped.
fn require_chromium() {
    for (program, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
        assert!(
            Path::new(program).exists(),
            "{program} is missing: it comes with Debian's {package}; ./test installs every tool the tests use"
        );
    }
}

pub struct Browser {
    pub client: Client,
    driver: Child,
    // Chromium's profile, new and empty for each story; removed last.
    _profile: TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session `width` x `height` pixels wide. The
    /// port is chosen free, then given to chromedriver: another test's server may take it in
    /// between (chromedriver then exits, and the session's call is refused), so a refused start
    /// is tried again on a new port, three times at most.
    pub async fn start(width: u32, height: u32) -> Browser {
        require_chromium();
        let mut last = None;
        for _ in 0..3 {
            match Self::try_start(width, height).await {
                Ok(browser) => return browser,
                Err(e) => last = Some(e),
            }
        }
        panic!("a Chromium session: {last:?}");
    }

    async fn try_start(width: u32, height: u32) -> Result<Browser, fantoccini::error::NewSessionError> {
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // A group of its own, so the Chromium it starts goes with it (see `kill_group`).
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + PAGE_WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen within {PAGE_WAIT:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = tempfile::Builder::new().prefix("arka-chromium-").tempdir().unwrap();
        // The flags keep Chromium from calling anything outside the machine (this one has no
        // network but loopback, and its refusals would slow every start).
        let mut args: Vec<String> = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ]
        .map(String::from)
        .to_vec();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        args.push(format!("--window-size={width},{height}"));
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), json!({"binary": CHROMIUM, "args": args}));
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let session = ClientBuilder::new(connector)
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match session {
            Ok(client) => Ok(Browser { client, driver, _profile: profile }),
            Err(e) => {
                let mut driver = driver;
                kill_group(&mut driver);
                Err(e)
            }
        }
    }

    /// The element `css`, once it is on the page.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(PAGE_WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css} did not appear: {e}"))
    }

    /// The text of `css` once `ready` holds for it.
    pub async fn text_when(&self, css: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PAGE_WAIT;
        let mut seen = String::new();
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await
                && let Ok(text) = element.text().await
            {
                if ready(&text) {
                    return text;
                }
                seen = text;
            }
            assert!(
                Instant::now() < deadline,
                "{css} did not come to the expected text within {PAGE_WAIT:?}; it said {seen:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks `css`; an element the page drew again between finding and clicking (stale, or not
    /// yet interactable) is found again, within the page's wait.
    pub async fn click(&self, css: &str) {
        let deadline = Instant::now() + PAGE_WAIT;
        loop {
            match self.find(css).await.click().await {
                Ok(_) => return,
                Err(e) if redrawn(&e) && Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("click {css}: {e}"),
            }
        }
    }

    /// Types into `css` after clearing it, finding it again if the page drew it anew meanwhile.
    pub async fn type_into(&self, css: &str, text: &str) {
        let deadline = Instant::now() + PAGE_WAIT;
        loop {
            let field = self.find(css).await;
            let typed = match field.clear().await {
                Ok(()) => field.send_keys(text).await,
                Err(e) => Err(e),
            };
            match typed {
                Ok(()) => return,
                Err(e) if redrawn(&e) && Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("typing into {css}: {e}"),
            }
        }
    }

    /// Signs in on the page's form as a person does: the e-mail, then the password ended by Enter.
    pub async fn sign_in(&self, email: &str, password: &str) {
        self.type_into("#signin-email", email).await;
        let enter = char::from(fantoccini::key::Key::Enter);
        self.type_into("#signin-password", &format!("{password}{enter}")).await;
    }

    /// axe-core (from the npm registry: `./test` puts it in target/axe) run inside this Chromium
    /// on the page as it is now: fails naming every serious or critical violation of `screen`.
    pub async fn axe(&self, screen: &str) {
        let loaded: serde_json::Value =
            self.client.execute("return typeof axe !== 'undefined'", vec![]).await.unwrap();
        if loaded != json!(true) {
            let source = std::fs::read_to_string(AXE).unwrap_or_else(|e| {
                panic!("{AXE}: {e}: axe-core comes from the npm registry; ./test installs every tool the tests use")
            });
            self.client.execute(&format!("{source}\nreturn true;"), vec![]).await.expect("axe-core loads");
        }
        let found = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations
                   .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                   .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)));",
                vec![],
            )
            .await
            .expect("axe-core runs");
        assert_eq!(found, json!([]), "axe-core on the screen {screen}");
    }

    /// The `data` of a GET the page's own session makes (its cookie; a read needs no CSRF
    /// token): what the signed-in person's API answers, to hold the screen's figures against.
    pub async fn api_data(&self, path: &str) -> serde_json::Value {
        let body = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 fetch(arguments[0], {credentials: 'same-origin'}).then((r) => r.json()).then(done);",
                vec![serde_json::json!(path)],
            )
            .await
            .expect("the page's fetch");
        assert_eq!(body["status"], true, "{path}: {body}");
        body["data"].clone()
    }

    /// A PNG of the page as it is now.
    pub async fn screenshot(&self, path: &Path) {
        let png = self.client.screenshot().await.expect("a screenshot");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// Ends the session (Chromium quits) and the driver.
    pub async fn stop(self) {
        let _ = self.client.clone().close().await;
    }

    /// chromedriver and every Chromium process it started (its process group).
    fn kill_group(&mut self) {
        kill_group(&mut self.driver);
    }
}

/// Ends chromedriver and the Chromium it started (its process group).
fn kill_group(driver: &mut Child) {
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", driver.id())]).status();
    let _ = driver.wait();
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Also when a story failed midway: no driver or browser is left behind.
        self.kill_group();
    }
}

/// An element the page replaced or has not shown yet: worth finding again.
fn redrawn(error: &fantoccini::error::CmdError) -> bool {
    use fantoccini::error::{CmdError, ErrorStatus};
    matches!(
        error,
        CmdError::Standard(e)
            if matches!(e.error, ErrorStatus::StaleElementReference | ErrorStatus::ElementNotInteractable)
    )
}
