/** One JSON object per line on stdout. Never given request bodies, headers or secrets. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Writes out every line held so far. */
  flush(): void;
}

const ORDER = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/**
 * A logger at `level`. By default its lines go to stdout through one shared line buffer (see `createLineBuffer`):
 * a request costs no write of its own. With `write`, each line is handed to it at once (tests, other sinks).
 */
export function createLogger(level: keyof typeof ORDER, write?: (line: string) => void): Logger {
  const sink: LineSink = write ? { write, flush() {} } : stdoutLines();
  const off = () => {};
  const at = (name: Exclude<keyof typeof ORDER, "silent">) => {
    if (ORDER[name] < ORDER[level]) return off;
    return (msg: string, fields?: Record<string, unknown>) => {
      sink.write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }));
      // An error may be the last thing the process says: it goes out now, with every line before it.
      if (name === "error") sink.flush();
    };
  };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    flush: () => sink.flush(),
  };
}

interface LineSink {
  write(line: string): void;
  flush(): void;
}

export interface LineBufferOptions {
  /** Longest a line waits before it is written, in ms. Default 100. */
  intervalMs?: number;
  /** Characters held at most; the line that reaches this flushes the buffer at once. Default 64 KiB. */
  maxChars?: number;
}

export interface LineBuffer extends LineSink {
  /** Stops the timer; held lines are written first. */
  close(): void;
}

/**
 * Lines joined into one write: flushed `intervalMs` after the first line waiting, as soon as `maxChars` are held,
 * on `flush()`, and on `close()`. The buffer is bounded: it never holds more than `maxChars` plus one line.
 */
export function createLineBuffer(out: (chunk: string) => void, options: LineBufferOptions = {}): LineBuffer {
  const intervalMs = options.intervalMs ?? 100;
  const maxChars = options.maxChars ?? 64 * 1024;
  let held: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (held.length === 0) return;
    const chunk = `${held.join("\n")}\n`;
    held = [];
    chars = 0;
    out(chunk);
  };
  return {
    write(line) {
      held.push(line);
      chars += line.length + 1;
      if (chars >= maxChars) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, intervalMs);
        // A held line never keeps the process alive; exit writes it (see stdoutLines).
        timer.unref();
      }
    },
    flush,
    close: flush,
  };
}

let stdout: LineBuffer | undefined;

/**
 * The process's one stdout line buffer. It is written out when the process exits, whether through process.exit
 * (the SIGTERM and SIGINT handlers end that way), an empty event loop or an uncaught exception; stdout to a file or
 * a pipe is written synchronously on Linux, so the last lines are not lost.
 */
function stdoutLines(): LineBuffer {
  if (stdout) return stdout;
  const buffer = createLineBuffer((chunk) => process.stdout.write(chunk));
  process.once("exit", () => buffer.close());
  stdout = buffer;
  return buffer;
}

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error)
    return { error: error.message, code: (error as { code?: unknown }).code, stack: error.stack };
  return { error: String(error) };
}
