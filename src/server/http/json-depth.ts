// Nesting depth of JSON text, measured before it is parsed: deep input is refused at the edge, so
// nothing after it (hashing, validation, rendering) ever walks a structure deep enough to overflow.

import { serviceError, type ServiceError } from './errors.js';
import { jsonPointer } from './validation.js';

/**
 * The deepest nesting of objects and arrays a request body may have (the top-level value is level 1).
 * The deepest body the API defines is ~9 levels (an event posted back to verify-webhook-signature).
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The JSON pointer of the first object or array nested deeper than `maxDepth`, or undefined when
 * there is none. One pass over the text, no recursion and no allocation on the way: the path is
 * kept as offsets (the last key of each open object, the index in each open array) and only turned
 * into a pointer when there is something to report. The text need not be valid JSON; the parser
 * that follows judges that.
 */
export function tooDeepPointer(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  // Depth d needs d opening brackets; most bodies are judged by the quick pass alone.
  if (text.length <= maxDepth || !exceedsDepth(text, maxDepth)) return undefined;
  const isArray = new Uint8Array(maxDepth + 1);
  const index = new Uint32Array(maxDepth + 1);
  const keyStart = new Int32Array(maxDepth + 1);
  const keyEnd = new Int32Array(maxDepth + 1);
  let depth = 0;
  let lastStringStart = -1;
  let lastStringEnd = -1;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const start = at;
      for (at += 1; at < text.length; at += 1) {
        const inner = text.charCodeAt(at);
        if (inner === BACKSLASH) at += 1;
        else if (inner === QUOTE) break;
      }
      lastStringStart = start;
      lastStringEnd = at;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (depth === maxDepth) return pointerOf(text, depth, isArray, index, keyStart, keyEnd);
      depth += 1;
      isArray[depth] = code === OPEN_ARRAY ? 1 : 0;
      index[depth] = 0;
      keyStart[depth] = -1;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (code === COMMA) {
      if (isArray[depth] === 1) index[depth] = (index[depth] ?? 0) + 1;
      else keyStart[depth] = -1;
    } else if (code === COLON && depth > 0 && isArray[depth] === 0) {
      keyStart[depth] = lastStringStart;
      keyEnd[depth] = lastStringEnd;
    }
  }
  return undefined;
}

/** The index of the quote closing the string opened at `from` (or the end of the text). */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    for (let back = at - 1; text.charCodeAt(back) === BACKSLASH; back -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

/** The quick pass: brackets only, strings skipped with indexOf (a third of JSON.parse's time on a large payout). */
function exceedsDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) at = closingQuote(text, at);
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if ((code === CLOSE_OBJECT || code === CLOSE_ARRAY) && depth > 0) depth -= 1;
  }
  return false;
}

/** The pointer of the value about to open inside the containers 1..depth. */
function pointerOf(text: string, depth: number, isArray: Uint8Array, index: Uint32Array, keyStart: Int32Array, keyEnd: Int32Array): string {
  const path: string[] = [];
  for (let level = 1; level <= depth; level += 1) {
    if (isArray[level] === 1) path.push(String(index[level]));
    else path.push(keyText(text, keyStart[level] ?? -1, keyEnd[level] ?? -1));
  }
  return jsonPointer(path);
}

function keyText(text: string, start: number, end: number): string {
  if (start < 0 || end <= start) return '';
  try {
    const key: unknown = JSON.parse(text.slice(start, end + 1));
    return typeof key === 'string' ? key : '';
  } catch {
    return text.slice(start + 1, end);
  }
}

/** INVALID_REQUEST naming the first value nested too deep, or undefined when `text` is shallow enough. */
export function nestingProblem(text: string, location: 'body' | 'header' | 'query' = 'body', prefix = ''): ServiceError | undefined {
  const pointer = tooDeepPointer(text);
  return pointer === undefined ? undefined : tooDeep(`${prefix}${pointer}`, location);
}

const tooDeep = (field: string, location: 'body' | 'header' | 'query'): ServiceError =>
  serviceError('INVALID_REQUEST', 'MAX_DEPTH_EXCEEDED', `The JSON is nested more than ${MAX_JSON_DEPTH} levels deep.`, { field, location });

/** The same limit for a value some other parser already built (a multipart field parsed as JSON). */
export function valueNestingProblem(value: unknown, location: 'body' | 'header' | 'query' = 'body'): ServiceError | undefined {
  const todo: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (todo.length > 0) {
    const next = todo.pop() as { value: unknown; path: string[] };
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.path.length === MAX_JSON_DEPTH) return tooDeep(jsonPointer(next.path), location);
    for (const [key, item] of Object.entries(next.value)) todo.push({ value: item, path: [...next.path, key] });
  }
  return undefined;
}
