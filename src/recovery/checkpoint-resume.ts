/**
 * checkpointResume: resumes a failed run from the last checkpoint the runtime
 * kept, a bounded number of times per task execution, then falls back to
 * fail-and-reassign. It refuses to resume over side effects the verdict
 * cannot rule out unless the runtime confirms them.
 */
import type { CounterStore } from './counter-store.js';
import { InMemoryCounterStore } from './counter-store.js';
import { failTask, preemptedAction, recorded, sideEffectsMayHaveHappened } from './decide.js';
import { checkMaxRetries } from './fail-and-reassign.js';
import type { Checkpoint, RecoveryAction, RecoveryContext, RecoveryStrategy } from './strategy.js';
import type { Task } from './task.js';
import { executionKey, moveTask } from './task.js';

/** Options of {@link checkpointResume}. */
export interface CheckpointResumeOptions {
  /** The latest checkpoint of a task, or undefined when there is none. Errors count as none. */
  readonly loadCheckpoint: (task: Task) => Checkpoint | undefined | Promise<Checkpoint | undefined>;
  /** Resumes per task execution before falling back. @default 2 */
  readonly maxResumeAttempts?: number;
  /**
   * Asked when the verdict says side effects may have happened since the
   * checkpoint: return true once the runtime reconciled them (e.g. checked
   * the file the tool wrote). @default none — such a run is never resumed
   */
  readonly confirmSideEffects?: (context: RecoveryContext) => boolean | Promise<boolean>;
  /** `maxRetries` of the fail-and-reassign fallback. @default 1 */
  readonly maxRetries?: number;
  /** Where resumes used are counted. @default a new InMemoryCounterStore */
  readonly store?: CounterStore;
}

/** The registered name of {@link checkpointResume}. */
export const CHECKPOINT_RESUME = 'checkpointResume';

const NAME = CHECKPOINT_RESUME;

/**
 * Creates the checkpointResume strategy. A resume keeps the task IN_PROGRESS
 * and is numbered (`resumeAttempt`); start the resumed run with
 * `RunRecorder.start({ continues: { spanContext, as: 'resume', resumeAttempt } })`
 * so its span links to the failed one. Call `finalize(task)` when the task
 * completes, which clears its counter.
 */
export function checkpointResume(options: CheckpointResumeOptions): RecoveryStrategy {
  if (typeof options?.loadCheckpoint !== 'function') throw new TypeError('checkpointResume: loadCheckpoint must be a function');
  const maxResumeAttempts = options.maxResumeAttempts ?? 2;
  if (!Number.isInteger(maxResumeAttempts) || maxResumeAttempts < 0) {
    throw new RangeError(`checkpointResume: maxResumeAttempts must be an integer >= 0, got ${maxResumeAttempts}`);
  }
  const maxRetries = checkMaxRetries(NAME, options.maxRetries ?? 1);
  const store = options.store ?? new InMemoryCounterStore();

  async function load(task: Task): Promise<Checkpoint | undefined> {
    try {
      return await options.loadCheckpoint(task);
    } catch {
      // A checkpoint that cannot be read is no checkpoint: fall back, never crash the recovery.
      return undefined;
    }
  }

  async function recover(context: RecoveryContext): Promise<RecoveryAction> {
    const preempted = preemptedAction(context, NAME);
    if (preempted) return recorded(context, preempted);
    const key = executionKey(context.task);
    const used = (await store.get(key)) ?? 0;
    if (used >= maxResumeAttempts) {
      // Exhausted: the counter is spent, and the task goes the fail-and-reassign way.
      await store.delete(key);
      return recorded(context, failTask(context, NAME, maxRetries, 'resume_attempts_exhausted'));
    }
    const checkpoint = await load(context.task);
    if (!checkpoint) return recorded(context, failTask(context, NAME, maxRetries, 'no_checkpoint'));
    if (sideEffectsMayHaveHappened(context.incident) && !(await options.confirmSideEffects?.(context))) {
      return recorded(context, {
        kind: 'ask_user',
        reason: 'side_effects_unconfirmed',
        strategy: NAME,
        task: moveTask(context.task, 'FAILED'),
      });
    }
    await store.set(key, used + 1);
    // The task is not failed: it continues from the checkpoint (source system §F.3).
    return recorded(context, { kind: 'resume', reason: 'checkpoint_available', strategy: NAME, task: context.task, checkpoint, resumeAttempt: used + 1 });
  }

  return {
    name: NAME,
    recover,
    async finalize(task: Task): Promise<void> {
      await store.delete(executionKey(task));
    },
  };
}
