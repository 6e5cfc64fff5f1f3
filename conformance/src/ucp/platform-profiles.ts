import { type LoopbackServer, serveOnLoopback } from "../machine/http-target.ts";

/**
 * A platform publishing UCP profiles on 127.0.0.1, for the UCP suite's `platformProfile` option. The deployment
 * under test must be allowed to fetch from `host` (the reference server: UCP_PROFILE_HOSTS=<host>).
 */
export interface PlatformProfileServer {
  /** `127.0.0.1:<port>`, the host the deployment must admit. */
  host: string;
  url: string;
  /** Publishes `profile` at a new path and answers its URL. */
  publish(profile: Record<string, unknown>): string;
  close(): Promise<void>;
}

/**
 * Starts a platform on 127.0.0.1 that serves each published profile as JSON, 404 for the rest: on `port`, so that a
 * deployment started before it can admit `127.0.0.1:<port>`, or by default on a free port.
 */
export async function servePlatformProfiles(port = 0): Promise<PlatformProfileServer> {
  const profiles = new Map<string, string>();
  const server: LoopbackServer = await serveOnLoopback((request) => {
    const body = profiles.get(new URL(request.url).pathname);
    return body === undefined
      ? new Response("no such profile", { status: 404 })
      : new Response(body, { headers: { "content-type": "application/json" } });
  }, port);
  return {
    host: new URL(server.url).host,
    url: server.url,
    publish(profile) {
      const path = `/profiles/${profiles.size + 1}.json`;
      profiles.set(path, JSON.stringify(profile));
      return `${server.url}${path}`;
    },
    close: () => server.close(),
  };
}
