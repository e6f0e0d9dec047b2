/** The unit a number option is written in, so a borrowed number never brings another one (Amendment 1.2). */
import { isNumberLike } from './option-kinds.ts'

// spellings of one unit, to one name: "s", "sec", "seconds" are one unit; "°C" and "degrees Celsius" another
const SYNONYMS: [RegExp, string][] = [
  [/^(s|sec|secs|second|seconds)$/, 's'],
  [/^(min|mins|minute|minutes)$/, 'min'],
  [/^(h|hr|hrs|hour|hours)$/, 'h'],
  [/^(day|days)$/, 'day'],
  [/^(week|weeks)$/, 'week'],
  [/^(month|months)$/, 'month'],
  [/^(yr|yrs|year|years)$/, 'year'],
  [/^(m|meter|meters|metre|metres)$/, 'm'],
  [/^(cm|centimeter|centimeters|centimetre|centimetres)$/, 'cm'],
  [/^(mm|millimeter|millimeters)$/, 'mm'],
  [/^(km|kilometer|kilometers|kilometre|kilometres)$/, 'km'],
  [/^(g|gram|grams)$/, 'g'],
  [/^(kg|kilogram|kilograms)$/, 'kg'],
  [/^(n|newton|newtons)$/, 'N'],
  [/^(j|joule|joules)$/, 'J'],
  [/^(w|watt|watts)$/, 'W'],
  [/^(v|volt|volts)$/, 'V'],
  [/^(a|amp|amps|ampere|amperes)$/, 'A'],
  [/^(°c|degrees? c(elsius)?|c)$/, '°C'],
  [/^(°f|degrees? f(ahrenheit)?|f)$/, '°F'],
  [/^(%|percent|per cent)$/, '%'],
  [/^(\$|usd|dollars?)$/, '$'],
]

const CURRENCY = /^[+\-−±~≈]?\s?([$€£¥₹])/u

/**
 * The unit of a number-like option, as one name: "" for a bare number, null
 * for text that is not a number. Units are compared in lower case, with a
 * trailing full stop and a leading "of"/"per" phrase kept as written.
 */
export function unitOf(text: string): string | null {
  const t = text.trim()
  if (!isNumberLike(t)) return null
  const currency = CURRENCY.exec(t)
  if (currency) return currency[1] === '$' ? '$' : currency[1]!
  const unit = t
    .replace(/^[^\p{L}%‰°µ$]*/u, '')
    .replace(/[.\s]+$/u, '')
    .toLowerCase()
  if (unit === '') return ''
  for (const [re, name] of SYNONYMS) if (re.test(unit)) return name
  // "2.5 × 10^3 n": what follows the last digit group
  return unit
}

/**
 * Whether a set of options agrees in unit: the number-like ones all bare, or
 * all in one unit. A bare number among "5 s" and "7 s" is the common way
 * of writing the same quantity, so it is not a mismatch by itself.
 */
export function unitsAgree(options: readonly string[]): boolean {
  const units = new Set<string>()
  for (const o of options) {
    const u = unitOf(o)
    if (u !== null && u !== '') units.add(u)
  }
  return units.size <= 1
}
