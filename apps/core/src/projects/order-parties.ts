import {
  type Issue,
  type Party,
  type ProjectsAddress,
  type ProjectsParse,
  parseCreateOrderBody,
} from "@mailpiece/orders";

/** The addresses and metadata of an order request, checked. */
export interface OrderParties {
  recipient: ProjectsAddress;
  /** Absent when the request gave none: checkParties refuses that. */
  sender?: ProjectsAddress;
  metadata: Record<string, string>;
}

/** Where a piece is mailed to and from: the countries its price was made for. */
export interface MailRoute {
  destination: string;
  origin: string;
}

/**
 * A send without a quote (a template or a handwritten send) is checked with the create-order body's own rules for
 * its recipient, sender and metadata; this stands in for the quote_id that such a body would carry.
 */
const NO_QUOTE = "send";

/**
 * The recipient, sender and metadata of a send body, checked exactly as those of POST /letters (address objects
 * of spec 3 with their aliases and name rules, metadata bounds), each issue at its path in the body. Other fields of
 * the body are the caller's to check. Never throws.
 */
export function parseSendParties(body: Record<string, unknown>): ProjectsParse<OrderParties> {
  const parties: Record<string, unknown> = { quote_id: NO_QUOTE };
  for (const field of ["recipient", "sender", "metadata"]) {
    if (Object.hasOwn(body, field)) parties[field] = body[field];
  }
  const parsed = parseCreateOrderBody(parties, {});
  if (!parsed.ok) return parsed;
  const { quote_id: _quote, ...value } = parsed.value;
  return { ok: true, value };
}

/**
 * The issues of addresses that do not fit the route the piece was priced for: the recipient must be in the
 * destination country and the sender, required as the envelope's return address, in the origin country. `priced`
 * names what fixed the route in the messages ("The quote").
 */
export function partyIssues(
  route: MailRoute,
  recipient: ProjectsAddress,
  sender: ProjectsAddress | undefined,
  priced: string,
): Issue[] {
  const issues: Issue[] = [];
  if (recipient.address.countryCode !== route.destination) {
    issues.push({
      path: "recipient.countryCode",
      code: "destination_mismatch",
      message: `${priced} is for mail to ${route.destination}; the recipient is in ${recipient.address.countryCode}.`,
    });
  }
  if (!sender) {
    issues.push({
      path: "sender",
      code: "required",
      message:
        "A sender is required: the envelope's return address (and the origin the piece is priced for).",
    });
  } else if (sender.address.countryCode !== route.origin) {
    issues.push({
      path: "sender.countryCode",
      code: "origin_mismatch",
      message: `${priced} is for mail from ${route.origin}; the sender is in ${sender.address.countryCode}.`,
    });
  }
  return issues;
}

/** A checked address as an order's party. */
export function toParty(address: ProjectsAddress): Party {
  return {
    name: address.name,
    ...(address.company ? { company: address.company } : {}),
    country: address.address.countryCode,
    address: { type: "Manual", ...address.address },
  };
}
