//! What a new password must be: long enough, not too long for its hash's cost, and not easy to
//! guess. "Easy to guess" is the bundled list of the 30,000 most common passwords (whole, or
//! around the digits and signs people add: "password12", "Dragon2024!") and the patterns those
//! lists are made of: a run of the keyboard or the alphabet ("1234567890", "qwertyuiop"), a few
//! characters repeated ("            ", "1212121212"), a word repeated, the e-mail itself.
//!
//! A strength estimator (the `zxcvbn` crate) was measured against this: 2.9 MB more binary and
//! about 8 MB more memory for its dictionaries, for a shop's box that sets a password a few times
//! a year. The list is 120 KB in the binary (DEFLATE) and costs memory only while a password is
//! checked.

/// The shortest password accepted: long enough that a stolen database's hashes are not worth
/// guessing at argon2id's cost.
pub const MIN_PASSWORD: usize = 10;
/// The longest: the hash's cost grows with it.
pub const MAX_PASSWORD: usize = 256;

/// Why a new password is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weakness {
    TooShort,
    TooLong,
    /// The e-mail, or the e-mail's name with digits and signs around it.
    TheEmail,
    /// On the list of the most common passwords, whole or around its digits and signs.
    Common,
    /// A keyboard or alphabet run, a few characters or one word repeated.
    Pattern,
}

/// Runs people type as passwords; a password inside one of them (or of one reversed) is refused.
const RUNS: [&str; 4] = [
    "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
    "01234567890123456789012345678901234567890",
    "qwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjklzxcvbnm",
    "1234567890qwertyuiopasdfghjklzxcvbnm",
];

/// Fewer different characters than this is a pattern, whatever its length.
const FEWEST_DISTINCT: usize = 5;

/// The password without what people put around a word: digits, spaces and signs at both ends.
fn core(lowered: &str) -> &str {
    lowered.trim_matches(|c: char| !c.is_alphabetic())
}

/// Whether `text` is one shorter piece said again and again ("monkeymonkey", "abcabcabc").
fn repeated(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    (1..n).filter(|unit| n.is_multiple_of(*unit)).any(|unit| chars.chunks(unit).all(|c| c == &chars[..unit]))
}

fn in_a_run(lowered: &str) -> bool {
    let reversed: String = lowered.chars().rev().collect();
    RUNS.iter().any(|run| run.contains(lowered) || run.contains(reversed.as_str()))
}

/// Whether `word` is a password of `common` (one a line, `#` lines aside).
fn listed(common: &str, word: &str) -> bool {
    !word.is_empty() && common.lines().any(|line| line == word && !line.starts_with('#'))
}

/// What is wrong with `password` as the new password of the user with `email`; `common` is the
/// list of the most common passwords, one a line, lowercased.
pub fn weakness(password: &str, email: &str, common: &str) -> Option<Weakness> {
    let length = password.chars().count();
    if length < MIN_PASSWORD {
        return Some(Weakness::TooShort);
    }
    if length > MAX_PASSWORD {
        return Some(Weakness::TooLong);
    }
    let lowered = password.trim().to_lowercase();
    let core = core(&lowered);
    let email = email.trim().to_lowercase();
    let name = email.split('@').next().unwrap_or_default();
    if lowered == email || (!core.is_empty() && (core == email || core == name)) {
        return Some(Weakness::TheEmail);
    }
    let mut distinct: Vec<char> = lowered.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < FEWEST_DISTINCT || in_a_run(&lowered) || repeated(&lowered) || repeated(core) {
        return Some(Weakness::Pattern);
    }
    if listed(common, &lowered) || listed(common, core) {
        return Some(Weakness::Common);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMON: &str = "# a header line\n123456\npassword\nqwerty\ndragon\nmonkey\npassword123\np@ssw0rd\n";

    #[test]
    fn the_common_and_the_guessable_are_refused_and_a_few_words_are_taken() {
        let table: &[(&str, Option<Weakness>)] = &[
            ("Kafe-e-mire-2024", None),
            ("kafe e mirë 2024", None),
            ("Besa-fjalekalim-1", None),
            ("Sandbox-owner-1", None),
            ("dyqani im i vogël", None),
            ("1234509876", None),
            ("short", Some(Weakness::TooShort)),
            ("         ", Some(Weakness::TooShort)),
            ("            ", Some(Weakness::Pattern)),
            ("1234567890", Some(Weakness::Pattern)),
            ("0987654321", Some(Weakness::Pattern)),
            ("qwertyuiop", Some(Weakness::Pattern)),
            ("abcdefghijkl", Some(Weakness::Pattern)),
            ("1212121212", Some(Weakness::Pattern)),
            ("aaaaaaaaaaaa", Some(Weakness::Pattern)),
            ("monkeymonkey", Some(Weakness::Pattern)),
            ("dragondragon7", Some(Weakness::Pattern)),
            ("password12", Some(Weakness::Common)),
            ("PASSWORD123", Some(Weakness::Common)),
            ("Password2024!", Some(Weakness::Common)),
            ("!!dragon2024", Some(Weakness::Common)),
            ("P@ssw0rd2024", Some(Weakness::Common)),
            ("ana@dyqani.al", Some(Weakness::TheEmail)),
            (" ANA@dyqani.al ", Some(Weakness::TheEmail)),
            ("ana2024!!!!", Some(Weakness::TheEmail)),
        ];
        for (password, expected) in table {
            assert_eq!(weakness(password, "ana@dyqani.al", COMMON), *expected, "{password:?}");
        }
        assert_eq!(weakness(&"x1".repeat(MAX_PASSWORD), "a@b.al", COMMON), Some(Weakness::TooLong));
    }

    #[test]
    fn a_header_line_is_no_password() {
        assert!(!listed(COMMON, "# a header line"));
        assert!(listed(COMMON, "dragon"));
        assert!(!listed(COMMON, ""));
    }
}
