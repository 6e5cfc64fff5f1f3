import Type, { type Static } from "typebox";
import { base64Chars, MAX_PDF_BYTES } from "./limits.ts";

const PdfString = Type.String({
  minLength: 1,
  maxLength: base64Chars(MAX_PDF_BYTES) + 256,
  description:
    "A data:application/pdf;base64 URL, or an HTTPS download URL on an allowlisted host. A data URL travels inside the JSON body, so the server's body limit bounds it (base64 makes a PDF a third larger: 64 MiB of JSON carries about 48 MB of PDF); send larger PDFs, up to 100 MB, with an upload_token.",
});

const PdfUploadToken = Type.Object(
  {
    upload_token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: "Token of a PDF uploaded beforehand (see create_pdf_upload). 1 to 512 characters.",
    }),
  },
  {
    additionalProperties: false,
    description: "A PDF uploaded beforehand; the preferred form. No other properties.",
  },
);

const PdfDownload = Type.Object(
  {
    download_url: Type.String({
      format: "uri",
      pattern: "^https://",
      maxLength: 2048,
      description:
        "HTTPS URL on an allowlisted host, reachable without auth headers. At most 2048 characters.",
    }),
    file_id: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "The file's id at its source. 1 to 256 characters.",
    }),
  },
  { additionalProperties: true, description: "A PDF the service downloads. Extra properties are allowed." },
);

/** `pdf`: a PDF as a data URL or HTTPS URL string, an upload token, or a download reference. */
export const PdfSource = Type.Union([PdfString, PdfUploadToken, PdfDownload], {
  title: "PdfSource",
  description:
    "One of: (a) a string, a data:application/pdf;base64 URL or an allowlisted HTTPS download URL; (b) {upload_token}, the preferred form; (c) {download_url, file_id}. For postcards the PDF is the fully composed 2-page postcard.",
});

export type PdfSource = Static<typeof PdfSource>;
