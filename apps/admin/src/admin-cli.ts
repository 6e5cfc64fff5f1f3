import { parseArgs } from "node:util";

export const USAGE = `Usage: pnpm admin <command> [options]

Commands:
  create-workspace --name NAME [--email ADDRESS]
                                  create a workspace (its account email gets the receipts of its orders);
                                  prints it with its test API key (shown once)
  list-workspaces [--limit N] [--cursor C]
                                  the deployment's workspaces, a page at a time
  update-workspace <id> [--name NAME] [--email ADDRESS | --no-email]
                                  change a workspace's name or account email (--no-email removes it)
  show-workspace <id>             a workspace with its keys (prefixes only) and the credits of both modes
  ledger <id> [--mode test|live] [--limit N] [--cursor C]
                                  a workspace's credit movements, oldest first
  enable-live <id>                live-enable a workspace (operator override of the payment-method setup);
                                  prints its first live key, once

Options:
  --base-url URL   the deployment (default: PUBLIC_URL, else http://127.0.0.1:3000)
  --token TOKEN    the admin token (default: ADMIN_TOKEN; prefer the variable, arguments show in process lists)
  -h, --help       this text

Prints the admin API's JSON answer. Exit code: 0 on success, 1 when the request fails, 2 on bad usage.`;

/** Where the CLI writes: stdout gets the JSON, stderr the messages. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  fetch?: typeof fetch;
}

const REQUEST_TIMEOUT_MS = 30_000;

class Usage extends Error {}

interface Request {
  method: "GET" | "POST" | "PATCH";
  path: string;
  body?: unknown;
}

type Values = {
  name?: string;
  email?: string;
  "no-email"?: boolean;
  limit?: string;
  cursor?: string;
  mode?: string;
  "base-url"?: string;
  token?: string;
  help?: boolean;
};

/** The request a command makes, or Usage for arguments that do not make one. */
function requestOf(command: string | undefined, positionals: string[], values: Values): Request {
  const one = (what: string) => {
    if (positionals.length !== 1 || !positionals[0]) throw new Usage(`${command} takes one ${what}`);
    return encodeURIComponent(positionals[0]);
  };
  const none = () => {
    if (positionals.length > 0) throw new Usage(`${command} takes no arguments, only options`);
  };
  const only = (...allowed: (keyof Values)[]) => {
    for (const option of ["name", "email", "no-email", "limit", "cursor", "mode"] as const) {
      if (values[option] !== undefined && !allowed.includes(option)) {
        throw new Usage(`${command} takes no --${option}`);
      }
    }
  };
  const page = (query: URLSearchParams) => {
    if (values.limit !== undefined) {
      if (!/^[0-9]+$/.test(values.limit)) throw new Usage("--limit must be a whole number");
      query.set("limit", values.limit);
    }
    if (values.cursor !== undefined) query.set("cursor", values.cursor);
    const text = query.toString();
    return text ? `?${text}` : "";
  };
  switch (command) {
    case "create-workspace": {
      none();
      only("name", "email");
      if (values.name === undefined || values.name.trim() === "")
        throw new Usage("create-workspace needs --name");
      return {
        method: "POST",
        path: "/admin/api/workspaces",
        body: { name: values.name, ...(values.email === undefined ? {} : { email: values.email }) },
      };
    }
    case "update-workspace": {
      only("name", "email", "no-email");
      const id = one("workspace id");
      if (values.email !== undefined && values["no-email"]) {
        throw new Usage("give --email or --no-email, not both");
      }
      const body = {
        ...(values.name === undefined ? {} : { name: values.name }),
        ...(values.email === undefined ? {} : { email: values.email }),
        ...(values["no-email"] ? { email: null } : {}),
      };
      if (Object.keys(body).length === 0) {
        throw new Usage("update-workspace needs --name, --email or --no-email");
      }
      return { method: "PATCH", path: `/admin/api/workspaces/${id}`, body };
    }
    case "list-workspaces":
      none();
      only("limit", "cursor");
      return { method: "GET", path: `/admin/api/workspaces${page(new URLSearchParams())}` };
    case "show-workspace": {
      only();
      return { method: "GET", path: `/admin/api/workspaces/${one("workspace id")}` };
    }
    case "ledger": {
      only("mode", "limit", "cursor");
      const id = one("workspace id");
      const mode = values.mode ?? "test";
      if (mode !== "test" && mode !== "live") throw new Usage('--mode must be "test" or "live"');
      return {
        method: "GET",
        path: `/admin/api/workspaces/${id}/ledger${page(new URLSearchParams({ mode }))}`,
      };
    }
    case "enable-live": {
      only();
      return { method: "POST", path: `/admin/api/workspaces/${one("workspace id")}/live` };
    }
    case undefined:
      throw new Usage("name a command");
    default:
      throw new Usage(`unknown command "${command}"`);
  }
}

/**
 * The `pnpm admin` CLI: calls the deployment's admin API over HTTP (never the core) and prints its JSON answer.
 * Returns the exit code: 0 done, 1 the request failed (with a one-line message), 2 bad usage (with the usage).
 */
export async function runAdminCli(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        name: { type: "string" },
        email: { type: "string" },
        "no-email": { type: "boolean" },
        limit: { type: "string" },
        cursor: { type: "string" },
        mode: { type: "string" },
        "base-url": { type: "string" },
        token: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const [command, ...rest] = positionals;
  let request: Request;
  try {
    request = requestOf(command, rest, values);
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    io.err(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  const base = (values["base-url"] ?? env.PUBLIC_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(base)) {
    io.err(`--base-url (or PUBLIC_URL) must be an http(s) URL\n\n${USAGE}\n`);
    return 2;
  }
  const token = values.token ?? env.ADMIN_TOKEN;
  if (!token) {
    io.err(`no admin token: set ADMIN_TOKEN or pass --token\n\n${USAGE}\n`);
    return 2;
  }
  const url = `${base}${request.path}`;
  let response: Response;
  try {
    response = await (io.fetch ?? fetch)(url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/json",
        ...(request.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    io.err(`error: cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}\n`);
    return 1;
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    io.err(`error: ${failure(response.status, body, command)}\n`);
    return 1;
  }
  if (body === undefined) {
    io.err(`error: ${base} answered HTTP ${response.status} without JSON: is it a Mailpiece deployment?\n`);
    return 1;
  }
  io.out(`${JSON.stringify(body, null, 2)}\n`);
  if (command === "create-workspace") {
    io.err("The test API key is shown only this once: store it now.\n");
  }
  return 0;
}

/** One line for a refused request: the API's code and message, and a hint where one helps. */
function failure(status: number, body: unknown, command: string | undefined): string {
  const answer = (typeof body === "object" && body !== null ? body : {}) as {
    error?: unknown;
    message?: unknown;
    issues?: { path?: unknown; message?: unknown }[];
  };
  const code = typeof answer.error === "string" ? answer.error : `HTTP ${status}`;
  const message = typeof answer.message === "string" ? answer.message : "";
  const issues = Array.isArray(answer.issues)
    ? answer.issues.map((issue) => `${String(issue.path)}: ${String(issue.message)}`).join("; ")
    : "";
  const hint =
    status === 401
      ? " Check the admin token (ADMIN_TOKEN or --token)."
      : status === 404 && (command === "list-workspaces" || command === "create-workspace")
        ? " Is the admin API enabled on this deployment (ADMIN_TOKEN set) and is the base URL right?"
        : "";
  const line = `${code}${message ? `: ${message}` : ""}${issues ? ` (${issues})` : ""} [HTTP ${status}]${hint}`;
  return line.replace(/[\r\n]+/g, " ");
}
