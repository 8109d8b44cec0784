// @ts-check
/* Small DOM helpers every part of the page shares. All text goes through textContent: nothing from the
   server or a file is ever parsed as HTML. */

/** @typedef {{llm_calls: number, tool_calls: number, prompt_tokens: number, completion_tokens: number, seconds: number}} Usage */

/** @type {Record<string, string>} label -> its CSS class */
export const LABEL_CLASS = { "SUPPORTS": "supports", "REFUTES": "refutes", "NOT ENOUGH INFO": "nei",
  // AVeriTeC's fourth label (a four-label run only): shown in the undecided colour
  "CONFLICTING EVIDENCE/CHERRYPICKING": "nei" };

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {unknown} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** @param {string | null | undefined} label */
export function labelChip(label) {
  return el("span", "label " + (LABEL_CLASS[label || ""] || "unparsed"), label || "no label");
}

/** @param {unknown} source @returns {string | null} an http(s) link, or null */
export function safeUrl(source) {
  return typeof source === "string" && /^https?:\/\//i.test(source) ? source : null;
}

/** @param {number | null | undefined} value */
export const fixed = value => (value === null || value === undefined ? "n/a" : Number(value).toFixed(2));

/** @param {Usage} u */
export function usageText(u) {
  /** @param {number} n @param {string} one @param {string} many */
  const count = (n, one, many) => (n || 0) + " " + (n === 1 ? one : many);
  return count(u.llm_calls, "model call", "model calls") + " · " + count(u.tool_calls, "search", "searches") + " · " +
    count((u.prompt_tokens || 0) + (u.completion_tokens || 0), "token", "tokens") + " · " +
    Number(u.seconds || 0).toFixed(1) + "\u00a0s"; // a no-break space: "1.2" and its "s" on one line at 390 px
}

/**
 * A score as a bar, with a tick at its threshold when there is one.
 * @param {string} name @param {number | null | undefined} value @param {number | null | undefined} threshold
 */
export function gauge(name, value, threshold) {
  const wrap = el("div", "gauge");
  const head = el("div", "gauge-head");
  const limit = threshold === null || threshold === undefined ? null : threshold;
  const missing = value === null || value === undefined;
  head.append(el("span", "", name), el("span", "gauge-value", missing ? "could not be scored" :
    fixed(value) + (limit !== null ? " / " + limit : "")));
  const bar = el("div", "gauge-bar");
  if (value !== null && value !== undefined) {
    const fill = el("div", "gauge-fill");
    fill.style.width = Math.max(0, Math.min(1, value)) * 100 + "%";
    if (limit !== null) fill.classList.add(value >= limit ? "ok" : "low");
    bar.append(fill);
  } else {
    wrap.classList.add("na"); // an empty outlined bar: no fill at all (a fill without a width spans the bar)
  }
  if (limit !== null) {
    const tick = el("div", "gauge-tick");
    tick.style.left = limit * 100 + "%";
    tick.title = "threshold " + limit;
    bar.append(tick);
  }
  wrap.append(head, bar);
  return wrap;
}

/**
 * A button that saves `data` as a JSON file (made in the browser: nothing is sent anywhere), the same JSON
 * the results viewer and `factdebate verify --json` read.
 * @param {string} filename @param {() => unknown} data
 */
export function downloadButton(filename, data) {
  const button = el("button", "secondary download", "Download JSON");
  button.type = "button";
  button.addEventListener("click", () => {
    const url = URL.createObjectURL(new Blob([JSON.stringify(data(), null, 2)], { type: "application/json" }));
    const link = el("a");
    link.href = url;
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  return button;
}

/** A file name from a text: its first words, lower case. @param {string} text @param {string} kind */
export function fileName(text, kind) {
  const words = String(text || "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim().split(" ").slice(0, 6).join("-");
  return "factdebate-" + kind + (words ? "-" + words : "") + ".json";
}

/** @param {string} id */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error("the page lacks #" + id);
  return node;
}

/** @param {string} id */
export const input = id => /** @type {HTMLInputElement} */ (byId(id));
