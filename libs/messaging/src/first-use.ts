/**
 * A value made on the first `get`, not before (issue 31: what loads BullMQ is
 * made when first needed): one `make` for the calls that race to it, the same
 * value after; a failed `make` rejects the calls that waited and the next
 * `get` makes it again. `close` closes it if it was made (waiting for a `make`
 * under way), and every `get` after rejects with `closedMessage`.
 */
export interface FirstUse<T> {
  get(): Promise<T>;
  close(): Promise<void>;
}

export function madeOnFirstUse<T>(
  make: () => Promise<T>,
  closeMade: (value: T) => Promise<void>,
  closedMessage: string,
): FirstUse<T> {
  let made: Promise<T> | undefined;
  let closed = false;
  return {
    get() {
      if (closed) return Promise.reject(new Error(closedMessage));
      if (!made) {
        const making = make();
        made = making;
        making.catch(() => {
          if (made === making) made = undefined;
        });
      }
      return made;
    },
    async close() {
      closed = true;
      const making = made;
      made = undefined;
      const value = await making?.then(
        (v) => ({ v }),
        () => undefined,
      );
      if (value) await closeMade(value.v);
    },
  };
}
