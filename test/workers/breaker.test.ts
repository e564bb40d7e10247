/** The LLM circuit breaker as a state machine, on a fake clock. */
import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../workers/search/llm-breaker.js";

describe("CircuitBreaker", () => {
  it("opens after consecutive failures, lets one probe through after the cool-down, and closes on its success", () => {
    let now = 0;
    const b = new CircuitBreaker({ failuresToOpen: 3, coolDownMs: 1000 }, () => now);
    for (let j = 0; j < 2; j++) {
      expect(b.allow()).toBe(true);
      b.failure("boom");
    }
    expect(b.snapshot()).toEqual({ state: "closed", consecutiveFailures: 2, lastError: "boom" });
    b.success(); // a success in between resets the count
    for (let j = 0; j < 3; j++) {
      expect(b.allow()).toBe(true);
      b.failure("boom");
    }
    expect(b.snapshot().state).toBe("open");
    now = 999;
    expect(b.allow()).toBe(false);
    now = 1000;
    expect(b.allow()).toBe(true); // the probe
    expect(b.snapshot().state).toBe("half-open");
    expect(b.allow()).toBe(false); // everyone else keeps the fallback meanwhile
    b.success();
    expect(b.snapshot()).toEqual({ state: "closed", consecutiveFailures: 0, lastError: null });
    expect(b.allow()).toBe(true);
  });

  it("reopens when the probe fails, and gets the probe back when the request did not call", () => {
    let now = 0;
    const b = new CircuitBreaker({ failuresToOpen: 1, coolDownMs: 10 }, () => now);
    b.failure("down");
    now = 10;
    expect(b.allow()).toBe(true);
    b.failure("still down");
    expect(b.snapshot().state).toBe("open");
    expect(b.allow()).toBe(false);
    now = 20;
    expect(b.allow()).toBe(true);
    b.release(); // answered from a cache: no call was made
    expect(b.allow()).toBe(true);
  });
});
