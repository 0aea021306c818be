// Many balance movements at once: the bulk form of the ledger's recordMovement, for payout chunks.
// The ledger (src/server/ledger/store.ts) writes them at the end of the caller's transaction, several
// rows a statement, with one balance update per (account, currency).

export { recordMovements } from '../ledger/store.js';
