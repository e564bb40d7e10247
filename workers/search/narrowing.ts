/**
 * A search request's filters and facets (GET /v1/search's class, category,
 * filter[NAME] and facets parameters) as core's filter requests. The schema
 * (api/facet-schemas.ts) has validated class, category and facets; the
 * `filter[NAME]` parameters are read from the URL, as OpenAPI's deepObject
 * style spells them.
 */
import type { FilterRequest } from "../../core/filters.js";
import { Problem } from "./errors.js";
import type { Narrowing } from "./facets.js";

export type { Narrowing } from "./facets.js";

export const NARROWING_LIMITS = { filterParamsMax: 20 } as const;

const FILTER_PARAM = /^filter\[([^\]]{1,128})\]$/;

export function narrowingOf(url: string, v: { class?: string; category?: string; facets: readonly string[] }): Narrowing {
  const filters: FilterRequest[] = [];
  // An empty parameter (a form's untouched field) is no filter.
  if (v.class !== undefined && v.class.trim() !== "") filters.push({ parameter: "class", field: "class", raw: v.class });
  if (v.category !== undefined && v.category.trim() !== "") filters.push({ parameter: "category", field: "category", raw: v.category });
  for (const [key, raw] of new URL(url).searchParams) {
    if (!key.startsWith("filter[")) continue;
    const m = FILTER_PARAM.exec(key);
    if (!m) throw new Problem("invalidParameter", `${key.slice(0, 140)}: a field filter is spelled filter[NAME]=VALUES`, { parameter: key.slice(0, 140) });
    if (raw.trim() !== "") filters.push({ parameter: key, field: m[1] as string, raw });
  }
  if (filters.length > NARROWING_LIMITS.filterParamsMax) {
    throw new Problem("invalidParameter", `at most ${NARROWING_LIMITS.filterParamsMax} filters`, { parameter: "filter" });
  }
  return { filters, facets: [...new Set(v.facets)] };
}
