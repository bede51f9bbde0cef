// The till's words, Albanian and English side by side, and how things are shown: elements
// built with text (never parsed as HTML) and lek amounts in whole cents.

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
  products: ['Produktet', 'Products'],
  cart: ['Fatura', 'Receipt'],
  empty: ['Asnjë artikull. Prekni një produkt ose skanoni.', 'No item yet. Tap a product or scan.'],
  qty: ['Sasia', 'Quantity'],
  discount: ['Zbritje %', 'Discount %'],
  remove: ['Hiq', 'Remove'],
  more: ['Një më shumë', 'One more'],
  less: ['Një më pak', 'One less'],
  total: ['Totali', 'Total'],
  pay: ['Paguaj', 'Pay'],
  clear: ['Fshi faturën', 'Clear'],
  unknownCode: ['Kod i panjohur: {code}', 'Unknown code: {code}'],
  addProduct: ['Shto produktin', 'Add the product'],
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
  'tables.settle': ['Paguaj të zgjedhurat', 'Pay the selected'],
  'tables.none': ['Asnjë tavolinë e hapur.', 'No open table.'],
  'tables.round.n': ['Raundi {n}', 'Round {n}'],
  'tables.emptyCart': ['Shtoni artikuj para se të hapni tavolinën ose raundin.', 'Add items before opening a table or a round.'],
  'tables.opened': ['Porosia {number} u regjistrua për {table}.', 'Order {number} registered for {table}.'],
  'tables.settled': ['{table}: u pagua me faturën {number}.', '{table}: paid with receipt {number}.'],
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
  'day.sales': ['Shitjet', 'Sales'],
  'day.count': ['Numëroni paratë', 'Count the cash'],
  'day.counted': ['Të numëruara', 'Counted'],
  'day.difference': ['Diferenca', 'Difference'],
  'day.close': ['Mbyll ditën', 'Close the day'],
  'day.confirm': ['Konfirmo mbylljen', 'Confirm the close'],
  'day.closed': ['Dita u mbyll. Diferenca: {d}', 'The day is closed. Difference: {d}'],
  'day.bad': ['Shkruani një shumë.', 'Enter an amount.'],
  'error.network': ['Serveri nuk u arrit.', 'The server could not be reached.'],
  lang: ['EN', 'SQ'],
  langName: ['English', 'Shqip'],
};

// The API's most common refusals, in Albanian.
const apiWords = {
  'The printer does not answer: check that it is on and connected, then print again.': 'print.off',
  'The printer is out of paper: put in a new roll, then print again.': 'print.paper',
  'The printer stopped while printing: check it, then print again.': 'print.stopped',
};

let lang = localStorage.getItem('arka-lang') === 'en' ? 1 : 0;

export function t(key, vars = {}) {
  const pair = words[key];
  let text = pair ? pair[lang] : `⟦${key}⟧`;
  for (const [k, v] of Object.entries(vars)) text = text.replace(`{${k}}`, String(v));
  return text;
}

// An API message in the till's language when it has the words for it.
export function said(message) {
  const key = apiWords[message];
  return key ? t(key) : message;
}

export function toggleLanguage() {
  lang = 1 - lang;
  localStorage.setItem('arka-lang', lang ? 'en' : 'sq');
  document.documentElement.lang = lang ? 'en' : 'sq';
}

export function english() {
  return lang === 1;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A typed or JSON amount as whole cents ("1 234,5" too); null when it is not one.
export function cents(value) {
  const text = String(value ?? '').trim().replace(/[\s\u202f]/g, '').replace(',', '.');
  const m = /^(-?)(\d+)(?:\.(\d{0,2})\d*)?$/.exec(text);
  if (!m) return null;
  const c = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] === '-' ? -c : c;
}

export function money(c) {
  const abs = Math.abs(c);
  const whole = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return `${c < 0 ? '-' : ''}${whole}.${String(abs % 100).padStart(2, '0')}`;
}

// Cents as the API reads an amount: a number with two decimals at most.
export function amount(c) {
  return Math.round(c) / 100;
}
