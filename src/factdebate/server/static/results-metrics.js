// @ts-check
/* The results viewer's figures, computed as the evaluation harness computes them (eval/metrics.py), so the
   page and an evaluation's summary.json agree on the same records: every row with a gold label counts; an
   unparsed verdict or an errored run is a wrong answer with a column of its own (UNPARSED / ERROR) in the
   confusion matrix, so a method cannot look better by failing. Macro-F1 averages over the dataset's labels
   where the page knows them (an evaluation's run.json or summary.json opened with its results), else over
   the labels the file shows, and the page says so. Accuracy's interval is Wilson's (stats.js), as the
   harness's. Pure functions, no DOM: Node tests them against the Python (tests/server/test_results_metrics.py,
   tests/server/page/test_page_statistics.py). */
import { wilson } from "./stats.js";

export const UNPARSED = "UNPARSED";
export const ERROR = "ERROR";
/* The verdict labels in the order the datasets list them; any other label (a medical dataset's "yes") after
   them, alphabetically. */
const ORDER = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "CONFLICTING EVIDENCE/CHERRYPICKING"];

/** @typedef {"ok" | "unparsed" | "error"} Status */
/** @typedef {{llm_calls?: number, prompt_tokens?: number, completion_tokens?: number, seconds?: number} & Record<string, number>} Usage */
/**
 * One row as the metrics see it: ``shown`` is the predicted class as the matrix shows it.
 * @typedef {{gold: string | null, shown: string, status: Status, correct: boolean, usage: Usage | null}} RowOutcome
 */
/** @typedef {(value: unknown) => string | null} Normalise a label however a file spells it */

/** @type {Normalise} */
const upper = value => (value === null || value === undefined ? null : String(value).trim().toUpperCase());

/**
 * An evaluation's record carries ``predicted`` (already in its dataset's labels) and is compared with its
 * gold as it is, as the harness does; other results rows (verify --output) carry ``label``, and both sides
 * are read through ``normLabel`` (the page's label aliases).
 * @param {any} row @param {Normalise} [normLabel] @returns {RowOutcome}
 */
export function rowOutcome(row, normLabel = upper) {
  const evaluated = "predicted" in row;
  const goldRaw = row.gold ?? row.label_gold ?? row.gold_label;
  const gold = goldRaw === undefined || goldRaw === null ? null : evaluated ? String(goldRaw) : normLabel(goldRaw);
  /** @type {Status} */
  let status = "error";
  /** @type {string | null} */
  let predicted = null;
  if (!row.error) {
    const value = evaluated ? row.predicted : normLabel(row.label);
    predicted = value === null || value === undefined ? null : String(value);
    status = predicted === null ? "unparsed" : "ok";
  }
  const shown = status === "error" ? ERROR : predicted ?? UNPARSED;
  // An errored record carries what it spent before failing (eval/runner.py): counted, as cost() in eval/metrics.py.
  const usage = row.usage && typeof row.usage === "object" ? row.usage : null;
  return { gold, shown, status, correct: status === "ok" && gold !== null && predicted === gold, usage };
}

/** @param {string[]} labels in the datasets' order, then the rest alphabetically */
function ordered(labels) {
  const known = ORDER.filter(l => labels.includes(l));
  return [...known, ...labels.filter(l => !ORDER.includes(l)).sort()];
}

/**
 * The dataset's labels as an evaluation's run.json or summary.json gives them (``labels``, with its
 * ``dataset``); null for anything else. @param {unknown} value @returns {string[] | null}
 */
export function datasetLabels(value) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const v = /** @type {Record<string, unknown>} */ (value);
  if (typeof v.dataset !== "string" || !Array.isArray(v.labels) || !v.labels.length) return null;
  return v.labels.every(l => typeof l === "string") ? /** @type {string[]} */ (v.labels) : null;
}

/**
 * Accuracy with its Wilson interval, per-label precision/recall/F1, macro-F1 and the confusion matrix over
 * the rows with a gold label, as eval/metrics.py compute() does. ``labels``: the dataset's, in its order:
 * macro-F1 averages over them all (a label neither gold nor answered scores 0), the same set whatever the
 * file holds. Without them (a verify --output file, an evaluation opened without its run.json) the labels
 * seen as gold or as an answer stand in, and ``labelsFrom`` says so.
 * @param {RowOutcome[]} all @param {string[] | null} [labels]
 */
export function metrics(all, labels = null) {
  const outcomes = all.filter(o => o.gold !== null);
  const n = outcomes.length;
  const correct = outcomes.filter(o => o.correct).length;
  /** @param {(o: RowOutcome) => boolean} test */
  const count = test => outcomes.filter(test).length;
  const golds = new Set(outcomes.map(o => /** @type {string} */ (o.gold)));
  const answers = new Set(outcomes.map(o => o.shown));
  answers.delete(UNPARSED);
  answers.delete(ERROR);
  const labelsFrom = labels && labels.length ? "dataset" : "seen";
  const averaged = labels && labels.length ? [...labels] : ordered([...new Set([...golds, ...answers])]);
  /** @type {Record<string, {precision: number, recall: number, f1: number, support: number, predicted: number}>} */
  const perClass = {};
  averaged.forEach(label => {
    const hits = count(o => o.correct && o.gold === label);
    const predicted = count(o => o.shown === label);
    const support = count(o => o.gold === label);
    const precision = predicted ? hits / predicted : 0;
    const recall = support ? hits / support : 0;
    const f1 = precision + recall ? 2 * precision * recall / (precision + recall) : 0;
    perClass[label] = { precision, recall, f1, support, predicted };
  });
  /** @param {Set<string>} found */
  const outside = found => [...found].filter(l => !averaged.includes(l)).sort();
  // As eval/metrics.py confusion(): the dataset's labels (every one, a row even without gold), then any
  // other gold or answer; with only the seen labels, the rows are the labels given as gold.
  const rows = labelsFrom === "dataset" ? [...averaged, ...outside(golds)] : averaged.filter(l => golds.has(l));
  const columns = [...averaged, ...outside(answers), UNPARSED, ERROR];
  return {
    n, correct, accuracy: n ? correct / n : NaN, accuracyCi: wilson(correct, n),
    macroF1: averaged.length ? averaged.reduce((sum, l) => sum + perClass[l].f1, 0) / averaged.length : 0,
    labels: averaged, labelsFrom, perClass,
    unparsed: count(o => o.status === "unparsed"), errors: count(o => o.status === "error"),
    confusion: { gold: rows, predicted: columns,
      matrix: rows.map(g => columns.map(p => count(o => o.gold === g && o.shown === p))) },
  };
}

/** @typedef {ReturnType<typeof metrics>} Metrics */

/**
 * Mean and total model calls, tokens (prompt + completion) and seconds over the rows that carry usage, as
 * eval/metrics.py cost(): every finished row and every errored one with what it spent before failing (gold
 * labels play no part). ``erroredWithout``: errored rows with none (written before errors kept their spend).
 * @param {RowOutcome[]} outcomes
 */
export function cost(outcomes) {
  const usages = /** @type {Usage[]} */ (outcomes.map(o => o.usage).filter(Boolean));
  /** @param {(u: Usage) => number} pick */
  const figure = pick => {
    const total = usages.reduce((sum, u) => sum + pick(u), 0);
    return { mean: usages.length ? total / usages.length : NaN, total };
  };
  const errored = outcomes.filter(o => o.status === "error");
  return { withUsage: usages.length, erroredIncluded: errored.filter(o => o.usage).length,
    erroredWithout: errored.filter(o => !o.usage).length,
    calls: figure(callsOf), tokens: figure(tokensOf), seconds: figure(secondsOf) };
}

/** @param {Usage} u */
export const callsOf = u => Number(u.llm_calls || 0);
/** @param {Usage} u */
export const tokensOf = u => Number(u.prompt_tokens || 0) + Number(u.completion_tokens || 0);
/** @param {Usage} u */
export const secondsOf = u => Number(u.seconds || 0);

/**
 * ``items`` sorted by ``key`` (numbers as numbers, text as text, ties kept in file order); a missing value
 * (null, undefined, NaN, "") goes last in either direction, so a sort never buries the rows that have one.
 * @template T @param {T[]} items @param {(item: T) => string | number | null | undefined} key
 * @param {"ascending" | "descending"} direction @returns {T[]}
 */
export function sortedBy(items, key, direction) {
  const sign = direction === "ascending" ? 1 : -1;
  /** @param {unknown} v */
  const missing = v => v === null || v === undefined || v === "" || (typeof v === "number" && Number.isNaN(v));
  return items.map((item, i) => ({ item, i, k: key(item) })).sort((a, b) => {
    if (missing(a.k) || missing(b.k)) return missing(a.k) === missing(b.k) ? a.i - b.i : missing(a.k) ? 1 : -1;
    const diff = typeof a.k === "number" && typeof b.k === "number" ? a.k - b.k
      : String(a.k).localeCompare(String(b.k), "en", { numeric: true, sensitivity: "base" });
    return diff ? sign * diff : a.i - b.i;
  }).map(x => x.item);
}
