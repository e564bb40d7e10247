/**
 * Fault injection for the workerd tests: wrappers that make a real binding
 * fail the way an outage does (D1 rejects statements, KV rejects reads and
 * writes). They wrap nothing when nothing should fail; they are not fakes
 * of a working store.
 */
const outage = (what: string) => new Error(`${what}: simulated outage (D1_ERROR / KV 503)`);

/** A D1 binding whose every statement fails when it runs. */
export function failingD1(): D1Database {
  const statement = {
    bind: () => statement,
    all: () => Promise.reject(outage("D1 all")),
    raw: () => Promise.reject(outage("D1 raw")),
    first: () => Promise.reject(outage("D1 first")),
    run: () => Promise.reject(outage("D1 run")),
  };
  return {
    prepare: () => statement,
    batch: () => Promise.reject(outage("D1 batch")),
    exec: () => Promise.reject(outage("D1 exec")),
    withSession: () => {
      throw outage("D1 session");
    },
    dump: () => Promise.reject(outage("D1 dump")),
  } as unknown as D1Database;
}

/** A KV binding that is down: every read and write rejects. */
export function failingKv(): KVNamespace {
  const down = () => Promise.reject(outage("KV"));
  return { get: down, getWithMetadata: down, put: down, delete: down, list: down } as unknown as KVNamespace;
}
