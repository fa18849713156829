/**
 * The shape of a locale's text for {@link presentIncident}: every string a
 * locale needs, typed by the closed enums. A module of its own so the
 * catalogs (messages.*.ts) and present-incident.ts both import it and neither
 * imports the other's types: present-incident imports the catalogs, the
 * catalogs import only this module.
 */
import type {
  Cause,
  CauseDetail,
  Phase,
  RecoveryActionKind,
  RecoveryReason,
  RetrySafety,
  RetrySafetyReason,
} from '../model/enums.js';

/** A refinement of a cause's text for one of its details. Absent fields keep the cause's text. */
export interface DetailText {
  readonly title?: string;
  readonly message?: string;
  /**
   * The action to suggest when the retry safety is `do_not_retry`: retrying
   * will not help, so the useful advice is how to remove the cause.
   */
  readonly fix?: string;
}

/** What a retry safety means for the user: a sentence for the message and the action. */
export interface SafetyText {
  /** Appended to the message; may be empty when the cause already says it. */
  readonly note: string;
  /** The suggested action; never empty. */
  readonly action: string;
}

/** The text of one cause. `details` is keyed by that cause's own closed detail list. */
export interface CauseText<C extends Cause = Cause> {
  readonly title: string;
  /** What happened, in user terms and in the past tense (it is also used for recovered runs). */
  readonly message: string;
  readonly details?: Partial<Record<CauseDetail<C>, DetailText>>;
  /**
   * Replaces the retry-safety text for this cause. A cancel or a host close is
   * a choice, not a fault, so the generic "retrying will not help" wording
   * would misread it.
   */
  readonly safety?: Partial<Record<RetrySafety, Partial<SafetyText>>>;
}

/**
 * Every string a locale needs. The tables are typed by the closed enums, so a
 * cause, phase or retry safety added to `enums.ts` without text here is a
 * compile error rather than an empty message at run time.
 */
export interface MessageCatalog {
  /** Joins sentences: a space in English, nothing in Chinese. */
  readonly separator: string;
  readonly success: { readonly title: string; readonly message: string; readonly action: string };
  readonly recovered: {
    readonly title: string;
    /** Used after the cause's message when the cause is known. */
    readonly message: string;
    /** Used alone when the cause is unknown. */
    readonly messageWithoutCause: string;
    readonly action: string;
  };
  /** Appended for outcome `incomplete`: the record was cut off, so the verdict may be partial. */
  readonly incompleteNote: string;
  /** One text per cause of the cause table (src/model/cause-table.ts), keyed by the cause itself. */
  readonly causes: { readonly [C in Cause]: CauseText<C> };
  /** Where the run stopped; an empty string adds nothing. */
  readonly phases: Record<Phase, string>;
  readonly safeties: Record<RetrySafety, SafetyText>;
  /** Sharper text for some reasons, e.g. "automatic retries have been used up". */
  readonly reasons: Partial<Record<RetrySafetyReason, Partial<SafetyText>>>;
  /**
   * What the runtime's recovery strategy did (`incident.recovery`), where it
   * changes what happens next: it wins over the verdict's retry-safety text,
   * which says what *may* be done, not what was. By reason first, then by action.
   */
  readonly recovery: {
    readonly actions: Partial<Record<RecoveryActionKind, SafetyText>>;
    readonly reasons: Partial<Record<RecoveryReason, SafetyText>>;
  };
}
