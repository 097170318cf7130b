/** Accumulates bind parameters while SQL text is assembled: `b.param(v)` returns `$n`. */
export class SqlBuilder {
  readonly params: unknown[] = [];
  /** Adds a bind parameter and returns its placeholder (with an optional cast, e.g. "text[]"). */
  param(value: unknown, cast?: string): string {
    this.params.push(value);
    return cast ? `$${this.params.length}::${cast}` : `$${this.params.length}`;
  }
}
