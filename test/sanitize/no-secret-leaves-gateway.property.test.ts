/**
 * Property: no generated secret leaves the gateway. The span trees of
 * test/support/span-plans.ts are recorded without any processor (raw, as any
 * SDK would send them), with secrets also in the resource and in the
 * instrumentation scope's name and version; the OTLP/JSON request is decoded
 * and judged as the gateway does (`judgeTrace`), the forwarded spans are
 * serialized, and the bytes searched. 50,000 cases by default;
 * `npm run fuzz:sanitize` runs a million (PROPERTY_RUNS).
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { encodeTraceRequestJson } from '../../src/otlp/otlp-encode.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { carrying, play, secretsOf, spanPlan } from '../support/span-plans.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 50_000);
const sanitizer = createSanitizer();
const judging = {
  policy: DEFAULT_POLICY,
  sanitizer,
  resources: new ResourceCache(sanitizer),
  released: new ReleasedRuns(60_000),
};
const decoder = new TextDecoder();

describe('no secret leaves the gateway', () => {
  it(`keeps every generated secret out of what the gateway forwards (${RUNS.toLocaleString('en')} cases)`, async () => {
    let done = 0;
    let forwarded = 0;
    await fc.assert(
      fc.asyncProperty(
        spanPlan,
        carrying,
        carrying,
        carrying,
        async (plan, inResource, inScopeName, inScopeVersion) => {
          const raw = new KeepingExporter();
          const provider = new BasicTracerProvider({
            resource: resourceFromAttributes({ 'service.name': 'agent', 'app.note': inResource.text }),
            spanProcessors: [new SimpleSpanProcessor(raw)],
          });
          play(provider.getTracer(inScopeName.text, inScopeVersion.text), plan, undefined, undefined);
          const request = JSON.parse(decoder.decode(JsonTraceSerializer.serializeRequest(raw.spans))) as unknown;
          const { spans } = await judgeTrace(decodeOtlpJsonSpans(request), judging, Date.now());
          forwarded += spans.length;
          // The bytes the gateway forwards: its own encoder's, every field included.
          const json = decoder.decode(encodeTraceRequestJson(spans));
          for (const secret of [...secretsOf(plan), inResource.secret, inScopeName.secret, inScopeVersion.secret]) {
            if (json.includes(secret)) throw new Error(`secret ${JSON.stringify(secret)} was forwarded`);
          }
          if (++done % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? 20261125) },
    );
    expect(forwarded).toBeGreaterThan(RUNS);
  }, 3_600_000);
});
