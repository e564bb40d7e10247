import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bucketsOfText,
  bucketsOfTyped,
  matchText,
  parseSuggestBucket,
  rankSuggestions,
  SUGGEST_FORMAT,
  SUGGEST_VERSION,
  type SuggestBucket,
  SuggestBuilder,
  startsOfTyped,
  typedWords,
} from "../../core/suggest.js";

const bucket = (kind: "query" | "keyword", entries: Array<[string, number]>): SuggestBucket => ({
  format: SUGGEST_FORMAT,
  version: SUGGEST_VERSION,
  kind,
  entries,
});

describe("matching typed words", () => {
  it("matches the last word as a prefix and the others whole, from any word of the suggestion", () => {
    expect(matchText(["arm"], "armchair")).toEqual({ typos: 0, start: 0 });
    expect(matchText(["chair"], "accent chair")).toEqual({ typos: 0, start: 1 });
    expect(matchText(["accent", "ch"], "accent chair")).toEqual({ typos: 0, start: 0 });
    expect(matchText(["acc", "chair"], "accent chair")).toBeNull(); // an earlier word is whole
    expect(matchText(["chair", "acc"], "accent chair")).toBeNull(); // in order
    expect(matchText(["sofa"], "armchair")).toBeNull();
  });

  it("tolerates no typo up to 4 characters, one from 5, two from 9", () => {
    expect(matchText(["amr"], "armchair")).toBeNull();
    expect(matchText(["sfoa"], "sofa")).toBeNull();
    expect(matchText(["armchiar"], "armchair")).toEqual({ typos: 1, start: 0 }); // transposition
    expect(matchText(["armchsir"], "armchair")).toEqual({ typos: 1, start: 0 }); // substitution
    expect(matchText(["acent", "chair"], "accent chair")).toEqual({ typos: 1, start: 0 }); // a whole word with a deletion
    expect(matchText(["armcjiar"], "armchair")).toBeNull(); // two typos in 8 characters
    expect(matchText(["armcjairss"], "armchairs")).toEqual({ typos: 2, start: 0 });
  });

  it("needs a word's first two characters, or its first and third", () => {
    expect(startsOfTyped("amrchair")).toEqual(["am", "ar"]);
    expect(matchText(["amrchair"], "armchair")).toEqual({ typos: 1, start: 0 }); // transposed second and third
    expect(matchText(["axrmchair"], "armchair")).toEqual({ typos: 1, start: 0 }); // an extra second letter
    expect(matchText(["rmchair"], "armchair")).toBeNull(); // the first letter lost
    expect(startsOfTyped("arm")).toEqual(["ar"]); // no typos, one start
    expect(startsOfTyped("a")).toEqual(["a"]);
  });

  it("normalises what was typed as keywords are normalised, keeping at most six words", () => {
    expect(typedWords("  Accent-CHAIR ")).toEqual(["accent", "chair"]);
    expect(typedWords("!!")).toEqual([]);
    expect(typedWords("a b c d e f g h")).toHaveLength(6);
  });
});

describe("ranking", () => {
  it("orders by typos, then first-word matches, then queries before keywords, then score; a text once, as the query", () => {
    const keywords = bucket("keyword", [
      ["accent chair", 90],
      ["armchair", 50],
      ["armchairs", 70],
      ["chair", 99],
    ]);
    const queries = bucket("query", [
      ["armchair", 6],
      ["armless chair", 5],
    ]);
    expect(rankSuggestions(["arm"], [keywords, queries], 10)).toEqual([
      { text: "armchair", kind: "query" },
      { text: "armless chair", kind: "query" },
      { text: "armchairs", kind: "keyword" },
    ]);
    expect(rankSuggestions(["chair"], [keywords, queries], 10).map((s) => s.text)).toEqual(["chair", "armless chair", "accent chair"]);
    expect(rankSuggestions(["armchai"], [keywords], 1)).toEqual([{ text: "armchairs", kind: "keyword" }]);
    expect(rankSuggestions(["armchaie"], [keywords], 2).map((s) => s.text)).toEqual(["armchairs", "armchair"]); // both one typo: by score
  });

  it("refuses a stored bucket of another format or version", () => {
    expect(() => parseSuggestBucket({ ...bucket("keyword", []), version: 99 })).toThrow(/unsupported suggestion bucket/);
    expect(() => parseSuggestBucket(null)).toThrow(/unsupported/);
    expect(parseSuggestBucket(JSON.parse(JSON.stringify(bucket("query", [["a", 1]])))).kind).toBe("query");
  });
});

const syllable = fc.constantFrom("ar", "am", "ra", "ch", "ai", "r", "m", "so", "fa", "ac");
const aWord = fc.array(syllable, { minLength: 1, maxLength: 5 }).map((s) => s.join(""));
const aText = fc.array(aWord, { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
const scored = fc.uniqueArray(fc.tuple(aText, fc.integer({ min: 1, max: 1000 })), { selector: ([t]) => t, maxLength: 60 });

describe("the buckets", () => {
  it("file every text under each word's first character and first two", () => {
    expect(bucketsOfText("accent chair").sort()).toEqual(["a", "ac", "c", "ch"]);
    expect(bucketsOfText("a b")).toEqual(["a", "b"]);
  });

  it("keep each bucket's best entries within its budget, and skip texts that are not normalised", () => {
    const b = new SuggestBuilder("keyword", 2);
    for (const [t, s] of [
      ["arm", 1],
      ["armchair", 9],
      ["armless", 5],
      ["Armoire", 99],
      ["arm", 7],
    ] as Array<[string, number]>)
      b.add(t, s);
    const built = b.build();
    expect(built.get("ar")?.entries).toEqual([
      ["armchair", 9],
      ["arm", 7],
    ]);
    expect(built.get("a")?.kind).toBe("keyword");
  });

  it("find for any typed words what one bucket of every entry finds, while the budget holds them all (property)", () => {
    fc.assert(
      fc.property(scored, fc.array(aWord, { minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 8 }), (entries, typed, limit) => {
        const b = new SuggestBuilder("keyword", 1000);
        for (const [t, s] of entries) b.add(t, s);
        const built = b.build();
        const read = bucketsOfTyped(typed).flatMap((k) => {
          const got = built.get(k);
          return got ? [got] : [];
        });
        expect(rankSuggestions(typed, read, limit)).toEqual(rankSuggestions(typed, [bucket("keyword", entries)], limit));
      }),
      { numRuns: 300 },
    );
  });

  it("hold, under a budget, a bucket's best entries of all filed there (property)", () => {
    fc.assert(
      fc.property(scored, fc.integer({ min: 1, max: 5 }), (entries, perBucket) => {
        const b = new SuggestBuilder("query", perBucket);
        for (const [t, s] of entries) b.add(t, s);
        for (const [key, got] of b.build()) {
          const filed = entries.filter(([t]) => bucketsOfText(t).includes(key));
          const best = [...filed].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, perBucket);
          expect(got.entries).toEqual(best);
        }
      }),
    );
  });

  it("let the words of any suggestion, the last cut short, find it without typos (property)", () => {
    fc.assert(
      fc.property(aText, fc.nat(), (text, cut) => {
        const words = text.split(" ");
        const last = words.at(-1) as string;
        const typed = [...words.slice(0, -1), last.slice(0, 1 + (cut % last.length))];
        expect(matchText(typed, text)).toEqual({ typos: 0, start: 0 });
      }),
    );
  });
});
