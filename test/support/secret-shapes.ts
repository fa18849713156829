/**
 * Secrets of every format the sanitizer covers, as fast-check arbitraries of
 * fresh instances: the text that carries each and the part that must never
 * be exported. Shared by the leak-shape table test and the no-secret property.
 */
import fc from 'fast-check';

/** A secret and the text that carries it; `secret` must never be exported. */
export interface Planted {
  readonly text: string;
  readonly secret: string;
}

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''));
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
// Secrets always carry a letter outside hex, so a random trace or span id can never contain one by chance.
const marked = (body: fc.Arbitrary<string>) => body.map((b) => `Q${b}`);

/** Each covered format: a name for test titles, and its arbitrary. */
export const SECRET_SHAPES: [string, fc.Arbitrary<Planted>][] = [
  ['OpenAI project key', marked(chars(ALNUM + '_-', 24, 40)).map((s) => ({ text: `sk-proj-${s}`, secret: s }))],
  ['OpenAI legacy key', marked(chars(ALNUM, 40, 48)).map((s) => ({ text: `sk-${s}`, secret: s }))],
  [
    'OpenAI service account key',
    marked(chars(ALNUM + '_-', 30, 60)).map((s) => ({ text: `sk-svcacct-${s}`, secret: s })),
  ],
  ['Anthropic key', marked(chars(ALNUM + '_-', 30, 40)).map((s) => ({ text: `sk-ant-api03-${s}`, secret: s }))],
  ['Google API key', marked(chars(ALNUM + '_-', 34, 34)).map((s) => ({ text: `AIza${s}`, secret: s }))],
  ['Google OAuth access token', marked(chars(ALNUM + '_-', 30, 120)).map((s) => ({ text: `ya29.${s}`, secret: s }))],
  ['AWS access key id', chars(UPPER + DIGITS, 15, 15).map((s) => ({ text: `AKIAQ${s}`, secret: `Q${s}` }))],
  [
    'AWS secret access key',
    fc.tuple(chars(UPPER, 1, 1), chars(LOWER, 1, 1), chars(ALNUM + '/+', 37, 37)).map(([u, l, rest]) => {
      const s = `Q${u}${l}${rest}`;
      return { text: s, secret: s };
    }),
  ],
  [
    'AWS presigned URL signature',
    marked(chars('0123456789abcdef', 63, 63)).map((s) => ({
      text: `https://bucket.s3.amazonaws.com/a.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=${s}`,
      secret: s,
    })),
  ],
  ['GitHub token', marked(chars(ALNUM, 35, 40)).map((s) => ({ text: `ghp_${s}`, secret: s }))],
  ['GitLab token', marked(chars(ALNUM + '_-', 20, 30)).map((s) => ({ text: `glpat-${s}`, secret: s }))],
  ['Slack token', marked(chars(ALNUM + '-', 12, 30)).map((s) => ({ text: `xoxb-${s}`, secret: s }))],
  [
    'Slack app-level token',
    fc
      .tuple(
        chars(DIGITS, 1, 1),
        marked(chars(UPPER + DIGITS, 10, 12)),
        chars(DIGITS, 13, 13),
        chars('0123456789abcdef', 64, 64),
      )
      .map(([v, a, n, h]) => ({ text: `xapp-${v}-${a}-${n}-${h}`, secret: h })),
  ],
  [
    'Slack webhook URL',
    fc
      .tuple(chars(UPPER + DIGITS, 8, 10), chars(UPPER + DIGITS, 8, 10), marked(chars(ALNUM, 23, 23)))
      .map(([t, b, s]) => ({
        text: `https://hooks.slack.com/services/T${t}/B${b}/${s}`,
        secret: s,
      })),
  ],
  ['Stripe key', marked(chars(ALNUM, 20, 30)).map((s) => ({ text: `sk_live_${s}`, secret: s }))],
  ['Hugging Face token', marked(chars(UPPER + LOWER, 33, 33)).map((s) => ({ text: `hf_${s}`, secret: s }))],
  ['Groq key', marked(chars(ALNUM, 51, 51)).map((s) => ({ text: `gsk_${s}`, secret: s }))],
  ['xAI key', marked(chars(ALNUM, 79, 79)).map((s) => ({ text: `xai-${s}`, secret: s }))],
  ['npm token', marked(chars(ALNUM, 35, 35)).map((s) => ({ text: `npm_${s}`, secret: s }))],
  ['PyPI token', marked(chars(ALNUM + '_-', 60, 120)).map((s) => ({ text: `pypi-AgEIcHlwaS5vcmc${s}`, secret: s }))],
  [
    'SendGrid key',
    fc
      .tuple(marked(chars(ALNUM + '_-', 21, 21)), chars(ALNUM + '_-', 43, 43))
      .map(([a, b]) => ({ text: `SG.${a}.${b}`, secret: a })),
  ],
  ['Twilio API key', chars('0123456789abcdef', 32, 32).map((s) => ({ text: `SK${s}`, secret: `SK${s}` }))],
  [
    'Telegram bot token',
    fc
      .tuple(chars(DIGITS, 8, 10), marked(chars(ALNUM + '_-', 32, 32)))
      .map(([id, s]) => ({ text: `${id}:AA${s}`, secret: s })),
  ],
  [
    'JWT',
    fc
      .tuple(marked(chars(ALNUM + '_-', 10, 20)), chars(ALNUM + '_-', 10, 20), chars(ALNUM + '_-', 10, 20))
      .map(([a, b, c]) => ({
        text: `eyJ${a}.${b}.${c}`,
        secret: `${a}.${b}`,
      })),
  ],
  ['Bearer credentials', marked(chars(ALNUM + '._~+/=-', 16, 40)).map((s) => ({ text: `Bearer ${s}`, secret: s }))],
  ['Basic credentials', marked(chars(ALNUM + '+/=', 16, 40)).map((s) => ({ text: `Basic ${s}`, secret: s }))],
  [
    'ApiKey and Bot authorization schemes',
    fc
      .tuple(fc.constantFrom('ApiKey', 'Bot', 'Api-Key'), marked(chars(ALNUM + '_-', 16, 40)))
      .map(([scheme, s]) => ({ text: `Authorization: ${scheme} ${s}`, secret: s })),
  ],
  [
    'PEM private key',
    marked(chars(ALNUM + '+/', 40, 80)).map((s) => ({
      text: `-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----`,
      secret: s,
    })),
  ],
  [
    'PGP private key block',
    marked(chars(ALNUM + '+/', 40, 80)).map((s) => ({
      text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${s}\n-----END PGP PRIVATE KEY BLOCK-----`,
      secret: s,
    })),
  ],
  [
    'URL credentials',
    marked(chars(ALNUM, 12, 24)).map((s) => ({ text: `https://deploy:${s}@api.example.com/v1/chat`, secret: s })),
  ],
  [
    'database URL credentials',
    marked(chars(ALNUM, 12, 24)).map((s) => ({ text: `postgres://admin:${s}@db.internal:5432/app`, secret: s })),
  ],
  [
    'URL password without a user',
    marked(chars(ALNUM, 12, 24)).map((s) => ({ text: `redis://:${s}@cache:6379/0`, secret: s })),
  ],
  [
    'URL password holding a slash',
    fc
      .tuple(marked(chars(ALNUM, 6, 12)), chars(ALNUM, 6, 12))
      .map(([a, b]) => ({ text: `https://bot:${a}/${b}@example.com/hook`, secret: a })),
  ],
  [
    'token as the URL user, host without a TLD',
    marked(chars(ALNUM + '_', 30, 40)).map((s) => ({ text: `https://ghp_${s}@gitserver/org/repo.git`, secret: s })),
  ],
  [
    'URL query key',
    marked(chars(ALNUM + '-_', 12, 24)).map((s) => ({
      text: `https://api.example.com/v1/models?api_key=${s}&x=1`,
      secret: s,
    })),
  ],
  [
    'assignment',
    fc
      .tuple(
        fc.constantFrom('api_key', 'token', 'password', 'secret', 'auth_token'),
        fc.constantFrom('=', ': ', '="'),
        marked(chars(ALNUM + '!#$%', 12, 24)),
      )
      .map(([key, op, s]) => ({ text: `${key}${op}${s}`, secret: s })),
  ],
  [
    'assignment to a prefixed name',
    fc
      .tuple(
        fc.constantFrom(
          'DB_PASSWORD',
          'GITHUB_TOKEN',
          'client_secret',
          'OPENAI_API_KEY',
          'app.secret',
          'clientSecret',
          'REFRESH_TOKEN',
        ),
        fc.constantFrom('=', ': ', '="'),
        marked(chars(ALNUM + '!#$%', 12, 24)),
      )
      .map(([key, op, s]) => ({ text: `${key}${op}${s}`, secret: s })),
  ],
  [
    '.npmrc auth token',
    marked(chars(ALNUM + '-', 20, 36)).map((s) => ({ text: `//registry.npmjs.org/:_authToken=${s}`, secret: s })),
  ],
  [
    'JSON-escaped key and value',
    fc
      .tuple(fc.constantFrom('api_key', 'password', 'token'), marked(chars(ALNUM, 12, 24)))
      .map(([key, s]) => ({ text: `{\\"${key}\\": \\"${s}\\"}`, secret: s })),
  ],
  [
    'command-line flag',
    fc
      .tuple(
        fc.constantFrom('--password ', '--password=', '--api-key ', '--token=', '--db-password '),
        marked(chars(ALNUM, 6, 24)),
      )
      .map(([flag, s]) => ({ text: `deploy ${flag}${s} --verbose`, secret: s })),
  ],
  [
    'e-mail address',
    fc.tuple(marked(chars(LOWER + DIGITS + '._', 6, 16)), chars(LOWER, 3, 10)).map(([local, domain]) => {
      const email = `${local}@${domain}.example.com`;
      return { text: email, secret: email };
    }),
  ],
  [
    'home directory',
    fc.tuple(fc.constantFrom('/home/', '/Users/'), marked(chars(LOWER + DIGITS, 8, 16))).map(([root, user]) => ({
      text: `${root}${user}/project/src/index.ts`,
      secret: `${root}${user}`,
    })),
  ],
  [
    'Windows profile directory',
    marked(chars(LOWER + DIGITS, 8, 16)).map((user) => ({
      text: `C:\\Users\\${user}\\AppData\\key.pem`,
      secret: `\\${user}\\`,
    })),
  ],
];
