/**
 * The "any language" proof: a Python agent that knows nothing of this package
 * (only the OpenTelemetry Python SDK and its OTLP/HTTP protobuf exporter)
 * records the native convention by hand, sends its spans to the gateway, and
 * the runs that reach the upstream carry exactly the verdicts that the Node
 * side gives for the same runs recorded with RunRecorder.
 *
 * Needs the venv of scripts/ci/python-agent-venv.sh; skipped without it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import type { DecodedSpan, DecodedValue } from '../../src/otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';
import type { RunRecorder } from '../../src/runtime/run-recorder.js';
import { createPipeline, errors, LOCAL_TOOLS } from '../support/harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const PYTHON = join(root, '.cache/python-agent-venv/bin/python');
const AGENT = join(here, 'agent.py');
const venvReady = existsSync(PYTHON);
const title = venvReady
  ? 'a Python agent through the gateway'
  : `a Python agent through the gateway (skipped: ${relative(root, PYTHON)} is missing; create it with scripts/ci/python-agent-venv.sh)`;

// Say why in the output, not only in the (verbose reporter's) title.
if (!venvReady) console.warn(title);

/** The run keys compared between the two sides. */
const VERDICT_KEYS = [
  'incident.outcome',
  'incident.cause',
  'incident.cause.detail',
  'incident.phase',
  'incident.retry_safety',
  'incident.retry_safety.reason',
  'incident.retryable',
  'incident.side_effects',
  'incident.facts_complete',
  'incident.missing_facts',
  'incident.error.code',
  'incident.attempts',
  'incident.recovered_attempts',
  'incident.lost.attempts',
  'incident.lost.input_tokens',
  'incident.lost.output_tokens',
  'incident.lost.lower_bound',
  'incident.schema_version',
] as const;

type Attributes = Record<string, DecodedValue>;

/** The `incident.*` keys of a span's attributes, except sanitization's count (it counts text, not facts). */
function incidentKeys(attributes: Readonly<Record<string, unknown>>): Attributes {
  return Object.fromEntries(
    Object.entries(attributes).filter(([key]) => key.startsWith('incident.') && key !== 'incident.redactions'),
  ) as Attributes;
}

/** An OTLP/HTTP receiver standing in for the collector behind the gateway. */
async function startUpstream() {
  const received: DecodedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = (request.headers['content-type'] ?? '').startsWith('application/json');
      received.push(
        ...decodeOtlpJsonSpans(json ? (JSON.parse(body.toString('utf8')) as unknown) : decodeExportTraceRequest(body)),
      );
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

interface AgentSummary {
  readonly flushed: boolean;
  readonly exported_spans: number;
  readonly failed_spans: number;
  readonly runs: readonly {
    readonly conversation_id: string;
    readonly agent_name: string;
    readonly trace_id: string;
  }[];
}

/** The same two runs, recorded in Node with RunRecorder. */
const NODE_RUNS: Record<string, { readonly agentName: string; readonly record: (run: RunRecorder) => void }> = {
  'python-agent-stream-drop': {
    agentName: 'py-stream-drop',
    record(run) {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.usage({ inputTokens: 1200, cachedInputTokens: 1024 });
      attempt.textOutput();
      attempt.fail(errors.socketDrop());
    },
  },
  'python-agent-tool-failure': {
    agentName: 'py-tool-failure',
    record(run) {
      const attempt = run.startAttempt({ boundary: { tools: LOCAL_TOOLS } });
      attempt.toolCallMaterialized({ name: 'bash', callId: 'call_bash_1', sideEffects: 'unsafe' });
      attempt.finish();
      const tool = run.startTool({ name: 'bash', callId: 'call_bash_1', sideEffects: 'unsafe', attempt });
      tool.fail(Object.assign(new Error('EACCES: permission denied, spawn deploy.sh'), { code: 'EACCES' }));
    },
  },
};

/** Every span of the Node run by name, with its `incident.*` keys. */
async function nodeRun(conversationId: string): Promise<Map<string, Attributes>> {
  const { agentName, record } = NODE_RUNS[conversationId]!;
  const pipeline = createPipeline();
  const run = pipeline.startRun({ agentName, conversationId, model: 'gpt-4o' });
  record(run);
  run.end();
  await pipeline.provider.forceFlush();
  const spans = new Map(pipeline.spans().map((s) => [s.name, incidentKeys(s.attributes)]));
  await pipeline.provider.shutdown();
  return spans;
}

describe.skipIf(!venvReady)(title, () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let gateway: Gateway;
  let summary: AgentSummary;

  beforeAll(async () => {
    upstream = await startUpstream();
    gateway = await createGateway({
      listen: { host: '127.0.0.1', port: 0 },
      hold: { decisionWaitMillis: 0, tickMillis: 20 },
      upstream: { endpoint: upstream.endpoint },
    });
    // Asynchronous: the gateway answers the agent from this same event loop.
    const { stdout } = await promisify(execFile)(PYTHON, [AGENT, `${gateway.url}/v1/traces`], { timeout: 60_000 });
    summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as AgentSummary;
    await gateway.flush();
  }, 90_000);

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('exports every span of both runs through the gateway to the upstream', () => {
    expect(summary).toMatchObject({ flushed: true, failed_spans: 0, exported_spans: 5 });
    expect(summary.runs.map((r) => r.conversation_id)).toEqual(Object.keys(NODE_RUNS));
    expect(upstream.received).toHaveLength(5);
    // They are the Python SDK's spans, not Node's.
    for (const span of upstream.received) {
      expect(span.resource).toMatchObject({ 'service.name': 'python-agent', 'telemetry.sdk.language': 'python' });
      expect(span.scopeName).toBe('python-agent');
    }
  });

  it.each(Object.keys(NODE_RUNS))('gives run %s exactly the verdict the Node side gives', async (conversationId) => {
    const traceId = summary.runs.find((r) => r.conversation_id === conversationId)?.trace_id;
    const python = upstream.received.filter((s) => s.traceId === traceId);
    const pythonRun = python.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    expect(pythonRun?.attributes['gen_ai.conversation.id']).toBe(conversationId);
    const node = await nodeRun(conversationId);
    const nodeRunKeys = node.get(`invoke_agent ${NODE_RUNS[conversationId]!.agentName}`)!;

    // Key by key, so a mismatch names the key.
    const pythonRunKeys = incidentKeys(pythonRun!.attributes);
    for (const key of VERDICT_KEYS) expect.soft(pythonRunKeys[key], key).toEqual(nodeRunKeys[key]);
    // …and no key on one side only.
    expect(pythonRunKeys).toEqual(nodeRunKeys);
    expect(pythonRun?.statusCode).toBe(2);
    expect(pythonRun?.attributes['error.type']).toBe(nodeRunKeys['incident.cause']);

    // The attempt and tool spans carry the same incident keys too (the attempt verdict of a failed attempt).
    expect(new Map(python.map((s) => [s.name, incidentKeys(s.attributes)]))).toEqual(node);
  });

  it('gives the verdicts the convention documents', () => {
    const verdict = (conversationId: string) =>
      incidentKeys(
        upstream.received.find((s) => s.attributes['gen_ai.conversation.id'] === conversationId)!.attributes,
      );
    expect(verdict('python-agent-stream-drop')).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.cause.detail': 'socket_closed',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
      'incident.retryable': true,
      'incident.side_effects': 'none',
      'incident.error.code': 'UND_ERR_SOCKET',
      'incident.facts_complete': true,
      'incident.attempts': 1,
      // What the dropped stream had used: its input, reported at the start; its output never came (a floor).
      'incident.lost.attempts': 1,
      'incident.lost.input_tokens': 1200,
      'incident.lost.cached_input_tokens': 1024,
      'incident.lost.output_tokens': 0,
      'incident.lost.lower_bound': true,
    });
    expect(verdict('python-agent-tool-failure')).toMatchObject({
      'incident.outcome': 'failed',
      'incident.cause': 'tool_execution_failure',
      'incident.cause.detail': 'permission_denied',
      'incident.phase': 'tool_execution',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'unsafe_side_effect_started',
      'incident.side_effects': 'unsafe',
      'incident.error.code': 'EACCES',
      'incident.facts_complete': true,
      'incident.attempts': 1,
    });
  });
});
