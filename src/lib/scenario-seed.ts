// `payctl serve --seed FILE`: runs a scenario file against the server just started, as its default
// merchant, before the server says it listens. Loaded by import() only when --seed is given.

import { ApiClient } from './api/client.js';
import { errorReportFor, exitCodeFor } from './api/errors.js';
import { formatErrorText } from './render/format.js';
import { loadScenario } from './scenario.js';
import { runScenario } from './scenario-runner.js';
import { keyIdOf } from './scenario-summary.js';

export interface SeedTarget {
  url: string;
  credentials: { client_id: string; client_secret: string };
  adminKey: string;
}

/** 0 when every step ran; else the step's exit code, with the error on stderr. */
export async function seedServer(file: string, target: SeedTarget, options: { json?: boolean } = {}): Promise<number> {
  try {
    const scenario = await loadScenario(file);
    const client = new ApiClient({ baseUrl: target.url, clientId: target.credentials.client_id, clientSecret: target.credentials.client_secret });
    const steps = await runScenario(scenario, {
      client,
      adminKey: target.adminKey,
      onStep: (step) => process.stderr.write(`payctl serve: seeded ${step.step} (${step.kind}) ${keyIdOf(step)}\n`),
    });
    process.stderr.write(`payctl serve: ${file}: ${steps.length} steps seeded\n`);
    return 0;
  } catch (error) {
    const report = errorReportFor(error);
    process.stderr.write(options.json ? `${JSON.stringify(report)}\n` : `payctl serve: --seed failed\n${formatErrorText(report)}\n`);
    return exitCodeFor(error);
  }
}
