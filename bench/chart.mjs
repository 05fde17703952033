// Hand-written SVG chart of a benchmark run (no dependency): two panels of
// grouped bars, one group per config, one bar per implementation, log scales:
//   top:    member lookups per second (has, one key per call)
//   bottom: serialized bits per item (dashed line: the optimum log2(1/ε))
// bench/run.mjs writes it to bench/results/chart.svg.
import { fmtInt, fmtOpsRange } from './format.mjs';

const COLORS = {
  'cuckoo-wasm': '#d62728',
  bloomfilter: '#1f77b4',
  'bloom-filters-bloom': '#17becf',
  'bloom-filters-cuckoo': '#ff7f0e',
  'cuckoo-filter': '#9467bd',
  set: '#7f7f7f',
};
const FALLBACK = ['#2ca02c', '#8c564b', '#e377c2', '#bcbd22'];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function fmtBits(v) {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/**
 * @param {{ label: string, eps?: number, rows: object[] }[]} groups - one per config; rows are
 *   bench/run.mjs summaries (impl, name, hasOps, serBits as {median, ...}).
 * @returns {string} the SVG document.
 */
export function renderChart(groups) {
  const impls = [];
  for (const g of groups) for (const r of g.rows) if (!impls.some((i) => i.impl === r.impl)) impls.push({ impl: r.impl, name: r.name });
  impls.forEach((i, k) => (i.color = COLORS[i.impl] ?? FALLBACK[k % FALLBACK.length]));

  const barW = 30;
  const gap = 4;
  const groupGap = 44;
  const left = 78;
  const right = 20;
  const groupW = impls.length * (barW + gap) - gap;
  const width = left + groups.length * (groupW + groupGap) - groupGap + right;
  const panelH = 260;
  const titleH = 54;
  const panelGap = 92;
  const legendH = 30 + Math.ceil(impls.length / 3) * 20;
  const height = titleH + 2 * panelH + panelGap + 60 + legendH;

  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="17" font-weight="bold">Approximate-membership filters on npm, real domain keys</text>`,
    `<text x="${width / 2}" y="43" text-anchor="middle" fill="#444">median of the runs; log scales; dashed line: optimum log2(1/ε) bits per item; FN: the filter lost members (false negatives)</text>`,
  );

  const panel = (top, title, metric, ticks, fmtValue, refLine, fmtTick = fmtValue) => {
    const lo = Math.log10(ticks[0]);
    const hi = Math.log10(ticks[ticks.length - 1]);
    const y = (v) => top + panelH - ((Math.log10(v) - lo) / (hi - lo)) * panelH;
    out.push(`<text x="${left}" y="${top - 12}" font-size="14" font-weight="bold">${esc(title)}</text>`);
    for (const t of ticks) {
      out.push(
        `<line x1="${left - 4}" x2="${width - right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`,
        `<text x="${left - 8}" y="${y(t) + 4}" text-anchor="end" fill="#333">${esc(fmtTick(t))}</text>`,
      );
    }
    out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + panelH}" stroke="#888"/>`);
    groups.forEach((g, gi) => {
      const gx = left + 10 + gi * (groupW + groupGap);
      impls.forEach((im, k) => {
        const row = g.rows.find((r) => r.impl === im.impl);
        const v = row?.[metric]?.median;
        const x = gx + k * (barW + gap);
        if (v == null || !(v > 0)) {
          out.push(`<text x="${x + barW / 2}" y="${top + panelH - 4}" text-anchor="middle" font-size="10" fill="#999">n/a</text>`);
          return;
        }
        const yv = Math.max(top, Math.min(y(v), top + panelH));
        out.push(
          `<rect x="${x}" y="${yv.toFixed(1)}" width="${barW}" height="${(top + panelH - yv).toFixed(1)}" fill="${im.color}"><title>${esc(`${im.name}, ${g.label}: ${fmtValue(v)}`)}</title></rect>`,
          `<text x="${x + barW / 2}" y="${(yv - 4).toFixed(1)}" text-anchor="middle" font-size="10" fill="#222">${esc(fmtValue(v))}</text>`,
        );
        // Implementations that lost members: say so on the bar.
        if (metric === 'hasOps' && row.falseNegatives?.max > 0) {
          const cx = x + barW / 2;
          const cy = top + panelH - 8;
          out.push(
            `<text x="${cx}" y="${cy}" transform="rotate(-90 ${cx} ${cy})" font-size="10" font-weight="bold" fill="#fff">FN</text>`,
          );
        }
      });
      if (refLine) {
        const r = refLine(g);
        if (r != null) {
          const ry = y(r);
          out.push(
            `<line x1="${gx - 4}" x2="${gx + groupW + 4}" y1="${ry.toFixed(1)}" y2="${ry.toFixed(1)}" stroke="#000" stroke-dasharray="5,3"/>`,
            `<text x="${gx - 6}" y="${(ry + 3).toFixed(1)}" text-anchor="end" font-size="9" fill="#000">${fmtBits(r)}</text>`,
          );
        }
      }
      out.push(`<text x="${gx + groupW / 2}" y="${top + panelH + 18}" text-anchor="middle" font-weight="bold">${esc(g.label)}</text>`);
    });
  };

  const opsTicks = [1e4, 1e5, 1e6, 1e7, 1e8];
  panel(
    titleH + 30,
    'Member lookups per second (has, one key per call; higher is better)',
    'hasOps',
    opsTicks,
    (v) => fmtOpsRange({ median: v, count: 1 }),
    null,
    (t) => ({ 1e4: '10k', 1e5: '100k', 1e6: '1M', 1e7: '10M', 1e8: '100M' })[t] ?? String(t),
  );
  const bitsTicks = [1, 10, 100, 1000, 10000];
  panel(
    titleH + 30 + panelH + panelGap,
    'Serialized size, bits per item (lower is better; JS Set: JSON of the keys)',
    'serBits',
    bitsTicks,
    fmtBits,
    (g) => (g.eps ? Math.log2(1 / g.eps) : null),
    fmtInt,
  );

  const ly = height - legendH + 14;
  impls.forEach((im, k) => {
    const col = k % 3;
    const rowI = Math.floor(k / 3);
    const x = left + col * 260;
    const yy = ly + rowI * 20;
    out.push(`<rect x="${x}" y="${yy - 10}" width="14" height="14" fill="${im.color}"/>`, `<text x="${x + 20}" y="${yy + 1}">${esc(im.name)}</text>`);
  });
  out.push('</svg>', '');
  return out.join('\n');
}
