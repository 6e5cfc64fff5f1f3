import type { Layout } from "./layout.ts";
import { renderHtml } from "./render-html.ts";
import { renderText } from "./render-text.ts";

/** A message ready for the EmailSender port: a one-line subject, a plain-text body and an HTML body. */
export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** Writes a layout as both versions. */
export function renderLayout(layout: Layout): RenderedMessage {
  return { subject: layout.subject, text: renderText(layout), html: renderHtml(layout) };
}
