export type { AdminAppOptions } from "./admin-app.ts";
export { createAdminApp } from "./admin-app.ts";
export type { AdminOutbox, AdminOutboxEntry } from "./outbox.ts";
export { MIN_ADMIN_TOKEN_LENGTH } from "./security.ts";
export { SESSION_TTL_MS, SIGN_IN_LIMIT } from "./sessions.ts";
export type { AdminKeyView, AdminWorkspaceView } from "./views.ts";
