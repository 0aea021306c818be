// Writes dist/schema-template.db with the bundled server's own migrations: the file a new database
// starts as (src/server/db/seed.ts). Run by scripts/bundle-server.mjs.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const bundle = resolve(process.argv[2] ?? 'dist/server-bundle.cjs');
const target = resolve(process.argv[3] ?? 'dist/schema-template.db');
const { writeSchemaTemplate } = createRequire(import.meta.url)(bundle);
// Its migration records carry the build's time (the server's own timestamp format).
await writeSchemaTemplate(target);
