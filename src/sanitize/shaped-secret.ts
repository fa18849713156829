/**
 * Secrets found by their shape alone, with no name before them (the
 * catch-all's steps 2 and 3, docs/sanitization.md "The catch-all"): a short
 * prefix and a random body (`tvly-…`, `dop_v1_…`), a label glued to hex
 * (`dapi…`), a lone random run, a webhook's path, and the rest of a token a
 * format rule cut.
 */
import { decodedBytes, hasFileSignature, isDerPrivateKey, isDerPublic, isPrintable } from './encoded-data.js';
import { DIGEST_LABEL, hasPublicLead, PUBLIC_ID_PREFIXES } from './public-tokens.js';
import { looksRandomValue } from './random-value.js';
import { caseOf, isAlnum } from './run-chars.js';
import { looksRandom, looksRandomAlone, measureRun } from './secret-shape.js';
import { hasWordPrefix, isComposite, isPlainWords, wordPieces } from './word-shape.js';
/** Prefix words that say the token is a credential: a UUID body under them is a key (`sk-lf-…`). */
const CREDENTIAL_PREFIX = /(?:^|[_.-])(?:sk|rk|key|secret|token|pat|auth|priv|private|pwd)(?:$|[_.-])/i;

/** A UUID anywhere in a body: an id (`part-00000-<uuid>.parquet`, `session-<uuid>`) unless the prefix says credential. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * True when the run `text[start, end)` is a short prefix, a separator and a
 * random body, or a lower-case label glued to hex digits.
 */
export function isPrefixedSecret(text: string, start: number, end: number): boolean {
  if (gluedHexKey(text, start, end)) return true;
  let segmentStart = start;
  let prefixCase: 'lower' | 'upper' | undefined;
  for (let segments = 0; segments < 4; segments += 1) {
    let at = segmentStart;
    let ok = at < end && caseOf(text.charCodeAt(at)) !== 'digit' && caseOf(text.charCodeAt(at)) !== 'other';
    const first = ok ? caseOf(text.charCodeAt(at)) : undefined;
    if (first === 'lower' || first === 'upper') {
      if (prefixCase !== undefined && prefixCase !== first) return false;
      prefixCase = first;
    }
    let digits = 0;
    while (ok && at < end && isAlnum(text.charCodeAt(at))) {
      const kind = caseOf(text.charCodeAt(at));
      if (kind === 'digit') digits += 1;
      // A prefix word may end in a version (`v1`, `lsv2`, `fo1`), not hold a number (`be344405` is a body).
      else if (kind !== prefixCase || digits > 0) ok = false;
      at += 1;
    }
    const length = at - segmentStart;
    if (!ok || length === 0 || length > 8 || digits > 2) break;
    if (segments === 0) {
      const label = text.slice(segmentStart, at);
      if (DIGEST_LABEL.test(label) || PUBLIC_ID_PREFIXES.has(label.toLowerCase())) return false;
    }
    const separator = text.charCodeAt(at);
    if (at >= end || (separator !== 95 && separator !== 45 && separator !== 46)) return false;
    const bodyStart = at + 1;
    if (bodyIsSecret(text, start, bodyStart, end, prefixCase === 'upper')) return true;
    segmentStart = bodyStart;
  }
  return false;
}

function bodyIsSecret(
  text: string,
  prefixStart: number,
  bodyStart: number,
  end: number,
  upperPrefix: boolean,
): boolean {
  let bodyEnd = end;
  while (bodyEnd > bodyStart && text.charCodeAt(bodyEnd - 1) === 61) bodyEnd -= 1;
  const shape = measureRun(text, bodyStart, bodyEnd);
  const prefix = text.slice(prefixStart, bodyStart);
  // A prefix that says credential (`dckr_pat_`, `sk-lf-`) needs less body to be believed.
  // Provider object ids (`in_1jhX…`, `msgbatch_01HK…`) run to 28 characters; keys of unknown prefix are longer.
  const minimum = CREDENTIAL_PREFIX.test(prefix) ? 16 : upperPrefix ? 24 : 30;
  if (!looksRandom(shape, minimum)) return false;
  // After a prefix that says credential, random pieces that happen to read as words (`…_-WSYGM_…`) make no composite name.
  if (CREDENTIAL_PREFIX.test(prefix) ? isPlainWords(text, bodyStart, bodyEnd) : isComposite(text, bodyStart, bodyEnd))
    return false;
  // `price_11I3…/prod_pYlT…`: a path of ids, not one key.
  for (let i = bodyStart; i < bodyEnd; i += 1)
    if (text.charCodeAt(i) === 47 && hasWordPrefix(text, i + 1, bodyEnd)) return false;
  if (UUID.test(text.slice(bodyStart, bodyEnd))) return CREDENTIAL_PREFIX.test(prefix);
  return true;
}

/** `dapi0123…`: 2 to 8 lower-case letters, one of them not a hex digit, then at least 30 lower-case hex digits to the end. */
function gluedHexKey(text: string, start: number, end: number): boolean {
  let at = start;
  let nonHex = false;
  while (at < end && at - start < 8 && caseOf(text.charCodeAt(at)) === 'lower') {
    if (text.charCodeAt(at) > 102) nonHex = true;
    at += 1;
  }
  if (!nonHex || at - start < 2 || end - at < 30) return false;
  for (let i = at; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return looksRandom(measureRun(text, at, end));
}

/**
 * True when the run `text[start, end)`, glued to a marker that follows it, is
 * the rest of a token a format rule cut: a random piece of 12 characters or
 * more (after any prefix of words) ends it.
 */
export function gluedToMarker(text: string, start: number, end: number): boolean {
  let pieceEnd = end;
  while (pieceEnd > start && !isAlnum(text.charCodeAt(pieceEnd - 1))) pieceEnd -= 1;
  let pieceStart = pieceEnd;
  while (pieceStart > start && isAlnum(text.charCodeAt(pieceStart - 1))) pieceStart -= 1;
  return pieceEnd - pieceStart >= 12 && looksRandomValue(text, pieceStart, pieceEnd, 'weak', 12);
}

/** A prefixed or lone secret in the run `text[start, end)`, as [start, end); a path is checked segment by segment. */
export function findShapedSecret(text: string, start: number, end: number): [number, number] | undefined {
  // `mysql -pS3cr3tV4lu3`: a one-letter flag glued to a value that looks random; the flag is kept.
  if (
    text.charCodeAt(start) === 45 &&
    caseOf(text.charCodeAt(start + 1)) !== 'other' &&
    caseOf(text.charCodeAt(start + 1)) !== 'digit'
  ) {
    if (isAlnum(text.charCodeAt(start + 2)) && looksRandomValue(text, start + 2, end, 'weak', 12))
      return [start + 2, end];
  }
  if (end - start < 16 || hasPublicLead(text, start, end)) return undefined;
  const slash = text.indexOf('/', start);
  if (slash < 0 || slash >= end) return shapedRun(text, start, end) ? [start, end] : undefined;
  // Base64 that holds a certificate, a public key, a file or text is data as a whole: its `/`s are no path.
  const whole = decodedBytes(text.slice(start, end));
  if (
    whole !== undefined &&
    whole.length >= 24 &&
    (isDerPublic(whole) || hasFileSignature(whole) || isPrintable(whole))
  )
    return undefined;
  const webhook = webhookPathStart(text, start, end);
  if (webhook >= 0) return [webhook, end];
  // A path of words with a random last part (`database/creds/agent-rw/iO6Sj…`) is looked at segment by segment only.
  if (text.charCodeAt(start) !== 47 && wordPieces(text, start, end) < 2 && shapedRun(text, start, end))
    return [start, end];
  // `/bot<token>/sendMessage`: a path's segments are looked at one by one.
  let segment = start;
  for (let i = start; i <= end; i += 1) {
    if (i === end || text.charCodeAt(i) === 47) {
      if (i - segment >= 16 && !hasPublicLead(text, segment, i) && shapedRun(text, segment, i)) return [segment, i];
      segment = i + 1;
    }
  }
  return undefined;
}

/**
 * Where the credential starts in a webhook's URL path, or -1: in a path with
 * a segment that names a hook (`/api/webhooks/`, `/webhookb2/`,
 * `/IncomingWebhook/`, `/hooks/catch/`), the rest of the path from its first
 * segment with a digit is the credential, whatever its length (Zapier's are 7
 * characters), as Slack's rule treats its webhooks.
 */
function webhookPathStart(text: string, start: number, end: number): number {
  let segment = start;
  let afterHook = false;
  for (let i = start; i <= end; i += 1) {
    if (i !== end && text.charCodeAt(i) !== 47) continue;
    if (i > segment) {
      if (afterHook) {
        for (let j = segment; j < i; j += 1) {
          const c = text.charCodeAt(j);
          if (c >= 48 && c <= 57) return segment;
        }
      } else if (HOOK.test(text.slice(segment, i))) {
        afterHook = true;
      }
    }
    segment = i + 1;
  }
  return -1;
}

const HOOK = /hook/i;

function shapedRun(text: string, start: number, end: number): boolean {
  if (isPrefixedSecret(text, start, end)) return true;
  // A run built as prefix and body (`msgbatch_01HK…`, `price_11I3…`) whose body is too short for a key is an id.
  if (hasWordPrefix(text, start, end)) return false;
  let body = end;
  while (body > start && text.charCodeAt(body - 1) === 61) body -= 1;
  if (!looksRandomAlone(measureRun(text, start, body)) || isComposite(text, start, body)) return false;
  const decoded = decodedBytes(text.slice(start, end));
  if (decoded === undefined) return end - start <= MAX_ALONE;
  // Base64 of text (a cursor), of a file (audio, an image) or of a certificate or public key is data; of a private key, a secret.
  if (isDerPrivateKey(decoded)) return true;
  return end - start <= MAX_ALONE && !isPrintable(decoded) && !hasFileSignature(decoded) && !isDerPublic(decoded);
}

/** Longest run taken for a secret by its shape alone: longer base64 is content (a file, a blob), keys are shorter. */
const MAX_ALONE = 512;
