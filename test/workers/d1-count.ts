/**
 * Counting the D1 queries a request makes: a real binding, wrapped so that
 * every statement it runs (all, raw, first, run; each statement of a batch)
 * is counted, sessions included. Nothing is faked: every call goes to the
 * binding it wraps.
 */
const RUNS = new Set(["all", "raw", "first", "run"]);

export interface QueryCount {
  queries: number;
}

function countedStatement(statement: D1PreparedStatement, count: QueryCount): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "bind") return (...args: unknown[]) => countedStatement(value.apply(target, args), count);
      if (typeof prop === "string" && RUNS.has(prop)) {
        return (...args: unknown[]) => {
          count.queries++;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

/** `db`, counting into `count`. */
export function countingD1<T extends D1Database | D1DatabaseSession>(db: T, count: QueryCount): T {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "prepare") return (sql: string) => countedStatement(value.call(target, sql), count);
      if (prop === "withSession") return (...args: unknown[]) => countingD1(value.apply(target, args), count);
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => {
          count.queries += statements.length;
          return value.call(target, statements);
        };
      }
      return value.bind(target);
    },
  });
}
