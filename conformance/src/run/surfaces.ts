/** The surfaces a deployment may declare, in the order the CLI runs their suites. */
export const SURFACES = ["machine", "mcp", "ucp", "v1"] as const;

export type SurfaceName = (typeof SURFACES)[number];

export function isSurfaceName(value: string): value is SurfaceName {
  return (SURFACES as readonly string[]).includes(value);
}

/** Whether a deployment declares a surface, and what says so (or why it seems not to). */
export interface SurfaceDiscovery {
  surface: SurfaceName;
  declared: boolean;
  /** e.g. "28 paths under /api/machine/ in /openapi.json", or "GET /.well-known/ucp answered 404". */
  evidence: string;
}
