// First-start set-up: the default merchant and app, the admin key, and the credentials file that
// lets a restarted server print the same credentials while the database stores only hashes.

import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { ServerDeps } from './core/deps.js';
import { secretToken } from './core/ids.js';
import { hashGeneratedSecret, hashSecret, hashToken, verifySecret } from './core/secrets.js';
import { createMerchantAccount, newClientSecret, type AccountCredentials } from './oauth/service.js';
import * as store from './oauth/store.js';

const credentialsFileSchema = z.lazy(() =>
  z.object({
    payer_id: z.string(),
    client_id: z.string(),
    client_secret: z.string(),
    admin_key: z.string(),
    /** Seals the webhook signing key in the database (notifications/signing.ts); 32 bytes, base64url. */
    signing_key_secret: z.string().regex(/^[A-Za-z0-9_-]{43}$/).optional(),
  }),
);

type CredentialsFile = z.infer<typeof credentialsFileSchema>;

function readCredentialsFile(path: string | null): CredentialsFile | undefined {
  if (!path || !existsSync(path)) return undefined;
  try {
    return credentialsFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

function writeCredentialsFile(path: string | null, content: CredentialsFile): void {
  if (!path) return;
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The secret the webhook signing key is sealed under, as the credentials file remembers it. */
export function rememberedSigningKeySecret(path: string | null): Buffer | undefined {
  const secret = readCredentialsFile(path)?.signing_key_secret;
  return secret === undefined ? undefined : Buffer.from(secret, 'base64url');
}

export interface BootstrapOptions {
  clientId?: string;
  clientSecret?: string;
  adminKey?: string;
  credentialsFile: string | null;
  /** Written to the credentials file (never to the database). */
  signingKeySecret: Buffer;
  warn: (message: string) => void;
}

export interface Bootstrapped {
  credentials: AccountCredentials;
  adminKey: string;
}

/**
 * The admin key is compared by SHA-256: a generated key has 256 random bits, so a slow hash buys
 * nothing and would cost every start and every admin call. A key passed with --admin-key is the
 * operator's choice of strength (document: use a long random value outside local use).
 */
async function ensureAdminKey(deps: ServerDeps, given: string | undefined, remembered: string | undefined): Promise<string> {
  const storedHash = await store.getSetting(deps.db, 'admin_key_sha256');
  if (given !== undefined) {
    if (storedHash !== hashToken(given)) await store.putSetting(deps.db, 'admin_key_sha256', hashToken(given));
    return given;
  }
  if (remembered !== undefined && storedHash === hashToken(remembered)) return remembered;
  const fresh = `adm_${secretToken(32)}`;
  await store.putSetting(deps.db, 'admin_key_sha256', hashToken(fresh));
  return fresh;
}

/** What the default app's secret turns out to be; a chosen secret's scrypt runs in the thread pool. */
type SecretCheck =
  /** The stored hash already matches `secret` under the stored client id. */
  | { secret: string; matchesStored: true }
  /** `hash` is to be stored; `warning` is said once the app is up (the secret had to be replaced). */
  | { secret: string; matchesStored: false; hash: string; warning?: string };

async function freshSecret(given: string | undefined): Promise<SecretCheck & { matchesStored: false }> {
  if (given === undefined) {
    const secret = newClientSecret();
    return { secret, matchesStored: false, hash: hashGeneratedSecret(secret) };
  }
  return { secret: given, matchesStored: false, hash: await hashSecret(given) };
}

async function checkStoredSecret(options: BootstrapOptions, remembered: CredentialsFile | undefined, app: { client_id: string; secret_hash: string }): Promise<SecretCheck> {
  const clientId = options.clientId ?? app.client_id;
  // scrypt is deliberately slow (tens of ms): verify each candidate at most once.
  if (options.clientSecret !== undefined) {
    const matchesStored = clientId === app.client_id && (await verifySecret(options.clientSecret, app.secret_hash));
    return matchesStored ? { secret: options.clientSecret, matchesStored } : freshSecret(options.clientSecret);
  }
  if (remembered?.client_id === clientId && (await verifySecret(remembered.client_secret, app.secret_hash))) {
    const matchesStored = clientId === app.client_id;
    return matchesStored ? { secret: remembered.client_secret, matchesStored } : freshSecret(remembered.client_secret);
  }
  return {
    ...(await freshSecret(undefined)),
    warning: 'the default app secret could not be recovered (credentials file missing or stale); a new secret was issued',
  };
}

/**
 * First-start set-up in two steps, so the slow part overlaps building the app: `prepareBootstrap`
 * reads what is stored and starts a chosen secret's scrypt (thread pool); the function it returns, run
 * once every domain has registered its hooks (new accounts get their templates), writes.
 */
export async function prepareBootstrap(deps: ServerDeps, options: BootstrapOptions): Promise<() => Promise<Bootstrapped>> {
  const remembered = readCredentialsFile(options.credentialsFile);
  const account = await store.findDefaultAccount(deps.db);
  const app = account ? await store.findDefaultApp(deps.db, account.id) : undefined;
  if (account && !app) throw new Error(`the default merchant ${account.id} has no app; the database is damaged`);
  const checking = account && app ? checkStoredSecret(options, remembered, app) : freshSecret(options.clientSecret);
  // Awaited by the returned step; until then a failure must not count as unhandled.
  checking.catch(() => undefined);

  return async () => {
    const check = await checking;
    let credentials: AccountCredentials;
    if (!account || !app) {
      credentials = await deps.db.transaction().execute((trx) =>
        createMerchantAccount(deps, trx, {
          email: 'merchant@payctl.local',
          isDefault: true,
          ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
          clientSecret: check.secret,
          ...(check.matchesStored ? {} : { secretHash: check.hash }),
        }),
      );
    } else {
      const clientId = options.clientId ?? app.client_id;
      if (!check.matchesStored) {
        if (check.warning) options.warn(check.warning);
        await store.updateAppCredentials(deps.db, app.id, clientId, check.hash);
      }
      credentials = { payer_id: account.id, email: account.email, client_id: clientId, client_secret: check.secret };
    }
    const adminKey = await ensureAdminKey(deps, options.adminKey, remembered?.admin_key);
    writeCredentialsFile(options.credentialsFile, {
      payer_id: credentials.payer_id,
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
      admin_key: adminKey,
      signing_key_secret: options.signingKeySecret.toString('base64url'),
    });
    return { credentials, adminKey };
  };
}
