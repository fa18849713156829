/**
 * AI SDK 7's telemetry wiring: how `ai` 7 is told apart from 6, how
 * `@ai-sdk/otel` is found, and the `telemetry` option of each call (the run's
 * integration, the SDK's spans on the run's tracer, the user's integrations).
 */
import type { Context, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import { diag, trace } from '@opentelemetry/api';
// A namespace import: `ai` 7 exports `registerTelemetry`, 6 does not, and a named import of it would fail on 6.
import * as ai from 'ai';
import { FRAMEWORK_CALL } from '../conventions/gen-ai.js';
import type { AiSdkOtel, AiSdkTelemetryOptions } from './options.js';
import type { RunState } from './run-state.js';

/**
 * True when the installed `ai` is 7 or later: its per-call telemetry
 * integrations replace the registered ones instead of joining them, its
 * option is `telemetry`, and spans come from an integration (`@ai-sdk/otel`).
 */
export const AI_SDK_7 = typeof (ai as Record<string, unknown>).registerTelemetry === 'function';

function isAiSdkOtel(module: unknown): module is AiSdkOtel {
  return typeof (module as Partial<AiSdkOtel> | undefined)?.OpenTelemetry === 'function';
}

/** `@ai-sdk/otel` as loaded by the run: undefined before the first try, null when it could not be loaded. */
let loaded: AiSdkOtel | null | undefined;

/**
 * Loads `@ai-sdk/otel` (an optional peer) the first time an `ai` 7 call needs
 * it, synchronously: no top-level `await`, so this module stays one that
 * `require()` (Node's require of ES modules) and bundlers can load. The
 * package is ES-only (its exports have `import` and `default`, no `require`):
 * `require` loads it on Node >= 22.12 and 20.19, and `ai` 7 needs Node 22.
 * `require` comes from `process.getBuiltinModule`, not a static
 * `import 'node:module'`, so `ai` 6 users (and runtimes without `node:module`)
 * load nothing more, and a bundler is not asked for a package they may not
 * have. A bundler does not see this `require` either: the `aiSdkOtel` option
 * is the way to hand it the package, and the warning says so.
 */
function loadAiSdkOtel(): AiSdkOtel | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  loaded = null;
  try {
    const nodeModule = typeof process === 'undefined' ? undefined : process.getBuiltinModule?.('node:module');
    const module: unknown = nodeModule?.createRequire(import.meta.url)('@ai-sdk/otel');
    if (isAiSdkOtel(module)) loaded = module;
  } catch (error) {
    diag.debug('agent-incidents/ai-sdk: @ai-sdk/otel could not be loaded', error);
  }
  return loaded ?? undefined;
}

/** Said once per process: `ai` 7 runs without `@ai-sdk/otel`. */
let warnedNoOtel = false;

/** The integrations `ai` 7 registered with `registerTelemetry` (its global list, as `ai` itself reads it). */
function registeredIntegrations(): readonly object[] {
  const registered = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS;
  return Array.isArray(registered) ? (registered as object[]) : [];
}

/**
 * Marks AI SDK 7's root span (`invoke_agent {model}`, which `@ai-sdk/otel`
 * starts for every `streamText` / `generateText`) as a framework call: inside
 * the run it is part of the run, as AI SDK 6's `ai.streamText` is, and not a
 * sub-agent with a verdict of its own. Everything else passes through.
 */
function markingFrameworkCalls(tracer: Tracer, started: (span: Span) => void): Tracer {
  return {
    startSpan(name: string, options?: SpanOptions, context?: Context): Span {
      if (options?.attributes?.['gen_ai.operation.name'] !== 'invoke_agent')
        return tracer.startSpan(name, options, context);
      const span = tracer.startSpan(
        name,
        { ...options, attributes: { ...options.attributes, [FRAMEWORK_CALL]: true } },
        context,
      );
      started(span);
      return span;
    },
    // Not used by @ai-sdk/otel 1.x; delegated unmarked.
    startActiveSpan: ((...args: unknown[]) =>
      (tracer.startActiveSpan as (...args: unknown[]) => unknown).apply(tracer, args)) as Tracer['startActiveSpan'],
  };
}

/**
 * `ai` 7's telemetry options for one call: on (the run's integration needs
 * the SDK's callbacks), the run's integration `own` first (so its tool wrapper
 * runs inside the span integration's tool context), then the span
 * integration on the run's tracer, then the other integrations.
 */
export function telemetry7(run: RunState, telemetry: AiSdkTelemetryOptions, own: object): Record<string, unknown> {
  const { tracer, integrations: given, ...rest } = telemetry;
  const chosen: readonly object[] =
    given === undefined ? registeredIntegrations() : Array.isArray(given) ? (given as object[]) : [given as object];
  const otel = isAiSdkOtel(run.options.aiSdkOtel) ? run.options.aiSdkOtel : loadAiSdkOtel();
  if (!otel) {
    if (!warnedNoOtel) {
      warnedNoOtel = true;
      diag.warn(
        'agent-incidents/ai-sdk: ai 7 without @ai-sdk/otel (not installed, or not in the bundle: pass it as the aiSdkOtel option): the SDK records no spans; the run records its attempts and tools on spans of its own.',
      );
    }
    return { ...rest, isEnabled: true, integrations: [own, ...chosen] };
  }
  const legacy = otel.LegacyOpenTelemetry;
  if (legacy && chosen.some((integration) => integration instanceof legacy)) {
    // AI SDK 6-style spans (`ai.streamText` is a framework call already): kept as the user chose them.
    return { ...rest, isEnabled: true, integrations: [own, ...chosen] };
  }
  // @ai-sdk/otel's own default tracer is `gen_ai`; the run's `tracer` option, or the per-call `tracer` of 6, wins.
  run.sdkTracer ??= markingFrameworkCalls(tracer ?? run.options.tracer ?? trace.getTracer('gen_ai'), (span) =>
    run.sdkSpans.push(span),
  );
  const others = chosen.filter((integration) => !(integration instanceof otel.OpenTelemetry));
  return {
    ...rest,
    isEnabled: true,
    integrations: [own, new otel.OpenTelemetry({ tracer: run.sdkTracer }), ...others],
  };
}
