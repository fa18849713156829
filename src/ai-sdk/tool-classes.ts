/**
 * Side-effect classes of AI SDK tools, and the side-effect boundary of one
 * provider request. Pure: reads tool objects, never calls them.
 */
import type { ToolSideEffects } from '../model/enums.js';
import type { BoundaryInput, BoundaryToolInput } from '../runtime/fact-events.js';

/** MCP tool annotations (`@ai-sdk/mcp` puts them on `tool.metadata.annotations`). */
export interface McpToolAnnotations {
  /** The server says the tool changes nothing. */
  readonly readOnlyHint?: boolean;
  /** The server says the tool may destroy or overwrite. */
  readonly destructiveHint?: boolean;
}

/** The parts of an AI SDK tool this module reads. */
export interface ToolLike {
  /** `provider` for a tool the provider runs itself. */
  readonly type?: string;
  /** The tool's function: a `provider` tool without one runs at the provider. */
  readonly execute?: unknown;
  /** Where `@ai-sdk/mcp` puts the MCP annotations. */
  readonly metadata?: { readonly annotations?: McpToolAnnotations };
  /** MCP annotations put on the tool itself. */
  readonly annotations?: McpToolAnnotations;
}

/** Where tool classes come from. */
export interface ToolClassSources {
  /** Classes the application declares, by tool name. Absent tools are `unknown`. */
  readonly declared?: Readonly<Record<string, ToolSideEffects>>;
  /** Tool names the policy trusts as read-only when nothing else classifies them. */
  readonly trustedReadOnly?: readonly string[];
  /** The tool objects given to the SDK call, for their MCP annotations. */
  readonly tools?: Readonly<Record<string, ToolLike | undefined>>;
}

const TRUST: Record<ToolSideEffects, number> = { read_only: 2, unknown: 1, unsafe: 0 };

function annotationsOf(tool: ToolLike | undefined): McpToolAnnotations | undefined {
  return tool?.metadata?.annotations ?? tool?.annotations;
}

/**
 * The side-effect class of tool `name`. MCP annotations are hints from the
 * tool's server, not facts: `destructiveHint: true` or `readOnlyHint: false`
 * can lower a tool to `unsafe`, but `readOnlyHint: true` never raises trust.
 */
export function toolSideEffects(name: string, sources: ToolClassSources): ToolSideEffects {
  const declared = sources.declared?.[name] ?? (sources.trustedReadOnly?.includes(name) ? 'read_only' : 'unknown');
  const hints = annotationsOf(sources.tools?.[name]);
  const hinted: ToolSideEffects | undefined =
    hints?.destructiveHint === true || hints?.readOnlyHint === false ? 'unsafe' : undefined;
  return hinted !== undefined && TRUST[hinted] < TRUST[declared] ? hinted : declared;
}

/** A tool the provider runs itself: a provider tool with no local `execute`. */
export function isProviderExecuted(tool: ToolLike | undefined, requestType?: string): boolean {
  const type = tool?.type ?? requestType;
  return type === 'provider' && typeof tool?.execute !== 'function';
}

/** One tool definition of a provider request (`LanguageModelV3` call options). */
export interface RequestTool {
  readonly type?: string;
  readonly name?: string;
}

/** The side-effect boundary of a request that exposes `requestTools`. */
export function requestBoundary(
  requestTools: readonly RequestTool[] | undefined,
  sources: ToolClassSources,
): BoundaryInput {
  const tools: BoundaryToolInput[] = [];
  for (const definition of requestTools ?? []) {
    if (typeof definition.name !== 'string') continue;
    const tool = sources.tools?.[definition.name];
    tools.push({
      name: definition.name,
      sideEffects: toolSideEffects(definition.name, sources),
      providerExecuted: isProviderExecuted(tool, definition.type),
    });
  }
  return { tools };
}
