// Rows of unit vectors in one contiguous block of WebAssembly memory, scanned
// by the SIMD dot-product kernel (dot-kernel.wat): ~2.7× the fastest plain-JS
// loop over a Float32Array here, and about as fast as memory bandwidth
// allows. Each index owns one memory; a row is `stride` floats, the vector's
// dims rounded up to 16 with zeros (the kernel's step), which leaves dots
// unchanged. Layout: [query | dots of one block | rows…], so growing the
// memory only ever extends the rows.
import { DOT_KERNEL_BASE64 } from './dot-kernel-bytes.ts';

// The tsconfig's libs (es2024, node) do not describe WebAssembly: the little used here, typed.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const KERNEL = new wasm.Module(Buffer.from(DOT_KERNEL_BASE64, 'base64'));
const PAGE = 65_536;
const MAX_BYTES = 65_536 * PAGE; // wasm32: 4 GiB per memory
/** Rows per kernel call: the block's dots (16 KiB) stay in cache while the caller reads them. */
export const SCAN_BLOCK = 4096;

type DotsFn = (q: number, m: number, rows: number, stride: number, out: number) => void;

export class VectorMatrix {
  readonly dims: number;
  readonly stride: number;
  readonly #memory: WasmMemory;
  readonly #dots: DotsFn;
  readonly #rowsOffset: number;
  #capacity = 0;
  #rows = new Float32Array(0);
  #query = new Float32Array(0);
  #out = new Float32Array(0);

  constructor(dims: number, capacity: number) {
    if (!Number.isInteger(dims) || dims < 1)
      throw new RangeError(`dims must be a positive integer, got ${dims}`);
    this.dims = dims;
    this.stride = Math.ceil(dims / 16) * 16;
    const instance = new wasm.Instance(KERNEL, {});
    this.#memory = instance.exports.memory as WasmMemory;
    this.#dots = instance.exports.dots as DotsFn;
    this.#rowsOffset = (this.stride + SCAN_BLOCK) * 4;
    this.reserve(Math.max(capacity, 1));
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Makes room for at least `rows` rows (grows the memory; never shrinks). */
  reserve(rows: number): void {
    if (rows <= this.#capacity) return;
    const bytes = this.#rowsOffset + rows * this.stride * 4;
    if (bytes > MAX_BYTES) {
      throw new RangeError(
        `${rows} vectors of ${this.dims} dims exceed the 4 GiB of one index: see docs/matching.md, "At 10M vectors"`,
      );
    }
    const pages = Math.ceil(bytes / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    // growing detaches the old buffer: views are made anew
    const buffer = this.#memory.buffer;
    this.#capacity = Math.floor((buffer.byteLength - this.#rowsOffset) / (this.stride * 4));
    this.#query = new Float32Array(buffer, 0, this.stride);
    this.#out = new Float32Array(buffer, this.stride * 4, SCAN_BLOCK);
    this.#rows = new Float32Array(buffer, this.#rowsOffset, this.#capacity * this.stride);
  }

  /** Writes `vector` scaled to unit length into row `row` (checked: length, finite values). */
  write(row: number, vector: Float32Array): void {
    if (!(vector instanceof Float32Array) || vector.length !== this.dims) {
      throw new RangeError(`a vector must be a Float32Array of ${this.dims} values`);
    }
    let sum = 0;
    for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
    if (!Number.isFinite(sum)) throw new RangeError('a vector must hold finite numbers only');
    const scale = sum === 0 ? 0 : 1 / Math.sqrt(sum);
    const start = row * this.stride;
    for (let i = 0; i < this.dims; i++) this.#rows[start + i] = vector[i]! * scale;
  }

  /** Copies row `from` over row `to`. */
  move(from: number, to: number): void {
    const start = from * this.stride;
    this.#rows.copyWithin(to * this.stride, start, start + this.stride);
  }

  /** A copy of row `row`'s vector. */
  read(row: number): Float32Array {
    const start = row * this.stride;
    return this.#rows.slice(start, start + this.dims);
  }

  /** The first `rows` rows as one view (`stride` floats each); valid until the next `reserve`. */
  view(rows: number): Float32Array {
    return this.#rows.subarray(0, rows * this.stride);
  }

  /** Loads `query` (unit length, `dims` values) for the `dots` calls that follow. */
  setQuery(query: Float32Array): void {
    this.#query.fill(0);
    this.#query.set(query.subarray(0, this.dims));
  }

  /**
   * Dots of the query with rows [first, first + count), count ≤ SCAN_BLOCK:
   * the result's [j] is query · row (first + j). The array is reused by the
   * next call.
   */
  dots(first: number, count: number): Float32Array {
    // the query sits at byte 0 and the block's dots right after it
    const queryBytes = this.stride * 4;
    this.#dots(0, this.#rowsOffset + first * queryBytes, count, this.stride, queryBytes);
    return this.#out;
  }
}
