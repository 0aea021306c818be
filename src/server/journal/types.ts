// The request journal's answers (/_payctl/requests): not in the published API, so the shapes are
// ours; the CLI's client parses them (src/lib/api/sandbox.ts).

import type { JournalEntry } from './service.js';

/** GET /_payctl/requests: a page, newest first, and where the next (older) one starts. */
export interface JournalPage {
  items: JournalEntry[];
  next_before: string | null;
}

/** What a body that was not kept as JSON is said to be. */
export interface BodyInfo {
  content_type: string;
  bytes: number | null;
}

/**
 * What one request's entry adds (GET /_payctl/requests/{id}), as the recorder writes it: headers
 * with secrets masked, and the bodies as they went (any JSON, masked; cut short when large).
 */
export interface JournalDetail {
  request_headers: Record<string, string>;
  request_body: unknown;
  request_body_truncated?: true;
  request_body_info?: BodyInfo;
  response_headers: Record<string, string>;
  response_body: unknown;
  response_body_truncated?: true;
  response_body_info?: BodyInfo;
}

/** A detail written by an older payctl (or damaged) that no longer parses. */
export interface UnreadableDetail {
  detail_unreadable: true;
}
