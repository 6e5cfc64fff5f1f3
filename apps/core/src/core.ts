import type { BlobStore, Clock, IdGenerator, PaymentRail, Store } from "@mailpiece/ports";
import { randomIds, systemClock } from "@mailpiece/ports";
import type { CoreConfig } from "./config.ts";
import { defaultCoreConfig } from "./config.ts";
import type { CreateOrderInput, CreateOrderOutcome, OrderContext } from "./create-machine-order.ts";
import { createMachineOrder, getOrderStatus, requestConflict } from "./create-machine-order.ts";
import type { OrderStatusView } from "./order-status.ts";
import type { ValidateOrderOutcome } from "./validate-order.ts";
import { validateOrder } from "./validate-order.ts";

export interface CoreDeps {
  store: Store;
  blobs: BlobStore;
  clock?: Clock;
  ids?: IdGenerator;
  config?: Partial<CoreConfig>;
  /** The payment rails this deployment accepts, by protocol. */
  rails?: { x402?: PaymentRail; mpp?: PaymentRail };
}

export type ValidateInput = { body: unknown; raw?: Uint8Array | string };
export type ValidateOutcome =
  | ValidateOrderOutcome
  | { ok: false; conflict: { code: "request_id_conflict"; message: string }; issues?: undefined };

/** The use cases every surface shares. Surfaces map them to HTTP or JSON-RPC; they add no rules of their own. */
export interface MailpieceCore {
  readonly config: CoreConfig;
  readonly store: Store;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly rails: { x402?: PaymentRail; mpp?: PaymentRail };
  /** Checks a machine order request and quotes it. Changes nothing. */
  validateOrder(input: ValidateInput): Promise<ValidateOutcome>;
  /** Creates or resumes a machine order and takes its payment on the given rail. */
  createOrder(input: CreateOrderInput): Promise<CreateOrderOutcome>;
  /** The status of an order by order_id or any aliased request_id. */
  getOrderStatus(id: string): Promise<OrderStatusView | undefined>;
  close(): Promise<void>;
}

export function createMailpieceCore(deps: CoreDeps): MailpieceCore {
  const config = defaultCoreConfig(deps.config);
  const ctx: OrderContext = {
    store: deps.store,
    blobs: deps.blobs,
    clock: deps.clock ?? systemClock,
    ids: deps.ids ?? randomIds,
    config,
  };
  return {
    ...ctx,
    rails: deps.rails ?? {},
    async validateOrder({ body, raw }) {
      const outcome = await validateOrder(body, config);
      if (outcome.ok && raw !== undefined && (await requestConflict(ctx, outcome.view.request_id, raw))) {
        return {
          ok: false,
          conflict: {
            code: "request_id_conflict",
            message: `request_id ${outcome.view.request_id} was already used with a different body. Use a new request_id for a new mailing.`,
          },
        };
      }
      return outcome;
    },
    createOrder: (input) => createMachineOrder(ctx, input),
    getOrderStatus: (id) => getOrderStatus(ctx, id),
    async close() {
      await Promise.all([deps.store.close(), deps.blobs.close()]);
    },
  };
}
