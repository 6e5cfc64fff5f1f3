import { EmailError, type EmailErrorCode } from "@mailpiece/ports";
import { redact } from "./smtp-url.ts";

/** How a failed send ended: the port's code, and whether the message certainly did not go out. */
export interface SmtpFailure {
  error: EmailError;
  /** True when nothing was sent: the key can be freed. False when the outcome is unknown. */
  definite: boolean;
}

/** Commands that open a session, before any message is named: a refusal of them is not a refusal of the message. */
const SESSION_COMMANDS = new Set(["CONN", "EHLO", "HELO", "LHLO", "STARTTLS"]);

interface NodemailerFailure {
  code?: unknown;
  responseCode?: unknown;
  command?: unknown;
  message?: unknown;
}

/**
 * Maps a nodemailer failure onto the port. A reply from the server decides: to AUTH, 5xx is `auth_failed` and 4xx
 * `unavailable`; to the greeting, EHLO or STARTTLS, `unavailable` (the session, not the message, was refused); to
 * the envelope or the message, 5xx is `rejected` and 4xx `unavailable`. Each of them certainly sent nothing.
 * Without a reply (refused or lost connections, timeouts, TLS failures) it is `unavailable`, and certain only when
 * the message had not begun to be handed over (`handedOver`). The message names the server and what failed, with
 * every secret form redacted; nodemailer's error is not kept as the cause, since it may carry the conversation.
 */
export function classifySmtpFailure(
  failure: unknown,
  context: { server: string; handedOver: boolean; secrets: readonly string[] },
): SmtpFailure {
  const f = (typeof failure === "object" && failure !== null ? failure : {}) as NodemailerFailure;
  const code = typeof f.code === "string" ? f.code : "";
  const command = typeof f.command === "string" ? f.command : "";
  const reply = typeof f.responseCode === "number" ? f.responseCode : undefined;
  const said = redact(typeof f.message === "string" ? f.message : String(failure), context.secrets).slice(
    0,
    500,
  );
  const make = (port: EmailErrorCode, what: string, definite: boolean): SmtpFailure => ({
    error: new EmailError(port, `the SMTP server ${context.server} ${what}: ${said}`),
    definite,
  });
  const auth = command.startsWith("AUTH") || code === "EAUTH" || code === "ENOAUTH";
  if (auth) {
    return reply !== undefined && reply < 500
      ? make("unavailable", "refused the login for now", true)
      : make("auth_failed", "refused the credentials; nothing was sent", true);
  }
  const session = code === "ETLS" || SESSION_COMMANDS.has(command);
  if (session && reply !== undefined)
    return make("unavailable", "refused the session; nothing was sent", true);
  if (reply !== undefined && reply >= 500) return make("rejected", "refused the message for good", true);
  if (reply !== undefined && reply >= 400) return make("unavailable", "refused the message for now", true);
  if (code === "EMESSAGE" || code === "EENVELOPE") return make("rejected", "cannot take the message", true);
  if (!context.handedOver) return make("unavailable", "could not be reached; nothing was sent", true);
  return make("unavailable", "did not confirm the message; whether it was sent is not known", false);
}
