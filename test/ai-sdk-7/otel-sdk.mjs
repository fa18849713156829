/**
 * The tracing SDK of the OpenTelemetry JS line this suite is installed with,
 * under one set of names: 2.x (`@opentelemetry/sdk-trace-base`, API 1.9; this
 * folder's package.json) or 3.x (`@opentelemetry/sdk-trace`, API 1.10;
 * test/ai-sdk-7-otel-3, where run.sh copies the suite with OTEL_LINE=3). The
 * tests build providers and processors the same way on both.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The folder of package `name` as Node resolves it from `from` (the nearest
 * node_modules that has it), or undefined. Read from disk: 3.x packages export
 * no `./package.json`, and vitest's transform gives no `import.meta.resolve`.
 */
export function packageDir(name, from = HERE) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) return undefined;
  }
}

/** The version of package `name` as resolved from `from`. */
export function versionOf(name, from = HERE) {
  const dir = packageDir(name, from);
  if (!dir) throw new Error(`${name} is not installed above ${from}`);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

// The line is the major of the nearest sdk-trace: 3.x on line 3; on line 2, the 2.x that sdk-trace-base
// depends on. (Presence is no test: Node also resolves from the repository root's node_modules above.)
const line3 = Number(versionOf('@opentelemetry/sdk-trace').split('.')[0]) >= 3;
const sdk = line3 ? await import('@opentelemetry/sdk-trace') : await import('@opentelemetry/sdk-trace-base');

/** `'3'` or `'2'`: the OpenTelemetry JS line in use. */
export const OTEL_LINE = line3 ? '3' : '2';
/** The API version the app (and agent-incidents) loads. */
export const API_VERSION = versionOf('@opentelemetry/api');

/** A tracer provider: 3.x `TracerProvider`, 2.x `BasicTracerProvider`; both take `{ spanProcessors }`. */
export const BasicTracerProvider = line3 ? sdk.TracerProvider : sdk.BasicTracerProvider;

/** `new SimpleSpanProcessor(exporter)` on both lines (3.x takes `{ exporter }`). */
export class SimpleSpanProcessor extends sdk.SimpleSpanProcessor {
  constructor(exporter) {
    super(line3 ? { exporter } : exporter);
  }
}

export const InMemorySpanExporter = sdk.InMemorySpanExporter;
