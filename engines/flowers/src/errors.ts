import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of FlowersError.
 * - `flower_letter_invalid`: `parseFlowerLetterRequest` found problems; `issues` lists every one.
 * - `invalid_bounds`: quote bounds are malformed (operator configuration).
 * - `invalid_amount`: an amount is not an integer number of cents.
 */
export type FlowersErrorCode = "flower_letter_invalid" | "invalid_bounds" | "invalid_amount";

/** The one error class of the flowers package. `code` is a stable wire contract; `message` is for people. */
export class FlowersError extends defineError<FlowersErrorCode>("FlowersError") {}
