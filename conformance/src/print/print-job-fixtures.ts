import { createHash } from "node:crypto";
import {
  capabilityGap,
  findPrintJobProblem,
  type PostcardSize,
  type PrintAddress,
  type PrintCapabilities,
  type PrintDocument,
  type PrintJob,
  RETURN_RECEIPT_FORMATS,
  type ReturnReceiptFormat,
} from "@mailpiece/ports";
import { makePdf } from "../machine/fixtures.ts";

/** Well-formed addresses for the countries Mailpiece mails to; other countries get a generic one. */
const ADDRESSES: Record<string, Omit<PrintAddress, "name" | "country">> = {
  US: { line1: "1600 Pennsylvania Ave NW", city: "Washington", state: "DC", postal_code: "20500" },
  CA: { line1: "111 Wellington St", city: "Ottawa", state: "ON", postal_code: "K1A 0A9" },
  AT: { line1: "Stephansplatz 3", city: "Wien", postal_code: "1010" },
  BE: { line1: "Grand-Place 1", city: "Bruxelles", postal_code: "1000" },
  CH: { line1: "Bundesplatz 3", city: "Bern", postal_code: "3005" },
  DE: { line1: "Platz der Republik 1", city: "Berlin", postal_code: "11011" },
  ES: { line1: "Plaza de la Villa 5", city: "Madrid", postal_code: "28005" },
  FR: { line1: "29 Rue de Rivoli", city: "Paris", postal_code: "75004" },
  GB: { line1: "10 Downing Street", city: "London", postal_code: "SW1A 2AA" },
  IN: { line1: "Rajpath", city: "New Delhi", state: "DL", postal_code: "110004" },
  LU: { line1: "2 Place Guillaume II", city: "Luxembourg", postal_code: "1648" },
  NL: { line1: "Dam 1", city: "Amsterdam", postal_code: "1012 JS" },
};

export function addressIn(country: string, name = "Grace Recipient"): PrintAddress {
  const known = ADDRESSES[country] ?? { line1: "1 Main Street", city: "Capital", postal_code: "10001" };
  return { name, ...known, country };
}

/** Bleed canvases of the postcard sizes, in points (6.25 x 4.25 in, 9.25 x 6.25 in, 11.25 x 6.25 in). */
const POSTCARD_CANVAS: Record<PostcardSize, [number, number]> = {
  "4x6": [450, 306],
  "6x9": [666, 450],
  "11x6": [810, 450],
};

const documents = new Map<string, Promise<PrintDocument>>();

function documentOf(key: string, make: () => Promise<Uint8Array>): Promise<PrintDocument> {
  let doc = documents.get(key);
  if (!doc) {
    doc = make().then((bytes) => ({
      bytes,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      page_count: key === "letter" ? 1 : 2,
    }));
    documents.set(key, doc);
  }
  return doc;
}

/** A one-page US Letter PDF. */
export function letterDocument(): Promise<PrintDocument> {
  return documentOf("letter", () => makePdf(1));
}

/** A two-page postcard PDF on the size's bleed canvas: front, then the mailing side. */
export function postcardDocument(size: PostcardSize): Promise<PrintDocument> {
  return documentOf(`postcard:${size}`, () => makePdf(2, POSTCARD_CANVAS[size]));
}

/** A black-and-white standard letter from `from` to an address in `country`. */
export async function letterJob(
  country: string,
  overrides: Partial<PrintJob> = {},
  from: string = country,
): Promise<PrintJob> {
  return {
    mailpiece_type: "letter",
    postcard_size: null,
    document: await letterDocument(),
    recipient: addressIn(country),
    sender: addressIn(from, "Ada Sender"),
    mail_class: "standard",
    color: false,
    double_sided: true,
    certified: false,
    ...overrides,
  };
}

/**
 * A handwritten piece from `from` to an address in `country`: standard mail without proof of mailing, its document
 * the one-page proof the handwriting machine writes from.
 */
export async function handwrittenJob(country: string, from: string = country): Promise<PrintJob> {
  return {
    mailpiece_type: "handwritten",
    postcard_size: null,
    document: await letterDocument(),
    recipient: addressIn(country),
    sender: addressIn(from, "Ada Sender"),
    mail_class: "standard",
    color: false,
    double_sided: false,
    certified: false,
  };
}

/** A certified letter at home in `country` with a return receipt of `format`. */
export function receiptLetterJob(
  country: string,
  format: ReturnReceiptFormat,
  overrides: Partial<PrintJob> = {},
): Promise<PrintJob> {
  return letterJob(country, {
    certified: true,
    certified_return_receipt: true,
    return_receipt_format: format,
    ...overrides,
  });
}

/** A postcard of `size` to an address in `country`, with a return address in `from` (null for none). */
export async function postcardJob(
  country: string,
  size: PostcardSize,
  from: string | null,
): Promise<PrintJob> {
  return {
    mailpiece_type: "postcard",
    postcard_size: size,
    document: await postcardDocument(size),
    recipient: addressIn(country),
    sender: from === null ? null : addressIn(from, "Ada Sender"),
    mail_class: "standard",
    color: true,
    double_sided: true,
    certified: false,
  };
}

/** A labelled job. */
export interface JobCase {
  label: string;
  job: PrintJob;
}

/** Jobs that exercise each declared capability; every one is well-formed and carried by `capabilities`. */
export async function carriedJobs(capabilities: PrintCapabilities): Promise<JobCase[]> {
  const home = capabilities.origin_country;
  const abroad = capabilities.countries.filter((c) => c !== home);
  const domestic = capabilities.countries.includes(home);
  const sides = capabilities.double_sided;
  const cases: JobCase[] = [];
  for (const country of capabilities.countries) {
    cases.push({
      label: `a letter to ${country}`,
      job: await letterJob(country, { double_sided: sides }, home),
    });
  }
  const anywhere = domestic ? home : abroad[0];
  if (anywhere !== undefined) {
    cases.push({
      label: "a single-sided letter",
      job: await letterJob(anywhere, { double_sided: false }, home),
    });
    if (capabilities.color) {
      cases.push({
        label: "a color letter",
        job: await letterJob(anywhere, { color: true, double_sided: sides }, home),
      });
    }
    for (const mail_class of capabilities.mail_classes) {
      cases.push({
        label: `a ${mail_class} letter`,
        job: await letterJob(anywhere, { mail_class, double_sided: sides }, home),
      });
    }
  }
  if (domestic && capabilities.certified) {
    cases.push({
      label: "a certified letter",
      job: await letterJob(home, { certified: true, double_sided: sides }),
    });
    for (const format of capabilities.return_receipts ?? []) {
      cases.push({
        label: `a certified letter with a ${format} return receipt`,
        job: await receiptLetterJob(home, format, { double_sided: sides }),
      });
    }
  }
  if (capabilities.mailpiece_types.includes("handwritten")) {
    for (const country of [domestic ? home : undefined, abroad[0]]) {
      if (country !== undefined) {
        cases.push({ label: `a handwritten piece to ${country}`, job: await handwrittenJob(country, home) });
      }
    }
  }
  for (const country of capabilities.registered) {
    cases.push({
      label: `a registered letter to ${country}`,
      job: await letterJob(country, { certified: true, double_sided: sides }, home),
    });
  }
  for (const size of capabilities.postcard_sizes) {
    if (domestic)
      cases.push({ label: `a ${size} postcard at home`, job: await postcardJob(home, size, home) });
  }
  const international = capabilities.international_postcards;
  const foreign = abroad[0];
  if (international && foreign !== undefined) {
    for (const size of international.sizes) {
      cases.push({
        label: `a ${size} postcard abroad with a return address at home`,
        job: await postcardJob(foreign, size, home),
      });
      if (international.return_address === "any") {
        cases.push({
          label: `a ${size} postcard abroad with a foreign return address`,
          job: await postcardJob(foreign, size, foreign),
        });
        cases.push({
          label: `a ${size} postcard abroad without a return address`,
          job: await postcardJob(foreign, size, null),
        });
      }
    }
  }
  return cases.filter(
    (c) => findPrintJobProblem(c.job) === undefined && capabilityGap(capabilities, c.job) === undefined,
  );
}

const FAR_AWAY = ["AQ", "BV", "HM", "TF", "UM"];
const ALL_SIZES: PostcardSize[] = ["4x6", "6x9", "11x6"];

/** Well-formed jobs `capabilities` do not carry: one per undeclared capability. */
export async function uncarriedJobs(capabilities: PrintCapabilities): Promise<JobCase[]> {
  const home = capabilities.origin_country;
  const target = capabilities.countries.includes(home) ? home : (capabilities.countries[0] ?? home);
  const abroad = capabilities.countries.find((c) => c !== home);
  const cases: JobCase[] = [];
  const nowhere = FAR_AWAY.find((c) => !capabilities.countries.includes(c));
  if (nowhere) cases.push({ label: `a letter to ${nowhere}`, job: await letterJob(nowhere, {}, home) });
  if (!capabilities.mailpiece_types.includes("letter")) {
    cases.push({ label: "a letter", job: await letterJob(target, {}, home) });
  }
  if (!capabilities.mailpiece_types.includes("handwritten")) {
    cases.push({ label: "a handwritten piece", job: await handwrittenJob(target, home) });
  }
  for (const mail_class of ["priority", "express"] as const) {
    if (!capabilities.mail_classes.includes(mail_class)) {
      cases.push({ label: `a ${mail_class} letter`, job: await letterJob(target, { mail_class }, home) });
    }
  }
  if (!capabilities.color) {
    cases.push({ label: "a color letter", job: await letterJob(target, { color: true }, home) });
  }
  if (!capabilities.double_sided) {
    cases.push({
      label: "a double-sided letter",
      job: await letterJob(target, { double_sided: true }, home),
    });
  }
  if (!capabilities.certified) {
    cases.push({
      label: "a certified letter at home",
      job: await letterJob(home, { certified: true }, home),
    });
  }
  for (const format of RETURN_RECEIPT_FORMATS) {
    if (!(capabilities.return_receipts ?? []).includes(format)) {
      cases.push({
        label: `a certified letter with a ${format} return receipt`,
        job: await receiptLetterJob(home, format),
      });
    }
  }
  const registered = capabilities.registered[0];
  if (registered !== undefined) {
    cases.push({
      label: `a registered letter to ${registered} with a return receipt`,
      job: await letterJob(registered, { certified: true, certified_return_receipt: true }, home),
    });
  }
  const unregistered = capabilities.countries.find((c) => c !== home && !capabilities.registered.includes(c));
  if (unregistered) {
    cases.push({
      label: `a registered letter to ${unregistered}`,
      job: await letterJob(unregistered, { certified: true }, home),
    });
  }
  for (const size of ALL_SIZES) {
    if (!capabilities.postcard_sizes.includes(size)) {
      cases.push({ label: `a ${size} postcard`, job: await postcardJob(target, size, home) });
    }
  }
  const international = capabilities.international_postcards;
  if (abroad !== undefined) {
    for (const size of ALL_SIZES) {
      if (international === null || !international.sizes.includes(size)) {
        cases.push({ label: `a ${size} postcard abroad`, job: await postcardJob(abroad, size, home) });
      }
    }
    if (international?.return_address === "domestic") {
      for (const size of international.sizes) {
        cases.push({
          label: `a ${size} postcard abroad with a foreign return address`,
          job: await postcardJob(abroad, size, abroad),
        });
        cases.push({
          label: `a ${size} postcard abroad without a return address`,
          job: await postcardJob(abroad, size, null),
        });
      }
    }
  }
  return cases.filter(
    (c) => findPrintJobProblem(c.job) === undefined && capabilityGap(capabilities, c.job) !== undefined,
  );
}

/** Malformed variants of a well-formed job, each wrong in one place. */
export function malformedJobs(base: PrintJob): JobCase[] {
  const change = (label: string, edit: (job: PrintJob) => void): JobCase => {
    const job: PrintJob = {
      ...base,
      document: { ...base.document },
      recipient: { ...base.recipient },
      sender: base.sender === null ? null : { ...base.sender },
    };
    edit(job);
    return { label, job };
  };
  return [
    change("an unknown mailpiece type", (j) => {
      j.mailpiece_type = "parcel" as PrintJob["mailpiece_type"];
    }),
    change("a letter with a postcard size", (j) => {
      j.mailpiece_type = "letter";
      j.postcard_size = "4x6";
    }),
    change("a postcard without a size", (j) => {
      j.mailpiece_type = "postcard";
      j.postcard_size = null;
    }),
    change("an empty document", (j) => {
      j.document.bytes = new Uint8Array();
    }),
    change("a document without a valid sha256", (j) => {
      j.document.sha256 = "not-a-digest";
    }),
    change("a document with 0 pages", (j) => {
      j.document.page_count = 0;
    }),
    change("a recipient without line1", (j) => {
      j.recipient.line1 = "";
    }),
    change("a recipient with a lower-case country", (j) => {
      j.recipient.country = j.recipient.country.toLowerCase();
    }),
    change("a recipient without a name", (j) => {
      j.recipient.name = " ";
    }),
    change("a sender without a postal code", (j) => {
      j.sender = { ...addressIn("US", "Ada Sender"), postal_code: "" };
    }),
    change("an unknown mail class", (j) => {
      j.mail_class = "overnight" as PrintJob["mail_class"];
    }),
    change("color that is not a boolean", (j) => {
      j.color = "yes" as unknown as boolean;
    }),
    change("certified priority mail", (j) => {
      j.mail_class = "priority";
      j.certified = true;
    }),
    change("a handwritten piece with a postcard size", (j) => {
      j.mailpiece_type = "handwritten";
      j.postcard_size = "4x6";
    }),
    change("handwritten priority mail", (j) => {
      j.mailpiece_type = "handwritten";
      j.postcard_size = null;
      j.certified = false;
      j.mail_class = "priority";
    }),
    change("certified handwritten mail", (j) => {
      j.mailpiece_type = "handwritten";
      j.postcard_size = null;
      j.mail_class = "standard";
      j.certified = true;
    }),
    change("a return receipt flag that is not a boolean", (j) => {
      j.certified_return_receipt = "yes" as unknown as boolean;
    }),
    change("an unknown return receipt format", (j) => {
      j.return_receipt_format = "carrier_pigeon" as PrintJob["return_receipt_format"];
    }),
    change("a return receipt without certified mail", (j) => {
      j.certified = false;
      j.certified_return_receipt = true;
    }),
    change("a physical return receipt format without a return receipt", (j) => {
      j.certified_return_receipt = false;
      j.return_receipt_format = "physical";
    }),
  ];
}
