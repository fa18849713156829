/**
 * resolveOptions' promises (src/sdk/options.ts): every default in one place
 * (as the README's options table quotes them), a partial input filled with
 * them, and an invalid option a TypeError naming it.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/conventions/index.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { DEFAULTS, GEN_AI_PROVIDER_NAMES, resolveOptions, SANITIZATION_DEFAULTS } from '../../src/sdk/options.js';

describe('resolveOptions', () => {
  it('applies every default to no options', () => {
    expect(resolveOptions()).toEqual({
      policy: DEFAULT_POLICY,
      maxOpenRuns: 10_000,
      maxRunAgeMillis: 1_800_000,
      sweepIntervalMillis: 60_000,
      meterProvider: undefined,
      sanitization: { mode: 'standard', maxStringLength: 512, maxStackTraceLength: 2048 },
      metricProviderNames: new Set(GEN_AI_PROVIDER_NAMES),
      adapters: ADAPTERS,
    });
    expect([DEFAULTS, SANITIZATION_DEFAULTS].map(Object.isFrozen)).toEqual([true, true]);
  });

  it('keeps what is given and fills the rest, sanitization field by field', () => {
    const resolved = resolveOptions({
      policy: { maxAutoRetries: 0 },
      maxOpenRuns: 5,
      sweepIntervalMillis: 0,
      sanitization: { mode: 'strict' },
      metricProviderNames: ['mine'],
    });
    expect(resolved).toMatchObject({
      policy: { ...DEFAULT_POLICY, maxAutoRetries: 0 },
      maxOpenRuns: 5,
      maxRunAgeMillis: 1_800_000,
      sweepIntervalMillis: 0,
      sanitization: { mode: 'strict', maxStringLength: 512, maxStackTraceLength: 2048 },
    });
    expect([...resolved.metricProviderNames]).toEqual(['mine']);
  });

  it.each([
    [{ maxRunAgeMillis: 0 }, 'maxRunAgeMillis: Too small: expected number to be >=1'],
    [{ sweepIntervalMillis: 2 ** 31 }, 'sweepIntervalMillis: Too big: expected number to be <=2147483647'],
    [{ meterProvider: {} }, 'meterProvider: expected a MeterProvider (an object with getMeter)'],
    [{ adapters: [{}] }, 'adapters.0: expected a ConventionAdapter'],
    [{ sanitization: { hashKey: 'short' } }, 'sanitization.hashKey: at least 16 characters'],
    [
      { sanitization: { valuePatterns: [{ pattern: 'x', kind: 'Bad Kind' }] } },
      'sanitization.valuePatterns.0.kind: a lower-case word of at most 32 characters',
    ],
    [{ policy: { maxAutoRetries: -1 } }, 'policy.maxAutoRetries: Too small: expected number to be >=0'],
    [{ unknown: 1 }, 'options: Unrecognized key: "unknown"'],
  ])('rejects %j with a TypeError naming the option', (options, detail) => {
    expect(() => resolveOptions(options as never)).toThrow(
      new TypeError(`IncidentSpanProcessor: invalid option ${detail}`),
    );
  });
});
