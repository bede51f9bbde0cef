//! The `--limits` setting: the spec's rate limits by name, with the spec's figures as defaults.
//! What enforces them is `api::limits`; this is only what the setting parses into.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Budget groups of the spec's "Budgets per group" table (plus cancellations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    General,
    Fiscal,
    Bulk,
    Print,
    Reports,
    Search,
    Registration,
    Cancel,
    /// Marketplace reads, the event feed included (per token).
    MarketplaceReads,
    /// Marketplace writes (per token).
    MarketplaceWrites,
}

impl Group {
    const ALL: [Group; 10] = [
        Group::General,
        Group::Fiscal,
        Group::Bulk,
        Group::Print,
        Group::Reports,
        Group::Search,
        Group::Registration,
        Group::Cancel,
        Group::MarketplaceReads,
        Group::MarketplaceWrites,
    ];

    fn name(self) -> &'static str {
        match self {
            Group::General => "general",
            Group::Fiscal => "fiscal",
            Group::Bulk => "bulk",
            Group::Print => "print",
            Group::Reports => "reports",
            Group::Search => "search",
            Group::Registration => "registration",
            Group::Cancel => "cancel",
            Group::MarketplaceReads => "marketplace.reads",
            Group::MarketplaceWrites => "marketplace.writes",
        }
    }

    fn default_rates(self) -> Vec<Rate> {
        match self {
            Group::General => vec![Rate::per_minute(240)],
            Group::Fiscal | Group::Registration | Group::Cancel => {
                vec![Rate::per_minute(30), Rate::per_hour(600)]
            }
            Group::Bulk => vec![Rate::per_minute(3), Rate::per_hour(30)],
            Group::Print | Group::Reports => vec![Rate::per_minute(30)],
            Group::Search => vec![Rate::per_minute(90)],
            Group::MarketplaceReads => vec![Rate::per_minute(180)],
            Group::MarketplaceWrites => vec![Rate::per_minute(60)],
        }
    }
}

/// Minimum intervals between two calls of the same token (the spec's interval table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interval {
    Products,
    Clients,
    BankAccounts,
    Wtn,
}

impl Interval {
    const ALL: [Interval; 4] = [Interval::Products, Interval::Clients, Interval::BankAccounts, Interval::Wtn];

    fn name(self) -> &'static str {
        match self {
            Interval::Products => "interval.products",
            Interval::Clients => "interval.clients",
            Interval::BankAccounts => "interval.bank_accounts",
            Interval::Wtn => "interval.wtn",
        }
    }

    fn default_period(self) -> Duration {
        match self {
            Interval::Wtn => Duration::from_secs(30),
            _ => Duration::from_secs(10),
        }
    }
}

/// `count` calls per `period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub period: Duration,
}

impl Rate {
    pub const fn per_minute(count: u32) -> Rate {
        Rate { count, period: Duration::from_secs(60) }
    }

    pub const fn per_hour(count: u32) -> Rate {
        Rate { count, period: Duration::from_secs(3600) }
    }

    fn parse(s: &str) -> Result<Rate, String> {
        let (count, unit) =
            s.trim().split_once('/').ok_or_else(|| format!("rate `{s}` is not N/s, N/m or N/h"))?;
        let count: u32 = count
            .trim()
            .parse()
            .ok()
            .filter(|c| *c > 0)
            .ok_or_else(|| format!("rate `{s}`: the count must be a positive integer"))?;
        let period = match unit.trim() {
            "s" => Duration::from_secs(1),
            "m" | "min" => Duration::from_secs(60),
            "h" => Duration::from_secs(3600),
            other => return Err(format!("rate `{s}`: unknown unit `{other}` (use s, m or h)")),
        };
        Ok(Rate { count, period })
    }
}

/// The configured figures; defaults are the spec's.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitSettings {
    pub token: Vec<Rate>,
    pub ip: Vec<Rate>,
    pub groups: HashMap<Group, Vec<Rate>>,
    pub intervals: HashMap<Interval, Duration>,
}

impl Default for LimitSettings {
    fn default() -> Self {
        LimitSettings {
            token: vec![Rate::per_minute(300)],
            ip: vec![Rate::per_minute(120)],
            groups: Group::ALL.iter().map(|g| (*g, g.default_rates())).collect(),
            intervals: Interval::ALL.iter().map(|i| (*i, i.default_period())).collect(),
        }
    }
}

impl fmt::Display for LimitSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

fn parse_rates(s: &str) -> Result<Vec<Rate>, String> {
    s.split(',').map(Rate::parse).collect()
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let digits = s.trim().trim_end_matches('s');
    digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("interval `{s}` is not a number of seconds such as 10s"))
}

impl FromStr for LimitSettings {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut settings = LimitSettings::default();
        for pair in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) =
                pair.split_once('=').ok_or_else(|| format!("limit `{pair}` is not name=value"))?;
            let name = name.trim();
            if name == "token" {
                settings.token = parse_rates(value)?;
            } else if name == "ip" {
                settings.ip = parse_rates(value)?;
            } else if let Some(g) = Group::ALL.iter().find(|g| g.name() == name) {
                settings.groups.insert(*g, parse_rates(value)?);
            } else if let Some(i) = Interval::ALL.iter().find(|i| i.name() == name) {
                settings.intervals.insert(*i, parse_seconds(value)?);
            } else {
                return Err(format!("unknown limit `{name}`"));
            }
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_figures() {
        let s = LimitSettings::default();
        assert_eq!(s.token, vec![Rate::per_minute(300)]);
        assert_eq!(s.ip, vec![Rate::per_minute(120)]);
        assert_eq!(s.groups[&Group::Fiscal], vec![Rate::per_minute(30), Rate::per_hour(600)]);
        assert_eq!(s.groups[&Group::Bulk], vec![Rate::per_minute(3), Rate::per_hour(30)]);
        assert_eq!(s.groups[&Group::Search], vec![Rate::per_minute(90)]);
        assert_eq!(s.groups[&Group::MarketplaceReads], vec![Rate::per_minute(180)]);
        assert_eq!(s.groups[&Group::MarketplaceWrites], vec![Rate::per_minute(60)]);
        assert_eq!(s.intervals[&Interval::Wtn], Duration::from_secs(30));
        assert_eq!(s.intervals[&Interval::Products], Duration::from_secs(10));
    }

    #[test]
    fn overrides_parse_and_bad_input_is_named() {
        let s: LimitSettings = "token=5/m; fiscal=2/s,10/h ;interval.products=3s".parse().unwrap();
        assert_eq!(s.token, vec![Rate::per_minute(5)]);
        assert_eq!(s.groups[&Group::Fiscal][0], Rate { count: 2, period: Duration::from_secs(1) });
        assert_eq!(s.intervals[&Interval::Products], Duration::from_secs(3));
        assert_eq!(s.groups[&Group::Print], vec![Rate::per_minute(30)]);
        assert!("bogus=1/m".parse::<LimitSettings>().unwrap_err().contains("bogus"));
        assert!("token=0/m".parse::<LimitSettings>().is_err());
        assert!("token=5/d".parse::<LimitSettings>().is_err());
    }
}
