/**
 * The search's filter and facet parameters and the `facets` answer
 * (workers/search/facets.ts, core/filters.ts), spread into schemas.ts's
 * search schemas.
 */
import { z } from "@hono/zod-openapi";
import { COLUMN_LIMITS } from "../../../core/columns.js";
import { FILTER_LIMITS } from "../../../core/filters.js";

export const FACET_PARAM_LIMITS = { facetsMax: 10, facetNameMaxChars: 128 } as const;

const VALUES =
  "A comma-separated list (OR; `\\,` is a comma inside a value). Values match after normalisation: case, punctuation and spacing do not count. " +
  "A value the round does not hold matches nothing.";

const filterText = (name: string, description: string, example: string) =>
  z
    .string()
    .max(FILTER_LIMITS.rawCharsMax, `${name} must be at most ${FILTER_LIMITS.rawCharsMax} characters`)
    .optional()
    .openapi({ param: { name, in: "query", description }, type: "string", maxLength: FILTER_LIMITS.rawCharsMax, example });

const FACETS = `facets must be a comma-separated list of at most ${FACET_PARAM_LIMITS.facetsMax} field names`;

export const FilterFields = {
  class: filterText("class", `Only items of these classes. ${VALUES}`, "Accent Chairs"),
  category: filterText(
    "category",
    "Only items at or below these category paths: segments separated by `/` (spaces around it do not count), matched whole from the top level " +
      `(\`Furniture/Living Room Furniture\` holds \`Furniture / Living Room Furniture / Chairs & Seating\`; \`Furniture/Living\` holds nothing). ${VALUES}`,
    "Furniture/Living Room Furniture",
  ),
  filter: z
    .record(z.string(), z.string())
    .optional()
    .openapi({
      param: {
        name: "filter",
        in: "query",
        style: "deepObject",
        explode: true,
        description:
          "The catalogue's own fields (an import's `--facet` names), as `filter[NAME]=VALUES`: a list as for class, or, on a numeric field, a range `MIN..MAX` " +
          "(inclusive, either end open: `filter[rating]=4..`). Fields combine with AND. A field the round does not have is a 400 naming `filter[NAME]`.",
      },
      example: { rating: "4..5" },
    }),
  facets: z
    .string()
    .regex(
      new RegExp(`^[^,]{1,${FACET_PARAM_LIMITS.facetNameMaxChars}}(,[^,]{1,${FACET_PARAM_LIMITS.facetNameMaxChars}}){0,${FACET_PARAM_LIMITS.facetsMax - 1}}$`),
      FACETS,
    )
    .optional()
    .transform((v) => (v === undefined ? [] : v.split(",").map((s) => s.trim())))
    .openapi({
      param: {
        name: "facets",
        in: "query",
        description:
          `At most ${FACET_PARAM_LIMITS.facetsMax} field names, comma-separated, whose values are counted over the whole filtered I_ret(q) (not the page): \`class\`, \`category\` (the level below the one \`category\` filters on, else the top level; \`category.lvl0\`, \`category.lvl1\`… name a level), ` +
          `or an import's \`--facet\` field. Each gets its top ${COLUMN_LIMITS.facetTop} values by count (ties by value). Interleaved, the counts are the control round's.`,
      },
      type: "string",
      example: "class,category",
    }),
};

export const FacetCounts = z
  .record(z.string(), z.array(z.object({ value: z.string(), count: z.number().int().positive() })).max(COLUMN_LIMITS.facetTop))
  .openapi("FacetCounts", {
    description: `With facets: per field asked, its top ${COLUMN_LIMITS.facetTop} values over the filtered I_ret(q), by count, ties by value. A category level's value is its whole path, which \`category\` takes back.`,
  });
