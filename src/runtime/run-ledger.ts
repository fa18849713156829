/**
 * The run's ledger of its attempts, for recovery: when each started and
 * ended, the wait it asked for, the tokens and cost it reported, and the retry
 * that links the next attempt to the one it retries. From it come the attempt
 * history and the redacted snapshot a recovery strategy reads. No span I/O:
 * the recorders tell it what happened.
 */
import type { Link, SpanContext } from '@opentelemetry/api';
import { deriveAttemptVerdict } from '../derive/derive-incident.js';
import type { Policy } from '../derive/policy.js';
import type { RunFacts } from '../model/facts.js';
import type { Incident } from '../model/incident.js';
import type { AttemptHistoryEntry, AttemptUsage, RunSnapshot } from '../model/recovery.js';
import { NATIVE_ATTR as A } from '../model/native-convention.js';

/** How an attempt ended, as far as the ledger keeps it. */
export interface AttemptEnd {
  readonly retryAfterMillis?: number;
  readonly usage?: AttemptUsage;
  /** Its stream finished normally: it counts as a turn. @default false */
  readonly finished?: boolean;
}

/** The link of the next attempt to the attempt a retry was issued for. */
export interface RetryLink {
  readonly number: number;
  readonly link: Link;
}

interface AttemptEntry {
  /** The attempt's key in the fold. */
  readonly key: string;
  readonly number: number;
  readonly startMillis: number;
  readonly spanContext: SpanContext;
  endMillis?: number;
  retryAfterMillis?: number;
  usage?: AttemptUsage;
  finished?: boolean;
}

/** The attempts of one run, in order. */
export class RunLedger {
  readonly #clock: () => number;
  readonly #attempts: AttemptEntry[] = [];
  readonly #byNumber = new Map<number, AttemptEntry>();
  /** The attempt number a retry was issued for, until the next attempt takes the link. */
  #pendingRetryOf: number | undefined;

  /** `clock` times attempt ends (epoch milliseconds). */
  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** The 1-based number the next attempt gets. */
  get nextNumber(): number {
    return this.#attempts.length + 1;
  }

  /** An attempt started: `key` is its span's id in the fold. */
  attemptStarted(attempt: {
    readonly key: string;
    readonly number: number;
    readonly startMillis: number;
    readonly spanContext: SpanContext;
  }): void {
    const entry: AttemptEntry = { ...attempt };
    this.#attempts.push(entry);
    this.#byNumber.set(attempt.number, entry);
  }

  /** Attempt `number` ended now; only its first end counts. */
  attemptEnded(number: number, details: AttemptEnd): void {
    const entry = this.#byNumber.get(number);
    if (!entry || entry.endMillis !== undefined) return;
    entry.endMillis = this.#clock();
    if (details.retryAfterMillis !== undefined) entry.retryAfterMillis = details.retryAfterMillis;
    if (details.usage) entry.usage = details.usage;
    if (details.finished) entry.finished = true;
  }

  /** A retry of attempt `number` was issued: the next attempt links to it. */
  retryIssued(number: number | undefined): void {
    this.#pendingRetryOf = number;
  }

  /** The pending retry is abandoned (the run was stopped): a later attempt the user asks for is not its retry. */
  retryAbandoned(): void {
    this.#pendingRetryOf = undefined;
  }

  /** The link of the next attempt to the one a retry was issued for, once. */
  takeRetryLink(): RetryLink | undefined {
    const number = this.#pendingRetryOf;
    this.#pendingRetryOf = undefined;
    const spanContext = number === undefined ? undefined : this.#byNumber.get(number)?.spanContext;
    if (number === undefined || !spanContext) return undefined;
    return {
      number,
      link: { context: spanContext, attributes: { [A.LINK_TYPE]: 'retry_of', [A.RETRY_OF_ATTEMPT]: number } },
    };
  }

  /** Each attempt with its own verdict from the run's facts `run`, and whether it was retried. */
  history(run: RunFacts, policy: Policy): AttemptHistoryEntry[] {
    const retried = new Set(
      run.facts.flatMap((f) => (f.kind === 'retry_issued' && f.ofAttempt !== undefined ? [f.ofAttempt] : [])),
    );
    return this.#attempts.map((a) => {
      const verdict = deriveAttemptVerdict(run, a.key, policy);
      return {
        number: a.number,
        startMillis: a.startMillis,
        ...(a.endMillis !== undefined ? { endMillis: a.endMillis } : {}),
        retried: retried.has(a.key),
        ...(verdict ? { verdict } : {}),
        ...(a.retryAfterMillis !== undefined ? { retryAfterMillis: a.retryAfterMillis } : {}),
      };
    });
  }

  /**
   * The redacted snapshot of the run with verdict `incident`, lasting
   * `durationMillis`: turns, tokens and cost summed over the attempts. Token
   * counts and cost are only claimed when some attempt reported them.
   */
  snapshot(incident: Incident, durationMillis: number): RunSnapshot {
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let costUsd: number | undefined;
    let turns = 0;
    const durations: number[] = [];
    for (const a of this.#attempts) {
      if (a.finished) turns++;
      if (a.endMillis !== undefined) durations.push(Math.max(0, a.endMillis - a.startMillis));
      if (a.usage?.inputTokens !== undefined) inputTokens = (inputTokens ?? 0) + a.usage.inputTokens;
      if (a.usage?.outputTokens !== undefined) outputTokens = (outputTokens ?? 0) + a.usage.outputTokens;
      if (a.usage?.costUsd !== undefined) costUsd = (costUsd ?? 0) + a.usage.costUsd;
    }
    return {
      turns,
      attempts: incident.attempts,
      recoveredAttempts: incident.recoveredAttempts,
      ...(inputTokens !== undefined ? { inputTokens } : {}),
      ...(outputTokens !== undefined ? { outputTokens } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
      durationMillis: Math.max(0, durationMillis),
      attemptDurationsMillis: durations,
      outcome: incident.outcome,
      ...(incident.cause ? { cause: incident.cause } : {}),
      ...(incident.causeDetail ? { causeDetail: incident.causeDetail } : {}),
      ...(incident.phase ? { phase: incident.phase } : {}),
    };
  }
}
