import { portRequirement, type Requirement } from "../kit.ts";
import type { EmailSenderContractName } from "./email-sender-contract.ts";

const port = (section: string, sentence: string) => portRequirement("EmailSender", section, sentence);

const REFUSED = port(
  "Refusals before sending",
  "A message `findEmailMessageProblem` finds a problem in MUST be refused with `invalid_message` naming the field at fault in `field`, before anything is sent",
);
const UNAVAILABLE = port(
  "Failures",
  "A server that cannot be reached or does not answer, or that refuses temporarily (an SMTP 4xx reply), MUST be `unavailable`, sending nothing; a later `send` under the same key MUST then send the message once.",
);

/** The MUST sentence of the EmailSender port (adapters/ports/src/email-sender.ts) that each test checks. */
export const EMAIL_SENDER_REQUIREMENTS: Readonly<Record<EmailSenderContractName, Requirement>> = {
  "capabilities are declared and constant": port(
    "Capabilities",
    "`capabilities` MUST be declared when the sender is made (`durable`, `delivers`) and MUST NOT change during its life.",
  ),
  "send answers the key, the message_id, every recipient accepted, sent_at from the clock and duplicate false":
    port(
      "Sending",
      "`send` MUST send the message, answering its `key`, a non-empty `message_id` (the message's Message-ID header), `accepted` (the recipients' addresses the server took, each of `to`), `sent_at` (an ISO 8601 time in UTC from the sender's clock) and `duplicate: false`.",
    ),
  "the message sent carries the sender, recipients, reply-to, subject, both bodies, attachments byte for byte and custom headers":
    port(
      "Sending",
      "The message sent MUST carry the sender, every recipient, the reply-to address, the subject, the text and html bodies, every attachment with its filename, content type and bytes unchanged, and every custom header.",
    ),
  "different keys send different messages with different message_ids": port(
    "Sending",
    "Different keys MUST give different messages with different `message_id`s.",
  ),
  "a second send under a used key answers the first result as a duplicate and sends nothing": port(
    "Once per key",
    "A second `send` with a key already sent MUST answer the first result with `duplicate: true` and send nothing.",
  ),
  "concurrent sends of one message under one key send it once": port(
    "Once per key",
    "Under any number of concurrent `send`s of one message under one key in one process, the message MUST be sent once: exactly one caller is answered `duplicate: false`, and every caller gets the same `message_id`.",
  ),
  "a different message under a used key is refused with key_conflict, sending nothing": port(
    "Once per key",
    "A `send` of a different message under a key already used MUST be refused with `key_conflict`, sending nothing.",
  ),
  "durable: used keys survive a restart": port(
    "Once per key",
    "An adapter that declares `durable: true` MUST keep every used key across a restart: after it, a `send` with a used key answers the first result as a duplicate and sends nothing.",
  ),
  "malformed addresses, recipient lists and keys are refused with invalid_message naming the field": REFUSED,
  "CR, LF or other control characters in the subject, a name, a filename or a header value are refused with invalid_message":
    REFUSED,
  "an empty subject, text or html is refused with invalid_message naming the field": REFUSED,
  "oversized, too many or malformed attachments are refused with invalid_message naming the field": REFUSED,
  "unsafe or malformed custom headers are refused with invalid_message naming the field": REFUSED,
  "a refused send leaves its key free": port(
    "Refusals before sending",
    "A refused `send` MUST leave its key as it was (free when it was free), whatever its code, unless the outcome of the send is unknown (below).",
  ),
  "a server that is down is unavailable, and the retry under the same key sends once": UNAVAILABLE,
  "a temporary refusal (4xx) is unavailable, and the retry under the same key sends once": UNAVAILABLE,
  "a permanent refusal (5xx) is rejected, sending nothing": port(
    "Failures",
    "A permanent refusal (an SMTP 5xx reply to the envelope or the message) MUST be `rejected`, sending nothing.",
  ),
  "refused credentials are auth_failed, sending nothing": port(
    "Failures",
    "A refusal of the sender's own credentials MUST be `auth_failed`, sending nothing.",
  ),
  "errors are EmailErrors with a code of the port and a reason, and carry no secret": port(
    "Failures",
    "Every failure MUST be an `EmailError` with a code of `EmailErrorCode` and a message that says why, and no error MUST carry a secret of the adapter's configuration (a password in an SMTP URL), in its message, its properties or its causes.",
  ),
};
