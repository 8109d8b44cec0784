// @ts-check
/* The statistics the page computes itself, as the harness computes them (eval/intervals.py,
   eval/compare/verdict.py, eval/compare/cost.py), so the results viewer and its paired view say what
   `factdebate compare` and a summary say of the same records: Wilson intervals for proportions, Holm's
   correction over several McNemar tests, the smallest difference a comparison of n samples could detect,
   the verdict in one sentence, and dollars with enough digits. Pure functions, no DOM: Node tests them
   against the Python (tests/server/page/test_page_statistics.py). */

export const ALPHA = 0.05;
export const POWER = 0.8;

/** A polynomial in ``r`` by Horner's rule, highest coefficient first. @param {number[]} c @param {number} r */
const horner = (c, r) => c.reduce((sum, k) => sum * r + k, 0);

/* Wichura's AS241 (Applied Statistics 37, 1988), the rational approximation Python's
   statistics.NormalDist().inv_cdf uses, so both sides get the same quantiles to the last bits. */
const CENTRAL = [[2509.0809287301226727, 33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
  13731.693765509461125, 1971.5909503065514427, 133.14166789178437745, 3.387132872796366608],
[5226.495278852854561, 28729.085735721942674, 39307.89580009271061, 21213.794301586595867,
  5394.1960214247511077, 687.1870074920579083, 42.313330701600911252, 1.0]];
const NEAR = [[7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177, 1.27045825245236838258,
  3.64784832476320460504, 5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734],
[1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966, 0.14810397642748007459,
  0.68976733498510000455, 1.6763848301838038494, 2.05319162663775882187, 1.0]];
const FAR = [[2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386,
  0.026532189526576123093, 0.29656057182850489123, 1.7848265399172913358, 5.4637849111641143699,
  6.6579046435011037772],
[2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5, 7.868691311456132591e-4,
  0.0148753612908506148525, 0.13692988092273580531, 0.59983220655588793769, 1.0]];

/** The standard normal quantile of ``p`` (0 < p < 1). @param {number} p */
export function normalQuantile(p) {
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return horner(CENTRAL[0], r) * q / horner(CENTRAL[1], r);
  }
  let r = Math.sqrt(-Math.log(q <= 0 ? p : 1 - p));
  const [num, den] = r <= 5 ? NEAR : FAR;
  r -= r <= 5 ? 1.6 : 5;
  const x = horner(num, r) / horner(den, r);
  return q < 0 ? -x : x;
}

/** The two-sided quantile: 1.959964 for 95%. @param {number} confidence */
export const zValue = confidence => normalQuantile(1 - (1 - confidence) / 2);

/**
 * The Wilson score interval of k successes in n trials (eval/intervals.py wilson): a bootstrap of 3 right of
 * 3 is the point [1, 1], this is [0.44, 1]. NaN bounds for n = 0.
 * @param {number} k @param {number} n @param {number} [confidence] @returns {[number, number]}
 */
export function wilson(k, n, confidence = 0.95) {
  if (n === 0) return [NaN, NaN];
  const z = zValue(confidence);
  const p = k / n;
  const denominator = 1 + z * z / n;
  const centre = (p + z * z / (2 * n)) / denominator;
  const half = z / denominator * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  return [k === 0 ? 0 : Math.max(0, centre - half), k === n ? 1 : Math.min(1, centre + half)];
}

/** Holm's step-down adjusted p-values, in the order given (eval/intervals.py holm). @param {number[]} ps */
export function holm(ps) {
  const m = ps.length;
  const order = ps.map((_, i) => i).sort((x, y) => ps[x] - ps[y] || x - y);
  const adjusted = new Array(m).fill(1);
  let running = 0;
  order.forEach((i, rank) => { running = Math.max(running, Math.min(1, (m - rank) * ps[i])); adjusted[i] = running; });
  return adjusted;
}

/** The fewest discordant samples, all one way, with which McNemar's exact p falls below ``alpha``.
 * @param {number} alpha */
export function fewestDiscordant(alpha) {
  let k = 1;
  while (2 ** (1 - k) >= alpha) k += 1;
  return k;
}

/** The paired difference in accuracy McNemar's test at ``alpha`` detects with ``power`` at n samples, a
 * share of them discordant (eval/intervals.py minimum_detectable_difference).
 * @param {number} n @param {number} share @param {number} [alpha] @param {number} [power] */
export function minimumDetectableDifference(n, share, alpha = ALPHA, power = POWER) {
  if (n <= 0) return NaN;
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return Math.min(1, Math.max(z * Math.sqrt(share / n), fewestDiscordant(alpha) / n));
}

/** @typedef {{a: string, b: string, n: number, only_a: number, only_b: number, difference: number,
 * mcnemar_p: number, mcnemar_p_holm?: number, differs?: boolean, detectable_difference?: number | null}} PairFigures */

/** Adds to every pair its Holm-adjusted p, whether it differs at ALPHA after the correction and the
 * difference it could detect (eval/compare/verdict.py mark_pairs). @param {PairFigures[]} pairs */
export function markPairs(pairs) {
  const m = pairs.length;
  const adjusted = holm(pairs.map(p => p.mcnemar_p));
  pairs.forEach((p, i) => {
    const share = p.n ? (p.only_a + p.only_b) / p.n : 0;
    p.mcnemar_p_holm = adjusted[i];
    p.differs = adjusted[i] < ALPHA;
    p.detectable_difference = m ? minimumDetectableDifference(p.n, share, ALPHA / m) : null;
  });
  return pairs;
}

/** Python's ``f"{x:.Nf}"``: round half to even on the binary value, as toFixed does not always.
 * @param {number} x @param {number} digits */
function fixed(x, digits) {
  const text = x.toFixed(digits);
  // toFixed rounds the decimal expansion of the double exactly, as Python does, except that engines differ
  // on exact ties (x.5 with an exact binary value): Python rounds those to even.
  const scaled = x * 10 ** digits;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled)) {
    const down = Math.floor(scaled);
    return ((down % 2 === 0 ? down : down + 1) / 10 ** digits).toFixed(digits);
  }
  return text;
}

/** @param {number} value */
const points = value => fixed(value * 100, 0);

/** ALPHA as Python's ``{:g}`` writes it. */
const ALPHA_TEXT = String(ALPHA);

/**
 * The verdict in words (eval/compare/verdict.py sentence): which pairs differ after Holm's correction, and
 * what difference the comparison could have seen at its n. ``pairs`` as ``markPairs`` leaves them.
 * @param {PairFigures[]} pairs @param {number} n
 */
export function verdictSentence(pairs, n) {
  if (!pairs.length) return "No pair to compare.";
  const m = pairs.length;
  const correction = m > 1 ? "after Holm's correction" : "(one comparison, nothing to correct)";
  const threshold = ALPHA / m;
  let reach;
  if (fewestDiscordant(threshold) > n) {
    reach = "at n = " + n + " no difference can be significant: McNemar's exact test needs at least " +
      fewestDiscordant(threshold) + " samples on which the two runs disagree, all one way";
  } else {
    const detectable = pairs.map(p => Number(p.detectable_difference)).sort((x, y) => x - y);
    const low = points(detectable[0]), high = points(detectable[detectable.length - 1]);
    const size = low === high ? "about " + low + " points" : "about " + low + " to " + high + " points, by how often the runs disagree";
    reach = "at n = " + n + " a difference in accuracy of " + size + " could be seen (" + fixed(POWER * 100, 0) +
      "% power, two-sided " + ALPHA_TEXT + "/" + m + "); a smaller one may be there unseen";
  }
  const differing = pairs.filter(p => p.differs);
  if (!differing.length) {
    const smallest = Math.min(...pairs.map(p => Number(p.mcnemar_p_holm)));
    return "No pair differs at " + ALPHA_TEXT + " " + correction + " (smallest adjusted McNemar p = " + fixed(smallest, 2) +
      "); " + reach + ".";
  }
  const found = differing.map(p => {
    const [better, worse] = p.difference > 0 ? [p.a, p.b] : [p.b, p.a];
    return better + " is more accurate than " + worse + " by " + points(Math.abs(p.difference)) +
      " points (adjusted p = " + fixed(Number(p.mcnemar_p_holm), 3) + ")";
  }).join("; ");
  const rest = m - differing.length;
  return differing.length + " of " + m + " pair(s) differ at " + ALPHA_TEXT + " " + correction + ": " + found +
    (rest ? ". The other " + rest + " do not; " + reach + "." : ".");
}

/** Dollars with three significant digits and never fewer than four decimals (eval/compare/cost.py
 * dollars_text): 0.000123, 0.00400, 12.3400; n/a for none. @param {number | null | undefined} value */
export function dollarsText(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "n/a";
  if (value === 0) return "0.0000";
  const decimals = Math.max(4, 2 - Math.floor(Math.log10(Math.abs(value))));
  return fixed(value, decimals);
}
