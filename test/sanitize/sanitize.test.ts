/**
 * The sanitizer as tables: what is scrubbed, what survives, what is removed.
 */
import { describe, expect, it } from 'vitest';
import { isContentKey } from '../../src/index.js';
import { sanitizeAttributes, scrubString } from '../../src/sanitize/sanitizer.js';

const scrubbed: Array<[string, string, string]> = [
  ['OpenAI key', 'key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12 used', 'key [redacted:secret] used'],
  ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz', '[redacted:secret]'],
  ['AWS access key', 'AKIAIOSFODNN7EXAMPLE', '[redacted:secret]'],
  ['GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[redacted:secret]'],
  ['GitLab token', 'glpat-abcdefghijklmnopqrst', '[redacted:secret]'],
  ['Slack token', 'xoxb-1234567890-abcdefghij', '[redacted:secret]'],
  ['Stripe key', 'sk_live_abcdefghijklmnop1234', '[redacted:secret]'],
  ['Google key', 'AIzaSyA-abcdefghijklmnopqrstuvwxyz012345', '[redacted:secret]'],
  ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ', '[redacted:jwt]'],
  ['Bearer credential', 'Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer [redacted:secret]'],
  ['Basic credential', 'Basic dXNlcjpwYXNzd29yZA==', 'Basic [redacted:secret]'],
  ['api_key assignment', 'api_key=abcd1234efgh', 'api_key=[redacted:secret]'],
  ['password assignment', 'password: "hunter2!"', 'password: [redacted:secret]'],
  [
    'URL credentials',
    'postgres://admin:s3cret@db.internal:5432/app',
    'postgres://[redacted:credentials]@db.internal:5432/app',
  ],
  [
    'secret query parameter',
    'https://api.example.com/v1?model=x&api_key=abc123',
    'https://api.example.com/v1?model=x&api_key=[redacted:secret]',
  ],
  ['e-mail address', 'owner alice.smith+ai@example.co.uk', 'owner [redacted:email]'],
  ['Linux home path', 'at /home/alice/project/index.js', 'at [redacted:path]/project/index.js'],
  ['macOS home path', '/Users/bob/.ssh/id_rsa', '[redacted:path]/.ssh/id_rsa'],
  ['Windows home path', 'C:\\Users\\carol\\secrets.txt', '[redacted:path]\\secrets.txt'],
  [
    'PEM private key',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
    '[redacted:private_key]',
  ],
];

const kept = [
  'UND_ERR_SOCKET',
  'ECONNRESET',
  'ETIMEDOUT',
  'http_503',
  'TypeError: terminated',
  '4bf92f3577b34da6a3ce929d0e0e4736',
  'chat gpt-5-mini',
  'execute_tool read',
];

describe('scrubString', () => {
  it.each(scrubbed)('scrubs a %s', (_kind, input, want) => {
    expect(scrubString(input)).toBe(want);
  });

  it.each(kept)('leaves %s alone', (value) => {
    expect(scrubString(value)).toBe(value);
  });

  it('cuts long text to the limit with a marker', () => {
    expect(scrubString('a'.repeat(2000), 100)).toBe(`${'a'.repeat(100)}…[truncated]`);
  });

  it('scrubs a secret placed deep inside a 1 MB string before cutting it', () => {
    const value = `${'x'.repeat(50)} sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12 ${'y'.repeat(1_000_000)}`;
    const out = scrubString(value);
    expect(out).not.toContain('sk-proj');
    expect(out.length).toBeLessThan(600);
  });
});

describe('sanitizeAttributes', () => {
  it('removes the content keys of every supported convention and scrubs the rest', () => {
    const { attributes, changed } = sanitizeAttributes({
      'gen_ai.input.messages': '[{"role":"user"}]',
      'gen_ai.prompt.0.content': 'hi',
      'ai.prompt.messages': '[]',
      'ai.response.text': 'answer',
      'ai.toolCall.args': '{}',
      'ai.request.headers.authorization': 'Bearer x',
      'ai.telemetry.metadata.userEmail': 'a@b.co',
      'input.value': 'q',
      'llm.input_messages.0.message.content': 'q',
      'traceloop.entity.input': 'q',
      'gen_ai.request.model': 'gpt-5',
      'error.type': 'UND_ERR_SOCKET',
      'url.full': 'https://x.io/?token=abcd1234',
      tags: ['ok', 'mail alice@example.com'],
      count: 3,
    });
    expect(attributes).toEqual({
      'gen_ai.request.model': 'gpt-5',
      'error.type': 'UND_ERR_SOCKET',
      'url.full': 'https://x.io/?token=[redacted:secret]',
      tags: ['ok', 'mail [redacted:email]'],
      count: 3,
    });
    expect(changed).toBe(12);
  });

  it('returns the same object when nothing changes', () => {
    const clean = { 'gen_ai.request.model': 'gpt-5', n: 1 };
    expect(sanitizeAttributes(clean).attributes).toBe(clean);
  });

  it('keeps the order of the keys it keeps, in large maps and small, with values changed or removed', () => {
    for (const size of [3, 12, 13, 40]) {
      const input: Record<string, unknown> = {};
      for (let i = 0; i < size; i += 1) input[`k${i}`] = i % 3 === 0 ? `mail bob${i}@example.com` : i;
      input['gen_ai.input.messages'] = 'secret prompt';
      const { attributes } = sanitizeAttributes(input);
      expect(Object.keys(attributes)).toEqual(Array.from({ length: size }, (_, i) => `k${i}`));
      expect(attributes.k0).toBe('mail [redacted:email]');
      expect(attributes.k1).toBe(1);
    }
  });

  it('keeps an own `__proto__` key (as decoded from a request) a key, never the prototype', () => {
    for (const json of [
      '{"__proto__":"/home/bob/x","a":1}',
      '{"__proto__":"/home/bob/x","gen_ai.input.messages":"q"}',
    ]) {
      const { attributes } = sanitizeAttributes(JSON.parse(json) as Record<string, unknown>);
      expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value).toBe('[redacted:path]/x');
    }
  });

  it.each([
    'gen_ai.output.messages',
    'gen_ai.tool.call.result',
    'ai.response.providerMetadata',
    'tool.parameters',
    'tool_call.function.arguments',
  ])('treats %s as content', (key) => expect(isContentKey(key)).toBe(true));
});

describe('keys that carry content or credentials whatever their value', () => {
  it.each([
    'http.request.header.x-api-key',
    'http.request.header.api-key',
    'http.request.header.authorization',
    'http.request.header.cookie',
    'http.response.header.set-cookie',
    'http.request.header.x-goog-api-key',
    'http.request.header.x-auth-token',
    'ai.request.headers.authorization',
    'ai.response.headers.set-cookie',
  ])('removes %s as a credential key', (key) => {
    const { attributes, changed } = sanitizeAttributes({
      [key]: 'plain-looking-value',
      'http.request.header.content-type': 'application/json',
    });
    expect(attributes).toEqual({ 'http.request.header.content-type': 'application/json' });
    expect(changed).toBe(1);
  });

  it.each([
    'ai.documents',
    'ai.ranking',
    'reranker.query',
    'reranker.input_documents.0.document.content',
    'reranker.output_documents.1.document.content',
    'audio.transcript',
    'audio.url',
    'image.url',
    'input.images.0.image.url',
    'output.images',
    'llm.input_messages',
    'llm.output_messages',
    'llm.choices',
    'traceloop.prompt.template',
    'traceloop.prompt.template_variables.customer',
    'llm.request.functions.0.description',
    'llm.completions.0.content',
  ])('treats %s as content', (key) => expect(isContentKey(key)).toBe(true));
});
