import { createHash } from 'node:crypto';
import { type Database, type Sql, transactionScopeOn } from '@hireflow/db';
import type pg from 'pg';

// Transactional mode on a connection the wrapper owns, so that the
// transaction's first statement rides with BEGIN and its last with COMMIT:
// "BEGIN; EXECUTE claim(…)" and "EXECUTE complete(…); COMMIT" are each one
// simple-protocol query, one round trip, where `transactional` sends BEGIN
// and COMMIT each on its own. The wrapper's statements are SQL-level
// prepared statements (PREPARE once per connection, parsed and planned
// once), their values written as escaped literals (`pg`'s escapeLiteral),
// since the simple protocol carries no parameters. The work gets the
// Database's transaction scope on the same connection (transactionScopeOn in
// @hireflow/db).

const DUPLICATE_PREPARED_STATEMENT = '42P05';

/** Statements this connection has PREPAREd, by name. */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

interface Statement {
  name: string;
  /** `$1…$n` text for PREPARE. */
  text: string;
}

const statements = new Map<string, Statement>();

function statement(sql: string): Statement {
  let found = statements.get(sql);
  if (!found) {
    let n = 0;
    found = {
      name: `hf_idem_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`,
      text: sql.replace(/\?/g, () => `$${++n}`),
    };
    statements.set(sql, found);
  }
  return found;
}

/** One result of a simple-protocol query: the last statement's, for a query of several. */
function last(result: pg.QueryResult | pg.QueryResult[]): pg.QueryResult {
  return Array.isArray(result) ? result[result.length - 1]! : result;
}

export class OwnedTransaction {
  readonly #pool: pg.Pool;
  readonly #client: pg.PoolClient;
  #broken: Error | undefined;
  #open = false;

  readonly #onError = (error: Error) => {
    // The server ended the session (a stalled holder past its lease) or the
    // socket broke while no query was under way: never reuse it.
    this.#broken ??= error;
  };

  private constructor(pool: pg.Pool, client: pg.PoolClient) {
    this.#pool = pool;
    this.#client = client;
    // A checked-out client has no listener of the pool's: without one an idle error would be thrown.
    client.on('error', this.#onError);
  }

  /** A connection of the Database's pool, held until `release`. */
  static async connect(db: Database): Promise<OwnedTransaction> {
    return new OwnedTransaction(db.pool, await db.pool.connect());
  }

  /** `EXECUTE name('literal', …)` of `sql` (`?` placeholders, each cast in the text). */
  #execute(sql: string, params: unknown[]): string {
    const { name } = statement(sql);
    const values = params.map((v) =>
      v === null || v === undefined ? 'NULL' : this.#client.escapeLiteral(String(v)),
    );
    return `EXECUTE ${name}(${values.join(', ')})`;
  }

  /** PREPAREs the statements this connection has not prepared yet (outside any transaction). */
  async #prepare(sqls: string[]): Promise<void> {
    let done = preparedOn.get(this.#client);
    if (!done) {
      done = new Set();
      preparedOn.set(this.#client, done);
    }
    for (const s of sqls.map(statement)) {
      if (done.has(s.name)) continue;
      try {
        await this.#query(`PREPARE ${s.name} AS ${s.text}`);
      } catch (error) {
        // Named by a digest of its text: a statement of that name (another copy
        // of this module prepared it on this connection) is this statement.
        if ((error as { code?: string }).code !== DUPLICATE_PREPARED_STATEMENT) throw error;
      }
      done.add(s.name);
    }
  }

  async #query(text: string): Promise<pg.QueryResult> {
    return last(await this.#client.query(text));
  }

  /**
   * BEGIN and the first statement in one round trip. `later` are statements
   * this transaction may run (prepared now if the connection lacks them).
   */
  async begin<T>(sql: string, params: unknown[], later: string[] = []): Promise<T[]> {
    await this.#prepare([sql, ...later]);
    this.#open = true;
    return (await this.#query(`BEGIN;\n${this.#execute(sql, params)}`)).rows as T[];
  }

  /** One statement of the wrapper's own in the transaction. */
  async run<T>(sql: string, params: unknown[]): Promise<T[]> {
    await this.#prepare([sql]);
    return (await this.#query(this.#execute(sql, params))).rows as T[];
  }

  /** The last statement (if any) and COMMIT in one round trip; the statement's error aborts the commit. */
  async commit<T>(last?: { sql: string; params: unknown[] }): Promise<T[]> {
    if (last) await this.#prepare([last.sql]);
    const result = await this.#query(last ? `${this.#execute(last.sql, last.params)};\nCOMMIT` : 'COMMIT');
    this.#open = false;
    return result.rows as T[];
  }

  /** Rolls back what is open (a failed ROLLBACK marks the connection broken), then returns it to the pool. */
  async release(): Promise<void> {
    if (this.#open && !this.#broken) {
      await this.#query('ROLLBACK').catch((error: Error) => {
        this.#broken ??= error;
      });
    }
    this.#open = false;
    this.#client.removeListener('error', this.#onError);
    // With an error, the pool destroys the connection instead of reusing it.
    this.#client.release(this.#broken ?? false);
  }

  /**
   * Runs `work` on a scope whose statements go to this transaction (its
   * nested transactions are savepoints in it): the transaction scope on this
   * connection, which refuses statements once `work` is over.
   */
  async work<T>(work: (scope: Sql) => Promise<T>): Promise<T> {
    const { scope, end } = transactionScopeOn(this.#client, this.#pool);
    try {
      return await work(scope);
    } finally {
      end();
    }
  }
}
