/**
 * recordStreamPart: each AI SDK stream part type (ai 6 and 7) is recorded on a real attempt
 * span as the fact it shows; lifecycle parts and types the table does not know record nothing
 * and are not output (docs/conventions.md#fact-events, `provider_progress`).
 */
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { isOutputPart, recordStreamPart } from '../../src/ai-sdk/stream-parts.js';
import type { StreamPartLike } from '../../src/ai-sdk/stream-parts.js';
import type { ToolSideEffects } from '../../src/model/enums.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { KeepingExporter } from '../support/keeping-exporter.js';

/** Records `parts` on one attempt and returns the attempt span's fact events (name without prefix, attributes). */
function recorded(parts: readonly StreamPartLike[], sideEffects?: ToolSideEffects) {
  const exporter = new KeepingExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('unit');
  const run = RunRecorder.start({ tracer });
  const attempt = run.startAttempt();
  for (const part of parts) recordStreamPart(attempt, part, { sideEffects });
  attempt.close();
  const span = exporter.spans.find((s) => s.spanContext().spanId === attempt.span.spanContext().spanId);
  return (span?.events ?? [])
    .filter((e) => e.name.startsWith('agent_incidents.'))
    .map((e) => ({ name: e.name.slice('agent_incidents.'.length), attributes: e.attributes ?? {} }));
}

describe('recordStreamPart records the fact a part shows', () => {
  it.each([
    ['text-start', 'text_output_started'],
    ['text-delta', 'text_output_started'],
    ['text', 'text_output_started'],
    ['reasoning-start', 'reasoning_output_started'],
    ['reasoning-delta', 'reasoning_output_started'],
    ['reasoning', 'reasoning_output_started'],
    ['reasoning-file', 'reasoning_output_started'],
    ['tool-input-start', 'tool_input_started'],
    ['tool-input-end', 'tool_input_completed'],
    ['tool-call', 'tool_call_materialized'],
    ['tool-input-delta', 'provider_progress'],
    ['tool-result', 'provider_progress'],
    ['tool-error', 'provider_progress'],
    ['source', 'provider_progress'],
    ['file', 'provider_progress'],
  ])('%s → %s, and it is output', (type, fact) => {
    expect(recorded([{ type, toolName: 't' }]).map((e) => e.name)).toEqual([fact]);
    expect(isOutputPart(type)).toBe(true);
  });

  it.each([
    'start',
    'stream-start',
    'response-metadata',
    'start-step',
    'finish-step',
    'finish',
    'error',
    'abort',
    'raw',
    'text-end',
    'a-part-type-of-a-later-sdk',
    'toString',
    '__proto__',
  ])('%s records nothing and is not output', (type) => {
    expect(recorded([{ type }])).toEqual([]);
    expect(isOutputPart(type)).toBe(false);
  });
});

describe('what a part carries reaches the fact', () => {
  it('a tool call keeps its name, call id, provider execution and the side-effect class given', () => {
    const [event] = recorded(
      [{ type: 'tool-call', toolName: 'bash', toolCallId: 'call_1', providerExecuted: false }],
      'unsafe',
    );
    expect(event?.attributes).toMatchObject({
      'gen_ai.tool.name': 'bash',
      'gen_ai.tool.call.id': 'call_1',
      'agent_incidents.tool.side_effects': 'unsafe',
      'agent_incidents.tool.provider_executed': false,
    });
  });

  it('a tool call without a side-effect class records unknown, the cautious class', () => {
    const [event] = recorded([{ type: 'tool-call', toolName: 'bash' }]);
    expect(event?.attributes['agent_incidents.tool.side_effects']).toBe('unknown');
  });

  it('other output names its part type; text after text is not news', () => {
    const events = recorded([{ type: 'source' }, { type: 'text-delta' }, { type: 'text-delta' }, { type: 'file' }]);
    expect(events.map((e) => e.name)).toEqual(['provider_progress', 'text_output_started']);
    expect(events[0]?.attributes['agent_incidents.chunk.type']).toBe('source');
  });
});
