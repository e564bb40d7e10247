/**
 * The OpenAPI document the worker serves, linted with Redocly's recommended
 * rules (@redocly/openapi-core, the engine of @redocly/cli): no errors and
 * no warnings. The document comes from the app itself, as GET /openapi.json.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/search/app.js";

async function servedDocument(): Promise<Record<string, unknown>> {
  const res = await createApp().request("http://127.0.0.1:8787/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with no errors or warnings", async () => {
    const doc = await servedDocument();
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    const lines = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
    expect(lines).toEqual([]);
  });

  it("documents every route with an operationId, its statuses and required fields", async () => {
    const doc = (await servedDocument()) as {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, { operationId: string; summary: string; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }>; securitySchemes?: unknown };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "http://127.0.0.1:8787", description: "This deployment" }]);
    const statuses = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, Object.keys(op.responses).sort()]),
      ),
    );
    const data = ["400", "405", "414", "429", "431", "500", "503"];
    const admin = ["400", "401", "403", "405", "414", "429", "431", "503"];
    const plain = ["400", "405", "414", "431"];
    const sorted = (...xs: string[]) => [...xs].sort();
    expect(statuses).toEqual({
      "GET /v1/search": sorted("200", ...data),
      "GET /v1/suggest": sorted("200", ...data),
      "GET /v1/items/{id}": sorted("200", "404", ...data),
      "GET /v1/items/{id}/rounds": sorted("200", "404", ...data),
      "GET /v1/compare": sorted("200", "404", ...data),
      "GET /v1/query-sets": sorted("200", ...data),
      "GET /v1/query-set": sorted("200", "404", ...data),
      "POST /v1/judgments": sorted("201", "401", "403", "404", ...data),
      "GET /queries": sorted("200", ...plain),
      "GET /v1/rounds": sorted("200", ...data),
      "POST /v1/feedback": sorted("202", "404", ...data),
      "GET /healthz": sorted("200", ...plain),
      "GET /readyz": sorted("200", "503", ...plain),
      "GET /openapi.json": sorted("200", ...plain),
      "GET /": sorted("200", ...plain),
      "GET /compare": sorted("200", ...plain),
      "GET /items/{id}": sorted("200", "404", ...data),
      "GET /admin/experiments": sorted("200", ...admin),
      "POST /admin/experiments": sorted("201", "409", ...admin),
      "GET /admin/experiments/{id}": sorted("200", "404", ...admin),
      "PATCH /admin/experiments/{id}": sorted("200", "404", "409", ...admin),
      "POST /admin/experiments/{id}/promote": sorted("200", "404", "409", ...admin),
      "POST /admin/experiments/{id}/rollback": sorted("200", "404", "409", ...admin),
      "POST /admin/experiments/{id}/resume": sorted("200", "404", "409", ...admin),
      "GET /v1/experiments": sorted("200", ...data),
      "GET /v1/experiments/{id}": sorted("200", "404", ...data),
      "GET /v1/experiments/{id}/series": sorted("200", "404", ...data),
      "GET /v1/experiments/{id}/charts": sorted("200", "404", ...data),
      "GET /experiments": sorted("200", ...plain),
      "GET /experiments/{id}": sorted("200", "404", "429", "503", ...plain),
    });
    // The dashboards' JSON: public, the admin token optional (it discloses a live experiment).
    for (const path of ["/v1/experiments", "/v1/experiments/{id}", "/v1/experiments/{id}/series", "/v1/experiments/{id}/charts"])
      expect((doc.paths[path]?.get as { security?: unknown } | undefined)?.security).toEqual([{}, { adminToken: [] }]);
    const adminOps = Object.entries(doc.paths).filter(([p]) => p.startsWith("/admin"));
    for (const [, ops] of adminOps) for (const op of Object.values(ops) as Array<{ security?: unknown }>) expect(op.security).toEqual([{ adminToken: [] }]);
    expect((doc.components as { securitySchemes?: unknown }).securitySchemes).toEqual({
      adminToken: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN (a wrangler secret)." },
    });
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.schemas.Problem?.required).toEqual(["type", "title", "status", "detail", "instance"]);
    expect(Object.keys(doc.components.schemas.Problem?.properties ?? {})).toEqual(expect.arrayContaining(["parameter", "allow", "retryAfter", "checks"]));
    expect(doc.components.schemas.SearchResponse?.required).toEqual([
      "requestId",
      "query",
      "keywords",
      "keywordSource",
      "corrected",
      "total",
      "related",
      "results",
      "tookMs",
    ]);
    // Filters and facets (issue 25 §2): every parameter documented, the field-filter map as OpenAPI's deepObject.
    const search = doc.paths["/v1/search"]?.get as { parameters?: Array<{ name: string; style?: string; description?: string }> } | undefined;
    const params = search?.parameters ?? [];
    expect(params.map((p) => p.name)).toEqual(expect.arrayContaining(["class", "category", "filter", "facets"]));
    expect(params.find((p) => p.name === "filter")?.style).toBe("deepObject");
    for (const p of params) expect(p.description, p.name).toBeTruthy();
    expect(Object.keys(doc.components.schemas.SearchResponse?.properties ?? {})).toContain("facets");
  });
});
