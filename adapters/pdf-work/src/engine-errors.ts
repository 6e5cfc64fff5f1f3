import { FormsError } from "@mailpiece/forms";
import { PostcardError } from "@mailpiece/postcard/light";
import { TypesetterError } from "@mailpiece/typesetter/light";
import type { WireError } from "./wire-error.ts";

/**
 * Rebuilds an engine error sent by a worker with the engine's own constructor, so that `TypesetterError.isInstance`
 * (and the like) holds with the same code, field, issues and message. Anything else becomes a plain Error with the
 * message.
 */
export function fromWireError(wire: WireError): Error {
  switch (wire.kind) {
    case "typesetter":
      return new TypesetterError(
        wire.code,
        wire.message,
        wire.field === undefined ? {} : { field: wire.field },
      );
    case "postcard":
      return new PostcardError(
        wire.code,
        wire.message,
        wire.field === undefined ? {} : { field: wire.field },
      );
    case "forms":
      return new FormsError(wire.code, wire.message, { issues: wire.issues });
    default:
      return new Error(wire.message);
  }
}
