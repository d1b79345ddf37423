// Keeps credentials out of logged URLs: a query parameter whose name suggests a credential, and any part of the
// URL that holds a JWT whatever its parameter name, is replaced by [REDACTED]. Long URLs are cut first, so the
// work per line is bounded and each query byte is looked at once.

export const redacted = '[REDACTED]';

/** Longest URL written to a log line; the rest is summarised by its length. */
const maxLoggedUrlLength = 2048;

// Matched against the decoded, lower-cased name with everything but letters and digits removed, so that
// `access_token[]`, `access_token%00`, `%20access_token` and `Access-Token` all count.
const credentialName = /token|jwt|bearer|auth|secret|passw|apikey|signature|credential|session/;

// Three base64url segments; the first must decode to a JSON object for it to be a JWS header.
const jwsShape = /([A-Za-z0-9_-]{2,})\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

export function redactUrl(url: string, maxLength = maxLoggedUrlLength): string {
  const cut = url.length > maxLength;
  const kept = cut ? url.slice(0, maxLength) : url;
  const suffix = cut ? `…[${url.length - maxLength} more characters]` : '';
  const q = kept.indexOf('?');
  const pathPart = q < 0 ? kept : kept.slice(0, q);
  const path = holdsJwt(pathPart) ? redactPathSegments(pathPart) : pathPart;
  if (q < 0) return path + suffix;
  const hash = kept.indexOf('#', q);
  const query = hash < 0 ? kept.slice(q + 1) : kept.slice(q + 1, hash);
  return `${path}?${redactQuery(query)}${hash < 0 ? '' : kept.slice(hash)}${suffix}`;
}

/** Most URLs a redactor remembers as holding nothing to redact, and the longest it remembers. */
const maxCleanUrls = 1024;
const maxCleanUrlLength = 512;

/**
 * redactUrl for a stream of log lines: clients poll the same few URLs, so a URL found to hold nothing to redact
 * is remembered (a bounded set, emptied when full) and written as it is the next time without decoding and
 * scanning it again. Only such URLs are kept, so the memory never holds a credential.
 */
export function urlRedactor(): (url: string) => string {
  const clean = new Set<string>();
  return (url) => {
    if (clean.has(url)) return url;
    const kept = redactUrl(url);
    if (kept === url && url.length <= maxCleanUrlLength) {
      if (clean.size >= maxCleanUrls) clean.clear();
      clean.add(url);
    }
    return kept;
  };
}

function redactQuery(query: string): string {
  let out = '';
  let start = 0;
  // Batches repeat one parameter name many times (paths=...&paths=...): judge each name once.
  let lastName: string | undefined;
  let lastNameIsCredential = false;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    const pair = query.slice(start, end);
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    if (rawName !== lastName) {
      lastName = rawName;
      lastNameIsCredential = credentialName.test(normalizedName(rawName));
    }
    let kept = pair;
    if (holdsJwt(rawName)) kept = redacted;
    else if (lastNameIsCredential || (eq >= 0 && holdsJwt(pair.slice(eq + 1))))
      kept = `${rawName}=${redacted}`;
    out += start > 0 ? `&${kept}` : kept;
    start = end + 1;
  }
  return out;
}

function redactPathSegments(path: string): string {
  return path
    .split('/')
    .map((segment) => (holdsJwt(segment) ? redacted : segment))
    .join('/');
}

function normalizedName(raw: string): string {
  const name = decoded(raw).toLowerCase();
  return plainName.test(name) ? name : name.replace(/[^a-z0-9]/g, '');
}

const plainName = /^[a-z0-9]*$/;
const jsonObjectStart = /^\s*\{/;

/** True when the text, percent-decoded, contains a JWS: base64url.base64url.base64url with a JSON header. */
function holdsJwt(raw: string): boolean {
  // A JWS has two dots, which may be percent-encoded: a text with fewer and no '%' cannot hold one.
  const dot = raw.indexOf('.');
  if ((dot < 0 || raw.indexOf('.', dot + 1) < 0) && raw.indexOf('%') < 0) return false;
  const text = decoded(raw);
  jwsShape.lastIndex = 0;
  for (let match = jwsShape.exec(text); match !== null; match = jwsShape.exec(text)) {
    const header = Buffer.from(match[1]!, 'base64url').toString('latin1');
    if (jsonObjectStart.test(header)) return true;
  }
  return false;
}

function decoded(raw: string): string {
  if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
