// First: the memory profile applies before any other module of the server is evaluated.
import "./memory-profile.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { createLogger, errorFields } from "./logger.ts";
import { startServer } from "./start.ts";

/** `start`: serve Mailpiece on HOST:PORT until SIGTERM or SIGINT, then shut down cleanly. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      process.stderr.write(`mailpiece: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, logger).catch((error: unknown) => {
    logger.error("could not start", errorFields(error));
    process.exit(1);
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => {
      logger.error("shutdown timed out; exiting");
      process.exit(1);
    }, 10_000);
    force.unref();
    running.close().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error("shutdown failed", errorFields(error));
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

await main();
