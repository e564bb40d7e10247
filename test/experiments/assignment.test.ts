/** Arm assignment: split proportions, stickiness, monotone ramps; team-draft interleaving: fairness, no duplicates, credit. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { armOfBucket, bucketOf, rampProblem, treatmentCapBp } from "../../workers/search/experiments/assignment.js";
import type { Arm } from "../../workers/search/experiments/config.js";
import { preference, teamDraft } from "../../workers/search/experiments/interleave.js";
import { experimentFrom, InvalidExperiment, rampedExperiment } from "../../workers/search/experiments/validate.js";

const users = (n: number) => Array.from({ length: n }, (_, j) => `user-${j}`);

describe("assignment", () => {
  it("splits 100,000 users within ±1 % of the weights", () => {
    for (const arms of [
      [
        { round: 3, weight: 9000 },
        { round: 4, weight: 1000 },
      ],
      [
        { round: 1, weight: 4000 },
        { round: 2, weight: 3000 },
        { round: 3, weight: 3000 },
      ],
    ]) {
      const counts = new Array(arms.length).fill(0);
      for (const u of users(100_000)) counts[armOfBucket(arms, 0, bucketOf("salt-1", u))]++;
      arms.forEach((a, j) => {
        expect(Math.abs(counts[j] / 100_000 - a.weight / 10_000)).toBeLessThan(0.01);
      });
    }
  });

  it("is sticky: the same salt and user always get the same bucket; another salt reshuffles", () => {
    const a = users(1000).map((u) => bucketOf("s", u));
    expect(users(1000).map((u) => bucketOf("s", u))).toEqual(a);
    const moved = users(1000).filter((u, j) => bucketOf("other", u) !== a[j]).length;
    expect(moved).toBeGreaterThan(900);
  });

  it("ramps monotonically: raising treatment arms only moves users into them, from control", () => {
    const weights = fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(weights, fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 4, maxLength: 4 }), (start, raises) => {
        const k = start.length;
        const cap = treatmentCapBp(k);
        const before: Arm[] = [
          { round: 0, weight: 10_000 - start.reduce((s, w) => s + Math.min(w, cap), 0) },
          ...start.map((w, j) => ({ round: j + 1, weight: Math.min(w, cap) })),
        ];
        const after: Arm[] = before.map((a, j) => (j === 0 ? a : { ...a, weight: Math.min(cap, a.weight + (raises[j - 1] ?? 0)) }));
        (after[0] as { weight: number }).weight = 10_000 - after.slice(1).reduce((s, a) => s + a.weight, 0);
        expect(rampProblem(before, after, 0)).toBeNull();
        // Every bucket that changes arm leaves control (only control loses users) for a raised arm.
        const moves: Array<{ from: number; toRaised: boolean }> = [];
        for (let b = 0; b < 10_000; b += 7) {
          const was = armOfBucket(before, 0, b);
          const now = armOfBucket(after, 0, b);
          if (was !== now) moves.push({ from: was, toRaised: (after[now] as Arm).weight > (before[now] as Arm).weight });
        }
        expect(moves.filter((m) => m.from !== 0 || !m.toRaised)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses ramps that shrink a treatment or change rounds", () => {
    const before = [
      { round: 0, weight: 8000 },
      { round: 1, weight: 2000 },
    ];
    expect(
      rampProblem(
        before,
        [
          { round: 0, weight: 9000 },
          { round: 1, weight: 1000 },
        ],
        0,
      ),
    ).toMatch(/shrink/);
    expect(
      rampProblem(
        before,
        [
          { round: 0, weight: 8000 },
          { round: 2, weight: 2000 },
        ],
        0,
      ),
    ).toMatch(/changes only weights/);
  });
});

describe("validation", () => {
  const published = new Set([0, 1, 2]);
  const now = new Date("2026-12-01T00:00:00Z");
  const fieldOf = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof InvalidExperiment ? `${e.field}: ${e.message}` : `other: ${String(e)}`;
    }
    return null;
  };

  /** An A/B request from [round, weight] pairs (and optional extra fields), and the field it is refused on. */
  const ab = (pairs: Array<[number, number]>, extra: Record<string, unknown> = {}) =>
    fieldOf(() => experimentFrom({ design: "ab", arms: pairs.map(([round, weight]) => ({ round, weight })), ...extra }, published, now, "s"));

  it("names the field at fault", () => {
    expect(
      ab([
        [0, 9000],
        [1, 500],
      ]),
    ).toMatch(/^arms: .*sum to 10000/);
    expect(
      ab([
        [0, 9000],
        [9, 1000],
      ]),
    ).toBe("arms.1.round: round 9 is not published");
    expect(
      ab([
        [0, 5000],
        [0, 5000],
      ]),
    ).toMatch(/^arms: each arm/);
    expect(
      ab(
        [
          [0, 5000],
          [1, 5000],
        ],
        { control: 2 },
      ),
    ).toMatch(/^control:/);
    expect(
      ab([
        [0, 2000],
        [1, 6000],
        [2, 2000],
      ]),
    ).toMatch(/^arms\.1\.weight: .*at most 5000/);
    expect(fieldOf(() => experimentFrom({ design: "interleave", control: 1 }, published, now, "s"))).toMatch(/^treatment:/);
    expect(fieldOf(() => experimentFrom({ design: "interleave", control: 1, treatment: 1 }, published, now, "s"))).toMatch(/^treatment: .*different/);
  });

  it("builds a running experiment, and ramps it", () => {
    const e = experimentFrom(
      {
        design: "ab",
        arms: [
          { round: 0, weight: 9000 },
          { round: 1, weight: 1000 },
        ],
      },
      published,
      now,
      "salt",
    );
    expect(e).toMatchObject({ state: "running", control: 0, salt: "salt", id: "exp-20261201000000" });
    const ramped = rampedExperiment(
      e,
      [
        { round: 0, weight: 5000 },
        { round: 1, weight: 5000 },
      ],
      now,
    );
    expect(ramped.arms.map((a) => a.weight)).toEqual([5000, 5000]);
    expect(
      fieldOf(() =>
        rampedExperiment(
          ramped,
          [
            { round: 0, weight: 6000 },
            { round: 1, weight: 4000 },
          ],
          now,
        ),
      ),
    ).toMatch(/shrink/);
  });
});

describe("team-draft interleaving", () => {
  const a = ["a1", "a2", "a3", "s1", "a4", "s2"];
  const b = ["s1", "b1", "s2", "b2", "b3"];

  it("never shows an item twice, and keeps each list's own order", () => {
    for (let seed = 1; seed < 200; seed++) {
      const merged = teamDraft(a, b, 8, seed);
      const ids = merged.map((d) => d.item);
      expect(new Set(ids).size).toBe(ids.length);
      for (const [team, list] of [
        ["control", a],
        ["treatment", b],
      ] as const) {
        const mine = merged.filter((d) => d.team === team).map((d) => list.indexOf(d.item));
        expect([...mine].sort((x, y) => x - y)).toEqual(mine);
      }
      // Teams stay balanced: picks differ by at most one.
      const t = merged.filter((d) => d.team === "treatment").length;
      expect(Math.abs(t - (merged.length - t))).toBeLessThanOrEqual(1);
    }
  });

  it("is fair: each round leads about half the time", () => {
    let controlFirst = 0;
    for (let seed = 1; seed <= 2000; seed++) if (teamDraft(a, b, 1, seed)[0]?.team === "control") controlFirst++;
    expect(Math.abs(controlFirst / 2000 - 0.5)).toBeLessThan(0.04);
  });

  it("credits clicks to the team that contributed the clicked item", () => {
    expect(preference(["treatment", "treatment", "control"])).toBe("treatment");
    expect(preference(["control"])).toBe("control");
    expect(preference(["control", "treatment"])).toBe("tie");
    expect(preference([])).toBe("tie");
  });

  it("fills from the other list when one runs out", () => {
    const merged = teamDraft(["x"], ["y", "z", "w"], 10, 3);
    expect(merged.map((d) => d.item).sort()).toEqual(["w", "x", "y", "z"]);
  });
});
