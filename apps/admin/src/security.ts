import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The shortest admin token accepted: 32 characters. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Printable ASCII without spaces: what travels unchanged in an Authorization header and a form field. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/**
 * Refuses an admin token that is too short or that cannot travel in a header, with a message that says what to set.
 * Undefined and the empty string mean "no admin API".
 */
export function checkAdminToken(token: string | undefined): string | undefined {
  if (token === undefined || token === "") return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it has ${token.length}); make one with \`openssl rand -base64 32\`, or leave it unset to turn the admin API and dashboard off.`,
    );
  }
  if (!TOKEN_CHARACTERS.test(token)) {
    throw new Error(
      "ADMIN_TOKEN must be printable ASCII without spaces, so that it travels unchanged in an Authorization header.",
    );
  }
  return token;
}

export const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
export const sha256Hex = (text: string): string => sha256(text).toString("hex");

/**
 * Whether `given` equals `expected`, in time that depends on neither: both sides are hashed to 32 bytes first, so
 * neither their lengths nor their contents shape the comparison.
 */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  const equal = timingSafeEqual(sha256(given ?? ""), sha256(expected));
  return equal && typeof given === "string";
}

/** 32 random bytes, base64url: session ids and CSRF tokens. */
export const randomToken = (): string => randomBytes(32).toString("base64url");

/** What `randomToken` makes: 43 characters of base64url. */
export const RANDOM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerOf(header: string | null): string | undefined {
  return header === null ? undefined : /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/**
 * Whether a state-changing request comes from the deployment's own pages. A browser's fetch metadata must say
 * same-origin when it is sent; Origin, when it names one, must be the deployment's; a page served with
 * `Referrer-Policy: no-referrer` makes the browser send `Origin: null` and no Referer, and then Sec-Fetch-Site is
 * what vouches. A request that carries none of the three is refused.
 */
export function fromOwnOrigin(headers: Headers, origin: string): boolean {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const sent = headers.get("origin");
  if (sent !== null && sent !== "null") return sent === origin;
  const referer = headers.get("referer");
  if (referer !== null) {
    try {
      return new URL(referer).origin === origin;
    } catch {
      return false;
    }
  }
  return site === "same-origin";
}

/** The headers every admin and dashboard answer carries: not cached, not framed, no referrer, no sniffing. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
};

/** A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/, and Secure on https. */
export function cookieHeader(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** The value of one cookie of the request, or undefined. */
export function cookieOf(headers: Headers, name: string): string | undefined {
  const header = headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
