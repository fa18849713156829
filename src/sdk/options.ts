/**
 * Options of {@link IncidentSpanProcessor}: defaults in one place, validated
 * once at construction with messages that name the option.
 */
import type { MeterProvider } from '@opentelemetry/api';
import { z } from 'zod';
import type { ConventionAdapter } from '../conventions/adapter.js';
import { ADAPTERS } from '../conventions/index.js';
import type { Policy, PolicyInput } from '../derive/policy.js';
import { policySchema, resolvePolicy } from '../derive/policy.js';
import type { SanitizationOptions } from '../sanitize/sanitizer.js';

/** Options of `IncidentSpanProcessor`. Every field is optional. */
export interface IncidentSpanProcessorOptions {
  /** Retry-safety policy; see {@link Policy} for each field's default. */
  readonly policy?: PolicyInput;
  /**
   * Runs tracked at once. When a new run would exceed it, the oldest run's facts
   * are dropped (its spans are still exported) and the eviction is counted.
   * @default 10000
   */
  readonly maxOpenRuns?: number;
  /**
   * Time after which a run span that never ended is ended by the processor and
   * exported as `incomplete` / `crash_or_restart_incomplete` (`run_never_ended`),
   * counted from when the processor saw the run start (not from the span's
   * own start time). Any length: a run may last weeks.
   * @default 1800000 (30 minutes)
   */
  readonly maxRunAgeMillis?: number;
  /**
   * How often an idle processor looks for runs past `maxRunAgeMillis`; 0 turns
   * the timer off (runs are then checked only when new spans start, and at flush).
   * @default 60000
   */
  readonly sweepIntervalMillis?: number;
  /**
   * Where the `agent.runs`, lost-usage (docs/attributes.md#metrics-of-lost-usage) and
   * `agent_incidents.redactions` counters are created.
   * @default the global MeterProvider (`metrics.getMeterProvider()`)
   */
  readonly meterProvider?: MeterProvider;
  /**
   * What may leave the process: the mode (`standard`, `strict`, `off`), key
   * lists and patterns, extra value patterns, hashing and length limits. See
   * docs/sanitization.md; each field's default is in {@link SanitizationOptions}.
   * @default { mode: 'standard' }
   */
  readonly sanitization?: SanitizationOptions;
  /**
   * Values of `gen_ai.provider.name` kept as a metric attribute; others are
   * reported as `_OTHER` so the metric stays bounded.
   * @default the provider names of the GenAI semantic conventions
   */
  readonly metricProviderNames?: readonly string[];
  /**
   * Span conventions to read, first match wins. Advanced: the default covers
   * every supported convention.
   * @default ADAPTERS
   */
  readonly adapters?: readonly ConventionAdapter[];
}

/** Provider names of the GenAI semantic conventions (bounded metric values). */
export const GEN_AI_PROVIDER_NAMES: readonly string[] = [
  'openai',
  'anthropic',
  'aws.bedrock',
  'azure.ai.inference',
  'azure.ai.openai',
  'gcp.gen_ai',
  'gcp.vertex_ai',
  'gcp.gemini',
  'cohere',
  'deepseek',
  'groq',
  'ibm.watsonx.ai',
  'mistral_ai',
  'moonshot_ai',
  'perplexity',
  'x_ai',
];

/** The resolved options, every default applied. */
export interface ResolvedOptions {
  readonly policy: Policy;
  readonly maxOpenRuns: number;
  readonly maxRunAgeMillis: number;
  readonly sweepIntervalMillis: number;
  readonly meterProvider?: MeterProvider;
  readonly sanitization: SanitizationOptions;
  readonly metricProviderNames: ReadonlySet<string>;
  readonly adapters: readonly ConventionAdapter[];
}

/** Defaults of the numeric options, quoted by the README options table. */
export const DEFAULTS = Object.freeze({
  maxOpenRuns: 10_000,
  maxRunAgeMillis: 30 * 60 * 1000,
  sweepIntervalMillis: 60_000,
});

/** Defaults of the sanitization options, quoted by the README options table. */
export const SANITIZATION_DEFAULTS = Object.freeze({
  mode: 'standard',
  maxStringLength: 512,
  maxStackTraceLength: 2048,
});

const optionsSchema = z
  .object({
    policy: policySchema,
    maxOpenRuns: z.number().int().min(1).max(10_000_000),
    // Compared with a clock, never put in a timer: a run may last weeks (2^31 ms is 24.8 days).
    maxRunAgeMillis: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    sweepIntervalMillis: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1),
    meterProvider: z.custom<MeterProvider>((v) => typeof (v as MeterProvider | undefined)?.getMeter === 'function', {
      message: 'expected a MeterProvider (an object with getMeter)',
    }),
    sanitization: z
      .object({
        mode: z.enum(['standard', 'strict', 'off']),
        allowKeys: z.array(z.string().min(1)).max(10_000),
        allowKeyPatterns: z.array(z.string().min(1)).max(1000),
        blockKeys: z.array(z.string().min(1)).max(10_000),
        blockKeyPatterns: z.array(z.string().min(1)).max(1000),
        valuePatterns: z
          .array(
            z
              .object({
                pattern: z.string().min(1),
                kind: z
                  .string()
                  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'a lower-case word of at most 32 characters')
                  .optional(),
              })
              .strict(),
          )
          .max(100),
        hashKey: z.string().min(16, 'at least 16 characters'),
        maxStringLength: z.number().int().min(16).max(1_000_000),
        maxStackTraceLength: z.number().int().min(64).max(1_000_000),
      })
      .partial()
      .strict(),
    metricProviderNames: z.array(z.string()).max(1000),
    adapters: z.array(
      z.custom<ConventionAdapter>((v) => typeof (v as ConventionAdapter | undefined)?.extract === 'function', {
        message: 'expected a ConventionAdapter',
      }),
    ),
  })
  .partial()
  .strict();

/**
 * Validates `options` and applies {@link DEFAULTS}. Throws a `TypeError` whose
 * message names the first invalid option and what was expected.
 */
export function resolveOptions(options: IncidentSpanProcessorOptions = {}): ResolvedOptions {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') || 'options';
    throw new TypeError(`IncidentSpanProcessor: invalid option ${key}: ${issue?.message ?? 'invalid value'}`);
  }
  const o = parsed.data;
  return {
    policy: resolvePolicy(o.policy),
    maxOpenRuns: o.maxOpenRuns ?? DEFAULTS.maxOpenRuns,
    maxRunAgeMillis: o.maxRunAgeMillis ?? DEFAULTS.maxRunAgeMillis,
    sweepIntervalMillis: o.sweepIntervalMillis ?? DEFAULTS.sweepIntervalMillis,
    meterProvider: options.meterProvider,
    sanitization: { ...SANITIZATION_DEFAULTS, ...o.sanitization } as SanitizationOptions,
    metricProviderNames: new Set(o.metricProviderNames ?? GEN_AI_PROVIDER_NAMES),
    adapters: options.adapters ?? ADAPTERS,
  };
}
