// First-start set-up: the default merchant and app, the admin key, and the credentials file that
// lets a restarted server print the same credentials while the database stores only hashes.

import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { ServerDeps } from './core/deps.js';
import { secretToken } from './core/ids.js';
import { hashSecret, hashToken, verifySecret } from './core/secrets.js';
import { createMerchantAccount, newClientSecret, type AccountCredentials } from './oauth/service.js';
import * as store from './oauth/store.js';

const credentialsFileSchema = z.object({
  payer_id: z.string(),
  client_id: z.string(),
  client_secret: z.string(),
  admin_key: z.string(),
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

function writeCredentialsFile(path: string | null, content: CredentialsFile): void {
  if (!path) return;
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export interface BootstrapOptions {
  clientId?: string;
  clientSecret?: string;
  adminKey?: string;
  credentialsFile: string | null;
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

async function ensureDefaultAccount(
  deps: ServerDeps,
  options: BootstrapOptions,
  remembered: CredentialsFile | undefined,
): Promise<AccountCredentials> {
  const account = await store.findDefaultAccount(deps.db);
  if (!account) {
    return deps.db.transaction().execute((trx) =>
      createMerchantAccount(deps, trx, {
        email: 'merchant@payctl.local',
        isDefault: true,
        ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
        ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      }),
    );
  }
  const app = await store.findDefaultApp(deps.db, account.id);
  if (!app) throw new Error(`the default merchant ${account.id} has no app; the database is damaged`);
  const clientId = options.clientId ?? app.client_id;
  let secret = options.clientSecret;
  // scrypt is deliberately slow (tens of ms): verify each candidate at most once.
  let matchesStored = false;
  if (secret !== undefined) {
    matchesStored = clientId === app.client_id && (await verifySecret(secret, app.secret_hash));
  } else if (remembered?.client_id === clientId && (await verifySecret(remembered.client_secret, app.secret_hash))) {
    secret = remembered.client_secret;
    matchesStored = clientId === app.client_id;
  }
  if (secret === undefined) {
    secret = newClientSecret();
    options.warn('the default app secret could not be recovered (credentials file missing or stale); a new secret was issued');
  }
  if (!matchesStored) await store.updateAppCredentials(deps.db, app.id, clientId, await hashSecret(secret));
  return { payer_id: account.id, email: account.email, client_id: clientId, client_secret: secret };
}

export async function bootstrap(deps: ServerDeps, options: BootstrapOptions): Promise<Bootstrapped> {
  const remembered = readCredentialsFile(options.credentialsFile);
  const credentials = await ensureDefaultAccount(deps, options, remembered);
  const adminKey = await ensureAdminKey(deps, options.adminKey, remembered?.admin_key);
  writeCredentialsFile(options.credentialsFile, {
    payer_id: credentials.payer_id,
    client_id: credentials.client_id,
    client_secret: credentials.client_secret,
    admin_key: adminKey,
  });
  return { credentials, adminKey };
}
