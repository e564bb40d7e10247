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
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "http://127.0.0.1:8787", description: "This deployment" }]);
    const statuses = Object.fromEntries(Object.entries(doc.paths).map(([path, ops]) => [path, Object.keys(ops.get?.responses ?? {}).sort()]));
    expect(statuses).toEqual({
      "/v1/search": ["200", "400", "405", "414", "429", "431", "500", "503"],
      "/v1/items/{id}": ["200", "400", "404", "405", "414", "429", "431", "500", "503"],
      "/v1/rounds": ["200", "400", "405", "414", "429", "431", "500", "503"],
      "/healthz": ["200", "400", "405", "414", "431"],
      "/readyz": ["200", "400", "405", "414", "431", "503"],
      "/openapi.json": ["200", "400", "405", "414", "431"],
      "/": ["200", "400", "405", "414", "431"],
    });
    const ids = Object.values(doc.paths).map((ops) => ops.get?.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.schemas.Problem?.required).toEqual(["type", "title", "status", "detail", "instance"]);
    expect(Object.keys(doc.components.schemas.Problem?.properties ?? {})).toEqual(expect.arrayContaining(["parameter", "allow", "retryAfter", "checks"]));
    expect(doc.components.schemas.SearchResponse?.required).toEqual(["query", "round", "keywords", "keywordSource", "total", "results", "tookMs"]);
  });
});
