// @ts-check
/* One Tab stop per list of evidence links (a roving tabindex): the links and folds of a list take turns at
   tabindex 0, and the arrow keys, Home and End move between them. A Tool-MAD verdict's lists of sources
   cost a keyboard user a Tab each (52 to get past one); now each list is one stop, and a screen reader is
   told how to walk it. */

/** What a list's stops are: its links and the summaries of its folds. */
const STOPS = "a[href], summary";
const HINT = "arrow keys move between its links";

/** @param {HTMLElement} list */
const stopsOf = list => /** @type {HTMLElement[]} */ ([...list.querySelectorAll(STOPS)]);

/**
 * Makes ``list`` one Tab stop: the stop last focused in it (else its first) is the one Tab reaches. Called
 * again after items are added; a list with one stop or none is left as it is.
 * @param {HTMLElement} list @param {string} [name] what the list is, for a screen reader ("Evidence")
 * @returns {HTMLElement} the list
 */
export function oneTabStop(list, name) {
  const stops = stopsOf(list);
  if (stops.length < 2) return list;
  const current = stops.find(s => s.tabIndex === 0 && s.dataset.rove === "on") || stops[0];
  stops.forEach(s => { s.tabIndex = s === current ? 0 : -1; s.dataset.rove = s === current ? "on" : ""; });
  list.setAttribute("aria-label", (name || "Links") + " (" + stops.length + "; " + HINT + ")");
  if (list.dataset.roving) return list;
  list.dataset.roving = "1";
  list.addEventListener("focusin", event => {
    const at = /** @type {HTMLElement} */ (event.target);
    if (!at.matches(STOPS)) return;
    stopsOf(list).forEach(s => { s.tabIndex = s === at ? 0 : -1; s.dataset.rove = s === at ? "on" : ""; });
  });
  list.addEventListener("keydown", event => {
    const all = stopsOf(list).filter(s => s.getClientRects().length); // a folded passage's own links are not
    const at = all.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (at < 0) return;
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    const to = step !== undefined ? (at + step + all.length) % all.length
      : event.key === "Home" ? 0 : event.key === "End" ? all.length - 1 : -1;
    if (to < 0) return;
    event.preventDefault();
    all[to].focus();
  });
  return list;
}

/**
 * A box whose text may be cut (max-height, overflow: auto) made a keyboard user can scroll it: a Tab stop
 * with a name (axe's scrollable-region-focusable: a long answer, at phone width a short one).
 * @template {HTMLElement} T @param {T} box @param {string} name @returns {T}
 */
export function scrollable(box, name) {
  box.tabIndex = 0;
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", name);
  return box;
}
