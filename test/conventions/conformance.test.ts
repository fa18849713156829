/**
 * The conformance suite: every convention adapter over the same traces,
 * recorded from the real packages (test/fixtures/traces/, see its README).
 *
 * 1. The adapter contract: each adapter is total on every recorded span and
 *    on arbitrary garbage, emits only well-formed facts, and the adapters
 *    never both claim a span.
 * 2. The verdicts: each trace folded as the gateway folds it (the fold core,
 *    by structure, then sanitized) gives the honest verdict below: the one of
 *    docs/attributes.md where the spans show the facts, and never a wrong
 *    cause, `facts_complete=false`, `unknown` where they do not. That the
 *    processor, the recorder and report give the same verdicts as the
 *    gateway is proven by test/property/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConventionAdapter, ExtractContext, SpanRole, SpanView } from '../../src/conventions/index.js';
import { ADAPTERS, recognise } from '../../src/conventions/index.js';
import { isOneOf } from '../../src/model/enums.js';
import type { DecodedSpan } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans, spanViewOfDecoded } from '../../src/otlp/otlp-json-spans.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { judgeTrace } from '../../src/gateway/judge-trace.js';
import { ReleasedRuns } from '../../src/gateway/released-runs.js';
import { ResourceCache } from '../../src/gateway/resource-cache.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import type { Want } from '../support/verdicts.js';
import { CANT_TELL, DROP_SOMEWHERE, NEVER_ENDED } from '../support/verdicts.js';
import { isContentKey } from '../../src/sanitize/content-keys.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'traces');

/** Which adapter owns each recorded folder's spans. */
const OWNER: Readonly<Record<string, string>> = {
  'ai-sdk-6': 'vercel_ai',
  'ai-sdk-7-otel': 'gen_ai',
  'openinference-openai': 'openinference',
};

interface Fixture {
  readonly name: string;
  readonly folder: string;
  readonly spans: readonly DecodedSpan[];
}

const fixtures: Fixture[] = readdirSync(ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((folder) =>
    readdirSync(join(ROOT, folder.name))
      .filter((file) => file.endsWith('.otlp.json'))
      .map((file) => ({
        name: `${folder.name}/${file.replace('.otlp.json', '')}`,
        folder: folder.name,
        spans: decodeOtlpJsonSpans(JSON.parse(readFileSync(join(ROOT, folder.name, file), 'utf8'))),
      })),
  );

const FACT_KINDS = new Set([
  'side_effect_boundary',
  'provider_progress',
  'text_output_started',
  'reasoning_output_started',
  'tool_input_started',
  'tool_input_completed',
  'tool_call_materialized',
  'tool_execution_started',
  'tool_execution_completed',
  'tool_execution_failed',
  'tool_execution_interrupted',
  'pending_tool_interrupted',
  'watchdog_fired',
  'provider_error',
  'attempt_finished',
  'retry_issued',
  'user_cancel',
  'lifecycle_close',
  'setup_failure',
  'process_exit',
  'run_error',
  'child_run_side_effects',
]);
const ROLES: readonly SpanRole[] = ['run', 'call', 'attempt', 'tool', 'other'];

function context(truncated: boolean): ExtractContext {
  return {
    attempt: 'attempt-1',
    truncated,
    trustedReadOnlyTools: ['read_file'],
    attemptKeyOf: (n) => (n === 1 ? 'attempt-1' : undefined),
  };
}

/** Runs every role of `adapter` over `view`, as a processor could, and checks each fact's shape. */
function extractEveryRole(adapter: ConventionAdapter, view: SpanView): void {
  for (const role of ROLES) {
    for (const truncated of [false, true]) {
      const extraction = adapter.extract(view, role, context(truncated));
      for (const fact of extraction.facts) {
        expect(FACT_KINDS.has(fact.kind), `${adapter.name} emitted an unknown fact kind ${fact.kind}`).toBe(true);
        expect(Number.isFinite(fact.timeMillis), `${adapter.name} ${fact.kind} has a finite time`).toBe(true);
      }
    }
  }
}

describe('every adapter keeps the adapter contract', () => {
  it('has one fixture folder per recorded convention', () => {
    expect(new Set(fixtures.map((f) => f.folder))).toEqual(new Set(Object.keys(OWNER)));
  });

  for (const adapter of ADAPTERS) {
    it(`${adapter.name} reads every recorded span of every convention without throwing`, () => {
      for (const fixture of fixtures) {
        for (const span of fixture.spans) {
          const view = spanViewOfDecoded(span);
          adapter.role(view);
          extractEveryRole(adapter, view);
        }
      }
    });

    it(`${adapter.name} is total on arbitrary attributes, events and status`, () => {
      const value = fc.oneof(
        fc.string(),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(undefined),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.json(),
      );
      const keys = fc.constantFrom(
        'gen_ai.operation.name',
        'ai.operationId',
        'openinference.span.kind',
        'ai.prompt.tools',
        'ai.response.toolCalls',
        'ai.response.finishReason',
        'gen_ai.tool.definitions',
        'gen_ai.response.finish_reasons',
        'llm.tools.0.tool.json_schema',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name',
        'agent_incidents.attempt.number',
        'error.type',
      );
      const attributes = fc.dictionary(fc.oneof(keys, fc.string()), value, { maxKeys: 8 });
      fc.assert(
        fc.property(
          attributes,
          fc.array(
            fc.record({
              name: fc.oneof(
                fc.constantFrom('exception', 'ai.stream.firstChunk', 'agent_incidents.provider_error'),
                fc.string(),
              ),
              timeMillis: fc.double(),
              attributes,
            }),
            { maxLength: 3 },
          ),
          fc.integer({ min: -1, max: 3 }),
          (attrs, events, statusCode) => {
            const view: SpanView = {
              spanId: 's',
              name: 'x',
              startMillis: 1,
              endMillis: 2,
              attributes: attrs,
              events,
              links: [],
              statusCode,
              statusMessage: 'm',
            };
            adapter.role(view);
            for (const role of ROLES) adapter.extract(view, role, context(false));
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('each recorded convention is claimed by its own adapter, and no two adapters claim a span', () => {
    for (const fixture of fixtures) {
      const owner = OWNER[fixture.folder];
      let claimed = 0;
      for (const span of fixture.spans) {
        const view = spanViewOfDecoded(span);
        const claims = ADAPTERS.map((a) => [a.name, a.role(view)] as const).filter(
          ([, role]) => role !== undefined && role !== 'other',
        );
        expect(claims.length, `${fixture.name} ${span.name}`).toBeLessThanOrEqual(1);
        const match = recognise(view);
        if (match && match.role !== 'other') {
          expect(match.adapter.name, `${fixture.name} ${span.name}`).toBe(owner);
          claimed += 1;
        }
      }
      expect(claimed, `${fixture.name} has a run and its attempts`).toBeGreaterThan(1);
    }
  });
});

const SUCCESS: Want = { 'incident.outcome': 'success', 'incident.facts_complete': true };

/** The honest verdict of every recorded trace. */
const VERDICTS: Readonly<Record<string, Want>> = {
  'ai-sdk-6/success-text': SUCCESS,
  'ai-sdk-6/success-tool-step': { ...SUCCESS, 'incident.attempts': 2, 'incident.side_effects': 'unknown' },
  'ai-sdk-6/generate-text-success': SUCCESS,
  'ai-sdk-6/tool-execute-throws': { ...SUCCESS, 'incident.side_effects': 'unknown' },
  'ai-sdk-6/socket-drop-before-first-byte': {
    'incident.cause': 'provider_transport_disconnect',
    'incident.cause.detail': 'socket_closed',
    'incident.phase': 'before_first_provider_progress',
    'incident.retry_safety': 'auto_retry',
    'incident.facts_complete': true,
  },
  'ai-sdk-6/socket-drop-after-text': NEVER_ENDED,
  'ai-sdk-6/drop-during-tool-input': NEVER_ENDED,
  'ai-sdk-6/drop-after-tool-ran': {
    'incident.cause': 'provider_transport_disconnect',
    'incident.retry_safety': 'auto_retry',
    'incident.attempts': 2,
    'incident.facts_complete': true,
  },
  'ai-sdk-6/provider-error-event-after-text': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'unknown',
    'incident.phase': 'text_generation',
    'incident.retry_safety': 'offer_continue',
  },
  'ai-sdk-6/user-abort-mid-stream': CANT_TELL,
  'ai-sdk-6/chunk-timeout-connect': CANT_TELL,
  'ai-sdk-6/total-timeout-during-tool': {
    'incident.cause': 'tool_execution_interrupted',
    'incident.phase': 'tool_execution',
    'incident.retry_safety': 'ask_user_before_retry',
    'incident.facts_complete': false,
  },
  'ai-sdk-6/retry-503-then-success': {
    'incident.outcome': 'recovered',
    'incident.cause': 'provider_api_error',
    'incident.attempts': 2,
    'incident.recovered_attempts': 1,
  },
  'ai-sdk-6/retry-503-exhausted': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'server_overload',
    'incident.retry_safety.reason': 'retry_budget_exhausted',
  },
  'ai-sdk-6/generate-text-503-exhausted': {
    'incident.cause': 'provider_api_error',
    'incident.retry_safety.reason': 'retry_budget_exhausted',
    'incident.attempts': 2,
  },
  'ai-sdk-6/quota-400': {
    'incident.cause.detail': 'quota_exhausted',
    'incident.retry_safety': 'do_not_retry',
    'incident.retryable': false,
  },

  'ai-sdk-7-otel/success-text': SUCCESS,
  'ai-sdk-7-otel/success-tool-step': { ...SUCCESS, 'incident.attempts': 2 },
  'ai-sdk-7-otel/generate-text-success': SUCCESS,
  'ai-sdk-7-otel/tool-execute-throws': { ...SUCCESS, 'incident.side_effects': 'unknown' },
  'ai-sdk-7-otel/socket-drop-before-first-chunk': DROP_SOMEWHERE,
  'ai-sdk-7-otel/socket-drop-after-text': DROP_SOMEWHERE,
  'ai-sdk-7-otel/drop-during-tool-input': DROP_SOMEWHERE,
  'ai-sdk-7-otel/drop-after-tool-ran': { ...DROP_SOMEWHERE, 'incident.attempts': 2 },
  'ai-sdk-7-otel/provider-error-chunk-after-text': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'unknown',
    'incident.retry_safety': 'unknown',
    'incident.facts_complete': false,
  },
  'ai-sdk-7-otel/user-abort-mid-stream': CANT_TELL,
  'ai-sdk-7-otel/chunk-timeout': CANT_TELL,
  'ai-sdk-7-otel/first-chunk-timeout': CANT_TELL,
  'ai-sdk-7-otel/retry-503-then-success': {
    'incident.outcome': 'recovered',
    'incident.cause': 'unknown_interruption',
    'incident.attempts': 2,
    'incident.facts_complete': false,
  },
  'ai-sdk-7-otel/retry-503-exhausted': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'server_overload',
    'incident.retry_safety.reason': 'retry_budget_exhausted',
    'incident.facts_complete': false,
  },
  // One `chat` span for both tries: its AI_RetryError says "Failed after 2 attempts" (docs/conventions.md#retries-inside-one-span).
  'ai-sdk-7-otel/generate-text-503-exhausted': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'server_overload',
    'incident.retry_safety': 'ask_user_before_retry',
    'incident.retry_safety.reason': 'retry_budget_exhausted',
    'incident.attempts': 2,
    'incident.recovered_attempts': 1,
    'incident.facts_complete': false,
  },

  'openinference-openai/stream-success': SUCCESS,
  'openinference-openai/stream-tool-call': SUCCESS,
  'openinference-openai/nonstream-success': SUCCESS,
  // One LLM span covers both HTTP tries; nothing records the 503.
  'openinference-openai/retry-503-then-success': SUCCESS,
  'openinference-openai/stream-drop-after-text': { ...DROP_SOMEWHERE, 'incident.cause.detail': 'stream_terminated' },
  'openinference-openai/stream-partial-tool-call-drop': DROP_SOMEWHERE,
  'openinference-openai/error-event-after-text': {
    'incident.cause': 'provider_api_error',
    'incident.phase': 'unknown',
    'incident.retry_safety': 'unknown',
    'incident.facts_complete': false,
  },
  'openinference-openai/nonstream-503': {
    'incident.cause': 'provider_api_error',
    'incident.cause.detail': 'server_overload',
    'incident.retry_safety': 'unknown',
  },
  'openinference-openai/quota-400': {
    'incident.cause.detail': 'quota_exhausted',
    'incident.retry_safety': 'do_not_retry',
    'incident.facts_complete': false,
  },
  // The SDK ends an aborted stream quietly; the partial output is on the span, the reason is not.
  'openinference-openai/client-abort-mid-stream': {
    'incident.cause': 'unknown_interruption',
    'incident.phase': 'text_generation',
    'incident.missing_facts': ['terminal_event_missing'],
  },
};

describe('every recorded trace gets its honest verdict', () => {
  it('has a verdict for every fixture', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(Object.keys(VERDICTS).sort());
  });

  for (const fixture of fixtures) {
    it(fixture.name, () => {
      const sanitizer = createSanitizer();
      const judged = judgeTrace(
        fixture.spans,
        {
          policy: DEFAULT_POLICY,
          sanitizer,
          resources: new ResourceCache(sanitizer),
          released: new ReleasedRuns(1000),
        },
        Date.now(),
      );
      const spans = judged.spans;
      // Every recorded span is exported once, the never-ended ones closed and marked.
      expect(spans).toHaveLength(fixture.spans.length);
      const run = spans.find((s) => s.parentSpanContext === undefined);
      const attributes = run?.attributes ?? {};
      const openChildren = fixture.spans.filter(
        (s) => s.endTimeUnixNano === undefined && s.parentSpanId !== undefined,
      ).length;
      expect(spans.filter((s) => s.attributes['incident.truncated'] === true).length).toBeGreaterThanOrEqual(
        openChildren,
      );
      if (fixture.spans.some((s) => s.endTimeUnixNano === undefined && s.parentSpanId === undefined)) {
        expect(attributes['incident.missing_facts']).toContain('run_never_ended');
      }
      const want = VERDICTS[fixture.name] ?? {};
      expect(Object.fromEntries(Object.keys(want).map((key) => [key, attributes[key]]))).toEqual(want);
      // No content of any convention reaches the exporter.
      const leaked = spans.flatMap((span) => Object.keys(span.attributes).filter(isContentKey));
      expect(leaked).toEqual([]);
      // Honest means a value from the closed lists, always.
      expect(
        isOneOf(['success', 'recovered', 'failed', 'cancelled', 'incomplete'], attributes['incident.outcome']),
      ).toBe(true);
    });
  }
});
