/**
 * recognise's promise (src/conventions/index.ts): the first adapter, in the
 * order given, that knows a span's role names it; none for a span no
 * convention knows. The default order is GenAI, AI SDK, OpenInference.
 */
import { describe, expect, it } from 'vitest';
import type { ConventionAdapter } from '../../src/conventions/index.js';
import {
  ADAPTERS,
  genAiAdapter,
  openInferenceAdapter,
  recognise,
  vercelAiAdapter,
} from '../../src/conventions/index.js';

describe('recognise', () => {
  it('reads the adapters in the documented order', () => {
    expect(ADAPTERS).toEqual([genAiAdapter, vercelAiAdapter, openInferenceAdapter]);
  });

  it.each([
    ['a GenAI run', 'invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' }, 'gen_ai', 'run'],
    ['a GenAI tool', 'execute_tool', { 'gen_ai.operation.name': 'execute_tool' }, 'gen_ai', 'tool'],
    ['an OpenInference agent', 'agent', { 'openinference.span.kind': 'AGENT' }, 'openinference', 'run'],
    ['a span no convention knows', 'GET /', { 'http.method': 'GET' }, undefined, undefined],
  ])('%s', (_case, name, attributes, adapter, role) => {
    const match = recognise({ name, attributes });
    expect([match?.adapter.name, match?.role]).toEqual([adapter, role]);
  });

  it('the first adapter that knows the span wins', () => {
    const everything: ConventionAdapter = { ...genAiAdapter, name: 'everything', role: () => 'tool' };
    const match = recognise({ name: 'invoke_agent', attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, [
      everything,
      genAiAdapter,
    ]);
    expect([match?.adapter.name, match?.role]).toEqual(['everything', 'tool']);
    expect(recognise({ name: 'invoke_agent', attributes: {} }, [])).toBeUndefined();
  });
});
