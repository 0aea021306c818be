// Where a PostgreSQL database's default credentials file lives: payctl's data folder, one file per
// database, so that replicas on one host share it (replicas on other hosts pass --credentials-file).

import { join } from 'node:path';
import { dataDir } from '../lib/paths.js';

const unsafe = /[^A-Za-z0-9._-]+/g;

/** Named from the host, port and database only (never the user or password), e.g. `postgres-db.internal-5432-payctl.credentials.json`. */
export function defaultCredentialsFile(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const parsed = new URL(url);
  const host = decodeURIComponent(parsed.hostname || parsed.searchParams.get('host') || 'localhost');
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
  const name = ['postgres', host, port, database].map((part) => part.replace(unsafe, '_')).join('-');
  return join(dataDir(env), `${name}.credentials.json`);
}
