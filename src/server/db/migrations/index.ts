// Every migration, in order. Add new ones at the end with the next number.

import { coreMigration } from './0001-core.js';
import type { Migration } from './types.js';

export const MIGRATIONS: readonly Migration[] = [
  coreMigration,
  // 0002 payments and orders
  // 0003 invoicing
  // 0004 disputes
  // 0005 payouts
  // 0006 notifications
].sort((a, b) => a.id - b.id);
