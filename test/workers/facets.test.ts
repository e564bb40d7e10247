/** Filters and facets (issue 25 §2) in workerd over real local D1/KV: the columns a publish writes, the search's answers, its 400s. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { columnChunkKey, columnsMetaKey } from "../../core/contract.js";
import { columnLru } from "../../workers/search/facets.js";
import type { WireRound } from "../support/wire-round.js";
import { admin } from "./admin.js";
import { clearIsolateCaches, getJson, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();

type Answer = {
  total: number;
  results: Array<{ id: string; class: string; related: boolean }>;
  facets?: Record<string, Array<{ value: string; count: number }>>;
};

/** Round 0's items with a numeric import facet (`rating`, 1–5), published as round 3. */
function withRatings(r: WireRound): WireRound {
  return {
    ...r,
    manifest: { ...r.manifest, round: 3, contentHash: `${"3".repeat(16)}${r.manifest.contentHash.slice(16)}` },
    items: r.items.map((it, j) => ({ ...it, facets: { rating: String((j % 5) + 1), shade: j % 2 === 0 ? "light" : "dark" } })),
  };
}

const byId = new Map(rounds.synthetic0.items.map((it) => [it.id, it]));
const count = (xs: readonly string[]) => {
  const m = new Map<string, number>();
  for (const x of xs) if (x !== "") m.set(x, (m.get(x) ?? 0) + 1);
  return [...m].map(([value, n]) => ({ value, count: n })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
};

describe("filters and facets over a published round", () => {
  let all: Answer;
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
    all = (await getJson<Answer>("/v1/search?q=chair&limit=100")).body;
    expect(all.total).toBeGreaterThan(3);
    expect(all.total).toBeLessThanOrEqual(100); // the whole I_ret(q) is on the page: the reference below
  });

  it("publish writes the columns into KV: the meta and every column's chunks", async () => {
    const m = rounds.synthetic0.manifest;
    const meta = JSON.parse((await env.CACHE.get(columnsMetaKey(m.round, m.contentHash))) as string) as { columns: Array<{ name: string }>; itemCount: number };
    expect(meta.itemCount).toBe(rounds.synthetic0.items.length);
    expect(meta.columns.map((c) => c.name)).toEqual(["category.lvl0", "category.lvl1", "category.lvl2", "class"]);
    for (let j = 0; j < meta.columns.length; j++) expect(await env.CACHE.get(columnChunkKey(m.round, m.contentHash, j, 0))).not.toBeNull();
  });

  it("counts facets over the whole I_ret(q), not the page, as brute force over its items does", async () => {
    const { res, body } = await getJson<Answer>("/v1/search?q=chair&limit=2&facets=class,category");
    expect(res.status).toBe(200);
    const inRet = all.results.filter((r) => !r.related).map((r) => byId.get(r.id));
    expect(inRet).toHaveLength(all.total);
    expect(body.facets?.class).toEqual(count(inRet.map((it) => it?.class ?? "")).slice(0, 20));
    expect(body.facets?.category).toEqual(count(inRet.map((it) => (it?.category ?? "").split(" / ")[0] ?? "")));
    expect(body.results).toHaveLength(2);
    expect(body.total).toBe(all.total);
  });

  it("narrows I_ret(q) with class and category filters; total counts what is left", async () => {
    const top = (await getJson<Answer>("/v1/search?q=chair&facets=class")).body.facets?.class?.[0];
    expect(top).toBeDefined();
    const cls = top?.value as string;
    const { body } = await getJson<Answer>(`/v1/search?q=chair&limit=100&class=${encodeURIComponent(cls.toUpperCase())}`);
    expect(body.total).toBe(top?.count);
    const kept = body.results.filter((r) => !r.related);
    expect(kept).toHaveLength(top?.count as number);
    expect(kept.map((r) => r.class)).toEqual(kept.map(() => cls));
    // The same order as unfiltered, less what the filter drops.
    expect(kept.map((r) => r.id)).toEqual(all.results.filter((r) => !r.related && r.class === cls).map((r) => r.id));

    const lvl1 = (await getJson<Answer>("/v1/search?q=chair&facets=category.lvl1")).body.facets?.["category.lvl1"]?.[0];
    expect(lvl1).toBeDefined();
    const path = (lvl1?.value ?? "").replace(/ \/ /g, "/");
    const cat = (await getJson<Answer>(`/v1/search?q=chair&limit=100&category=${encodeURIComponent(path)}&facets=category`)).body;
    expect(cat.total).toBe(lvl1?.count);
    // Faceting `category` under a one-path category filter counts the level below it.
    expect(cat.facets?.category?.reduce((s, f) => s + f.count, 0)).toBe(lvl1?.count);
    for (const f of cat.facets?.category ?? []) expect(f.value.startsWith(`${lvl1?.value} / `)).toBe(true);
    expect((await getJson<Answer>("/v1/search?q=chair&category=Furniture/Chai")).body.total).toBe(0);
    // An empty parameter (a form's untouched field) is no filter.
    expect((await getJson<Answer>("/v1/search?q=chair&class=&category=%20&filter[colour]=")).body.total).toBe(all.total);
  });

  it("ANDs fields, ORs a field's list, and filters the related tail too", async () => {
    // "wood" spans classes (every type comes in wood), where "chair" holds one.
    const wood = (await getJson<Answer>("/v1/search?q=wood&limit=100")).body;
    const classes = count(wood.results.filter((r) => !r.related).map((r) => r.class));
    expect(classes.length).toBeGreaterThan(1);
    const two = classes.slice(0, 2).map((c) => c.value);
    const either = (await getJson<Answer>(`/v1/search?q=wood&limit=100&class=${encodeURIComponent(two.join(","))}`)).body;
    expect(either.total).toBe((classes[0]?.count ?? 0) + (classes[1]?.count ?? 0));
    const none = (await getJson<Answer>(`/v1/search?q=wood&class=${encodeURIComponent(two[0] as string)}&category=${encodeURIComponent("No Such Top")}`)).body;
    expect(none.total).toBe(0);
    expect(none.results).toEqual([]);
    // A query whose related tail (words shared, no keyword) holds an item: filtered, the tail keeps only its class.
    const withTail = await Promise.all(
      ["red", "wood chair", "blue lamp", "glass table", "velvet sofa", "grey rug"].map(async (q) => ({
        q,
        related: (await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}&limit=100`)).body.results.filter((r) => r.related),
      })),
    );
    const found = withTail.find((t) => t.related.length > 0);
    expect(found).toBeDefined();
    const cls = found?.related[0]?.class ?? "";
    const tail = (await getJson<Answer>(`/v1/search?q=${encodeURIComponent(found?.q ?? "")}&limit=100&class=${encodeURIComponent(cls)}`)).body.results.filter(
      (r) => r.related,
    );
    expect(tail.map((r) => r.id)).toEqual((found?.related ?? []).filter((r) => r.class === cls).map((r) => r.id));
  });

  it.each([
    ["/v1/search?q=chair&class=1..2", "class"],
    ["/v1/search?q=chair&filter[colour]=red", "filter[colour]"],
    ["/v1/search?q=chair&facets=colour", "facets"],
    ["/v1/search?q=chair&facets=a,,b", "facets"],
    ["/v1/search?q=chair&filter=x", "filter"],
    ["/v1/search?q=chair&class=%20,%20", "class"],
  ])("%s is a 400 naming %s", async (path, parameter) => {
    const { res, body } = await getJson<{ parameter: string; detail: string }>(path);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(body.parameter).toBe(parameter);
  });
});

describe("an import's numeric and text facets", () => {
  const rated = withRatings(rounds.synthetic0);
  const rating = new Map(rated.items.map((it) => [it.id, Number(it.facets?.rating)]));
  beforeAll(async () => {
    expect(await publish(rated)).toBe("published"); // the newest published round serves
    clearIsolateCaches();
  });

  it("takes ranges (open ends too) and lists, and facets the field", async () => {
    const base = (await getJson<Answer & { round: number }>("/v1/search?q=chair&limit=100&facets=rating")).body;
    expect(base.round).toBe(3);
    const inRet = base.results.filter((r) => !r.related);
    expect(base.facets?.rating).toEqual(count(inRet.map((r) => String(rating.get(r.id)))));
    const hi = (await getJson<Answer>("/v1/search?q=chair&limit=100&filter[rating]=4..")).body;
    expect(hi.total).toBe(inRet.filter((r) => (rating.get(r.id) ?? 0) >= 4).length);
    expect(hi.results.length).toBeGreaterThan(0);
    for (const r of hi.results) expect(rating.get(r.id)).toBeGreaterThanOrEqual(4);
    const mid = (await getJson<Answer>("/v1/search?q=chair&limit=100&filter%5Brating%5D=2..3&filter[shade]=dark")).body;
    expect(mid.total).toBe(inRet.filter((r) => [2, 3].includes(rating.get(r.id) ?? 0) && rated.items.findIndex((i) => i.id === r.id) % 2 === 1).length);
    const { res, body } = await getJson<{ parameter: string }>("/v1/search?q=chair&filter[shade]=1..2");
    expect(res.status).toBe(400);
    expect(body.parameter).toBe("filter[shade]");
    expect((await getJson<{ parameter: string }>("/v1/search?q=chair&filter[rating]=5..1")).body.parameter).toBe("filter[rating]");
  });

  it("a round whose columns are gone from KV gets them back on its next publish", async () => {
    const m = rated.manifest;
    const keys = (await env.CACHE.list({ prefix: `col:${m.round}:` })).keys.map((k) => k.name);
    expect(keys.length).toBeGreaterThan(1);
    for (const k of keys) await env.CACHE.delete(k);
    clearIsolateCaches();
    columnLru.clear();
    const gone = await getJson<{ status: number }>("/v1/search?q=chair&facets=class");
    expect(gone.res.status).toBe(503);
    expect((await getJson<Answer>("/v1/search?q=chair")).res.status).toBe(200); // a search without facets never reads them
    expect(await publish(rated)).toBe("unchanged");
    expect((await env.CACHE.list({ prefix: `col:${m.round}:` })).keys.map((k) => k.name).sort()).toEqual([...keys].sort());
    expect((await getJson<Answer>("/v1/search?q=chair&facets=class")).res.status).toBe(200);
  });

  it("under an interleaving experiment, filters both rounds; the facet counts are the control round's", async () => {
    expect((await admin("POST", "/admin/experiments", { id: "il-facets", design: "interleave", control: 0, treatment: 3 })).res.status).toBe(201);
    const res = await send("/v1/search?q=wood&limit=100&class=chairs&facets=class", {
      headers: { "x-user-id": "facet-user", authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer & { rounds: number[]; totals: { control: number; treatment: number } };
    expect(body.rounds).toEqual([0, 3]);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.map((r) => r.class)).toEqual(body.results.map(() => "Chairs"));
    expect(body.facets).toEqual({ class: [{ value: "Chairs", count: body.totals.control }] });
  });
});
