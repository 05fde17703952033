// Hand-written SVG chart of a benchmark run (no dependency): two panels of
// grouped bars, one group per config, one bar per implementation, log scales:
//   top:    member lookups per second (has, one key per call)
//   bottom: serialized bits per item (dashed line: the optimum log2(1/ε))
// bench/run.mjs writes it to bench/results/chart.svg.
import { fmtInt, fmtOpsRange } from './report.mjs';

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

/** The opening of an SVG document W × H: white background, a bold title at y = ys[0], grey lines (XML-escaped already) at ys[1..]. */
function svgHead(W, H, title, lines, ys = [26, 46, 64]) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="#ffffff"/>',
    `<text x="${W / 2}" y="${ys[0]}" text-anchor="middle" font-size="17" font-weight="bold">${title}</text>`,
    ...lines.map((line, i) => `<text x="${W / 2}" y="${ys[i + 1]}" text-anchor="middle" fill="#444">${line}</text>`),
  ];
}

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

  const out = svgHead(width, height, 'Approximate-membership filters on npm, real domain keys', ['median of the runs; log scales; dashed line: optimum log2(1/ε) bits per item; FN: the filter lost members (false negatives)'], [24, 43]);

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

// Line charts of the Bloom-or-cuckoo comparison (bench/compare.mjs), written by
// bench/run.mjs to bench/results/bloom-vs-cuckoo.svg and bench/results/fill.svg.

const SERIES_COLORS = {
  'cuckoo-b2': '#f4a582',
  'cuckoo-b4': '#d62728',
  'cuckoo-b8': '#67001f',
  'cuckoo-b4-semi': '#2ca02c',
  bloom: '#1f77b4',
  'bloom-x2': '#6baed6',
  cuckoo: '#d62728',
  'cuckoo-x2': '#f4a582',
};
const SERIES_NAMES = { 'cuckoo-b2': 'cuckoo, b = 2', 'cuckoo-b4': 'cuckoo, b = 4', 'cuckoo-b8': 'cuckoo, b = 8', 'cuckoo-b4-semi': 'cuckoo, b = 4 semi-sorted', bloom: 'Bloom' };

/** Width, left margin and panel width of the line charts. */
const PAGE = { W: 900, left: 90, pw: 900 - 90 - 30 };

/** A scale: value → pixel, log10 or linear, over [min, max] onto [p0, p1]. */
function scale(axis, p0, p1) {
  const t = axis.log ? (v) => Math.log10(v) : (v) => v;
  const a = t(axis.min);
  const b = t(axis.max);
  return (v) => p0 + ((t(v) - a) / (b - a)) * (p1 - p0);
}

const pct = (v) => `${+(v * 100).toPrecision(3)}%`;

/**
 * One panel of lines and markers at (left, top), size w × h, into `out`.
 * series: { name, color, points: [{ x, y, lo?, hi? }], dash?, marker? ('circle' | 'none' | 'cross-end'),
 * step? (hold y until the next x) }. Points outside the axes are clipped.
 */
function linePanel(out, { left, top, w, h, title, xAxis, yAxis, series, notes = [] }) {
  const X = scale(xAxis, left, left + w);
  const Y = scale(yAxis, top + h, top);
  const id = `clip${Math.round(left)}x${Math.round(top)}`;
  out.push(`<defs><clipPath id="${id}"><rect x="${left}" y="${top}" width="${w}" height="${h}"/></clipPath></defs>`);
  out.push(`<text x="${left}" y="${top - 12}" font-size="14" font-weight="bold">${esc(title)}</text>`);
  for (const t of yAxis.ticks) {
    const y = Y(t).toFixed(1);
    out.push(`<line x1="${left}" x2="${left + w}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`, `<text x="${left - 6}" y="${+y + 4}" text-anchor="end" fill="#333">${esc(yAxis.fmt(t))}</text>`);
  }
  const inside = (t) => t >= Math.min(xAxis.min, xAxis.max) && t <= Math.max(xAxis.min, xAxis.max);
  for (const t of xAxis.ticks.filter(inside)) {
    const x = X(t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${top + h}" stroke="#e3e3e3"/>`, `<text x="${x}" y="${top + h + 16}" text-anchor="middle" fill="#333">${esc(xAxis.fmt(t))}</text>`);
  }
  out.push(`<rect x="${left}" y="${top}" width="${w}" height="${h}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${left + w / 2}" y="${top + h + 34}" text-anchor="middle" fill="#222">${esc(xAxis.label)}</text>`);
  out.push(`<text x="${left - 48}" y="${top + h / 2}" text-anchor="middle" fill="#222" transform="rotate(-90 ${left - 48} ${top + h / 2})">${esc(yAxis.label)}</text>`);
  out.push(`<g clip-path="url(#${id})">`);
  for (const s of series) {
    const pts = s.points.filter((p) => p.y != null && Number.isFinite(p.y) && (!yAxis.log || p.y > 0));
    if (!pts.length) continue;
    if (s.line !== false) {
      let d = '';
      pts.forEach((p, i) => {
        const x = X(p.x).toFixed(1);
        const y = Y(p.y).toFixed(1);
        if (i === 0) d += `M${x},${y}`;
        else if (s.step) d += `H${x}V${y}`;
        else d += `L${x},${y}`;
      });
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.width ?? 2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    }
    if (s.marker && s.marker !== 'none') {
      for (const p of pts) {
        const x = X(p.x);
        const y = Y(p.y);
        if (p.lo != null && p.hi != null && (!yAxis.log || p.lo > 0)) {
          out.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${Y(p.lo).toFixed(1)}" y2="${Y(p.hi).toFixed(1)}" stroke="${s.color}" stroke-width="1.2"/>`);
        }
        const tip = `<title>${esc(`${s.name}: ${p.tip ?? ''}`)}</title>`;
        if (s.marker === 'square') out.push(`<rect x="${(x - 3.5).toFixed(1)}" y="${(y - 3.5).toFixed(1)}" width="7" height="7" fill="${s.color}">${tip}</rect>`);
        else out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5" fill="${s.color}" stroke="#fff" stroke-width="0.8">${tip}</circle>`);
      }
    }
    if (s.endMark) {
      const p = pts.at(-1);
      const x = X(p.x);
      const y = Y(p.y);
      out.push(
        `<path d="M${(x - 6).toFixed(1)},${(y - 6).toFixed(1)}L${(x + 6).toFixed(1)},${(y + 6).toFixed(1)}M${(x - 6).toFixed(1)},${(y + 6).toFixed(1)}L${(x + 6).toFixed(1)},${(y - 6).toFixed(1)}" stroke="${s.color}" stroke-width="2.5"/>`,
        `<text x="${(x + 9).toFixed(1)}" y="${(y - 8).toFixed(1)}" font-size="11" fill="${s.color}">${esc(s.endMark)}</text>`,
      );
    }
  }
  for (const n of notes) out.push(`<text x="${X(n.x) + (n.dx ?? 0)}" y="${Y(n.y) + (n.dy ?? 0)}" font-size="11" fill="${n.color ?? '#222'}"${n.anchor ? ` text-anchor="${n.anchor}"` : ''}>${esc(n.text)}</text>`);
  out.push('</g>');
}

/** Legend entries in rows of `perRow`, starting at (x, y). */
function legend(out, x, y, entries, perRow, colW) {
  entries.forEach((e, i) => {
    const lx = x + (i % perRow) * colW;
    const ly = y + Math.floor(i / perRow) * 20;
    out.push(`<line x1="${lx}" x2="${lx + 26}" y1="${ly}" y2="${ly}" stroke="${e.color}" stroke-width="${e.width ?? 2.5}"${e.dash ? ` stroke-dasharray="${e.dash}"` : ''}/>`);
    if (e.marker) out.push(`<circle cx="${lx + 13}" cy="${ly}" r="3.5" fill="${e.color}"/>`);
    out.push(`<text x="${lx + 32}" y="${ly + 4}">${esc(e.name)}</text>`);
  });
}

const decadeTicks = (lo, hi) => {
  const t = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); e <= Math.floor(Math.log10(hi) + 1e-9); ++e) t.push(10 ** e);
  return t;
};

/**
 * Bits per item and false-positive rate of the cuckoo filter (b = 2, 4, 8; b = 4 semi-sorted) and
 * the Bloom filter across ε, from bench/compare.mjs's result: three panels.
 * @param {object} res - compare.mjs measure() result. @returns {string} the SVG document.
 */
export function renderTradeoffChart(res) {
  const ids = ['cuckoo-b2', 'cuckoo-b4', 'cuckoo-b8', 'cuckoo-b4-semi', 'bloom'];
  const rows = res.sweep.rows;
  const grid = res.sizes.grid;
  const { W, left, pw } = PAGE;
  const ph = 270;
  const gap = 110;
  const top0 = 92;
  const H = top0 + 20 + 3 * ph + 2 * gap + 110;
  const out = svgHead(W, H, 'Cuckoo filter or Bloom filter: size and false-positive rate (cuckoo-wasm)', [
    esc(`${fmtInt(res.sweep.n)} real blocklisted domains per filter, filled to capacity; measured rate over ${fmtInt(res.sweep.realNonMembers)} real benign domains (+ derived ones at small ε)`),
    'lines: bits per item on a fine grid of ε (create only); dots: measured; whiskers: 95% interval; lower is better',
  ]);
  const epsMin = Math.min(...rows.map((r) => r.eps));
  const epsMax = Math.max(...rows.map((r) => r.eps));
  const xEps = { log: true, min: epsMax * 1.15, max: epsMin / 1.15, ticks: decadeTicks(epsMin, epsMax), fmt: pct, label: 'configured false-positive rate ε (the falsePositiveRate option)' };
  const maxBits = Math.ceil(Math.max(...rows.map((r) => r.bitsPerItem), ...grid.map((p) => Math.max(...ids.map((id) => p[id])))) / 5) * 5;
  const yBits = { min: 0, max: maxBits, ticks: Array.from({ length: maxBits / 5 + 1 }, (_, i) => i * 5), fmt: String, label: 'bits per item' };
  const lower = { name: 'lower bound log2(1/ε)', color: '#000', dash: '6,4', width: 1.5, points: grid.map((p) => ({ x: p.eps, y: Math.log2(1 / p.eps) })) };
  // Panel 1: bits per item against ε.
  const c4 = res.sizes.crossover['cuckoo-b4'];
  linePanel(out, {
    left,
    top: top0 + 20,
    w: pw,
    h: ph,
    title: 'Bits per item at the configured ε',
    xAxis: xEps,
    yAxis: yBits,
    series: [
      lower,
      ...ids.map((id) => ({ name: SERIES_NAMES[id], color: SERIES_COLORS[id], step: id !== 'bloom', width: id === 'cuckoo-b4' || id === 'bloom' ? 2.5 : 1.5, points: grid.map((p) => ({ x: p.eps, y: p[id] })) })),
      ...ids.map((id) => ({
        name: SERIES_NAMES[id],
        color: SERIES_COLORS[id],
        line: false,
        marker: 'circle',
        points: rows.filter((r) => r.id === id).map((r) => ({ x: r.eps, y: r.bitsPerItem, tip: `ε ${pct(r.eps)}: ${r.bitsPerItem.toFixed(2)} bits per item` })),
      })),
    ],
    notes: c4.alwaysBelow ? [{ x: c4.alwaysBelow, y: maxBits * 0.93, dx: 6, text: `cuckoo (b = 4) smaller than Bloom for every ε ≤ ${pct(c4.alwaysBelow)} →` }] : [],
  });
  if (c4.alwaysBelow) {
    const x = scale(xEps, left, left + pw)(c4.alwaysBelow).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${top0 + 20}" y2="${top0 + 20 + ph}" stroke="#d62728" stroke-dasharray="3,3"/>`);
  }
  // Panel 2: measured rate against ε.
  const rates = rows.flatMap((r) => [r.measured, r.interval[0], r.interval[1]]).filter((v) => v > 0);
  const yRate = { log: true, min: Math.min(...rates, epsMin) / 2, max: Math.max(...rates, epsMax) * 1.5, fmt: pct, label: 'measured false-positive rate' };
  yRate.ticks = decadeTicks(yRate.min, yRate.max);
  const offsets = { 'cuckoo-b2': 0.94, 'cuckoo-b4': 0.97, 'cuckoo-b8': 1.0, 'cuckoo-b4-semi': 1.03, bloom: 1.06 };
  linePanel(out, {
    left,
    top: top0 + 20 + ph + gap,
    w: pw,
    h: ph,
    title: 'Measured false-positive rate at capacity (line: the configured ε)',
    xAxis: xEps,
    yAxis: yRate,
    series: [
      { name: 'ε', color: '#000', dash: '6,4', width: 1.5, points: [{ x: xEps.min, y: xEps.min }, { x: xEps.max, y: xEps.max }] },
      ...ids.map((id) => ({
        name: SERIES_NAMES[id],
        color: SERIES_COLORS[id],
        width: 1,
        marker: 'circle',
        points: rows.filter((r) => r.id === id).map((r) => ({ x: r.eps * offsets[id], y: r.measured, lo: r.interval[0], hi: r.interval[1], tip: `ε ${pct(r.eps)}: ${r.falsePositives} of ${fmtInt(r.nonMembers)} = ${pct(r.measured)}` })),
      })),
    ],
  });
  // Panel 3: bits per item against the measured rate.
  const xRate = { log: true, min: yRate.max, max: yRate.min, ticks: yRate.ticks, fmt: pct, label: 'measured false-positive rate' };
  const span = [];
  for (let i = 0; i <= 100; ++i) span.push(10 ** (Math.log10(xRate.min) + (i / 100) * (Math.log10(xRate.max) - Math.log10(xRate.min))));
  linePanel(out, {
    left,
    top: top0 + 20 + 2 * (ph + gap),
    w: pw,
    h: ph,
    title: 'Bits per item at the rate each filter measured (the like-for-like comparison)',
    xAxis: xRate,
    yAxis: yBits,
    series: [
      { name: 'lower bound', color: '#000', dash: '6,4', width: 1.5, points: span.map((p) => ({ x: p, y: Math.log2(1 / p) })) },
      { name: 'Bloom optimum', color: '#999', dash: '2,3', width: 1.5, points: span.map((p) => ({ x: p, y: Math.log2(1 / p) / Math.LN2 })) },
      ...ids.map((id) => ({
        name: SERIES_NAMES[id],
        color: SERIES_COLORS[id],
        width: 1.2,
        marker: 'circle',
        points: rows.filter((r) => r.id === id && r.measured > 0).map((r) => ({ x: r.measured, y: r.bitsPerItem, tip: `configured ε ${pct(r.eps)}: measured ${pct(r.measured)}, ${r.bitsPerItem.toFixed(2)} bits per item` })),
      })),
    ],
  });
  legend(out, left, H - 56, ids.map((id) => ({ name: SERIES_NAMES[id], color: SERIES_COLORS[id], marker: true })), 4, 190);
  legend(
    out,
    left,
    H - 30,
    [
      { name: 'log2(1/ε): the lower bound (panels 1, 3); ε itself (panel 2)', color: '#000', dash: '6,4', width: 1.5 },
      { name: '1.44·log2(1/ε): a Bloom filter at its optimum (panel 3)', color: '#999', dash: '2,3', width: 1.5 },
    ],
    2,
    400,
  );
  out.push('</svg>', '');
  return out.join('\n');
}

/**
 * False-positive rate and bits per key as filters of capacity C fill to 4C,
 * without and with growth, from bench/compare.mjs's fill result.
 * @returns {string} the SVG document.
 */
export function renderFillChart(fill) {
  const { W, left, pw } = PAGE;
  const ph = 280;
  const top0 = 80;
  const gap = 100;
  const H = top0 + 20 + 2 * ph + gap + 90;
  const out = svgHead(W, H, 'Filling past capacity: false-positive rate without and with growth (cuckoo-wasm)', [
    esc(`capacity C = ${fmtInt(fill.capacity)}, ε = ${pct(fill.eps)}; keys: real blocklisted domains; rate over ${fmtInt(fill.nonMembers)} real benign domains`),
  ]);
  const xAxis = { min: 0, max: 4.1, ticks: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4], fmt: (t) => `${t}C`, label: 'keys added (multiples of the capacity C)' };
  const all = fill.curves.flatMap((c) => c.points.map((p) => p.measured)).filter((v) => v > 0);
  const yRate = { log: true, min: Math.min(...all, fill.eps / 100) / 1.5, max: 1, fmt: pct, label: 'measured false-positive rate' };
  yRate.ticks = decadeTicks(yRate.min, yRate.max);
  const style = {
    bloom: { color: SERIES_COLORS.bloom, dash: '7,4' },
    'bloom-x2': { color: SERIES_COLORS.bloom },
    cuckoo: { color: SERIES_COLORS['cuckoo-b4'], dash: '7,4' },
    'cuckoo-x2': { color: SERIES_COLORS['cuckoo-b4'] },
  };
  const series = (metric) =>
    fill.curves.map((c) => ({
      name: c.label,
      ...style[c.id],
      marker: 'circle',
      endMark: c.fullAt != null ? `full at ${(c.fullAt / fill.capacity).toFixed(2)}C: add throws` : undefined,
      points: c.points.map((p) => ({ x: p.x, y: p[metric], tip: `${(p.x).toFixed(2)}C: ${pct(p.measured)}, ${p.bitsPerKey.toFixed(1)} bits per key, ${p.subFilters} sub-filter(s)` })),
    }));
  linePanel(out, {
    left,
    top: top0 + 20,
    w: pw,
    h: ph,
    title: 'Measured false-positive rate as the filter fills (dashed black: ε)',
    xAxis,
    yAxis: yRate,
    series: [{ name: 'ε', color: '#000', dash: '4,4', width: 1.2, points: [{ x: 0, y: fill.eps }, { x: 4.1, y: fill.eps }] }, ...series('measured')],
  });
  const maxBits = Math.ceil(Math.max(...fill.curves.flatMap((c) => c.points.filter((p) => p.x >= 0.5).map((p) => p.bitsPerKey))) / 5) * 5;
  linePanel(out, {
    left,
    top: top0 + 20 + ph + gap,
    w: pw,
    h: ph,
    title: 'Size: serialized bits per key added (from 0.5C)',
    xAxis: { ...xAxis, min: 0.4 },
    yAxis: { min: 0, max: maxBits, ticks: Array.from({ length: maxBits / 5 + 1 }, (_, i) => i * 5), fmt: String, label: 'bits per key added' },
    series: series('bitsPerKey').map((s) => ({ ...s, endMark: undefined, points: s.points.filter((p) => p.x >= 0.5) })),
  });
  legend(out, left, H - 36, fill.curves.map((c) => ({ name: c.label, ...style[c.id], marker: true })), 2, 380);
  out.push('</svg>', '');
  return out.join('\n');
}
