// Inputs built to make a value rule backtrack: each shape's literal start
// repeated, then followed by long runs of the characters its parts accept,
// nested quotes and separators. Used by test/sanitize/linear-time.test.ts
// (the linear-time proof) and bench/sanitize.mjs (worst-case MB/s).

/** Literal starts of the built-in shapes, and characters their parts accept. */
export const PREFIXES = [
  '-----BEGIN ',
  'ab://x:',
  'redis://:',
  'eyJ',
  'eyJ-',
  'eyJaaaaaaaaa.',
  'Bearer ',
  'sk-',
  'sk-ant-api03-',
  'AKIA',
  'ghp_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'sk_live_',
  'AIza',
  '?key=',
  '&token=',
  'token=',
  'api_key: ',
  'password="',
  'a@',
  'a@b.',
  '/home/',
  'C:\\Users\\',
  'aB1+',
  '"\'',
  ' ',
  '=',
  ':',
  '-',
  '.',
  '@',
  '/',
  // The catch-all's starts: names in every form, prefixes, encodings, DSNs, public blocks, webhooks, login commands.
  'password ',
  'dbPassword=',
  'AccountKey=',
  'API key: ',
  '--api-key ',
  '-p',
  'login --x ',
  '"secret": "',
  '\\"token\\":\\"',
  'BUNDLE_A__B=',
  'tvly-',
  'sk-or-v1-',
  'dop_v1_',
  'PMAK-',
  'LS0tLS1',
  'eyJ7',
  'MII',
  '"kty":"',
  '"d":"',
  'u/p@//',
  'u:p@tcp(',
  '-u u:',
  'code=',
  '%40',
  '-----BEGIN CERTIFICATE-----\n',
  'ssh-ed25519 ',
  'base64,',
  '/hooks/',
  'secret:',
  'a::',
];

/** Deterministic pseudo-random text of `bytes` characters from `alphabet` (mulberry32): runs the entropy scans measure whole. */
export function randomText(alphabet, bytes, seed = 20261127) {
  let state = seed >>> 0;
  let out = '';
  for (let i = 0; i < bytes; i += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += alphabet[((((t ^ (t >>> 14)) >>> 0) / 4294967296) * alphabet.length) | 0];
  }
  return out;
}

/** `unit` repeated to exactly `bytes` characters. */
export function repeatTo(unit, bytes) {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

/** Adversarial inputs of `bytes` characters each, as [what it repeats, input] pairs. */
export function adversarialInputs(bytes) {
  const inputs = [];
  for (const prefix of PREFIXES) {
    inputs.push([`${JSON.stringify(prefix)} repeated`, repeatTo(prefix, bytes)]);
    inputs.push([`${JSON.stringify(prefix)} then token characters`, prefix + repeatTo('aB1', bytes - prefix.length)]);
    inputs.push([`${JSON.stringify(prefix)} and a token, repeated`, repeatTo(`${prefix}aB1cD2eF3-`, bytes)]);
  }
  inputs.push(['nested quotes', repeatTo('"\'`', bytes)]);
  // One run of random characters as long as the input: every shape measure scans it whole.
  inputs.push([
    'one random base62 run',
    randomText('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', bytes),
  ]);
  inputs.push([
    'one random base64 run with slashes',
    randomText('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', bytes),
  ]);
  inputs.push([
    'random tokens after credential names',
    repeatTo(`api_key=${randomText('abcdefXYZ0123456789', 40)} `, bytes),
  ]);
  inputs.push(['prefix segments without a body', repeatTo('ab-cd-ef-gh-', bytes)]);
  inputs.push(['quotes opened after names, never closed', repeatTo('password "', bytes)]);
  // A value judged whole (placeholder, path, call) that fails only at its last character: no judgement may backtrack.
  inputs.push([
    'named values that fail at their end',
    repeatTo(`AccountKey=/${'aB1'.repeat(80)}+; token=${'a.'.repeat(80)}1( `, bytes),
  ]);
  inputs.push(['key=value pairs without a separator', repeatTo('token=password=secret=', bytes)]);
  return inputs;
}

/** Prose, as an agent's logs hold it: the rules' triggers barely fire. */
export function plainText(bytes) {
  return repeatTo(
    'The agent read the build log, found the failing step and retried the tests after fixing the import. ',
    bytes,
  );
}
