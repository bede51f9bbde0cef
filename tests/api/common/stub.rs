//! A small HTTP server on 127.0.0.1:0 that a test scripts with an axum router: the outside sites
//! Arka talks to (the rate sources' pages, an AI endpoint), stood in for on loopback.

use std::net::SocketAddr;
use std::time::Duration;

pub struct Stub {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
}

impl Stub {
    pub fn start(router: axum::Router) -> Stub {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = runtime.spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Stub { runtime, addr, stop: Some(stop), served: Some(served) }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            // A connection held open by a client (a stream) must not keep the test waiting.
            let _ =
                self.runtime.block_on(async { tokio::time::timeout(Duration::from_secs(2), served).await });
        }
    }
}

/// An address on loopback that nothing listens on.
pub fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    url
}
