/**
 * A circuit breaker per isolate and LLM endpoint. After `failuresToOpen`
 * consecutive failures (errors, timeouts, unusable answers) the circuit
 * opens: searches skip the LLM and answer from the round's fallback at once.
 * After `coolDownMs` one request probes (half-open) while the others keep
 * the fallback; its success closes the circuit, its failure reopens it.
 * Without it, a hanging endpoint adds the whole latency budget to every
 * search (issue 14 measured 6 req/s instead of about 480).
 */
export const BREAKER_LIMITS = { failuresToOpen: 3, coolDownMs: 30_000 } as const;

export type CircuitState = "closed" | "open" | "half-open";

export interface BreakerSnapshot {
  readonly state: CircuitState;
  readonly consecutiveFailures: number;
  readonly lastError: string | null;
}

export class CircuitBreaker {
  private failures = 0;
  private openedAtMs = 0;
  private state: CircuitState = "closed";
  private probing = false;
  private lastError: string | null = null;

  constructor(
    private readonly limits: { readonly failuresToOpen: number; readonly coolDownMs: number } = BREAKER_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** May this request call the LLM? In half-open state only the one probe may. */
  allow(): boolean {
    if (this.state === "open" && this.now() - this.openedAtMs >= this.limits.coolDownMs) {
      this.state = "half-open";
      this.probing = false;
    }
    if (this.state === "closed") return true;
    if (this.state === "half-open" && !this.probing) {
      this.probing = true;
      return true;
    }
    return false;
  }

  /** A request that was allowed but did not call after all (its answer was cached) gives the probe back. */
  release(): void {
    if (this.state === "half-open") this.probing = false;
  }

  success(): void {
    this.failures = 0;
    this.state = "closed";
    this.probing = false;
    this.lastError = null;
  }

  failure(reason: string): void {
    this.failures++;
    this.lastError = reason;
    if (this.state === "half-open" || this.failures >= this.limits.failuresToOpen) {
      this.state = "open";
      this.openedAtMs = this.now();
      this.probing = false;
    }
  }

  snapshot(): BreakerSnapshot {
    return { state: this.state, consecutiveFailures: this.failures, lastError: this.lastError };
  }
}

const breakers = new Map<string, CircuitBreaker>();

/** The isolate's breaker for an endpoint. */
export function breakerFor(baseUrl: string, coolDownMs: number = BREAKER_LIMITS.coolDownMs): CircuitBreaker {
  let b = breakers.get(baseUrl);
  if (!b) {
    b = new CircuitBreaker({ failuresToOpen: BREAKER_LIMITS.failuresToOpen, coolDownMs });
    breakers.set(baseUrl, b);
  }
  return b;
}

/** Test hook: forget every breaker (as a fresh isolate would). */
export function resetBreakers(): void {
  breakers.clear();
}

/** What /healthz reports: ok (closed, no failure), degraded (failures, or probing), open. */
export interface LlmHealthReport {
  readonly state: "unconfigured" | "ok" | "degraded" | "open";
  readonly consecutiveFailures?: number;
  readonly lastError?: string | null;
}

export function llmHealth(baseUrl: string | undefined): LlmHealthReport {
  if (!baseUrl) return { state: "unconfigured" };
  const s = breakerFor(baseUrl).snapshot();
  const state: LlmHealthReport["state"] = s.state === "open" ? "open" : s.state === "half-open" || s.consecutiveFailures > 0 ? "degraded" : "ok";
  return { state, consecutiveFailures: s.consecutiveFailures, lastError: s.lastError };
}
