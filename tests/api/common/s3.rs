//! An S3-compatible server for the copy's stories: moto's server (moto from PyPI, which `./test`
//! installs into target/moto), on a loopback port of its own, killed when dropped; and a TCP
//! relay in front of it whose line a story can cut and mend, as a shop's internet goes down.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BUCKET: &str = "shop-copy";
pub const ACCESS_KEY: &str = "arka-test-access";
pub const SECRET_KEY: &str = "arka-test-secret";

fn moto_server() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/moto/bin/moto_server");
    assert!(path.exists(), "{} is missing: ./test installs moto (PyPI) into target/moto", path.display());
    path
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// moto's S3 server, holding its objects in memory: killed, it forgets them.
pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Moto {
    /// A server on a free port. A port found free may be taken by another story's server before
    /// this one binds it: then this one stops at once, and another port is tried.
    pub fn start() -> Moto {
        for _ in 0..20 {
            if let Some(moto) = Moto::try_start_on(free_port()) {
                return moto;
            }
        }
        panic!("moto_server found no free port")
    }

    /// A server on `port` (a new one after a kill, in the killed one's place), with the bucket.
    pub fn start_on(port: u16) -> Moto {
        Moto::try_start_on(port).unwrap_or_else(|| panic!("moto_server could not listen on {port}"))
    }

    fn try_start_on(port: u16) -> Option<Moto> {
        let child = Command::new(moto_server())
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        let mut moto = Moto { child, port };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(5)))
            .build()
            .into();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            // Only this server's answer counts: it must still be running.
            if moto.child.try_wait().ok().flatten().is_some() {
                return None;
            }
            if let Ok(reply) = agent.put(format!("{}/{BUCKET}", moto.url())).send(&[][..])
                && reply.status().as_u16() == 200
                && moto.child.try_wait().ok().flatten().is_none()
            {
                return Some(moto);
            }
            assert!(Instant::now() < deadline, "moto_server did not answer on port {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The names of the objects in the bucket under `prefix`.
    pub fn names(&self, prefix: &str) -> Vec<String> {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut reply = agent
            .get(format!("{}/{BUCKET}?list-type=2&prefix={prefix}&max-keys=100000", self.url()))
            .call()
            .unwrap();
        let status = reply.status().as_u16();
        let body = reply.body_mut().read_to_string().unwrap();
        assert_eq!(status, 200, "listing the bucket: {body}");
        body.split("<Key>")
            .skip(1)
            .filter_map(|k| k.split_once("</Key>").map(|(k, _)| k.to_string()))
            .collect()
    }

    /// The object `name` of the bucket, as stored (a signed GET, as the bucket's owner reads it).
    pub fn get(&self, name: &str) -> Vec<u8> {
        let bucket = arka::copy::target::S3::new(&arka::copy::S3Settings {
            endpoint: self.url(),
            bucket: BUCKET.into(),
            region: "us-east-1".into(),
            access_key: ACCESS_KEY.into(),
            secret_key: SECRET_KEY.into(),
            prefix: String::new(),
            path_style: true,
            timeout: Duration::from_secs(10),
        })
        .unwrap();
        arka::copy::Target::S3(Box::new(bucket))
            .get(name)
            .unwrap()
            .unwrap_or_else(|| panic!("{name} is in the bucket"))
    }

    /// SIGKILL, as a server that dies.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A TCP relay on a loopback port of its own to `to`: cut, it refuses every connection and
/// drops those open (as a line that goes down); mended, it relays again.
pub struct Line {
    pub addr: SocketAddr,
    cut: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
    stopping: Arc<AtomicBool>,
}

impl Line {
    pub fn to(port: u16) -> Line {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let cut = Arc::new(AtomicBool::new(false));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let stopping = Arc::new(AtomicBool::new(false));
        let (c, o, s) = (cut.clone(), open.clone(), stopping.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        if c.load(Ordering::SeqCst) {
                            let _ = client.shutdown(Shutdown::Both);
                            continue;
                        }
                        let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                            let _ = client.shutdown(Shutdown::Both);
                            continue;
                        };
                        client.set_nonblocking(false).unwrap();
                        o.lock().unwrap().extend([client.try_clone().unwrap(), server.try_clone().unwrap()]);
                        relay(client.try_clone().unwrap(), server.try_clone().unwrap());
                        relay(server, client);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Line { addr, cut, open, stopping }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    pub fn mend(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.cut();
    }
}

fn relay(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}

/// A small file system of `bytes` mounted at `path` (tmpfs), so a story can fill the copy's
/// folder as a full disk; unmounted when dropped. Needs root, as `./test` and CI run.
pub struct SmallDisk {
    pub path: PathBuf,
}

impl SmallDisk {
    pub fn mount(path: PathBuf, bytes: u64) -> SmallDisk {
        std::fs::create_dir_all(&path).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(&path)
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "mounting a tmpfs (root is needed): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        SmallDisk { path }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}
