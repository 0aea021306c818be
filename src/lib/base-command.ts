// Base of every command: global flags, the API client, prompts and confirmation, and error -> exit code.

import { Command, Flags, type Interfaces } from '@oclif/core';
import { ApiClient } from './api/client.js';
import { DeclinedError, EXIT_CODES, InterruptedError, UsageError, errorReportFor, exitCodeFor } from './api/errors.js';
import { accountClock, wallClock, type ClockReading } from './account-clock.js';
import { drainOutput, exitAfterDrain } from './drain.js';
import { whyNoPrompt } from './prompting.js';
import { configTokenCache, resolveCredentials, type ResolvedCredentials } from './config.js';
import { renderDetail, formatErrorText, type DetailRow } from './render/format.js';
import { renderTable, type Column } from './render/table.js';

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;
type GlobalFlags = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags']>;

/** What a delete prints under --json (the API answers 204 with no body). */
export type Deleted = { id: string; deleted: true };

/** A value that can come from a flag, an environment variable or a prompt. */
export interface PromptableValue {
  flag: string;
  env?: string;
  value: string | undefined;
  message: string;
  secret?: boolean;
}

let sigintInstalled = false;

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    profile: Flags.string({
      description: 'Profile to use (default: $PAYCTL_PROFILE, else the current profile)',
      helpGroup: 'GLOBAL',
    }),
    'base-url': Flags.string({
      description: 'API base URL (default: $PAYCTL_BASE_URL, else the profile)',
      helpGroup: 'GLOBAL',
    }),
    'client-id': Flags.string({ description: 'OAuth client id (default: $PAYCTL_CLIENT_ID, else the profile)', helpGroup: 'GLOBAL' }),
    'client-secret': Flags.string({
      description: 'OAuth client secret (default: $PAYCTL_CLIENT_SECRET, else the profile; prefer the variable: flags show in ps)',
      helpGroup: 'GLOBAL',
    }),
    'no-input': Flags.boolean({
      description: 'Never prompt: fail with exit code 2 when something is missing',
      helpGroup: 'GLOBAL',
    }),
  };

  protected flags!: CommandFlags<T>;
  protected args!: CommandArgs<T>;

  override async init(): Promise<void> {
    await super.init();
    this.#installSigintHandler();
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: this.ctor.baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as CommandFlags<T>;
    this.args = args as CommandArgs<T>;
  }

  /** Credentials resolved from flags, environment and the profile, in that order. */
  protected credentials(): ResolvedCredentials {
    return resolveCredentials({ flags: this.#globalFlags() });
  }

  /**
   * The API client. `credentials: false` is for calls that authenticate otherwise (the admin key):
   * they need a base URL only.
   */
  protected client(options: { credentials?: boolean } = {}): ApiClient {
    const resolved = this.credentials();
    if (!resolved.base_url) {
      throw new UsageError(
        `no base URL for profile "${resolved.profile}": run \`payctl auth login\`, pass --base-url, or set PAYCTL_BASE_URL`,
      );
    }
    if (options.credentials !== false && (!resolved.client_id || !resolved.client_secret)) {
      const missing = !resolved.client_id ? 'client id' : 'client secret';
      throw new UsageError(
        `no ${missing} for profile "${resolved.profile}": run \`payctl auth login\`, pass --client-id and ` +
          '--client-secret, or set PAYCTL_CLIENT_ID and PAYCTL_CLIENT_SECRET',
      );
    }
    return new ApiClient({
      baseUrl: resolved.base_url,
      ...(resolved.client_id ? { clientId: resolved.client_id } : {}),
      ...(resolved.client_secret ? { clientSecret: resolved.client_secret } : {}),
      tokenCache: configTokenCache(),
      userAgent: `payctl/${this.config.version}`,
    });
  }

  /**
   * The clock relative times count on: the account's (a payctl server's sandbox clock), read only
   * when something will be shown to a person (never for --json).
   */
  protected async clock(): Promise<ClockReading> {
    return this.jsonEnabled() ? wallClock() : accountClock(this.client());
  }

  /** Prompts only with a person at both ends: a terminal in and out, no CI, no --no-input. */
  protected canPrompt(): boolean {
    return whyNoPrompt(Boolean(this.#globalFlags()['no-input'])) === undefined;
  }

  /** Returns the given value, or asks for it on a terminal; without one, fails naming the flag. */
  protected async requireFlagOrPrompt(item: PromptableValue): Promise<string> {
    const [value] = await this.requireFlagsOrPrompt([item]);
    return value as string;
  }

  /** Like requireFlagOrPrompt for several values; without a terminal, names every missing flag at once. */
  protected async requireFlagsOrPrompt(items: readonly PromptableValue[]): Promise<string[]> {
    const missing = items.filter((item) => !item.value);
    if (missing.length > 0 && !this.canPrompt()) {
      const names = missing.map((item) => `--${item.flag}${item.env ? ` (or ${item.env})` : ''}`).join(', ');
      throw new UsageError(`missing ${names}; not prompting because ${this.#whyNoPrompt()}`);
    }
    const values: string[] = [];
    for (const item of items) {
      if (item.value) {
        values.push(item.value);
        continue;
      }
      const prompts = await import('@inquirer/prompts');
      const validate = (text: string) => (text.trim() ? true : 'required');
      const answer = item.secret
        ? await prompts.password({ message: item.message, mask: '*', validate })
        : await prompts.input({ message: item.message, validate });
      values.push(answer.trim());
    }
    return values;
  }

  /**
   * The options of a mutating call: the --request-id to send when one was given; without it the
   * client makes one (and reuses it on its own retries).
   */
  protected requestOptions(): { requestId?: string } {
    const requestId = (this.flags as { 'request-id'?: string })['request-id'];
    return requestId ? { requestId } : {};
  }

  /** The admin key from --admin-key (see adminKeyFlag) or PAYCTL_ADMIN_KEY, else asked for on a terminal. */
  protected async requireAdminKey(): Promise<string> {
    const value = (this.flags as { 'admin-key'?: string })['admin-key'];
    return this.requireFlagOrPrompt({ flag: 'admin-key', env: 'PAYCTL_ADMIN_KEY', value, message: 'Admin key', secret: true });
  }

  /** Asks before moving money or destroying data. `--yes` skips; without a terminal it is required. */
  protected async confirm(message: string): Promise<void> {
    if ((this.flags as { yes?: boolean }).yes) return;
    if (!this.canPrompt()) {
      throw new UsageError(`${message.replace(/\?$/, '')}: pass --yes to confirm (not prompting because ${this.#whyNoPrompt()})`);
    }
    const { confirm } = await import('@inquirer/prompts');
    if (!(await confirm({ message, default: false }))) {
      throw new DeclinedError('nothing was changed');
    }
  }

  /** One resource as label/value lines (skipped under --json, where oclif prints the result). */
  protected renderDetail(rows: readonly DetailRow[]): void {
    this.log(renderDetail(rows));
  }

  /**
   * A delete command's whole work: asks `Delete <what> <id>?` (unless --yes), deletes through
   * `remove` with the --request-id, and reports it.
   */
  protected async deleteAfterConfirm(
    what: string,
    id: string,
    remove: (client: ApiClient, id: string, options: { requestId?: string }) => Promise<void>,
  ): Promise<Deleted> {
    const client = this.client();
    await this.confirm(`Delete ${what} ${id}?`);
    await remove(client, id, this.requestOptions());
    return this.reportDeleted(id);
  }

  /** What a delete prints (the API answers 204 with no body): the id, and the same as JSON. */
  protected reportDeleted(id: string): Deleted {
    this.renderDetail([
      ['ID', id],
      ['Deleted', 'yes'],
    ]);
    return { id, deleted: true };
  }

  protected renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): void {
    this.log(renderTable(rows, columns));
  }

  /** A message for the person, never for a pipe: always stderr. */
  protected notice(message: string): void {
    process.stderr.write(`${message}\n`);
  }

  /** Every failure: stderr only (JSON under --json), stdout untouched, exit code from the table. */
  protected override async catch(error: Error & { exitCode?: number }): Promise<never> {
    if ((error as { code?: unknown }).code === 'EEXIT') throw error;
    const code = exitCodeFor(error);
    this.printError(error, code);
    if (code === EXIT_CODES.unexpected && process.env.DEBUG && error.stack) process.stderr.write(`${error.stack}\n`);
    return this.exit(code);
  }

  /** Every way out of a command (result, error, this.exit) waits here until a slow reader has it all. */
  protected override async finally(error: Error | undefined): Promise<void> {
    await super.finally(error);
    await drainOutput();
  }

  /**
   * What Ctrl+C should say besides "interrupted": a command with work part-done (a bulk file)
   * overrides it to say how far it got and how to go on.
   */
  protected interruptedMessage(): string {
    return 'interrupted (Ctrl+C)';
  }

  protected printError(error: unknown, code: number): void {
    const report = errorReportFor(error);
    if (this.jsonEnabled()) {
      process.stderr.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    const retryHint = code === EXIT_CODES.gaveUp || code === EXIT_CODES.timedOut || code === EXIT_CODES.unexpected;
    process.stderr.write(`${formatErrorText(report, { retryHint })}\n`);
  }

  /** The global flags; empty when parsing itself failed. */
  #globalFlags(): Partial<GlobalFlags> {
    return (this.flags ?? {}) as Partial<GlobalFlags>;
  }

  #whyNoPrompt(): string {
    return whyNoPrompt(Boolean(this.#globalFlags()['no-input'])) ?? 'stdin or stdout is not a terminal';
  }

  #installSigintHandler(): void {
    if (sigintInstalled) return;
    sigintInstalled = true;
    process.once('SIGINT', () => {
      this.printError(new InterruptedError(this.interruptedMessage()), EXIT_CODES.interrupted);
      exitAfterDrain(EXIT_CODES.interrupted);
    });
  }
}
