/**
 * Team-draft interleaving (Radlinski, Kurup & Joachims, CIKM 2008): the two
 * rounds take turns, the one with fewer picks so far going next and a coin
 * deciding ties, each contributing its best result not yet shown. A click
 * credits the team of the item clicked. The coin comes from a seeded
 * generator, so a query's merged list (and its pages) is stable for a user.
 */
export type Team = "control" | "treatment";

export interface Drafted<T> {
  readonly item: T;
  readonly team: Team;
}

/** xorshift32 from a 32-bit seed (never 0). */
function coins(seed: number): () => boolean {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return (x & 1) === 1;
  };
}

/** Merges two ranked lists into at most `length` distinct items, each with the team that contributed it. */
export function teamDraft<T>(
  control: readonly T[],
  treatment: readonly T[],
  length: number,
  seed: number,
  key: (t: T) => string | number = (t) => t as unknown as string,
): Drafted<T>[] {
  const flip = coins(seed);
  const shown = new Set<string | number>();
  const out: Drafted<T>[] = [];
  const next = { control: 0, treatment: 0 };
  const picks = { control: 0, treatment: 0 };
  const lists = { control, treatment };
  const advance = (team: Team) => {
    const list = lists[team];
    while (next[team] < list.length && shown.has(key(list[next[team]] as T))) next[team]++;
    return next[team] < list.length;
  };
  while (out.length < length) {
    const left = { control: advance("control"), treatment: advance("treatment") };
    if (!left.control && !left.treatment) break;
    let team: Team;
    if (!left.control) team = "treatment";
    else if (!left.treatment) team = "control";
    else if (picks.control !== picks.treatment) team = picks.control < picks.treatment ? "control" : "treatment";
    else team = flip() ? "control" : "treatment";
    const item = lists[team][next[team]] as T;
    shown.add(key(item));
    out.push({ item, team });
    picks[team]++;
    next[team]++;
  }
  return out;
}

/** Per-search preference from clicks: which team got more of them. */
export function preference(clickedTeams: readonly Team[]): "treatment" | "control" | "tie" {
  let t = 0;
  for (const team of clickedTeams) t += team === "treatment" ? 1 : -1;
  return t > 0 ? "treatment" : t < 0 ? "control" : "tie";
}

/**
 * Debiased credit: a click counts for a team only on an item the other
 * round did not rank at all within the same depth (its first offset + limit
 * results). A click on an item both rounds show says nothing about which
 * ranks better, and under team draft its team is the coin's: counting it
 * only adds noise (Chapelle, Joachims, Radlinski & Yue, TOIS 2012, credit
 * the "differing" results). The rule is symmetric in the teams, so with
 * rounds of equal quality the credited wins and losses stay balanced.
 */
export function soleContributions<T>(control: readonly T[], treatment: readonly T[], key: (t: T) => string | number): (t: T) => boolean {
  const inControl = new Set(control.map(key));
  const inTreatment = new Set(treatment.map(key));
  return (t) => inControl.has(key(t)) !== inTreatment.has(key(t));
}
