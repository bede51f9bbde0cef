//! Getting the bytes to the printer: over the network (a raw TCP socket, port 9100 on nearly
//! every receipt printer) or into a USB printer's device file (`/dev/usb/lp0` on Linux), each
//! within a bounded time, and the printer's trouble said in words the till can show.

use std::io::Write;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::escpos::{PAPER_STATUS, paper_out};

/// How long a printer on the network may take to accept the connection.
const CONNECT: Duration = Duration::from_secs(2);
/// How long the paper sensor's answer is waited for: a printer that does not answer
/// `DLE EOT` (some do not) prints anyway.
const STATUS: Duration = Duration::from_millis(300);
/// How long the whole receipt may take to be written.
const WRITE: Duration = Duration::from_secs(5);

/// Where a till's printer is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// `host:port` on the shop's network.
    Network(String),
    /// A device file, e.g. `/dev/usb/lp0`.
    Device(String),
}

/// Why the receipt did not reach the paper.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Nothing answers at the address, or the device file is not there: off or unplugged.
    #[error("the printer does not answer at {0}")]
    Off(String),
    /// The paper sensor says the roll has ended.
    #[error("the printer is out of paper")]
    OutOfPaper,
    /// The printer took part of the receipt and stopped.
    #[error("the printer stopped taking the receipt: {0}")]
    Failed(#[source] std::io::Error),
}

/// Sends `bytes` to the printer at `connection`.
pub async fn send(connection: &Connection, bytes: Vec<u8>) -> Result<(), Error> {
    match connection {
        Connection::Network(address) => send_network(address, &bytes).await,
        Connection::Device(path) => send_device(path.clone(), bytes).await,
    }
}

async fn send_network(address: &str, bytes: &[u8]) -> Result<(), Error> {
    let off = || Error::Off(address.to_string());
    let mut stream = match tokio::time::timeout(CONNECT, TcpStream::connect(address)).await {
        Ok(Ok(stream)) => stream,
        _ => return Err(off()),
    };
    let _ = stream.set_nodelay(true);
    stream.write_all(&PAPER_STATUS).await.map_err(|_| off())?;
    let mut status = [0u8; 1];
    if let Ok(Ok(1)) = tokio::time::timeout(STATUS, stream.read(&mut status)).await
        && paper_out(status[0])
    {
        return Err(Error::OutOfPaper);
    }
    let written = tokio::time::timeout(WRITE, async {
        stream.write_all(bytes).await?;
        stream.flush().await?;
        stream.shutdown().await
    })
    .await;
    match written {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Error::Failed(e)),
        Err(_) => Err(Error::Failed(std::io::ErrorKind::TimedOut.into())),
    }
}

async fn send_device(path: String, bytes: Vec<u8>) -> Result<(), Error> {
    let shown = path.clone();
    let written = tokio::time::timeout(
        WRITE,
        tokio::task::spawn_blocking(move || {
            // Never created: a missing device file is a printer unplugged, not a file to make.
            let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
            file.write_all(&bytes)?;
            file.flush()
        }),
    )
    .await;
    match written {
        Ok(Ok(Ok(()))) => Ok(()),
        // The Linux USB printer driver answers a write without paper with ENOSPC.
        Ok(Ok(Err(e))) if e.raw_os_error() == Some(28) => Err(Error::OutOfPaper),
        Ok(Ok(Err(e)))
            if matches!(e.kind(), std::io::ErrorKind::NotFound) || e.raw_os_error() == Some(19) =>
        {
            Err(Error::Off(shown))
        }
        Ok(Ok(Err(e))) => Err(Error::Failed(e)),
        Ok(Err(e)) => Err(Error::Failed(std::io::Error::other(e))),
        Err(_) => Err(Error::Failed(std::io::ErrorKind::TimedOut.into())),
    }
}
