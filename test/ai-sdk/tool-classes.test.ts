/**
 * Tool side-effect classes: what the application declares, lowered (never
 * raised) by MCP annotations, and the boundary of one provider request.
 */
import { describe, expect, it } from 'vitest';
import { toolSideEffects } from '../../src/ai-sdk/index.js';
import type { ToolClassSources } from '../../src/ai-sdk/index.js';
import { requestBoundary } from '../../src/ai-sdk/tool-classes.js';

const mcp = (annotations: Record<string, boolean>) => ({ metadata: { annotations } });

describe('toolSideEffects', () => {
  const rows: { name: string; sources: ToolClassSources; want: string }[] = [
    { name: 'a declared class is used', sources: { declared: { t: 'read_only' } }, want: 'read_only' },
    { name: 'an undeclared tool is unknown', sources: {}, want: 'unknown' },
    { name: 'a tool the policy trusts is read-only', sources: { trustedReadOnly: ['t'] }, want: 'read_only' },
    {
      name: 'readOnlyHint never raises an unknown tool',
      sources: { tools: { t: mcp({ readOnlyHint: true }) } },
      want: 'unknown',
    },
    {
      name: 'destructiveHint lowers a declared read-only tool to unsafe',
      sources: { declared: { t: 'read_only' }, tools: { t: mcp({ destructiveHint: true }) } },
      want: 'unsafe',
    },
    {
      name: 'readOnlyHint false lowers an unknown tool to unsafe',
      sources: { tools: { t: mcp({ readOnlyHint: false }) } },
      want: 'unsafe',
    },
    {
      name: 'annotations on the tool itself count too',
      sources: { declared: { t: 'read_only' }, tools: { t: { annotations: { destructiveHint: true } } } },
      want: 'unsafe',
    },
    {
      name: 'a hint agreeing with the declaration changes nothing',
      sources: { declared: { t: 'read_only' }, tools: { t: mcp({ readOnlyHint: true, destructiveHint: false }) } },
      want: 'read_only',
    },
  ];
  it.each(rows)('$name', ({ sources, want }) => {
    expect(toolSideEffects('t', sources)).toBe(want);
  });
});

describe('requestBoundary', () => {
  it('lists every exposed tool with its class, and provider tools without a local execute as provider-executed', () => {
    const boundary = requestBoundary(
      [
        { type: 'function', name: 'read_file' },
        { type: 'provider', name: 'web_search' },
        { type: 'provider', name: 'bash' },
        { type: 'function' },
      ],
      {
        declared: { read_file: 'read_only', bash: 'unsafe' },
        tools: { web_search: { type: 'provider' }, bash: { type: 'provider', execute: () => 'ok' } },
      },
    );
    expect(boundary.tools).toEqual([
      { name: 'read_file', sideEffects: 'read_only', providerExecuted: false },
      { name: 'web_search', sideEffects: 'unknown', providerExecuted: true },
      { name: 'bash', sideEffects: 'unsafe', providerExecuted: false },
    ]);
  });

  it('is empty, and complete, for a request with no tools', () => {
    expect(requestBoundary(undefined, {})).toEqual({ tools: [] });
  });
});
