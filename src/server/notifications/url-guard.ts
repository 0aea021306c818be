// Receiver addresses: http(s) only, never link-local or cloud-metadata addresses (checked again at connect time).

import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { ipv4Number, ipv4Of, ipv6Bytes } from '../core/ip-address.js';

/** Host names that resolve to instance metadata services on the common clouds. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * Metadata services outside 169.254.0.0/16: Alibaba Cloud (100.100.100.200), Oracle Cloud's legacy
 * endpoint (192.0.0.192), Azure's WireServer (168.63.129.16).
 */
const METADATA_IPV4 = new Set([ipv4Number(100, 100, 100, 200), ipv4Number(192, 0, 0, 192), ipv4Number(168, 63, 129, 16)]);

/** IPv6 metadata services: AWS (fd00:ec2::254), Google Cloud (fd20:ce::254), Oracle Cloud (fd00:c1::a9fe:a9fe). */
const METADATA_IPV6 = ['fd00:ec2::254', 'fd20:ce::254', 'fd00:c1::a9fe:a9fe'].map((text) => ipv6Bytes(text)?.join('.'));

/** Link-local 169.254.0.0/16, or a metadata address outside it. */
function isForbiddenIpv4(address: number): boolean {
  return address >>> 16 === 0xa9fe || METADATA_IPV4.has(address);
}

const v4At = (bytes: readonly number[], ...at: number[]): number =>
  ipv4Number(bytes[at[0] ?? 0] ?? 0, bytes[at[1] ?? 0] ?? 0, bytes[at[2] ?? 0] ?? 0, bytes[at[3] ?? 0] ?? 0);
const zeros = (bytes: readonly number[], from: number, to: number): boolean => bytes.slice(from, to).every((byte) => byte === 0);

/** Where RFC 6052 puts the IPv4 address after a NAT64 prefix of 32, 40, 48, 56, 64 and 96 bits (byte 8 is skipped). */
const NAT64_LAYOUTS = [[4, 5, 6, 7], [5, 6, 7, 9], [6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], [12, 13, 14, 15]];

/**
 * The IPv4 addresses an IPv6 address carries: IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96),
 * IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, every
 * RFC 6052 layout), 6to4 (2002::/16), Teredo (2001::/32: server, and the client obfuscated) and
 * ISATAP (an interface id of 0:5efe or 200:5efe).
 */
function embeddedIpv4(bytes: readonly number[]): number[] {
  const found: number[] = [];
  const last = v4At(bytes, 12, 13, 14, 15);
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) found.push(last);
  if (zeros(bytes, 0, 12)) found.push(last);
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) found.push(last);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    for (const layout of NAT64_LAYOUTS) found.push(v4At(bytes, ...layout));
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) found.push(v4At(bytes, 2, 3, 4, 5));
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) found.push(v4At(bytes, 4, 5, 6, 7), ~last >>> 0);
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) found.push(last);
  return found;
}

/**
 * Link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses, in IPv4 and in every IPv6
 * form that carries an IPv4 address. Loopback and private ranges are allowed (local receivers).
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = ipv4Of(bare);
  if (v4 !== undefined) return isIP(bare) === 4 && isForbiddenIpv4(v4);
  const bytes = ipv6Bytes(bare);
  if (!bytes) return false;
  if (bytes[0] === 0xfe && ((bytes[1] ?? 0) & 0xc0) === 0x80) return true;
  if (METADATA_IPV6.includes(bytes.join('.'))) return true;
  return embeddedIpv4(bytes).some(isForbiddenIpv4);
}

export function isForbiddenHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return METADATA_HOSTS.has(host) || isForbiddenAddress(host);
}

export type ReceiverUrlProblem = { issue: 'INVALID_PARAMETER_SYNTAX' | 'INVALID_PARAMETER_VALUE'; description: string };

/** Why `text` cannot be a receiver address, or undefined when it can. */
export function receiverUrlProblem(text: string): ReceiverUrlProblem | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { issue: 'INVALID_PARAMETER_SYNTAX', description: 'The receiver address must be an absolute http or https URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { issue: 'INVALID_PARAMETER_SYNTAX', description: 'The receiver address must use http or https.' };
  }
  if (url.hash !== '') return { issue: 'INVALID_PARAMETER_SYNTAX', description: 'The receiver address must not have a fragment.' };
  if (isForbiddenHost(url.hostname)) {
    return {
      issue: 'INVALID_PARAMETER_VALUE',
      description: 'Link-local and cloud metadata addresses cannot receive webhooks.',
    };
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A dns.lookup for outgoing deliveries that refuses names resolving to forbidden addresses: the
 * check runs on what the socket will connect to, after DNS, so a name cannot be re-pointed between
 * registration and delivery. `resolve` is dns.lookup but for tests.
 */
export function guardedLookupWith(resolve: Resolver) {
  return function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    if (isForbiddenHost(hostname)) {
      callback(Object.assign(new Error(`refusing to deliver to ${hostname}`), { code: 'EFORBIDDEN' }), '');
      return;
    }
    resolve(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error, '');
      const bad = list.find((entry) => isForbiddenAddress(entry.address));
      if (bad) {
        return callback(Object.assign(new Error(`${hostname} resolves to ${bad.address}, a forbidden address`), { code: 'EFORBIDDEN' }), '');
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      return callback(null, first.address, first.family);
    });
  };
}

export const guardedLookup = guardedLookupWith((hostname, options, callback) => dnsLookup(hostname, options, callback));
