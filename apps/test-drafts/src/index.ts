// The test-mode draft endpoints of spec 3 at /v1/test: createTestDraftsApp and what hosts need around it.

export type { TestDraftsErrorCode } from "./errors.ts";
export { TEST_DRAFTS_CODES } from "./errors.ts";
export type { CreateInput, DraftAnswer, PieceAnswer, TestDraftsService } from "./service.ts";
export type { TestDraftsAppOptions } from "./test-drafts-app.ts";
export { createTestDraftsApp, TEST_DRAFTS_BASE, TEST_DRAFTS_DEFAULTS } from "./test-drafts-app.ts";
