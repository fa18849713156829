/**
 * The low-cardinality name the GenAI conventions give a span, for spans whose
 * name carries more: `execute_tool {gen_ai.tool.name}`,
 * `invoke_agent {gen_ai.agent.name}`, `{operation} {gen_ai.request.model}`.
 * Instrumentations that append the tool's arguments or the prompt to the name
 * (`execute_tool deploy {"env":"prod",…}`) would export content no key
 * decision can remove; the documented name holds none.
 */
import { GEN_AI } from '../model/native-convention.js';

/** Operations whose target is the agent, not the model. */
const AGENT_OPERATIONS = new Set(['invoke_agent', 'create_agent']);

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The documented name of a span of `attributes` named `name`, when the name
 * starts with its operation and carries more than the documented name;
 * undefined when the name is as documented or follows no GenAI operation.
 */
export function documentedSpanName(name: string, attributes: Readonly<Record<string, unknown>>): string | undefined {
  const operation = text(attributes[GEN_AI.OPERATION_NAME]);
  if (operation === undefined || !name.startsWith(operation)) return undefined;
  const target =
    operation === 'execute_tool'
      ? text(attributes[GEN_AI.TOOL_NAME])
      : AGENT_OPERATIONS.has(operation)
        ? text(attributes[GEN_AI.AGENT_NAME])
        : text(attributes[GEN_AI.REQUEST_MODEL]);
  const documented = target === undefined ? operation : `${operation} ${target}`;
  return name === documented || name === operation ? undefined : documented;
}
