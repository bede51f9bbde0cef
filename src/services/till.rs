//! The till's use cases: each till's receipt printer (set by the owner, with a test print), a
//! receipt printed on it (the first with the drawer's pulse when paid in cash, every later one
//! a copy), and the shop's till settings.

use rust_decimal::Decimal;

use super::{Clash, Error, NotNow, Result, Till};
use crate::domain::payments::PaymentType;
use crate::domain::till::{self, TillSettings, TillSettingsInput};
use crate::domain::validation::FieldErrors;
use crate::printer::{self, Connection, Extras};
use crate::store::accounts::Caller;
use crate::store::devices::{self, Device};
use crate::store::till::{self as stored, Printer};

/// The port receipt printers listen on for raw ESC/POS.
pub const RAW_PORT: u16 = 9100;

/// What a printer body asks for.
#[derive(Debug, Clone)]
pub struct PrinterInput {
    /// `network`, `device`, or `none` (no printer: the till uses the PDF).
    pub connection: String,
    pub address: Option<String>,
    pub columns: Option<i64>,
}

/// A receipt that reached the printer.
#[derive(Debug, Clone, Copy)]
pub struct Printed {
    pub copy: bool,
    pub drawer: bool,
    pub bytes: usize,
}

/// The printer `input` asks for on `tcr_code`, or what it gets wrong (`None`: no printer).
fn printer_of(tcr_code: &str, input: &PrinterInput) -> std::result::Result<Option<Printer>, FieldErrors> {
    let address = input.address.as_deref().map(str::trim).unwrap_or_default();
    let connection = input.connection.trim();
    let address = match connection {
        "none" => return Ok(None),
        "network" => {
            let (host, port) = match address.rsplit_once(':') {
                Some((host, port)) if !host.ends_with(':') => (host, port.parse::<u16>().ok()),
                _ => (address, Some(RAW_PORT)),
            };
            let plain_host = !host.is_empty()
                && host.len() <= 253
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
            match port.filter(|p| *p > 0) {
                Some(port) if plain_host => format!("{host}:{port}"),
                _ => {
                    return Err(FieldErrors::one(
                        "address",
                        "The printer's address is host:port, e.g. 192.168.1.50:9100.",
                    ));
                }
            }
        }
        "device" => {
            if !address.starts_with("/dev/") || address.contains("..") || address.len() > 200 {
                return Err(FieldErrors::one(
                    "address",
                    "The printer's device file is under /dev/, e.g. /dev/usb/lp0.",
                ));
            }
            address.to_string()
        }
        _ => return Err(FieldErrors::one("connection", "The connection is network, device or none.")),
    };
    let columns = input.columns.unwrap_or(48);
    if columns != 48 && columns != 42 {
        return Err(FieldErrors::one("columns", "A receipt printer prints 48 or 42 columns."));
    }
    Ok(Some(Printer { tcr_code: tcr_code.to_string(), connection: connection.to_string(), address, columns }))
}

fn connection(p: &Printer) -> Connection {
    if p.connection == "device" {
        Connection::Device(p.address.clone())
    } else {
        Connection::Network(p.address.clone())
    }
}

fn printer_trouble(e: printer::Error) -> Error {
    tracing::warn!(error = %crate::error_chain(&e), "a receipt did not reach the printer");
    Error::Unavailable(NotNow::Printer(e))
}

impl Till<'_> {
    /// The company's tills, each with its printer (`None`: the till prints PDFs).
    pub async fn till_printers(&self, caller: &Caller) -> Result<Vec<(Device, Option<Printer>)>> {
        let company_id = caller.company.id;
        Ok(self
            .services
            .store
            .read(move |c| {
                let printers = stored::printers(c, company_id)?;
                Ok(devices::of_company(c, company_id)?
                    .into_iter()
                    .map(|d| {
                        let p = printers.iter().find(|p| p.tcr_code == d.tcr_code).cloned();
                        (d, p)
                    })
                    .collect())
            })
            .await?)
    }

    /// The printer of the caller's own till, if it has one.
    pub async fn my_printer(&self, caller: &Caller) -> Result<Option<Printer>> {
        let Some(tcr_code) = caller.user.tcr_code.clone() else {
            return Ok(None);
        };
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |c| stored::printer(c, company_id, &tcr_code)).await?)
    }

    async fn device(&self, caller: &Caller, tcr_code: &str) -> Result<Device> {
        let (company_id, code) = (caller.company.id, tcr_code.to_string());
        self.services
            .store
            .read(move |c| devices::by_code(c, company_id, &code))
            .await?
            .ok_or_else(|| Error::NotFound(format!("till {tcr_code}")))
    }

    /// The owner sets (or, with `none`, takes away) the printer of the till `tcr_code`.
    pub async fn set_till_printer(
        &self,
        caller: &Caller,
        tcr_code: &str,
        input: PrinterInput,
    ) -> Result<Option<Printer>> {
        let device = self.device(caller, tcr_code).await?;
        let printer = printer_of(&device.tcr_code, &input)?;
        let (company_id, saved) = (caller.company.id, printer.clone());
        self.services
            .store
            .write(move |tx| match &saved {
                Some(p) => stored::save_printer(tx, company_id, p),
                None => stored::remove_printer(tx, company_id, &device.tcr_code),
            })
            .await?;
        Ok(printer)
    }

    /// A test page on the printer of `tcr_code`. Returns the bytes sent.
    pub async fn test_print(&self, caller: &Caller, tcr_code: &str) -> Result<usize> {
        let device = self.device(caller, tcr_code).await?;
        let company_id = caller.company.id;
        let code = device.tcr_code.clone();
        let printer = self
            .services
            .store
            .read(move |c| stored::printer(c, company_id, &code))
            .await?
            .ok_or_else(|| Error::Clash(Clash::NoPrinterFor { tcr_code: tcr_code.to_string() }))?;
        let title = format!("Arka: {} ({})", device.name, device.tcr_code);
        let bytes = printer::test_page(&title, usize::try_from(printer.columns).unwrap_or(48));
        let sent = bytes.len();
        printer::send(&connection(&printer), bytes).await.map_err(printer_trouble)?;
        Ok(sent)
    }

    /// Prints the receipt of `invoice_id` on the caller's till's printer (else the invoice's
    /// till's). The first print of a sale paid in cash opens the drawer; a receipt printed
    /// before is marked as a copy. `tendered`: the cash handed over, printed with the change.
    pub async fn print_receipt(
        &self,
        caller: &Caller,
        invoice_id: i64,
        tendered: Option<Decimal>,
    ) -> Result<Printed> {
        // One read for the invoice, the till's printer and whether it printed before: a sale's
        // receipt waits for the blocking pool once.
        let company_id = caller.company.id;
        let own_till = caller.user.tcr_code.clone();
        let (invoice, printer, copy) = self
            .services
            .store
            .read(move |c| {
                let Some(invoice) = crate::store::invoices::get(c, company_id, invoice_id)? else {
                    return Ok(None);
                };
                let printer = match own_till.as_deref().or(invoice.tcr_code.as_deref()) {
                    Some(tcr_code) => stored::printer(c, company_id, tcr_code)?,
                    None => None,
                };
                Ok(Some((invoice, printer, stored::printed_before(c, invoice_id)?)))
            })
            .await?
            .ok_or_else(|| Error::NotFound("Invoice".into()))?;
        super::invoices::readable(caller, invoice.tcr_code.as_deref(), invoice.user_id)?;
        let printer = printer.ok_or(Error::Clash(Clash::NoPrinter))?;
        let cash = invoice.payments.iter().any(|p| p.kind == PaymentType::Banknote);
        let extras =
            Extras { copy, open_drawer: cash && !copy, tendered: tendered.filter(|_| cash && !copy) };
        let printable = super::invoices::print::printable(caller, &invoice);
        let bytes = printer::render(&printable, usize::try_from(printer.columns).unwrap_or(48), &extras);
        let sent = bytes.len();
        printer::send(&connection(&printer), bytes).await.map_err(printer_trouble)?;
        let copy = self.services.store.write(move |tx| stored::note_print(tx, invoice_id)).await?;
        Ok(Printed { copy, drawer: extras.open_drawer, bytes: sent })
    }

    pub async fn till_settings(&self, caller: &Caller) -> Result<TillSettings> {
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |c| stored::settings(c, company_id)).await?)
    }

    /// The owner changes the scale's layout or the cashiers' discount limit.
    pub async fn update_till_settings(
        &self,
        caller: &Caller,
        input: TillSettingsInput,
    ) -> Result<TillSettings> {
        let company_id = caller.company.id;
        self.services
            .store
            .write(move |tx| {
                let next = till::settings(&stored::settings(tx, company_id)?, &input)?;
                stored::save_settings(tx, company_id, &next)?;
                Ok(next)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(connection: &str, address: Option<&str>, columns: Option<i64>) -> PrinterInput {
        PrinterInput { connection: connection.into(), address: address.map(Into::into), columns }
    }

    #[test]
    fn a_printer_is_on_the_network_or_a_device_file_with_48_or_42_columns() {
        let made = |i| printer_of("ab123ab123", &i).map(|p| p.map(|p| (p.address, p.columns)));
        assert_eq!(
            made(input("network", Some("192.168.1.50"), None)),
            Ok(Some(("192.168.1.50:9100".into(), 48)))
        );
        assert_eq!(
            made(input("network", Some("kasa.local:9101"), Some(42))),
            Ok(Some(("kasa.local:9101".into(), 42)))
        );
        assert_eq!(made(input("device", Some("/dev/usb/lp0"), None)), Ok(Some(("/dev/usb/lp0".into(), 48))));
        assert_eq!(made(input("none", None, None)), Ok(None));
        for (bad, field) in [
            (input("network", Some("a b:9100"), None), "address"),
            (input("network", Some("printer:0"), None), "address"),
            (input("device", Some("/etc/passwd"), None), "address"),
            (input("device", Some("/dev/../etc/passwd"), None), "address"),
            (input("network", Some("192.168.1.50"), Some(40)), "columns"),
            (input("bluetooth", None, None), "connection"),
        ] {
            let refused = made(bad).unwrap_err();
            assert!(refused.fields().contains(field), "{refused:?}");
        }
    }
}
