import type { H3Event } from "h3";
import { invalidQuery } from "./errors.ts";

/** The page of a listing: how many items, and where to go on from (a listing's own next_cursor). */
export interface PageQuery {
  limit: number;
  cursor?: string;
}

/** Longest cursor accepted; every cursor this API gives is far shorter. */
export const MAX_CURSOR_LENGTH = 512;

/**
 * The `limit` and `cursor` of a listing's query. limit is a whole number from 1 to `max` (default `fallback`);
 * an empty cursor is no cursor. Throws invalid_query (400) naming the parameter: a limit that is not such a number,
 * a parameter given twice, a cursor that is too long. Whether a cursor is one the listing gave is the use case's
 * to say.
 */
export function pageQuery(event: H3Event, bounds: { fallback: number; max: number }): PageQuery {
  const params = event.url.searchParams;
  for (const name of ["limit", "cursor"]) {
    if (params.getAll(name).length > 1) {
      throw invalidQuery({ path: name, code: "repeated", message: `Give ${name} once.` });
    }
  }
  const rawLimit = params.get("limit");
  let limit = bounds.fallback;
  if (rawLimit !== null) {
    limit = /^[0-9]{1,6}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (!(limit >= 1 && limit <= bounds.max)) {
      throw invalidQuery({
        path: "limit",
        code: "invalid_limit",
        message: `limit must be a whole number from 1 to ${bounds.max}.`,
      });
    }
  }
  const cursor = params.get("cursor") ?? "";
  if (cursor.length > MAX_CURSOR_LENGTH) {
    throw invalidQuery({
      path: "cursor",
      code: "invalid_cursor",
      message: "cursor is not one a listing gave.",
    });
  }
  return cursor === "" ? { limit } : { limit, cursor };
}
