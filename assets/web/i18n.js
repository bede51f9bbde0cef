// The page's words, Albanian first and English on the switch. A missing key shows itself, so a
// forgotten translation is seen at once.

const words = {
  sq: {
    skip: 'Kalo te përmbajtja',
    'nav.today': 'Sot', 'nav.cis': 'Tatimet (CIS)', 'nav.invoices': 'Faturat', 'nav.reports': 'Raportet',
    signout: 'Dil', close: 'Mbyll', cancel: 'Anulo', confirm: 'Konfirmo', loading: 'Duke ngarkuar…',
    'signin.title': 'Hyni',
    'signin.help': 'Ngjitni tokenin e përdoruesit (api_token). Ai ruhet vetëm në këtë skedë të shfletuesit.',
    'signin.token': 'Tokeni', 'signin.submit': 'Hyr',
    'signin.wrong': 'Tokeni nuk u pranua.', 'signedout': 'Dolët.',
    'error.network': 'Arka nuk po përgjigjet.', 'error.server': 'Gabim në server.',
    'error.throttled': 'Shumë kërkesa: provoni pas pak.',
    'today.title': 'Sot', 'today.sales': 'Shitjet', 'today.receipts': 'Fatura',
    'today.waiting': 'në pritje të CIS', 'today.byTill': 'Shitjet sipas arkës dhe mënyrës së pagesës',
    'today.till': 'Arka', 'today.total': 'Gjithsej', 'today.noncash': 'Pa para në dorë (pa arkë)',
    'today.cash': 'Arkat', 'today.balance': 'Gjendja', 'today.day': 'Dita', 'today.mine': 'arka juaj',
    'day.open': 'E hapur', 'day.closed': 'E mbyllur', 'day.not_opened': 'E pahapur',
    'day.since': 'nga', 'day.closedAt': 'mbyllur më',
    'day.actions': 'Arka juaj', 'day.noTill': 'Përdoruesi juaj nuk ka arkë (TCR): veprimet e arkës nuk janë të mundshme.',
    'day.openAmount': 'Shuma fillestare', 'day.openDay': 'Hap ditën',
    'day.amount': 'Shuma', 'day.description': 'Përshkrimi', 'day.deposit': 'Fut para', 'day.withdraw': 'Nxirr para',
    'day.counted': 'Paratë e numëruara', 'day.closeDay': 'Mbyll ditën',
    'day.closeTitle': 'Mbyllja e ditës', 'day.expected': 'Pritet', 'day.difference': 'Diferenca',
    'day.closedDone': 'Dita u mbyll.', 'day.opened': 'Dita u hap.', 'day.deposited': 'Paratë u futën.',
    'day.withdrawn': 'Paratë u nxorën.', 'day.pending': 'në pritje të CIS',
    'day.opening': 'Hapja', 'day.cashSales': 'Shitjet me para në dorë', 'day.deposits': 'Futjet',
    'day.withdrawals': 'Nxjerrjet', 'day.withdrawnAtClose': 'Nxjerrë në mbyllje',
    'cis.title': 'Lidhja me tatimet (CIS)', 'cis.online': 'Në linjë', 'cis.offline': 'Jashtë linje',
    'cis.since': 'që prej', 'cis.waiting': 'Dokumente në pritje', 'cis.oldest': 'Më i vjetri',
    'cis.hours': 'orë', 'cis.nearLimit': 'Afër afatit ligjor prej 48 orësh',
    'cis.refused': 'Të refuzuara nga CIS', 'cis.reason': 'Arsyeja', 'cis.none': 'Asnjë.',
    'cis.document': 'Dokumenti', 'cis.number': 'Numri', 'cis.issued': 'Lëshuar', 'cis.age': 'Mosha (orë)',
    'cis.attempts': 'Përpjekje', 'cis.lastError': 'Gabimi i fundit', 'cis.tcr': 'Arka',
    'cert.title': 'Certifikata', 'cert.expires': 'Skadon më', 'cert.none': 'Nuk është ngarkuar asnjë certifikatë.',
    'cert.soon': 'Certifikata skadon së shpejti: ngarkoni një të re.',
    'inv.title': 'Faturat', 'inv.search': 'Kërko (numër, blerës, NIPT)', 'inv.type': 'Lloji',
    'inv.all': 'Të gjitha', 'inv.cash': 'Me para në dorë', 'inv.noncash': 'Pa para në dorë',
    'inv.from': 'Nga', 'inv.to': 'Deri', 'inv.apply': 'Kërko', 'inv.number': 'Numri', 'inv.date': 'Data',
    'inv.buyer': 'Blerësi', 'inv.nipt': 'NIPT', 'inv.gross': 'Totali', 'inv.fic': 'NIVF',
    'inv.pending': 'në pritje', 'inv.reversed': 'anuluar', 'inv.none': 'Asnjë faturë.',
    'inv.prev': 'Më parë', 'inv.next': 'Më tej', 'inv.details': 'Fatura', 'inv.lines': 'Artikujt',
    'inv.product': 'Artikulli', 'inv.quantity': 'Sasia', 'inv.price': 'Çmimi', 'inv.vat': 'TVSH %',
    'inv.total': 'Totali', 'inv.net': 'Pa TVSH', 'inv.vatAmount': 'TVSH', 'inv.payment': 'Pagesa',
    'inv.a4': 'PDF A4', 'inv.receipt': 'Kupon (80 mm)', 'inv.openPdf': 'Hape në skedë të re',
    'inv.cancel': 'Anulo faturën', 'inv.cancelAsk': 'Të anulohet e gjithë fatura? Krijohet një dokument korrigjues në CIS.',
    'inv.cancelled': 'Fatura u anulua: dokumenti korrigjues', 'inv.cancelMissing': 'Anulimi nuk ofrohet ende nga ky server.',
    'inv.walkin': 'Klient pa emër', 'inv.iic': 'NSLF', 'inv.operator': 'Operatori',
    'rep.title': 'Raportet', 'rep.from': 'Nga', 'rep.to': 'Deri', 'rep.show': 'Shfaq',
    'rep.today': 'Sot', 'rep.week': 'Kjo javë', 'rep.month': 'Ky muaj', 'rep.lastMonth': 'Muaji i kaluar',
    'rep.summary': 'Përmbledhja e shitjeve', 'rep.vat': 'TVSH', 'rep.trend': 'Shitjet ditë pas dite',
    'rep.csv': 'Shkarko CSV', 'rep.missing': 'Ky raport nuk ofrohet ende nga ky server.',
    'rep.empty': 'Asnjë e dhënë për këtë periudhë.',
    'pm.BANKNOTE': 'Para në dorë', 'pm.CARD': 'Kartë', 'pm.CHECK': 'Çek', 'pm.SVOUCHER': 'Kupon',
    'pm.COMPANY': 'Kartë e kompanisë', 'pm.ORDER': 'Porosi', 'pm.ACCOUNT': 'Llogari', 'pm.TRANSFER': 'Transfertë',
  },
  en: {
    skip: 'Skip to content',
    'nav.today': 'Today', 'nav.cis': 'Tax office (CIS)', 'nav.invoices': 'Invoices', 'nav.reports': 'Reports',
    signout: 'Sign out', close: 'Close', cancel: 'Cancel', confirm: 'Confirm', loading: 'Loading…',
    'signin.title': 'Sign in',
    'signin.help': "Paste the user's token (api_token). It is kept in this browser tab only.",
    'signin.token': 'Token', 'signin.submit': 'Sign in',
    'signin.wrong': 'The token was not accepted.', 'signedout': 'Signed out.',
    'error.network': 'Arka is not answering.', 'error.server': 'Server error.',
    'error.throttled': 'Too many requests: try again shortly.',
    'today.title': 'Today', 'today.sales': 'Sales', 'today.receipts': 'Receipts',
    'today.waiting': 'waiting for the CIS', 'today.byTill': 'Sales by till and payment method',
    'today.till': 'Till', 'today.total': 'Total', 'today.noncash': 'Non-cash (no till)',
    'today.cash': 'Tills', 'today.balance': 'Balance', 'today.day': 'Day', 'today.mine': 'your till',
    'day.open': 'Open', 'day.closed': 'Closed', 'day.not_opened': 'Not opened',
    'day.since': 'since', 'day.closedAt': 'closed at',
    'day.actions': 'Your till', 'day.noTill': 'Your user has no till (TCR): cash actions are not possible.',
    'day.openAmount': 'Initial amount', 'day.openDay': 'Open the day',
    'day.amount': 'Amount', 'day.description': 'Description', 'day.deposit': 'Deposit', 'day.withdraw': 'Withdraw',
    'day.counted': 'Counted cash', 'day.closeDay': 'Close the day',
    'day.closeTitle': 'Closing the day', 'day.expected': 'Expected', 'day.difference': 'Difference',
    'day.closedDone': 'The day is closed.', 'day.opened': 'The day is open.', 'day.deposited': 'Deposited.',
    'day.withdrawn': 'Withdrawn.', 'day.pending': 'waiting for the CIS',
    'day.opening': 'Opening', 'day.cashSales': 'Cash sales', 'day.deposits': 'Deposits',
    'day.withdrawals': 'Withdrawals', 'day.withdrawnAtClose': 'Withdrawn at closing',
    'cis.title': 'Connection to the tax office (CIS)', 'cis.online': 'Online', 'cis.offline': 'Offline',
    'cis.since': 'since', 'cis.waiting': 'Documents waiting', 'cis.oldest': 'Oldest',
    'cis.hours': 'hours', 'cis.nearLimit': 'Near the 48-hour legal limit',
    'cis.refused': 'Refused by the CIS', 'cis.reason': 'Reason', 'cis.none': 'None.',
    'cis.document': 'Document', 'cis.number': 'Number', 'cis.issued': 'Issued', 'cis.age': 'Age (hours)',
    'cis.attempts': 'Attempts', 'cis.lastError': 'Last error', 'cis.tcr': 'Till',
    'cert.title': 'Certificate', 'cert.expires': 'Expires on', 'cert.none': 'No certificate has been uploaded.',
    'cert.soon': 'The certificate expires soon: upload a new one.',
    'inv.title': 'Invoices', 'inv.search': 'Search (number, buyer, NIPT)', 'inv.type': 'Type',
    'inv.all': 'All', 'inv.cash': 'Cash', 'inv.noncash': 'Non-cash',
    'inv.from': 'From', 'inv.to': 'To', 'inv.apply': 'Search', 'inv.number': 'Number', 'inv.date': 'Date',
    'inv.buyer': 'Buyer', 'inv.nipt': 'NIPT', 'inv.gross': 'Total', 'inv.fic': 'FIC',
    'inv.pending': 'pending', 'inv.reversed': 'cancelled', 'inv.none': 'No invoices.',
    'inv.prev': 'Previous', 'inv.next': 'Next', 'inv.details': 'Invoice', 'inv.lines': 'Lines',
    'inv.product': 'Item', 'inv.quantity': 'Quantity', 'inv.price': 'Price', 'inv.vat': 'VAT %',
    'inv.total': 'Total', 'inv.net': 'Net', 'inv.vatAmount': 'VAT', 'inv.payment': 'Payment',
    'inv.a4': 'PDF A4', 'inv.receipt': 'Receipt (80 mm)', 'inv.openPdf': 'Open in a new tab',
    'inv.cancel': 'Cancel the invoice', 'inv.cancelAsk': 'Cancel the whole invoice? A corrective document is registered with the CIS.',
    'inv.cancelled': 'The invoice is cancelled: corrective document', 'inv.cancelMissing': 'This server does not offer cancellation yet.',
    'inv.walkin': 'Walk-in customer', 'inv.iic': 'IIC', 'inv.operator': 'Operator',
    'rep.title': 'Reports', 'rep.from': 'From', 'rep.to': 'To', 'rep.show': 'Show',
    'rep.today': 'Today', 'rep.week': 'This week', 'rep.month': 'This month', 'rep.lastMonth': 'Last month',
    'rep.summary': 'Sales summary', 'rep.vat': 'VAT', 'rep.trend': 'Sales day by day',
    'rep.csv': 'Download CSV', 'rep.missing': 'This server does not offer this report yet.',
    'rep.empty': 'No data for this period.',
    'pm.BANKNOTE': 'Cash', 'pm.CARD': 'Card', 'pm.CHECK': 'Cheque', 'pm.SVOUCHER': 'Voucher',
    'pm.COMPANY': 'Company card', 'pm.ORDER': 'Order', 'pm.ACCOUNT': 'On account', 'pm.TRANSFER': 'Transfer',
  },
};

const KEY = 'arka.lang';
let lang = localStorage.getItem(KEY) === 'en' ? 'en' : 'sq';

export function language() {
  return lang;
}

export function setLanguage(next) {
  lang = next === 'en' ? 'en' : 'sq';
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

export function t(key) {
  return words[lang][key] ?? key;
}

// A payment method in words, or its code when the page has no words for it.
export function method(code) {
  const words = t(`pm.${code}`);
  return words === `pm.${code}` ? code : words;
}

// Fills every element marked with data-i18n under `root`.
export function translate(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(el.dataset.i18n);
  }
}
