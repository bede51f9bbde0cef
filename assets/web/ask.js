// An amount field read in the page's language (amount.js), shared by the owner's page and the
// till: an entry that reads two ways ("5.000": five thousand, or five) is a question beside the
// field, answered with a click, never a guess; one that reads no way is said in words. A field
// says what it holds by its data- attributes: `data-places` (2 for lek, 3 for a quantity or a
// weight), `data-kind` (`percent` for a discount; lek or a quantity by its places otherwise),
// `data-negative`. The words of both, in both languages, are here.

import { readNumber, writeNumber } from './amount.js';
import { el } from './dom.js';

export const AMOUNT_WORDS = {
  'amount.empty': ['Shkruani një shumë në lekë.', 'Write an amount in lek.'],
  'amount.shape': ['Shkruani një shumë si 1.500 ose 1 500,50: pika ose hapësira ndan mijëshet, presja decimalet.', 'Write an amount such as 1,500 or 1 500.50: a comma or a space groups thousands, a dot marks the decimals.'],
  'amount.places': ['Lekët kanë deri në dy shifra pas presjes.', 'Lek have at most two decimals.'],
  'amount.negative': ['Shuma nuk mund të jetë negative.', 'The amount cannot be negative.'],
  'amount.emptyQuantity': ['Shkruani një sasi.', 'Write a quantity.'],
  'amount.shapeQuantity': ['Shkruani një sasi si 2 ose 1,5.', 'Write a quantity such as 2 or 1.5.'],
  'amount.placesQuantity': ['Sasia ka deri në tri shifra pas presjes.', 'A quantity has at most three decimals.'],
  'amount.negativeQuantity': ['Sasia nuk mund të jetë negative.', 'The quantity cannot be negative.'],
  'amount.emptyPercent': ['Shkruani një përqindje.', 'Write a percentage.'],
  'amount.shapePercent': ['Shkruani një përqindje si 10 ose 12,5.', 'Write a percentage such as 10 or 12.5.'],
  'amount.placesPercent': ['Përqindja ka deri në dy shifra pas presjes.', 'A percentage has at most two decimals.'],
  'amount.negativePercent': ['Përqindja nuk mund të jetë negative.', 'The percentage cannot be negative.'],
  'amount.ask': ['Si ta lexojmë «{text}»? Zgjidhni:', 'How should “{text}” be read? Choose:'],
  'amount.lek': ['lekë', 'lek'],
  'amount.fix': ['Do ta ndreq vetë', 'I will correct it'],
};

function words(key, lang) {
  return AMOUNT_WORDS[key][lang === 'en' ? 1 : 0];
}

function placesOf(control) {
  return Number(control.dataset.places);
}

// What an amount control holds: the reading the person chose for the text it has now, else the
// text read in `lang` (see amount.js for the answers).
export function amountOf(control, lang) {
  const places = placesOf(control);
  const [chosenText, chosenUnits] = (control.dataset.chosen || '').split('\n');
  if (control.dataset.chosen && chosenText === control.value) {
    const units = Number(chosenUnits);
    return { ok: true, units, value: units / 10 ** places };
  }
  return readNumber(control.value, lang, { places, negative: control.dataset.negative === 'true' });
}

// Why the control's entry reads no way (`reading.reason` other than `ambiguous`), in words.
export function refusalOf(control, reading, lang) {
  const kind = control.dataset.kind === 'percent' ? 'Percent' : placesOf(control) === 2 ? '' : 'Quantity';
  return words(`amount.${reading.reason}${kind}`, lang);
}

// An entry that reads two ways: each reading that fits as a button after the field (after its
// error line `<id>-error` when it has one); the one chosen is written back unmistakably and
// `chosen` runs (the form is sent again).
export function ask(control, readings, lang, chosen) {
  const places = placesOf(control);
  const lek = places === 2 && control.dataset.kind !== 'percent';
  const text = el('p', { id: `${control.id}-question-text` }, words('amount.ask', lang).replace('{text}', control.value.trim()));
  const choose = (units) => {
    control.value = writeNumber(units, lang, places);
    control.dataset.chosen = `${control.value}\n${units}`;
    box.remove();
    chosen();
  };
  const box = el('div', { class: 'question', id: `${control.id}-question`, role: 'group', 'aria-labelledby': text.id },
    text,
    el('p', { class: 'buttons' },
      readings.map((units) => el('button', { type: 'button', 'data-reading': units, onclick: () => choose(units) },
        `${writeNumber(units, lang, places)}${lek ? ` ${words('amount.lek', lang)}` : ''}`)),
      el('button', { type: 'button', onclick: () => { box.remove(); control.focus(); } }, words('amount.fix', lang))));
  (document.getElementById(`${control.id}-error`) || control).after(box);
  box.querySelector('button').focus();
}
