import type { Issue } from "@mailpiece/errors";
import type { Principal } from "../workspaces/workspaces.ts";

/** The kinds of mail a draft can hold (spec 3): each is the body of one send endpoint. */
export const DRAFT_TYPE_NAMES = ["letter", "postcard", "template", "handwritten"] as const;

export type DraftTypeName = (typeof DRAFT_TYPE_NAMES)[number];

/** A send body as a draft keeps it: the JSON object of the type's send endpoint, as the client gave it. */
export type SendBody = Record<string, unknown>;

/** What a send of a draft's body costs now. */
export interface DraftPrice {
  price_cents: number;
  currency: "usd";
  /** The quote the price comes from, when the type prices by quotes. */
  quote_id: string | null;
  /** When that price stops holding (epoch ms); null when it does not expire. */
  quote_expires_at: number | null;
}

/** What a send answers: the order it made, or found again for the same idempotency key. */
export interface DraftOrder {
  readonly id: string;
  readonly idempotent_replay: boolean;
}

/**
 * One kind of draftable mail: how its send body is checked, priced and sent. Every function works in the
 * principal's workspace and mode; none spends anything except `send`.
 */
export interface DraftType {
  /**
   * The problems of a send body, each at the path of its field in the body (empty when it can be saved). Changes
   * nothing. A body with no problems can be priced.
   */
  validate(principal: Principal, body: SendBody): Promise<readonly Issue[]>;
  /** The price of a body without problems. */
  price(principal: Principal, body: SendBody): Promise<DraftPrice>;
  /**
   * The body with a new quote of the same options (a refresh). Absent: a refresh prices the same body again.
   * Throws validation_failed when the body can no longer be quoted.
   */
  requote?(principal: Principal, body: SendBody): Promise<SendBody>;
  /**
   * The body as it is saved, once it has no problems: what it leaves to be decided at send time fixed now (a
   * template's version), so that the revision a person approves is the one that is sent. Absent: saved as given.
   */
  pin?(principal: Principal, body: SendBody): Promise<SendBody>;
  /**
   * Sends the body once per idempotency key: the same key and body answer the same order (idempotent_replay), and
   * a refused send (validation_failed, insufficient_credits) spends nothing.
   */
  send(principal: Principal, body: SendBody, idempotencyKey: string): Promise<DraftOrder>;
}

/** The draft types a deployment offers, by name. */
export interface DraftTypes {
  /** Offers drafts of `name`; registering a name again replaces its type. */
  register(name: DraftTypeName, type: DraftType): void;
  get(name: string): DraftType | undefined;
  /** The names registered, in the order of DRAFT_TYPE_NAMES. */
  names(): DraftTypeName[];
}

export function createDraftTypes(): DraftTypes {
  const registered = new Map<DraftTypeName, DraftType>();
  return {
    register(name, type) {
      if (!DRAFT_TYPE_NAMES.includes(name)) throw new TypeError(`${String(name)} is not a draft type name.`);
      registered.set(name, type);
    },
    get: (name) => registered.get(name as DraftTypeName),
    names: () => DRAFT_TYPE_NAMES.filter((name) => registered.has(name)),
  };
}
