// First-start set-up: the default merchant and app, the admin key, and the credentials file that
// lets a restarted server print the same credentials while the database stores only hashes.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { z } from 'zod';
import type { ServerDeps } from './core/deps.js';
import { secretToken } from './core/ids.js';
import { hashGeneratedSecret, hashSecret, hashToken, verifySecret } from './core/secrets.js';
import { writeNewPrivateFile } from './db/file-modes.js';
import type { Queryable, Trx } from './db/schema.js';
import { createMerchantAccount, newClientSecret, type AccountCredentials } from './oauth/service.js';
import * as store from './oauth/store.js';

const credentialsFileSchema = z.object({
  payer_id: z.string(),
  client_id: z.string(),
  client_secret: z.string(),
  admin_key: z.string(),
  /** Seals the webhook signing key in the database (notifications/signing.ts); 32 bytes, base64url. */
  signing_key_secret: z.string().regex(/^[A-Za-z0-9_-]{43}$/).optional(),
});

type CredentialsFile = z.infer<typeof credentialsFileSchema>;

function readCredentialsFile(path: string | null): CredentialsFile | undefined {
  if (!path || !existsSync(path)) return undefined;
  try {
    return credentialsFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Written beside the file and renamed over it, 0600 from the start: a server starting on the same
 * database reads the old file or the new one, never a half-written one.
 */
function writeCredentialsFile(path: string | null, content: CredentialsFile): void {
  if (!path) return;
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeNewPrivateFile(temporary, `${JSON.stringify(content, null, 2)}\n`);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
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
  /** The secret was given (--signing-key-secret): it wins over one the credentials file holds. */
  signingKeySecretGiven?: boolean;
  warn: (message: string) => void;
}

export interface Bootstrapped {
  credentials: AccountCredentials;
  adminKey: string;
  /** The credentials file's, when another start wrote it first; otherwise the one passed in. */
  signingKeySecret: Buffer;
}

/**
 * The admin key is compared by SHA-256: a generated key has 256 random bits, so a slow hash buys
 * nothing and would cost every start and every admin call. A key passed with --admin-key is the
 * operator's choice of strength (document: use a long random value outside local use).
 */
async function ensureAdminKey(db: Queryable, given: string | undefined, remembered: string | undefined): Promise<string> {
  const storedHash = await store.getSetting(db, 'admin_key_sha256');
  if (given !== undefined) {
    if (storedHash !== hashToken(given)) await store.putSetting(db, 'admin_key_sha256', hashToken(given));
    return given;
  }
  if (remembered !== undefined && storedHash === hashToken(remembered)) return remembered;
  const fresh = `adm_${secretToken(32)}`;
  await store.putSetting(db, 'admin_key_sha256', hashToken(fresh));
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

/** What the set-up decides from: the credentials file and the default merchant with its app. */
interface Observed {
  remembered: CredentialsFile | undefined;
  account: store.AccountRow | undefined;
  app: store.AppRow | undefined;
}

async function observe(db: Queryable, credentialsFile: string | null): Promise<Observed> {
  const remembered = readCredentialsFile(credentialsFile);
  const account = await store.findDefaultAccount(db);
  const app = account ? await store.findDefaultApp(db, account.id) : undefined;
  if (account && !app) throw new Error(`the default merchant ${account.id} has no app; the database is damaged`);
  return { remembered, account, app };
}

const sameObserved = (a: Observed, b: Observed): boolean =>
  JSON.stringify(a.remembered) === JSON.stringify(b.remembered) &&
  a.account?.id === b.account?.id &&
  a.app?.client_id === b.app?.client_id &&
  a.app?.secret_hash === b.app?.secret_hash;

function checkSecret(options: BootstrapOptions, observed: Observed): Promise<SecretCheck> {
  const checking = observed.app ? checkStoredSecret(options, observed.remembered, observed.app) : freshSecret(options.clientSecret);
  // Awaited later; until then a failure must not count as unhandled.
  checking.catch(() => undefined);
  return checking;
}

/** The writes, under the write lock, from what was observed under it. */
async function writeDefaults(deps: ServerDeps, trx: Trx, options: BootstrapOptions, observed: Observed, check: SecretCheck): Promise<Bootstrapped> {
  const { account, app, remembered } = observed;
  let credentials: AccountCredentials;
  if (!account || !app) {
    credentials = await createMerchantAccount(deps, trx, {
      email: 'merchant@payctl.local',
      isDefault: true,
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      clientSecret: check.secret,
      ...(check.matchesStored ? {} : { secretHash: check.hash }),
    });
  } else {
    const clientId = options.clientId ?? app.client_id;
    if (!check.matchesStored) {
      if (check.warning) options.warn(check.warning);
      await store.updateAppCredentials(trx, app.id, clientId, check.hash);
    }
    credentials = { payer_id: account.id, email: account.email, client_id: clientId, client_secret: check.secret };
  }
  const adminKey = await ensureAdminKey(trx, options.adminKey, remembered?.admin_key);
  // A secret another process wrote first wins over the one this process drew at start.
  const signingKeySecret =
    options.signingKeySecretGiven !== true && remembered?.signing_key_secret !== undefined
      ? Buffer.from(remembered.signing_key_secret, 'base64url')
      : options.signingKeySecret;
  // Written before the commit, under the lock: a process that takes the lock next finds the
  // merchant and the file that holds its secrets together.
  writeCredentialsFile(options.credentialsFile, {
    payer_id: credentials.payer_id,
    client_id: credentials.client_id,
    client_secret: credentials.client_secret,
    admin_key: adminKey,
    signing_key_secret: signingKeySecret.toString('base64url'),
  });
  return { credentials, adminKey, signingKeySecret };
}

/** Start-ups that found the state changed under them before they redo the secret check under the lock. */
const OPTIMISTIC_ATTEMPTS = 3;

/**
 * First-start set-up in two steps, so the slow part overlaps building the app: `prepareBootstrap`
 * reads what is stored and starts a chosen secret's scrypt (thread pool); the function it returns, run
 * once every domain has registered its hooks (new accounts get their templates), writes.
 *
 * Several servers may start at once on one database (replicas, or two `payctl serve` on one new
 * file): the writes run under the write lock, after reading the file and the merchant again. If
 * another start changed them in between, the lock is let go and the check redone outside it (scrypt
 * must not hold every other start up), so every start ends up with the first one's merchant and
 * credentials.
 */
export async function prepareBootstrap(deps: ServerDeps, options: BootstrapOptions): Promise<() => Promise<Bootstrapped>> {
  let observed = await observe(deps.db, options.credentialsFile);
  let checking = checkSecret(options, observed);

  return async () => {
    for (let attempt = 1; ; attempt += 1) {
      const check = await checking;
      const seen = observed;
      const outcome = await deps.storage.transaction({ name: 'bootstrap', exclusive: 'payctl.bootstrap' }, async (trx): Promise<Bootstrapped | Observed> => {
        const current = await observe(trx, options.credentialsFile);
        if (sameObserved(current, seen)) return writeDefaults(deps, trx, options, current, check);
        if (attempt >= OPTIMISTIC_ATTEMPTS) return writeDefaults(deps, trx, options, current, await checkSecret(options, current));
        return current;
      });
      if ('credentials' in outcome) return outcome;
      observed = outcome;
      checking = checkSecret(options, observed);
    }
  };
}
