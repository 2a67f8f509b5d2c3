// One `VectorIndex` per tenant, so a search can only ever see the rows of the
// tenant it names: matching never crosses tenants by construction, not by a
// filter someone could forget.
import {
  type IndexEntry,
  type IndexKind,
  type SearchHit,
  type SearchOptions,
  type SearchQuery,
  VectorIndex,
} from './vector-index.ts';

export interface TenantIndexesOptions {
  kind: IndexKind;
  dims: number;
  modelId: string;
}

export class TenantIndexes {
  readonly kind: IndexKind;
  readonly dims: number;
  readonly modelId: string;
  readonly #byTenant = new Map<string, VectorIndex>();

  constructor(options: TenantIndexesOptions) {
    this.kind = options.kind;
    this.dims = options.dims;
    this.modelId = options.modelId;
  }

  /** The tenant's index, created empty on first use. */
  forTenant(tenantId: string, capacity?: number): VectorIndex {
    assertTenant(tenantId);
    let index = this.#byTenant.get(tenantId);
    if (index === undefined) {
      index = new VectorIndex({ kind: this.kind, dims: this.dims, modelId: this.modelId, capacity });
      this.#byTenant.set(tenantId, index);
    }
    return index;
  }

  upsert(tenantId: string, entry: IndexEntry, modelId = this.modelId): 'added' | 'replaced' {
    return this.forTenant(tenantId).upsert(entry, modelId);
  }

  remove(tenantId: string, id: string): boolean {
    assertTenant(tenantId);
    return this.#byTenant.get(tenantId)?.remove(id) ?? false;
  }

  search(tenantId: string, query: SearchQuery, options?: SearchOptions): SearchHit[] {
    assertTenant(tenantId);
    return this.#byTenant.get(tenantId)?.search(query, options) ?? [];
  }

  has(tenantId: string, id: string): boolean {
    assertTenant(tenantId);
    return this.#byTenant.get(tenantId)?.has(id) ?? false;
  }

  /** Entries held for the tenant (0 for a tenant never seen). */
  size(tenantId: string): number {
    assertTenant(tenantId);
    return this.#byTenant.get(tenantId)?.size ?? 0;
  }

  /** Forgets a tenant (its memory goes with it). */
  drop(tenantId: string): boolean {
    assertTenant(tenantId);
    return this.#byTenant.delete(tenantId);
  }

  tenants(): string[] {
    return [...this.#byTenant.keys()];
  }
}

function assertTenant(tenantId: string): void {
  if (typeof tenantId !== 'string' || tenantId === '')
    throw new RangeError('tenantId must be a non-empty string');
}
