// IP address text to numbers: IPv4 as a 32-bit number, IPv6 as its 16 bytes (every notation Node
// accepts, `::` and a trailing dotted quad included). The webhook URL guard and the credential
// throttle's source key both read addresses through here.

import { isIP } from 'node:net';

export function ipv4Number(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function ipv4Of(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return ipv4Number(a, b, c, d);
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted quad allowed), or undefined. */
export function ipv6Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let head = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] && dotted[2]) {
    const v4 = ipv4Of(dotted[2]);
    if (v4 === undefined) return undefined;
    head = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
    tail.push(v4 >>> 16, v4 & 0xffff);
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [left = '', right] = head.split('::') as [string, string | undefined];
  const before = groups(left);
  const after = [...(right === undefined ? [] : groups(right)), ...tail];
  const words = right === undefined ? [...before, ...tail] : [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  if (words.length !== 8 || words.some((word) => !(word >= 0 && word <= 0xffff))) return undefined;
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

