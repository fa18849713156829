/**
 * Strategies by name, chosen by configuration. The three built-ins are
 * registered in every registry; a runtime adds its own with `register`.
 * Options come from configuration (validated by zod, errors name the key);
 * functions and stores, which configuration cannot hold, come as services.
 */
import { z } from 'zod';
import { safeCode } from '../derive/classify-error.js';
import { CHECKPOINT_RESUME, checkpointResume } from './checkpoint-resume.js';
import type { CheckpointResumeOptions } from './checkpoint-resume.js';
import type { CounterStore } from './counter-store.js';
import { FAIL_AND_REASSIGN, failAndReassign } from './fail-and-reassign.js';
import { MAX_WAIT_MILLIS } from './options.js';
import { SAFE_RETRY, safeRetry } from './safe-retry.js';
import type { RecoveryStrategy } from './strategy.js';

/** What a strategy may need beyond its options: code and storage, not configuration. */
export interface RecoveryServices {
  /** Counters of budgets and resumes. @default a new InMemoryCounterStore per strategy */
  readonly store?: CounterStore;
  /** Required by `checkpointResume`. */
  readonly loadCheckpoint?: CheckpointResumeOptions['loadCheckpoint'];
  readonly confirmSideEffects?: CheckpointResumeOptions['confirmSideEffects'];
  /** Jitter source of `safeRetry`. @default Math.random */
  readonly random?: () => number;
}

/** Builds a strategy from its (validated) options and the services. */
export type RecoveryStrategyFactory = (
  options: Record<string, unknown>,
  services: RecoveryServices,
) => RecoveryStrategy;

interface Registration {
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly factory: RecoveryStrategyFactory;
}

/** A configuration error: names the key that is wrong and why. */
export class RecoveryConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecoveryConfigError';
  }
}

/** The configuration of recovery: `{ strategy, options }`, e.g. parsed from YAML. */
export const recoveryConfigSchema = z
  .object({
    /** A registered name. */
    strategy: z.string().min(1),
    /** That strategy's options. @default {} */
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/** Input of {@link RecoveryRegistry.create}. */
export type RecoveryConfig = z.input<typeof recoveryConfigSchema>;

const count = z.number().int().min(0);
const millis = z.number().int().min(0).max(MAX_WAIT_MILLIS);

const BUILT_INS: Readonly<Record<string, Registration>> = {
  [SAFE_RETRY]: {
    schema: z
      .object({ maxAutoRetries: count, baseDelayMillis: millis, maxDelayMillis: millis, maxRetryAfterMillis: millis })
      .partial()
      .strict(),
    factory: (options, services) => safeRetry({ ...options, store: services.store, random: services.random }),
  },
  [FAIL_AND_REASSIGN]: {
    schema: z.object({ maxRetries: count }).partial().strict(),
    factory: (options) => failAndReassign(options),
  },
  [CHECKPOINT_RESUME]: {
    schema: z.object({ maxResumeAttempts: count, maxRetries: count }).partial().strict(),
    factory: (options, services) => {
      if (!services.loadCheckpoint)
        throw new RecoveryConfigError(`recovery.strategy: ${CHECKPOINT_RESUME} needs services.loadCheckpoint`);
      return checkpointResume({
        ...options,
        loadCheckpoint: services.loadCheckpoint,
        confirmSideEffects: services.confirmSideEffects,
        store: services.store,
      });
    },
  },
};

function describeIssues(error: z.ZodError, prefix: string): string {
  return error.issues.map((issue) => `${[prefix, ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
}

/** Recovery strategies by name. */
export class RecoveryRegistry {
  readonly #registrations = new Map<string, Registration>(Object.entries(BUILT_INS));

  /**
   * Registers a strategy under `name` (a safe token: it is recorded on spans).
   * `schema` validates its options. @throws when the name is taken or unsafe
   */
  register(
    name: string,
    factory: RecoveryStrategyFactory,
    schema: z.ZodType<Record<string, unknown>> = z.record(z.string(), z.unknown()),
  ): this {
    if (safeCode(name) !== name)
      throw new RecoveryConfigError(`strategy name must match [A-Za-z0-9_.:-]{1,64}, got ${JSON.stringify(name)}`);
    if (this.#registrations.has(name))
      throw new RecoveryConfigError(`a recovery strategy named ${name} is already registered`);
    this.#registrations.set(name, { schema, factory });
    return this;
  }

  /** The option keys a strategy's schema declares, or undefined when its schema is not an object. */
  optionKeys(name: string): string[] | undefined {
    const schema = this.#registrations.get(name)?.schema;
    return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
  }

  /** Registered names, built-ins first. */
  names(): string[] {
    return [...this.#registrations.keys()];
  }

  /**
   * The strategy `config` names, built with its validated options.
   * @throws RecoveryConfigError naming the key (`recovery.options.maxRetries: …`)
   */
  create(config: unknown, services: RecoveryServices = {}): RecoveryStrategy {
    const parsed = recoveryConfigSchema.safeParse(config);
    if (!parsed.success)
      throw new RecoveryConfigError(`invalid recovery config: ${describeIssues(parsed.error, 'recovery')}`);
    const registration = this.#registrations.get(parsed.data.strategy);
    if (!registration) {
      throw new RecoveryConfigError(
        `recovery.strategy: unknown strategy ${JSON.stringify(parsed.data.strategy)}; registered: ${this.names().join(', ')}`,
      );
    }
    const options = registration.schema.safeParse(parsed.data.options);
    if (!options.success)
      throw new RecoveryConfigError(`invalid recovery config: ${describeIssues(options.error, 'recovery.options')}`);
    const strategy = registration.factory(options.data, services);
    if (strategy.name !== parsed.data.strategy) {
      // The recorded name must be the configured one, or dashboards lose track of it.
      return { name: parsed.data.strategy, recover: (c) => strategy.recover(c), finalize: (t) => strategy.finalize(t) };
    }
    return strategy;
  }
}

/** A registry holding the built-ins: `safeRetry`, `failAndReassign`, `checkpointResume`. */
export function createRecoveryRegistry(): RecoveryRegistry {
  return new RecoveryRegistry();
}
