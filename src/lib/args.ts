// The id arguments many commands take: one definition per kind of resource, so its help reads the
// same in every command.

import { Args } from '@oclif/core';

export const authorizationIdArg = () => Args.string({ description: 'Authorization id', required: true });
export const disputeIdArg = () => Args.string({ description: 'Dispute id', required: true });
export const invoiceIdArg = () => Args.string({ description: 'Invoice id', required: true });
export const orderIdArg = () => Args.string({ description: 'Order id', required: true });
export const templateIdArg = () => Args.string({ description: 'Template id', required: true });
export const webhookIdArg = () => Args.string({ description: 'Webhook id', required: true });
