//! The one way an enumeration is spelled as text: declared with `spelled!`, each value next to
//! its spelling, so the API, the database (`store::text_column!`) and the CIS's messages read and
//! write the same words and no list of values is kept twice.

/// An enumeration spelled as text.
pub trait Spelled: Copy + PartialEq + 'static {
    /// Every value, in the order declared.
    const ALL: &'static [Self];

    fn as_str(self) -> &'static str;

    /// The value spelled exactly `text` (what Arka wrote itself: a column, a stored choice).
    fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == text)
    }

    /// The value spelled `text` in any case, spaces around ignored (what a POS app sends: v1's
    /// COMPANY and v2's company, `banknote` for BANKNOTE).
    fn parse_any_case(text: &str) -> Option<Self> {
        let text = text.trim();
        Self::ALL.iter().copied().find(|v| v.as_str().eq_ignore_ascii_case(text))
    }
}

/// Declares an enumeration with the text of each value: `Variant = "TEXT"`. It gets `ALL` (in
/// the order declared), `as_str` and `parse` of its own, and implements `Spelled`; derives are
/// the caller's. Exported for the shop's own enumerations (the CIS's, the queue's).
#[doc(hidden)]
#[macro_export]
macro_rules! __spelled {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $name {
            /// Every value, in the order declared.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value spelled exactly `text` (`Spelled::parse`, callable without the trait).
            pub fn parse(text: &str) -> Option<$name> {
                <$name as $crate::domain::spelled::Spelled>::parse(text)
            }
        }

        impl $crate::domain::spelled::Spelled for $name {
            const ALL: &'static [Self] = &<$name>::ALL;

            fn as_str(self) -> &'static str {
                <$name>::as_str(self)
            }
        }
    };
}

pub use crate::__spelled as spelled;

#[cfg(test)]
mod tests {
    use super::*;

    spelled! {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Colour {
            Red = "RED",
            /// Documented values keep their documentation.
            DarkBlue = "DARK_BLUE",
        }
    }

    #[test]
    fn every_value_reads_back_from_its_spelling() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkBlue]);
        for c in Colour::ALL {
            assert_eq!(<Colour as Spelled>::parse(c.as_str()), Some(c));
        }
        assert_eq!(Colour::DarkBlue.as_str(), "DARK_BLUE");
    }

    #[test]
    fn parse_is_exact_and_parse_any_case_is_not() {
        assert_eq!(Colour::parse("red"), None);
        assert_eq!(Colour::parse("RED"), Some(Colour::Red));
        assert_eq!(<Colour as Spelled>::parse(" RED"), None);
        assert_eq!(Colour::parse_any_case(" red "), Some(Colour::Red));
        assert_eq!(Colour::parse_any_case("dark_blue"), Some(Colour::DarkBlue));
        assert_eq!(Colour::parse_any_case("blue"), None);
    }
}
