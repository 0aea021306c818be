// Evidence and documents: the dispute-specific checks (with the spec's issue codes) and storing files.

import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { prefixedId } from '../core/ids.js';
import { ServiceError, serviceError, type IssueCode } from '../http/errors.js';
import type { UploadedFile } from './files.js';
import type { Dispute } from './model.js';
import type { DocumentRef, EvidenceInput, StoredEvidence } from './schema.js';
import * as store from './store.js';
import type { DisputeReason } from './states.js';

/** Reasons where a shipment's tracking proves nothing (credit, duplicate, amount, billing disputes). */
const FULFILLMENT_REASONS: ReadonlySet<DisputeReason> = new Set([
  'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
  'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED',
  'UNAUTHORISED',
  'OTHER',
]);

const invalid = (issue: IssueCode, description: string, field: string): ServiceError =>
  serviceError('VALIDATION_ERROR', issue, description, { field, location: 'body' });

export interface EvidencePlan {
  evidence: EvidenceInput;
  files: UploadedFile[];
}

/**
 * Checks the evidences of provide-evidence, appeal or acknowledge-return-item and assigns each file
 * to an evidence: the one whose `documents[].name` names it, else the first. Nothing is stored here.
 */
export function planEvidences(
  dispute: Dispute,
  evidences: readonly EvidenceInput[] | undefined,
  files: readonly UploadedFile[],
  options: { required: boolean; pointer?: string },
): EvidencePlan[] {
  const base = options.pointer ?? '/evidences';
  if (!evidences || evidences.length === 0) {
    if (options.required) throw invalid('MISSING_EVIDENCE_INFO', 'Send at least one evidence in the input part (evidences[]).', base);
    return [];
  }
  const plans = evidences.map((evidence): EvidencePlan => ({ evidence, files: [] }));
  const named = new Map<string, { plan: EvidencePlan; index: number }>();
  plans.forEach((plan, index) => {
    for (const document of plan.evidence.documents ?? []) named.set(document.name, { plan, index });
  });
  for (const file of files) (named.get(file.name)?.plan ?? plans[0])?.files.push(file);
  const uploaded = new Set(files.map((file) => file.name));
  const typeCounts = new Map<string, number>();
  for (const evidence of evidences) {
    if (evidence.evidence_type) typeCounts.set(evidence.evidence_type, (typeCounts.get(evidence.evidence_type) ?? 0) + 1);
  }
  plans.forEach((plan, index) => checkEvidence(dispute, plan, `${base}/${index}`, { uploaded, typeCounts }));
  return plans;
}

function checkEvidence(
  dispute: Dispute,
  plan: EvidencePlan,
  pointer: string,
  context: { uploaded: ReadonlySet<string>; typeCounts: ReadonlyMap<string, number> },
): void {
  const { evidence } = plan;
  const type = evidence.evidence_type;
  if (!type) throw invalid('MISSING_EVIDENCE_TYPE', 'Each evidence needs an evidence_type.', `${pointer}/evidence_type`);
  if ((context.typeCounts.get(type) ?? 0) > 1 && !evidence.item_id) {
    throw invalid(
      'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES',
      `Several ${type} evidences were sent: give each an item_id to say which item it is for.`,
      `${pointer}/item_id`,
    );
  }
  if (type === 'PROOF_OF_FULFILLMENT') {
    if (!FULFILLMENT_REASONS.has(dispute.reason)) {
      throw invalid(
        'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT',
        `Proof of fulfillment does not answer a ${dispute.reason} dispute.`,
        `${pointer}/evidence_type`,
      );
    }
    if (!evidence.evidence_info?.tracking_info?.length) {
      throw invalid('MISSING_TRACKING_INFO', 'Proof of fulfillment needs evidence_info.tracking_info.', `${pointer}/evidence_info/tracking_info`);
    }
  }
  if (type === 'PROOF_OF_REFUND' && !evidence.evidence_info?.refund_ids?.length) {
    throw invalid('MISSING_REFUND_ID', 'Proof of refund needs evidence_info.refund_ids.', `${pointer}/evidence_info/refund_ids`);
  }
  if (type === 'PROOF_OF_RETURN' && !evidence.evidence_info?.tracking_info?.length) {
    throw invalid('MISSING_EVIDENCE_INFO', 'Proof of return needs evidence_info.tracking_info.', `${pointer}/evidence_info`);
  }
  for (const [index, document] of (evidence.documents ?? []).entries()) {
    if (!context.uploaded.has(document.name)) {
      throw invalid('INVALID_EVIDENCE_FILE', `The document ${document.name} is named but no file of that name was uploaded.`, `${pointer}/documents/${index}/name`);
    }
  }
  if (!evidence.notes && !evidence.evidence_info && plan.files.length === 0) {
    throw invalid('MISSING_EVIDENCE_INFO', 'An evidence must carry notes, evidence_info or a document.', pointer);
  }
}

/** Stores files as the dispute's documents (in the caller's transaction) and returns their references. */
export async function storeDocuments(ctx: ServiceContext, dispute: Dispute, files: readonly UploadedFile[]): Promise<DocumentRef[]> {
  const refs: DocumentRef[] = [];
  for (const file of files) {
    const id = prefixedId(ctx.deps.ids, 'DOC', 20);
    await store.insertDocument(ctx.db, {
      id,
      account_id: ctx.accountId,
      dispute_id: dispute.id,
      name: file.name,
      content_type: file.contentType,
      size_bytes: BigInt(file.bytes.length),
      sha256: file.sha256,
      content: file.bytes,
      create_time: isoMillis(ctx.now),
    });
    refs.push({ document_id: id, name: file.name, content_type: file.contentType, size: file.bytes.length });
  }
  return refs;
}

/** Stores the planned evidences (and their files) on the dispute. */
export async function recordEvidences(
  ctx: ServiceContext,
  dispute: Dispute,
  plans: readonly EvidencePlan[],
  source: StoredEvidence['source'],
  actionInfo?: StoredEvidence['action_info'],
): Promise<void> {
  for (const plan of plans) {
    const { evidence } = plan;
    dispute.details.evidences.push({
      ...(evidence.evidence_type ? { evidence_type: evidence.evidence_type } : {}),
      ...(evidence.evidence_info ? { evidence_info: evidence.evidence_info } : {}),
      ...(evidence.notes ? { notes: evidence.notes } : {}),
      ...(evidence.item_id ? { item_id: evidence.item_id } : {}),
      source,
      date: isoMillis(ctx.now),
      dispute_life_cycle_stage: dispute.stage,
      ...(actionInfo ? { action_info: actionInfo } : {}),
      documents: await storeDocuments(ctx, dispute, plan.files),
    });
  }
}
