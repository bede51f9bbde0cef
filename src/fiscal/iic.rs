//! The issuer's security codes (PROTOCOL.md section 5): IIC for invoices, WTNIC for warehouse
//! transfer notes. Both sign a `|`-joined text with RSA-SHA256 and take the MD5 of the raw
//! signature bytes (not of its hex form, which divergent clients get wrong).

use openssl::hash::{MessageDigest, hash};

use super::Error;
use super::certificate::Certificate;

pub use crate::domain::verify::IicInput;

/// The fields a WTNIC covers.
#[derive(Debug, Clone, Copy)]
pub struct WtnicInput<'a> {
    pub nuis: &'a str,
    pub issue_date_time: &'a str,
    /// The WTN number as the caller decides to sign it: sources disagree between the ordinal
    /// and the full `WTNNum`, so it stays text.
    pub wtn_number: &'a str,
    pub business_unit_code: &'a str,
    pub soft_code: &'a str,
}

impl WtnicInput<'_> {
    /// `NUIS|IssueDateTime|WTN number|BU|Soft`.
    pub fn text(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}",
            self.nuis, self.issue_date_time, self.wtn_number, self.business_unit_code, self.soft_code
        )
    }
}

/// A code and the signature it was derived from, both upper-case hex (32 and 512 characters).
/// Used for the IIC and, with the same shape, the WTNIC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IicCode {
    pub iic: String,
    pub signature: String,
}

pub fn iic(signer: &Certificate, input: &IicInput) -> Result<IicCode, Error> {
    protection_code(signer, &input.text())
}

pub fn wtnic(signer: &Certificate, input: &WtnicInput) -> Result<IicCode, Error> {
    protection_code(signer, &input.text())
}

fn protection_code(signer: &Certificate, text: &str) -> Result<IicCode, Error> {
    let signature = signer.sign_sha256(text.as_bytes())?;
    let digest = hash(MessageDigest::md5(), &signature)?;
    Ok(IicCode { iic: upper_hex(&digest), signature: upper_hex(&signature) })
}

fn upper_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0F)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::testing::testvectors;

    fn example_signer() -> Certificate {
        let dir = testvectors();
        let key = std::fs::read(dir.join("iic-example-key.pem")).unwrap();
        let cert = std::fs::read(dir.join("example-selfsigned-cert.pem")).unwrap();
        Certificate::from_pem(&key, &cert).unwrap()
    }

    fn published_invoice() -> IicInput<'static> {
        IicInput {
            nuis: "I12345678I",
            issue_date_time: "2019-06-12T17:05:43+02:00",
            ord_num: 9952,
            business_unit_code: "bb123bb123",
            tcr_code: Some("cc123cc123"),
            soft_code: "ss123ss123",
            tot_price: "99.01",
        }
    }

    #[test]
    fn iic_text_matches_the_vector_file() {
        let expected = std::fs::read_to_string(testvectors().join("iic-input.txt")).unwrap();
        assert_eq!(published_invoice().text(), expected);
    }

    #[test]
    fn iic_text_without_tcr_keeps_an_empty_field() {
        let input = IicInput { tcr_code: None, ..published_invoice() };
        assert_eq!(input.text(), "I12345678I|2019-06-12T17:05:43+02:00|9952|bb123bb123||ss123ss123|99.01");
    }

    #[test]
    fn reproduces_the_published_iic() {
        let code = iic(&example_signer(), &published_invoice()).unwrap();
        assert_eq!(code.iic, "D04C13B4063D63A13B5D822A90178A7C");
        assert_eq!(
            code.signature,
            "404ADDB017B2DE49B0A51340A991130E670F08BC2BE854EEAAE9C3F41A2C98E1D70545690F0EFBD13511A38DB1E36E086DC253C3519E7DAF896A418BFAFCCE9836B0759B2E84713B25C39C040E35608AC85141A65D623454BAF4D0E04D69A8D77505879C1DB9552542309A110B8CB2B9885C2236C3C6D65E695DFA4CA7D6258BD9EB0749A9EE09DA237C4E1B8EE39C3CAD3E32A21F807DA0908192DADA3F9D55C4FEB3C100F97D5AA81CFE157E1A90059111E6DCD2F2AD3DB9AAA202D084144E60ADED38988C384012967EF47B548135804EF2F4542DD0971E11AA392F048836D1C7DF9014F507B79258FA9B43AA14E32196D6127FD8154C24CE0CB374677D20"
        );
    }

    #[test]
    fn reproduces_the_published_wtnic() {
        let input = WtnicInput {
            nuis: "I12345678I",
            issue_date_time: "2019-06-12T17:05:43+02:00",
            wtn_number: "9952",
            business_unit_code: "bb123bb123",
            soft_code: "ss123ss123",
        };
        let expected = std::fs::read_to_string(testvectors().join("wtnic-input.txt")).unwrap();
        assert_eq!(input.text(), expected);
        let code = wtnic(&example_signer(), &input).unwrap();
        assert_eq!(code.iic, "363350A9E21BC289253AAC9DC8C5E7E5");
        assert_eq!(
            code.signature,
            "7F3E538EFDEA77AE4DD7AE9E6E1C5EA4A6AF6951745C0BBAF67E032A461A3D7B6E213BC787C312343C282C335BDEF0413543AD117CBEAC2EA61FE32554C6C87880AE6279970D12C3C77D5C8CB045CAE6CFA4C904A4B09DCDC3E166C0246FEBE9E05E60B02A0AC05A7DCAAE40407FA7222CDB2BF2EB82F1917CAB4D1D6785B9A5A0D61825EFE9A778A04C04D0C75C09C41B7A1458FD2175E681239D5921AB8C65E5C213893FBBECB4F97153407398DD451A870929C471D7C7969AB1181E50B6CA3692C641994BF3AC1009C45B68F8879007DCBFD3576FD02B83745781A0AE1851EFC7416F3D3EA0D1E8EB01835D1B64931C6504AFD00BEFD84019CF994E9AF9AE"
        );
    }
}
