/**
 * Random span trees with secrets of every covered format, and of every shape
 * of the blind corpora, placed anywhere a span holds text (attribute values
 * and arrays, argv arrays, event names and attributes, link attributes,
 * exception messages and stacks, status messages, span names), for the
 * no-secret property tests of the processor and the gateway.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { context, trace } from '@opentelemetry/api';
import fc from 'fast-check';
import { blindSecretArbitrary } from './blind-corpus.js';
import type { Planted } from './secret-shapes.js';
import { SECRET_SHAPES } from './secret-shapes.js';

const secretKinds = SECRET_SHAPES.map(([, shape]) => shape);
/** Lines of text from the blind corpora (test/fixtures/sanitize/blind-corpus*), fresh secrets drawn from their shapes. */
const blindText: fc.Arbitrary<Planted> = blindSecretArbitrary('text').map(({ carrier, secret }) => ({
  text: carrier.carrier === 'text' ? carrier.text : '',
  secret,
}));
/** Attributes of the blind corpora: a key that names (or not) the secret in its value. */
const blindAttribute: fc.Arbitrary<[string, Planted]> = blindSecretArbitrary('attribute').map(({ carrier, secret }) =>
  carrier.carrier === 'attribute'
    ? [carrier.key, { text: carrier.value, secret }]
    : ['app.note', { text: '', secret: '' }],
);
/** Argv arrays of the blind corpora (`process.command_args`): a flag and its secret as separate items. */
const blindArgv: fc.Arbitrary<{ items: string[]; secret: string }> = blindSecretArbitrary('argv').map(
  ({ carrier, secret }) => ({ items: carrier.carrier === 'argv' ? [...carrier.argv] : [], secret }),
);
/** Secrets of the rule table's formats and of every shape of the blind corpora, as often as each other. */
const planted = fc.oneof(fc.oneof(...secretKinds), blindText);
const DELIMITERS = [' ', '"', '\n', '(', ',', "'", '\t', ' = '];
const filler = fc.constantFrom(
  '',
  'request failed:',
  'calling provider',
  'see',
  'error at',
  'cause:',
  'UND_ERR_SOCKET',
  '{"headers":{',
);
/** Text with one secret inside, delimited as logs and messages delimit them. */
export const carrying = fc
  .tuple(filler, fc.constantFrom(...DELIMITERS), planted, fc.constantFrom(...DELIMITERS), filler)
  .map(([before, d1, p, d2, after]) => ({ text: `${before}${d1}${p.text}${d2}${after}`, secret: p.secret }));

// Keys of every convention: content keys, operational keys and free-form ones.
const KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'gen_ai.prompt.0.content',
  'gen_ai.completion.0.content',
  'gen_ai.request.model',
  'gen_ai.tool.name',
  'ai.prompt',
  'ai.prompt.messages',
  'ai.response.text',
  'ai.response.toolCalls',
  'ai.toolCall.args',
  'ai.toolCall.result',
  'ai.request.headers.authorization',
  'ai.telemetry.metadata.user',
  'ai.model.id',
  'input.value',
  'output.value',
  'llm.input_messages.0.message.content',
  'tool.parameters',
  'tool_call.function.arguments',
  'traceloop.entity.input',
  'traceloop.entity.output',
  'http.url',
  'url.full',
  'db.connection_string',
  'user.note',
  'error.message',
  'incident.cause',
  'app.config',
];

export interface SpanPlan {
  readonly name: string;
  /** The secret planted in the name, if any. */
  readonly nameSecret?: string;
  readonly attributes: Array<[string, Planted | Planted[] | number]>;
  /** Attributes of the blind corpora, under their own keys. */
  readonly named: Array<[string, Planted]>;
  /** A blind corpus argv array, as `process.command_args`. */
  readonly argv?: { items: string[]; secret: string };
  readonly events: Array<{ name: string; nameSecret?: string; attributes: Array<[string, Planted]> }>;
  readonly exception?: { message: Planted; stack: Planted };
  readonly status?: Planted;
  readonly linkAttribute?: Planted;
  readonly children: SpanPlan[];
}

const SPAN_NAMES = [
  'invoke_agent',
  'chat',
  'execute_tool',
  'ai.streamText',
  'ai.streamText.doStream',
  'ai.toolCall',
  'LLM',
  'AGENT',
  'openai.chat',
  'HTTP POST',
];
const OPERATIONS: Record<string, Attributes> = {
  invoke_agent: { 'gen_ai.operation.name': 'invoke_agent' },
  chat: { 'gen_ai.operation.name': 'chat' },
  execute_tool: { 'gen_ai.operation.name': 'execute_tool' },
  AGENT: { 'openinference.span.kind': 'AGENT' },
  LLM: { 'openinference.span.kind': 'LLM' },
  'openai.chat': { 'traceloop.span.kind': 'task' },
};

/** A span of the plan with the given children (trees are at most three levels deep). */
const spanWith = (children: fc.Arbitrary<SpanPlan[]>): fc.Arbitrary<SpanPlan> =>
  fc
    .record({
      naming: fc.oneof(
        fc.constantFrom(...SPAN_NAMES).map((name) => ({ name, nameSecret: undefined })),
        carrying.map((c) => ({ name: `execute_tool ${c.text}`, nameSecret: c.secret })),
      ),
      attributes: fc.array(
        fc.tuple(
          fc.constantFrom(...KEYS),
          fc.oneof(carrying, fc.array(carrying, { minLength: 1, maxLength: 3 }), fc.integer()),
        ),
        { maxLength: 5 },
      ),
      named: fc.array(blindAttribute, { maxLength: 2 }),
      argv: fc.option(blindArgv, { nil: undefined }),
      events: fc.array(
        fc.record({
          naming: fc.oneof(
            fc
              .constantFrom('agent_incidents.provider_progress', 'gen_ai.content.prompt', 'log')
              .map((name) => ({ name, nameSecret: undefined })),
            carrying.map((c) => ({ name: c.text, nameSecret: c.secret })),
          ),
          attributes: fc.array(fc.tuple(fc.constantFrom(...KEYS, 'message', 'body'), carrying), { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
      exception: fc.option(fc.record({ message: carrying, stack: carrying }), { nil: undefined }),
      status: fc.option(carrying, { nil: undefined }),
      linkAttribute: fc.option(carrying, { nil: undefined }),
      children,
    })
    .map(({ naming, events, ...rest }) => ({
      ...rest,
      ...naming,
      events: events.map(({ naming: eventNaming, attributes }) => ({ ...eventNaming, attributes })),
    }));
const leaf = spanWith(fc.constant([]));
export const spanPlan = spanWith(fc.array(spanWith(fc.array(leaf, { maxLength: 2 })), { maxLength: 2 }));

/** Every secret a plan plants, so the test can search for each. */
export function secretsOf(plan: SpanPlan): string[] {
  const values = (v: Planted | Planted[] | number) => (typeof v === 'number' ? [] : Array.isArray(v) ? v : [v]);
  return [
    ...plan.attributes.flatMap(([, v]) => values(v).map((p) => p.secret)),
    ...plan.named.map(([, p]) => p.secret),
    ...(plan.argv ? [plan.argv.secret] : []),
    ...(plan.nameSecret !== undefined ? [plan.nameSecret] : []),
    ...plan.events.flatMap((e) => (e.nameSecret !== undefined ? [e.nameSecret] : [])),
    ...plan.events.flatMap((e) => e.attributes.map(([, p]) => p.secret)),
    ...(plan.exception ? [plan.exception.message.secret, plan.exception.stack.secret] : []),
    ...(plan.status ? [plan.status.secret] : []),
    ...(plan.linkAttribute ? [plan.linkAttribute.secret] : []),
    ...plan.children.flatMap(secretsOf),
  ];
}

export function play(tracer: Tracer, plan: SpanPlan, parent: Span | undefined, linkTo: Span | undefined): void {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  const attributes: Attributes = { ...(OPERATIONS[plan.name] ?? {}) };
  for (const [key, value] of plan.attributes) {
    attributes[key] = typeof value === 'number' ? value : Array.isArray(value) ? value.map((p) => p.text) : value.text;
  }
  for (const [key, value] of plan.named) attributes[key] = value.text;
  if (plan.argv) attributes['process.command_args'] = plan.argv.items;
  const links =
    linkTo && plan.linkAttribute
      ? [{ context: linkTo.spanContext(), attributes: { note: plan.linkAttribute.text } }]
      : [];
  const span = tracer.startSpan(plan.name, { attributes, links }, ctx);
  for (const event of plan.events)
    span.addEvent(event.name, Object.fromEntries(event.attributes.map(([k, p]) => [k, p.text])));
  if (plan.exception) {
    const error = new Error(plan.exception.message.text);
    error.stack = `Error: ${plan.exception.message.text}\n    at handler (${plan.exception.stack.text}:10:5)\n    at run (/srv/app/index.js:1:1)`;
    span.recordException(error);
  }
  if (plan.status) span.setStatus({ code: 2, message: plan.status.text });
  for (const child of plan.children) play(tracer, child, span, span);
  span.end();
}
