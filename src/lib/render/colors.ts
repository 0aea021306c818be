// Status words coloured by what they mean to the user: done, waiting, partial, or stopped.

import { Chalk, supportsColor, type ChalkInstance } from 'chalk';

type Tone = 'green' | 'yellow' | 'cyan' | 'red';

const DONE = ['COMPLETED', 'CAPTURED', 'PAID', 'SUCCESS', 'ACTIVE'];
const WAITING = ['PENDING', 'CREATED', 'SENT', 'UNPAID', 'PROCESSING', 'SCHEDULED', 'DRAFT', 'OPEN'];
const STOPPED = ['DENIED', 'FAILED', 'DECLINED', 'VOIDED', 'CANCELLED', 'REFUNDED', 'RETURNED', 'BLOCKED', 'EXPIRED'];

export function statusTone(status: string): Tone | undefined {
  const upper = status.toUpperCase();
  if (upper.startsWith('PARTIALLY_')) return 'cyan';
  if (DONE.includes(upper)) return 'green';
  if (WAITING.includes(upper)) return 'yellow';
  if (STOPPED.includes(upper)) return 'red';
  return undefined;
}

/** chalk for stdout, silenced by NO_COLOR (which chalk itself does not read) or a pipe. */
export function stdoutChalk(): ChalkInstance {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  const level = noColor || !process.stdout.isTTY ? 0 : supportsColor ? supportsColor.level : 0;
  return new Chalk({ level });
}

export function colorStatus(status: string, chalk: ChalkInstance = stdoutChalk()): string {
  const tone = statusTone(status);
  return tone ? chalk[tone](status) : status;
}
