/**
 * Finds the OpenTelemetry tracing SDK the demo plays its fleet through, at
 * run time: the package declares no SDK dependency (docs/compatibility.md), so
 * the demo uses the one the app or the clone installed. The 3.x line
 * (`@opentelemetry/sdk-trace`, API 1.10, Node 22.15 or later) is preferred where it
 * can run; the 2.x line (`@opentelemetry/sdk-trace-base`, API 1.9) otherwise.
 */
import type { Tracer } from '@opentelemetry/api';
import type { SdkSpanProcessor } from '../sdk/sdk-span.js';

/** A tracer provider of either line, as the demo uses it. */
export interface DemoTracerProvider {
  getTracer(name: string): Tracer;
  shutdown(): Promise<void>;
}

/** The SDK found: its package, version and a provider factory. */
export interface TracingSdk {
  /** The package imported, e.g. `@opentelemetry/sdk-trace`. */
  readonly packageName: string;
  /** A provider with these processors, in order. */
  createProvider(spanProcessors: readonly SdkSpanProcessor[]): DemoTracerProvider;
}

/** No tracing SDK is installed where the package can import it. */
export class TracingSdkMissingError extends Error {
  constructor() {
    super(
      'the demo needs an OpenTelemetry tracing SDK: `npm install @opentelemetry/sdk-trace@3` (API 1.10, Node >= 22.15) ' +
        'or `npm install @opentelemetry/sdk-trace-base@2` (API 1.9)',
    );
    this.name = 'TracingSdkMissingError';
  }
}

type ProviderClass = new (options: { spanProcessors: readonly SdkSpanProcessor[] }) => DemoTracerProvider;

/** `major.minor` of the running Node. */
function nodeAtLeast(major: number, minor: number): boolean {
  const [runningMajor = 0, runningMinor = 0] = process.versions.node.split('.').map(Number);
  return runningMajor > major || (runningMajor === major && runningMinor >= minor);
}

function isModuleMissing(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String((error as Error).message).includes(packageName)
  );
}

/**
 * The tracing SDK to use: the 3.x line first where Node can run it, then the
 * 2.x line. A package that is installed but fails to load is an error, not a
 * reason to try the other line.
 * @throws TracingSdkMissingError when neither is installed
 */
export async function loadTracingSdk(): Promise<TracingSdk> {
  const candidates = nodeAtLeast(22, 15)
    ? ['@opentelemetry/sdk-trace', '@opentelemetry/sdk-trace-base']
    : ['@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace'];
  for (const packageName of candidates) {
    let sdk: Record<string, unknown>;
    try {
      sdk = (await import(packageName)) as Record<string, unknown>;
    } catch (error) {
      if (isModuleMissing(error, packageName)) continue;
      throw error;
    }
    // 2.x names its provider BasicTracerProvider; 3.x, TracerProvider. Both take `spanProcessors`.
    const Provider = (sdk.BasicTracerProvider ?? sdk.TracerProvider) as ProviderClass | undefined;
    if (typeof Provider !== 'function') continue;
    return { packageName, createProvider: (spanProcessors) => new Provider({ spanProcessors }) };
  }
  throw new TracingSdkMissingError();
}
