// Each row's canonical skills as small integers in one shared pool, so a
// million rows cost a few typed arrays rather than a million Sets, and the
// overlap of a query with a row is a count over a mark table.
// A replaced or removed row's old run becomes garbage in the pool; the pool
// is compacted when garbage outgrows the live runs.

const MAX_SKILLS_PER_ROW = 65_535;

export class SkillStore {
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];
  #start = new Uint32Array(0);
  #count = new Uint16Array(0);
  #signature = new Uint32Array(0);
  #querySignature = 0;
  #pool = new Int32Array(1024);
  #used = 0;
  #live = 0;
  #marks = new Uint8Array(64);

  /** Makes room for rows [0, rows). */
  reserve(rows: number): void {
    if (rows <= this.#start.length) return;
    const start = new Uint32Array(rows);
    start.set(this.#start);
    const count = new Uint16Array(rows);
    count.set(this.#count);
    const signature = new Uint32Array(rows);
    signature.set(this.#signature);
    this.#start = start;
    this.#count = count;
    this.#signature = signature;
  }

  /** Sets row `row`'s skills (canonical keys; duplicates are dropped). `rows` = rows in use, for compaction. */
  set(row: number, skills: readonly string[], rows: number): void {
    const unique = [...new Set(skills)];
    if (unique.length > MAX_SKILLS_PER_ROW)
      throw new RangeError(`at most ${MAX_SKILLS_PER_ROW} skills per entry`);
    this.clear(row);
    if (this.#used + unique.length > this.#pool.length) this.#makeRoom(unique.length, rows);
    this.#start[row] = this.#used;
    this.#count[row] = unique.length;
    let signature = 0;
    for (const skill of unique) {
      const id = this.#intern(skill);
      this.#pool[this.#used++] = id;
      signature |= 1 << (id & 31);
    }
    this.#signature[row] = signature;
    this.#live += unique.length;
  }

  clear(row: number): void {
    this.#live -= this.#count[row]!;
    this.#count[row] = 0;
    this.#signature[row] = 0;
  }

  /** Row `from`'s skills become row `to`'s (after a removal moved the last row into a hole). */
  move(from: number, to: number): void {
    this.#live -= this.#count[to]!;
    this.#start[to] = this.#start[from]!;
    this.#count[to] = this.#count[from]!;
    this.#signature[to] = this.#signature[from]!;
    this.#count[from] = 0;
    this.#signature[from] = 0;
  }

  count(row: number): number {
    return this.#count[row]!;
  }

  skills(row: number): string[] {
    const start = this.#start[row]!;
    return Array.from(this.#pool.subarray(start, start + this.#count[row]!), (id) => this.#names[id]!);
  }

  /** Marks the query's skills (see `arrays`); returns how many distinct skills the query has. */
  mark(skills: readonly string[]): number {
    const unique = new Set(skills);
    for (const skill of unique) {
      const id = this.#ids.get(skill);
      if (id !== undefined) {
        this.#marks[id] = 1;
        this.#querySignature |= 1 << (id & 31);
      }
    }
    return unique.size;
  }

  /** Clears every mark (call after each search that marked). */
  unmark(): void {
    this.#marks.fill(0);
    this.#querySignature = 0;
  }

  /**
   * The arrays behind the store, for a scan's inner loop: row r's skills are
   * pool[start[r] … start[r] + count[r]), and marks[skill] is 1 for a marked
   * skill; a row can share a skill with the marked ones only if its
   * signature and `querySignature` share a bit. Valid until the next `set`.
   */
  arrays() {
    return {
      start: this.#start,
      count: this.#count,
      signature: this.#signature,
      pool: this.#pool,
      marks: this.#marks,
      querySignature: this.#querySignature,
    };
  }

  #intern(skill: string): number {
    let id = this.#ids.get(skill);
    if (id === undefined) {
      id = this.#names.length;
      this.#ids.set(skill, id);
      this.#names.push(skill);
      if (id >= this.#marks.length) {
        const marks = new Uint8Array(this.#marks.length * 2);
        marks.set(this.#marks);
        this.#marks = marks;
      }
    }
    return id;
  }

  // Compacts the live runs into a pool with room for `extra` more (and slack).
  #makeRoom(extra: number, rows: number): void {
    const size = Math.max(1024, 2 * (this.#live + extra));
    const pool = new Int32Array(size);
    let used = 0;
    for (let row = 0; row < rows; row++) {
      const start = this.#start[row]!;
      const count = this.#count[row]!;
      pool.set(this.#pool.subarray(start, start + count), used);
      this.#start[row] = used;
      used += count;
    }
    this.#pool = pool;
    this.#used = used;
  }
}
