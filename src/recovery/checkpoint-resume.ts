/**
 * checkpointResume: resumes a failed run from the last checkpoint the runtime
 * kept, a bounded number of times per task execution, then falls back to
 * fail-and-reassign. It refuses to resume over side effects the verdict
 * cannot rule out unless the runtime confirms them.
 */
import type { Incident } from '../model/incident.js';
import type { CounterStore } from './counter-store.js';
import { InMemoryCounterStore } from './counter-store.js';
import { failTask } from './fail-and-reassign.js';
import { integerOption } from './options.js';
import { assertRunOpen, preemptedAction } from './preempt.js';
import { recorded } from './record-action.js';
import type { Checkpoint, RecoveryAction, RecoveryContext, RecoveryStrategy } from './strategy.js';
import type { Task } from './task.js';
import { counterKey, moveTask, settleTask } from './task.js';

/** Options of {@link checkpointResume}. */
export interface CheckpointResumeOptions {
  /** The latest checkpoint of a task, or undefined when there is none. A loader that throws counts as none. */
  readonly loadCheckpoint: (task: Task) => Checkpoint | undefined | Promise<Checkpoint | undefined>;
  /** Resumes per task execution before falling back. @default 2 */
  readonly maxResumeAttempts?: number;
  /**
   * Asked when side effects may have happened ({@link sideEffectsMayHaveHappened}):
   * return true once the runtime reconciled them (e.g. checked what the tool
   * wrote, or knows the checkpoint already holds it). @default none — such a run is never resumed
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
 * True when the verdict cannot rule out a side effect a resume could repeat:
 * a tool that is not read-only started anywhere in the run (the verdict
 * cannot tell whether before or after the checkpoint), or the facts to tell
 * are missing. Fails closed, as the verdict does (`side_effect_facts_incomplete`,
 * docs/attributes.md#retry-safety-reasons).
 */
export function sideEffectsMayHaveHappened(incident: Incident): boolean {
  if (incident.sideEffects === 'unsafe' || incident.sideEffects === 'unknown') return true;
  const reason = incident.retrySafetyReason;
  return reason === 'unsafe_side_effect_started' || reason === 'side_effect_facts_incomplete';
}

/**
 * Creates the checkpointResume strategy. A resume keeps the task IN_PROGRESS
 * (an INTERRUPTED one moves back to it) and is numbered (`resumeAttempt`);
 * start the resumed run with
 * `RunRecorder.start({ continues: { spanContext, as: 'resume', resumeAttempt } })`
 * so its span links to the failed one. Unlike the other strategies it
 * resumes a run its host closed (a reload, a shutdown): that is what
 * checkpoints are for. Call `finalize(task)` when the task completes.
 */
export function checkpointResume(options: CheckpointResumeOptions): RecoveryStrategy {
  if (typeof options?.loadCheckpoint !== 'function') throw new TypeError(`${NAME}: loadCheckpoint must be a function`);
  const maxResumeAttempts = integerOption(NAME, 'maxResumeAttempts', options.maxResumeAttempts ?? 2, 0);
  const maxRetries = integerOption(NAME, 'maxRetries', options.maxRetries ?? 1, 0);
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
    assertRunOpen(context, NAME);
    const preempted = preemptedAction(context, NAME, { resumeAfterClose: true });
    if (preempted) return recorded(context, preempted);
    const key = counterKey(NAME, context.task);
    if (((await store.get(key)) ?? 0) >= maxResumeAttempts) {
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
    const resumeAttempt = await store.increment(key);
    if (resumeAttempt > maxResumeAttempts) {
      // Another worker took the last resume between the check and now.
      return recorded(context, failTask(context, NAME, maxRetries, 'resume_attempts_exhausted'));
    }
    // The task is not failed: it continues from the checkpoint (source system §F.3).
    return recorded(context, {
      kind: 'resume',
      reason: 'checkpoint_available',
      strategy: NAME,
      task: settleTask(context.task, 'IN_PROGRESS'),
      checkpoint,
      resumeAttempt,
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
