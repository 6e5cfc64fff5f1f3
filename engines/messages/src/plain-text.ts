import { MESSAGE_LIMITS } from "./limits.ts";

/** True for a C0 control (tab, CR and LF among them), DEL, a C1 control, or a line or paragraph separator. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** True when `text` holds a control character (`isControl`). */
export function hasControl(text: string): boolean {
  for (let at = 0; at < text.length; at++) if (isControl(text.charCodeAt(at))) return true;
  return false;
}

/** Runs of white space (spaces, no-break spaces and the like). */
const SPACES = /\s+/g;

/**
 * `text` as one line: every control character (CR and LF among them) and every run of white space becomes one
 * space, and spaces at either end go. Every value a message prints passes through here, so no value can start a
 * line of its own or hide characters in a mail client.
 */
export function oneLine(text: string): string {
  let spaced = "";
  for (let at = 0; at < text.length; at++) {
    spaced += isControl(text.charCodeAt(at)) ? " " : text[at];
  }
  return spaced.replace(SPACES, " ").trim();
}

/**
 * A subject the EmailSender port accepts: on one line (`oneLine`) and at most `MESSAGE_LIMITS.subject_chars`
 * UTF-16 units, cut between characters (never inside a surrogate pair) and without a trailing space.
 */
export function toSubject(text: string): string {
  const line = oneLine(text);
  if (line.length <= MESSAGE_LIMITS.subject_chars) return line;
  let cut = line.slice(0, MESSAGE_LIMITS.subject_chars);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut.trimEnd();
}
