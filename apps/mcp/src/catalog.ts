import {
  completeCheckout,
  createFormOrderDraft,
  createLetterOrderDraft,
  createOrderDraft,
} from "./checkout-tools.ts";
import type { ToolDefinition } from "./tools.ts";
import {
  createMachineOrder,
  createPdfUpload,
  getFormSchema,
  getOrderStatus,
  listForms,
  ping,
  searchAddresses,
} from "./tools.ts";

/** Every tool of spec 1, in the order a client lists them. */
export const TOOLS: readonly ToolDefinition[] = [
  listForms,
  getFormSchema,
  createLetterOrderDraft,
  createFormOrderDraft,
  createPdfUpload,
  searchAddresses,
  createOrderDraft,
  createMachineOrder,
  completeCheckout,
  getOrderStatus,
  ping,
];
