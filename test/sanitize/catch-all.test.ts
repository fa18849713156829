/**
 * The catch-all (docs/sanitization.md, "The catch-all"): secrets found by
 * their name, their prefix, their randomness or their encoding, whoever
 * issued them; and what it must leave alone. One table per promise. The
 * secrets are fake; the blind corpora test the same promises on inputs
 * nobody wrote these rules from.
 */
import { describe, expect, it } from 'vitest';
import { createSanitizer, sanitizeAttributeMap } from '../../src/sanitize/sanitizer.js';
import { createTally } from '../../src/sanitize/scrubber.js';
import { credentialName } from '../../src/sanitize/credential-words.js';
import { isIdentifierName, isPublicName } from '../../src/sanitize/public-names.js';
import { isPlaceholder } from '../../src/sanitize/placeholder.js';
import { looksRandom, looksRandomAlone, measureRun } from '../../src/sanitize/secret-shape.js';

const sanitizer = createSanitizer();
const scrub = (text: string) => sanitizer.scrub(text, createTally());
const attributes = (map: Record<string, unknown>) => sanitizeAttributeMap(map, sanitizer, createTally());
const shape = (text: string) => measureRun(text, 0, text.length);

describe('a name whose last word is a credential word names a credential, in any case style', () => {
  it.each([
    ['DB_PASSWORD', 'strong'],
    ['dbPassword', 'strong'],
    ['db-password', 'strong'],
    ['db.password', 'strong'],
    ['dbpassword', 'strong'],
    ['clientSecret', 'strong'],
    ['AccountKey', 'strong'],
    ['SharedAccessKey', 'strong'],
    ['x-functions-key', 'strong'],
    ['ocp-apim-subscription-key', 'strong'],
    ['APIKey', 'strong'],
    ['_authToken', 'strong'],
    ['AUTHTOKEN', 'strong'],
    ['--client-secret', 'strong'],
    ['BUNDLE_ENTERPRISE__CONTRIBSYS__COM', 'strong'],
    ['tls.key', 'weak'],
    ['X-Amz-Signature', 'weak'],
    ['cache_key', 'none'],
    ['publicKey', 'none'],
    ['messaging.kafka.message.key', 'none'],
    ['nextPageToken', 'none'],
    ['max_tokens', 'none'],
    ['token_count', 'none'],
    ['passwordFile', 'none'],
    ['--token-limit', 'none'],
    ['tiktoken', 'none'],
    ['tokenizer', 'none'],
    ['existingSecret', 'none'],
    ['secretsManager', 'none'],
  ])('%s is %s', (name, strength) => {
    expect(credentialName(name)).toBe(strength);
  });

  it.each([
    ['gen_ai.response.id', true],
    ['x-amz-id-2', true],
    ['requestId', true],
    ['http.response.header.etag', true],
    ['pagination.next_cursor', true],
    ['app.valid', false],
    ['db.password', false],
  ])('%s names an identifier: %s', (name, expected) => {
    expect(isIdentifierName(name)).toBe(expected);
  });

  it.each([
    ['tls.server.certificate_chain', true],
    ['PublicKey', true],
    ['RSA_PUBLIC_KEY', true],
    ['ssh.host_key', true],
    ['private_key', false],
    ['signing_key', false],
  ])('%s names a public value: %s', (name, expected) => {
    expect(isPublicName(name)).toBe(expected);
  });
});

describe('a run looks random by its classes, turns, segments and entropy, not by its alphabet', () => {
  it.each([
    ['hex', 'c3d9f7a0b2e41f6a8d0c5b3e9a7f1d24'],
    ['base62', 'q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU'],
    ['lower-case base36', 'k3x9q2m7v1z8w4n6p0r5t2y8'],
    ['upper-case base32 with digits', 'QK4M7XZ2PV5RT3WN6YB2HC7D'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
  ])('random: %s', (_name, text) => {
    expect(looksRandom(shape(text))).toBe(true);
  });

  it.each([
    ['a camel-case identifier', 'secretsManagerGetSecretValue'],
    ['a dotted Java name', 'ApiKeyAuthFilter.doFilterInternal'],
    ['a word repeated', 'passwordpassword'],
    ['a path', '/usr/local/lib/node_modules'],
    ['too short', 'a1B2c3D4e5'],
  ])('not random: %s', (_name, text) => {
    expect(looksRandom(shape(text))).toBe(false);
  });

  it.each([
    ['a base62 key alone', 'q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU', true],
    ['a hex digest alone (no upper case)', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', false],
    ['a ULID (no lower case)', '01J9Z3K5X8QW7RTV2MNB4CDEFG', false],
    [
      'a long key that turns little (upper-case heavy, few digits)',
      'AKCpyVVkaCFTqZSUO0KWVVomWkbCfdHviAAkWPBKXpHXTSCbRXBo8JEdzelcYmqwpPTgfwgST',
      true,
    ],
    [
      'a long key that drew no digit',
      'AKCpWEoTbjNAgMGVxcwbgbEosoNwRVrZxDkRrqjGtlvxRqpxCPdlmJdRSYXeDnUQkIaRiSWpM',
      true,
    ],
    ['a long name of words and no digit', 'ListBucketIntelligentTieringConfigurations', false],
    [
      'a long camel-case identifier with a digit',
      'AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor2',
      false,
    ],
  ])('alone: %s is %s', (_name, text, expected) => {
    expect(looksRandomAlone(shape(text))).toBe(expected);
  });
});

describe('a value after a credential name is a secret, in any form', () => {
  it.each([
    ['camel case', 'dbPassword=Tr0ub4dor-and-3', 'dbPassword=[redacted:secret]'],
    // Rule 31 takes the quotes with the value, as its table row shows (`DB_PASSWORD="hunter2!"`).
    ['JSON', '{"clientSecret": "a1b2c3d4e5"}', '{"clientSecret": [redacted:secret]}'],
    ['JSON escaped in JSON', '{\\"clientSecret\\":\\"a1b2c3d4e5\\"}', '{\\"clientSecret\\":[redacted:secret]}'],
    ['a Python repr', "{'api_key': 'a1b2c3d4e5'}", "{'api_key': [redacted:secret]}"],
    [
      'JSON under a camel-case name no format rule knows',
      '{"stripeWebhookSecret": "a1b2c3d4e5"}',
      '{"stripeWebhookSecret": "[redacted:secret]"}',
    ],
    [
      'a name glued to a credential word',
      'Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=q9ZfL2mXv7Rt+B4nYw8K=;',
      'Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=[redacted:secret];',
    ],
    [
      'a header in a log line',
      'x-functions-key: q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU',
      'x-functions-key: [redacted:secret]',
    ],
    ['a flag', 'deploy --client-secret a1b2c3d4e5 --verbose', 'deploy --client-secret [redacted:secret] --verbose'],
    [
      'an unknown Authorization scheme',
      'Authorization: AccessKey q9ZfL2mXv7RtB4nYw8KcP1sH',
      'Authorization: AccessKey [redacted:secret]',
    ],
    [
      'a SQL password literal',
      "ALTER USER app PASSWORD 'correct horse'",
      "ALTER USER app PASSWORD '[redacted:secret]'",
    ],
    ['two words naming it', 'your API key: q9ZfL2mXv7RtB4nYw8KcP1sH', 'your API key: [redacted:secret]'],
    [
      'a login subcommand with flags between',
      'wandb login --relogin 229e8bfd6f2b976067740378074c4a6b48d45b93',
      'wandb login --relogin [redacted:secret]',
    ],
    [
      'a one-letter flag glued to its value',
      'mysql -u app -pq9ZfL2mXv7RtB4n orders',
      'mysql -u app -p[redacted:secret] orders',
    ],
    [
      'a Bundler host credential',
      'BUNDLE_GEMS__CONTRIBSYS__COM=506f4469:faa4cb70',
      'BUNDLE_GEMS__CONTRIBSYS__COM=[redacted:secret]',
    ],
    [
      'base64 that starts like a secret-store name (ssM/…)',
      'cache:6380,password=ssM/mQx1W0Ak1hSfIei37pAC/IvjPg+fagF/j/n/8dc=,ssl=True',
      'cache:6380,password=[redacted:secret],ssl=True',
    ],
    [
      'a key near its name whose short pieces read as words',
      'AccountID 873412 LicenseKey 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 EditionIDs',
      'AccountID 873412 LicenseKey [redacted:secret] EditionIDs',
    ],
    [
      'a quoted password after a name glued to its =',
      "host='pg' user='reader' password='XXX-wX02_GycNbxOMIWD' sslmode='require'",
      "host='pg' user='reader' password='[redacted:secret]' sslmode='require'",
    ],
    [
      'a value followed by a parenthesis that no argument list closes',
      'DB_PASSWORD=QgrAuuAztyrko( request failed',
      'DB_PASSWORD=[redacted:secret]( request failed',
    ],
    [
      'a password flag after a user flag, letters only',
      'mysql -h db -u report -pEKZLVNgwjNbnrlob -e q',
      'mysql -h db -u report -p[redacted:secret] -e q',
    ],
    [
      'a lower-case password of 12 or more after a user flag',
      'mysql -u report -pwoagsndcjejfxzma -e q',
      'mysql -u report -p[redacted:secret] -e q',
    ],
    [
      'the rest of a token a format rule cut',
      'key 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 used',
      'key [redacted:secret][redacted:secret] used',
    ],
    [
      'a password flag after a user flag, separate',
      'ldapsearch -D cn=svc,dc=x -w xpilmKbxtFyivciv -b dc=x',
      'ldapsearch -D cn=svc,dc=x -w [redacted:secret] -b dc=x',
    ],
    [
      'a flag value that starts with dashes',
      'mongosh --password --VtatTDEgomZVQzweCUzC --quiet',
      'mongosh --password [redacted:secret] --quiet',
    ],
    [
      'a key after a name qualified by a product noun',
      'client (sdkKey=sdk-b8555931-8161-4389-8349-69000186687d, x)',
      'client (sdkKey=[redacted:secret], x)',
    ],
    // A callee is a name of words; `QAAAAfaAkrnvq` breaks into humps, the last one unpronounceable (`Akrnvq`).
    [
      'a UUID token after a login subcommand (Snyk, Heroku)',
      'snyk auth b85bbb94-89c4-4649-9943-bccff9c9b444',
      'snyk auth [redacted:secret]',
    ],
    [
      'a password flag after a login verb, with no user flag',
      'docker login -p b85bbb94-89c4-4649-9943-bccff9c9b444 registry.example.com',
      'docker login -p [redacted:secret] registry.example.com',
    ],
    [
      'a value before an argument list that no callee name could start',
      'at handler ( api_key=QAAAAfaAkrnvq(:10:5)',
      'at handler ( api_key=[redacted:secret](:10:5)',
    ],
    [
      'a value before an argument list, a consonant run no word has',
      'token=getZxkrtvbnQ(1)',
      'token=[redacted:secret](1)',
    ],
  ])('%s', (_name, text, expected) => {
    expect(scrub(text)).toBe(expected);
  });
});

describe('a short prefix and a long random body is a secret, whatever the provider', () => {
  it.each([
    ['OpenRouter', 'key 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 used'],
    ['Tavily', 'key 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 used'],
    ['DigitalOcean', 'key dop_v1_c3d9f7a0b2e41f6a8d0c5b3e9a7f1d24c3d9f7a0b2e41f6a8d0c5b3e9a7f1d24 used'],
    ['Postman', 'key PMAK-0c5b3e9a7f1d24c3d9f7a0b2-e41f6a8d0c5b3e9a7f1d24c3d9f7a0b2e4 used'],
    ['Databricks, a label glued to hex', 'key dapi0c5b3e9a7f1d24c3d9f7a0b2e41f6a8d used'],
    ['Docker Hub, a prefix that says credential', 'key dckr_pat_FdKM-X_LQcuXUmndOMyjvULRhBC used'],
    ['a credential prefix whose random pieces read as words', 'key dckr_pat_IQMQHooQJEU_-WSYGM_Q4mun857 used'],
    ['hex of low entropy after a prefix', 'key live_7aea38b7acbe3bb999da3bbb9e797687b97 used'],
    ['a random token alone', 'key q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU2Wc used'],
  ])('%s', (_name, text) => {
    expect(scrub(text)).toBe('key [redacted:secret] used');
  });
});

describe('the catch-all leaves ids, digests, public keys, data and placeholders alone', () => {
  it.each([
    ['a chat completion id', 'id=chatcmpl-DK5oh3WFYLQd93AEByGtrdZFdqYC1'],
    ['a Stripe object id', 'invoice=in_1jhX0lZ7c70asNaybmxJPDem'],
    ['an Anthropic batch id', 'batch msgbatch_01HKZq8Ks1hsrLrFmMhCAzMs ended'],
    [
      'a package-lock integrity',
      '"integrity": "sha512-7EEB88P6ZJ8R2VuK1z0YN20Qf512zUiCM/UGHIgEl1xWxoiTlmBOMo20vUZO3HprU2iOWWE6e7qLztvY9Gu3gw=="',
    ],
    ['a Go module hash', 'golang.org/x/oauth2 v0.21.0 h1:ZKVDasgPguwnyH+w/uNRPn7pvF/In7M7U2Al1sSbo1v='],
    ['an SSH fingerprint', 'Host key fingerprint is SHA256:iOBeJ70HI9dnV6ZI/hFV0ZFQiHOJ0Bywph9I4gNAyl4'],
    [
      'an SSH public key',
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINNw+OXxxOTHUNREWOqsayqcMj5J8gx3PffcLx1FiBmO deploy-bot',
    ],
    ['a public key by its name', 'PublicKey = 8XBQZxSxt2I7NoVpZ6OdLnCXwZXuj07iHfy9GyHZV33='],
    ['a model name', 'model deepseek-ai/DeepSeek-R1-Distill-Qwen-32B'],
    [
      'a cache key of words and a hash',
      'Restored cache from key: node-cache-Linux-x64-npm-51d1f3fea0a3f7a6f58fcbca04a06cf07fa28bfc69a64b3940bfa0a38e7c042d',
    ],
    [
      'a base64 pagination cursor',
      'ExclusiveStartKey=eyJwayI6eyJTIjoiVEVOQU5UIzQyIn0sInNrIjp7IlMiOiJSVU4jMjAyNS0wMy0xNCJ9fQ==',
    ],
    [
      'a Kubernetes Secret named in an event',
      'failed for volume "openai-credentials" : secret "openai-credentials" not found',
    ],
    ['an ARN of a secret', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/agents/openai-AbCdEf'],
    ['a Rust path', 'agent::auth::refresh_token::{{closure}}'],
    ['a call', 'secret_key = os.getenv("DJANGO_SECRET_KEY")'],
    ['a call whose name has an acronym hump', 'api_key = getHttpKey("prod")'],
    ['a call of a name with a long consonant run that is a word', 'token = lengths(user)'],
    ['a variable in a curl command', 'curl -u "$USER:$TOKEN" https://api.example.com/v1/health'],
    ['a masked key', 'Incorrect API key provided: sk-proj-****************************Xy9Q.'],
    ['a git revision after a one-letter flag', 'git cherry-pick -x 335ab8e74f3ad79571a99743369e3e195449617f'],
    ['a name followed by an empty value', 'AWS_ACCESS_KEY_ID=\nAWS_SECRET_ACCESS_KEY=\n'],
    ['prose after a scheme word', 'polling token endpoint'],
  ])('%s', (_name, text) => {
    expect(scrub(text)).toBe(text);
  });

  it.each([
    '${OPENAI_API_KEY}',
    '<your-token>',
    '***',
    'REPLACE_ME',
    'your-api-key-here',
    '(sensitive value)',
    '!vault',
    'op://Engineering/OpenAI/credential',
    'vault:secret/data/agents/anthropic#api_key',
    'OPENAI_API_KEY',
    'hmac-sha256:4289acfe06c7632511131357e330263b43fe25cac3c33e018f3017bcf2ffb8ba',
    '/run/secrets/db',
    'sk-...zSnD',
  ])('%s is a placeholder', (value) => {
    expect(isPlaceholder(value)).toBe(true);
  });

  it.each(['changeme', 'hunter2', 'Tr0ub4dor&3'])('%s is no placeholder', (value) => {
    expect(isPlaceholder(value)).toBe(false);
  });
});

describe('base64 is checked decoded', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    [
      'a PEM private key',
      `client-key-data: ${b64('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIEXAMPLE\n-----END EC PRIVATE KEY-----\n')}`,
      'client-key-data: [redacted:private_key]',
    ],
    ['a user:password pair', `npmrc auth ${b64('deploy:example-pass')}`, 'npmrc auth [redacted:credentials]'],
    [
      'JSON holding a client secret',
      `state ${b64('{"client_id":"agent","client_secret":"q9ZfL2mXv7RtB4nYw8KcP1sH"}')}`,
      'state [redacted:secret]',
    ],
  ])('%s is redacted', (_name, text, expected) => {
    expect(scrub(text)).toBe(expected);
  });

  it('JSON without a credential (a cursor) is kept', () => {
    const text = `cursor ${b64('{"page":3,"per_page":50,"order":"desc"}')}`;
    expect(scrub(text)).toBe(text);
  });
});

describe('keys and argv items name their values', () => {
  it.each([
    [
      'a credential key: the value replaced, the key kept',
      { 'db.password': 'hunter2' },
      { 'db.password': '[redacted:secret]' },
    ],
    [
      'a credential key with a placeholder: kept',
      { 'config.api_key': '${OPENAI_API_KEY}' },
      { 'config.api_key': '${OPENAI_API_KEY}' },
    ],
    [
      'an identifier key: no shape detection',
      { 'gen_ai.response.id': 'resp_q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU' },
      { 'gen_ai.response.id': 'resp_q9ZfL2mXv7RtB4nYw8KcP1sHd6JgE3aU' },
    ],
    [
      'an identifier key: formats still found',
      { 'client.id': 'AKIAIOSFODNN7EXAMPLE' },
      { 'client.id': '[redacted:secret]' },
    ],
    [
      'a header ending in a credential word: removed',
      { 'http.request.header.x-functions-key': 'abc', 'http.request.header.x-ratelimit-remaining-tokens': '149000' },
      { 'http.request.header.x-ratelimit-remaining-tokens': '149000' },
    ],
    [
      'a flag and its value as separate argv items',
      { 'process.command_args': ['node', 'agent.js', '--api-key', 'a1b2c3d4e5'] },
      { 'process.command_args': ['node', 'agent.js', '--api-key', '[redacted:secret]'] },
    ],
    [
      'a one-letter flag and a random value',
      { 'process.command_args': ['db-migrate', '-p', 'm3EH5bDyYYMklaja4HQ5', 'up'] },
      { 'process.command_args': ['db-migrate', '-p', '[redacted:secret]', 'up'] },
    ],
    [
      'a one-letter flag and a port',
      { 'process.command_args': ['ssh', '-p', '2222', 'bastion'] },
      { 'process.command_args': ['ssh', '-p', '2222', 'bastion'] },
    ],
    [
      'curl -u as argv',
      { 'process.command_args': ['curl', '-u', 'deploy:Sup3rS3cret', 'https://x'] },
      { 'process.command_args': ['curl', '-u', 'deploy:[redacted:credentials]', 'https://x'] },
    ],
    [
      'a login subcommand argument',
      { 'process.command_args': ['snyk', 'auth', 'ae601707-4ac5-4983-8a7e-ba035dd6e739'] },
      { 'process.command_args': ['snyk', 'auth', '[redacted:secret]'] },
    ],
    [
      'a login subcommand argument that is any UUID',
      { 'process.command_args': ['snyk', 'auth', 'b85bbb94-89c4-4649-9943-bccff9c9b444'] },
      { 'process.command_args': ['snyk', 'auth', '[redacted:secret]'] },
    ],
    [
      'a password flag after a login verb',
      { 'process.command_args': ['docker', 'login', '-p', 'b85bbb94-89c4-4649-9943-bccff9c9b444', 'registry'] },
      { 'process.command_args': ['docker', 'login', '-p', '[redacted:secret]', 'registry'] },
    ],
    [
      'a login verb and a one-letter flag that gives no password',
      { 'process.command_args': ['gcc', 'login.c', '-o', 'login', '-pthread'] },
      { 'process.command_args': ['gcc', 'login.c', '-o', 'login', '-pthread'] },
    ],
    [
      'a subcommand named for a credential',
      {
        'process.command_args': [
          'ngrok',
          'config',
          'add-authtoken',
          '2qOb6AfvqfVkncsrhsuXwbFAVDA_7GbmkxermIKjivIDXEFq3',
        ],
      },
      { 'process.command_args': ['ngrok', 'config', 'add-authtoken', '[redacted:secret]'] },
    ],
    [
      'a subcommand named for a credential, and a word after it',
      { 'process.command_args': ['npm', 'token', 'list'] },
      { 'process.command_args': ['npm', 'token', 'list'] },
    ],
    [
      'a password flag after a user flag',
      { 'process.command_args': ['ldapsearch', '-D', 'cn=svc,dc=x', '-w', 'xpilmKbxtFyivciv'] },
      { 'process.command_args': ['ldapsearch', '-D', 'cn=svc,dc=x', '-w', '[redacted:secret]'] },
    ],
    [
      'a password flag glued, after a user flag',
      { 'process.command_args': ['mysql', '-u', 'app', '-pEKZLVNgwjNbnrlob'] },
      { 'process.command_args': ['mysql', '-u', 'app', '-p[redacted:secret]'] },
    ],
    [
      'a port flag after a user flag',
      { 'process.command_args': ['docker', 'run', '-u', '1000', '-p', '8080:80', 'img'] },
      { 'process.command_args': ['docker', 'run', '-u', '1000', '-p', '8080:80', 'img'] },
    ],
    [
      'a glued one-word flag after a user flag',
      { 'process.command_args': ['gcc', '-u', 'main', '-pthread', 'x.c'] },
      { 'process.command_args': ['gcc', '-u', 'main', '-pthread', 'x.c'] },
    ],
    [
      'a letters-only value after a password flag with no user flag',
      { 'process.command_args': ['tool', '-p', 'myServiceHandler'] },
      { 'process.command_args': ['tool', '-p', 'myServiceHandler'] },
    ],
    [
      'an API key sent as the user with no password',
      { 'process.command_args': ['curl', '-u', 'live_7aea38b7acbe3bb999da3bbb9e797687b97:', 'https://x'] },
      { 'process.command_args': ['curl', '-u', '[redacted:credentials]:', 'https://x'] },
    ],
    [
      'a user with no password',
      { 'process.command_args': ['curl', '-u', 'alice:', 'https://x'] },
      { 'process.command_args': ['curl', '-u', 'alice:', 'https://x'] },
    ],
    [
      'url.query without its ?',
      { 'url.query': 'sv=2022-11-02&sig=q9ZfL2mXv7RtB4nYw8KcP1sH%2B&se=2030' },
      { 'url.query': 'sv=2022-11-02&sig=[redacted:secret]&se=2030' },
    ],
    [
      'a bare key parameter with words',
      { 'url.query': 'key=agent.tool-calls.v1&partition=7' },
      { 'url.query': 'key=agent.tool-calls.v1&partition=7' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(attributes(input)).toEqual(expected);
  });
});
