import { execFile } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdminServer, newAdminToken, startAdminServer } from "./test-server.fixture.ts";

const PACKAGE = join(import.meta.dirname, "..");

let server: AdminServer;
let token: string;

beforeAll(async () => {
  token = newAdminToken();
  server = await startAdminServer({ adminToken: token });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** `node --import tsx src/cli.ts ...` in apps/admin, with only the environment given (no ADMIN_TOKEN inherited). */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { ADMIN_TOKEN: _t, PUBLIC_URL: _u, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", ...args],
      { cwd: PACKAGE, env: { ...inherited, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("pnpm admin (the CLI over the admin API)", { timeout: 60_000 }, () => {
  it("create-workspace prints the workspace with its id and test key, which works", async () => {
    const run = await cli(["create-workspace", "--name", "Acme CLI", "--base-url", server.base], {
      ADMIN_TOKEN: token,
    });
    expect(run.stderr).toContain("shown only this once");
    expect(run.code).toBe(0);
    const made = JSON.parse(run.stdout) as { id: string; name: string; test_api_key: string };
    expect(made.name).toBe("Acme CLI");
    expect(made.id).toMatch(/^ws_[0-9a-f]{32}$/);
    expect(made.test_api_key).toMatch(/^svc_test_/);
    await expect(server.core.workspaces.authenticate(made.test_api_key)).resolves.toMatchObject({
      workspace_id: made.id,
    });

    // The base URL from PUBLIC_URL and the token from --token (written --token=<value>: a random token may start
    // with a dash, which a separate argument cannot).
    const shown = await cli(["show-workspace", made.id, `--token=${token}`], { PUBLIC_URL: server.base });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id: made.id,
      balances: { test: { available_cents: 10_000 } },
    });
    expect(shown.stdout).not.toContain(made.test_api_key);

    const listed = await cli(["list-workspaces", "--limit", "200"], {
      ADMIN_TOKEN: token,
      PUBLIC_URL: server.base,
    });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { data: { id: string }[] }).data.map((w) => w.id)).toContain(
      made.id,
    );
  });

  it("update-workspace changes the account email, removes it with --no-email, and renames", async () => {
    const made = await server.core.workspaces.create("Before CLI");
    const env = { ADMIN_TOKEN: token, PUBLIC_URL: server.base };
    const emailed = await cli(["update-workspace", made.id, "--email", "billing@cli.example"], env);
    expect(emailed.code).toBe(0);
    expect(JSON.parse(emailed.stdout)).toMatchObject({ id: made.id, email: "billing@cli.example" });
    const renamed = await cli(["update-workspace", made.id, "--name", "After CLI", "--no-email"], env);
    expect(renamed.code).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ name: "After CLI", email: null });

    const bad = await cli(["update-workspace", made.id, "--email", "nope"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: validation_failed: .*\[HTTP 422\]\n$/);
    for (const [args, says] of [
      [["update-workspace", made.id], "update-workspace needs --name, --email or --no-email"],
      [["update-workspace", made.id, "--email", "a@b.example", "--no-email"], "not both"],
      [["update-workspace", "--name", "X"], "update-workspace takes one workspace id"],
    ] as const) {
      const refused = await cli([...args], env);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr).toContain(says);
    }
    expect(await server.core.workspaces.get(made.id)).toMatchObject({ name: "After CLI", email: null });
  });

  it("exits non-zero with a one-line message for a wrong token or an unknown workspace", async () => {
    const wrong = await cli(["list-workspaces", "--base-url", server.base], { ADMIN_TOKEN: `${token}x` });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(wrong.stderr).toMatch(/^error: unauthorized: .*\[HTTP 401\]/);
    expect(wrong.stderr).not.toContain(token);

    const unknown = await cli(["show-workspace", `ws_${"0".repeat(32)}`, "--base-url", server.base], {
      ADMIN_TOKEN: token,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: not_found: No such workspace\. \[HTTP 404\]\n$/);
  });

  it("prints the usage and exits 2 on bad arguments", async () => {
    const none = await cli([], { ADMIN_TOKEN: token });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: pnpm admin <command>");
    expect(none.stdout).toBe("");

    const unknown = await cli(["drop-everything"], { ADMIN_TOKEN: token });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "drop-everything"');

    const noName = await cli(["create-workspace", "--base-url", server.base], { ADMIN_TOKEN: token });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("create-workspace needs --name");

    const noToken = await cli(["list-workspaces", "--base-url", server.base]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("set ADMIN_TOKEN or pass --token");
  });
});
