//! The audit trail's rules: the fixed vocabulary of actions, the canonical text of an entry,
//! and the hash chain that makes a changed, removed or reordered entry visible. One chain for
//! the whole database, in id order: the writer appends one entry at a time anyway, a removal
//! anywhere breaks the chain (per-company chains would each need their own end to be checked),
//! and `arka audit verify` reads the table once, front to back.

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};
use chrono_tz::Europe::Tirane;

use super::role::Role;
use super::spelled::spelled;

/// The `prev_hash` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

spelled! {
    /// What was done. Stored as `as_str`; a filter names one of these.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Action {
        InvoiceCancel = "invoice.cancel",
        InvoiceCorrect = "invoice.correct",
        CashDeposit = "cash.deposit",
        CashWithdraw = "cash.withdraw",
        DayOpen = "day.open",
        DayClose = "day.close",
        /// A close counted more or less than the drawer should hold: the difference, booked once.
        CashDifference = "cash.difference",
        UserCreate = "user.create",
        UserUpdate = "user.update",
        UserRole = "user.role",
        UserPassword = "user.password",
        UserResetCode = "user.reset_code",
        UserRestore = "user.restore",
        TokenRotate = "token.rotate",
        TokenRevoke = "token.revoke",
        CertificateUpload = "certificate.upload",
        SettingsCurrency = "settings.currency",
        SettingsManualRate = "settings.manual_rate",
        SettingsMarketplace = "settings.marketplace",
        SettingsPrint = "settings.print",
        SettingsStock = "settings.stock",
        BankAccountCreate = "bank_account.create",
        UnitCreate = "unit.create",
        UnitUpdate = "unit.update",
        DeviceRegister = "device.register",
        StockAdjust = "stock.adjust",
        ProductImport = "product.import",
        TestSale = "invoice.test_sale",
        BackupCreate = "backup.create",
        BackupRestore = "backup.restore",
        QueueResend = "queue.resend",
        HqUnlink = "hq.unlink",
    }
}

/// Who did it: a user with their role, or the command line on the server's machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    User { id: i64, role: Role },
    Cli,
}

impl Actor {
    pub fn user_id(&self) -> Option<i64> {
        match self {
            Actor::User { id, .. } => Some(*id),
            Actor::Cli => None,
        }
    }

    /// The role as the trail stores it: the user's, or `cli`.
    pub fn role_text(&self) -> &'static str {
        match self {
            Actor::User { role, .. } => role.as_str(),
            Actor::Cli => "cli",
        }
    }
}

/// An entry as the action writes it; the store adds the id, the time and the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub company_id: Option<i64>,
    pub actor: Actor,
    pub request_id: Option<String>,
    pub action: Action,
    /// The id of what was acted on (a document's IIC, a user's id, a currency's code …).
    pub object: String,
    /// Short JSON texts of what changed, before and after.
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Entry {
    /// What it was before, as short JSON.
    pub fn before(mut self, value: serde_json::Value) -> Entry {
        self.before = Some(value.to_string());
        self
    }

    /// What it is after, as short JSON.
    pub fn after(mut self, value: serde_json::Value) -> Entry {
        self.after = Some(value.to_string());
        self
    }
}

/// An entry as stored, every field as text so that a row edited by hand is still read (and
/// found broken) rather than refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub id: i64,
    pub at: String,
    pub company_id: Option<i64>,
    pub user_id: Option<i64>,
    pub role: String,
    pub request_id: Option<String>,
    pub action: String,
    pub object: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub prev_hash: String,
    pub hash: String,
}

impl Stored {
    /// The entry's fields as one unambiguous text: a JSON array in a fixed order (JSON quotes
    /// every string, so no field can pass for two).
    pub fn canonical(&self) -> String {
        serde_json::json!([
            self.id,
            self.at,
            self.company_id,
            self.user_id,
            self.role,
            self.request_id,
            self.action,
            self.object,
            self.before,
            self.after,
        ])
        .to_string()
    }

    /// SHA-256 over the previous entry's hash and this entry's canonical text, in hex.
    pub fn content_hash(&self) -> String {
        let mut hasher = openssl::sha::Sha256::new();
        hasher.update(self.prev_hash.as_bytes());
        hasher.update(b"\n");
        hasher.update(self.canonical().as_bytes());
        hasher.finish().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The first entry that does not hold, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub id: i64,
    pub why: String,
}

/// Walks the chain one stored entry at a time, in id order.
#[derive(Debug, Clone)]
pub struct Chain {
    last_hash: String,
    last_id: i64,
    pub entries: u64,
}

impl Default for Chain {
    fn default() -> Self {
        Chain { last_hash: GENESIS.to_string(), last_id: 0, entries: 0 }
    }
}

impl Chain {
    /// Checks the next entry against the ones before it.
    pub fn check(&mut self, entry: &Stored) -> Result<(), Broken> {
        if entry.prev_hash != self.last_hash {
            return Err(Broken {
                id: entry.id,
                why: "does not follow the entry before it (one was removed or changed)".into(),
            });
        }
        if entry.content_hash() != entry.hash {
            return Err(Broken {
                id: entry.id,
                why: "its content does not match its hash (it was changed)".into(),
            });
        }
        self.last_hash = entry.hash.clone();
        self.last_id = entry.id;
        self.entries += 1;
        Ok(())
    }

    /// The hash the next entry links to.
    pub fn last_hash(&self) -> &str {
        &self.last_hash
    }

    /// Once every entry was checked: `issued` is the last id SQLite ever gave (its
    /// `sqlite_sequence`); a higher one than the last entry read means entries were cut off the end.
    pub fn end(&self, issued: Option<i64>) -> Result<(), Broken> {
        match issued {
            Some(issued) if issued > self.last_id => Err(Broken {
                id: self.last_id + 1,
                why: "is missing: entries were removed from the end".into(),
            }),
            _ => Ok(()),
        }
    }
}

/// UTC time as the trail stores it: milliseconds, so entries of one second keep their order
/// when read by time.
pub fn at_text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The first instant of a Tirane day, as the trail stores time (for `from`/`to` filters).
pub fn day_start(day: NaiveDate) -> String {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    let start = Tirane
        .from_local_datetime(&midnight)
        .earliest()
        .map_or_else(|| Utc.from_utc_datetime(&midnight), |t| t.with_timezone(&Utc));
    at_text(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain_of(n: i64) -> Vec<Stored> {
        let mut prev = GENESIS.to_string();
        (1..=n)
            .map(|id| {
                let mut entry = Stored {
                    id,
                    at: format!("2026-01-01T10:00:0{id}.000Z"),
                    company_id: Some(1),
                    user_id: Some(2),
                    role: "owner".into(),
                    request_id: Some(format!("r{id}")),
                    action: "cash.deposit".into(),
                    object: id.to_string(),
                    before: None,
                    after: Some(r#"{"amount":"10"}"#.into()),
                    prev_hash: prev.clone(),
                    hash: String::new(),
                };
                entry.hash = entry.content_hash();
                prev = entry.hash.clone();
                entry
            })
            .collect()
    }

    #[test]
    fn an_actor_is_stored_under_its_role_or_as_the_command_line() {
        for (actor, stored) in [
            (Actor::User { id: 7, role: Role::Owner }, "owner"),
            (Actor::User { id: 7, role: Role::Manager }, "manager"),
            (Actor::User { id: 7, role: Role::Cashier }, "cashier"),
            (Actor::Cli, "cli"),
        ] {
            assert_eq!(actor.role_text(), stored, "{actor:?}");
        }
    }

    fn verify(entries: &[Stored], issued: Option<i64>) -> Result<u64, Broken> {
        let mut chain = Chain::default();
        for entry in entries {
            chain.check(entry)?;
        }
        chain.end(issued)?;
        Ok(chain.entries)
    }

    #[test]
    fn a_whole_chain_verifies_and_every_kind_of_tamper_is_named() {
        let whole = chain_of(4);
        assert_eq!(verify(&whole, Some(4)), Ok(4));
        assert_eq!(verify(&[], None), Ok(0));

        let mut edited = whole.clone();
        edited[2].after = Some(r#"{"amount":"1000"}"#.into());
        assert_eq!(verify(&edited, Some(4)).unwrap_err().id, 3);

        let mut rehashed = edited.clone();
        rehashed[2].hash = rehashed[2].content_hash();
        assert_eq!(verify(&rehashed, Some(4)).unwrap_err().id, 4, "the next one no longer follows");

        let removed: Vec<Stored> = whole.iter().filter(|e| e.id != 2).cloned().collect();
        assert_eq!(verify(&removed, Some(4)).unwrap_err().id, 3);

        assert_eq!(verify(&whole[..3], Some(4)).unwrap_err().id, 4, "cut off the end");
        assert_eq!(verify(&whole[1..], Some(4)).unwrap_err().id, 2, "cut off the front");
    }

    #[test]
    fn the_canonical_text_keeps_fields_apart_and_actions_read_back() {
        let a = &chain_of(1)[0];
        let mut b = a.clone();
        b.object = format!("{}\",\"", a.object);
        assert_ne!(a.canonical(), b.canonical());
        for action in Action::ALL {
            assert_eq!(Action::parse(action.as_str()), Some(action));
        }
        assert_eq!(Action::parse("invoice.issue"), None);
    }

    #[test]
    fn a_day_starts_at_tirane_midnight() {
        let day = NaiveDate::from_ymd_opt(2026, 7, 1).unwrap();
        assert_eq!(day_start(day), "2026-06-30T22:00:00.000Z");
        let winter = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        assert_eq!(day_start(winter), "2025-12-31T23:00:00.000Z");
    }
}
