// Path patterns where '*' stands for one segment: fault rules match requests with them, and the
// request journal filters by them.

/** A path without its trailing slash (routes ignore it), split into segments. */
export function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/');
}

/** Whether a rule's path (a '*' segment matches any one segment) matches a request path. */
export function pathMatches(pattern: string, path: string): boolean {
  const want = segmentsOf(pattern);
  const have = segmentsOf(path);
  if (want.length !== have.length) return false;
  for (let index = 0; index < want.length; index++) {
    if (want[index] !== '*' && want[index] !== have[index]) return false;
  }
  return true;
}
