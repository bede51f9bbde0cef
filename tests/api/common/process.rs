//! The real `arka serve` binary as a child process, for stories about signals, logs and TLS:
//! it listens on 127.0.0.1:0 and the address is read from what it prints.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the binary may take to start or to stop.
const WAIT: Duration = Duration::from_secs(30);

pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:PORT` or `https://...`, as printed.
    pub base_url: String,
    /// Every line printed on stdout while starting (`printed_now` adds the later ones).
    pub printed: Vec<String>,
    lines: mpsc::Receiver<String>,
    stderr_path: PathBuf,
    _logs: tempfile::TempDir,
}

impl ServerProcess {
    /// `arka serve --listen 127.0.0.1:0 --data-dir DATA_DIR ARGS...`, no ARKA_* from the
    /// environment; returns once the server answers on its port.
    pub fn start(data_dir: &Path, args: &[&str]) -> ServerProcess {
        Self::start_on("127.0.0.1:0", data_dir, args)
    }

    /// `start` listening on `listen` (a server started again on the port its clients know).
    pub fn start_on(listen: &str, data_dir: &Path, args: &[&str]) -> ServerProcess {
        let mut all: Vec<&std::ffi::OsStr> =
            ["serve", "--listen", listen, "--data-dir"].into_iter().map(std::ffi::OsStr::new).collect();
        all.push(data_dir.as_os_str());
        all.extend(args.iter().map(std::ffi::OsStr::new));
        Self::launch(&all)
    }

    /// `arka hq serve --listen 127.0.0.1:0 ARGS...` (the chain's head office).
    pub fn start_hq(args: &[&str]) -> ServerProcess {
        Self::start_hq_on("127.0.0.1:0", args)
    }

    /// `arka hq serve --listen LISTEN ARGS...`.
    pub fn start_hq_on(listen: &str, args: &[&str]) -> ServerProcess {
        let mut all = vec!["hq", "serve", "--listen", listen];
        all.extend(args);
        let all: Vec<&std::ffi::OsStr> = all.into_iter().map(std::ffi::OsStr::new).collect();
        Self::launch(&all)
    }

    fn launch(args: &[&std::ffi::OsStr]) -> ServerProcess {
        let logs = tempfile::tempdir().unwrap();
        let stderr_path = logs.path().join("stderr.log");
        let mut command = Command::new(env!("CARGO_BIN_EXE_arka"));
        for (key, _) in std::env::vars() {
            if key.starts_with("ARKA_") {
                command.env_remove(key);
            }
        }
        command.env("RUST_LOG", "info").env("NO_COLOR", "1");
        command.args(args);
        command
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .stdin(Stdio::null());
        let mut child = command.spawn().expect("the arka binary starts");
        let stdout = child.stdout.take().unwrap();
        let (lines_tx, lines_rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + WAIT;
        let mut printed = Vec::new();
        let base_url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines_rx.recv_timeout(left) {
                Ok(line) => {
                    let url = line.split(" on ").nth(1).map(|u| u.trim().to_string());
                    printed.push(line);
                    if let Some(url) = url.filter(|u| u.starts_with("http")) {
                        break url;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "arka serve printed no address: {printed:?}\n{}",
                        std::fs::read_to_string(&stderr_path).unwrap_or_default()
                    );
                }
            }
        };
        // The rest of what it prints (the TLS fingerprint) comes right after the address.
        while let Ok(line) = lines_rx.recv_timeout(Duration::from_millis(300)) {
            printed.push(line);
        }
        let mut server =
            ServerProcess { child, base_url, printed, lines: lines_rx, stderr_path, _logs: logs };
        server.wait_until_answering();
        server
    }

    fn wait_until_answering(&mut self) {
        let address = self.base_url.split("://").nth(1).unwrap().to_string();
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("arka serve exited while starting ({status}): {}", self.stderr());
            }
            if std::net::TcpStream::connect(&address).is_ok() && self.stderr().contains("arka is listening") {
                return;
            }
            assert!(Instant::now() < deadline, "arka serve did not start: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every line printed on stdout so far.
    pub fn printed_now(&mut self) -> Vec<String> {
        while let Ok(line) = self.lines.try_recv() {
            self.printed.push(line);
        }
        self.printed.clone()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything it logged so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Sends SIGTERM (through the `kill` command) and waits for the exit.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill").args(["-TERM", &self.pid().to_string()]).status().unwrap();
        assert!(sent.success(), "kill -TERM worked");
        self.wait_for_exit()
    }

    /// `kill -9`: no chance to finish anything.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    pub fn wait_for_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "arka serve did not stop: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
