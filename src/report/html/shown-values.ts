/**
 * How a value reads on the report page: counts with thousands separators and
 * the noun that agrees with them, an absent value as "none", and the tone
 * (colour class) of a closed outcome or retry-safety value; an unknown value
 * gets the neutral tone and changes nothing else.
 */
import type { Outcome, RetrySafety } from '../../model/enums.js';
import { isOneOf, OUTCOMES, RETRY_SAFETIES } from '../../model/enums.js';
import { counted } from '../plural.js';
import type { Html } from './markup.js';
import { html, trusted } from './markup.js';
import { nonNegative } from './timeline.js';
const OUTCOME_TONE: Record<Outcome, Tone> = {
  success: 'ok',
  recovered: 'info',
  failed: 'bad',
  cancelled: 'neutral',
  incomplete: 'warn',
};
const SAFETY_TONE: Record<RetrySafety, Tone> = {
  auto_retry: 'ok',
  offer_continue: 'info',
  ask_user_before_retry: 'warn',
  do_not_retry: 'bad',
  unknown: 'neutral',
};
type Tone = 'ok' | 'info' | 'warn' | 'bad' | 'neutral';

const NUMBER = new Intl.NumberFormat('en-US');

/** `n` with thousands separators; a bad count reads as 0. */
export function count(n: unknown): string {
  return NUMBER.format(Math.round(nonNegative(n)));
}

/** `n` with thousands separators and the form of its noun that agrees with the number shown: `1 run`, `1,204 runs`, a bad count `0 runs`. */
export function counting(n: unknown, singular: string, pluralForm?: string): string {
  return counted(Math.round(nonNegative(n)), singular, { plural: pluralForm, format: count });
}

/** The tone class of `value` on a dimension with tones (outcome, retry safety); none on others. */
export function toneClass(dimension: 'outcome' | 'retrySafety' | 'other', value: string): string {
  if (dimension === 'outcome') return isOneOf(OUTCOMES, value) ? ` c-${OUTCOME_TONE[value]}` : ' c-neutral';
  if (dimension === 'retrySafety') return isOneOf(RETRY_SAFETIES, value) ? ` c-${SAFETY_TONE[value]}` : ' c-neutral';
  return '';
}

/**
 * A value as shown: an absent one (`''` or undefined) is "none", never an
 * empty cell. A long identifier may wrap after its underscores (each part escaped).
 */
export function shown(value: string | undefined): Html {
  if (value === undefined || value === '') return html`<span class="is-none">none</span>`;
  return html`${value.split('_').map((part, i) => (i === 0 ? part : [trusted('_<wbr>'), part]))}`;
}
