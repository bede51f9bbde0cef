// The server's messages in the page's words. The API keeps its English envelopes (POS apps read
// them); the page shows each message through MESSAGES, keyed by the message as the server's
// source writes it, its placeholders (`{field}`, `{}`) standing for what the server put there.
// A translation names a value by its placeholder's name or by its position ({1}, {2} …); a value
// that is an API field's key is said in words (FIELDS), a known noun too (NOUNS). The English is
// given where the server's own names a field by its key or an API route; else the server's text
// is shown, its fields in words.
//
// One line per message, `"server text": ["shqip", "English"]`: tests/api/owner_words.rs reads
// this file line by line, finds every message the server can answer the page with in its source,
// and fails for one without its line here. Pure (no page): the page (i18n.js) and the till app
// call `serverWords(text, lang)`.

export const FIELDS = {
  "action": ["Veprimi", "Action"],
  "address": ["Adresa", "Address"],
  "amount": ["Shuma", "Amount"],
  "apply": ["Zbatimi", "Apply"],
  "branch": ["Njësia", "Business unit"],
  "branchId": ["Njësia", "Business unit"],
  "businessUnitCode": ["Kodi i njësisë", "Unit code"],
  "certificate_file": ["Skedari i certifikatës", "Certificate file"],
  "city": ["Qyteti", "City"],
  "columns": ["Kolonat", "Columns"],
  "connection": ["Lidhja", "Connection"],
  "code": ["Kodi", "Code"],
  "color": ["Ngjyra", "Colour"],
  "cost_price": ["Çmimi i blerjes", "Cost price"],
  "counted": ["Paratë e numëruara", "Counted cash"],
  "currency": ["Monedha", "Currency"],
  "currentPassword": ["Fjalëkalimi i tanishëm", "Current password"],
  "date": ["Data", "Date"],
  "description": ["Përshkrimi", "Description"],
  "discount": ["Zbritja", "Discount"],
  "email": ["E-maili", "E-mail"],
  "file": ["Skedari", "File"],
  "fiscalTcrCode": ["Arka (TCR)", "Till (TCR)"],
  "format": ["Formati", "Format"],
  "from": ["Nga data", "From date"],
  "fromDate": ["Nga data", "From date"],
  "id_category": ["Kategoria", "Category"],
  "internalId": ["Numri i brendshëm", "Internal number"],
  "issuerInVat": ["Në skemën e TVSH-së", "In the VAT scheme"],
  "kind": ["Lëvizja", "Movement"],
  "last_price": ["Çmimi me TVSH", "Price with VAT"],
  "limit": ["Sa rreshta", "Rows"],
  "lines": ["Artikujt", "Lines"],
  "name": ["Emri", "Name"],
  "newPassword": ["Fjalëkalimi i ri", "New password"],
  "note": ["Shënimi", "Note"],
  "nuis": ["NIPT-i", "NUIS"],
  "offset": ["Faqja", "Page"],
  "operator": ["Operatori", "Operator"],
  "operatorCode": ["Kodi i operatorit", "Operator code"],
  "paper": ["Letra", "Paper"],
  "password": ["Fjalëkalimi", "Password"],
  "price": ["Çmimi", "Price"],
  "product_code": ["Kodi i artikullit", "Item code"],
  "product_name": ["Artikulli", "Item"],
  "quantity": ["Sasia", "Quantity"],
  "role": ["Roli", "Role"],
  "service": ["Shërbim", "Service"],
  "table": ["Tavolina", "Table"],
  "tcr": ["Arka", "Till"],
  "to": ["Deri më", "To date"],
  "toDate": ["Deri më", "To date"],
  "token": ["Tokeni", "Token"],
  "type": ["Lloji", "Type"],
  "unit_code": ["Njësia matëse", "Unit of measure"],
  "user": ["Përdoruesi", "User"],
  "vat_exempt_type": ["Përjashtimi nga TVSH", "VAT exemption"],
  "vat": ["TVSH", "VAT"],
  "vat_rate": ["TVSH", "VAT"],
  "withdraw": ["Nxjerrja", "Withdrawal"],
};

// The values the server puts in its messages that are words of its own: what was not found,
// what a document is, who may do what.
export const NOUNS = {
  "Bank account": ["llogaria bankare", "Bank account"],
  "Branch": ["njësia", "Business unit"],
  "Category": ["kategoria", "Category"],
  "Client": ["klienti", "Client"],
  "Currency": ["monedha", "Currency"],
  "E-invoice": ["e-fatura", "E-invoice"],
  "Invoice": ["fatura", "Invoice"],
  "Manual rate": ["kursi manual", "Manual rate"],
  "Product": ["produkti", "Product"],
  "Route": ["adresa", "Route"],
  "Purchase invoice": ["fatura e blerjes", "Purchase invoice"],
  "User": ["përdoruesi", "User"],
  "Warehouse transfer note": ["fletëdalja", "Warehouse transfer note"],
  "An invoice": ["Një faturë", "An invoice"],
  "A warehouse transfer note": ["Një fletëdalje", "A warehouse transfer note"],
  "an owner's token": ["pronarin", "an owner"],
  "a manager's token or an owner's": ["një menaxher ose pronarin", "a manager or an owner"],
  "a cashier's token or an owner's": ["një arkëtar ose pronarin", "a cashier or an owner"],
  "owner": ["pronar", "owner"],
  "manager": ["menaxher", "manager"],
  "cashier": ["arkëtar", "cashier"],
};

// The API's payment methods in words: the owner's page and the till say them alike.
export const METHODS = {
  "BANKNOTE": ["Para në dorë", "Cash"],
  "CARD": ["Kartë", "Card"],
  "CHECK": ["Çek", "Cheque"],
  "SVOUCHER": ["Kupon", "Voucher"],
  "COMPANY": ["Kartë e kompanisë", "Company card"],
  "ORDER": ["Porosi", "Order"],
  "ACCOUNT": ["Llogari", "On account"],
  "TRANSFER": ["Transfertë", "Transfer"],
  "FACTORING": ["Faktoring", "Factoring"],
  "COMPENSATION": ["Kompensim", "Compensation"],
  "WAIVER": ["Falje borxhi", "Debt waiver"],
  "KIND": ["Në natyrë", "In kind"],
  "OTHER": ["Tjetër", "Other"],
};

// A payment method of the API in `lang`, or its code when it has no words.
export function methodWords(code, lang) {
  const words = METHODS[code];
  return words ? words[lang === 'en' ? 1 : 0] : code;
}

export const MESSAGES = {
  // The envelopes and the body reader (src/api)
  "The given data was invalid.": ["Të dhënat nuk janë të sakta."],
  "Too Many Attempts.": ["Shumë kërkesa: provoni pas pak."],
  "Too many requests. Try again in {} seconds.": ["Shumë kërkesa: provoni përsëri pas {1} sekondash."],
  "{what} not found.": ["{what} nuk u gjet."],
  "Not found.": ["Nuk u gjet."],
  "Method not allowed.": ["Ky veprim nuk lejohet këtu."],
  "The fiscalization service (CIS) is not reachable. The invoice was saved and will be fiscalized automatically (subsequent delivery).": ["Shërbimi i fiskalizimit (CIS) nuk përgjigjet. Fatura u ruajt dhe do të fiskalizohet vetë sapo të jetë e mundur (dërgim i mëvonshëm)."],
  "A call with this Idempotency-Key is still in progress; retry it in a moment.": ["Një thirrje me këtë çelës është ende në punë; provoni pas pak.", "A call with this key is still in progress; retry it in a moment."],
  "No such order for this venue.": ["Kjo porosi nuk është e këtij lokali."],
  "The Idempotency-Key header is required.": ["Mungon çelësi i thirrjes (Idempotency-Key).", "The call's key (Idempotency-Key) is missing."],
  "The company has no marketplace add-on; its owner can enable it.": ["Kompania nuk ka shtesën e tregut online; pronari mund ta aktivizojë."],
  "The company has no single active Wolt venue; its owner can set one.": ["Kompania nuk ka një lokal Wolt aktiv; pronari mund ta caktojë."],
  "The webhook signature could not be verified.": ["Nënshkrimi i njoftimit nuk u verifikua."],
  "The invoice must be a JSON object.": ["Fatura nuk u lexua: dërgohet si objekt JSON."],
  "The request body could not be read.": ["Kërkesa nuk u lexua."],
  "The request could not be read.": ["Kërkesa nuk u lexua."],
  "The request body is empty: send a JSON object with what to change ({} changes nothing).": ["Kërkesa është bosh: nuk ka asgjë për të ndryshuar.", "The request is empty: there is nothing to change."],
  "The request body is not UTF-8 text, as JSON must be.": ["Kërkesa nuk është tekst UTF-8."],
  "The request body is not valid JSON.": ["Kërkesa nuk është JSON i vlefshëm."],
  "The request body is too large.": ["Kërkesa është shumë e madhe."],
  "The request body must be a JSON object.": ["Kërkesa duhet të jetë një objekt JSON."],
  "The request body must be JSON.": ["Kërkesa duhet të jetë JSON."],
  "The multipart body could not be read.": ["Skedari i dërguar nuk u lexua."],
  "The {key} field is invalid: {message}.": ["Fusha {key} nuk është e vlefshme.", "The {key} field is not valid."],
  "The {key} field is not one this request takes ({expected}); nothing was done.": ["Fusha {key} nuk merret nga ky veprim; asgjë nuk u bë.", "The {key} field is not one this action takes; nothing was done."],
  "The {key} field is required.": ["Fusha {key} është e detyrueshme."],
  "The {key} parameter is invalid.": ["Fusha {key} nuk është e vlefshme."],
  "The {path} field is not valid text: {message}.": ["Fusha {path} nuk është tekst i vlefshëm."],
  "A change made with the page's session needs its X-CSRF-Token header (GET /api/v1/session gives it).": ["Faqja duhet rifreskuar: ringarkojeni dhe provoni përsëri.", "The page needs refreshing: reload it and try again."],
  "Registration needs a partner token.": ["Regjistrimi kërkon tokenin e partnerit."],
  "No rule says who may call this route.": ["Ky veprim nuk i lejohet askujt."],
  "This needs {needed}; this token is a {caller}'s.": ["Këtë e bën vetëm {needed}; ju jeni {caller}.", "Only {needed} may do this; you are a {caller}."],
  // The day's cash (src/api/cash_register.rs, src/domain/cash_register.rs, src/services/cash_register.rs)
  "The limit must be at least 1.": ["Numri i rreshtave duhet të jetë të paktën 1.", "The number of rows must be at least 1."],
  "The offset must be at least 0.": ["Faqja duhet të jetë të paktën 0.", "The page must be at least 0."],
  "The type must be one or more of INITIAL, MONEY_IN, MONEY_OUT.": ["Lloji duhet të jetë një ose më shumë nga: fondi fillestar, futje, nxjerrje.", "The type must be one or more of: opening float, cash in, cash out."],
  "The withdraw must not be greater than the counted cash.": ["Nxjerrja nuk mund të jetë më e madhe se paratë e numëruara.", "The withdrawal must not be greater than the counted cash."],
  "The {field} field is required.": ["Fusha {field} është e detyrueshme."],
  "The {field} must be at least 0.": ["{field} duhet të jetë të paktën 0."],
  "The {field} must be greater than 0.": ["{field} duhet të jetë mbi 0."],
  "The {field} must have at most two decimals.": ["{field} mund të ketë deri në dy shifra pas presjes.", "{field} may have at most two decimals."],
  "The {field} field must not be greater than {max}.": ["{field} nuk mund të kalojë {max}."],
  "Another operation on this cash register is running; try again.": ["Një veprim tjetër i kësaj arke është në punë; provoni përsëri."],
  "Insufficient funds in the cash register: the balance is {} ALL.": ["Nuk ka mjaftueshëm para në arkë: gjendja është {1} lekë."],
  "The cash register has no open day to close.": ["Arka nuk ka ditë të hapur për ta mbyllur."],
  "The day is already open with {} ALL; take cash out with a withdrawal.": ["Dita është hapur tashmë me {1} lekë; paratë e tepërta nxirren me një nxjerrje."],
  "The selected id_client is invalid.": ["Klienti i zgjedhur nuk është i vlefshëm.", "The selected client is not valid."],
  "The toDate is not a valid date.": ["Data «Deri më» nuk është e vlefshme.", "The to date is not valid."],
  "The user has no fiscal device (TCR).": ["Përdoruesi nuk ka arkë fiskale (TCR)."],
  "Every call of a shop names its box (letters, digits and -).": ["Çdo thirrje e një dyqani emërton kompjuterin e tij (shkronja, shifra dhe -)."],
  "The NUIS is not this shop's business.": ["NUIS-i nuk është i biznesit të këtij dyqani."],
  "The after must be a version from 0.": ["Versioni duhet të jetë nga 0 e lart."],
  "The at_least must be from 0 to {MAX_ORD_NUM}, the CIS's largest number.": ["Numri duhet të jetë nga 0 deri në {MAX_ORD_NUM}, numri më i madh i CIS-it.", "The number must be from 0 to {MAX_ORD_NUM}, the CIS's largest."],
  "The business's non-cash numbers of {year} reached {MAX_ORD_NUM}, the CIS's largest.": ["Numrat pa para në dorë të biznesit për {year} arritën {MAX_ORD_NUM}, më i madhi i CIS-it."],
  "The head office does not know this shop's business (NUIS) yet: it learns it from `arka hq shops add --nuis` or from the shop's first shipped company.": ["Zyra qendrore nuk e njeh ende biznesin (NUIS) e këtij dyqani: e mëson kur dyqani shtohet te zyra qendrore me NUIS-in e tij, ose nga kompania e parë që dërgon dyqani."],
  "The head office refuses this box for the shop \"{}\": {reason}. Nothing was taken; the owner sees this box at the head office.": ["Zyra qendrore e refuzon këtë kompjuter për dyqanin \"{1}\": {reason}. Asgjë nuk u mor; pronari e sheh këtë kompjuter te zyra qendrore."],
  "The held_for is required, at most 255 characters.": ["Mbajtja e numrit kërkohet, deri në 255 shenja.", "What the number is held for is required, at most 255 characters."],
  "The nuis is required.": ["NUIS-i kërkohet."],
  "The older_than must be seconds from 0.": ["Koha duhet të jetë sekonda nga 0 e lart.", "The age must be seconds from 0."],
  "The year must be {} to {}.": ["Viti duhet të jetë nga {1} deri në {2}."],
  "This document was numbered {ord_num}/{year} by the box this one replaced, and it never reached the head office: it may be at the CIS. It is not numbered again until the owner resolves that number (arka hq numbers held).": ["Ky dokument u numërua {ord_num}/{year} nga kompjuteri që zëvendësoi ky dhe nuk arriti kurrë te zyra qendrore: mund të jetë te CIS. Nuk numërohet përsëri derisa pronari ta zgjidhë atë numër (arka hq numbers held)."],
  "This shop belongs to a chain whose head office keeps the business's non-cash numbering, but it was started without it (--hq-url): nothing was issued. Start it with its head office, or unlink it (arka unlink-hq).": ["Ky dyqan i përket një zinxhiri, zyra qendrore e të cilit mban numërimin pa para në dorë të biznesit, por u nis pa të (--hq-url): asgjë nuk u lëshua. Niseni me zyrën qendrore, ose shkëputeni (arka unlink-hq)."],
  "This till's TCR was retired when the shop was restored: the numbers after the restored ones may be at the CIS already. The till goes on on a new TCR as soon as it is registered at the CIS (upload the certificate; Arka registers it): try again then.": ["TCR-ja e kësaj arke u tërhoq kur dyqani u rikthye: numrat pas atyre të rikthyer mund të jenë tashmë te CIS. Arka vazhdon me një TCR të re sapo të regjistrohet te CIS (ngarkoni certifikatën; Arka e regjistron): provoni përsëri atëherë."],
  "A cashier acts on their own till only; a manager or an owner may name another.": ["Arkëtari vepron vetëm në arkën e vet; një menaxher ose pronar mund të zgjedhë një tjetër."],
  "The counted cash ({sent}) is not what the notes and coins add up to ({total}).": ["Paratë e numëruara ({sent}) nuk janë sa shuma e kartëmonedhave dhe monedhave ({total})."],
  "The {name} is not a lek note or coin: send pieces of {}.": ["Numërimi ka një vlerë që nuk është kartëmonedhë apo monedhë leku: numërohen copë prej {2}.", "The count holds a value that is not a lek note or coin: count pieces of {2}."],
  "The {name} must be a whole number from 0 to {MAX_PIECES}.": ["Numri i copëve duhet të jetë numër i plotë nga 0 deri në {MAX_PIECES}.", "The number of pieces must be a whole number from 0 to {MAX_PIECES}."],
  // The audit trail, reports and the CIS queue (src/api, src/domain/report.rs, src/services/reports.rs)
  "The action must be one of {}.": ["Veprimi duhet të jetë një nga: {1}."],
  "The format must be json or csv.": ["Formati duhet të jetë JSON ose CSV."],
  "The from date must not be after the to date.": ["Data «Nga» nuk mund të jetë pas datës «Deri»."],
  "The user must be the id of one of the company's users.": ["Përdoruesi duhet të jetë një nga përdoruesit e kompanisë."],
  "The {field} must be a date in the format YYYY-MM-DD.": ["{field} duhet të jetë datë si 2026-12-31."],
  "The date must be a date in the format YYYY-MM-DD.": ["Data duhet të jetë si 2026-12-31."],
  "The format must be a4 or receipt.": ["Formati duhet të jetë A4 ose kupon."],
  "The paper must be a4 or receipt.": ["Letra duhet të jetë A4 ose kupon."],
  "No day of a till in this period.": ["Asnjë ditë arke në këtë periudhë."],
  "The branch must be the id of one of the company's branches.": ["Njësia duhet të jetë një nga njësitë e kompanisë."],
  "The wtn report has no {field} filter.": ["Raporti i fletëdaljeve nuk filtrohet sipas fushës {field}."],
  "The {field} is not one the company has.": ["{field}: kompania nuk ka të tillë."],
  "The daily trend covers at most {MAX_TREND_DAYS} days: choose an earlier to date.": ["Shitjet ditë pas dite mbulojnë deri në {MAX_TREND_DAYS} ditë: zgjidhni një datë «Deri» më të hershme."],
  "The {field} must be a whole number from {} to {}.": ["{field} duhet të jetë numër i plotë nga {2} deri në {3}."],
  "The {field} must be true or false.": ["{field} duhet të jetë po ose jo.", "{field} must be yes or no."],
  "The branch is not one of the company's branches.": ["Njësia nuk është e kësaj kompanie."],
  "The operator is not an operator code of the company.": ["Operatori nuk është kod operatori i kësaj kompanie."],
  "The tcr is not one of the company's TCRs.": ["Arka nuk është e kësaj kompanie.", "The till is not one of the company's."],
  "The company has no document the CIS refused with this queue id.": ["Kompania nuk ka dokument të refuzuar nga CIS me këtë numër radhe."],
  "The limit must be between 1 and {MAX_QUEUE_LIMIT}.": ["Numri i rreshtave duhet të jetë nga 1 deri në {MAX_QUEUE_LIMIT}.", "The number of rows must be from 1 to {MAX_QUEUE_LIMIT}."],
  // The backup and the certificate (src/api/backups.rs, src/api/misc.rs, src/services/mod.rs)
  "No such backup file.": ["Nuk ka kopje me këtë emër."],
  "Only the owner of the box's one company may take or fetch its backups: a backup holds every company on it.": ["Kopjet i merr vetëm pronari i kompanisë së vetme të serverit: një kopje mban çdo kompani të tij."],
  "There is no copy off the box to verify.": ["Nuk ka kopje jashtë kompjuterit për t'u verifikuar."],
  "A verification of the copy is already under way.": ["Një verifikim i kopjes është duke u bërë."],
  "The backup holds the sealed certificate keys and the key file that opens them: whoever has both can sign fiscal documents as the shop. Keep both files together and as safe as the server.": ["Kopja mban çelësat e vulosur të certifikatës dhe skedarin që i hap: kushdo që ka të dyja mund të nënshkruajë dokumente fiskale si dyqani. Ruajini të dy skedarët bashkë dhe po aq të sigurt sa serveri."],
  "The backup stopped: {e}.": ["Kopja u ndërpre: {e}."],
  "This address reaches the server only from the server itself: open the page from the shop's network, or set --public-url, before printing this card.": ["Kjo adresë e arrin serverin vetëm nga vetë serveri: hapeni faqen nga rrjeti i dyqanit, ose vendosni --public-url, para se ta printoni kartën."],
  "The backup could not be taken: {why}.": ["Kopja nuk u bë: {why}."],
  "The OpenAPI document could not be read.": ["Dokumenti OpenAPI nuk u lexua."],
  "The certificate expires on {}: upload a new one.": ["Certifikata skadon më {1}: ngarkoni një të re."],
  "The certificate has expired: nothing can be fiscalized until a new one is uploaded.": ["Certifikata ka skaduar: asgjë nuk fiskalizohet derisa të ngarkohet një e re."],
  "No certificate has been uploaded: send it to POST /api/v1/on-boarding/certificate first.": ["Nuk është ngarkuar asnjë certifikatë: ngarkojeni te Konfigurimi (Certifikata).", "No certificate has been uploaded: upload it in Setup (Certificate)."],
  "The certificate has expired: upload a new one to POST /api/v1/on-boarding/certificate.": ["Certifikata ka skaduar: ngarkoni një të re te Administrimi.", "The certificate has expired: upload a new one in Administration."],
  // Signing in, people and passwords (src/api/people.rs, src/services/people.rs, src/services/users.rs)
  "The e-mail or the password is wrong.": ["E-maili ose fjalëkalimi është i gabuar."],
  "The email field is required.": ["Fusha «E-maili» është e detyrueshme.", "The e-mail is required."],
  "The password field is required.": ["Fusha «Fjalëkalimi» është e detyrueshme.", "The password is required."],
  "The password must be UTF-8 text.": ["Fjalëkalimi duhet të jetë tekst UTF-8."],
  "The current password is wrong.": ["Fjalëkalimi i tanishëm është i gabuar."],
  "The currentPassword field is required.": ["Fusha «Fjalëkalimi i tanishëm» është e detyrueshme.", "The current password is required."],
  "The {field} may be at most {MAX_PASSWORD} characters long.": ["{field} mund të ketë deri në {MAX_PASSWORD} shenja."],
  "The {field} must not be the e-mail address.": ["{field} nuk mund të jetë adresa e e-mailit."],
  "Your own password is changed with POST /api/v1/session/password: it needs the current one.": ["Fjalëkalimin tuaj e ndryshoni te profili juaj: duhet fjalëkalimi i tanishëm.", "You change your own password in your profile: it needs the current one."],
  "Only an owner revokes tokens.": ["Vetëm pronari heq aksesin."],
  "Only an owner rotates another user's token.": ["Vetëm pronari i jep tokenin e ri një përdoruesi tjetër."],
  "A cashier cancels only their own sales of the same business day; a manager can cancel this one.": ["Arkëtari anulon vetëm shitjet e veta të së njëjtës ditë; këtë mund ta anulojë një menaxher."],
  "A cashier reads the report of their own till only.": ["Arkëtari sheh vetëm raportin e arkës së vet."],
  "A cashier reads the report of their own till, and this user has none.": ["Arkëtari sheh vetëm raportin e arkës së vet, dhe ky përdorues nuk ka arkë."],
  "A manager changes cashiers and themselves; ask an owner.": ["Menaxheri ndryshon arkëtarët dhe veten; pyesni pronarin."],
  "Only an owner can change a user's role.": ["Vetëm pronari ndryshon rolin e një përdoruesi."],
  "Only an owner can create managers and owners.": ["Vetëm pronari shton menaxherë dhe pronarë."],
  "Only an owner or a manager can change users.": ["Vetëm pronari ose menaxheri ndryshon përdoruesit."],
  "Only an owner or a manager can create users.": ["Vetëm pronari ose menaxheri shton përdorues."],
  "A cashier reads the documents of their own till and those they issued; a manager can read this one.": ["Arkëtari sheh dokumentet e arkës së vet dhe ato që ka lëshuar; këtë mund ta shohë një menaxher."],
  "The code is wrong or has expired: `arka users reset-password EMAIL` on the server prints a new one.": ["Kodi është i gabuar ose ka skaduar: kërkoni një të ri në server (urdhri i rivendosjes së fjalëkalimit).", "The code is wrong or has expired: arka users reset-password on the server prints a new one."],
  "The code was used meanwhile.": ["Kodi u përdor ndërkohë."],
  "The company must keep at least one owner whose access works: make another owner first.": ["Kompania duhet të mbajë të paktën një pronar me akses që punon: bëni fillimisht një pronar tjetër."],
  "The operatorCode must look like ab123cd456.": ["Kodi i operatorit duhet të duket si ab123cd456.", "The operator code must look like ab123cd456."],
  "The {field} must be at least {} characters long.": ["{field} duhet të ketë të paktën {2} shenja."],
  "This user has no password yet, and a token alone does not set one: an owner sets it (POST /api/v1/users/{id}/password), or a code of `arka users reset-password` on the server.": ["Ky përdorues nuk ka ende fjalëkalim, dhe çelësi i arkës nuk vendos dot një: pronari e vendos, ose një kod rivendosjeje nga serveri.", "This user has no password yet, and a token alone does not set one: the owner sets it, or a code of arka users reset-password on the server."],
  "{found}'s access is revoked: an owner restores it first (a new token on the users' list).": ["Aksesi i {found} është hequr: pronari e rikthen më parë (te lista e përdoruesve).", "{found}'s access is revoked: the owner restores it first (a new token on the list of people)."],
  "The {field} is one of the most common passwords: {CHOOSE_ANOTHER}": ["Ky fjalëkalim është nga më të zakonshmit: zgjidhni një tjetër; disa fjalë tuajat mbahen mend lehtë dhe gjenden vështirë."],
  "The {field} is a pattern that is easy to guess: {CHOOSE_ANOTHER}": ["Ky fjalëkalim është një model që gjendet lehtë (një varg tastiere, një përsëritje): zgjidhni një tjetër; disa fjalë tuajat mbahen mend lehtë dhe gjenden vështirë."],
  "The user has no operator code.": ["Përdoruesi nuk ka kod operatori: vendoseni te profili juaj (emri juaj lart)."],
  "A cashier corrects only their own invoices of the same business day; a manager can correct this one.": ["Arkëtari korrigjon vetëm faturat e veta të së njëjtës ditë; këtë mund ta korrigjojë një menaxher."],
  "An internalId ending in /cancel-<number> is the name Arka gives a cancellation: choose another.": ["Një numër i brendshëm që mbaron me /cancel-<numër> është emri që Arka u jep anulimeve: zgjidhni një tjetër.", "An internal number ending in /cancel-<number> is the name Arka gives a cancellation: choose another."],
  "The request body must be one JSON value: something follows it at line {}, column {}; nothing was done.": ["Kërkesa duhet të jetë një vlerë e vetme JSON: diçka vjen pas saj (rreshti {1}, kolona {2}); asgjë nuk u bë."],
  "This request takes no body (send none, or {}); nothing was done.": ["Ky veprim nuk merr të dhëna; asgjë nuk u bë.", "This action takes no data; nothing was done."],
  // The setup wizard and the company's people (src/api/setup.rs, src/services/setup.rs, src/services/accounts.rs)
  "The code field is required.": ["Fusha «Kodi» është e detyrueshme.", "The code is required."],
  "The fiscalTcrCode field is required: the cashier's till.": ["Zgjidhni arkën e arkëtarit.", "Choose the cashier's till."],
  "The setup code is wrong or has expired: read the one the server printed at its last start.": ["Kodi i konfigurimit është i gabuar ose ka skaduar: lexoni atë që serveri shfaqi në nisjen e fundit."],
  "Setting up this server needs the setup code it printed at its start (in its log and on its console), or a browser on the server itself.": ["Konfigurimi i këtij serveri kërkon kodin që ai shfaqi kur u nis (në regjistër dhe në konsolë), ose një shfletues në vetë serverin."],
  "The business comes first: save it with POST /api/v1/setup/business.": ["Fillimisht biznesi: ruajeni te hapi «Biznesi».", "The business comes first: save it in the step “The business”."],
  "Add a cashier with an operator code and a till first.": ["Shtoni fillimisht një arkëtar me kod operatori dhe arkë."],
  "The cashier needs an operator code and a till (fiscal device) to sell.": ["Arkëtari ka nevojë për kod operatori dhe arkë (pajisje fiskale) që të shesë."],
  "The cashierId is not a user of this company.": ["Arkëtari nuk është përdorues i kësaj kompanie.", "The cashier is not a user of this company."],
  "This server is set up already: sign in as its owner.": ["Ky server është konfiguruar tashmë: hyni si pronari i tij."],
  "The nuis field is required.": ["Fusha «NIPT» është e detyrueshme.", "The NUIS is required."],
  "The issuerInVat field is required.": ["Zgjidhni nëse biznesi është në skemën e TVSH-së.", "Say whether the business is in the VAT scheme."],
  "A company with the nuis {nuis} is already registered.": ["Një kompani me NIPT {nuis} është regjistruar tashmë.", "A company with the NUIS {nuis} is already registered."],
  "A company with the nuis {} is already registered.": ["Një kompani me NIPT {1} është regjistruar tashmë.", "A company with the NUIS {1} is already registered."],
  "The nuis must be a letter, eight digits and a letter (e.g. L41323036D).": ["NIPT-i duhet të jetë një shkronjë, tetë shifra dhe një shkronjë (p.sh. L41323036D).", "The NUIS must be a letter, eight digits and a letter (e.g. L41323036D)."],
  "The certificate_file field is required.": ["Zgjidhni skedarin e certifikatës.", "Choose the certificate file."],
  "The certificate_file must be base64.": ["Skedari i certifikatës nuk u lexua.", "The certificate file could not be read."],
  "The certificate_file is not a usable PKCS#12 (.p12/.pfx) file: {text}.": ["Skedari i certifikatës nuk është një skedar PKCS#12 (.p12/.pfx) i përdorshëm.", "The certificate file is not a usable PKCS#12 (.p12/.pfx) file."],
  "The password does not open this certificate file.": ["Fjalëkalimi nuk e hap këtë skedar certifikate."],
  "The certificate does not belong to NUIS {}.": ["Certifikata nuk është e NIPT-it {1}."],
  "The certificate expired on {}: ask the certificate's issuer for a new one.": ["Certifikata ka skaduar më {1}: kërkoni një të re nga lëshuesi."],
  "The certificate is for NUIS {other}, not for this company's NUIS {}.": ["Certifikata është për NIPT {other}, jo për NIPT-in e kësaj kompanie {2}."],
  "The certificate is valid only from {}: upload it then.": ["Certifikata vlen vetëm nga {1}: ngarkojeni atëherë."],
  "The businessUnitCode must look like ab123cd456.": ["Kodi i njësisë duhet të duket si ab123cd456.", "The unit code must look like ab123cd456."],
  "The {field} must look like ab123cd456.": ["{field} duhet të duket si ab123cd456."],
  "The {name_field} field is required.": ["Fusha {name_field} është e detyrueshme."],
  "Branch not found.": ["Njësia nuk u gjet.", "The business unit was not found."],
  "The branchId field is required.": ["Zgjidhni njësinë.", "Choose the business unit."],
  "The currency must be a three-letter ISO 4217 code such as ALL or EUR.": ["Monedha duhet të jetë kod me tri shkronja, si ALL ose EUR."],
  "The email has already been taken.": ["Ky e-mail është i zënë nga një përdorues tjetër.", "This e-mail belongs to another user."],
  "The email must be a valid email address.": ["E-maili duhet të jetë një adresë e vlefshme.", "The e-mail must be a valid address."],
  "The fiscalTcrCode is a fiscal device of another business unit than the user's.": ["Arka është e një njësie tjetër, jo e njësisë së përdoruesit.", "The till belongs to another business unit than the user's."],
  "The fiscalTcrCode is not a fiscal device of this company: register one with POST /api/v1/on-boarding/fiscal-device.": ["Arka nuk është e kësaj kompanie: regjistroni një te Konfigurimi (Arkat fiskale).", "The till is not one of this company's: register one in Setup (Fiscal devices)."],
  "The iban is not a valid IBAN (its checksum does not match).": ["IBAN-i nuk është i vlefshëm (shifrat e kontrollit nuk përputhen).", "The IBAN is not valid (its check digits do not match)."],
  "The lastNonCashEInvoiceNumber must be at least 0.": ["Numri i fundit i e-faturës duhet të jetë të paktën 0.", "The last e-invoice number must be at least 0."],
  "The name field is required.": ["Fusha «Emri» është e detyrueshme.", "The name is required."],
  "The name field must not be empty.": ["Fusha «Emri» nuk mund të jetë bosh.", "The name must not be empty."],
  "The role must be one of owner, manager, cashier.": ["Roli duhet të jetë pronar, menaxher ose arkëtar."],
  "The user could not be saved.": ["Përdoruesi nuk u ruajt."],
  "The user's fiscal device {code} belongs to another business unit: send the fiscalTcrCode of a device of the new unit, or null to take the device away.": ["Arka {code} e përdoruesit është e një njësie tjetër: zgjidhni një arkë të njësisë së re, ose asnjë.", "The user's till {code} belongs to another business unit: choose a till of the new unit, or none."],
  // Fiscal devices (src/services/devices.rs)
  "Arka has no software code: set ARKA_SOFT_CODE (issued by the tax administration).": ["Arka nuk ka kod softueri: vendoseni te ARKA_SOFT_CODE (e jep administrata tatimore)."],
  "Arka has no software code: set ARKA_SOFT_CODE.": ["Arka nuk ka kod softueri: vendoseni te ARKA_SOFT_CODE."],
  "The branch has no businessUnitCode yet: set it with POST /api/v1/on-boarding/branch/{id}.": ["Njësia nuk ka ende kod njësie: vendoseni te Konfigurimi (Njësia e biznesit).", "The business unit has no unit code yet: set it in Setup (The business unit)."],
  "The fiscal register (CIS) could not be reached; try again.": ["Regjistri fiskal (CIS) nuk u arrit; provoni përsëri."],
  "The fiscalization service (CIS) could not be reached. Nothing was saved; try again.": ["Shërbimi i fiskalizimit (CIS) nuk u arrit. Asgjë nuk u ruajt; provoni përsëri."],
  "The fromDate field is required.": ["Fusha «Nga data» është e detyrueshme.", "The from date is required."],
  "The nipt field is required.": ["Fusha «NIPT» është e detyrueshme.", "The NUIS is required."],
  "The nipt must be a letter, eight digits and a letter.": ["NIPT-i duhet të jetë një shkronjë, tetë shifra dhe një shkronjë.", "The NUIS must be a letter, eight digits and a letter."],
  "The selected branch does not exist.": ["Njësia e zgjedhur nuk ekziston."],
  "The toDate must be a date after or equal to fromDate.": ["Data «Deri më» duhet të jetë e njëjtë ose pas datës «Nga».", "The to date must be the from date or after it."],
  // Invoices: the test sale, the list, cancellations (src/services/invoices, src/services/pipeline.rs, src/domain/cancellation.rs)
  "The lines field must be a list of lines; to cancel the whole invoice send no body or {}.": ["Artikujt për anulim nuk u lexuan.", "The lines to cancel could not be read."],
  "Another read of this token is running; try again.": ["Një lexim tjetër i këtij përdoruesi është në punë; provoni përsëri."],
  "An invoice issued with an invoice-level discount is cancelled whole only; send no lines.": ["Një faturë me zbritje në total anulohet vetëm e gjitha."],
  "An order invoice is cancelled whole only; send no lines.": ["Një faturë porosie anulohet vetëm e gjitha."],
  "No line of the invoice is {what}.": ["Fatura nuk ka artikull {what}."],
  "Only a cash invoice can be cancelled in part; send no lines to cancel it whole.": ["Vetëm një faturë me para në dorë anulohet pjesërisht; kjo anulohet e gjitha."],
  "The internalId must not be blank; send none to let Arka name the corrective document.": ["Numri i brendshëm nuk mund të jetë bosh.", "The internal number must not be blank."],
  "The invoice bills {name} ({code}) at different prices: send the price with VAT of the line to cancel.": ["Fatura ka {name} ({code}) me çmime të ndryshme: jepni çmimin me TVSH të artikullit për anulim."],
  "The invoice is already wholly cancelled.": ["Fatura është anuluar tashmë e gjitha."],
  "The lines field must hold at least one line; send no lines to cancel the whole invoice.": ["Shkruani sasinë e të paktën një artikulli.", "Write the quantity of at least one line."],
  "The {} field is required.": ["Fusha {1} është e detyrueshme."],
  "The {} field must be at least 0.": ["{1} duhet të jetë të paktën 0."],
  "The {field} field must be greater than 0.": ["{field} duhet të jetë mbi 0.", "{field} must be greater than 0."],
  "The {field} field must have at most 3 decimal places.": ["{field} mund të ketë deri në tri shifra pas presjes.", "{field} may have at most three decimals."],
  "The {} is above what remains to cancel of {name} ({code}): {}.": ["{1} është më shumë se sa mbetet për t'u anuluar nga {name} ({code}): {4}."],
  "A corrective document cannot be cancelled.": ["Një dokument korrigjues nuk anulohet."],
  "The invoice is not registered with the CIS yet (it waits for late delivery): cancel it once it is fiscalized.": ["Fatura nuk është regjistruar ende në CIS (pret dërgimin e mëvonshëm): anulojeni pasi të fiskalizohet."],
  "The order is paid by a summary invoice: cancel the summary.": ["Porosia është paguar me një faturë përmbledhëse: anuloni atë."],
  "A line total does not match price x quantity x (100 - discount) / 100.": ["Totali i një artikulli nuk përputhet me çmimin × sasinë, pas zbritjes."],
  "No invoice of the company has this IIC.": ["Asnjë faturë e kompanisë nuk ka këtë NSLF."],
  "The selected bank account does not exist.": ["Llogaria bankare e zgjedhur nuk ekziston."],
  "The selected client does not exist.": ["Klienti i zgjedhur nuk ekziston."],
  "The user has no business unit.": ["Përdoruesi nuk ka njësi biznesi."],
  "The user has no business unit: name one.": ["Përdoruesi nuk ka njësi biznesi: zgjidhni një."],
  "The user's business unit has no business unit code.": ["Njësia e përdoruesit nuk ka kod njësie."],
  "An order invoice is not open.": ["Fatura e porosisë nuk është e hapur."],
  "Another cancellation of this invoice is in progress; try again.": ["Një anulim tjetër i kësaj fature është në punë; provoni përsëri."],
  "The fiscalization service (CIS) is not reachable; the invoice was not saved. Retry with the same internalId.": ["Shërbimi i fiskalizimit (CIS) nuk përgjigjet; fatura nuk u ruajt. Provoni përsëri.", "The fiscalization service (CIS) is not reachable; the invoice was not saved. Try again."],
  "The invoice was cancelled meanwhile; send the cancellation again.": ["Fatura u anulua ndërkohë; dërgoni anulimin përsëri."],
  "Another document of this sequence is being issued; try again.": ["Një dokument tjetër i së njëjtës numërim po lëshohet; provoni përsëri."],
  "The document holds the control character U+{:04X}, which a fiscal document cannot carry; nothing was issued.": ["Dokumenti ka shenjën e kontrollit U+{1}, që një dokument fiskal nuk e mban; asgjë nuk u lëshua."],
  "{} with this internalId is being issued.": ["{1} me këtë numër të brendshëm po lëshohet.", "{1} with this internal number is being issued."],
  "{} with this internalId was already issued this year.": ["{1} me këtë numër të brendshëm është lëshuar tashmë këtë vit.", "{1} with this internal number was already issued this year."],
  "The head office, which keeps the business's non-cash numbering for the chain, cannot be reached: nothing was issued. Try again.": ["Zyra qendrore, që mban numërimin e faturave pa para në dorë për rrjetin, nuk u arrit: asgjë nuk u lëshua. Provoni përsëri."],
  "The internalId field is required.": ["Fusha «Numri i brendshëm» është e detyrueshme.", "The internal number is required."],
  "The internalId must not be greater than {MAX_INTERNAL_ID} characters.": ["Numri i brendshëm mund të ketë deri në {MAX_INTERNAL_ID} shenja.", "The internal number may have at most {MAX_INTERNAL_ID} characters."],
  "The {field} field contains the control character U+{:04X}, which a fiscal document cannot carry.": ["{field} ka shenjën e kontrollit U+{2}, që një dokument fiskal nuk e mban."],
  "The {field} field must not be greater than {max} characters.": ["{field} mund të ketë deri në {max} shenja."],
  "The invoice is already wholly cancelled, last by the corrective document {} ({}); read it with details by internalId.": ["Fatura është anuluar tërësisht, së fundi nga dokumenti korrigjues {1} ({2}).", "The invoice is already wholly cancelled, last by the corrective document {1} ({2})."],
  // Products, the catalog file and stock (src/api/products.rs, src/domain/product*.rs, src/domain/stock.rs, src/services)
  "The apply must be true or false.": ["Zbatimi duhet të jetë po ose jo.", "Apply must be yes or no."],
  "The file must be UTF-8 text (save it as CSV UTF-8).": ["Skedari duhet të jetë tekst UTF-8 (ruajeni si «CSV UTF-8»)."],
  "The color must be a hex color such as #1A2B3C.": ["Ngjyra duhet të jetë si #1A2B3C."],
  "The last_price field is required.": ["Fusha «Çmimi me TVSH» është e detyrueshme.", "The price with VAT is required."],
  "The unit_code must be up to 10 letters and digits (UN/ECE Rec. 20).": ["Njësia matëse ka deri në 10 shkronja dhe shifra (UN/ECE Rec. 20).", "The unit of measure is up to 10 letters and digits (UN/ECE Rec. 20)."],
  "The vat_exempt_type is allowed only with vat_rate 0.": ["Përjashtimi nga TVSH lejohet vetëm me TVSH 0.", "The VAT exemption is allowed only with VAT 0."],
  "The vat_exempt_type must be one of: {}.": ["Përjashtimi nga TVSH duhet të jetë një nga: {1}.", "The VAT exemption must be one of: {1}."],
  "The vat_rate field is required.": ["Fusha «TVSH» është e detyrueshme.", "The VAT rate is required."],
  "The vat_rate must be one of: 0, 6, 10, 20.": ["TVSH duhet të jetë një nga: 0, 6, 10, 20.", "The VAT rate must be one of: 0, 6, 10, 20."],
  "The {field} must be a number.": ["{field} duhet të jetë numër."],
  "A file may hold at most {MAX_ROWS} products.": ["Një skedar mban deri në {MAX_ROWS} produkte."],
  "The code is required: it tells a new product from one to change.": ["Kodi është i detyrueshëm: ai dallon një produkt të ri nga një për t'u ndryshuar."],
  "The code {code} is also on line {earlier}.": ["Kodi {code} është edhe në rreshtin {earlier}."],
  "The column {name} is not one of: {}.": ["Kolona {name} nuk është një nga: {2}."],
  "The column {name} is there twice.": ["Kolona {name} është dy herë."],
  "The column {needed} is required.": ["Kolona {needed} është e detyrueshme."],
  "The file has no product under its header.": ["Skedari nuk ka asnjë produkt nën rreshtin e parë."],
  "The file is empty: its first line names the columns.": ["Skedari është bosh: rreshti i parë emërton kolonat."],
  "The line cannot be read: {e}.": ["Rreshti nuk lexohet: {e}."],
  "The line has {} cells, the header {}.": ["Rreshti ka {1} qeliza, rreshti i parë {2}."],
  "The service must be true or false.": ["Shërbimi duhet të jetë true ose false."],
  "A category with this name already exists in this company.": ["Një kategori me këtë emër ekziston tashmë."],
  "A product with this code already exists in this company.": ["Një produkt me këtë kod ekziston tashmë."],
  "The selected id_category is invalid.": ["Kategoria e zgjedhur nuk është e vlefshme.", "The selected category is not valid."],
  "This product and its price are set by the chain's head office: change it there, and it comes down to every shop on their next sync.": ["Ky produkt dhe çmimi i tij caktohen nga zyra qendrore: ndryshojeni atje, dhe ndryshimi vjen në çdo dyqan me sinkronizimin e radhës."],
  "A correction must not be 0.": ["Korrigjimi nuk mund të jetë 0."],
  "A count must be at least 0.": ["Numërimi duhet të jetë të paktën 0."],
  "A delivery must be greater than 0.": ["Furnizimi duhet të jetë më i madh se 0."],
  "The adjustment could not be read.": ["Lëvizja nuk u lexua."],
  "The ids may name at most 1000 products.": ["Deri në 1000 produkte njëherësh.", "At most 1000 products at once."],
  "The ids must be product ids separated by commas; `{part}` is not one.": ["Produktet jepen me numrat e tyre, të ndarë me presje; «{part}» nuk është i tillë.", "Products are named by their numbers, separated by commas; “{part}” is not one."],
  "The kind field is required.": ["Zgjidhni lëvizjen.", "Choose the movement."],
  "The kind must be one of count, delivery, correction.": ["Lëvizja duhet të jetë numërim, furnizim ose korrigjim.", "The movement must be a count, a delivery or a correction."],
  "The quantity field is required.": ["Fusha «Sasia» është e detyrueshme.", "The quantity is required."],
  "The quantity field must have at most 3 decimal places.": ["Sasia mund të ketë deri në tri shifra pas presjes.", "The quantity may have at most three decimals."],
  "Everything the warehouse transfer note {} carried is invoiced already; cancel the invoice that counts it to name the note again.": ["Gjithçka e fletëdaljes {1} është faturuar tashmë; anuloni faturën që e numëron për ta përmendur përsëri."],
  "No business unit of the company has this id.": ["Asnjë njësi e kompanisë nuk ka këtë numër."],
  "No inventory article of the company has id {}.": ["Asnjë artikull magazine i kompanisë nuk ka numrin {1}."],
  "No warehouse transfer note of the company has this id.": ["Asnjë fletëdalje e kompanisë nuk ka këtë numër."],
  "There is not enough stock on the shelf for these lines.": ["Nuk ka mjaftueshëm gjendje për këta artikuj."],
  "There is not enough stock on the shelf for this correction.": ["Nuk ka mjaftueshëm gjendje për këtë korrigjim."],
  "This product is a service (service: true): only inventory articles have stock.": ["Ky produkt është shërbim: gjendje kanë vetëm mallrat.", "This product is a service: only goods have stock."],
  // A sale, its payments and a café's table, as the till sends them (src/domain/invoice*, src/domain/payments.rs, src/domain/discount.rs, src/domain/table.rs, src/services/invoices/table.rs)
  "A credit note (381) needs original_invoice_iic.": ["Një notë krediti (381) kërkon NSLF-në e faturës origjinale.", "A credit note (381) needs the original invoice's IIC."],
  "A fee is only accepted on a non-cash invoice.": ["Tarifa pranohet vetëm në një faturë pa para në dorë.", "A fee is accepted on a non-cash invoice only."],
  "A non-cash invoice needs a buyer.": ["Një faturë pa para në dorë kërkon një blerës."],
  "A non-cash invoice's buyer is identified by NUIS.": ["Blerësi i një fature pa para në dorë identifikohet me NIPT."],
  "A self-issued invoice needs the seller as client.": ["Një vetëfaturë kërkon shitësin si klient."],
  "A self-issued invoice needs the seller's NUIS or document number.": ["Një vetëfaturë kërkon NIPT-in ose numrin e dokumentit të shitësit."],
  "A self-issued invoice needs the seller's country.": ["Një vetëfaturë kërkon shtetin e shitësit."],
  "A summary invoice is paid with BANKNOTE or CARD.": ["Fatura përmbledhëse paguhet me para në dorë ose me kartë.", "A summary invoice is paid in cash or by card."],
  "A summary pays at most {MAX_ORDERS} order invoices.": ["Një faturë përmbledhëse paguan deri në {MAX_ORDERS} porosi.", "A summary invoice pays at most {MAX_ORDERS} orders."],
  "An order invoice cannot be settled.": ["Një porosi nuk mund të paguhet.", "An order cannot be paid."],
  "An order invoice takes no {field}: it is paid by its summary invoice, which takes the invoice discount.": ["Porosia nuk merr {field}: paguhet me faturën përmbledhëse, e cila merr edhe zbritjen e faturës.", "An order takes no {field}: it is paid by its summary invoice, which takes the invoice discount."],
  "No line of the order {iic} is in order_lines.": ["Asnjë rresht i porosisë {iic} nuk është zgjedhur.", "No line of the order {iic} is chosen."],
  "Only {} of the line is left to pay.": ["Nga ky rresht kanë mbetur për t'u paguar vetëm {1}.", "Only {1} of the line is left to pay."],
  "Part of the order is paid by a summary invoice: cancel the summary.": ["Një pjesë e porosisë është paguar me faturë përmbledhëse: anuloni faturën përmbledhëse."],
  "The IIC of an order invoice is required.": ["Mungon NSLF-ja e porosisë.", "The order's IIC is missing."],
  "The IIC of the line's order is required.": ["Mungon NSLF-ja e porosisë së rreshtit.", "The IIC of the line's order is missing."],
  "The client's NUIS must be a letter, eight digits and a letter.": ["NIPT-i i klientit është një shkronjë, tetë shifra dhe një shkronjë."],
  "The client's address and city are required.": ["Adresa dhe qyteti i klientit janë të detyrueshëm."],
  "The client.country must be a three-letter ISO 3166-1 alpha-3 code.": ["Shteti i klientit shkruhet me tri shkronja (ISO 3166-1, p.sh. ALB).", "The client's country is three letters (ISO 3166-1, e.g. ALB)."],
  "The client.id.type must be one of NUIS, ID, PASS, VAT, TAX, SOC.": ["Lloji i dokumentit të klientit është një nga NUIS, ID, PASS, VAT, TAX, SOC.", "The client's document type is one of NUIS, ID, PASS, VAT, TAX, SOC."],
  "The client.name field is required when a client is sent.": ["Emri i klientit është i detyrueshëm.", "The client's name is required."],
  "The company_card field is not accepted on the invoice; send it in the COMPANY element of payment_methods.": ["Karta e kompanisë nuk pranohet te fatura; dërgohet te pagesa me kartë kompanie.", "The company card is not accepted on the invoice; it goes with the company-card payment."],
  "The currency must be a three-letter ISO 4217 code.": ["Monedha shkruhet me tri shkronja (ISO 4217, p.sh. EUR).", "The currency is three letters (ISO 4217, e.g. EUR)."],
  "The doc_type must be one of 380, 381, 383.": ["Lloji i dokumentit është 380, 381 ose 383.", "The document type is 380, 381 or 383."],
  "The exchange_rate field must not be greater than {MAX_EXCHANGE_RATE}.": ["Kursi i këmbimit nuk mund të jetë më i madh se {MAX_EXCHANGE_RATE}.", "The exchange rate must not be greater than {MAX_EXCHANGE_RATE}."],
  "The fee field must be at least 0.": ["Tarifa duhet të jetë të paktën 0.", "The fee must be at least 0."],
  "The fee field must have at most 2 decimal places.": ["Tarifa ka deri në dy shifra pas presjes.", "The fee has at most two decimals."],
  "The fee field must not be greater than {MAX_AMOUNT}.": ["Tarifa nuk mund të jetë më e madhe se {MAX_AMOUNT}.", "The fee must not be greater than {MAX_AMOUNT}."],
  "The invoice_discount_value field must be at least 0.": ["Zbritja e faturës duhet të jetë të paktën 0.", "The invoice discount must be at least 0."],
  "The line is already named at order_lines.{first}.": ["Ky rresht është zgjedhur dy herë.", "This line is chosen twice."],
  "The line is paid already.": ["Ky rresht është paguar tashmë."],
  "The line's position in its order (from 0) is required.": ["Mungon rreshti i porosisë.", "The order's line is missing."],
  "The lines field is required and must hold at least one line.": ["Fatura duhet të ketë të paktën një artikull.", "The invoice needs at least one item."],
  "The lines field is required.": ["Fatura duhet të ketë artikuj.", "The invoice needs items."],
  "The lines field must not have more than {MAX_LINES} items.": ["Fatura mund të ketë deri në {MAX_LINES} artikuj.", "An invoice holds at most {MAX_LINES} items."],
  "The order {iic} is already named at order_invoices.{first}.": ["Porosia {iic} është zgjedhur dy herë.", "The order {iic} is chosen twice."],
  "The order {iic} is not named in order_invoices.": ["Porosia {iic} nuk është ndër porositë që paguhen.", "The order {iic} is not among the orders being paid."],
  "The order {} has no line {line}: its lines are 0 to {}.": ["Porosia {1} nuk ka rreshtin {line}.", "The order {1} has no line {line}."],
  "The order {} is still waiting for the fiscalization service (CIS); nothing was saved. Retry with the same internalId once it is fiscalized.": ["Porosia {1} pret ende shërbimin e fiskalizimit (CIS); asgjë nuk u ruajt. Provoni përsëri kur të jetë fiskalizuar.", "The order {1} still waits for the fiscalization service (CIS); nothing was saved. Try again once it is fiscalized."],
  "The order_invoices field must name at least one order invoice.": ["Zgjidhni të paktën një porosi.", "Choose at least one order."],
  "The order_lines field must name at least one line.": ["Zgjidhni të paktën një rresht.", "Choose at least one line."],
  "The order_lines field must not have more than {MAX_SUMMARY_LINES} items.": ["Mund të zgjidhni deri në {MAX_SUMMARY_LINES} rreshta.", "You may choose at most {MAX_SUMMARY_LINES} lines."],
  "The orders are in {of_orders}: the summary must be too.": ["Porositë janë në {of_orders}: edhe fatura përmbledhëse duhet të jetë."],
  "The orders of one summary must share one currency.": ["Porositë e një fature përmbledhëse duhet të jenë në një monedhë.", "The orders of one summary must be in one currency."],
  "The payment_method field is not accepted in v2; send payment_methods.": ["Versioni 2 nuk pranon një mënyrë pagese të vetme; pagesat dërgohen si listë.", "Version 2 takes no single payment method; the payments are sent as a list."],
  "The payment_method field is required.": ["Mungon mënyra e pagesës.", "The payment method is missing."],
  "The payment_methods field is required.": ["Mungojnë pagesat.", "The payments are missing."],
  "The payment_methods field must not have more than {MAX_PAYMENT_METHODS} items.": ["Një faturë ka deri në {MAX_PAYMENT_METHODS} pagesa.", "An invoice has at most {MAX_PAYMENT_METHODS} payments."],
  "The selected invoice_discount_type is invalid.": ["Lloji i zbritjes së faturës nuk është i vlefshëm.", "The invoice discount's type is not valid."],
  "The selected {key} is invalid.": ["Vlera e zgjedhur te {key} nuk është e vlefshme.", "The value chosen for {key} is not valid."],
  "The self_issue_type must be one of DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF.": ["Lloji i vetëfaturimit është një nga DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF.", "The self-issue type is one of DOMESTIC, ABROAD, OTHER, AGREEMENT, SELF."],
  "The sum of the payment_methods amounts ({paid}) must equal the invoice total after discount ({total}).": ["Pagesat ({paid}) duhet të jenë sa totali i faturës pas zbritjes ({total}).", "The payments ({paid}) must equal the invoice total after discount ({total})."],
  "The sum of the payment_methods amounts must equal the invoice total ({total}).": ["Pagesat duhet të jenë sa totali i faturës ({total}).", "The payments must equal the invoice total ({total})."],
  "The table field must not be greater than {MAX_TABLE_NAME} characters.": ["Emri i tavolinës ka deri në {MAX_TABLE_NAME} shenja.", "A table's name has at most {MAX_TABLE_NAME} characters."],
  "The vouchers field is not accepted on the invoice; send it in the SVOUCHER element of payment_methods.": ["Kuponët nuk pranohen te fatura; dërgohen te pagesa me kupon.", "Vouchers are not accepted on the invoice; they go with the voucher payment."],
  "The {amount_key} field is required.": ["Fusha {amount_key} është e detyrueshme."],
  "The {amount_key} field must have at most 2 decimal places.": ["{amount_key} ka deri në dy shifra pas presjes.", "{amount_key} has at most two decimals."],
  "The {card_key} field is only allowed when {type_key} is COMPANY.": ["{card_key} lejohet vetëm për pagesë me kartë kompanie.", "{card_key} is allowed only with a company-card payment."],
  "The {card_key} field is required when {type_key} is COMPANY.": ["{card_key} është e detyrueshme për pagesë me kartë kompanie.", "{card_key} is required for a company-card payment."],
  "The {card_key} field must not be greater than {MAX_COMPANY_CARD} characters.": ["{card_key} ka deri në {MAX_COMPANY_CARD} shenja.", "{card_key} has at most {MAX_COMPANY_CARD} characters."],
  "The {exempt_key} field must be one of TYPE_1, TYPE_2, EXPORT_OF_GOODS, TAX_FREE.": ["{exempt_key} është një nga TYPE_1, TYPE_2, EXPORT_OF_GOODS, TAX_FREE.", "{exempt_key} is one of TYPE_1, TYPE_2, EXPORT_OF_GOODS, TAX_FREE."],
  "The {item_key} field has a duplicate value.": ["{item_key} përsëritet.", "{item_key} is repeated."],
  "The {item_key} field must be a voucher number (number-year-NIPT).": ["{item_key} duhet të jetë numër kuponi (numër-vit-NIPT).", "{item_key} must be a voucher number (number-year-NUIS)."],
  "The {key} field must not have more than {MAX_VOUCHERS} items.": ["{key} ka deri në {MAX_VOUCHERS} elemente.", "{key} has at most {MAX_VOUCHERS} items."],
  "The {price_key} field is required.": ["Fusha {price_key} është e detyrueshme."],
  "The {price_key} field must be at least 0.": ["{price_key} duhet të jetë të paktën 0.", "{price_key} must be at least 0."],
  "The {quantity_key} field is required.": ["Fusha {quantity_key} është e detyrueshme."],
  "The {quantity_key} field must be greater than 0.": ["{quantity_key} duhet të jetë mbi 0.", "{quantity_key} must be greater than 0."],
  "The {quantity_key} field must have at most 3 decimal places.": ["{quantity_key} ka deri në tri shifra pas presjes.", "{quantity_key} has at most three decimals."],
  "The {total_key} field (price x quantity) must not be greater than {MAX_AMOUNT}.": ["{total_key} (çmimi × sasia) nuk mund të jetë më shumë se {MAX_AMOUNT}.", "{total_key} (price × quantity) must not be more than {MAX_AMOUNT}."],
  "The {total_key} field is required.": ["Fusha {total_key} është e detyrueshme."],
  "The {type_key} field has a duplicate value.": ["Kjo mënyrë pagese përsëritet.", "This payment method is repeated."],
  "The {vat_key} field is required.": ["Fusha {vat_key} është e detyrueshme."],
  "The {vat_key} field must be 0 when {exempt_key} is sent.": ["{vat_key} duhet të jetë 0 kur artikulli është i përjashtuar nga TVSH-ja.", "{vat_key} must be 0 when the item is exempt from VAT."],
  "The {vat_key} field must be one of 0, 6, 10, 20.": ["{vat_key} është 0, 6, 10 ose 20.", "{vat_key} is 0, 6, 10 or 20."],
  "order_invoices.{index}: line {} of the order {} has {} left to pay.": ["Nga rreshti {2} i porosisë {3} kanë mbetur për t'u paguar vetëm {4}: dikush tjetër e pagoi ndërkohë.", "Only {4} of line {2} of the order {3} is left to pay: someone else paid it meanwhile."],
  "order_invoices.{index}: the order {} is already settled.": ["Porosia {2} është paguar tashmë.", "The order {2} is paid already."],
  "The {vouchers_key} field is only allowed when {type_key} is SVOUCHER.": ["{vouchers_key} lejohen vetëm për pagesë me kupon.", "{vouchers_key} are allowed only with a voucher payment."],
  "The {vouchers_key} field is required when {type_key} is SVOUCHER.": ["{vouchers_key} janë të detyrueshëm për pagesë me kupon.", "{vouchers_key} are required for a voucher payment."],
  "The {} field must be between 0 and 100.": ["{1} duhet të jetë nga 0 deri në 100.", "{1} must be from 0 to 100."],
  // The till and its printer (src/api/till.rs, src/services/till.rs, src/domain/till.rs)
  "A receipt printer prints 48 or 42 columns.": ["Printeri i faturave shtyp 48 ose 42 kolona."],
  "Each prefix is a number from 20 to 29.": ["Çdo prefiks është një numër nga 20 deri në 29."],
  "No printer is set for the till {tcr_code}.": ["Arka {tcr_code} nuk ka printer."],
  "No printer is set for this till: print the PDF.": ["Kjo arkë nuk ka printer: printoni PDF-në."],
  "The cash tendered cannot be negative.": ["Paratë e dhëna nuk mund të jenë negative."],
  "The connection is network, device or none.": ["Lidhja është rrjet, pajisje USB ose asnjë.", "The connection is network, USB device or none."],
  "The discount is a percent from 0 to 100.": ["Zbritja është një përqindje nga 0 deri në 100."],
  "The item code has 4, 5 or 6 digits.": ["Kodi i artikullit ka 4, 5 ose 6 shifra."],
  "The printer does not answer: check that it is on and connected, then print again.": ["Printeri nuk përgjigjet: kontrolloni që është ndezur dhe i lidhur, pastaj printoni përsëri."],
  "The printer is out of paper: put in a new roll, then print again.": ["Printerit i ka mbaruar letra: vendosni një rrotull të re, pastaj printoni përsëri."],
  "The printer stopped while printing: check it, then print again.": ["Printeri u ndal gjatë shtypjes: kontrollojeni, pastaj printoni përsëri."],
  "The printer's address is host:port, e.g. 192.168.1.50:9100.": ["Adresa e printerit është host:port, p.sh. 192.168.1.50:9100."],
  "The printer's device file is under /dev/, e.g. /dev/usb/lp0.": ["Skedari i pajisjes së printerit është nën /dev/, p.sh. /dev/usb/lp0."],
  "The value is weight or price.": ["Vlera është pesha ose çmimi."],
  // The head office (src/hq/server/)
  "A branch is one shop's: name the shop too.": ["Një njësi është e një dyqani: zgjidhni edhe dyqanin."],
  "Invoice not found.": ["Fatura nuk u gjet."],
  "Several shops have a document of this id: name the shop.": ["Disa dyqane kanë dokument me këtë numër: zgjidhni dyqanin."],
  "The head office's database is not reachable.": ["Baza e të dhënave e zyrës qendrore nuk përgjigjet."],
  "The owner's name is required.": ["Emri i pronarit është i detyrueshëm."],
  "The owner's token is required.": ["Tokeni i pronarit është i detyrueshëm."],
  "The shop is not one of the chain's.": ["Dyqani nuk është i këtij rrjeti."],
  "The table is not one a shop ships.": ["Kjo tabelë nuk vjen nga dyqanet."],
  // The head office's answers to its shops (src/hq/shop_routes.rs), which a shop shows its owner
};

// A placeholder of a server's message: `{name}`, `{}` or `{name:spec}`; `{{` and `}}` are braces.
const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z0-9_]*)(?::[^}]*)?\}/g;

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A message's key as a pattern of the server's text, with the placeholders' names in order.
function compile(key, words) {
  const names = [];
  let pattern = '';
  let last = 0;
  for (const m of key.matchAll(PLACEHOLDER)) {
    pattern += escapeRegex(key.slice(last, m.index));
    if (m[0] === '{{' || m[0] === '}}') pattern += escapeRegex(m[0][0]);
    else {
      names.push(m[1]);
      pattern += '(.+?)';
    }
    last = m.index + m[0].length;
  }
  pattern += escapeRegex(key.slice(last));
  return { key, words, names, pattern: new RegExp(`^${pattern}$`, 's'), literal: key.replace(PLACEHOLDER, '').length };
}

let compiled = null;

// The longest literal text first, so that "The code field is required." wins over "The {key}
// field is required.".
function patterns() {
  compiled ??= Object.entries(MESSAGES).map(([key, words]) => compile(key, words)).sort((a, b) => b.literal - a.literal);
  return compiled;
}

const DOTTED = /^([A-Za-z_]+)\.(\d+)\.(.+)$/;

// An API field's key in words: «Shuma», «Sasia» (rreshti 1); null when it is none the page knows.
export function fieldWords(key, lang) {
  const i = lang === 'en' ? 1 : 0;
  const [open, close] = lang === 'en' ? ['“', '”'] : ['«', '»'];
  if (FIELDS[key]) return `${open}${FIELDS[key][i]}${close}`;
  const dotted = DOTTED.exec(key);
  if (!dotted || !FIELDS[dotted[3]]) return null;
  // `lines.0.quantity` counts from 0; a file's `line.3.code` is its third line.
  const n = Number(dotted[2]) + (dotted[1] === 'lines' ? 1 : 0);
  return `${open}${FIELDS[dotted[3]][i]}${close} (${['rreshti', 'line'][i]} ${n})`;
}

function valueWords(value, lang) {
  const i = lang === 'en' ? 1 : 0;
  return fieldWords(value, lang) ?? NOUNS[value]?.[i] ?? value;
}

// The server's `text` in `lang` ('sq' or 'en'), or null when the table has no words for it.
export function serverWords(text, lang) {
  if (typeof text !== 'string' || text === '') return null;
  for (const p of patterns()) {
    const hit = p.pattern.exec(text);
    if (!hit) continue;
    const values = hit.slice(1).map((v) => valueWords(v, lang));
    const template = (lang === 'en' ? p.words[1] : p.words[0]) ?? p.key;
    let seen = 0;
    const said = template.replace(PLACEHOLDER, (whole, name) => {
      if (whole === '{{' || whole === '}}') return whole[0];
      if (/^\d+$/.test(name)) return values[Number(name) - 1] ?? whole;
      const at = name ? p.names.indexOf(name) : seen;
      seen += 1;
      return at >= 0 && at < values.length ? values[at] : whole;
    });
    return said.charAt(0).toUpperCase() + said.slice(1);
  }
  return null;
}

// A refusal's envelope in `lang`: `message`, its message then its errors (a 400's `field: text`
// lines, a 422's messages by field), each said through the table, or as the server said it when
// the table has no words; `fields`, a 422's errors in words by the body's own key. `said` gives
// the page's own words for a 429 or a server error that came without a message of the server's.
export function refusalWords(status, body, lang, said = {}) {
  const words = (text) => serverWords(text, lang) ?? text;
  const fields = {};
  const errors = body?.errors;
  if (errors && !Array.isArray(errors) && typeof errors === 'object') {
    for (const [field, list] of Object.entries(errors)) fields[field] = [].concat(list).map(words).join(' ');
  }
  let message;
  if (status === 429 && !body?.message && said.throttled) message = said.throttled;
  else if (status >= 500 && (!body?.message || body.message === 'Server Error') && said.server) message = said.server;
  else {
    const line = (text) => serverWords(String(text), lang) ?? words(/^[\w.]+: (.+)$/s.exec(String(text))?.[1] ?? String(text));
    const parts = [body?.message ? words(body.message) : `HTTP ${status}`];
    if (Array.isArray(errors)) parts.push(...errors.map(line));
    else parts.push(...Object.values(fields));
    message = [...new Set(parts)].join(' — ');
  }
  return { message, fields };
}
