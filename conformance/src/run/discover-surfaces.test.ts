import { describe, expect, it } from "vitest";
import { appTarget } from "../machine/http-target.ts";
import { discoverSurfaces } from "./discover-surfaces.ts";
import { fakeDeployment } from "./fake-deployment.fixture.ts";

describe("discoverSurfaces", () => {
  it("finds every surface a deployment declares, with what says so", async () => {
    const target = appTarget({
      fetch: fakeDeployment({
        openapiPaths: ["/health", "/api/machine/orders", "/api/machine/orders/{id}", "/api/v1/letters"],
        x402Resources: ["http://127.0.0.1/api/machine/orders"],
        ucpCapabilities: ["dev.ucp.shopping.checkout"],
        mcpTools: ["svc.ping", "svc.list_forms"],
      }),
    });
    expect(await discoverSurfaces(target)).toEqual([
      {
        surface: "machine",
        declared: true,
        evidence: "2 paths under /api/machine/ in /openapi.json; 1 resources in /.well-known/x402",
      },
      { surface: "mcp", declared: true, evidence: "2 tools at /mcp" },
      { surface: "ucp", declared: true, evidence: "/.well-known/ucp profile: dev.ucp.shopping.checkout" },
      { surface: "v1", declared: true, evidence: "1 paths under /api/v1/ in /openapi.json" },
    ]);
  });

  it("says why a surface is not declared, and takes the x402 manifest alone for the machine API", async () => {
    const target = appTarget({
      fetch: fakeDeployment({ x402Resources: ["http://127.0.0.1/api/machine/orders"], mcpTools: [] }),
    });
    expect(await discoverSurfaces(target)).toEqual([
      { surface: "machine", declared: true, evidence: "1 resources in /.well-known/x402" },
      { surface: "mcp", declared: false, evidence: "/mcp: no tools" },
      { surface: "ucp", declared: false, evidence: "/.well-known/ucp: GET /.well-known/ucp answered 404" },
      { surface: "v1", declared: false, evidence: "no OpenAPI description (GET /openapi.json answered 404)" },
    ]);
  });

  it("never throws for a deployment that cannot be reached", async () => {
    const target = {
      label: "down",
      fetch: async () => {
        throw new Error("connect ECONNREFUSED");
      },
    };
    const found = await discoverSurfaces(target);
    expect(found.map((d) => d.declared)).toEqual([false, false, false, false]);
    expect(found[1]?.evidence).toBe("/mcp: failed: connect ECONNREFUSED");
  });
});
