/** Where and how to reach the SMTP server, from an SMTP URL. */
export interface SmtpEndpoint {
  host: string;
  port: number;
  /** True for `smtps:` (TLS from the first byte); false for `smtp:` (STARTTLS). */
  implicitTls: boolean;
  /** Absent when the URL carries no credentials. */
  auth?: { user: string; pass: string };
}

const DEFAULT_PORTS = { "smtp:": 587, "smtps:": 465 } as const;

/**
 * Reads `smtp://user:pass@host:587` (STARTTLS) or `smtps://user:pass@host:465` (implicit TLS); user and password
 * are percent-decoded, the port defaults to 587 or 465. Throws a TypeError that never repeats the URL or the
 * password for anything else: another scheme, no host, a path, a query or a fragment.
 */
export function parseSmtpUrl(value: string): SmtpEndpoint {
  if (typeof value !== "string" || value.trim() === "") throw new TypeError("the SMTP URL is missing");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError("the SMTP URL is not a URL (expected smtp://user:pass@host:587 or smtps://…:465)");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new TypeError(`the SMTP URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  }
  if (url.hostname === "") throw new TypeError("the SMTP URL names no host");
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    throw new TypeError("the SMTP URL must not carry a path, a query or a fragment");
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const endpoint: SmtpEndpoint = { host, port, implicitTls: url.protocol === "smtps:" };
  if (url.username !== "" || url.password !== "") {
    let user: string;
    let pass: string;
    try {
      user = decodeURIComponent(url.username);
      pass = decodeURIComponent(url.password);
    } catch {
      throw new TypeError("the SMTP URL's user or password is not valid percent-encoding");
    }
    if (user === "") throw new TypeError("the SMTP URL has a password but no user");
    endpoint.auth = { user, pass };
  }
  return endpoint;
}

/**
 * Every form in which the endpoint's password could show up in text: as given, percent-encoded as in the URL, and
 * base64-encoded as AUTH LOGIN and AUTH PLAIN send it. Empty when there is no password.
 */
export function secretForms(endpoint: SmtpEndpoint, url: string): string[] {
  const auth = endpoint.auth;
  if (!auth || auth.pass === "") return [];
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const forms = new Set([
    auth.pass,
    encodeURIComponent(auth.pass),
    b64(auth.pass),
    b64(`\u0000${auth.user}\u0000${auth.pass}`),
    url,
  ]);
  const inUrl = /^[a-z]+:\/\/[^:@/]*:([^@/]*)@/i.exec(url)?.[1];
  if (inUrl) forms.add(inUrl);
  return [...forms].filter((form) => form.length > 0);
}

/** `text` with every secret form replaced by `[redacted]`, longest first. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    out = out.split(secret).join("[redacted]");
  return out;
}
