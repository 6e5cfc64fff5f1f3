/**
 * The href of `value` when it is an absolute http: or https: URL with a host (the URL as the WHATWG parser writes
 * it, so spaces and the like are percent-encoded); undefined for anything else (a `javascript:` or `data:` URL, a
 * relative path, plain text), which a message prints as text and never as a link.
 */
export function httpHref(value: string): string | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

/** A plain `local@domain` address: a support address like this is a mailto: link, anything else is text. */
export function isPlainEmailAddress(value: string): boolean {
  return /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/.test(value);
}
