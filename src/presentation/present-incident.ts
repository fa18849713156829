/**
 * Turns an incident verdict into words a user can act on: a title, a message,
 * a suggested action and a severity, in English or Simplified Chinese.
 *
 * The text is composed only from the closed enum values of the incident
 * (outcome, cause, cause detail, phase, retry safety and its reason). Free
 * text such as `errorCode` is never read, so provider messages, error codes
 * and anything a sanitizer missed cannot reach the user through this path.
 */
import type { Incident } from '../model/incident.js';
import type { Cause, Outcome, Phase, RetrySafety, RetrySafetyReason } from '../model/enums.js';
import {
  CAUSE_DETAILS,
  CAUSES,
  OUTCOMES,
  PHASES,
  RECOVERY_ACTIONS,
  RECOVERY_REASONS,
  RETRY_SAFETIES,
  RETRY_SAFETY_REASONS,
  isOneOf,
} from '../model/enums.js';
import type { CauseText, DetailText, MessageCatalog, SafetyText } from './message-catalog.js';
import { MESSAGES_EN } from './messages.en.js';
import { MESSAGES_ZH_CN } from './messages.zh-CN.js';

/** The locales {@link presentIncident} can write. */
export const PRESENTATION_LOCALES = ['en', 'zh-CN'] as const;
/** One of {@link PRESENTATION_LOCALES}. */
export type PresentationLocale = (typeof PRESENTATION_LOCALES)[number];

/** How prominently a UI should show the incident. */
export type Severity = 'info' | 'warning' | 'error';

/** What {@link presentIncident} returns: plain strings, never empty. */
export interface IncidentPresentation {
  /** A short headline, e.g. "Connection to the model service dropped". */
  readonly title: string;
  /** What happened, where it stopped and what that means for a retry. */
  readonly message: string;
  /** The one thing the user can do next. */
  readonly suggestedAction: string;
  /** `info` for success, recovery and cancels; `warning` when there is a way on; `error` otherwise. */
  readonly severity: Severity;
}

/** Options of {@link presentIncident}. */
export interface PresentIncidentOptions {
  /** Language of the text. Default `'en'`; an unsupported value also falls back to `'en'`. */
  readonly locale?: PresentationLocale;
}

const CATALOGS: Record<PresentationLocale, MessageCatalog> = { en: MESSAGES_EN, 'zh-CN': MESSAGES_ZH_CN };

/**
 * Describes an incident for the user who saw the run.
 *
 * - `success` and `recovered` are `info`; a recovered run says it recovered after a retry.
 * - cause `user_cancel` is always `info` and reads as the user's choice.
 * - `incomplete` is `warning`.
 * - `failed` is `warning` when there is a safe way on (`auto_retry`, `offer_continue`,
 *   `ask_user_before_retry`, or a host close) and `error` for `do_not_retry` or `unknown`.
 *
 * Missing fields get safe defaults: no cause reads as `unknown_interruption`, no
 * retry safety as `unknown`. A `causeDetail` outside the cause's closed list is ignored.
 *
 * @param incident the verdict; only its closed enum fields are read.
 * @param options `locale` defaults to `'en'`.
 */
export function presentIncident(incident: Incident, options: PresentIncidentOptions = {}): IncidentPresentation {
  const catalog = catalogFor(options.locale);
  const outcome: Outcome = isOneOf(OUTCOMES, incident.outcome) ? incident.outcome : 'failed';
  const cause = isOneOf(CAUSES, incident.cause) ? incident.cause : undefined;

  if (outcome === 'success') {
    return { ...pick(catalog.success), severity: 'info' };
  }
  if (outcome === 'recovered') {
    const { recovered } = catalog;
    const message = cause
      ? join(catalog, [causeParts(catalog, cause, incident.causeDetail).message, recovered.message])
      : recovered.messageWithoutCause;
    return { title: recovered.title, message, suggestedAction: recovered.action, severity: 'info' };
  }

  // A cancelled run always has cause user_cancel; keep that reading even if the cause went missing.
  const effectiveCause: Cause = cause ?? (outcome === 'cancelled' ? 'user_cancel' : 'unknown_interruption');
  const safety: RetrySafety = isOneOf(RETRY_SAFETIES, incident.retrySafety) ? incident.retrySafety : 'unknown';
  const reason = isOneOf(RETRY_SAFETY_REASONS, incident.retrySafetyReason) ? incident.retrySafetyReason : undefined;
  const phase: Phase = isOneOf(PHASES, incident.phase) ? incident.phase : 'unknown';

  const { title, message: causeMessage, fix } = causeParts(catalog, effectiveCause, incident.causeDetail);
  const safetyText = safetyFor(catalog, effectiveCause, safety, reason, fix, recoveryText(catalog, incident));
  const message = join(catalog, [
    causeMessage,
    catalog.phases[phase],
    safetyText.note,
    outcome === 'incomplete' ? catalog.incompleteNote : '',
  ]);
  const severity =
    incident.recovery?.action === 'fail' && effectiveCause !== 'user_cancel'
      ? 'error'
      : severityOf(outcome, effectiveCause, safety, reason);
  return { title, message, suggestedAction: safetyText.action, severity };
}

function catalogFor(locale: unknown): MessageCatalog {
  // `hasOwn`, not `in`: a locale such as "constructor" must fall back, not reach the prototype.
  return typeof locale === 'string' && Object.hasOwn(CATALOGS, locale)
    ? CATALOGS[locale as PresentationLocale]
    : MESSAGES_EN;
}

function pick(text: { title: string; message: string; action: string }): Omit<IncidentPresentation, 'severity'> {
  return { title: text.title, message: text.message, suggestedAction: text.action };
}

function causeParts(
  catalog: MessageCatalog,
  cause: Cause,
  rawDetail: string | undefined,
): { title: string; message: string; fix?: string } {
  const text: CauseText = catalog.causes[cause];
  // The detail is a lookup key only, and only when it is in the cause's closed list.
  const detail = isOneOf<string>(CAUSE_DETAILS[cause], rawDetail) ? rawDetail : undefined;
  const refined =
    detail === undefined ? undefined : (text.details as Partial<Record<string, DetailText>> | undefined)?.[detail];
  return { title: refined?.title ?? text.title, message: refined?.message ?? text.message, fix: refined?.fix };
}

/** The text of what a recovery strategy did, when it changes what happens next. */
function recoveryText(catalog: MessageCatalog, incident: Incident): SafetyText | undefined {
  const recovery = incident.recovery;
  if (!recovery) return undefined;
  const byReason = isOneOf(RECOVERY_REASONS, recovery.reason) ? catalog.recovery.reasons[recovery.reason] : undefined;
  return (
    byReason ?? (isOneOf(RECOVERY_ACTIONS, recovery.action) ? catalog.recovery.actions[recovery.action] : undefined)
  );
}

function safetyFor(
  catalog: MessageCatalog,
  cause: Cause,
  safety: RetrySafety,
  reason: RetrySafetyReason | undefined,
  fix: string | undefined,
  recovery: SafetyText | undefined,
): SafetyText {
  const base = catalog.safeties[safety];
  const byReason = reason ? catalog.reasons[reason] : undefined;
  const byCause = catalog.causes[cause].safety?.[safety];
  // The cause wins over everything: a cancel must stay a cancel. Then what the
  // runtime did wins over what the verdict allowed.
  const note = byCause?.note ?? recovery?.note ?? byReason?.note ?? base.note;
  const detailFix = safety === 'do_not_retry' ? fix : undefined;
  const action = byCause?.action ?? recovery?.action ?? detailFix ?? byReason?.action ?? base.action;
  return { note, action };
}

function severityOf(
  outcome: Outcome,
  cause: Cause,
  safety: RetrySafety,
  reason: RetrySafetyReason | undefined,
): Severity {
  if (outcome === 'cancelled' || cause === 'user_cancel') return 'info';
  if (outcome === 'incomplete') return 'warning';
  // The host chose to close the run; nothing is broken, the user only needs to start again.
  if (cause === 'local_lifecycle_close' || reason === 'user_cancel' || reason === 'local_lifecycle_close')
    return 'warning';
  return safety === 'do_not_retry' || safety === 'unknown' ? 'error' : 'warning';
}

function join(catalog: MessageCatalog, sentences: readonly string[]): string {
  return sentences.filter((s) => s.length > 0).join(catalog.separator);
}
