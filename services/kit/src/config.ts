/**
 * Config once: every process declares the environment it needs as a schema and calls
 * {@link loadConfig} in main.ts. All problems are reported together, each naming the variable.
 */

export interface VarSpec<T> {
  readonly parse: (raw: string) => T;
  readonly fallback?: T | undefined;
  readonly optional?: boolean;
  readonly description: string;
}

type Spec = VarSpec<unknown>;
export type ConfigSchema = Record<string, Spec>;
export type ConfigOf<S extends ConfigSchema> = {
  [K in keyof S]: S[K] extends VarSpec<infer T> ? (S[K]["optional"] extends true ? T | undefined : T) : never;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

function spec<T>(parse: (raw: string) => T, description: string, fallback?: T): VarSpec<T> {
  return { parse, description, fallback };
}

export const env = {
  /** A string; required unless a fallback is given. */
  string: (description: string, fallback?: string) => spec((raw) => raw, description, fallback),
  /** An optional string (undefined when unset). */
  optionalString: (description: string): VarSpec<string> & { optional: true } => ({
    parse: (raw) => raw,
    description,
    optional: true,
  }),
  /** A whole number within [min, max]. */
  int: (
    description: string,
    fallback?: number,
    min = Number.MIN_SAFE_INTEGER,
    max = Number.MAX_SAFE_INTEGER,
  ) =>
    spec(
      (raw) => {
        const n = Number(raw);
        if (!Number.isInteger(n) || n < min || n > max) {
          throw new Error(`must be a whole number between ${min} and ${max}`);
        }
        return n;
      },
      description,
      fallback,
    ),
  /** true/false/1/0/yes/no. */
  bool: (description: string, fallback?: boolean) =>
    spec(
      (raw) => {
        const v = raw.trim().toLowerCase();
        if (["true", "1", "yes", "on"].includes(v)) return true;
        if (["false", "0", "no", "off"].includes(v)) return false;
        throw new Error("must be true or false");
      },
      description,
      fallback,
    ),
  /** One of the given values. */
  oneOf: <const T extends string>(values: readonly T[], description: string, fallback?: T) =>
    spec(
      (raw) => {
        if (!values.includes(raw as T)) throw new Error(`must be one of ${values.join(", ")}`);
        return raw as T;
      },
      description,
      fallback,
    ),
  /** A URL. */
  url: (description: string, fallback?: string) =>
    spec(
      (raw) => {
        new URL(raw);
        return raw;
      },
      description,
      fallback,
    ),
};

/** Reads and validates `source` (default: process.env) against `schema`; throws {@link ConfigError}. */
export function loadConfig<S extends ConfigSchema>(
  schema: S,
  source: Record<string, string | undefined> = process.env,
): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, s] of Object.entries(schema)) {
    const raw = source[name];
    if (raw === undefined || raw === "") {
      if (s.fallback !== undefined) out[name] = s.fallback;
      else if (s.optional) out[name] = undefined;
      else problems.push(`${name} is missing (${s.description})`);
      continue;
    }
    try {
      out[name] = s.parse(raw);
    } catch (err) {
      problems.push(`${name}=${JSON.stringify(raw)} ${(err as Error).message} (${s.description})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as ConfigOf<S>;
}
