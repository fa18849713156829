/**
 * The gateway's configuration (src/gateway/config.ts): every default filled
 * in from one required key, an invalid value refused with a
 * GatewayConfigError naming its key, and a YAML file read and validated with
 * unreadable or non-YAML files refused the same way.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultWorkers,
  GatewayConfigError,
  loadGatewayConfig,
  resolveGatewayConfig,
  workersOf,
} from '../../src/gateway/config.js';

const ENDPOINT = 'http://127.0.0.1:4318/v1/traces';

describe('resolveGatewayConfig', () => {
  it('fills every default around the upstream endpoint', () => {
    expect(resolveGatewayConfig({ upstream: { endpoint: ENDPOINT } })).toEqual({
      listen: { host: '127.0.0.1', port: 4319 },
      upstream: {
        endpoint: ENDPOINT,
        encoding: 'protobuf',
        headers: {},
        timeoutMillis: 10_000,
        initialBackoffMillis: 200,
        maxBackoffMillis: 5_000,
      },
      hold: { decisionWaitMillis: 2_000, maxHoldMillis: 300_000, tickMillis: 250, refusedSenderBackoffMillis: 15_000 },
      limits: {
        maxBodyBytes: 8_388_608,
        maxTraces: 10_000,
        maxSpans: 200_000,
        maxHeldBytes: 268_435_456,
        maxForwardBacklogSpans: 100_000,
        upstreamFailingAttempts: 3,
        retryAfterSeconds: 5,
        maxRequestItems: 524_288,
        maxConnections: 1_024,
        headersTimeoutMillis: 10_000,
        requestTimeoutMillis: 30_000,
      },
      persistence: { maxBytes: 1_073_741_824, segmentBytes: 4_194_304, fsync: false },
      shutdown: { timeoutMillis: 20_000 },
      policy: {},
      sanitization: {},
    });
  });

  it('keeps the values given over the defaults', () => {
    const config = resolveGatewayConfig({
      listen: { port: 0 },
      upstream: { endpoint: ENDPOINT, encoding: 'json', maxAttempts: 4, headers: { authorization: 'Bearer t' } },
      hold: { decisionWaitMillis: 0 },
      limits: { maxRssBytes: 1_000, maxEventLoopDelayMillis: 100 },
      persistence: { directory: 'queue', fsync: true },
    });
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.upstream).toMatchObject({ encoding: 'json', maxAttempts: 4, headers: { authorization: 'Bearer t' } });
    expect(config.hold.decisionWaitMillis).toBe(0);
    expect(config.limits).toMatchObject({ maxRssBytes: 1_000, maxEventLoopDelayMillis: 100, maxTraces: 10_000 });
    expect(config.persistence).toEqual({
      directory: 'queue',
      fsync: true,
      maxBytes: 1_073_741_824,
      segmentBytes: 4_194_304,
    });
  });

  it.each([
    ['no config at all', undefined, 'upstream'],
    ['no upstream endpoint', { upstream: {} }, 'upstream.endpoint'],
    ['an endpoint that is not a URL', { upstream: { endpoint: 'nowhere' } }, 'upstream.endpoint'],
    ['an unknown encoding', { upstream: { endpoint: ENDPOINT, encoding: 'xml' } }, 'upstream.encoding'],
    ['a port past 65535', { listen: { port: 70_000 }, upstream: { endpoint: ENDPOINT } }, 'listen.port'],
    ['an empty host', { listen: { host: '' }, upstream: { endpoint: ENDPOINT } }, 'listen.host'],
    [
      'a timer longer than Node timers take',
      { upstream: { endpoint: ENDPOINT, timeoutMillis: 2 ** 31 } },
      'upstream.timeoutMillis',
    ],
    ['a zero maxHoldMillis', { upstream: { endpoint: ENDPOINT }, hold: { maxHoldMillis: 0 } }, 'hold.maxHoldMillis'],
    [
      'a negative decision wait',
      { upstream: { endpoint: ENDPOINT }, hold: { decisionWaitMillis: -1 } },
      'hold.decisionWaitMillis',
    ],
    ['a fractional bound', { upstream: { endpoint: ENDPOINT }, limits: { maxSpans: 1.5 } }, 'limits.maxSpans'],
    [
      'a Retry-After past a day',
      { upstream: { endpoint: ENDPOINT }, limits: { retryAfterSeconds: 86_401 } },
      'limits.retryAfterSeconds',
    ],
    ['an unknown key in a section', { upstream: { endpoint: ENDPOINT }, limits: { maxFoo: 1 } }, 'limits'],
    ['an unknown top-level key', { upstream: { endpoint: ENDPOINT }, extra: true }, '(root)'],
    ['a non-string header', { upstream: { endpoint: ENDPOINT, headers: { a: 1 } } }, 'upstream.headers.a'],
  ])('refuses %s, naming %s', (_case, input, key) => {
    expect(() => resolveGatewayConfig(input)).toThrow(GatewayConfigError);
    expect(() => resolveGatewayConfig(input)).toThrow(new RegExp(`^invalid gateway config at ${escape(key)}: \\S`));
  });
});

describe('loadGatewayConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and validates a YAML file', async () => {
    const file = join(dir, 'ok.yaml');
    await writeFile(file, `upstream:\n  endpoint: ${ENDPOINT}\n  encoding: json\nlisten:\n  port: 0\n`);
    const config = loadGatewayConfig(file);
    expect([config.upstream.endpoint, config.upstream.encoding, config.listen.port]).toEqual([ENDPOINT, 'json', 0]);
  });

  it.each([
    ['a missing file', undefined, /^cannot read gateway config .*missing\.yaml: /],
    ['a file that is not YAML', 'upstream: [unclosed\n', /^gateway config .*bad\.yaml is not valid YAML: /],
    ['an empty file (no upstream)', '', /^invalid gateway config at upstream: /],
    [
      'a bad value',
      `upstream:\n  endpoint: ${ENDPOINT}\n  maxAttempts: 0\n`,
      /^invalid gateway config at upstream\.maxAttempts: /,
    ],
  ])('refuses %s with a GatewayConfigError', async (_case, text, message) => {
    const name = text === undefined ? 'missing.yaml' : text.startsWith('upstream: [') ? 'bad.yaml' : 'other.yaml';
    const file = join(dir, name);
    if (text !== undefined) await writeFile(file, text);
    expect(() => loadGatewayConfig(file)).toThrow(GatewayConfigError);
    expect(() => loadGatewayConfig(file)).toThrow(message);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('workers', () => {
  it.each([
    [1, 1],
    [2, 1],
    [8, 7],
  ])('runs, unset, one worker per core less the intake’s: %i cores, %i workers', (cores, workers) => {
    expect(defaultWorkers(cores)).toBe(workers);
  });

  it.each([
    [0, 0],
    [3, 3],
    [undefined, defaultWorkers()],
  ])('takes workers: %s as %i', (workers, expected) => {
    expect(workersOf(resolveGatewayConfig({ upstream: { endpoint: ENDPOINT }, workers }))).toBe(expected);
  });

  it.each([[-1], [1.5], [257]])('refuses workers: %s, naming the key', (workers) => {
    expect(() => resolveGatewayConfig({ upstream: { endpoint: ENDPOINT }, workers })).toThrow(
      /invalid gateway config at workers/,
    );
  });
});
