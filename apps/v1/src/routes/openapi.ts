import { RESPONSE_HEADERS } from "../errors.ts";
import { v1OpenApi } from "../openapi.ts";
import type { RouteContext } from "../route.ts";

/**
 * The description (GET /api/v1/openapi.json): the OpenAPI 3.1.0 document of every route of this API, public like
 * the route table itself, so that a client or a generator reads it without a key. Made once, when first asked.
 */
export function openApiRoutes({ core, publicUrl, publicRoute }: RouteContext): void {
  let text: string | undefined;
  publicRoute("GET", "/openapi.json", () => {
    text ??= JSON.stringify(v1OpenApi({ publicUrl, limits: core.config }));
    return new Response(text, { headers: { ...RESPONSE_HEADERS, "content-type": "application/json" } });
  });
}
