// The PostgreSQL half of `npm test`: the server suite (test/server) again, on the cluster that
// PAYCTL_TEST_PG names, each test server on a fresh database (test/helpers/postgres.ts). Without the
// variable it says so in one line and succeeds, so `npm test` on a machine without PostgreSQL still
// runs everything on SQLite.
import { spawnSync } from 'node:child_process';

if (!process.env.PAYCTL_TEST_PG) {
  console.log(
    'PostgreSQL half skipped: PAYCTL_TEST_PG is not set. To run test/server on PostgreSQL too: ' +
      'export PAYCTL_TEST_PG="$(scripts/pg-cluster.sh start /tmp/payctl-pg)" (stop it with scripts/pg-cluster.sh stop /tmp/payctl-pg)',
  );
  process.exit(0);
}
// Run as an npm script: node_modules/.bin is on the PATH.
const run = spawnSync('vitest', ['run', '--config', 'vitest.postgres.config.ts', ...process.argv.slice(2)], { stdio: 'inherit' });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
