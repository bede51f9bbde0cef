// Products: the catalog with a search, shown a page at a time (a shop of 5 000 products redraws
// one page per keystroke, not the whole catalog), a product added or changed (its price read in
// the page's language) in a form whose refusals sit beside their fields, the stock of a product
// in each business unit (and the owner's delivery, count or correction), and a CSV file
// imported: previewed line by line, then applied in one go (nothing is written while any line is
// refused). A cashier reads the catalog: the server refuses them its changes, so the page offers
// none.

import { api } from './api.js';
import { language, t } from './i18n.js';
import { el, money, table, toCents } from './format.js';
import { amountField, field, onSubmit, values } from './form.js';
import { writeNumber } from './amount.js';

let query = '';
let page = 0;

const VAT_RATES = ['20', '10', '6', '0'];
const PAGE_SIZE = 50;

function productForm(product, ctx, done) {
  const id = product ? `edit-${product.id}` : 'new';
  const rate = field(`product-${id}-vat`, 'vat_rate', t('prod.vat'), {}, {
    tag: 'select',
    children: VAT_RATES.map((r) => el('option', { value: r, selected: (product?.vat_rate ?? '20') === r }, `${r} %`)),
  });
  const form = el('form', { id: `product-form-${id}`, novalidate: true, class: 'product-form' },
    field(`product-${id}-code`, 'code', t('prod.code'), { value: product?.code ?? '', autocomplete: 'off' }, { hint: product ? null : t('prod.codeHint') }),
    field(`product-${id}-name`, 'name', t('prod.name'), { value: product?.name ?? '', required: true }),
    amountField(`product-${id}-price`, 'last_price', t('prod.price'), {
      value: product ? writeNumber(toCents(product.last_price) ?? 0, language()) : '', required: true,
    }),
    rate,
    // Goods have stock; a service (the API's default) has none.
    field(`product-${id}-service`, 'service', t('prod.service'), { type: 'checkbox', checked: product?.service ?? false }),
    el('button', { type: 'submit', class: 'primary' }, product ? t('prod.save') : t('prod.add')));
  return onSubmit(form, () => {
    const body = values(form);
    return product
      ? api(`/api/v1/products/${product.id}`, { method: 'PUT', body })
      : api('/api/v1/products', { method: 'POST', body });
  }, async (answer) => {
    ctx.setStatus(`${product ? t('prod.saved') : t('prod.added')} ${answer.data.product.code}`, 'ok');
    await done();
  });
}

async function stock(product, ctx) {
  const answer = await api(`/api/v1/stock/products/${product.id}`);
  if (!answer.ok) {
    ctx.setStatus(answer.message, 'error');
    return;
  }
  const levels = table([t('setup.unitCol'), t('prod.quantity')],
    (answer.data.levels || []).map((l) => [l.business_unit?.name ?? '', String(l.quantity)]), [1]);
  const form = el('form', { id: 'stock-form', novalidate: true },
    field('stock-kind', 'kind', t('prod.kind'), {}, {
      tag: 'select',
      children: ['delivery', 'count', 'correction'].map((k) => el('option', { value: k }, t(`prod.kind.${k}`))),
    }),
    amountField('stock-quantity', 'quantity', t('prod.quantity'), { required: true }, { places: 3, negative: true }),
    field('stock-note', 'note', t('prod.note'), { maxlength: 255 }),
    el('button', { type: 'submit', class: 'primary' }, t('prod.adjust')));
  onSubmit(form, () => api(`/api/v1/stock/products/${product.id}/adjustments`, { method: 'POST', body: values(form) }),
    async () => {
      ctx.setStatus(t('prod.adjusted'), 'ok');
      await stock(product, ctx);
    });
  ctx.openDialog(`${t('prod.stock')} · ${product.name} (${product.code})`, levels,
    ctx.allowed('owner manager') ? form : null);
}

// The file's refusals by line and column, in words.
function importErrors(answer) {
  const items = Object.entries(answer.fields || {}).map(([key, text]) => {
    const m = /^line\.(\d+)\.(.+)$/.exec(key);
    return el('li', { 'data-error': key }, m ? `${t('prod.line')} ${m[1]}: ${text}` : text);
  });
  return el('div', { class: 'form-error', role: 'alert', id: 'import-errors' },
    el('p', {}, items.length ? t('prod.importRefused') : answer.message), items.length ? el('ul', {}, items) : null);
}

function importForm(section, ctx) {
  const result = el('div', { id: 'import-result' });
  const form = el('form', { id: 'import-form', novalidate: true },
    field('import-file', 'file', t('prod.file'), { type: 'file', accept: '.csv,text/csv', required: true }, { hint: t('prod.fileHint') }),
    el('button', { type: 'submit' }, t('prod.preview')));
  let text = '';
  onSubmit(form, async () => {
    const file = form.querySelector('#import-file').files[0];
    if (!file) return { ok: false, fields: { file: t('prod.chooseFile') }, body: {} };
    text = await file.text();
    const answer = await api('/api/v1/products/import', { method: 'POST', body: text, raw: 'text/csv' });
    if (!answer.ok) result.replaceChildren(importErrors(answer));
    return answer.ok || answer.fields.file ? answer : { ok: false, fields: {}, body: { message: '' } };
  }, (answer) => {
    const d = answer.data;
    const apply = el('button', { type: 'button', class: 'primary', id: 'import-apply' }, t('prod.apply'));
    apply.addEventListener('click', async () => {
      apply.disabled = true;
      const done = await api('/api/v1/products/import', { method: 'POST', body: text, raw: 'text/csv', query: { apply: 'true' } });
      if (!done.ok) {
        result.replaceChildren(importErrors(done));
        return;
      }
      ctx.setStatus(`${t('prod.imported')} ${done.data.creates} + ${done.data.updates}`, 'ok');
      render(section, ctx);
    });
    result.replaceChildren(
      el('p', { id: 'import-summary' }, `${t('prod.willCreate')}: ${d.creates} · ${t('prod.willUpdate')}: ${d.updates}`),
      table([t('prod.line'), t('prod.action'), t('prod.code'), t('prod.name'), t('prod.price'), t('prod.vat')],
        d.rows.map((r) => [String(r.line), t(`prod.${r.action}`), r.code, r.name, money(r.last_price), `${r.vat_rate} %`]), [0, 4]),
      apply);
  });
  return el('div', { class: 'card' }, el('h3', {}, t('prod.import')), form, result);
}

// One page of the products `shown`, with the buttons of what the signed-in role may do.
function productRows(shown, section, ctx) {
  const writer = ctx.allowed('owner manager');
  return shown.map((p) => [
    p.code, p.name, el('span', { 'data-price': p.code }, money(p.last_price)), `${p.vat_rate} %`, p.unit ?? '',
    el('span', { class: 'buttons' },
      writer ? el('button', { type: 'button', class: 'small', 'data-edit': p.code, 'aria-label': `${t('prod.edit')} ${p.name}`,
        onclick: () => ctx.openDialog(`${t('prod.edit')} ${p.name}`, productForm(p, ctx, async () => { ctx.closeDialog(); await render(section, ctx); })) }, t('prod.edit')) : null,
      p.service ? null : el('button', { type: 'button', class: 'small', 'data-stock': p.code, 'aria-label': `${t('prod.stock')} ${p.name}`,
        onclick: () => stock(p, ctx) }, t('prod.stock'))),
  ]);
}

export async function render(section, ctx) {
  const answer = await api('/api/v1/products');
  if (!answer.ok) {
    section.replaceChildren(el('h2', {}, t('prod.title')), el('p', { class: 'error' }, answer.message));
    return;
  }
  const all = Array.isArray(answer.body?.data) ? answer.body.data : [];
  // What a search looks in, lowercased once for the whole catalog.
  const haystacks = all.map((p) => `${p.code || ''}\n${p.name}`.toLowerCase());
  const list = el('div', { id: 'product-list' });
  const draw = () => {
    const q = query.toLowerCase();
    const found = q ? all.filter((_, i) => haystacks[i].includes(q)) : all;
    page = Math.min(page, Math.max(0, Math.ceil(found.length / PAGE_SIZE) - 1));
    const first = page * PAGE_SIZE;
    const shown = found.slice(first, first + PAGE_SIZE);
    const move = (to) => () => { page = to; draw(); };
    list.replaceChildren(...(shown.length
      ? [table([t('prod.code'), t('prod.name'), t('prod.price'), t('prod.vat'), t('prod.unit'), ''], productRows(shown, section, ctx), [2]),
        el('p', { class: 'buttons', id: 'product-pages' },
          el('span', { id: 'product-shown' }, `${first + 1}–${first + shown.length} / ${found.length}`),
          el('button', { type: 'button', id: 'product-prev', disabled: page === 0, onclick: move(page - 1) }, t('inv.prev')),
          el('button', { type: 'button', id: 'product-next', disabled: first + shown.length >= found.length, onclick: move(page + 1) }, t('inv.next')))]
      : [el('p', {}, t('prod.none'))]));
  };
  const search = el('input', { id: 'product-search', type: 'search', value: query, autocomplete: 'off' });
  search.addEventListener('input', () => {
    query = search.value.trim();
    page = 0;
    draw();
  });
  draw();
  const writer = ctx.allowed('owner manager');
  section.replaceChildren(
    el('h2', {}, `${t('prod.title')} (${all.length})`),
    el('div', { class: 'filters' }, el('label', { for: 'product-search' }, t('prod.search')), search),
    list,
    writer ? el('div', { class: 'cards' },
      el('div', { class: 'card' }, el('h3', {}, t('prod.new')), productForm(null, ctx, () => render(section, ctx))),
      importForm(section, ctx)) : null);
}
