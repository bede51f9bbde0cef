//! Everything Arka says to the CIS (the Albanian fiscalization service): certificate, IIC,
//! canonical XML, XML signature, SOAP requests and answers, transport.

pub mod c14n;
pub mod certificate;
pub mod delivery;
pub mod dsig;
mod error;
pub mod gateway;
pub mod iic;
pub mod model;
pub mod queue;
pub mod requests;
pub mod response;
#[cfg(test)]
pub(crate) mod testing;
pub mod transport;
pub mod ubl;
pub mod xml;

pub use error::Error;
