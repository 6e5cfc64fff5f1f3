import { describe, expect, it } from "vitest";
import { ConfigError, defaultPdfWorkers, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("defaults to 127.0.0.1:3000, the file store under ./.data and a matching public URL", () => {
    const config = loadConfig({});
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(3000);
    expect(config.store).toBe("file");
    expect(config.dataDir.endsWith(".data")).toBe(true);
    expect(config.publicUrl).toBeUndefined();
    expect(config.pdfDownloadHosts).toEqual([]);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      HOST: "0.0.0.0",
      PORT: "8080",
      PUBLIC_URL: "https://mail.example.com/",
      STORE: "memory",
      DATA_DIR: "/tmp/mp",
      MAX_BODY_BYTES: "2048",
      PDF_DOWNLOAD_HOSTS: "files.example.com, CDN.example.org",
      LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 8080,
      publicUrl: "https://mail.example.com",
      store: "memory",
      dataDir: "/tmp/mp",
      maxBodyBytes: 2048,
      pdfDownloadHosts: ["files.example.com", "cdn.example.org"],
      logLevel: "warn",
    });
  });

  it("accepts the host forms the README documents: a name, a wildcard, and either with a port", () => {
    const config = loadConfig({
      PDF_DOWNLOAD_HOSTS: "files.example.com, *.example.org, host.example.net:8443, *.cdn.example.com:8443",
    });
    expect(config.pdfDownloadHosts).toEqual([
      "files.example.com",
      "*.example.org",
      "host.example.net:8443",
      "*.cdn.example.com:8443",
    ]);
  });

  it.each([
    ["PORT", "http"],
    ["PORT", "70000"],
    ["STORE", "redis-ish"],
    ["LOG_LEVEL", "loud"],
    ["PUBLIC_URL", "ftp://x"],
    ["MAX_BODY_BYTES", "12"],
    ["PDF_DOWNLOAD_HOSTS", "https://files.example.com/path"],
    ["PDF_DOWNLOAD_HOSTS", "10.0.0.1"],
    ["PDF_DOWNLOAD_HOSTS", "*.com"],
    ["PDF_DOWNLOAD_HOSTS", "files.example.com:99999"],
    ["CHECKOUT_PAYMENTS", "paypal"],
    ["ADDRESS_PROVIDER", "google"],
    ["MCP_REQUESTS_PER_MINUTE", "0"],
    ["BLOB_STORE", "disk"],
    ["DATABASE_URL", "mysql://db/mailpiece"],
  ])("refuses %s=%s with an error naming the variable", (variable, value) => {
    let caught: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toContain(variable);
  });
});

describe("checkout payments and address search", () => {
  it("defaults to the test checkout and the embedded addresses", () => {
    const config = loadConfig({});
    expect(config.checkout).toEqual({ provider: "test" });
    expect(config.loqateApiKey).toBeUndefined();
    expect(config.mcpRequestsPerMinute).toBe(600);
  });

  it("takes Stripe with a secret key and Loqate with an API key, and names the missing one", () => {
    const config = loadConfig({
      CHECKOUT_PAYMENTS: "stripe",
      STRIPE_SECRET_KEY: "sk_test_abc123",
      ADDRESS_PROVIDER: "loqate",
      LOQATE_API_KEY: "AA11-BB22",
    });
    expect(config.checkout).toEqual({ provider: "stripe", secretKey: "sk_test_abc123" });
    expect(config.loqateApiKey).toBe("AA11-BB22");
    expect(() => loadConfig({ CHECKOUT_PAYMENTS: "stripe" })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ CHECKOUT_PAYMENTS: "stripe", STRIPE_SECRET_KEY: "pk_test_x" })).toThrow(
      /STRIPE_SECRET_KEY/,
    );
    expect(() => loadConfig({ ADDRESS_PROVIDER: "loqate" })).toThrow(/LOQATE_API_KEY/);
  });
});

describe("the operator and API keys", () => {
  it("takes an admin token of at least 32 characters and the rotation overlap in hours", () => {
    expect(loadConfig({}).adminToken).toBeUndefined();
    expect(loadConfig({}).keyOverlapMs).toBe(24 * 60 * 60 * 1000);
    const token = "an-admin-token-of-at-least-32-characters";
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
    expect(() => loadConfig({ ADMIN_TOKEN: "short" })).toThrow(/ADMIN_TOKEN/);
    expect(loadConfig({ API_KEY_OVERLAP_HOURS: "0" }).keyOverlapMs).toBe(0);
    expect(loadConfig({}).documentRetentionMs).toBe(30 * 24 * 60 * 60 * 1000);
    expect(loadConfig({ DOCUMENT_RETENTION_DAYS: "7" }).documentRetentionMs).toBe(7 * 24 * 60 * 60 * 1000);
    for (const bad of ["0", "-1", "1.5", "x"]) {
      expect(() => loadConfig({ DOCUMENT_RETENTION_DAYS: bad })).toThrow(/DOCUMENT_RETENTION_DAYS/);
    }
    expect(loadConfig({ API_KEY_OVERLAP_HOURS: "48" }).keyOverlapMs).toBe(48 * 60 * 60 * 1000);
    for (const bad of ["-1", "1.5", "x", "99999"]) {
      expect(() => loadConfig({ API_KEY_OVERLAP_HOURS: bad })).toThrow(/API_KEY_OVERLAP_HOURS/);
    }
  });
});

describe("webhooks", () => {
  it("admits named private receivers and takes a retry schedule in ms, refusing anything else by its variable", () => {
    const DAY = 24 * 60 * 60 * 1000;
    expect(loadConfig({}).webhooks).toEqual({ privateHosts: [], eventRetentionMs: 30 * DAY });
    expect(
      loadConfig({
        WEBHOOK_PRIVATE_HOSTS: "127.0.0.1:8443, Hooks.Internal",
        WEBHOOK_RETRY_SCHEDULE_MS: "10,20, 40",
        WEBHOOK_EVENT_RETENTION_DAYS: "90",
      }).webhooks,
    ).toEqual({
      privateHosts: ["127.0.0.1:8443", "hooks.internal"],
      retryScheduleMs: [10, 20, 40],
      eventRetentionMs: 90 * DAY,
    });
    for (const bad of ["2", "0", "x", "3651"]) {
      expect(() => loadConfig({ WEBHOOK_EVENT_RETENTION_DAYS: bad })).toThrow(/WEBHOOK_EVENT_RETENTION_DAYS/);
    }
    for (const bad of ["https://x.example", "x.example:0"]) {
      expect(() => loadConfig({ WEBHOOK_PRIVATE_HOSTS: bad })).toThrow(/WEBHOOK_PRIVATE_HOSTS/);
    }
    for (const bad of ["x", "-1", "10,,20", "1.5"]) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: bad })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
    }
  });
});

describe("UCP checkout", () => {
  it("admits named profile hosts and takes a private P-256 JWK, refusing anything else by its variable", async () => {
    expect(loadConfig({}).ucp).toEqual({ profileHosts: [] });
    expect(
      loadConfig({ UCP_PROFILE_HOSTS: " Profiles.Internal:8443, 127.0.0.1:9000 ,localhost" }).ucp,
    ).toEqual({
      profileHosts: ["profiles.internal:8443", "127.0.0.1:9000", "localhost"],
    });
    for (const bad of ["http://x.example", "x.example/path", "x.example:0", "x.example:99999", "a b"]) {
      expect(() => loadConfig({ UCP_PROFILE_HOSTS: bad })).toThrow(/UCP_PROFILE_HOSTS/);
    }
    const { privateKey, publicKey } = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign", "verify"],
    );
    const jwk = await crypto.subtle.exportKey("jwk", privateKey);
    expect(loadConfig({ UCP_SIGNING_KEY: JSON.stringify(jwk) }).ucp.signingKey).toMatchObject({
      kty: "EC",
      d: jwk.d,
    });
    const publicOnly = await crypto.subtle.exportKey("jwk", publicKey);
    for (const bad of ["not json", JSON.stringify(publicOnly), JSON.stringify({ ...jwk, crv: "P-384" })]) {
      expect(() => loadConfig({ UCP_SIGNING_KEY: bad })).toThrow(/UCP_SIGNING_KEY/);
    }
  });
});

describe("defaultPdfWorkers", () => {
  it("leaves one core to the event loop, with one worker at least and two at most", () => {
    expect([1, 2, 3, 4, 16].map(defaultPdfWorkers)).toEqual([1, 1, 2, 2, 2]);
  });

  it("needs DATABASE_URL with STORE=postgres, and the bucket and keys with BLOB_STORE=s3, naming what is missing", () => {
    const missing = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as ConfigError).variable;
      }
      return undefined;
    };
    expect(missing({ STORE: "postgres" })).toBe("DATABASE_URL");
    expect(missing({ BLOB_STORE: "s3" })).toBe("S3_BUCKET");
    expect(missing({ BLOB_STORE: "s3", S3_BUCKET: "mail" })).toBe("S3_ACCESS_KEY_ID");
    expect(missing({ BLOB_STORE: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "k", S3_ENDPOINT: "ftp://x" })).toBe(
      "S3_ENDPOINT",
    );
    const config = loadConfig({
      STORE: "postgres",
      DATABASE_URL: "postgres://mailpiece:secret@127.0.0.1:5432/mailpiece",
      BLOB_STORE: "s3",
      S3_BUCKET: "mail",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
    });
    expect(config.store).toBe("postgres");
    expect(config.blobs).toEqual({
      kind: "s3",
      s3: {
        bucket: "mail",
        region: "us-east-1",
        endpoint: "http://127.0.0.1:9000",
        accessKeyId: "key",
        secretAccessKey: "secret",
        forcePathStyle: true,
      },
    });
  });

  it("reads email: the outbox sender by default, SMTP with MAIL_FROM, and says what is wrong without the password", () => {
    expect(loadConfig({}).email).toEqual({
      from: { name: "Mailpiece", address: "receipts@mailpiece.invalid" },
    });
    expect(
      loadConfig({
        SMTP_URL: "smtp://mailer:hunter2-secret@smtp.example.com:587",
        MAIL_FROM: "Mailpiece Receipts <receipts@mail.example.com>",
        SMTP_CA_FILE: "/etc/ssl/private-ca.pem",
      }).email,
    ).toEqual({
      from: { name: "Mailpiece Receipts", address: "receipts@mail.example.com" },
      smtp: { url: "smtp://mailer:hunter2-secret@smtp.example.com:587", caFile: "/etc/ssl/private-ca.pem" },
    });
    expect(loadConfig({ MAIL_FROM: "receipts@mail.example.com" }).email.from).toEqual({
      address: "receipts@mail.example.com",
    });
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return error as ConfigError;
      }
      throw new Error("expected a ConfigError");
    };
    expect(refused({ SMTP_URL: "smtp://mailer:hunter2-secret@smtp.example.com:587" }).message).toMatch(
      /MAIL_FROM/,
    );
    for (const from of ["not an address", "Name <no-at-sign>", "Name\u0007 <a@example.com>", "<a@b>"]) {
      expect(refused({ MAIL_FROM: from }).message).toMatch(/MAIL_FROM/);
    }
    const bad = refused({
      SMTP_URL: "http://mailer:hunter2-secret@smtp.example.com",
      MAIL_FROM: "a@example.com",
    });
    expect(bad.message).toMatch(/SMTP_URL/);
    expect(bad.message).not.toContain("hunter2");
  });
});
