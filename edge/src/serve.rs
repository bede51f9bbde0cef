//! Serving a router until a stop, a shop's and the head office's alike.

use std::net::SocketAddr;

use axum::Router;
use axum::serve::{Listener, ListenerExt};

/// Serves until `shutdown` completes, then lets the requests in flight finish. Used by
/// `arka serve`, `arka hq serve` and the tests alike, over plain TCP or TLS
/// (`crate::tls::TlsListener`).
pub async fn serve<L>(
    listener: L,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    L: Listener<Addr = SocketAddr>,
{
    // tap_io gives any listener's connections their peer address (the IP limiter reads it).
    axum::serve(listener.tap_io(|_| {}), app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
}
