/**
 * A small parser of the Prometheus text exposition format (version 0.0.4, what prom-client writes):
 * `# HELP` and `# TYPE` lines, and samples `name{label="value",...} value [timestamp]` with the
 * escapes \\, \" and \n in label values and NaN / +Inf / -Inf values (any case).
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Metric families by name, from their `# TYPE` lines. */
  families: Map<string, { type: string; help?: string }>;
  samples: Sample[];
  /** Samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The one sample of `name` with these labels (throws if there are none or several). */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseValue(text: string): number {
  const t = text.toLowerCase();
  if (t === "nan") return Number.NaN;
  if (t === "+inf" || t === "inf") return Number.POSITIVE_INFINITY;
  if (t === "-inf") return Number.NEGATIVE_INFINITY;
  const n = Number(text);
  if (text === "" || Number.isNaN(n)) throw new Error(`not a sample value: ${text}`);
  return n;
}

/** Parses `text`; throws on a line that is neither a comment nor a well-formed sample. */
export function parsePrometheusText(text: string): Exposition {
  const families = new Map<string, { type: string; help?: string }>();
  const helps = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith("#")) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(line);
      if (m?.[1] === "TYPE") families.set(m[2]!, { type: m[3]!, help: helps.get(m[2]!) });
      else if (m?.[1] === "HELP") helps.set(m[2]!, m[3]!);
      continue;
    }
    const fail = (why: string) => new Error(`line ${i + 1}: ${why}: ${raw}`);
    const name = NAME.exec(line)?.[0];
    if (!name) throw fail("no metric name");
    let pos = name.length;
    const labels: Record<string, string> = {};
    if (line[pos] === "{") {
      pos++;
      for (;;) {
        while (line[pos] === " ") pos++;
        if (line[pos] === "}") {
          pos++;
          break;
        }
        const label = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos))?.[0];
        if (!label) throw fail("bad label name");
        pos += label.length;
        if (line[pos] !== "=" || line[pos + 1] !== '"') throw fail(`label ${label} without ="`);
        pos += 2;
        let value = "";
        for (;;) {
          const c = line[pos++];
          if (c === undefined) throw fail("unterminated label value");
          if (c === '"') break;
          if (c === "\\") {
            const e = line[pos++];
            value += e === "n" ? "\n" : e === "\\" ? "\\" : e === '"' ? '"' : `\\${e}`;
          } else value += c;
        }
        if (label in labels) throw fail(`label ${label} twice`);
        labels[label] = value;
        while (line[pos] === " ") pos++;
        if (line[pos] === ",") pos++;
        else if (line[pos] !== "}") throw fail("expected , or }");
      }
    }
    const rest = line.slice(pos).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2 || !rest[0]) throw fail("expected a value (and a timestamp)");
    samples.push({ name, labels, value: parseValue(rest[0]) });
  }
  const matches = (s: Sample, labels: Record<string, string>) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && matches(s, labels));
  return {
    families,
    samples,
    find,
    value(name, labels = {}) {
      const found = find(name, labels);
      if (found.length !== 1)
        throw new Error(`${found.length} samples of ${name} with ${JSON.stringify(labels)}, want one`);
      return found[0]!.value;
    },
  };
}
