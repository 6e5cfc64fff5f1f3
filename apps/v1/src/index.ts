// The Projects API (spec 3) at /api/v1: createV1App and what route modules, hosts and the test-mode drafts at /v1/test
// (@mailpiece/test-drafts, which answer with these errors) need around it.

export { MAX_JSON_BODY_BYTES, readJsonBody } from "./body.ts";
export type { V1ErrorBody, V1ErrorCode, V1ErrorOptions, V1ErrorScope, V1FallbackMessages } from "./errors.ts";
export { errorResponse, RESPONSE_HEADERS, STATUS_TABLE, toV1Error, V1Error } from "./errors.ts";
export type { V1OpenApiOptions } from "./openapi.ts";
export { V1_SECURITY_SCHEME, v1OpenApi } from "./openapi.ts";
export { mergeV1OpenApi } from "./openapi-merge.ts";
export type { RouteContext, V1Handler, V1Method } from "./route.ts";
export type { V1AppOptions, V1Route } from "./v1-app.ts";
export { createV1App, listV1Routes, V1_BASE, V1_DEFAULTS } from "./v1-app.ts";
