// The orders domain as the other domains see it: one interface, built once in domains.ts and
// reached through `ctx.deps.domains.orders` (reporting reads an order's payer, shipping and cart).

import type { ServiceContext } from '../core/deps.js';
import type { Order } from './present.js';
import { getOrder } from './service.js';

export interface OrdersApi {
  /** The order resource as GET /v2/checkout/orders/{id} answers it; refuses an unknown id (404). */
  getOrder(ctx: ServiceContext, orderId: string): Promise<Order>;
}

export function createOrdersApi(): OrdersApi {
  return { getOrder };
}

export type { Order };
