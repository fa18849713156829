/**
 * loadTracingSdk (src/demo/tracing-sdk.ts) with the SDK this repository
 * installs: the demo finds a tracing SDK at run time (docs/compatibility.md),
 * the 3.x line (`@opentelemetry/sdk-trace`) where Node 22.15 or later can run
 * it, the 2.x line (`@opentelemetry/sdk-trace-base`) otherwise; the provider
 * it makes hands every span to the demo's processors, in order, and shuts
 * them down. Without any SDK the demo fails with one error that says what to
 * install.
 */
import type { Context } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { loadTracingSdk, TracingSdkMissingError } from '../../src/demo/tracing-sdk.js';
import type { SdkReadableSpan, SdkSpan, SdkSpanProcessor } from '../../src/sdk/sdk-span.js';

/** A processor that notes what it is given, as `<name> <hook> <span>`. */
function noting(name: string, log: string[]): SdkSpanProcessor {
  return {
    onStart: (span: SdkSpan, _context: Context) => void log.push(`${name} start ${span.name}`),
    onEnd: (span: SdkReadableSpan) => void log.push(`${name} end ${span.name}`),
    forceFlush: () => Promise.resolve(),
    shutdown: () => {
      log.push(`${name} shutdown`);
      return Promise.resolve();
    },
  };
}

describe('loadTracingSdk', () => {
  it('picks the SDK line the running Node can use', async () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const modern = major > 22 || (major === 22 && minor >= 15);
    const sdk = await loadTracingSdk();
    expect(sdk.packageName).toBe(modern ? '@opentelemetry/sdk-trace' : '@opentelemetry/sdk-trace-base');
  });

  it('makes a provider that hands each span to the processors in order, and shuts them down', async () => {
    const sdk = await loadTracingSdk();
    const log: string[] = [];
    const provider = sdk.createProvider([noting('a', log), noting('b', log)]);
    provider.getTracer('demo').startSpan('run').end();
    await provider.shutdown();
    expect(log).toEqual(['a start run', 'b start run', 'a end run', 'b end run', 'a shutdown', 'b shutdown']);
  });

  it('makes a new provider each time, each with its own processors', async () => {
    const sdk = await loadTracingSdk();
    const first: string[] = [];
    const second: string[] = [];
    const one = sdk.createProvider([noting('one', first)]);
    const two = sdk.createProvider([noting('two', second)]);
    two.getTracer('demo').startSpan('only in two').end();
    expect(first).toEqual([]);
    expect(second).toEqual(['two start only in two', 'two end only in two']);
    await Promise.all([one.shutdown(), two.shutdown()]);
  });
});

describe('TracingSdkMissingError', () => {
  it('names itself and says what to install for either line', () => {
    const error = new TracingSdkMissingError();
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TracingSdkMissingError');
    expect(error.message).toContain('npm install @opentelemetry/sdk-trace@3');
    expect(error.message).toContain('npm install @opentelemetry/sdk-trace-base@2');
    expect(error.message).toContain('Node >= 22.15');
  });
});
