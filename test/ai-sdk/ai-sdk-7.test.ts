/**
 * ai-sdk-7.ts: how `ai` 7 is told apart from 6, and the `telemetry` option `run.callOptions` gives each
 * `ai` 7 call (README.md#vercel-ai-sdk, docs/conventions.md#ai-sdk-6-and-7-the-same-faults-the-same-verdicts):
 * telemetry on; the run's integration first; the call's integrations, or else the registered ones, kept (7
 * replaces the registered ones with a call's own); with `@ai-sdk/otel`, an `OpenTelemetry` integration on
 * the run's tracer in place of any the application gave (one set of SDK spans, nested in the run), whose
 * `invoke_agent` root is marked a framework call and ended with the run, unless a `LegacyOpenTelemetry` was
 * chosen; without it, a warning, once. This suite runs on `ai` 6 (Node 20; test/ai-sdk-7 plays the real 7
 * on Node 22): `AI_SDK_7` is false here, and `telemetry7`, a function of its inputs, is checked with
 * `@ai-sdk/otel` absent (as installed here) or given by its shape as the `aiSdkOtel` option.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Tracer } from '@opentelemetry/api';
import { diag, trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import * as ai from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AI_SDK_7, telemetry7 } from '../../src/ai-sdk/ai-sdk-7.js';
import type { AiSdkOtel } from '../../src/ai-sdk/options.js';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { observedRun } from './observed-run.js';

const require = createRequire(import.meta.url);
const FRAMEWORK_CALL = 'agent_incidents.framework_call';

/** `@ai-sdk/otel` by its shape: integrations that remember the tracer they were given. */
class OpenTelemetry {
  constructor(readonly options?: { readonly tracer?: Tracer }) {}
}
class LegacyOpenTelemetry {}
const aiSdkOtel: AiSdkOtel = { OpenTelemetry, LegacyOpenTelemetry };

const own = { name: 'own' };
const x = { name: 'x' };
const y = { name: 'y' };
const registry = globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown };

afterEach(() => {
  delete registry.AI_SDK_TELEMETRY_INTEGRATIONS;
});

function traced(name: string) {
  const exporter = new KeepingExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer(name) };
}

/** The integrations of `telemetry`, named: `OpenTelemetry(run)` is one on the run's SDK tracer. */
function named(telemetry: Record<string, unknown>, sdkTracer: Tracer | undefined): string[] {
  return (telemetry.integrations as object[]).map((integration) =>
    integration instanceof OpenTelemetry
      ? `OpenTelemetry(${integration.options?.tracer === sdkTracer && sdkTracer ? 'run' : 'other'})`
      : integration instanceof LegacyOpenTelemetry
        ? 'LegacyOpenTelemetry'
        : ((integration as { name?: string }).name ?? '?'),
  );
}

describe('AI_SDK_7', () => {
  it('is false on the installed ai 6, which exports no registerTelemetry', () => {
    const { version } = JSON.parse(readFileSync(require.resolve('ai/package.json'), 'utf8')) as { version: string };
    expect([version.split('.')[0], 'registerTelemetry' in ai, AI_SDK_7]).toEqual(['6', false, false]);
  });
});

describe('telemetry7 without @ai-sdk/otel (not installed with ai 6)', () => {
  it.each<[string, unknown, unknown, string[]]>([
    ['none given, none registered: the run’s alone', undefined, undefined, ['own']],
    ['none given: the registered ones, after the run’s', undefined, [x, y], ['own', 'x', 'y']],
    ['one given: it, instead of the registered ones', x, [y], ['own', 'x']],
    ['a list given: the list', [x, y], [y], ['own', 'x', 'y']],
  ])('integrations, %s', (_what, integrations, registered, want) => {
    expect(() => require('@ai-sdk/otel')).toThrow();
    registry.AI_SDK_TELEMETRY_INTEGRATIONS = registered;
    const { run } = observedRun();
    const telemetry = telemetry7(run, { integrations }, own);
    expect(named(telemetry, undefined)).toEqual(want);
    expect(run.sdkTracer).toBeUndefined();
  });

  it("turns telemetry on and keeps the call's options, but not 6's tracer, which 7 does not take", () => {
    const { run } = observedRun();
    const { tracer } = traced('call');
    const options = { isEnabled: false, recordInputs: false, recordOutputs: true, functionId: 'coder', tracer };
    expect(telemetry7(run, options, own)).toEqual({
      isEnabled: true,
      recordInputs: false,
      recordOutputs: true,
      functionId: 'coder',
      integrations: [own],
    });
  });

  it('says once per process that the SDK records no spans', async () => {
    vi.resetModules();
    const fresh = await import('../../src/ai-sdk/ai-sdk-7.js');
    const warn = vi.spyOn(diag, 'warn');
    try {
      fresh.telemetry7(observedRun().run, {}, own);
      fresh.telemetry7(observedRun().run, {}, own);
      expect(warn.mock.calls).toEqual([[expect.stringContaining('ai 7 without @ai-sdk/otel')]]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('telemetry7 with @ai-sdk/otel (the aiSdkOtel option)', () => {
  it.each<[string, unknown, unknown, string[]]>([
    [
      'a registered OpenTelemetry is replaced by the run’s, the others kept',
      undefined,
      [new OpenTelemetry(), x],
      ['own', 'OpenTelemetry(run)', 'x'],
    ],
    [
      'one of the call’s own is replaced too',
      [x, new OpenTelemetry(), y],
      undefined,
      ['own', 'OpenTelemetry(run)', 'x', 'y'],
    ],
    ['with none, the run’s is added', undefined, undefined, ['own', 'OpenTelemetry(run)']],
    [
      'a LegacyOpenTelemetry is kept as chosen, and none added',
      [new LegacyOpenTelemetry(), x],
      undefined,
      ['own', 'LegacyOpenTelemetry', 'x'],
    ],
  ])('%s', (_what, integrations, registered, want) => {
    registry.AI_SDK_TELEMETRY_INTEGRATIONS = registered;
    const { run } = observedRun({ aiSdkOtel });
    const telemetry = telemetry7(run, { integrations, functionId: 'coder' }, own);
    expect(telemetry).toMatchObject({ isEnabled: true, functionId: 'coder' });
    expect(named(telemetry, run.sdkTracer)).toEqual(want);
  });

  it("the SDK's spans go to the run's tracer; its invoke_agent root is marked a framework call and kept for the run's end", () => {
    const { exporter, tracer } = traced('run');
    const { run } = observedRun({ aiSdkOtel, tracer });
    telemetry7(run, {}, own);
    const sdk = run.sdkTracer!;
    const root = sdk.startSpan('invoke_agent gpt-4o-mini', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
    const chat = sdk.startSpan('chat gpt-4o-mini', { attributes: { 'gen_ai.operation.name': 'chat' } });
    const active = sdk.startActiveSpan('step 1', (span) => {
      span.end();
      return 'returned';
    });
    chat.end();
    root.end();
    expect(active).toBe('returned');
    expect(exporter.spans.map((s) => [s.name, s.attributes[FRAMEWORK_CALL]])).toEqual([
      ['step 1', undefined],
      ['chat gpt-4o-mini', undefined],
      ['invoke_agent gpt-4o-mini', true],
    ]);
    expect(run.sdkSpans).toEqual([root]);
  });

  it.each<[string, 'call' | 'run' | 'neither', string]>([
    ["the call's tracer (ai 6's option) wins", 'call', 'call'],
    ["else the run's tracer", 'run', 'run'],
    ["else @ai-sdk/otel's own default, the global tracer gen_ai", 'neither', 'gen_ai'],
  ])('the SDK tracer: %s', (_what, given, scope) => {
    const global = traced('global');
    trace.setGlobalTracerProvider(global.provider);
    try {
      const call = traced('call');
      const runTracer = traced('run');
      const { run } = observedRun({ aiSdkOtel, ...(given === 'neither' ? {} : { tracer: runTracer.tracer }) });
      telemetry7(run, given === 'call' ? { tracer: call.tracer } : {}, own);
      run.sdkTracer?.startSpan('chat gpt-4o-mini').end();
      const spans = [...call.exporter.spans, ...runTracer.exporter.spans, ...global.exporter.spans];
      expect(spans.map((s) => s.instrumentationScope.name)).toEqual([scope]);
    } finally {
      trace.disable();
    }
  });

  it("makes the run's SDK tracer once: every call of the run shares it", () => {
    const { run } = observedRun({ aiSdkOtel });
    const first = telemetry7(run, {}, own);
    const second = telemetry7(run, {}, { name: 'own of the second call' });
    const tracers = [first, second].map((t) => (t.integrations as object[])[1] as OpenTelemetry);
    expect(tracers.map((o) => o.options?.tracer)).toEqual([run.sdkTracer, run.sdkTracer]);
    expect(run.sdkTracer).toBeDefined();
  });
});
