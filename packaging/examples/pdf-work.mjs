// @mailpiece/pdf-work: a letter typeset and read back in a worker thread that runs the built JavaScript.
import { createPdfWorkerPool } from "@mailpiece/pdf-work";

const render = { font: "helvetica", font_size: 11, margin_in: 1, paper: "letter" };
const pdfWork = createPdfWorkerPool({ threads: 1 });
try {
  const letter = await pdfWork.typesetLetter({
    body: "Hello from a worker.",
    format: "text",
    render,
    date: "2026-11-24",
  });
  console.log(letter.page_count); // → 1
  console.log(JSON.stringify(await pdfWork.inspectPdf(letter.pdf))); // → {"page_count":1,"pages":[{"width_pt":612,"height_pt":792}],"encrypted":false}
  try {
    await pdfWork.typesetLetter({ body: "Hello", format: "text", render: { ...render, font: "comic" } });
  } catch (error) {
    console.log(error.name, error.code, error.field); // → TypesetterError invalid_letter_input render
  }
} finally {
  await pdfWork.close();
}
