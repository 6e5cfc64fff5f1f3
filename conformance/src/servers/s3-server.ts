import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway s3rver (an S3-compatible server on the file system) on 127.0.0.1, in a process of its own, with one
 * bucket. `s3rver` is an optional peer of this package: install it where the tests that call this run.
 */
export interface S3rver {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  port: number;
  /** A bucket that exists. */
  bucket: string;
  /** The server's data directory. */
  directory: string;
  /** The credentials s3rver accepts (it checks the access key id, not the signature). */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

const S3RVER = createRequire(import.meta.url).resolve("s3rver");

/** Runs in the child: starts s3rver on a random port of 127.0.0.1 and prints the port as a JSON line. */
const CHILD = `
const S3rver = require(process.env.S3RVER_MODULE);
const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory: process.env.S3RVER_DIRECTORY,
  configureBuckets: [{ name: process.env.S3RVER_BUCKET }],
});
server.run().then(
  (address) => process.stdout.write(JSON.stringify({ port: address.port }) + "\\n"),
  (error) => { console.error(error); process.exit(1); },
);
process.on("SIGTERM", () => server.close().finally(() => process.exit(0)));
`;

export async function startS3rver(): Promise<S3rver> {
  const directory = await mkdtemp(join(tmpdir(), "mailpiece-s3rver-"));
  const bucket = "mailpiece-test";
  const child: ChildProcess = spawn(process.execPath, ["-e", CHILD], {
    env: { ...process.env, S3RVER_MODULE: S3RVER, S3RVER_DIRECTORY: directory, S3RVER_BUCKET: bucket },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`s3rver did not start within 30 s:\n${errors}`)),
        30_000,
      );
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split("\n").find((l) => l.startsWith("{"));
        if (line === undefined) return;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited with ${code}:\n${errors}`));
      });
    });
  } catch (error) {
    child.kill("SIGKILL");
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  child.stdout?.resume();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    directory,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    region: "us-east-1",
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
