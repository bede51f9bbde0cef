// The page's words: each key with its Albanian and its English, side by side, so that no word has
// one language only. A missing key shows itself, so a forgotten word is seen at once.

const words = {
  skip: ['Kalo te përmbajtja', 'Skip to content'],
  'nav.today': ['Sot', 'Today'],
  'nav.cis': ['Tatimet (CIS)', 'Tax office (CIS)'],
  'nav.invoices': ['Faturat', 'Invoices'],
  'nav.reports': ['Raportet', 'Reports'],
  signout: ['Dil', 'Sign out'],
  close: ['Mbyll', 'Close'],
  cancel: ['Anulo', 'Cancel'],
  confirm: ['Konfirmo', 'Confirm'],
  loading: ['Duke ngarkuar…', 'Loading…'],
  'signin.title': ['Hyni', 'Sign in'],
  'signin.help': ['Ngjitni tokenin e përdoruesit (api_token). Ai ruhet vetëm në këtë skedë të shfletuesit.', "Paste the user's token (api_token). It is kept in this browser tab only."],
  'signin.token': ['Tokeni', 'Token'],
  'signin.submit': ['Hyr', 'Sign in'],
  'signin.wrong': ['Tokeni nuk u pranua.', 'The token was not accepted.'],
  signedout: ['Dolët.', 'Signed out.'],
  'error.network': ['Arka nuk po përgjigjet.', 'Arka is not answering.'],
  'error.server': ['Gabim në server.', 'Server error.'],
  'error.throttled': ['Shumë kërkesa: provoni pas pak.', 'Too many requests: try again shortly.'],
  'today.title': ['Sot', 'Today'],
  'today.sales': ['Shitjet', 'Sales'],
  'today.receipts': ['Fatura', 'Receipts'],
  'today.waiting': ['në pritje të CIS', 'waiting for the CIS'],
  'today.byTill': ['Shitjet sipas arkës dhe mënyrës së pagesës', 'Sales by till and payment method'],
  'today.till': ['Arka', 'Till'],
  'today.total': ['Gjithsej', 'Total'],
  'today.noncash': ['Pa para në dorë (pa arkë)', 'Non-cash (no till)'],
  'today.cash': ['Arkat', 'Tills'],
  'today.balance': ['Gjendja', 'Balance'],
  'today.day': ['Dita', 'Day'],
  'today.mine': ['arka juaj', 'your till'],
  'day.open': ['E hapur', 'Open'],
  'day.closed': ['E mbyllur', 'Closed'],
  'day.not_opened': ['E pahapur', 'Not opened'],
  'day.since': ['nga', 'since'],
  'day.closedAt': ['mbyllur më', 'closed at'],
  'day.actions': ['Arka juaj', 'Your till'],
  'day.noTill': ['Përdoruesi juaj nuk ka arkë (TCR): veprimet e arkës nuk janë të mundshme.', 'Your user has no till (TCR): cash actions are not possible.'],
  'day.openAmount': ['Shuma fillestare', 'Initial amount'],
  'day.openDay': ['Hap ditën', 'Open the day'],
  'day.amount': ['Shuma', 'Amount'],
  'day.description': ['Përshkrimi', 'Description'],
  'day.deposit': ['Fut para', 'Deposit'],
  'day.withdraw': ['Nxirr para', 'Withdraw'],
  'day.counted': ['Paratë e numëruara', 'Counted cash'],
  'day.closeDay': ['Mbyll ditën', 'Close the day'],
  'day.closeTitle': ['Mbyllja e ditës', 'Closing the day'],
  'day.expected': ['Pritet', 'Expected'],
  'day.difference': ['Diferenca', 'Difference'],
  'day.closedDone': ['Dita u mbyll.', 'The day is closed.'],
  'day.opened': ['Dita u hap.', 'The day is open.'],
  'day.deposited': ['Paratë u futën.', 'Deposited.'],
  'day.withdrawn': ['Paratë u nxorën.', 'Withdrawn.'],
  'day.pending': ['në pritje të CIS', 'waiting for the CIS'],
  'day.opening': ['Hapja', 'Opening'],
  'day.cashSales': ['Shitjet me para në dorë', 'Cash sales'],
  'day.deposits': ['Futjet', 'Deposits'],
  'day.withdrawals': ['Nxjerrjet', 'Withdrawals'],
  'day.withdrawnAtClose': ['Nxjerrë në mbyllje', 'Withdrawn at closing'],
  'cis.title': ['Lidhja me tatimet (CIS)', 'Connection to the tax office (CIS)'],
  'cis.online': ['Në linjë', 'Online'],
  'cis.offline': ['Jashtë linje', 'Offline'],
  'cis.since': ['që prej', 'since'],
  'cis.waiting': ['Dokumente në pritje', 'Documents waiting'],
  'cis.oldest': ['Më i vjetri', 'Oldest'],
  'cis.hours': ['orë', 'hours'],
  'cis.nearLimit': ['Afër afatit ligjor prej 48 orësh', 'Near the 48-hour legal limit'],
  'cis.refused': ['Të refuzuara nga CIS', 'Refused by the CIS'],
  'cis.reason': ['Arsyeja', 'Reason'],
  'cis.none': ['Asnjë.', 'None.'],
  'cis.document': ['Dokumenti', 'Document'],
  'cis.number': ['Numri', 'Number'],
  'cis.issued': ['Lëshuar', 'Issued'],
  'cis.age': ['Mosha (orë)', 'Age (hours)'],
  'cis.attempts': ['Përpjekje', 'Attempts'],
  'cis.lastError': ['Gabimi i fundit', 'Last error'],
  'cis.tcr': ['Arka', 'Till'],
  'cert.title': ['Certifikata', 'Certificate'],
  'cert.expires': ['Skadon më', 'Expires on'],
  'cert.none': ['Nuk është ngarkuar asnjë certifikatë.', 'No certificate has been uploaded.'],
  'cert.soon': ['Certifikata skadon së shpejti: ngarkoni një të re.', 'The certificate expires soon: upload a new one.'],
  'inv.title': ['Faturat', 'Invoices'],
  'inv.search': ['Kërko (numër, blerës, NIPT)', 'Search (number, buyer, NIPT)'],
  'inv.type': ['Lloji', 'Type'],
  'inv.all': ['Të gjitha', 'All'],
  'inv.cash': ['Me para në dorë', 'Cash'],
  'inv.noncash': ['Pa para në dorë', 'Non-cash'],
  'inv.from': ['Nga', 'From'],
  'inv.to': ['Deri', 'To'],
  'inv.apply': ['Kërko', 'Search'],
  'inv.number': ['Numri', 'Number'],
  'inv.date': ['Data', 'Date'],
  'inv.buyer': ['Blerësi', 'Buyer'],
  'inv.nipt': ['NIPT', 'NIPT'],
  'inv.gross': ['Totali', 'Total'],
  'inv.fic': ['NIVF', 'FIC'],
  'inv.pending': ['në pritje', 'pending'],
  'inv.reversed': ['anuluar', 'cancelled'],
  'inv.none': ['Asnjë faturë.', 'No invoices.'],
  'inv.prev': ['Më parë', 'Previous'],
  'inv.next': ['Më tej', 'Next'],
  'inv.details': ['Fatura', 'Invoice'],
  'inv.lines': ['Artikujt', 'Lines'],
  'inv.product': ['Artikulli', 'Item'],
  'inv.quantity': ['Sasia', 'Quantity'],
  'inv.price': ['Çmimi', 'Price'],
  'inv.vat': ['TVSH %', 'VAT %'],
  'inv.total': ['Totali', 'Total'],
  'inv.net': ['Pa TVSH', 'Net'],
  'inv.vatAmount': ['TVSH', 'VAT'],
  'inv.payment': ['Pagesa', 'Payment'],
  'inv.a4': ['PDF A4', 'PDF A4'],
  'inv.receipt': ['Kupon (80 mm)', 'Receipt (80 mm)'],
  'inv.openPdf': ['Hape në skedë të re', 'Open in a new tab'],
  'inv.cancel': ['Anulo faturën', 'Cancel the invoice'],
  'inv.cancelAsk': ['Të anulohet e gjithë fatura? Krijohet një dokument korrigjues në CIS.', 'Cancel the whole invoice? A corrective document is registered with the CIS.'],
  'inv.cancelled': ['Fatura u anulua: dokumenti korrigjues', 'The invoice is cancelled: corrective document'],
  'inv.cancelMissing': ['Anulimi nuk ofrohet ende nga ky server.', 'This server does not offer cancellation yet.'],
  'inv.walkin': ['Klient pa emër', 'Walk-in customer'],
  'inv.iic': ['NSLF', 'IIC'],
  'inv.operator': ['Operatori', 'Operator'],
  'rep.title': ['Raportet', 'Reports'],
  'rep.from': ['Nga', 'From'],
  'rep.to': ['Deri', 'To'],
  'rep.show': ['Shfaq', 'Show'],
  'rep.today': ['Sot', 'Today'],
  'rep.week': ['Kjo javë', 'This week'],
  'rep.month': ['Ky muaj', 'This month'],
  'rep.lastMonth': ['Muaji i kaluar', 'Last month'],
  'rep.summary': ['Përmbledhja e shitjeve', 'Sales summary'],
  'rep.vat': ['TVSH', 'VAT'],
  'rep.trend': ['Shitjet ditë pas dite', 'Sales day by day'],
  'rep.csv': ['Shkarko CSV', 'Download CSV'],
  'rep.missing': ['Ky raport nuk ofrohet ende nga ky server.', 'This server does not offer this report yet.'],
  'rep.empty': ['Asnjë e dhënë për këtë periudhë.', 'No data for this period.'],
  'pm.BANKNOTE': ['Para në dorë', 'Cash'],
  'pm.CARD': ['Kartë', 'Card'],
  'pm.CHECK': ['Çek', 'Cheque'],
  'pm.SVOUCHER': ['Kupon', 'Voucher'],
  'pm.COMPANY': ['Kartë e kompanisë', 'Company card'],
  'pm.ORDER': ['Porosi', 'Order'],
  'pm.ACCOUNT': ['Llogari', 'On account'],
  'pm.TRANSFER': ['Transfertë', 'Transfer'],
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
  const pair = words[key];
  return pair ? pair[lang === 'en' ? 1 : 0] : key;
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
