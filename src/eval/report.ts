/**
 * The report: Markdown with the scores and their intervals, by option count (pooled and
 * standardised to one source mix), by source, by source and option count, by upstream options
 * kept and on the clean subset; a reliability diagram and accuracy by option count as SVG. Drawn
 * from the result document alone, with fixed number formats and no dates, so the same responses
 * always give the same bytes.
 */
import type { Intervals } from './bootstrap.ts'
import type { Breakdowns, Figure, Standardised } from './figures.ts'
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
const HEAD = 'accuracy | ECE | NLL | Brier | mean confidence |'
const RULE = '---: | ---: | ---: | ---: | ---: |'

/** A score and its interval, as one cell. */
const withCi = (s: Scores, ci: Intervals | undefined, c: (typeof SCORE_COLS)[number]) =>
  ci ? `${f3(s[c])} [${f3(ci[c][0])}, ${f3(ci[c][1])}]` : f3(s[c])
const scoreCells = (s: Scores, ci?: Intervals) => SCORE_COLS.map((c) => withCi(s, ci, c)).join(' | ')
const num = (a: string, b: string) => Number(a) - Number(b)
const listed = (w: Record<string, number>) =>
  Object.entries(w)
    .map(([s, x]) => `${s} ${x.toFixed(3)}`)
    .join(', ')

/** Rows of figures: the leading cells, then items and the scores with their intervals. */
function figureRows(rows: [string[], Figure][], head: string[]): string[] {
  return [
    `| ${head.join(' | ')} | items | ${HEAD}`,
    `| ${head.map(() => '---').join(' | ')} | ---: | ${RULE}`,
    ...rows.map(([cells, f]) => `| ${cells.map(cell).join(' | ')} | ${f.count} | ${scoreCells(f, f.ci)} |`),
  ]
}

function byNRows(b: Pick<Breakdowns, 'by_n' | 'by_n_without_boolq'>): string[] {
  const rows: [string[], Figure][] = []
  for (const n of Object.keys(b.by_n).sort(num)) {
    rows.push([[n], b.by_n[n]!])
    const rest = b.by_n_without_boolq[n]
    if (rest) rows.push([[`${n} without boolq`], rest])
  }
  return figureRows(rows, ['options'])
}

function standardisedRows(s: Standardised, total: Record<string, Figure>): string[] {
  const ns = [...new Set([...Object.keys(s.by_n), ...Object.keys(s.missing)])].sort(num)
  return [
    `| options | items | ${HEAD}`,
    `| --- | ---: | ${RULE}`,
    ...ns.map((n) => {
      const f = s.by_n[n]
      if (f) return `| ${n} | ${f.count} | ${scoreCells(f, f.ci)} |`
      const missing = s.missing[n]!
      return `| ${n} | ${total[n]?.count ?? 0} | not standardised: ${missing.map(cell).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no item with ${n} options | | | | |`
    }),
  ]
}

function standardisedSection(b: Pick<Breakdowns, 'by_n' | 'standardised' | 'standardised_common'>, level: string, again = false): string[] {
  const s = b.standardised
  if (!s) return []
  const out = [
    `${level} Standardised to one source mix${again ? ' (clean)' : ''}`,
    '',
    again
      ? 'As for the whole split, with the same weights.'
      : `Each option count's scores as the mean of its per-source scores, weighted by the test split's non-BoolQ source shares (${listed(s.weights)}), so option counts are compared on the same mix of questions. ECE is that of the items so weighted, binned together (a weighted mean of per-source ECEs, \`ece_of_sources\` in the result, adds each small cell's upward bias).`,
    '',
    ...standardisedRows(s, b.by_n),
    '',
  ]
  const c = b.standardised_common
  if (c) {
    const left = s.sources.filter((x) => !c.sources.includes(x))
    out.push(
      `Over the sources present at every option count (${listed(c.weights)}; ${left.join(', ')} left out), so every option count is compared:`,
      '',
      ...standardisedRows(c, b.by_n),
      '',
    )
  }
  return out
}

function keptRows(b: Breakdowns): string[] {
  const rows: [string[], Figure][] = []
  for (const k of Object.keys(b.by_upstream_kept).sort(num)) {
    const byN = b.by_upstream_kept_n[k] ?? {}
    const ns = Object.keys(byN).sort(num)
    rows.push([[k, ns.length === 1 ? ns[0]! : 'all'], b.by_upstream_kept[k]!])
    if (ns.length > 1) for (const n of ns) rows.push([[k, n], byN[n]!])
  }
  return figureRows(rows, ['upstream options kept', 'options'])
}

function sourceNRows(b: Breakdowns): string[] {
  const rows: [string[], Figure][] = []
  for (const [source, byN] of Object.entries(b.by_source_n)) for (const n of Object.keys(byN).sort(num)) rows.push([[source, n], byN[n]!])
  return figureRows(rows, ['source', 'options'])
}

function temperatureLine(r: EvalResult): string[] {
  const fit = r.temperature_fit
  if (r.mode !== 'logits' || !fit) return []
  const [lo, hi] = fit.log_t_range
  const T = r.temperature!
  if (!fit.at_edge) return [`- temperature: T = ${f3(T)}, fitted on val (the reference search, log T in [${lo}, ${hi}])`]
  const u = fit.unbounded
  const beyond = u.at_limit
    ? `an unbounded fit finds no minimum: the val loss still falls at T = ${u.temperature.toPrecision(3)}`
    : `an unbounded fit gives T = ${u.temperature.toPrecision(4)} (val NLL ${f3(u.val_nll)}, against ${f3(fit.val_nll)} at the edge)`
  return [
    `- **temperature at the edge of the reference search**: T = ${f3(T)} is e^${Math.log(T) < 0 ? lo : hi}, the end of log T in [${lo}, ${hi}]; ${beyond}. The calibrated scores use the reference's T, as eval.py does.`,
  ]
}

function cleanSection(r: EvalResult): string[] {
  const c = r.clean
  if (!c)
    return [
      '## Clean subset',
      '',
      'The data marks no contamination (its provenance.jsonl has no `contamination`), so there is no clean subset to report.',
      '',
    ]
  const flagged = Object.entries(c.flagged_by_source)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ')
  const unchecked = c.not_checked.length ? ` Not checked against ${c.not_checked.join('; ')}: an overlap with them is not ruled out.` : ''
  if (c.flagged === 0)
    return [
      '## Clean subset',
      '',
      `No scored test item is flagged for contamination: the figures above are the clean subset's.${unchecked}`,
      '',
    ]
  const b = c.breakdowns
  return [
    '## Clean subset (items not flagged for contamination)',
    '',
    `${c.count} of ${r.items.length} test items; the ${c.flagged} flagged (${flagged}) are left out.${unchecked} The clean items are scored in the same resamples, at the same temperature, and standardised to the full split's mix.`,
    '',
    ...(c.scores ? [...figureRows([[['clean'], c.scores]], ['items']), ''] : []),
    '### By option count (clean)',
    '',
    ...byNRows(b),
    '',
    ...standardisedSection(b, '###', true),
    '### By source (clean)',
    '',
    ...figureRows(
      Object.entries(b.by_source).map(([s, f]) => [[s], f]),
      ['source'],
    ),
    '',
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
  const b = r.breakdowns
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
    ...temperatureLine(r),
    '',
    `Scores on test, with 95 % bootstrap intervals (${r.bootstrap.resamples} resamples, seed ${r.bootstrap.seed}):`,
    '',
    `| scores | ${HEAD}`,
    `| --- | ${RULE}`,
    ...blocks.map(([name, s], i) => `| ${name} | ${scoreCells(s, ciOf[i])} |`),
    '',
    `![Reliability diagram](${figures.reliability})`,
    '',
    `The breakdowns are of the ${b.scores === 'calibrated' ? `calibrated scores (T = ${f3(r.temperature!)})` : 'scores as reported'}. Each interval is the 95 % percentile interval of the same ${r.bootstrap.resamples} resamples, drawn within cells of one source, option count and number of upstream options kept, so a group keeps its make-up. ECE is biased upwards in small groups (a well calibrated group of ten items scores about 0.1), and in resamples too, so its interval can lie above the figure.`,
    '',
    '## By option count',
    '',
    'Pooled: every test item with that many options, whatever its source. BoolQ always has two options and is half of n = 2; the row without it follows.',
    '',
    ...byNRows(b),
    '',
    `![Accuracy by option count](${figures.byN})`,
    '',
    ...standardisedSection(b, '###'),
    '## By source',
    '',
    ...figureRows(
      Object.entries(b.by_source).map(([s, f]) => [[s], f]),
      ['source'],
    ),
    '',
    '## By source and option count',
    '',
    ...sourceNRows(b),
    '',
    '## By upstream options kept (provenance.jsonl)',
    '',
    "The options carried from the item's own upstream question; the rest were borrowed from other questions. A model that tells borrowed options from upstream ones faces, in effect, the upstream ones only: compare option counts within one number kept.",
    '',
    ...keptRows(b),
    '',
    ...cleanSection(r),
  ]
  if (r.invalid.count) {
    lines.push('## Invalid answers', '', '| split | id | why |', '| --- | --- | --- |')
    for (const it of r.invalid.items) lines.push(`| ${it.split} | ${cell(it.id)} | ${cell(it.why)} |`)
    lines.push('')
  }
  return lines.join('\n')
}
