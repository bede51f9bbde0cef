//! The simulators `--sandbox` and the tests run: the CIS (`cis`), Wolt's merchant API (`wolt`),
//! and the HTTP plumbing both share (`http`). They stand in for outside services, so they may use
//! what those services check and sign (`fiscal`, `print`, `wolt`'s shapes), never the store, the
//! services or the API.

pub mod cis;
pub mod http;
pub mod wolt;
