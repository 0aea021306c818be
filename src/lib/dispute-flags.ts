// Flags that several dispute commands share, and the API bodies built from them.

import { Flags } from '@oclif/core';
import type { ApiClient } from './api/client.js';
import { loadEvidenceFile, type Dispute, type EvidenceFile, type provideEvidence } from './api/disputes.js';
import { UsageError } from './api/errors.js';

/** The documents named by --file (repeatable), read and typed for upload. */
export function filesFrom(flags: { file?: string[] | undefined }): Promise<EvidenceFile[]> {
  return Promise.all((flags.file ?? []).map(loadEvidenceFile));
}

/** Evidence flags shared with `appeal`: one evidence of --type with its notes, tracking, refunds and files. */
export const evidenceFlags = {
  type: Flags.string({ description: 'Evidence type, e.g. PROOF_OF_FULFILLMENT, PROOF_OF_REFUND, PROOF_OF_DELIVERY_SIGNATURE, OTHER', default: 'OTHER' }),
  notes: Flags.string({ description: 'Notes on the evidence (1 to 2000 characters)' }),
  'tracking-number': Flags.string({ description: 'Shipment tracking number (with --carrier)' }),
  carrier: Flags.string({ description: 'Carrier of the shipment, e.g. UPS, USPS, FEDEX, DHL' }),
  'refund-id': Flags.string({ description: 'Id of a refund already made (PROOF_OF_REFUND; repeatable)', multiple: true }),
  file: Flags.string({ description: 'A document: PDF, JPEG, GIF or PNG (repeatable; at most 10 of 10 MB, 50 MB in all)', multiple: true }),
};

type EvidenceFlags = {
  type: string;
  notes?: string | undefined;
  'tracking-number'?: string | undefined;
  carrier?: string | undefined;
  'refund-id'?: string[] | undefined;
  file?: string[] | undefined;
};

export function evidenceFrom(flags: EvidenceFlags): Record<string, unknown> {
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

/**
 * What `provide-evidence` and `appeal` do, through their own endpoint (`send`): one evidence from the
 * flags, with its files.
 */
export async function submitEvidence(
  send: typeof provideEvidence,
  client: ApiClient,
  id: string,
  flags: EvidenceFlags,
  options: { requestId?: string },
): Promise<Dispute> {
  const evidence = evidenceFrom(flags);
  return send(client, id, { evidences: [evidence] }, { files: await filesFrom(flags), ...options });
}

/** Where a returned item goes (REFUND_WITH_RETURN), for `make-offer` and `accept-claim`. */
export const returnAddressFlags = {
  'return-country': Flags.string({ description: 'Return address: two-letter country code (REFUND_WITH_RETURN)' }),
  'return-line1': Flags.string({ description: 'Return address: street line' }),
  'return-city': Flags.string({ description: 'Return address: city' }),
  'return-state': Flags.string({ description: 'Return address: state or region' }),
  'return-postal-code': Flags.string({ description: 'Return address: postal code' }),
};

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
