// The PostgreSQL run's set-up (vitest.postgres.config.ts): refuses to start without a cluster, and
// removes the run's throwaway data folder at the end.

import { rmSync } from 'node:fs';

export default function setup(): () => void {
  if (!process.env.PAYCTL_TEST_PG) throw new Error('the PostgreSQL run needs PAYCTL_TEST_PG=postgres://... (scripts/pg-cluster.sh start DIR prints one)');
  return () => {
    const dataDir = process.env.PAYCTL_PG_TEST_DATA_DIR;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
