/**
 * `@mailpiece/forms/packet`: the printable packet of a form. Separate from the package's root entry because it
 * typesets with `@mailpiece/typesetter` (an optional peer dependency): the interpreter needs no typesetter.
 */
export type { PacketOptions } from "./build-packet.ts";
export { buildPacket } from "./build-packet.ts";
export type { Font } from "./page-overlays.ts";
