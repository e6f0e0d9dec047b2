/**
 * The report: Markdown with the scores and their intervals, a reliability diagram and accuracy by
 * option count as SVG. Drawn from the result document alone, with fixed number formats and no
 * dates, so the same responses always give the same bytes.
 */
import { binOf, ECE_BINS, probabilitiesOf, type Scores } from './metrics.ts'
import type { EvalResult } from './result.ts'

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a')
const px = (x: number) => (Math.round(x * 10) / 10).toFixed(1)
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const cell = (s: string) => s.replace(/\|/g, '\\|')

interface Bin {
  count: number
  conf: number
  acc: number
}

/** The headline probabilities' reliability: per bin of top confidence, its items, mean confidence and accuracy. */
export function reliabilityBins(r: EvalResult): Bin[] {
  const probs = probabilitiesOf(r.items, r.temperature ?? 1, r.mode === 'probabilities')
  const bins = Array.from({ length: ECE_BINS }, () => ({ count: 0, conf: 0, acc: 0 }))
  probs.forEach((p, i) => {
    let best = 0
    for (let k = 1; k < p.length; k++) if (p[k]! > p[best]!) best = k
    const b = bins[binOf(p[best]!)]!
    b.count++
    b.conf += p[best]!
    b.acc += best === r.items[i]!.gold ? 1 : 0
  })
  return bins.map((b) => (b.count ? { count: b.count, conf: b.conf / b.count, acc: b.acc / b.count } : b))
}

const W = 480
const H = 360
const M = { l: 56, r: 16, t: 36, b: 48 }
const IW = W - M.l - M.r
const IH = H - M.t - M.b
const X = (v: number) => M.l + v * IW
const Y = (v: number) => M.t + (1 - v) * IH

function frame(title: string, xLabel: string, ticksX: string): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title)}</title>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`,
  ]
  for (let t = 0; t <= 4; t++) {
    const v = t / 4
    out.push(
      `<line x1="${px(X(0))}" y1="${px(Y(v))}" x2="${px(X(1))}" y2="${px(Y(v))}" stroke="#e0e0e0"/>`,
      `<text x="${px(X(0) - 6)}" y="${px(Y(v) + 4)}" text-anchor="end">${v.toFixed(2)}</text>`,
    )
  }
  out.push(
    ticksX,
    `<line x1="${px(X(0))}" y1="${px(Y(0))}" x2="${px(X(1))}" y2="${px(Y(0))}" stroke="#000000"/>`,
    `<line x1="${px(X(0))}" y1="${px(Y(0))}" x2="${px(X(0))}" y2="${px(Y(1))}" stroke="#000000"/>`,
    `<text x="${W / 2}" y="${H - 10}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text x="14" y="${H / 2}" text-anchor="middle" transform="rotate(-90 14 ${H / 2})">accuracy</text>`,
  )
  return out
}

/** Accuracy against confidence per bin (bars at the bin, dots at the mean confidence), the diagonal for perfect calibration. */
export function reliabilitySvg(r: EvalResult): string {
  const bins = reliabilityBins(r)
  const ticks = [0, 0.2, 0.4, 0.6, 0.8, 1]
    .map((v) => `<text x="${px(X(v))}" y="${px(Y(0) + 16)}" text-anchor="middle">${v.toFixed(1)}</text>`)
    .join('')
  const out = frame(
    `Reliability (${r.mode === 'logits' ? 'calibrated' : 'as reported'}, ${r.items.length} test items)`,
    'top-option confidence',
    ticks,
  )
  out.push(`<line x1="${px(X(0))}" y1="${px(Y(0))}" x2="${px(X(1))}" y2="${px(Y(1))}" stroke="#888888" stroke-dasharray="4 4"/>`)
  bins.forEach((b, i) => {
    if (!b.count) return
    const x0 = X(i / ECE_BINS) + 1
    const w = IW / ECE_BINS - 2
    out.push(
      `<rect x="${px(x0)}" y="${px(Y(b.acc))}" width="${px(w)}" height="${px(Y(0) - Y(b.acc))}" fill="#4a7fb5" fill-opacity="0.75"><title>${b.count} items, accuracy ${f3(b.acc)}, confidence ${f3(b.conf)}</title></rect>`,
      `<circle cx="${px(X(b.conf))}" cy="${px(Y(b.acc))}" r="3" fill="#c0392b"/>`,
    )
  })
  out.push('</svg>', '')
  return out.join('\n')
}

/** Accuracy per option count, with its chance level 1/n marked. */
export function byNSvg(r: EvalResult): string {
  const keys = Object.keys(r.by_n).sort((a, b) => Number(a) - Number(b))
  const step = 1 / Math.max(1, keys.length)
  const ticks = keys
    .map((k, i) => `<text x="${px(X((i + 0.5) * step))}" y="${px(Y(0) + 16)}" text-anchor="middle">${esc(k)}</text>`)
    .join('')
  const out = frame('Accuracy by option count (test)', 'number of options (dashes: chance, 1/n)', ticks)
  keys.forEach((k, i) => {
    const s = r.by_n[k]!
    const x0 = X(i * step) + 6
    const w = step * IW - 12
    out.push(
      `<rect x="${px(x0)}" y="${px(Y(s.acc))}" width="${px(w)}" height="${px(Y(0) - Y(s.acc))}" fill="#4a7fb5"><title>${s.count} items, accuracy ${f3(s.acc)}</title></rect>`,
      `<text x="${px(x0 + w / 2)}" y="${px(Y(s.acc) - 4)}" text-anchor="middle">${f3(s.acc)}</text>`,
    )
    const chance = 1 / Number(k)
    if (Number.isFinite(chance))
      out.push(
        `<line x1="${px(x0)}" y1="${px(Y(chance))}" x2="${px(x0 + w)}" y2="${px(Y(chance))}" stroke="#c0392b" stroke-dasharray="4 3"/>`,
      )
  })
  out.push('</svg>', '')
  return out.join('\n')
}

const SCORE_COLS = ['acc', 'ece', 'nll', 'brier', 'mean_conf'] as const

function table(rows: Record<string, Scores>, name: string): string[] {
  return [
    `| ${name} | items | accuracy | ECE | NLL | Brier | mean confidence |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...Object.entries(rows).map(([k, s]) => `| ${cell(k)} | ${s.count} | ${SCORE_COLS.map((c) => f3(s[c])).join(' | ')} |`),
  ]
}

/** The Markdown report; `figures` names the two SVG files as the report links them. */
export function reportMarkdown(r: EvalResult, figures: { reliability: string; byN: string }): string {
  const blocks: [string, Scores][] =
    r.mode === 'logits'
      ? [
          ['raw (T = 1)', r.raw!],
          [`calibrated (T = ${f3(r.temperature!)})`, r.calibrated!],
        ]
      : [
          ['as reported', r.reported!],
          ...(r.normalised ? ([['normalised (no interval)', r.reported_normalised!]] as [string, Scores][]) : []),
        ]
  const ciOf = r.mode === 'logits' ? [r.intervals.raw!, r.intervals.calibrated!] : [r.intervals.reported!]
  const lines = [
    '# jev-bench evaluation',
    '',
    `- server: ${r.url} (${r.api}${r.model ? `, model ${r.model}` : ''}), mode ${r.mode}${r.assistant_prefix ? `, assistant prefix ${JSON.stringify(r.assistant_prefix)}` : ''}`,
    `- data: ${r.dataset.recipe}, dataset hash ${r.dataset.datasetHash.slice(0, 16)}…`,
    `- scored: ${r.items.length} test items; invalid answers: ${r.invalid.count}; probabilities summing to 1 only within 0.01: ${r.normalised}${r.labels_missing ? `; labels missing from top_logprobs: ${r.labels_missing.labels} (on ${r.labels_missing.items} items)` : ''}`,
    ...(r.gold_rounded_to_zero
      ? [`- the right option was rounded to 0.0 on ${r.gold_rounded_to_zero} items: NLL and Brier are inflated`]
      : []),
    `- always guessing would give ${f3(r.chance)}`,
    '',
    `Scores on test, with 95 % bootstrap intervals (${r.bootstrap.resamples} resamples, seed ${r.bootstrap.seed}):`,
    '',
    '| scores | accuracy | ECE | NLL | Brier | mean confidence |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...blocks.map(
      ([name, s], i) =>
        `| ${name} | ${SCORE_COLS.map((c) => (ciOf[i] ? `${f3(s[c])} [${f3(ciOf[i][c][0])}, ${f3(ciOf[i][c][1])}]` : f3(s[c]))).join(' | ')} |`,
    ),
    '',
    `![Reliability diagram](${figures.reliability})`,
    '',
    `## By option count${r.mode === 'logits' ? ' (calibrated)' : ''}`,
    '',
    ...table(r.by_n, 'options'),
    '',
    `![Accuracy by option count](${figures.byN})`,
    '',
    '## By source',
    '',
    ...table(r.by_source, 'source'),
    '',
    '## Grown and not grown (provenance.jsonl)',
    '',
    ...table(r.by_grown, 'items'),
    '',
    ...table(r.by_upstream_kept, 'upstream options kept'),
    '',
  ]
  if (r.invalid.count) {
    lines.push('## Invalid answers', '', '| split | id | why |', '| --- | --- | --- |')
    for (const it of r.invalid.items) lines.push(`| ${it.split} | ${cell(it.id)} | ${cell(it.why)} |`)
    lines.push('')
  }
  return lines.join('\n')
}
