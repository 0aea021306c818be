// Flags that several dispute commands share, and the API bodies built from them.

import { Flags } from '@oclif/core';
import { UsageError } from './api/errors.js';

/** Evidence flags shared with `appeal`: one evidence of --type with its notes, tracking, refunds and files. */
export const evidenceFlags = {
  type: Flags.string({ description: 'Evidence type, e.g. PROOF_OF_FULFILLMENT, PROOF_OF_REFUND, PROOF_OF_DELIVERY_SIGNATURE, OTHER', default: 'OTHER' }),
  notes: Flags.string({ description: 'Notes on the evidence (1 to 2000 characters)' }),
  'tracking-number': Flags.string({ description: 'Shipment tracking number (with --carrier)' }),
  carrier: Flags.string({ description: 'Carrier of the shipment, e.g. UPS, USPS, FEDEX, DHL' }),
  'refund-id': Flags.string({ description: 'Id of a refund already made (PROOF_OF_REFUND; repeatable)', multiple: true }),
  file: Flags.string({ description: 'A document: PDF, JPEG, GIF or PNG (repeatable; at most 10 of 10 MB, 50 MB in all)', multiple: true }),
};

export function evidenceFrom(flags: {
  type: string;
  notes?: string | undefined;
  'tracking-number'?: string | undefined;
  carrier?: string | undefined;
  'refund-id'?: string[] | undefined;
}): Record<string, unknown> {
  if (flags['tracking-number'] && !flags.carrier) throw new UsageError('--tracking-number needs --carrier (e.g. --carrier UPS)');
  const info: Record<string, unknown> = {};
  if (flags['tracking-number']) info.tracking_info = [{ carrier_name: flags.carrier?.toUpperCase(), tracking_number: flags['tracking-number'] }];
  if (flags['refund-id']?.length) info.refund_ids = flags['refund-id'];
  return {
    evidence_type: flags.type.toUpperCase(),
    ...(Object.keys(info).length > 0 ? { evidence_info: info } : {}),
    ...(flags.notes ? { notes: flags.notes } : {}),
  };
}

/** The return_shipping_address from the --return-* flags, if any was given. */
export function returnAddressFrom(flags: {
  'return-country'?: string | undefined;
  'return-line1'?: string | undefined;
  'return-city'?: string | undefined;
  'return-state'?: string | undefined;
  'return-postal-code'?: string | undefined;
}): Record<string, string> | undefined {
  const address: Record<string, string> = {};
  if (flags['return-country']) address.country_code = flags['return-country'].toUpperCase();
  if (flags['return-line1']) address.address_line_1 = flags['return-line1'];
  if (flags['return-city']) address.admin_area_2 = flags['return-city'];
  if (flags['return-state']) address.admin_area_1 = flags['return-state'];
  if (flags['return-postal-code']) address.postal_code = flags['return-postal-code'];
  return Object.keys(address).length > 0 ? address : undefined;
}
