/** One JSON object per line on stdout. Never given request bodies, headers or secrets. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

export function createLogger(
  level: keyof typeof ORDER,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const at =
    (name: Exclude<keyof typeof ORDER, "silent">) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[name] < ORDER[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error)
    return { error: error.message, code: (error as { code?: unknown }).code, stack: error.stack };
  return { error: String(error) };
}
