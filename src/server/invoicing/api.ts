// The invoicing domain as the others see it: what the audit (audit/) checks of stored invoices.

export { storedInvoiceProblem } from './resource.js';
export { viewTemplateProblem } from './view-template.js';
