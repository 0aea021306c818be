// Where payctl keeps its data by default (the server's database), per platform conventions.

import { homedir } from 'node:os';
import { join } from 'node:path';

export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.PAYCTL_DATA_DIR) return env.PAYCTL_DATA_DIR;
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'payctl', 'Data');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'payctl');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'payctl');
}

export const defaultDatabasePath = (): string => join(dataDir(), 'payctl.db');
