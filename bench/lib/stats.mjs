/** Small numeric helpers. */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects with `label` if `promise` does not settle within `ms`. */
export function within(ms, label, promise) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((
      _,
      reject,
    ) => (timer = setTimeout(() => reject(new Error(`${label} did not finish within ${ms} ms`)), ms))),
  ]);
}
