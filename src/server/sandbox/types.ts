// The control plane's answers (/_payctl): not in the published API, so the shapes are ours; the
// CLI's client parses them (src/lib/api/sandbox.ts, auth.ts). The clock's is ClockView in service.ts.

/** POST /_payctl/consents: the platform app may now act for the payer. */
export interface ConsentGrant {
  platform_client_id: string;
  payer_id: string;
  create_time: string;
}

/** POST /_payctl/accounts/kyc. */
export interface KycStatusView {
  payer_id: string;
  kyc_status: 'PENDING' | 'VERIFIED';
}

/** POST /_payctl/reset: whose data was deleted. */
export interface ResetResult {
  reset: 'account' | 'all';
}

/** GET /_payctl/whoami: the caller's account and app. */
export interface Whoami {
  payer_id: string;
  email: string;
  client_id: string;
  app_id: string;
}
