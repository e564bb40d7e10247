/** Per-user statistics (CUPED, the interleaving preference) and debiased credit, against values computed by hand (Python, to 1e-9). */
import { describe, expect, it } from "vitest";
import { AA_DEFAULTS, aaCupedRate, aaPreferenceRate, looks } from "../../scripts/simulate/aa-monte-carlo.js";
import { soleContributions, teamDraft } from "../../workers/search/experiments/interleave.js";
import { addUser, cupedMsprt, meanPreferenceMsprt, NO_USERS, type UserMoments, userPreference } from "../../workers/search/experiments/user-statistics.js";

/** Users with these values of y (and x), each weight 1. */
const usersOf = (ys: readonly number[], xs: readonly number[] = []): UserMoments => ys.reduce((m, y, j) => addUser(m, y, xs[j] ?? 0), NO_USERS);
const repeat = (n: number, y: number) => Array.from({ length: n }, () => y);

describe("CUPED over per-user CTRs", () => {
  it("without a covariate is the mixture SPRT of the difference of means, with Var(ȳ) = s² / n per arm", () => {
    const control = usersOf([...repeat(50, 1), ...repeat(50, 0)]);
    const treatment = usersOf([...repeat(75, 1), ...repeat(25, 0)]);
    const c = cupedMsprt(control, treatment, { tau: 0.02, alpha: 0.05 });
    expect(c.theta).toBe(0);
    expect(c.rawDifference).toBeCloseTo(0.25, 12);
    expect(c.varianceReduction).toBe(0);
    // d = 0.25, v = 0.25 / 100 + 0.1875 / 100 = 0.004375
    expect(c.sequential.pValue).toBeCloseTo(0.574295734757132, 9);
    expect(c.sequential.confidenceSequence[0]).toBeCloseTo(-0.31345609112582684, 9);
    expect(c.sequential.confidenceSequence[1]).toBeCloseTo(0.8134560911258268, 9);
  });

  it("removes what the covariate explains: y = x + δ in the treatment gives exactly δ, and nearly all the variance goes", () => {
    const xs = Array.from({ length: 200 }, (_, j) => (j % 20) / 20);
    const control = usersOf(xs, xs);
    const treatment = usersOf(
      xs.map((x) => x + 0.1),
      xs,
    );
    const c = cupedMsprt(control, treatment);
    expect(c.theta).toBeCloseTo(1, 12);
    expect(c.sequential.difference).toBeCloseTo(0.1, 12);
    expect(c.varianceReduction).toBeGreaterThan(0.9);
    expect(c.sequential.pValue).toBeLessThan(1e-6);
  });

  it("corrects a covariate imbalance the raw difference mistakes for an effect", () => {
    // Same y = x in both arms, but the treatment's users happened to type easier queries.
    const control = usersOf([0.2, 0.3, 0.4, 0.5], [0.2, 0.3, 0.4, 0.5]);
    const treatment = usersOf([0.4, 0.5, 0.6, 0.7], [0.4, 0.5, 0.6, 0.7]);
    const c = cupedMsprt(control, treatment);
    expect(c.rawDifference).toBeCloseTo(0.2, 12);
    expect(c.sequential.difference).toBeCloseTo(0, 12);
  });

  it("counts a prefix's thousand keys as the few users their weights add up to", () => {
    const honest = usersOf(repeat(100, 0));
    // 400 keys from one prefix, each clicking, weight 8 / 400: 8 users' worth.
    const farmed = Array.from({ length: 400 }).reduce<UserMoments>((m) => addUser(m, 1, 0, 8 / 400), honest);
    expect(farmed.n).toBeCloseTo(108, 9);
    expect(cupedMsprt(honest, farmed).sequential.pValue).toBeGreaterThan(0.05);
  });

  it("has no verdict while an arm has no users", () => {
    const c = cupedMsprt(NO_USERS, usersOf([1, 1, 1]));
    expect(c.sequential.pValue).toBe(1);
    expect(c.sequential.confidenceSequence).toEqual([-1, 1]);
  });
});

describe("the interleaving preference per user", () => {
  it("is (won − lost) / (won + lost), none for a user with no decided search", () => {
    expect(userPreference(3, 1)).toBe(0.5);
    expect(userPreference(0, 2)).toBe(-1);
    expect(userPreference(0, 0)).toBeNull();
  });

  it("tests the mean preference against 0 with the variance about 0", () => {
    const s = meanPreferenceMsprt(usersOf([...repeat(70, 1), ...repeat(30, -1)]), { tau: 0.2, alpha: 0.05 });
    // d = 0.4, v = (Σy² / n) / n = 0.01
    expect(s.difference).toBeCloseTo(0.4, 12);
    expect(s.pValue).toBeCloseTo(0.0037153550113261024, 9);
    expect(s.confidenceSequence[0]).toBeCloseTo(0.09176100061109072, 9);
    expect(s.confidenceSequence[1]).toBeCloseTo(0.7082389993889093, 9);
    expect(meanPreferenceMsprt(NO_USERS).pValue).toBe(1);
  });

  it("is undecided at a fair split and decides a lopsided one", () => {
    expect(meanPreferenceMsprt(usersOf([...repeat(500, 1), ...repeat(500, -1)])).pValue).toBe(1);
    expect(meanPreferenceMsprt(usersOf([...repeat(40, -1), ...repeat(10, 1)])).pValue).toBeLessThan(0.05);
  });
});

describe("A/A under continuous monitoring (Monte Carlo, seeded)", () => {
  const o = { ...AA_DEFAULTS, experiments: 300, maxUsers: 2000 };

  it("reads the report at users × 1.05", () => {
    expect(looks({ firstLook: 10, growth: 1.05, maxUsers: 14 })).toEqual([10, 11, 12, 13, 14]);
    expect(looks(o).at(-1)).toBe(2000);
  });

  it("keeps the preference test's false-positive rate under 5 %", () => {
    expect(aaPreferenceRate(o)).toBeLessThanOrEqual(0.05);
  });

  it("keeps CUPED's false-positive rate under 5 %", () => {
    expect(aaCupedRate(o)).toBeLessThanOrEqual(0.05);
  });
});

describe("debiased credit", () => {
  it("credits only items one round alone ranked", () => {
    const sole = soleContributions(["a", "b", "c", "d"], ["b", "a", "e", "f"], (x) => x);
    expect(["a", "b", "c", "d", "e", "f"].filter(sole)).toEqual(["c", "d", "e", "f"]);
  });

  it("credits nothing when the rounds agree, whatever team the coin gave each item", () => {
    const list = ["a", "b", "c", "d", "e"];
    const sole = soleContributions(list, [...list], (x) => x);
    const merged = teamDraft(list, [...list], 5, 7);
    expect(merged.map((d) => d.item)).toEqual(list);
    expect(new Set(merged.map((d) => d.team))).toEqual(new Set(["control", "treatment"]));
    expect(merged.filter((d) => sole(d.item))).toEqual([]);
  });
});
