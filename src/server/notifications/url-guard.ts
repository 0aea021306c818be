// Receiver addresses: http(s) only, never link-local or cloud-metadata addresses (checked again at connect time).

import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/** Host names that resolve to instance metadata services on the common clouds. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);

function ipv4Octets(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4) return undefined;
  const octets = parts.map((part) => Number(part));
  return octets.every((octet, index) => /^\d{1,3}$/.test(parts[index] ?? '') && octet <= 255) ? octets : undefined;
}

/** 169.254.0.0/16, fe80::/10, IPv4-mapped forms of the former, and the AWS IPv6 metadata address. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare) === 4) {
    const octets = ipv4Octets(bare);
    return octets?.[0] === 169 && octets[1] === 254;
  }
  if (isIP(bare) === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
    if (mapped?.[1]) return isForbiddenAddress(mapped[1]);
    const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
    if (mappedHex?.[1] && mappedHex[2]) {
      const high = Number.parseInt(mappedHex[1], 16);
      return high >> 8 === 169 && (high & 0xff) === 254;
    }
    const first = Number.parseInt(bare.split(':')[0] || '0', 16);
    if ((first & 0xffc0) === 0xfe80) return true;
    return bare === 'fd00:ec2::254';
  }
  return false;
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

/** A dns.lookup for outgoing deliveries that refuses names resolving to forbidden addresses. */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (isForbiddenHost(hostname)) {
    callback(Object.assign(new Error(`refusing to deliver to ${hostname}`), { code: 'EFORBIDDEN' }), '');
    return;
  }
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const list = addresses as LookupAddress[];
    const bad = list.find((entry) => isForbiddenAddress(entry.address));
    if (bad) {
      return callback(Object.assign(new Error(`${hostname} resolves to ${bad.address}, a forbidden address`), { code: 'EFORBIDDEN' }), '');
    }
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  });
}
