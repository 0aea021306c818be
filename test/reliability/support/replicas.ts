// Several built `payctl serve` processes on one database, and a client that spreads requests over
// them round-robin as a load balancer would (one that stops sending to a replica marked down).

import { DEFAULT_CREDENTIALS, startServe, type ServeCredentials, type ServeOptions, type ServeProcess } from './serve-process.js';
import { loadClient, type CallOptions, type LoadClient, type Outcome } from './http.js';

export interface ReplicaSetOptions {
  /** The database every replica serves (a postgres:// URL). */
  db: string;
  count: number;
  credentials?: ServeCredentials;
  /** More `payctl serve` arguments for every replica. */
  extraArgs?: readonly string[];
  env?: Readonly<Record<string, string>>;
  logLevel?: ServeOptions['logLevel'];
}

/**
 * Starts `count` replicas: the first alone (it migrates and bootstraps the default merchant), then
 * the others together, with the same credentials flags (so the same app, admin key and merchant).
 */
export async function startReplicas(options: ReplicaSetOptions): Promise<ServeProcess[]> {
  const serveOptions: ServeOptions = {
    dbPath: options.db,
    credentials: options.credentials ?? DEFAULT_CREDENTIALS,
    ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    startTimeoutMs: 60_000,
  };
  const first = await startServe(serveOptions);
  const started = [first];
  try {
    const others = await Promise.allSettled(Array.from({ length: options.count - 1 }, () => startServe(serveOptions)));
    for (const other of others) if (other.status === 'fulfilled') started.push(other.value);
    const failed = others.find((other): other is PromiseRejectedResult => other.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (error) {
    await Promise.all(started.map((replica) => replica.kill('SIGKILL')));
    throw error;
  }
  const payers = new Set(started.map((replica) => replica.payerId));
  if (payers.size !== 1) {
    await Promise.all(started.map((replica) => replica.kill('SIGKILL')));
    throw new Error(`replicas started on one database name different default merchants: ${[...payers].join(', ')}`);
  }
  return started;
}

export interface BalancedClient extends LoadClient {
  /** One client per replica, in the order given. */
  readonly replicas: readonly LoadClient[];
  /** Requests sent to each replica so far. */
  readonly sent: readonly number[];
  /** Stop sending to replica `index` (it was killed). */
  markDown(index: number): void;
}

/** A LoadClient over several replicas: each call goes to the next replica that is up. */
export function balancedClient(urls: readonly string[], options: { connectionsPerReplica: number; timeoutMs?: number }): BalancedClient {
  const replicas = urls.map((url) => loadClient(url, { connections: options.connectionsPerReplica, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }));
  const up = urls.map(() => true);
  const sent = urls.map(() => 0);
  let next = 0;
  const pick = (): number => {
    for (let tries = 0; tries < urls.length; tries += 1) {
      const index = next % urls.length;
      next += 1;
      if (up[index]) return index;
    }
    throw new Error('every replica is marked down');
  };
  const call = <T>(method: string, path: string, callOptions?: CallOptions): Promise<Outcome<T>> => {
    const index = pick();
    sent[index] = (sent[index] ?? 0) + 1;
    return (replicas[index] as LoadClient).call<T>(method, path, callOptions);
  };
  return {
    url: urls.join(','),
    replicas,
    sent,
    call,
    async must<T>(method: string, path: string, callOptions?: CallOptions) {
      const outcome = await call<T>(method, path, callOptions);
      if (outcome.lost) throw new Error(`${method} ${path}: no answer (${outcome.error})`);
      return outcome;
    },
    markDown(index: number) {
      up[index] = false;
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.close()));
    },
  };
}
