/**
 * Sanitization through the processor: real leak shapes, values that must
 * survive, each mode, the key lists, hashing, stack traces and accounting.
 */
import type { DiagLogger } from '@opentelemetry/api';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import v8 from 'node:v8';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { CollectingReader } from '../support/metrics.js';
import type { IncidentSpanProcessorOptions } from '../../src/index.js';
import { IncidentSpanProcessor } from '../../src/index.js';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createPipeline } from '../support/harness.js';

afterEach(() => diag.disable());

function endSpan(
  options: IncidentSpanProcessorOptions,
  build: (span: ReturnType<ReturnType<typeof createPipeline>['tracer']['startSpan']>) => void,
) {
  const pipeline = createPipeline(options);
  const span = pipeline.tracer.startSpan('work');
  build(span);
  span.end();
  const exported = pipeline.spans()[0]!;
  return {
    exported,
    json: JSON.stringify({
      n: exported.name,
      a: exported.attributes,
      e: exported.events,
      s: exported.status,
      l: exported.links.map((l) => l.attributes),
    }),
  };
}

describe('real leak shapes never reach the exporter', () => {
  it('an AI SDK tool error carrying a home path in the status and the exception event', () => {
    const { json } = endSpan({}, (span) => {
      const error = Object.assign(
        new Error("ENOENT: no such file or directory, open '/Users/alice/work/secret-plan.md'"),
        { name: 'AI_ToolExecutionError' },
      );
      error.stack = `${error.name}: ${error.message}\n    at readFile (/Users/alice/work/agent/node_modules/fs-tool/index.js:12:9)\n    at async Tool.execute (file:///Users/alice/work/agent/tools.js:40:3)`;
      span.recordException(error);
      span.setStatus({ code: 2, message: error.message });
    });
    expect(json).not.toContain('alice');
    expect(json).toContain('index.js:12:9');
    expect(json).toContain('ENOENT');
  });

  it('a provider error body echoing the Authorization header', () => {
    const body =
      '{"error":{"message":"Invalid request","request":{"headers":{"Authorization":"Bearer sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4"}}}}';
    const { json } = endSpan({}, (span) => {
      span.setAttribute('http.response.body', body);
      span.recordException({ name: 'AI_APICallError', message: `400 ${body}` });
    });
    expect(json).not.toContain('A1b2C3d4E5f6G7h8I9j0');
  });

  it('a URL with ?api_key=', () => {
    const { exported } = endSpan({}, (span) =>
      span.setAttribute(
        'url.full',
        'https://generativelanguage.googleapis.com/v1/models?api_key=abc123DEF456ghi&alt=sse',
      ),
    );
    expect(exported.attributes['url.full']).toBe(
      'https://generativelanguage.googleapis.com/v1/models?api_key=[redacted:secret]&alt=sse',
    );
  });

  it('a Python traceback keeps its frame shape but loses paths and source lines', () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/home/bob/agent/.venv/lib/python3.12/site-packages/httpx/_transports/default.py", line 72, in map_httpcore_exceptions',
      '    yield',
      '  File "/home/bob/agent/run.py", line 18, in main',
      '    client.chat(api_key="sk-live-0123456789abcdefghij")',
      'httpx.RemoteProtocolError: peer closed connection without sending complete message body',
    ].join('\n');
    const { exported } = endSpan({}, (span) =>
      span.addEvent('exception', { 'exception.stacktrace': traceback, 'exception.type': 'httpx.RemoteProtocolError' }),
    );
    const stack = exported.events[0]?.attributes?.['exception.stacktrace'];
    expect(stack).toBe(
      [
        'Traceback (most recent call last):',
        '  File "default.py", line 72, in map_httpcore_exceptions',
        '  File "run.py", line 18, in main',
        'httpx.RemoteProtocolError: peer closed connection without sending complete message body',
      ].join('\n'),
    );
  });
});

describe('values that are not secrets survive unchanged', () => {
  const survivors: Record<string, string | string[]> = {
    'trace.id.copy': '4bf92f3577b34da6a3ce929d0e0e4736',
    'span.id.copy': '00f067aa0ba902b7',
    'request.uuid': '123e4567-e89b-12d3-a456-426614174000',
    'error.type': 'UND_ERR_SOCKET',
    'error.codes': ['ECONNRESET', 'ETIMEDOUT', 'http_503', 'http_429'],
    'gen_ai.request.model': 'claude-sonnet-4-5-20250929',
    'gen_ai.response.model': 'gpt-5-mini-2025-08-07',
    'gen_ai.tool.name': 'apply_patch',
    'vcs.ref.head.revision': '9fceb02d0ae598e95dc970b74767f19372d61af8',
    'app.note': 'The agent read the config file and retried after the socket closed.',
    'server.address': 'api.openai.com',
  };
  it.each(Object.entries(survivors))('%s', (key, value) => {
    const { exported } = endSpan({}, (span) => span.setAttribute(key, value));
    expect(exported.attributes[key]).toEqual(value);
    expect(exported.attributes['incident.redactions']).toBeUndefined();
  });
});

describe('modes', () => {
  it('strict exports only allow-listed keys, everywhere, and still scrubs them', () => {
    const { exported } = endSpan({ sanitization: { mode: 'strict', allowKeys: ['app.tenant'] } }, (span) => {
      span.setAttributes({
        'gen_ai.request.model': 'gpt-5',
        'gen_ai.usage.input_tokens': 12,
        'app.tenant': 'acme alice@example.com',
        'app.secret_sauce': 'recipe',
        'user.id': 'u-123',
        'gen_ai.input.messages': '[]',
      });
      span.addEvent('exception', {
        'exception.type': 'Error',
        'exception.message': 'boom',
        'exception.stacktrace': 'at x (/srv/a.js:1:1)',
      });
    });
    expect(Object.keys(exported.attributes).sort()).toEqual([
      'app.tenant',
      'gen_ai.request.model',
      'gen_ai.usage.input_tokens',
      'incident.redactions',
    ]);
    expect(exported.attributes['app.tenant']).toBe('acme [redacted:email]');
    expect(exported.events[0]?.attributes).toEqual({ 'exception.type': 'Error' });
  });

  it('off exports content as recorded and says so once', () => {
    const warnings: string[] = [];
    const logger: DiagLogger = {
      error: () => {},
      warn: (m: string) => warnings.push(m),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    };
    diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
    const { exported } = endSpan({ sanitization: { mode: 'off' } }, (span) =>
      span.setAttribute('gen_ai.input.messages', 'my key sk-proj-AbCdEfGhIjKlMnOpQrStUv'),
    );
    expect(exported.attributes['gen_ai.input.messages']).toBe('my key sk-proj-AbCdEfGhIjKlMnOpQrStUv');
    expect(warnings.filter((w) => w.includes('sanitization is off'))).toHaveLength(1);
  });

  it('standard honours allowed keys, blocked keys and key patterns', () => {
    const { exported } = endSpan(
      {
        sanitization: {
          allowKeys: ['ai.telemetry.metadata.tenant'],
          blockKeys: ['app.debug'],
          blockKeyPatterns: ['^internal\\.'],
        },
      },
      (span) =>
        span.setAttributes({
          'ai.telemetry.metadata.tenant': 'acme',
          'ai.telemetry.metadata.email': 'x@y.io',
          'app.debug': 'dump',
          'internal.cache.key': 'k',
          'app.kept': 'v',
        }),
    );
    expect(exported.attributes).toMatchObject({
      'ai.telemetry.metadata.tenant': 'acme',
      'app.kept': 'v',
      'incident.redactions': 3,
    });
    for (const key of ['ai.telemetry.metadata.email', 'app.debug', 'internal.cache.key'])
      expect(exported.attributes[key]).toBeUndefined();
  });

  it('adds value patterns, and hashes instead of removing when a key is set', () => {
    const options: IncidentSpanProcessorOptions = {
      sanitization: {
        valuePatterns: [{ pattern: 'CUST-[0-9]{6}', kind: 'customer' }],
        hashKey: 'a-long-enough-hmac-key',
      },
    };
    const first = endSpan(options, (span) =>
      span.setAttributes({ a: 'order for CUST-123456', b: 'token=abcdef123456' }),
    );
    const second = endSpan(options, (span) => span.setAttributes({ a: 'again CUST-123456' }));
    const marker = /\[redacted:customer:[0-9a-f]{12}\]/;
    expect(first.exported.attributes.a).toMatch(marker);
    expect(String(second.exported.attributes.a).match(marker)?.[0]).toBe(
      String(first.exported.attributes.a).match(marker)?.[0],
    );
    expect(first.exported.attributes.b).toMatch(/^token=\[redacted:secret:[0-9a-f]{12}\]$/);
  });

  it.each([
    [{ mode: 'loose' }, /sanitization.mode/],
    [{ blockKeyPatterns: ['('] }, /invalid blockKeyPatterns entry/],
    [{ valuePatterns: [{ pattern: 'a*' }] }, /matches the empty string/],
    [{ hashKey: 'short' }, /sanitization.hashKey/],
  ])('rejects bad sanitization options %j naming them', (sanitization, message) => {
    expect(() => new IncidentSpanProcessor({ sanitization } as never)).toThrow(message);
  });
});

describe('accounting', () => {
  it('records the number of redactions on the span and counts them by kind, never the values', async () => {
    const reader = new CollectingReader();
    const { exported } = endSpan({ meterProvider: new MeterProvider({ readers: [reader] }) }, (span) => {
      span.setAttributes({ 'gen_ai.input.messages': 'hi', note: 'mail bob@example.com and key AKIAIOSFODNN7EXAMPLE' });
      span.setStatus({ code: 2, message: 'failed at /home/bob/x' });
    });
    expect(exported.attributes['incident.redactions']).toBe(3);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'agent_incidents.redactions');
    const byKind = Object.fromEntries(
      (metric?.dataPoints ?? []).map((p) => [p.attributes['agent_incidents.redaction.kind'], p.value]),
    );
    expect(byKind).toEqual({ content_key: 1, email: 1, secret: 1, path: 1 });
    expect(JSON.stringify(metric)).not.toContain('bob');
  });
});

describe('exported attribute maps stay fast to read', () => {
  // V8 turns an object into a slow dictionary after about a dozen keys added
  // one by one, or after a `delete`; the exporter then reads every span slowly.
  v8.setFlagsFromString('--allow-natives-syntax');
  const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

  it('a run span with its verdict, a removed content key and the instrumentation’s error.type is not a dictionary', () => {
    const pipeline = createPipeline();
    const run = pipeline.startRun();
    for (let i = 0; i < 10; i += 1) run.span.setAttribute(`app.key${i}`, i);
    run.span.setAttribute('gen_ai.input.messages', 'a prompt');
    run.span.setAttribute('error.type', 'aborted');
    run.userCancel();
    run.end();
    const span = pipeline.runSpans()[0]!;
    expect(span.attributes['incident.outcome']).toBe('cancelled');
    // `error.type` is the instrumentation's, kept on a cancelled run too (docs/attributes.md#span-status-and-errortype).
    expect(span.attributes['error.type']).toBe('aborted');
    expect(span.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(Object.keys(span.attributes).length).toBeGreaterThan(20);
    expect(hasFastProperties(span.attributes)).toBe(true);
  });
});

describe('span names carry no content', () => {
  it.each([
    [
      'execute_tool deploy {"env":"prod","token":"t0k3n-v4lu3"}',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'deploy' },
      'execute_tool deploy',
    ],
    [
      'invoke_agent coder: fix the login bug for alice',
      { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder' },
      'invoke_agent coder',
    ],
    [
      'chat gpt-4.1 Summarize the attached contract',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1' },
      'chat gpt-4.1',
    ],
    ['execute_tool rm -rf /home/bob/project', { 'gen_ai.operation.name': 'execute_tool' }, 'execute_tool'],
    ['chat gpt-4.1', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1' }, 'chat gpt-4.1'],
    ['my step with /home/bob/notes', {}, 'my step with [redacted:path]/notes'],
  ])('%s is exported as expected', (name, attributes, expected) => {
    const { exported } = endSpan({}, (span) => {
      span.updateName(name);
      span.setAttributes(attributes);
    });
    expect(exported.name).toBe(expected);
  });
});

describe('a secret cut short by the SDK length limit', () => {
  it.each([
    ['an OpenAI key', 'key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a GitHub token', 'auth ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a Bearer credential', 'Authorization: Bearer abcdefghij0123456789'],
    ['a JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig'],
  ])('%s cut by attributeValueLengthLimit is still redacted', (_name, value) => {
    const limit = value.indexOf(' ') + 12;
    const exporter = createPipeline();
    const provider = new BasicTracerProvider({
      spanLimits: { attributeValueLengthLimit: limit },
      spanProcessors: [
        new IncidentSpanProcessor({ sweepIntervalMillis: 0 }),
        new SimpleSpanProcessor(exporter.exporter),
      ],
    });
    const span = provider.getTracer('t').startSpan('work');
    span.setAttribute('app.note', value);
    span.end();
    const exported = exporter.spans()[0]!.attributes['app.note'] as string;
    const cut = value.slice(0, limit);
    expect(exported).not.toBe(cut);
    expect(exported).toBe(`${cut.slice(0, cut.lastIndexOf(' ') + 1)}[redacted:secret]`);
  });
});
