import { connect as connectTcp, isIP, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import type { DocumentTarget } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import type { ResolvedAddress } from "./resolve-addresses.ts";

/**
 * Opens a connection to one of `addresses`, tried in order; nothing else is resolved or dialled. For https it is a
 * verified TLS connection: the socket goes to the IP address itself while SNI and certificate verification use the
 * host name of the URL. Certificates are always verified, whatever the environment says. `ca`, when given, replaces
 * the trusted roots. Plain TCP is used only for an http target, which only `privateHosts` admits. When no address
 * gives a connection: `connection_failed` with the last cause. The message names the failure by its error code only
 * (`ECONNREFUSED`, `CERT_HAS_EXPIRED`): the messages of socket errors carry the address dialled, and this one
 * reaches the client.
 */
export async function connectTarget(
  addresses: readonly ResolvedAddress[],
  target: DocumentTarget,
  ca: readonly (string | Buffer)[] | undefined,
  signal: AbortSignal,
): Promise<Socket> {
  let lastError: unknown;
  for (const address of addresses) {
    try {
      return await connectOnce(address, target, ca, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      lastError = error;
    }
  }
  throw new FetchError("connection_failed", `could not connect to ${target.hostname}${reasonOf(lastError)}`, {
    url: target.url.href,
    cause: lastError,
  });
}

function connectOnce(
  address: ResolvedAddress,
  target: DocumentTarget,
  ca: readonly (string | Buffer)[] | undefined,
  signal: AbortSignal,
): Promise<Socket> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Socket>((resolve, reject) => {
    // SNI carries host names only: a private host given as an IP address is verified against the address.
    const servername = isIP(target.hostname.replace(/^\[|\]$/g, "")) === 0 ? target.hostname : undefined;
    const socket = target.secure
      ? connectTls({
          host: address.address,
          port: target.port,
          ...(servername === undefined ? {} : { servername }),
          ...(ca === undefined ? {} : { ca: [...ca] }),
          rejectUnauthorized: true,
          ALPNProtocols: ["http/1.1"],
        })
      : connectTcp({ host: address.address, port: target.port });
    const ready = target.secure ? "secureConnect" : "connect";
    const cleanup = () => {
      socket.off(ready, onConnect);
      socket.off("error", onError);
      signal.removeEventListener("abort", onAbort);
    };
    const onConnect = () => {
      cleanup();
      // The HTTP exchange attaches its own error handling; this keeps a late error from going unhandled meanwhile.
      socket.on("error", () => {});
      resolve(socket);
    };
    const onError = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => {
      cleanup();
      socket.destroy();
      reject(signal.reason);
    };
    socket.once(ready, onConnect);
    socket.once("error", onError);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `: ECONNREFUSED` for an error with a Node error code, nothing otherwise. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[A-Z0-9_]+$/.test(code) ? `: ${code}` : "";
}
