// Root help with the exit-code table, so scripts can rely on it without reading the README.

import { Help } from '@oclif/core/help';

export const EXIT_CODES: ReadonlyArray<[number, string]> = [
  [0, 'ok'],
  [1, 'unexpected error'],
  [2, 'usage or validation (INVALID_REQUEST; a missing flag without a terminal; an unknown command)'],
  [3, 'not found'],
  [4, 'authentication or permission'],
  [5, 'business rule refused (UNPROCESSABLE_ENTITY)'],
  [6, 'gave up after retries (429, 5xx, network)'],
  [7, 'declined: you answered No at a confirmation; nothing was changed'],
  [8, 'timed out waiting'],
  [130, 'interrupted (Ctrl+C)'],
];

export default class PayctlHelp extends Help {
  override async showRootHelp(): Promise<void> {
    await super.showRootHelp();
    this.log(this.section('EXIT CODES', EXIT_CODES.map(([code, meaning]) => `${String(code).padEnd(4)}${meaning}`).join('\n')));
  }
}
