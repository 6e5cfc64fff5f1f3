import { createHash } from "node:crypto";
import {
  type Clock,
  EmailError,
  type EmailErrorCode,
  type EmailMessage,
  type EmailMessageProblem,
  type EmailSender,
  emailFingerprint,
  findEmailMessageProblem,
  type SendResult,
} from "@mailpiece/ports";
import type { EmailSenderSubject, ParsedEmail, ReceivedEmail } from "./email-sender-contract.ts";

/** Ways to break the reference sender below, each of which a contract test must catch. */
export type ReferenceEmailFault =
  | "capabilities change"
  | "wall clock"
  | "accepts nobody"
  | "drops reply-to"
  | "alters attachments"
  | "drops custom headers"
  | "message id from content"
  | "sends duplicates"
  | "replays as new"
  | "racy"
  | "ignores conflicts"
  | "forgets on restart"
  | "accepts bad addresses"
  | "allows control characters"
  | "allows empty parts"
  | "no attachment checks"
  | "allows any header"
  | "claims key on refusal"
  | "keeps key after failure"
  | "down is rejected"
  | "temporary is rejected"
  | "permanent is unavailable"
  | "auth is unavailable"
  | "leaks secret";

export const REFERENCE_EMAIL_SECRET = "reference-smtp-password-Zq81";

type ServerState = "up" | "down" | "temporary" | "permanent" | "credentials";

/** What the pretend server answers in each failing state: the right code, and the wrong one a fault gives. */
const REFUSALS: Record<
  Exclude<ServerState, "up">,
  { code: EmailErrorCode; fault: ReferenceEmailFault; wrong: EmailErrorCode; reply: string }
> = {
  down: {
    code: "unavailable",
    fault: "down is rejected",
    wrong: "rejected",
    reply: "the server does not answer",
  },
  temporary: {
    code: "unavailable",
    fault: "temporary is rejected",
    wrong: "rejected",
    reply: "451 try again later",
  },
  permanent: {
    code: "rejected",
    fault: "permanent is unavailable",
    wrong: "unavailable",
    reply: "550 refused",
  },
  credentials: {
    code: "auth_failed",
    fault: "auth is unavailable",
    wrong: "unavailable",
    reply: "535 login refused",
  },
};

/** Problems a fault lets through, by the refused field or the reason. */
function excused(problem: EmailMessageProblem, faults: ReadonlySet<ReferenceEmailFault>): boolean {
  const { field, message } = problem;
  if (message.includes("control characters")) return faults.has("allows control characters");
  if (/address$|^to$|^from$|^key$/.test(field)) return faults.has("accepts bad addresses");
  if (/^(subject|text|html)$/.test(field)) return faults.has("allows empty parts");
  if (field.startsWith("attachments")) return faults.has("no attachment checks");
  if (field.startsWith("headers")) return faults.has("allows any header");
  return false;
}

function received(
  message: EmailMessage,
  messageId: string,
  faults: ReadonlySet<ReferenceEmailFault>,
): ReceivedEmail {
  const list = (mailboxes: EmailMessage["to"]) => ({
    value: mailboxes.map((m) => ({ name: m.name ?? "", address: m.address })),
  });
  const attachments = (message.attachments ?? []).map((a) => {
    const content = new Uint8Array(a.content);
    if (faults.has("alters attachments") && content.length > 0) content[0] = (content[0] ?? 0) ^ 1;
    return { filename: a.filename, contentType: a.contentType, content };
  });
  const headers = new Map<string, unknown>();
  if (!faults.has("drops custom headers")) {
    for (const [name, value] of Object.entries(message.headers ?? {})) headers.set(name.toLowerCase(), value);
  }
  const mail: ParsedEmail = {
    messageId,
    from: list([message.from]),
    to: list(message.to),
    replyTo: message.replyTo && !faults.has("drops reply-to") ? list([message.replyTo]) : undefined,
    subject: message.subject,
    text: message.text,
    html: message.html,
    attachments,
    headers,
  };
  return { mail, envelopeTo: message.to.map((m) => m.address) };
}

/**
 * A deliberately plain in-memory sender with a pretend server: correct without faults, and broken in one way per
 * fault. Its records of used keys live in the subject, so `restart` opens a new sender on them (unless it forgets).
 */
export function referenceEmailSubject(
  clock: Clock,
  faults: ReadonlySet<ReferenceEmailFault> = new Set(),
): EmailSenderSubject {
  const inbox: ReceivedEmail[] = [];
  let records = new Map<string, { fingerprint: string; result: SendResult }>();
  let server: ServerState = "up";

  const serverRefusal = (): EmailError | undefined => {
    if (server === "up") return undefined;
    const { code, fault, wrong, reply } = REFUSALS[server];
    const leak =
      server === "credentials" && faults.has("leaks secret") ? ` for ${REFERENCE_EMAIL_SECRET}` : "";
    return new EmailError(faults.has(fault) ? wrong : code, `${reply}${leak}`);
  };

  const open = (): EmailSender => {
    const chains = new Map<string, Promise<unknown>>();
    let sends = 0;

    const sendNow = async (message: EmailMessage): Promise<SendResult> => {
      const problem = findEmailMessageProblem(message);
      if (problem && !excused(problem, faults)) {
        if (faults.has("claims key on refusal") && typeof message.key === "string") {
          records.set(message.key, {
            fingerprint: "refused",
            result: {
              key: message.key,
              message_id: "<refused@reference.test>",
              accepted: [],
              sent_at: "",
              duplicate: false,
            },
          });
        }
        throw new EmailError("invalid_message", problem.message, { field: problem.field });
      }
      // A racy sender looks its key up before it awaits anything, so that concurrent sends all miss it.
      const seenAtStart = records.get(message.key);
      const fingerprint = await emailFingerprint(message);
      const existing = faults.has("racy") ? seenAtStart : records.get(message.key);
      if (existing && !faults.has("sends duplicates")) {
        if (existing.fingerprint !== fingerprint && !faults.has("ignores conflicts")) {
          throw new EmailError("key_conflict", "this key was used for another message");
        }
        return { ...existing.result, duplicate: !faults.has("replays as new") };
      }
      const messageId = `<${createHash("sha256")
        .update(faults.has("message id from content") ? fingerprint : message.key)
        .digest("hex")
        .slice(0, 32)}@reference.test>`;
      const result: SendResult = {
        key: message.key,
        message_id: messageId,
        accepted: faults.has("accepts nobody") ? [] : message.to.map((m) => m.address),
        sent_at: new Date(faults.has("wall clock") ? Date.now() : clock.now()).toISOString(),
        duplicate: false,
      };
      if (faults.has("keeps key after failure")) records.set(message.key, { fingerprint, result });
      const refusal = serverRefusal();
      if (refusal) throw refusal;
      inbox.push(received(message, messageId, faults));
      records.set(message.key, { fingerprint, result });
      sends += 1;
      return result;
    };

    return {
      name: "reference",
      get capabilities() {
        return { durable: true, delivers: !(faults.has("capabilities change") && sends > 0) };
      },
      send(message) {
        if (faults.has("racy")) return sendNow(message);
        const key = String(message?.key);
        const previous = chains.get(key) ?? Promise.resolve();
        const mine = previous.then(() => sendNow(message));
        chains.set(
          key,
          mine.catch(() => undefined),
        );
        return mine;
      },
      async close() {},
    };
  };

  const setServer = (state: ServerState) => async () => {
    server = state;
  };

  return {
    sender: open(),
    inbox: async () => [...inbox],
    async restart() {
      if (faults.has("forgets on restart")) records = new Map();
      return open();
    },
    faults: {
      down: setServer("down"),
      refuseTemporarily: setServer("temporary"),
      refusePermanently: setServer("permanent"),
      refuseCredentials: setServer("credentials"),
      restore: setServer("up"),
    },
    secrets: [REFERENCE_EMAIL_SECRET],
  };
}
