// Preloaded with --import by tests: prints HEAVY-MODULE-LOADED <name> on stderr when one is imported.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
port1.on('message', (name) => process.stderr.write(`HEAVY-MODULE-LOADED ${name}\n`));
port1.unref();
register('./heavy-loads-hooks.mjs', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
