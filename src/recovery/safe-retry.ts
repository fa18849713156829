/**
 * safeRetry: retries a failed provider request automatically, and only when
 * the verdict says `auto_retry` — no visible output, no tool ran, the error
 * is retryable — and the task execution still has budget. The budget lives in
 * a {@link CounterStore}, so a restart does not hand out a fresh one.
 */
import type { RecoveryReason } from '../model/enums.js';
import { checkExhaustive } from '../model/exhaustive.js';
import { backoffDelay, waitUnlessAborted } from './backoff.js';
import type { CounterStore } from './counter-store.js';
import { InMemoryCounterStore } from './counter-store.js';
import { integerOption, MAX_WAIT_MILLIS } from './options.js';
import { assertRunOpen, preemptedAction, stopAction, stopOf } from './preempt.js';
import { recorded } from './record-action.js';
import type { DeferAction, RecoveryAction, RecoveryContext, RecoveryStrategy } from './strategy.js';
import type { Task } from './task.js';
import { counterKey, moveTask } from './task.js';

/** Options of {@link safeRetry}. */
export interface SafeRetryOptions {
  /**
   * Automatic retries per task execution. The run's own policy budget
   * (`Policy.maxAutoRetries`, per run) applies too: past it the verdict itself
   * stops saying `auto_retry`. @default 1
   */
  readonly maxAutoRetries?: number;
  /** Backoff before the first retry, before jitter. @default 1000 */
  readonly baseDelayMillis?: number;
  /** Upper bound of a computed backoff (at most 2³¹−1). @default 30000 */
  readonly maxDelayMillis?: number;
  /**
   * The longest `retry-after` honoured (at most 2³¹−1); a provider asking for
   * more gets `ask_user` (`retry_after_too_long`) instead of a silent long
   * wait. @default 60000
   */
  readonly maxRetryAfterMillis?: number;
  /** Where retries used are counted. @default a new InMemoryCounterStore */
  readonly store?: CounterStore;
  /** Source of jitter, in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** The registered name of {@link safeRetry}. */
export const SAFE_RETRY = 'safeRetry';

const NAME = SAFE_RETRY;

/** What the verdict asks for when it is not an automatic retry. */
function deferred(context: RecoveryContext): DeferAction {
  const { incident } = context;
  const task: Task = moveTask(context.task, 'FAILED');
  switch (incident.retrySafety) {
    case 'offer_continue':
      return { kind: 'offer_continue', reason: 'not_auto_retryable', strategy: NAME, task };
    case 'do_not_retry':
      return { kind: 'stop', reason: 'not_auto_retryable', strategy: NAME, task };
    case 'ask_user_before_retry':
    case 'unknown':
    case undefined:
    case 'auto_retry': // not reached: recover() retries an auto_retry verdict itself
      break;
    default:
      // A verdict outside the type (an incident built in JavaScript) asks the
      // user, the safe choice, as before.
      checkExhaustive(incident.retrySafety);
      break;
  }
  const reason: RecoveryReason =
    incident.retrySafetyReason === 'retry_budget_exhausted' ? 'retry_budget_exhausted' : 'not_auto_retryable';
  return { kind: 'ask_user', reason, strategy: NAME, task };
}

/**
 * Creates the safeRetry strategy. `recover` waits out the backoff itself
 * (exponential with equal jitter, or the provider's `retry-after`) and
 * records `retry_issued` on the run before it. A user cancel or lifecycle
 * close recorded before or during the wait abandons the retry: the action is
 * `stop` and the run reads `cancelled` or closed, never `recovered`. Call it
 * before `run.end()`: a retry continues the same run.
 * @example
 * const strategy = safeRetry({ maxAutoRetries: 1 });
 * const action = await strategy.recover(recoveryContext(run, task));
 * if (action.kind === 'retry') attempt = run.startAttempt({ boundary });
 */
export function safeRetry(options: SafeRetryOptions = {}): RecoveryStrategy {
  const maxAutoRetries = integerOption(NAME, 'maxAutoRetries', options.maxAutoRetries ?? 1, 0);
  const backoff = {
    baseDelayMillis: integerOption(NAME, 'baseDelayMillis', options.baseDelayMillis ?? 1000, 0, MAX_WAIT_MILLIS),
    maxDelayMillis: integerOption(NAME, 'maxDelayMillis', options.maxDelayMillis ?? 30_000, 0, MAX_WAIT_MILLIS),
  };
  const maxRetryAfterMillis = integerOption(
    NAME,
    'maxRetryAfterMillis',
    options.maxRetryAfterMillis ?? 60_000,
    0,
    MAX_WAIT_MILLIS,
  );
  const store = options.store ?? new InMemoryCounterStore();
  const random = options.random ?? Math.random;
  const exhausted = (context: RecoveryContext, reason: RecoveryReason): DeferAction => ({
    kind: 'ask_user',
    reason,
    strategy: NAME,
    task: moveTask(context.task, 'FAILED'),
  });

  async function recover(context: RecoveryContext): Promise<RecoveryAction> {
    assertRunOpen(context, NAME);
    const preempted = preemptedAction(context, NAME);
    if (preempted) return recorded(context, preempted);
    // The verdict is decided on the last attempt's own facts (a retried attempt's
    // facts never end the run, docs/conventions.md#fact-events), so a
    // second failure is never judged by the first attempt's clean record.
    if (context.incident.retrySafety !== 'auto_retry') return recorded(context, deferred(context));
    // A run can fail retryably with no provider attempt (an agent process that
    // exited with a stream error): then the whole run is what is retried.
    const failed = context.attempts.at(-1);
    const asked = failed?.retryAfterMillis;
    if (asked !== undefined && asked > maxRetryAfterMillis)
      return recorded(context, exhausted(context, 'retry_after_too_long'));
    const key = counterKey(NAME, context.task);
    if (((await store.get(key)) ?? 0) >= maxAutoRetries)
      return recorded(context, exhausted(context, 'retry_budget_exhausted'));
    // A stop that arrived while the store answered spends nothing.
    const early = stopOf(context);
    if (early) return recorded(context, stopAction(context, NAME, early));
    // Counted before the wait, atomically: a crash during the backoff does not
    // give the retry back, and two workers never both take the last one.
    const used = await store.increment(key);
    if (used > maxAutoRetries) return recorded(context, exhausted(context, 'retry_budget_exhausted'));
    // The server's word wins over our schedule; jitter would only wait longer.
    const delayMillis = asked ?? backoffDelay(used, backoff, random);
    context.run?.retryIssued(failed?.number, { delayMillis });
    const waited = await waitUnlessAborted(delayMillis, context.run?.signal);
    if (!waited) return recorded(context, stopAction(context, NAME, stopOf(context) ?? 'user_cancel'));
    return recorded(context, {
      kind: 'retry',
      reason: 'auto_retry_allowed',
      strategy: NAME,
      task: context.task,
      attempt: failed?.number ?? 0,
      delayMillis,
    });
  }

  return {
    name: NAME,
    recover,
    async finalize(task: Task): Promise<void> {
      await store.delete(counterKey(NAME, task));
    },
  };
}
