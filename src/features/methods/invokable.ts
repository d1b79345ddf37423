// The Rpc.Invokable allow-list: which `instancePath.Method` calls a target permits. Pure, so it is table-tested.
//
// Pattern syntax (matched against the whole call, case-insensitively):
//   GVL.fbAlarms.AcknowledgeAlarm   exactly this method of this instance (`#` may stand for the last dot)
//   GVL.aFb[*].Reset                `*` matches any characters within one path segment (never a dot)
//   GVL.fbAlarms.*                  every method of one instance
//   GVL.**                          `**` matches any characters including dots: every method below GVL
// Brackets and every other character are literal. An empty list denies every call.

export interface MethodCall {
  readonly instancePath: string;
  /** The method name, without the instance path. */
  readonly method: string;
}

export type AllowList = (call: MethodCall) => boolean;

/** Compiles the patterns once; the returned function answers whether a call is allowed. */
export function compileAllowList(patterns: readonly string[]): AllowList {
  const compiled = patterns.map(compilePattern);
  return (call) => {
    const subject = `${call.instancePath}.${call.method}`;
    return compiled.some((re) => re.test(subject));
  };
}

function compilePattern(pattern: string): RegExp {
  const normalised = normaliseCall(pattern.trim());
  let source = '';
  for (let i = 0; i < normalised.length; i++) {
    const c = normalised[i]!;
    if (c === '*' && normalised[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^.]*';
    else source += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

/** `a.b#M` and `a.b.M` name the same call: the `#` form is how TwinCAT writes a method of an instance. */
function normaliseCall(text: string): string {
  const hash = text.lastIndexOf('#');
  return hash < 0 ? text : `${text.slice(0, hash)}.${text.slice(hash + 1)}`;
}

/**
 * Splits `instancePath.Method` (or `instancePath#Method`) at the `#`, else at the last dot outside brackets.
 * Undefined when either part would be empty.
 */
export function parseMethodCall(text: string): MethodCall | undefined {
  let split = text.lastIndexOf('#');
  if (split < 0) {
    let depth = 0;
    for (let i = text.length - 1; i >= 0 && split < 0; i--) {
      const c = text[i];
      if (c === ']') depth++;
      else if (c === '[') depth--;
      else if (c === '.' && depth === 0) split = i;
    }
  }
  if (split <= 0 || split === text.length - 1) return undefined;
  const instancePath = text.slice(0, split).trim();
  const method = text.slice(split + 1).trim();
  if (instancePath === '' || instancePath.includes('#') || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(method)) {
    return undefined;
  }
  return { instancePath, method };
}
