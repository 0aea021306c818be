// Profiles, environment overrides and the token cache, persisted with conf in a 0600 file.

import { chmodSync } from 'node:fs';
import Conf from 'conf';
import { z } from 'zod';
import { UsageError } from './api/errors.js';
import { cachedTokenSchema, isTokenUsable, type CachedToken, type TokenCache } from './api/types.js';

export const DEFAULT_PROFILE = 'default';
export const LOCAL_PROFILE = 'local';
const CONFIG_FILE_MODE = 0o600;

const profileSchema = z.object({
  base_url: z.string().optional(),
  client_id: z.string().optional(),
  // Absent after `auth logout`: the rest of the profile is kept so that login can refill it.
  client_secret: z.string().optional(),
});
export type Profile = z.infer<typeof profileSchema>;

const storeSchema = z.object({
  current_profile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
  tokens: z.record(z.string(), cachedTokenSchema).default({}),
});
type Store = z.infer<typeof storeSchema>;

function openConf(): Conf<Store> {
  const cwd = process.env.PAYCTL_CONFIG_DIR;
  return new Conf<Store>({
    projectName: 'payctl',
    ...(cwd ? { cwd } : {}),
    configFileMode: CONFIG_FILE_MODE,
    // Token keys contain URLs, whose dots must not be read as nesting.
    accessPropertiesByDotNotation: false,
  });
}

/** Reads the whole store, refusing to guess when the file was edited into a wrong shape. */
function readStore(conf: Conf<Store> = openConf()): Store {
  const parsed = storeSchema.safeParse(conf.store);
  if (!parsed.success) {
    throw new Error(`the config file ${conf.path} is not valid: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
  }
  return parsed.data;
}

function writeStore(change: (store: Store) => void): void {
  const conf = openConf();
  const store = readStore(conf);
  change(store);
  conf.store = store;
  // conf only applies the mode when it creates the file; an older file is tightened here.
  chmodSync(conf.path, CONFIG_FILE_MODE);
}

export function configPath(): string {
  return openConf().path;
}

export function getProfile(name: string): Profile | undefined {
  return readStore().profiles[name];
}

export function listProfiles(): Record<string, Profile> {
  return readStore().profiles;
}

/** The profile used when neither --profile nor PAYCTL_PROFILE names one. */
export function currentProfileName(): string {
  return process.env.PAYCTL_PROFILE || readStore().current_profile || DEFAULT_PROFILE;
}

export function saveProfile(name: string, profile: Profile, options: { makeCurrent?: boolean } = {}): void {
  writeStore((store) => {
    store.profiles[name] = profile;
    if (options.makeCurrent) store.current_profile = name;
  });
}

/** A profile commands can use as it is: it holds a base URL, a client id and a secret. */
export function isUsable(profile: Profile | undefined): boolean {
  return Boolean(profile?.base_url && profile.client_id && profile.client_secret);
}

/** Makes a stored profile the current one; returns the one that was current before. */
export function switchProfile(name: string): { previous: string } {
  let previous = DEFAULT_PROFILE;
  writeStore((store) => {
    if (!(name in store.profiles)) {
      const known = Object.keys(store.profiles).sort();
      throw new UsageError(`no profile "${name}"; ${known.length > 0 ? `the profiles are: ${known.join(', ')}` : 'there are none yet: run `payctl auth login --profile NAME`'}`);
    }
    previous = store.current_profile ?? DEFAULT_PROFILE;
    store.current_profile = name;
  });
  return { previous };
}

/**
 * The profile to fall back on when the current one is logged out: a usable one, `default` first,
 * then `local` (what `payctl serve` writes), then by name.
 */
function fallbackProfile(store: Store, leaving: string): string | undefined {
  const candidates = Object.keys(store.profiles)
    .filter((name) => name !== leaving && isUsable(store.profiles[name]))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return candidates[0];
}

function rank(name: string): number {
  return name === DEFAULT_PROFILE ? 0 : name === LOCAL_PROFILE ? 1 : 2;
}

export interface LogoutOutcome {
  removed: boolean;
  /** Whether the profile was the stored current one. */
  wasCurrent: boolean;
  /** The current profile afterwards (undefined: none is usable, nothing is current). */
  current: string | undefined;
}

/**
 * `auth logout`: forgets the secret and, when the profile was the current one, makes a usable
 * profile current instead (none left: nothing is current, and commands say to log in).
 */
export function logoutProfile(name: string): LogoutOutcome {
  let removed = false;
  let wasCurrent = false;
  let current: string | undefined;
  // One write: the secret and the current profile change together or not at all.
  writeStore((store) => {
    removed = forgetSecretIn(store, name);
    wasCurrent = (store.current_profile ?? DEFAULT_PROFILE) === name;
    if (wasCurrent) {
      const fallback = fallbackProfile(store, name);
      if (fallback) store.current_profile = fallback;
      else delete store.current_profile;
    }
    current = store.current_profile;
  });
  return { removed, wasCurrent, current };
}

/** Deletes a profile; returns false when there was none. */
export function removeProfile(name: string): boolean {
  let existed = false;
  writeStore((store) => {
    existed = name in store.profiles;
    delete store.profiles[name];
    if (store.current_profile === name) delete store.current_profile;
  });
  return existed;
}

/** Forgets a profile's secret and its cached token but keeps its base URL and client id. */
export function forgetSecret(name: string): { removed: boolean } {
  let removed = false;
  writeStore((store) => {
    removed = forgetSecretIn(store, name);
  });
  return { removed };
}

/** Removes the profile's secret and cached token from `store`; whether it held a secret. */
function forgetSecretIn(store: Store, name: string): boolean {
  const profile = store.profiles[name];
  if (!profile) return false;
  const removed = profile.client_secret !== undefined;
  delete profile.client_secret;
  if (profile.base_url && profile.client_id) delete store.tokens[tokenKey(profile.base_url, profile.client_id)];
  return removed;
}

/**
 * Called by `payctl serve`: stores the embedded server's credentials as the `local` profile and
 * makes it current unless the user already works with another existing profile.
 */
export function writeLocalProfile(profile: Required<Profile>): { madeCurrent: boolean; current: string } {
  let madeCurrent = false;
  let current: string = LOCAL_PROFILE;
  writeStore((store) => {
    store.profiles[LOCAL_PROFILE] = { ...profile };
    delete store.tokens[tokenKey(profile.base_url, profile.client_id)];
    const previous = store.current_profile;
    // A logged-out profile is not one the user works with: it would only fail.
    const anotherIsCurrent = previous !== undefined && previous !== LOCAL_PROFILE && isUsable(store.profiles[previous]);
    if (anotherIsCurrent) current = previous;
    else {
      store.current_profile = LOCAL_PROFILE;
      madeCurrent = true;
    }
  });
  return { madeCurrent, current };
}

export interface CredentialFlags {
  profile?: string;
  'base-url'?: string;
  'client-id'?: string;
  'client-secret'?: string;
}

export interface ResolvedCredentials {
  profile: string;
  base_url?: string;
  client_id?: string;
  client_secret?: string;
}

/** Flags beat environment variables, which beat the stored profile, field by field. */
export function resolveCredentials({ flags }: { flags: CredentialFlags }): ResolvedCredentials {
  const env = process.env;
  const profileName = flags.profile || env.PAYCTL_PROFILE || currentProfileName();
  const stored = getProfile(profileName) ?? {};
  const pick = (flag: string | undefined, fromEnv: string | undefined, fromProfile: string | undefined) =>
    flag || fromEnv || fromProfile || undefined;
  const resolved: ResolvedCredentials = { profile: profileName };
  const baseUrl = pick(flags['base-url'], env.PAYCTL_BASE_URL, stored.base_url);
  const clientId = pick(flags['client-id'], env.PAYCTL_CLIENT_ID, stored.client_id);
  const clientSecret = pick(flags['client-secret'], env.PAYCTL_CLIENT_SECRET, stored.client_secret);
  if (baseUrl) resolved.base_url = baseUrl.replace(/\/+$/, '');
  if (clientId) resolved.client_id = clientId;
  if (clientSecret) resolved.client_secret = clientSecret;
  return resolved;
}

function tokenKey(baseUrl: string, clientId: string): string {
  return `${baseUrl.replace(/\/+$/, '')} ${clientId}`;
}

/** The persisted token cache; tokens are answered until 60 s before they expire. */
export function configTokenCache(now: () => number = Date.now): TokenCache {
  return {
    get(baseUrl, clientId): CachedToken | undefined {
      const token = readStore().tokens[tokenKey(baseUrl, clientId)];
      return token && isTokenUsable(token, now()) ? token : undefined;
    },
    set(baseUrl, clientId, token) {
      writeStore((store) => {
        store.tokens[tokenKey(baseUrl, clientId)] = token;
        for (const [key, cached] of Object.entries(store.tokens)) {
          if (!isTokenUsable(cached, now())) delete store.tokens[key];
        }
      });
    },
    delete(baseUrl, clientId) {
      writeStore((store) => {
        delete store.tokens[tokenKey(baseUrl, clientId)];
      });
    },
  };
}
