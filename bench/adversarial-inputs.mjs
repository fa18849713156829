// Inputs built to make a value rule backtrack: each shape's literal start
// repeated, then followed by long runs of the characters its parts accept,
// nested quotes and separators. Used by test/sanitize/linear-time.test.ts
// (the linear-time proof) and bench/sanitize.mjs (worst-case MB/s).

/** Literal starts of the built-in shapes, and characters their parts accept. */
export const PREFIXES = [
  '-----BEGIN ', 'ab://x:', 'redis://:', 'eyJ', 'eyJ-', 'eyJaaaaaaaaa.', 'Bearer ', 'sk-', 'sk-ant-api03-', 'AKIA', 'ghp_',
  'github_pat_', 'glpat-', 'xoxb-', 'sk_live_', 'AIza', '?key=', '&token=', 'token=', 'api_key: ', 'password="', 'a@', 'a@b.',
  '/home/', 'C:\\Users\\', 'aB1+', '"\'', ' ', '=', ':', '-', '.', '@', '/',
];

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
  inputs.push(['key=value pairs without a separator', repeatTo('token=password=secret=', bytes)]);
  return inputs;
}

/** Prose, as an agent's logs hold it: the rules' triggers barely fire. */
export function plainText(bytes) {
  return repeatTo('The agent read the build log, found the failing step and retried the tests after fixing the import. ', bytes);
}
