// @ts-check
/* Skip links for keyboard users. At the top of the page: to the form, to the verdict on screen and past its
   debate (these two shown only while a debate is on screen); at the start of each debate, one past it. A
   debate is many Tab stops (turns, passages, model calls), so a keyboard user reaches what follows in a few. */
import { el } from "./dom.js";

/** The first element of ``selector`` that is on screen (not in a hidden view or column). @param {string} selector */
function onScreen(selector) {
  return /** @type {HTMLElement | undefined} */ ([...document.querySelectorAll(selector)]
    .find(node => node.getClientRects().length));
}

const VERDICT = ".verdict-box:not([hidden])";
const END = ".debate-end";

/** Moves focus to ``node`` (focusable by script only) and shows it. @param {HTMLElement | undefined} node */
function focusOn(node) {
  if (!node) return;
  if (!node.hasAttribute("tabindex")) node.tabIndex = -1;
  node.focus();
}

/**
 * The start and end of a debate card's body: a "Skip past the debate" link (shown on focus) and the mark it
 * moves focus to, from which the next Tab leaves the debate.
 * @returns {{link: HTMLAnchorElement, end: HTMLElement}}
 */
export function debateSkip() {
  const link = /** @type {HTMLAnchorElement} */ (el("a", "skip-past", "Skip past the debate"));
  link.href = "#";
  const end = el("p", "debate-end", "End of the debate.");
  end.tabIndex = -1;
  link.addEventListener("click", event => { event.preventDefault(); end.focus(); });
  return { link, end };
}

const top = /** @type {HTMLAnchorElement[]} */ ([...document.querySelectorAll(".skip-links [data-skip]")]);

/** Shows the top's verdict and debate links only where there is one to go to. */
function refresh() {
  top.forEach(link => { link.hidden = !onScreen(link.dataset.skip === "verdict" ? VERDICT : END); });
}

top.forEach(link => link.addEventListener("click", event => {
  event.preventDefault();
  focusOn(onScreen(link.dataset.skip === "verdict" ? VERDICT : END));
}));
// The results viewer's form, where the claim form is not on screen (the link's own target is that form).
document.querySelector(".skip-links a[href='#claim-form']")?.addEventListener("click", event => {
  if (onScreen("#claim-form")) return;
  event.preventDefault();
  focusOn(onScreen(".view .form-card"));
});
// Checked whenever focus moves: before a Tab can reach them, they say whether a debate is on screen now.
document.addEventListener("focusin", refresh);
