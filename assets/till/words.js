// The till's own words, Albanian and English side by side. The server's messages are said in the
// owner's page's words (messages.js), and amounts are written and read as the page does
// (amount.js, ask.js): one table of the server's words and one amount reader for both. The
// language is the page's choice too, kept on the tablet for both.

import { toCents, writeNumber } from './amount.js';
import { amountOf, ask, refusalOf } from './ask.js';
import { serverWords, methodWords } from './messages.js';

const words = {
  skip: ['Kalo te shitja', 'Skip to the sale'],
  title: ['Arka · Shitja', 'Arka · Till'],
  'nav.sale': ['Shitja', 'Sale'],
  'nav.tables': ['Tavolinat', 'Tables'],
  'nav.receipts': ['Faturat', 'Receipts'],
  'nav.day': ['Dita', 'Day'],
  signout: ['Dil', 'Sign out'],
  'signin.title': ['Hyni në arkë', 'Sign in to the till'],
  'signin.help': ['Skanoni kartën e çiftimit me kamerën e tabletit, ose hyni me e-mail dhe fjalëkalim.', 'Scan your pairing card with the tablet\'s camera, or sign in with e-mail and password.'],
  'signin.email': ['E-maili', 'E-mail'],
  'signin.password': ['Fjalëkalimi', 'Password'],
  'signin.go': ['Hyr', 'Sign in'],
  'signin.wrong': ['E-maili ose fjalëkalimi është i gabuar.', 'Wrong e-mail or password.'],
  'who.noTill': ['Ky përdorues nuk ka arkë (TCR): shitja nuk është e mundur.', 'This user has no till (TCR): selling is not possible.'],
  'role.owner': ['Pronar', 'Owner'],
  'role.manager': ['Menaxher', 'Manager'],
  'role.cashier': ['Arkëtar', 'Cashier'],
  search: ['Kërko emrin ose kodin', 'Search name or code'],
  all: ['Të gjitha', 'All'],
  categories: ['Kategoritë', 'Categories'],
  'catalog.waiting': ['Produktet ngarkohen pas {n} sekondash…', 'The products load in {n} seconds…'],
  products: ['Produktet', 'Products'],
  cart: ['Fatura', 'Receipt'],
  empty: ['Asnjë artikull. Prekni një produkt ose skanoni.', 'No item yet. Tap a product or scan.'],
  qty: ['Sasia', 'Quantity'],
  discount: ['Zbritje %', 'Discount %'],
  'qty.of': ['Sasia: {name}', 'Quantity: {name}'],
  remove: ['Hiq', 'Remove'],
  more: ['Një më shumë', 'One more'],
  less: ['Një më pak', 'One less'],
  total: ['Totali', 'Total'],
  pay: ['Paguaj', 'Pay'],
  clear: ['Fshi faturën', 'Clear'],
  unknownCode: ['Kod i panjohur: {code}', 'Unknown code: {code}'],
  addProduct: ['Shto produktin', 'Add the product'],
  'np.name': ['Emri i produktit', 'Product name'],
  'np.price': ['Çmimi (lekë)', 'Price (lek)'],
  'np.vat': ['TVSH', 'VAT'],
  added: ['U shtua: {name}', 'Added: {name}'],
  discountLimit: ['Zbritja më e madhe që mund të jepni është {n}%.', 'The largest discount you may give is {n}%.'],
  'pay.title': ['Pagesa', 'Payment'],
  'pay.cash': ['Para në dorë', 'Cash'],
  'pay.card': ['Kartë', 'Card'],
  'pay.split': ['Të ndara', 'Split'],
  'pay.tendered': ['Paratë e marra', 'Cash tendered'],
  'pay.change': ['Kusuri', 'Change due'],
  'pay.cardPart': ['Me kartë', 'By card'],
  'pay.cashPart': ['Me para në dorë', 'In cash'],
  'pay.short': ['Paratë e marra janë më pak se totali.', 'The cash tendered is less than the total.'],
  'pay.splitBad': ['Pjesa me kartë duhet të jetë nga 0 deri te totali.', 'The card part must be from 0 to the total.'],
  'pay.buyer': ['Blerës biznes (NUIS)', 'Business buyer (NUIS)'],
  'pay.find': ['Gjej', 'Find'],
  'pay.noBuyer': ['Asnjë biznes me këtë NUIS.', 'No business with this NUIS.'],
  'pay.confirm': ['Konfirmo pagesën', 'Confirm payment'],
  'pay.cancel': ['Kthehu', 'Back'],
  'pay.sending': ['Duke dërguar…', 'Sending…'],
  'pay.retrying': ['Serveri nuk u përgjigj: po provoj përsëri me të njëjtën faturë ({n})…', 'The server did not answer: trying again with the same receipt ({n})…'],
  'pay.failed': ['Fatura nuk u lëshua: {message}', 'The receipt was not issued: {message}'],
  'sold': ['Fatura {number} u lëshua.', 'Receipt {number} issued.'],
  'sold.late': ['Fatura {number} u lëshua pa përgjigje nga tatimet: NIVF vjen më vonë.', 'Receipt {number} issued without the tax office\'s answer: the FIC follows.'],
  printer: ['Printeri', 'Printer'],
  'print.done': ['U printua.', 'Printed.'],
  'print.copy': ['U printua si kopje.', 'Printed as a copy.'],
  'print.again': ['Printo përsëri', 'Print again'],
  'print.pdf': ['Printo (PDF 80 mm)', 'Print (80 mm PDF)'],
  'print.off': ['Printeri nuk përgjigjet: kontrolloni që është ndezur dhe i lidhur.', 'The printer does not answer: check that it is on and connected.'],
  'print.paper': ['Printerit i ka mbaruar letra: vendosni një rrotull të re.', 'The printer is out of paper: put in a new roll.'],
  'print.stopped': ['Printeri ndaloi gjatë printimit: kontrollojeni.', 'The printer stopped while printing: check it.'],
  'print.none': ['Kjo arkë nuk ka printer: përdoret PDF-ja.', 'This till has no printer: the PDF is used.'],
  close: ['Mbyll', 'Close'],
  'tables.title': ['Tavolinat', 'Tables'],
  'tables.name': ['Tavolina', 'Table'],
  'tables.open': ['Hap tavolinën me faturën e tanishme', 'Open the table with the current items'],
  'tables.round': ['Shto raundin', 'Add the round'],
  'tables.settle': ['Paguaj të zgjedhurat', 'Pay the chosen'],
  'tables.all': ['Të gjitha', 'All'],
  'tables.none': ['Asnjë tavolinë e hapur.', 'No open table.'],
  'tables.order': ['Porosia {number}', 'Order {number}'],
  'tables.pick': ['Zgjidh: {name}', 'Choose: {name}'],
  'tables.left': ['mbeten {n}', '{n} left'],
  'tables.chosen': ['Për këtë klient', 'For this guest'],
  'tables.emptyCart': ['Shtoni artikuj para se të hapni tavolinën ose raundin.', 'Add items before opening a table or a round.'],
  'tables.noneChosen': ['Zgjidhni të paktën një artikull për këtë klient.', 'Choose at least one item for this guest.'],
  'tables.tooMuch': ['Nga ky artikull kanë mbetur vetëm {n}.', 'Only {n} of this item are left.'],
  'tables.opened': ['Porosia {number} u regjistrua për {table}.', 'Order {number} registered for {table}.'],
  'tables.settled': ['{table}: u pagua me faturën {number}.', '{table}: paid with receipt {number}.'],
  'tables.noTable': ['Pa tavolinë', 'No table'],
  'receipts.title': ['Faturat e fundit', 'Latest receipts'],
  'receipts.reprint': ['Kopje', 'Copy'],
  'receipts.cancel': ['Anulo', 'Cancel'],
  'receipts.cancelAsk': ['Të anulohet fatura {number}?', 'Cancel receipt {number}?'],
  'receipts.cancelled': ['Fatura u anulua me dokumentin {number}.', 'The receipt is cancelled by document {number}.'],
  'receipts.none': ['Asnjë faturë sot.', 'No receipt today.'],
  'day.title': ['Dita e arkës', 'The till\'s day'],
  'day.open': ['Hap ditën', 'Open the day'],
  'day.float': ['Fondi fillestar (lekë)', 'Opening float (lek)'],
  'day.opened': ['Dita u hap.', 'The day is open.'],
  'day.state.open': ['E hapur', 'Open'],
  'day.state.closed': ['E mbyllur', 'Closed'],
  'day.state.not_opened': ['E pahapur', 'Not opened'],
  'day.x': ['Raporti X', 'X report'],
  'day.expected': ['Pritet në arkë', 'Expected in the drawer'],
  'day.carriedOver': ['Mbetur nga numërimi i fundit', 'Left at the last count'],
  'day.banknotesIn': ['Kartëmonedha të hyra', 'Banknotes in'],
  'day.banknotesOut': ['Kartëmonedha të dala', 'Banknotes out'],
  'day.changeGiven': ['Kusur i dhënë', 'Change given'],
  'day.notInDrawer': ['Jo në arkë', 'Not in the drawer'],
  'day.nothing': ['asgjë', 'nothing'],
  'day.deposits': ['Futjet', 'Cash in'],
  'day.withdrawals': ['Nxjerrjet', 'Cash out'],
  'day.amount': ['Shuma (lekë)', 'Amount (lek)'],
  'day.reason': ['Arsyeja', 'Reason'],
  'day.reasonNeeded': ['Shkruani arsyen.', 'Write the reason.'],
  'day.deposit': ['Fut para', 'Put cash in'],
  'day.withdraw': ['Nxirr para', 'Take cash out'],
  'day.deposited': ['Paratë u futën në arkë.', 'The cash is in the drawer.'],
  'day.withdrawn': ['Paratë u nxorën nga arka.', 'The cash is out of the drawer.'],
  'day.byDenomination': ['Numëroni me kartëmonedha dhe monedha', 'Count by notes and coins'],
  'day.count': ['Numëroni paratë', 'Count the cash'],
  'day.counted': ['Të numëruara (lekë)', 'Counted (lek)'],
  'day.difference': ['Diferenca', 'Difference'],
  'day.close': ['Mbyll ditën', 'Close the day'],
  'day.confirm': ['Konfirmo mbylljen', 'Confirm the close'],
  'day.closed': ['Dita u mbyll. Diferenca: {d}', 'The day is closed. Difference: {d}'],
  'day.bad': ['Shkruani një shumë.', 'Enter an amount.'],
  'error.network': ['Serveri nuk u arrit.', 'The server could not be reached.'],
  'error.throttled': ['Shumë kërkesa: provoni pas pak.', 'Too many requests: try again shortly.'],
  'error.server': ['Gabim në server.', 'Server error.'],
  lang: ['EN', 'SQ'],
  langName: ['English', 'Shqip'],
};

const KEY = 'arka.lang';
let lang = localStorage.getItem(KEY) === 'en' ? 'en' : 'sq';

export function t(key, vars = {}) {
  const pair = words[key];
  let text = pair ? pair[lang === 'en' ? 1 : 0] : `⟦${key}⟧`;
  for (const [k, v] of Object.entries(vars)) text = text.replace(`{${k}}`, String(v));
  return text;
}

// A message of the server in the till's language, as the server said it when the table has no
// words for it.
export function said(message) {
  return serverWords(message, lang) ?? message;
}

export function language() {
  return lang;
}

// A payment method of the API in the till's language.
export function method(code) {
  return methodWords(code, lang);
}

export function toggleLanguage() {
  lang = lang === 'en' ? 'sq' : 'en';
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

// Whole cents as the till's language writes lek: 1 234,50 in Albanian, 1 234.50 in English.
export function money(cents) {
  return writeNumber(cents, lang);
}

// Cents as the API reads an amount: a JSON number with two decimals at most.
export function amount(cents) {
  return Math.round(cents) / 100;
}

// Whole cents of an amount the API wrote; 0 when there is none.
export function cents(value) {
  return toCents(value ?? 0) ?? 0;
}

// The amount typed in `control` (its data-places and data-kind say what it holds), read in the
// till's language: its reading, or null once what is wrong is said (on its `<id>-error` line, else
// by `say`) or a question beside it asks which of two readings it is (answered, `again` runs).
export function typed(control, again, say = () => {}) {
  const error = document.getElementById(`${control.id}-error`);
  document.getElementById(`${control.id}-question`)?.remove();
  const reading = amountOf(control, lang);
  if (reading.ok) {
    control.removeAttribute('aria-invalid');
    if (error) error.textContent = '';
    return reading;
  }
  control.setAttribute('aria-invalid', 'true');
  if (reading.reason === 'ambiguous') {
    if (error) error.textContent = '';
    ask(control, reading.readings, lang, again);
    return null;
  }
  const text = refusalOf(control, reading, lang);
  if (error) error.textContent = text;
  else say(text);
  control.focus();
  return null;
}
