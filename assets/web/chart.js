// A bar chart drawn as inline SVG: one bar per day, no library. The HTML parser places an <svg>
// element in the SVG namespace by itself, so the markup needs no namespace URL.

import { formatCents, toCents } from './format.js';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 16, right: 8, bottom: 28, left: 8 };

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// points: [{label, value}] with value an amount; returns a <figure> element.
export function barChart(points, caption) {
  const cents = points.map((p) => toCents(p.value) ?? 0);
  const top = Math.max(0, ...cents);
  const bottom = Math.min(0, ...cents);
  const span = top - bottom || 1;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = (WIDTH - PAD.left - PAD.right) / Math.max(points.length, 1);
  const y = (v) => PAD.top + ((top - v) / span) * plotHeight;
  const bars = points.map((p, i) => {
    const x = PAD.left + i * step + step * 0.1;
    const y0 = y(Math.max(cents[i], 0));
    const h = Math.max(Math.abs(y(cents[i]) - y(0)), cents[i] === 0 ? 0 : 1);
    return `<rect class="bar${cents[i] < 0 ? ' negative' : ''}" x="${x.toFixed(1)}" y="${y0.toFixed(1)}" `
      + `width="${(step * 0.8).toFixed(1)}" height="${h.toFixed(1)}"><title>${escape(p.label)}: ${formatCents(cents[i])}</title></rect>`;
  }).join('');
  const first = points[0]?.label ?? '';
  const last = points[points.length - 1]?.label ?? '';
  const figure = document.createElement('figure');
  figure.className = 'chart';
  figure.innerHTML = `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escape(caption)}">`
    + `<line class="axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}"></line>`
    + bars
    + `<text class="label" x="${PAD.left}" y="${HEIGHT - 8}">${escape(first)}</text>`
    + `<text class="label end" x="${WIDTH - PAD.right}" y="${HEIGHT - 8}">${escape(last)}</text>`
    + `<text class="label" x="${PAD.left}" y="12">${escape(formatCents(top))}</text>`
    + `</svg><figcaption>${escape(caption)}</figcaption>`;
  return figure;
}
