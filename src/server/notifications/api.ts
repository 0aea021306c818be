// The notifications domain as the others see it. Payments' event summaries tell an expired void
// from an explicit one the same way the callback paths do, so the rule is shared from here.

export { voidedExpired } from './receiver-paths.js';
