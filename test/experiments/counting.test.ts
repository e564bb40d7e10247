/**
 * The pure parts of counting an experiment so one client cannot steer it:
 * the network prefix (IPv4 /24, IPv6 /48) and its salted hash, the
 * concentration of a finding's events, the cron's choice between pause and
 * rollback, SRM's overweight arm, and the lifecycle around a pause.
 */
import { describe, expect, it } from "vitest";
import type { Experiment } from "../../workers/search/experiments/config.js";
import { DEFAULT_GUARDRAILS } from "../../workers/search/experiments/config.js";
import { COUNTING_LIMITS, concentrationOf, guardrailAction, mostOverweightArm } from "../../workers/search/experiments/counting.js";
import { changeRefusal, pausedExperiment, resumedExperiment } from "../../workers/search/experiments/lifecycle.js";
import { hashedNetwork, networkPrefix, UNKNOWN_NETWORK } from "../../workers/search/experiments/network.js";
import { InvalidExperiment } from "../../workers/search/experiments/validate.js";

describe("networkPrefix", () => {
  it("cuts IPv4 to its /24 and IPv6 to its /48, in one canonical form", () => {
    expect(networkPrefix("203.0.113.7")).toBe("4:203.0.113");
    expect(networkPrefix("203.0.113.250")).toBe(networkPrefix("203.0.113.7"));
    expect(networkPrefix("203.0.114.7")).not.toBe(networkPrefix("203.0.113.7"));
    expect(networkPrefix("2001:db8:abcd:12::1")).toBe("6:2001:db8:abcd");
    expect(networkPrefix("2001:0DB8:ABCD:0012:0000:0000:0000:0001")).toBe("6:2001:db8:abcd");
    expect(networkPrefix("2001:db8:abcd:ffff:1:2:3:4")).toBe("6:2001:db8:abcd");
    expect(networkPrefix("2001:db8::1")).toBe("6:2001:db8:0");
    expect(networkPrefix("::1")).toBe("6:0:0:0");
    expect(networkPrefix("fe80::1%eth0")).toBe("6:fe80:0:0");
    expect(networkPrefix("64:ff9b::192.0.2.33")).toBe("6:64:ff9b:0");
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4 client", () => {
    expect(networkPrefix("::ffff:203.0.113.7")).toBe("4:203.0.113");
    expect(networkPrefix("::ffff:cb00:7107")).toBe("4:203.0.113");
  });

  it("counts an absent or malformed address as the one unknown network", () => {
    for (const bad of [
      undefined,
      null,
      "",
      "unknown",
      "256.1.1.1",
      "1.2.3",
      "1.2.3.4.5",
      "01234.1.1.1",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::1",
      "g::1",
      "1:2:3:4:5:6:7",
    ])
      expect(networkPrefix(bad), String(bad)).toBe(UNKNOWN_NETWORK);
  });

  it("is stored hashed with the salt: the same within an experiment, unrelated across salts, never the address", async () => {
    const a = await hashedNetwork("salt-1", "203.0.113.7");
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(await hashedNetwork("salt-1", "203.0.113.99")).toBe(a);
    expect(await hashedNetwork("salt-1", "203.0.112.7")).not.toBe(a);
    expect(await hashedNetwork("salt-2", "203.0.113.7")).not.toBe(a);
    expect(a).not.toContain("203");
  });
});

describe("concentration", () => {
  const p = (net: string, events: number) => ({ net, events });

  it("is the share of a finding's events its top prefixes hold, concentrated above the threshold", () => {
    const c = concentrationOf([p("a", 10), p("b", 300), p("c", 5), p("d", 200)], 600);
    expect(c.top.map((t) => t.net)).toEqual(["b", "d", "a"]);
    expect(c.share).toBeCloseTo(510 / 600, 12);
    expect(c.concentrated).toBe(true);
    expect(COUNTING_LIMITS.concentrationTopPrefixes).toBe(3);
  });

  it("is not concentrated when the events are spread, or at exactly the threshold", () => {
    const spread = Array.from({ length: 60 }, (_, j) => p(`n${j}`, 1));
    expect(concentrationOf(spread, 60)).toMatchObject({ share: 0.05, concentrated: false });
    expect(concentrationOf([p("a", 50)], 100)).toMatchObject({ share: COUNTING_LIMITS.concentrationShareMin, concentrated: false });
    expect(concentrationOf([p("a", 51)], 100).concentrated).toBe(true);
    expect(concentrationOf([], 0)).toMatchObject({ share: 0, concentrated: false });
  });

  it("pauses only when every finding is concentrated; one diffuse finding rolls back", () => {
    const yes = { concentrated: true };
    const no = { concentrated: false };
    expect(guardrailAction([])).toBe("none");
    expect(guardrailAction([yes])).toBe("pause");
    expect(guardrailAction([yes, yes])).toBe("pause");
    expect(guardrailAction([yes, no])).toBe("rollback");
    expect(guardrailAction([no])).toBe("rollback");
  });

  it("names the arm most over its expected share for SRM", () => {
    expect(mostOverweightArm([100, 180], [5000, 5000])).toBe(1);
    expect(mostOverweightArm([100, 20], [9000, 1000])).toBe(1); // 20 against 12 expected
    expect(mostOverweightArm([130, 10], [9000, 1000])).toBe(0);
    expect(mostOverweightArm([50, 50, 120], [4000, 3000, 3000])).toBe(2);
  });
});

describe("the lifecycle around a pause", () => {
  const running: Experiment = {
    id: "e",
    design: "ab",
    salt: "s",
    arms: [
      { round: 0, weight: 5000 },
      { round: 1, weight: 5000 },
    ],
    control: 0,
    interleaveShareBp: 0,
    guardrails: DEFAULT_GUARDRAILS,
    state: "running",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
  const now = new Date("2026-01-02T00:00:00.000Z");

  it("defines every change from running and from paused", () => {
    const paused = pausedExperiment(running, ["a", "b", "a"], now);
    expect(paused).toMatchObject({ state: "paused", suspectPrefixes: ["a", "b"], updatedAt: now.toISOString() });
    for (const action of ["ramp", "pause", "promote", "rollback", "stop"] as const) expect(changeRefusal(running, action), action).toBeNull();
    expect(changeRefusal(running, "resume")).toBe("experiment e is running; resume applies to a paused experiment");
    for (const action of ["resume", "promote", "rollback", "stop"] as const) expect(changeRefusal(paused, action), action).toBeNull();
    expect(changeRefusal(paused, "ramp")).toBe("experiment e is paused: resume it before ramping");
    expect(changeRefusal(paused, "pause")).toMatch(/is paused; pause applies to a running experiment/);
    for (const state of ["promoted", "rolled_back", "stopped"] as const)
      for (const action of ["ramp", "pause", "resume", "promote", "rollback", "stop"] as const)
        expect(changeRefusal({ ...running, state }, action), `${state} ${action}`).not.toBeNull();
  });

  it("resumes with the suspects excluded by default, or still counted", () => {
    const paused = pausedExperiment({ ...running, excludedPrefixes: ["old"] }, ["a", "b"], now);
    const excluding = resumedExperiment(paused, true, now);
    expect(excluding).toMatchObject({ state: "running", excludedPrefixes: ["old", "a", "b"] });
    expect(excluding).not.toHaveProperty("suspectPrefixes");
    const counting = resumedExperiment(paused, false, now);
    expect(counting).toMatchObject({ state: "running", excludedPrefixes: ["old"] });
    expect(counting).not.toHaveProperty("suspectPrefixes");
    expect(resumedExperiment(pausedExperiment(running, [], now), true, now)).not.toHaveProperty("excludedPrefixes");
  });

  it("refuses a resume that would exclude more prefixes than the budget, naming the field", () => {
    const many = Array.from({ length: COUNTING_LIMITS.excludedPrefixesMax }, (_, j) => `p${j}`);
    const paused = pausedExperiment({ ...running, excludedPrefixes: many }, ["one-more"], now);
    expect(() => resumedExperiment(paused, true, now)).toThrow(InvalidExperiment);
    expect(() => resumedExperiment(paused, true, now)).toThrow(/at most 64 network prefixes/);
    expect(resumedExperiment(paused, false, now).excludedPrefixes).toHaveLength(COUNTING_LIMITS.excludedPrefixesMax);
  });
});
