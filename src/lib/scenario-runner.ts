// Runs a scenario's steps in order against a server, each with request ids of its own, so that
// running the same file again gets the earlier answers back instead of making anything twice.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiClient } from './api/client.js';
import { PayctlError, errorReportFor, exitCodeFor, type ErrorReport } from './api/errors.js';
import type { SandboxAccount } from './api/sandbox.js';
import { configPath } from './config.js';
import { resolveReferences, stepRequestId, type Scenario, type ScenarioStep } from './scenario.js';
import { stepRunners, type StepContext, type StepKind } from './scenario-steps.js';

export interface StepResult {
  step: string;
  kind: StepKind;
  line: number;
  result: unknown;
}

export interface RunOptions {
  /** The client of the account steps run as unless they say `as:`. */
  client: ApiClient;
  adminKey?: string | undefined;
  /** Where account credentials are kept between runs (default: beside the CLI's configuration). */
  accountsFile?: string | undefined;
  onStep?: (result: StepResult) => void;
}

/** A step that failed: names it and its line; `cause` holds the API's error. */
export class ScenarioStepError extends PayctlError {
  constructor(
    readonly file: string,
    readonly step: ScenarioStep,
    override readonly cause: unknown,
  ) {
    super(`${file}:${step.line}: step "${step.name}" (${step.kind}) failed: ${errorReportFor(cause).message}`);
    this.name = 'ScenarioStepError';
  }

  /** The cause's: a declined capture exits 5 whether a scenario or a command asked for it. */
  get exitCode(): number {
    return exitCodeFor(this.cause);
  }

  get errorName(): string {
    return errorReportFor(this.cause).name;
  }

  /** The cause's report (the API's details included), naming the step and its line. */
  override report(): ErrorReport {
    return { ...errorReportFor(this.cause), message: this.message, step: this.step.name, line: this.step.line, file: this.file } as ErrorReport;
  }
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<StepResult[]> {
  const results = new Map<string, unknown>();
  const outcomes: StepResult[] = [];
  const clients = new Map<string, ApiClient>();
  const anonymous = new ApiClient({ baseUrl: options.client.baseUrl });
  const accounts = accountsStore(options.accountsFile, options.client.baseUrl);
  for (const step of scenario.steps) {
    let result: unknown;
    try {
      const input = resolveReferences(step.input, results) as never;
      const ctx: StepContext = {
        client: step.as === undefined ? options.client : clientFor(step.as, results, clients, options.client.baseUrl),
        anonymous,
        adminKey: options.adminKey,
        requestId: (call) => stepRequestId(scenario, step.name, call),
        knownAccounts: accounts,
      };
      result = await (stepRunners[step.kind] as (ctx: StepContext, input: never) => Promise<unknown>)(ctx, input);
    } catch (error) {
      throw new ScenarioStepError(scenario.file, step, error);
    }
    results.set(step.name, result);
    const outcome = { step: step.name, kind: step.kind, line: step.line, result };
    outcomes.push(outcome);
    options.onStep?.(outcome);
  }
  return outcomes;
}

function clientFor(stepName: string, results: ReadonlyMap<string, unknown>, clients: Map<string, ApiClient>, baseUrl: string): ApiClient {
  const existing = clients.get(stepName);
  if (existing) return existing;
  const account = results.get(stepName) as SandboxAccount;
  const client = new ApiClient({ baseUrl, clientId: account.client_id, clientSecret: account.client_secret });
  clients.set(stepName, client);
  return client;
}

/**
 * Credentials of the accounts scenario files made, by server and email, in a file only the user
 * can read: the server shows a client secret once, and a re-run must act as the same account.
 */
function accountsStore(file: string | undefined, baseUrl: string): StepContext['knownAccounts'] {
  const path = file ?? defaultAccountsFile();
  const read = (): Record<string, SandboxAccount> => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Record<string, SandboxAccount>;
    } catch {
      return {};
    }
  };
  const key = (email: string) => `${baseUrl} ${email.toLowerCase()}`;
  return {
    get: (email) => read()[key(email)],
    set: (account) => {
      const all = read();
      all[key(account.email)] = { payer_id: account.payer_id, email: account.email, client_id: account.client_id, client_secret: account.client_secret };
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
      chmodSync(path, 0o600);
    },
  };
}

/** Beside the CLI's configuration file (PAYCTL_CONFIG_DIR, else the platform's config folder). */
function defaultAccountsFile(): string {
  return join(dirname(configPath()), 'scenario-accounts.json');
}
