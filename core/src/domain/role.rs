//! Who may do what: the three roles of a company's users, and the rules that depend on whom an
//! action touches (another user, a sale, a till). The lowest role of each route is the table in
//! `api::permissions`; these are the scope rules the services apply on top of it.

use std::fmt;

use chrono::NaiveDate;

/// A user's role. Ordered: an owner may do everything a manager may, a manager everything a
/// cashier may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Sells and takes money in and out of their own till; reads their own till's documents.
    Cashier,
    /// Corrects and looks back: cancellations, the catalog, reports, cashiers.
    Manager,
    /// Changes who may do what, and the company's settings.
    Owner,
}

impl Role {
    /// Highest first, as lists show them.
    pub const ALL: [Role; 3] = [Role::Owner, Role::Manager, Role::Cashier];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Manager => "manager",
            Role::Cashier => "cashier",
        }
    }

    /// The role named exactly `text` (lowercase, as stored and as the API spells it).
    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a rule of this module refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Beyond the caller's role (403), with what to do instead.
    Forbidden(&'static str),
    /// The change would leave the company without an owner whose access works (409 on `role`).
    LastOwner,
}

/// The role a new user gets: the one asked for, else a cashier; and whether `caller` may give it.
pub fn role_of_new_user(caller: Role, asked: Option<Role>) -> Result<Role, Refusal> {
    let role = asked.unwrap_or(Role::Cashier);
    match caller {
        Role::Owner => Ok(role),
        Role::Manager if role == Role::Cashier => Ok(role),
        Role::Manager => Err(Refusal::Forbidden("Only an owner can create managers and owners.")),
        Role::Cashier => Err(Refusal::Forbidden("Only an owner or a manager can create users.")),
    }
}

/// One user about to be changed.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub is_caller: bool,
    pub role: Role,
    /// The user's access works (not revoked).
    pub works: bool,
    /// The company's owners whose access works, this user included when they are one.
    pub working_owners: u32,
}

/// Whether `caller` may change `target`'s fields and give them `new_role` (`None`: kept). An
/// owner changes anyone; a manager changes cashiers, and themselves, never a role upward; an
/// owner's demotion leaves at least one owner who can act: one whose access works (a revoked
/// owner counts for nothing, so the last working owner stays whatever the revoked ones).
pub fn may_update_user(caller: Role, target: Target, new_role: Option<Role>) -> Result<(), Refusal> {
    let changes_role = new_role.is_some_and(|r| r != target.role);
    match caller {
        Role::Owner => {
            if changes_role && target.role == Role::Owner && target.works && target.working_owners <= 1 {
                return Err(Refusal::LastOwner);
            }
            Ok(())
        }
        Role::Manager if changes_role => Err(Refusal::Forbidden("Only an owner can change a user's role.")),
        Role::Manager if target.role == Role::Cashier || target.is_caller => Ok(()),
        Role::Manager => Err(Refusal::Forbidden("A manager changes cashiers and themselves; ask an owner.")),
        Role::Cashier => Err(Refusal::Forbidden("Only an owner or a manager can change users.")),
    }
}

/// Whether an owner may revoke `target`'s token: the company keeps at least one owner whose
/// token works. `working_owner_tokens` counts this user's too when they are such an owner.
pub fn may_revoke_token(target: Role, token_works: bool, working_owner_tokens: u32) -> Result<(), Refusal> {
    if target == Role::Owner && token_works && working_owner_tokens <= 1 {
        return Err(Refusal::LastOwner);
    }
    Ok(())
}

/// A document as far as who may see it: its till, and the user who issued it.
#[derive(Debug, Clone, Copy)]
pub struct DocumentScope<'a> {
    pub tcr_code: Option<&'a str>,
    pub user_id: Option<i64>,
}

/// The caller as far as scope goes.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a> {
    pub role: Role,
    pub user_id: i64,
    pub tcr_code: Option<&'a str>,
}

/// A cashier reads the documents of their own till and those they issued themselves (a
/// non-cash invoice or a transfer note has no till); a manager or an owner reads them all.
pub fn may_read_document(reader: Reader, document: DocumentScope) -> bool {
    if reader.role >= Role::Manager {
        return true;
    }
    let own_till = matches!((reader.tcr_code, document.tcr_code), (Some(mine), Some(its)) if mine == its);
    own_till || document.user_id == Some(reader.user_id)
}

/// A manager takes back any sale, a cashier their own on the business day it was made; `refusal`
/// says what else to do.
fn may_take_back(
    reader: Reader,
    sale_user: Option<i64>,
    sale_day: NaiveDate,
    today: NaiveDate,
    refusal: &'static str,
) -> Result<(), Refusal> {
    if reader.role >= Role::Manager || (sale_user == Some(reader.user_id) && sale_day == today) {
        return Ok(());
    }
    Err(Refusal::Forbidden(refusal))
}

/// A cashier cancels only their own sales, on the business day they were made; anything else
/// is a manager's.
pub fn may_cancel(
    reader: Reader,
    sale_user: Option<i64>,
    sale_day: NaiveDate,
    today: NaiveDate,
) -> Result<(), Refusal> {
    let refusal =
        "A cashier cancels only their own sales of the same business day; a manager can cancel this one.";
    may_take_back(reader, sale_user, sale_day, today, refusal)
}

/// A document that corrects another (a credit or debit note, an e-invoice of a correction
/// process) follows the cancellation's rule: it takes money back or asks for more on a sale.
pub fn may_correct(
    reader: Reader,
    sale_user: Option<i64>,
    sale_day: NaiveDate,
    today: NaiveDate,
) -> Result<(), Refusal> {
    let refusal = "A cashier corrects only their own invoices of the same business day; a manager can correct this one.";
    may_take_back(reader, sale_user, sale_day, today, refusal)
}

/// The till a report of tills is for: a cashier's is always their own (another one asked for,
/// or no till at all, is refused); a manager's or an owner's is the one asked for, if any.
pub fn till_of_report<'a>(reader: Reader<'a>, asked: Option<&'a str>) -> Result<Option<&'a str>, Refusal> {
    if reader.role >= Role::Manager {
        return Ok(asked);
    }
    match (reader.tcr_code, asked) {
        (None, _) => {
            Err(Refusal::Forbidden("A cashier reads the report of their own till, and this user has none."))
        }
        (Some(mine), Some(other)) if other != mine => {
            Err(Refusal::Forbidden("A cashier reads the report of their own till only."))
        }
        (Some(mine), _) => Ok(Some(mine)),
    }
}

/// The till a cash-register action acts on: the caller's own, or the one named (`tcr`). A
/// cashier acts on their own till only; a manager or an owner picks any till of the company
/// (the service checks it is one), so two tills never fall back on whichever was registered
/// last. `None`: no till named and none of one's own.
pub fn till_to_act_on<'a>(reader: Reader<'a>, asked: Option<&'a str>) -> Result<Option<&'a str>, Refusal> {
    match (asked, reader.tcr_code) {
        (None, own) => Ok(own),
        (Some(other), _) if reader.role >= Role::Manager => Ok(Some(other)),
        (Some(other), Some(mine)) if other == mine => Ok(Some(mine)),
        (Some(_), _) => Err(Refusal::Forbidden(
            "A cashier acts on their own till only; a manager or an owner may name another.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 3, d).unwrap()
    }

    fn target(role: Role, working_owners: u32) -> Target {
        Target { is_caller: false, role, works: true, working_owners }
    }

    #[test]
    fn a_manager_or_an_owner_picks_the_till_a_cashier_acts_on_their_own() {
        let reader = |role, tcr_code| Reader { user_id: 1, role, tcr_code };
        let refused = Err(Refusal::Forbidden(
            "A cashier acts on their own till only; a manager or an owner may name another.",
        ));
        // | role    | own till | asked | acts on  |
        assert_eq!(till_to_act_on(reader(Role::Cashier, Some("a1")), None), Ok(Some("a1")));
        assert_eq!(till_to_act_on(reader(Role::Cashier, Some("a1")), Some("a1")), Ok(Some("a1")));
        assert_eq!(till_to_act_on(reader(Role::Cashier, Some("a1")), Some("b2")), refused);
        assert_eq!(till_to_act_on(reader(Role::Cashier, None), Some("b2")), refused);
        assert_eq!(till_to_act_on(reader(Role::Cashier, None), None), Ok(None));
        assert_eq!(till_to_act_on(reader(Role::Manager, Some("a1")), Some("b2")), Ok(Some("b2")));
        assert_eq!(till_to_act_on(reader(Role::Owner, None), Some("b2")), Ok(Some("b2")));
        assert_eq!(till_to_act_on(reader(Role::Owner, Some("a1")), None), Ok(Some("a1")));
        assert_eq!(till_to_act_on(reader(Role::Owner, None), None), Ok(None));
    }

    #[test]
    fn roles_are_ordered_and_spelled_as_stored() {
        assert!(Role::Owner > Role::Manager && Role::Manager > Role::Cashier);
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("Owner"), None);
        assert_eq!(Role::parse("admin"), None);
    }

    #[test]
    fn a_new_user_is_a_cashier_unless_an_owner_says_otherwise() {
        assert_eq!(role_of_new_user(Role::Owner, None), Ok(Role::Cashier));
        assert_eq!(role_of_new_user(Role::Owner, Some(Role::Owner)), Ok(Role::Owner));
        assert_eq!(role_of_new_user(Role::Manager, None), Ok(Role::Cashier));
        assert_eq!(role_of_new_user(Role::Manager, Some(Role::Cashier)), Ok(Role::Cashier));
        assert!(matches!(role_of_new_user(Role::Manager, Some(Role::Manager)), Err(Refusal::Forbidden(_))));
        assert!(matches!(role_of_new_user(Role::Cashier, None), Err(Refusal::Forbidden(_))));
    }

    #[test]
    fn only_an_owner_changes_roles_and_the_last_owner_stays() {
        assert_eq!(may_update_user(Role::Owner, target(Role::Cashier, 1), Some(Role::Owner)), Ok(()));
        assert_eq!(may_update_user(Role::Owner, target(Role::Owner, 2), Some(Role::Manager)), Ok(()));
        assert_eq!(
            may_update_user(
                Role::Owner,
                Target { is_caller: true, role: Role::Owner, works: true, working_owners: 1 },
                Some(Role::Cashier)
            ),
            Err(Refusal::LastOwner)
        );
        let revoked_owner = Target { is_caller: false, role: Role::Owner, works: false, working_owners: 1 };
        assert_eq!(
            may_update_user(Role::Owner, revoked_owner, Some(Role::Manager)),
            Ok(()),
            "a revoked owner is no working owner: demoting them leaves the working one"
        );
        assert_eq!(may_update_user(Role::Owner, target(Role::Owner, 1), Some(Role::Owner)), Ok(()));
        assert_eq!(may_update_user(Role::Owner, target(Role::Owner, 1), None), Ok(()));
        assert_eq!(may_update_user(Role::Manager, target(Role::Cashier, 1), None), Ok(()));
        assert_eq!(may_update_user(Role::Manager, target(Role::Cashier, 1), Some(Role::Cashier)), Ok(()));
        assert!(matches!(
            may_update_user(Role::Manager, target(Role::Cashier, 1), Some(Role::Manager)),
            Err(Refusal::Forbidden(_))
        ));
        assert!(matches!(
            may_update_user(Role::Manager, target(Role::Manager, 1), None),
            Err(Refusal::Forbidden(_))
        ));
        assert!(matches!(
            may_update_user(Role::Manager, target(Role::Owner, 1), None),
            Err(Refusal::Forbidden(_))
        ));
        let me = Target { is_caller: true, role: Role::Manager, works: true, working_owners: 1 };
        assert_eq!(may_update_user(Role::Manager, me, None), Ok(()));
        assert_eq!(may_update_user(Role::Manager, me, Some(Role::Manager)), Ok(()));
        assert!(matches!(may_update_user(Role::Manager, me, Some(Role::Owner)), Err(Refusal::Forbidden(_))));
        assert!(matches!(
            may_update_user(Role::Cashier, target(Role::Cashier, 1), None),
            Err(Refusal::Forbidden(_))
        ));
    }

    #[test]
    fn the_last_working_owner_token_is_not_revoked() {
        assert_eq!(may_revoke_token(Role::Owner, true, 1), Err(Refusal::LastOwner));
        assert_eq!(may_revoke_token(Role::Owner, true, 2), Ok(()));
        assert_eq!(may_revoke_token(Role::Owner, false, 1), Ok(()));
        assert_eq!(may_revoke_token(Role::Manager, true, 1), Ok(()));
    }

    #[test]
    fn a_cashier_reads_their_till_and_what_they_issued() {
        let cashier = Reader { role: Role::Cashier, user_id: 7, tcr_code: Some("tc001tc001") };
        let doc = |tcr_code, user_id| DocumentScope { tcr_code, user_id };
        assert!(may_read_document(cashier, doc(Some("tc001tc001"), Some(3))));
        assert!(may_read_document(cashier, doc(None, Some(7))));
        assert!(!may_read_document(cashier, doc(Some("tc002tc002"), Some(3))));
        assert!(!may_read_document(cashier, doc(None, Some(3))));
        assert!(!may_read_document(cashier, doc(None, None)));
        let no_till = Reader { tcr_code: None, ..cashier };
        assert!(!may_read_document(no_till, doc(None, None)));
        assert!(may_read_document(Reader { role: Role::Manager, ..no_till }, doc(Some("tc002tc002"), None)));
    }

    #[test]
    fn a_cashier_cancels_only_their_own_sales_of_the_day() {
        let cashier = Reader { role: Role::Cashier, user_id: 7, tcr_code: Some("tc001tc001") };
        assert_eq!(may_cancel(cashier, Some(7), day(5), day(5)), Ok(()));
        assert!(may_cancel(cashier, Some(7), day(4), day(5)).is_err());
        assert!(may_cancel(cashier, Some(8), day(5), day(5)).is_err());
        assert!(may_cancel(cashier, None, day(5), day(5)).is_err());
        assert_eq!(may_cancel(Reader { role: Role::Manager, ..cashier }, Some(8), day(1), day(5)), Ok(()));
        assert_eq!(may_correct(cashier, Some(7), day(5), day(5)), Ok(()));
        assert!(may_correct(cashier, Some(8), day(5), day(5)).is_err());
        assert!(may_correct(cashier, Some(7), day(4), day(5)).is_err());
        assert_eq!(may_correct(Reader { role: Role::Owner, ..cashier }, None, day(1), day(5)), Ok(()));
    }

    #[test]
    fn a_cashier_reads_the_report_of_their_own_till() {
        let cashier = Reader { role: Role::Cashier, user_id: 7, tcr_code: Some("tc001tc001") };
        assert_eq!(till_of_report(cashier, None), Ok(Some("tc001tc001")));
        assert_eq!(till_of_report(cashier, Some("tc001tc001")), Ok(Some("tc001tc001")));
        assert!(till_of_report(cashier, Some("tc002tc002")).is_err());
        assert!(till_of_report(Reader { tcr_code: None, ..cashier }, None).is_err());
        let manager = Reader { role: Role::Manager, ..cashier };
        assert_eq!(till_of_report(manager, None), Ok(None));
        assert_eq!(till_of_report(manager, Some("tc002tc002")), Ok(Some("tc002tc002")));
    }
}
